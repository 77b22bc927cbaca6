//! The engine: the emulated network (`airtcp-sim`'s `Simulation`) on the wall clock, in one
//! thread that owns the hosts' TUN devices (non-blocking).
//!
//! Each packet a host sends is stamped with the wall clock when the engine reads it, the
//! simulation is run to that stamp and the packet injected there: a packet enters the
//! network no earlier than it left its host (the stamp is after the kernel queued it), and
//! what is due is handled before it. The devices are read in turns, a packet each, so that
//! no host waits behind another's burst. What reaches a host is written to its device
//! once the simulation has passed its due time, and how late each such write was is the
//! lag (`lag`). The network's counters are read at the scenario's end (`at_end`), as the
//! simulator's run would end there, while the engine carries on for the tools to finish.
//! Between events the engine sleeps on `wait` until shortly before the next one is due
//! (by `early`'s margin, which follows how late its recent wake-ups were) and polls the
//! devices for the rest, while `duty` says polling is worth it and keeps the thread under
//! the kernel's real-time throttling. See `realtime` for how the thread is scheduled.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use airtcp_proto::Instant;
use airtcp_sim::{Simulation, Summary};
use serde::Serialize;
use tun_rs::SyncDevice;

use crate::clock::WallClock;
use crate::device_io::{DeviceReader, DeviceWriter, WriteCounts};
use crate::duty::DutyCycle;
use crate::early::WakeMargin;
use crate::lag::LagHistogram;
use crate::realtime::{schedule_engine, Demotion, Scheduling};
use crate::wait::{Stopper, Waiter};

/// How the engine waits for the next event or packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Sleep on its timer and the devices (`wait`), polling only shortly before an event;
    /// under `SCHED_FIFO` if `realtime` and permitted.
    Sleep { realtime: bool },
    /// Never sleep: poll the devices and the clock, in the normal class. The lowest latency
    /// on a quiet machine, for a core.
    Poll,
}

/// How long a polling engine polls before it looks at its stop flag and wall limit.
const POLL_SLICE_NS: u64 = 1_000_000;

/// The most packets read from one device before the others are looked at again and the
/// engine checks its stop flag: a round of the devices reads one each.
const ROUNDS_PER_BATCH: usize = 64;

/// A host's device and the node it attaches.
pub struct HostDevice {
    pub node: usize,
    pub device: Arc<SyncDevice>,
}

/// How the engine ran, for the report (`EmulationReport` carries it as it is).
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineStats {
    /// None if it never started (stopped before time 0).
    pub scheduling: Option<Scheduling>,
    /// The engine stopped because its wall-clock limit was reached.
    pub hit_wall_limit: bool,
    /// Writes to a host's device that failed (packets lost).
    pub write_errors: u64,
    /// Reads from a host's device that could not be split into packets (lost).
    pub malformed_reads: u64,
    /// Writes to the hosts' devices, coalesced ones among them (`device_io`).
    pub writes: WriteCounts,
}

pub struct EngineOutcome {
    pub simulation: Simulation,
    /// The network's summary at the scenario's end, if the run got there.
    pub at_end: Option<Summary>,
    pub lag: LagHistogram,
    pub stats: EngineStats,
    pub error: Option<io::Error>,
}

pub struct Engine {
    simulation: Simulation,
    devices: Vec<HostDevice>,
    /// For each node, its index in `devices`.
    device_of: Vec<Option<usize>>,
    /// The scenario's end, and the summary there once passed.
    end: Instant,
    at_end: Option<Summary>,
    lag: LagHistogram,
    write_errors: u64,
    reader: DeviceReader,
    /// Per device, what the current pass releases to it.
    writers: Vec<DeviceWriter>,
}

impl Engine {
    pub fn new(
        simulation: Simulation,
        devices: Vec<HostDevice>,
        nodes: usize,
        end: Instant,
    ) -> Engine {
        let device_count = devices.len();
        let mut device_of = vec![None; nodes];
        for (index, host) in devices.iter().enumerate() {
            device_of[host.node] = Some(index);
        }
        Engine {
            simulation,
            devices,
            device_of,
            end,
            at_end: None,
            lag: LagHistogram::default(),
            write_errors: 0,
            reader: DeviceReader::default(),
            writers: (0..device_count).map(|_| DeviceWriter::default()).collect(),
        }
    }

    /// The outcome of an engine stopped before time 0: nothing ran.
    pub fn unstarted(self) -> EngineOutcome {
        EngineOutcome {
            simulation: self.simulation,
            at_end: None,
            lag: LagHistogram::default(),
            stats: EngineStats::default(),
            error: None,
        }
    }

    /// Runs from time 0 at `clock` until `stop` is set (and `stopper` woken), the
    /// simulation fails, or `wall_limit` (scenario time) passes.
    pub fn run(
        mut self,
        clock: WallClock,
        wall_limit: Option<Instant>,
        pacing: Pacing,
        stop: &AtomicBool,
        stopper: &Stopper,
    ) -> EngineOutcome {
        let mut scheduling = match pacing {
            Pacing::Sleep { realtime } => schedule_engine(realtime),
            Pacing::Poll => Scheduling::normal("poll: the engine polls and never sleeps".into()),
        };
        let mut demotion = Demotion::new(&scheduling);
        let mut hit_wall_limit = false;
        let result = (|| {
            let fds: Vec<_> = self.devices.iter().map(|h| h.device.as_ref()).collect();
            let mut waiter = Waiter::new(&fds, stopper)?;
            for host in &self.devices {
                host.device.set_nonblocking(true)?;
            }
            let mut margin = WakeMargin::default();
            let mut duty = DutyCycle::new(clock.now());
            let mut awake_since = clock.now();
            while !stop.load(Ordering::Relaxed) {
                let now = clock.now();
                if wall_limit.is_some_and(|limit| now >= limit) {
                    hit_wall_limit = true;
                    break;
                }
                if pacing == Pacing::Poll {
                    self.carry(&clock)?;
                    let next = self.simulation.next_event_at().unwrap_or(Instant::MAX);
                    let until =
                        next.min(Instant::from_nanos(clock.now().as_nanos() + POLL_SLICE_NS));
                    while clock.now() < until && waiter.peek()? == Default::default() {
                        std::hint::spin_loop();
                    }
                    continue;
                }
                duty.awake(awake_since, now);
                awake_since = now;
                demotion.update(duty.last_share());
                if let Some(rest) = duty.rest_until() {
                    // Sleep out the window (packets wait in the devices' queues).
                    let rest_ns = rest.as_nanos().saturating_sub(now.as_nanos());
                    std::thread::sleep(Duration::from_nanos(rest_ns));
                    awake_since = clock.now();
                    continue;
                }
                self.carry(&clock)?;
                let next = match (self.simulation.next_event_at(), wall_limit) {
                    (Some(due), Some(limit)) => Some(due.min(limit)),
                    (due, limit) => due.or(limit),
                };
                let now = clock.now();
                let early_ns = if duty.may_poll() { margin.ns() } else { 0 };
                match next {
                    Some(due) if due <= now => {}
                    Some(due) if due.as_nanos() - now.as_nanos() <= early_ns => {
                        // Poll until due or a packet comes.
                        while clock.now() < due && waiter.peek()? == Default::default() {
                            std::hint::spin_loop();
                        }
                    }
                    Some(due) => {
                        duty.awake(awake_since, now);
                        let wake = Instant::from_nanos(due.as_nanos() - early_ns);
                        let woken = waiter.wait(Some(clock.deadline(wake)))?;
                        awake_since = clock.now();
                        if !woken.packets {
                            margin.record(awake_since.as_nanos().saturating_sub(wake.as_nanos()));
                        }
                    }
                    None => {
                        duty.awake(awake_since, now);
                        waiter.wait(None)?;
                        awake_since = clock.now();
                    }
                }
            }
            io::Result::Ok(())
        })();
        scheduling.demotions = demotion.demotions;
        EngineOutcome {
            simulation: self.simulation,
            at_end: self.at_end,
            lag: self.lag,
            stats: EngineStats {
                scheduling: Some(scheduling),
                hit_wall_limit,
                write_errors: self.write_errors,
                malformed_reads: self.reader.malformed,
                writes: WriteCounts::of(&self.writers),
            },
            error: result.err(),
        }
    }

    /// Reads what the hosts sent, in turns, each packet injected at its stamp (the segments
    /// of a TSO super-packet at the same one), and runs the simulation to now.
    fn carry(&mut self, clock: &WallClock) -> io::Result<()> {
        for _ in 0..ROUNDS_PER_BATCH {
            let mut read_any = false;
            for index in 0..self.devices.len() {
                let segments = self.reader.read(&self.devices[index].device)?;
                if segments == 0 {
                    continue;
                }
                read_any = true;
                let stamp = clock.now();
                self.advance(clock, stamp)?;
                let node = self.devices[index].node;
                for i in 0..segments {
                    self.simulation.inject(node, self.reader.segment(i))?;
                }
            }
            if !read_any {
                break;
            }
        }
        self.advance(clock, clock.now())
    }

    /// Handles what is due by `until` and writes what reached a host, reading the
    /// network's summary on the way past the scenario's end.
    fn advance(&mut self, clock: &WallClock, until: Instant) -> io::Result<()> {
        if self.at_end.is_none() && until >= self.end {
            self.run_and_write(clock, self.end)?;
            self.at_end = Some(self.simulation.summary_now(0.0));
        }
        self.run_and_write(clock, until)
    }

    fn run_and_write(&mut self, clock: &WallClock, until: Instant) -> io::Result<()> {
        self.simulation.run_until(until)?;
        let (devices, device_of) = (&self.devices, &self.device_of);
        let (lag, writers, write_errors) =
            (&mut self.lag, &mut self.writers, &mut self.write_errors);
        // Released now: written in this pass (`device_io`), where the host's stack stamps
        // each packet as it starts.
        let released = clock.now().as_nanos();
        self.simulation.drain_outgoing(|node, due, bytes| {
            let Some(index) = device_of[node] else {
                return;
            };
            lag.record(released.saturating_sub(due.as_nanos()));
            // A device whose host is not reading drops, as a NIC's ring would; the
            // kernel counts it (`rx_dropped`).
            if writers[index].push(&devices[index].device, bytes).is_err() {
                *write_errors += 1;
            }
        });
        for (writer, host) in self.writers.iter_mut().zip(&self.devices) {
            if writer.flush(&host.device).is_err() {
                self.write_errors += 1;
            }
        }
        Ok(())
    }
}
