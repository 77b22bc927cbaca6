//! A scenario emulated: each flow's end host a namespace on a TUN device, everything between
//! them `airtcp-sim`'s `Simulation` (links, queues, the 802.11 MAC, routers, agents, handoffs)
//! driven on the wall clock by one engine thread. A reader thread per device hands the
//! host's packets to the engine; the engine handles what is due, injects them, writes what
//! reached a host to its device, and sleeps until the next event or packet.
//!
//! Stopping (or dropping) ends the threads and removes every namespace, with its device and
//! processes. Nothing here starts traffic: the caller runs ping or iperf3 in the namespaces.

use std::io;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant as WallInstant};

use airtcp_proto::Instant;
use airtcp_sim::packet::node_address;
use airtcp_sim::{ConfigError, RunOptions, Scenario, Simulation, Summary};
use serde::Serialize;
use tun_rs::{InterruptEvent, SyncDevice};

use crate::host::{self, Host};
use crate::lag::{LagHistogram, LagSummary};
use crate::netns;

/// The longest the engine sleeps without looking at its stop flag.
const IDLE_WAIT: Duration = Duration::from_millis(20);

/// A thread woken from sleep runs 50-100 us late on a typical (virtual) machine: the
/// engine sleeps until this long before an event is due, then polls for it.
const SPIN_BEFORE_DUE: Duration = Duration::from_micros(150);

/// Options of an emulated run besides the scenario.
#[derive(Clone, Debug, Default)]
pub struct EmulationOptions {
    /// Write a pcap trace per node (the emulated network's view) into this directory.
    pub pcap_dir: Option<PathBuf>,
    pub pcap_snaplen: Option<u32>,
    /// The engine stops by itself this long after starting, whatever the caller does.
    pub wall_limit: Option<Duration>,
}

/// An emulated end host, for the caller's traffic tools.
#[derive(Clone, Debug, Serialize)]
pub struct HostInfo {
    pub node: usize,
    pub name: String,
    pub namespace: String,
    pub address: Ipv4Addr,
}

/// A finished emulation: the simulator's summary of the emulated network and how late the
/// engine was.
#[derive(Clone, Debug, Serialize)]
pub struct EmulationReport {
    pub summary: Summary,
    pub lag: LagSummary,
    /// The engine stopped because `wall_limit` was reached.
    pub hit_wall_limit: bool,
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

struct EngineOutcome {
    simulation: Simulation,
    lag: LagHistogram,
    hit_wall_limit: bool,
    error: Option<io::Error>,
}

pub struct Emulation {
    hosts: Vec<HostInfo>,
    stop: Arc<AtomicBool>,
    interrupt: Arc<InterruptEvent>,
    readers: Vec<JoinHandle<()>>,
    engine: Option<JoinHandle<EngineOutcome>>,
    /// Sends time 0 to the engine (`begin`).
    go: Option<mpsc::Sender<WallInstant>>,
    started: Option<WallInstant>,
    // Dropped last: the threads using the devices have ended by then. In `hosts`' order.
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
        let prefix = netns::run_prefix();
        let mut infos = Vec::new();
        let mut devices = Vec::new();
        let mut namespaces = Vec::new();
        for node in simulation.external_hosts() {
            let name = &scenario.nodes[node];
            let address = Ipv4Addr::from(node_address(node));
            let host = Host::create(&format!("{prefix}{name}"), address)?;
            infos.push(HostInfo {
                node,
                name: name.clone(),
                namespace: host.namespace.name().to_string(),
                address,
            });
            devices.push(Arc::new(host.device));
            namespaces.push(host.namespace);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let interrupt = Arc::new(InterruptEvent::new()?);
        let (to_engine, from_hosts) = mpsc::channel::<(usize, Vec<u8>)>();
        let readers = infos
            .iter()
            .zip(&devices)
            .map(|(info, device)| {
                let (device, to_engine) = (Arc::clone(device), to_engine.clone());
                let (interrupt, node) = (Arc::clone(&interrupt), info.node);
                std::thread::spawn(move || read_host(&device, &interrupt, node, &to_engine))
            })
            .collect();
        let mut by_node: Vec<Option<Arc<SyncDevice>>> = vec![None; scenario.nodes.len()];
        for (info, device) in infos.iter().zip(&devices) {
            by_node[info.node] = Some(Arc::clone(device));
        }
        let engine_stop = Arc::clone(&stop);
        let wall_limit = options.wall_limit;
        let (go, time_zero) = mpsc::channel::<WallInstant>();
        let engine = std::thread::spawn(move || {
            // Time 0 is when the caller says so (`begin`); stopped before that, nothing ran.
            let started = time_zero.recv().ok();
            run_engine(
                simulation,
                started,
                wall_limit,
                &engine_stop,
                &from_hosts,
                &by_node,
            )
        });
        Ok(Emulation {
            hosts: infos,
            stop,
            interrupt,
            readers,
            engine: Some(engine),
            go: Some(go),
            started: None,
            _devices: devices,
            namespaces,
        })
    }

    /// Starts the scenario's clock: time 0 is now. Until then the hosts exist (tools can be
    /// set up in them) but nothing is carried.
    pub fn begin(&mut self) {
        if let Some(go) = self.go.take() {
            let now = WallInstant::now();
            if go.send(now).is_ok() {
                self.started = Some(now);
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
        self.started
            .map_or(0.0, |started| started.elapsed().as_secs_f64())
    }

    /// Stops the engine and the readers and reports; the hosts are removed when `self` goes.
    pub fn stop(&mut self) -> io::Result<EmulationReport> {
        self.stop.store(true, Ordering::Relaxed);
        self.go = None;
        let _ = self.interrupt.trigger();
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
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
        let result = outcome.simulation.finish(wall_time_s)?;
        Ok(EmulationReport {
            summary: result.summary,
            lag: outcome.lag.summary(),
            hit_wall_limit: outcome.hit_wall_limit,
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

/// Hands the host's packets to the engine until interrupted.
fn read_host(
    device: &SyncDevice,
    interrupt: &InterruptEvent,
    node: usize,
    to_engine: &mpsc::Sender<(usize, Vec<u8>)>,
) {
    let mut buffer = vec![0u8; 65_536];
    while let Ok(n) = device.recv_intr(&mut buffer, interrupt) {
        if to_engine.send((node, buffer[..n].to_vec())).is_err() {
            return;
        }
    }
}

/// The engine: the simulation on the wall clock until stopped.
fn run_engine(
    mut simulation: Simulation,
    started: Option<WallInstant>,
    wall_limit: Option<Duration>,
    stop: &AtomicBool,
    from_hosts: &mpsc::Receiver<(usize, Vec<u8>)>,
    devices: &[Option<Arc<SyncDevice>>],
) -> EngineOutcome {
    // Linux lets a sleeping thread wake up to 50 us late by default, on each of the two
    // waits a packet takes; the engine's waits should end on time. Best effort: without it
    // the engine is later, not wrong.
    let _ = std::fs::write("/proc/thread-self/timerslack_ns", "1");
    let Some(started) = started else {
        return EngineOutcome {
            simulation,
            lag: LagHistogram::default(),
            hit_wall_limit: false,
            error: None,
        };
    };
    let now = || Instant::from_nanos(started.elapsed().as_nanos() as u64);
    let mut lag = LagHistogram::default();
    let mut hit_wall_limit = false;
    let mut step = |simulation: &mut Simulation, arrived: Option<(usize, Vec<u8>)>| {
        let t = now();
        if let Some(due) = simulation.next_event_at().filter(|due| *due <= t) {
            lag.record(t.as_nanos() - due.as_nanos());
        }
        simulation.run_until(t)?;
        if let Some((node, bytes)) = arrived {
            simulation.inject(node, &bytes)?;
        }
        while let Ok((node, bytes)) = from_hosts.try_recv() {
            simulation.inject(node, &bytes)?;
        }
        simulation.drain_outgoing(|node, bytes| {
            if let Some(device) = &devices[node] {
                // A full device queue drops, as a NIC's would.
                let _ = device.send(bytes);
            }
        });
        io::Result::Ok(())
    };
    let mut error = None;
    while !stop.load(Ordering::Relaxed) {
        if wall_limit.is_some_and(|limit| started.elapsed() >= limit) {
            hit_wall_limit = true;
            break;
        }
        let wait = simulation.next_event_at().map_or(IDLE_WAIT, |due| {
            Duration::from_nanos(due.as_nanos().saturating_sub(now().as_nanos())).min(IDLE_WAIT)
        });
        let received = if wait > SPIN_BEFORE_DUE {
            from_hosts.recv_timeout(wait - SPIN_BEFORE_DUE)
        } else {
            std::thread::yield_now();
            from_hosts.try_recv().map_err(|e| match e {
                mpsc::TryRecvError::Empty => mpsc::RecvTimeoutError::Timeout,
                mpsc::TryRecvError::Disconnected => mpsc::RecvTimeoutError::Disconnected,
            })
        };
        let arrived = match received {
            Ok(packet) => Some(packet),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        if let Err(e) = step(&mut simulation, arrived) {
            error = Some(e);
            break;
        }
    }
    EngineOutcome {
        simulation,
        lag,
        hit_wall_limit,
        error,
    }
}
