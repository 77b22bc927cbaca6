//! A scenario emulated: each flow's end host a namespace on a TUN device, everything between
//! them `airtcp-sim`'s `Simulation` (links, queues, the 802.11 MAC, routers, agents, handoffs)
//! driven on the wall clock by one engine thread (`engine`), which reads the hosts' devices,
//! handles what is due, injects what they sent, writes what reached them, and sleeps until
//! the next event or packet.
//!
//! Stopping (or dropping) ends the threads and removes every namespace, with its device and
//! processes. Nothing here starts traffic: the caller runs ping or iperf3 in the namespaces.

use std::io;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use airtcp_proto::Instant;
use airtcp_sim::packet::node_address;
use airtcp_sim::sim::{Received, RECEIVED_BIN_NS};
use airtcp_sim::{ConfigError, RunOptions, Scenario, Simulation, Summary};
use serde::Serialize;
use tun_rs::SyncDevice;

use crate::clock::WallClock;
use crate::engine::{Engine, EngineOutcome, EngineStats, HostDevice, Pacing};
use crate::host::{self, DeviceDrops, Host};
use crate::lag::LagSummary;
use crate::netns;
use crate::wait::Stopper;

/// Options of an emulated run besides the scenario.
#[derive(Clone, Debug)]
pub struct EmulationOptions {
    /// Write a pcap trace per node (the emulated network's view) into this directory.
    pub pcap_dir: Option<PathBuf>,
    pub pcap_snaplen: Option<u32>,
    /// The engine stops by itself this long after starting, whatever the caller does.
    pub wall_limit: Option<Duration>,
    /// Run the engine under `SCHED_FIFO` where permitted (`realtime`).
    pub realtime: bool,
    /// Let the engine poll instead of sleeping (`engine::Pacing::Poll`): the lowest
    /// latency on a quiet machine, for a core; `realtime` is then ignored.
    pub poll: bool,
}

impl Default for EmulationOptions {
    fn default() -> Self {
        EmulationOptions {
            pcap_dir: None,
            pcap_snaplen: None,
            wall_limit: None,
            realtime: true,
            poll: false,
        }
    }
}

/// An emulated end host, for the caller's traffic tools.
#[derive(Clone, Debug, Serialize)]
pub struct HostInfo {
    pub node: usize,
    pub name: String,
    pub namespace: String,
    pub address: Ipv4Addr,
}

/// A finished emulation: the simulator's summary of the emulated network, how late the
/// engine was, and what was lost between the hosts and the engine.
#[derive(Clone, Debug, Serialize)]
pub struct EmulationReport {
    /// The emulated network's summary at the scenario's end (its counters from time 0 to
    /// there, as a simulated run's), or when the engine stopped if that was earlier.
    pub summary: Summary,
    /// What reached the hosts, per connection, on the scenario's clock (`received`).
    pub received: Vec<Received>,
    pub received_bin_s: f64,
    /// Per packet written to a host: from its due time to the write.
    pub lag: LagSummary,
    /// Scheduling, wall-limit hit, write errors, malformed reads, writes.
    #[serde(flatten)]
    pub engine: EngineStats,
    /// Per host (in `hosts()`' order), the packets its device dropped before the engine
    /// read them (`tx_dropped`: the device's queue was full) or after it wrote them
    /// (`rx_dropped`), by the kernel's own counters.
    pub device_drops: Vec<DeviceDrops>,
}

/// Why an emulation could not start.
#[derive(Debug)]
pub enum StartError {
    /// The scenario cannot be emulated (or run at all).
    Config(ConfigError),
    /// A namespace, device or thread could not be made.
    Io(io::Error),
}

impl From<io::Error> for StartError {
    fn from(error: io::Error) -> Self {
        StartError::Io(error)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Config(e) => e.fmt(f),
            StartError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StartError {}

pub struct Emulation {
    hosts: Vec<HostInfo>,
    stop: Arc<AtomicBool>,
    stopper: Arc<Stopper>,
    engine: Option<JoinHandle<EngineOutcome>>,
    /// Sends time 0 to the engine (`begin`).
    go: Option<mpsc::Sender<WallClock>>,
    clock: Option<WallClock>,
    run: netns::Run,
    // Dropped last, the devices before their namespaces: the engine has ended by then. In
    // `hosts`' order.
    _devices: Vec<Arc<SyncDevice>>,
    namespaces: Vec<netns::Namespace>,
}

impl Emulation {
    /// Builds the hosts and the engine, which waits for `begin`. Leftovers of runs whose
    /// process died are removed first.
    pub fn start(scenario: Scenario, options: &EmulationOptions) -> Result<Emulation, StartError> {
        netns::cleanup(netns::NAME_PREFIX, false)?;
        let run_options = RunOptions {
            pcap_dir: options.pcap_dir.clone(),
            pcap_snaplen: options.pcap_snaplen,
            external_hosts: true,
            ..RunOptions::default()
        };
        let simulation =
            Simulation::new(scenario.clone(), &run_options).map_err(StartError::Config)?;
        let run = netns::Run::new()?;
        let mut infos = Vec::new();
        let mut devices = Vec::new();
        let mut namespaces = Vec::new();
        for node in simulation.external_hosts() {
            let name = &scenario.nodes[node];
            let address = Ipv4Addr::from(node_address(node));
            let host = Host::create(&run, name, address)?;
            infos.push(HostInfo {
                node,
                name: name.clone(),
                namespace: host.namespace.name().to_string(),
                address,
            });
            devices.push(Arc::new(host.device));
            namespaces.push(host.namespace);
        }
        let engine_devices = infos
            .iter()
            .zip(&devices)
            .map(|(info, device)| HostDevice {
                node: info.node,
                device: Arc::clone(device),
            })
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stopper = Arc::new(Stopper::new()?);
        let (engine_stop, engine_stopper) = (Arc::clone(&stop), Arc::clone(&stopper));
        let wall_limit = options
            .wall_limit
            .map(|limit| Instant::from_nanos(limit.as_nanos() as u64));
        let pacing = if options.poll {
            Pacing::Poll
        } else {
            Pacing::Sleep {
                realtime: options.realtime,
            }
        };
        let end = Instant::from_nanos(scenario.duration_ns);
        let engine = Engine::new(simulation, engine_devices, scenario.nodes.len(), end);
        let (go, time_zero) = mpsc::channel::<WallClock>();
        let engine = std::thread::Builder::new()
            .name("airtcp-engine".to_string())
            .spawn(move || {
                // Time 0 is when the caller says so (`begin`); stopped before that,
                // nothing ran.
                match time_zero.recv() {
                    Ok(clock) => {
                        engine.run(clock, wall_limit, pacing, &engine_stop, &engine_stopper)
                    }
                    Err(_) => engine.unstarted(),
                }
            })?;
        Ok(Emulation {
            hosts: infos,
            stop,
            stopper,
            engine: Some(engine),
            go: Some(go),
            clock: None,
            run,
            _devices: devices,
            namespaces,
        })
    }

    /// Starts the scenario's clock: time 0 is now. Until then the hosts exist (tools can be
    /// set up in them) but nothing is carried.
    pub fn begin(&mut self) {
        if let Some(go) = self.go.take() {
            let clock = WallClock::starting_now();
            if go.send(clock).is_ok() {
                self.clock = Some(clock);
            }
        }
    }

    pub fn hosts(&self) -> &[HostInfo] {
        &self.hosts
    }

    /// Sets the kernel of the host on `node`: `sysctls` (keys under /proc/sys, per
    /// namespace) and attributes of its route to the emulated network.
    pub fn configure_host(
        &self,
        node: usize,
        sysctls: &[(&str, &str)],
        route_attributes: &[&str],
    ) -> io::Result<()> {
        let index = self
            .hosts
            .iter()
            .position(|host| host.node == node)
            .ok_or_else(|| io::Error::other(format!("node {node} is not an emulated host")))?;
        let namespace = &self.namespaces[index];
        for (key, value) in sysctls {
            namespace.write_sysctl(key, value)?;
        }
        if route_attributes.is_empty() {
            return Ok(());
        }
        host::set_route_attributes(namespace, route_attributes)
    }

    /// Seconds since the scenario's time 0 (0 before `begin`).
    pub fn elapsed_s(&self) -> f64 {
        self.clock
            .map_or(0.0, |clock| clock.now().as_nanos() as f64 / 1e9)
    }

    /// The environment variable every process started in the hosts must carry: cleanup
    /// kills a process in a namespace of this run only if it does (`netns`).
    pub fn process_marker(&self) -> (&'static str, String) {
        (netns::RUN_VARIABLE, self.run.id().to_string())
    }

    /// Stops the engine and the readers and reports; the hosts are removed when `self` goes.
    pub fn stop(&mut self) -> io::Result<EmulationReport> {
        self.stop.store(true, Ordering::Relaxed);
        self.go = None;
        self.stopper.stop();
        let outcome = self
            .engine
            .take()
            .ok_or_else(|| io::Error::other("the emulation was already stopped"))?
            .join()
            .map_err(|_| io::Error::other("the emulator's engine thread panicked"))?;
        if let Some(error) = outcome.error {
            return Err(error);
        }
        let wall_time_s = self.elapsed_s();
        let device_drops = self
            .namespaces
            .iter()
            .map(host::device_drops)
            .collect::<io::Result<_>>()?;
        let received = outcome.simulation.received();
        let result = outcome.simulation.finish(wall_time_s)?;
        let mut summary = outcome.at_end.unwrap_or(result.summary);
        summary.wall_time_s = wall_time_s;
        Ok(EmulationReport {
            summary,
            received,
            received_bin_s: RECEIVED_BIN_NS as f64 / 1e9,
            lag: outcome.lag.summary(),
            engine: outcome.stats,
            device_drops,
        })
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        if self.engine.is_some() {
            let _ = self.stop();
        }
    }
}
