//! Two hosts joined by one of `airtcp-sim`'s wired links (rate, delay, DropTail queue, loss,
//! BER per direction), driven on the wall clock: the simulator's `Channel` takes `now` and
//! says when serialisation ends and when a packet arrives, so the same code times real
//! packets. The packet's bytes wait beside it by uid (the simulator's packets carry lengths,
//! not bytes). A reader thread per device; one thread runs the links.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant as WallInstant};

use airtcp_proto::wire::PacketRepr;
use airtcp_proto::Instant;
use airtcp_sim::config::DirectionConfig;
use airtcp_sim::link::{Channel, ChannelActions};
use airtcp_sim::packet::Packet;
use airtcp_sim::rng::{stream, StreamId};
use tun_rs::SyncDevice;

/// What happened on the links, and how late the emulator was.
#[derive(Clone, Debug, Default)]
pub struct WiredReport {
    pub delivered: [u64; 2],
    pub dropped: [u64; 2],
    pub unparsed: u64,
    pub lag: Vec<Duration>,
}

enum Due {
    TxDone(usize),
    Arrive(usize, Packet),
}

type Schedule = BinaryHeap<Reverse<(Instant, u64, usize)>>;

pub struct WiredLink {
    stop: Arc<AtomicBool>,
    runner: Option<JoinHandle<WiredReport>>,
}

impl WiredLink {
    /// Host 0 and host 1 joined by a link whose direction `d` carries host d's packets.
    pub fn start(
        devices: [Arc<SyncDevice>; 2],
        directions: [DirectionConfig; 2],
        seed: u64,
    ) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel::<(usize, Vec<u8>)>();
        for (from, device) in devices.iter().enumerate() {
            let (device, tx, stop) = (device.clone(), tx.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok(n) = device.recv(&mut buf) else { return };
                    if n >= 20 && buf[0] >> 4 == 4 && tx.send((from, buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            });
        }
        let runner_stop = stop.clone();
        let runner = std::thread::spawn(move || {
            let mut channels: Vec<Channel> = (0..2)
                .map(|d| {
                    let rng = stream(
                        seed,
                        StreamId::Link {
                            link: 0,
                            direction: d as u8,
                        },
                    );
                    Channel::new(&directions[d], 1 - d, rng)
                })
                .collect();
            let start = WallInstant::now();
            let now = || Instant::from_nanos(start.elapsed().as_nanos() as u64);
            let mut report = WiredReport::default();
            let mut bytes: HashMap<u64, Vec<u8>> = HashMap::new();
            let mut schedule = Schedule::new();
            let mut events: HashMap<usize, Due> = HashMap::new();
            let (mut uid, mut order) = (0u64, 0usize);
            let mut plan = |actions: ChannelActions,
                            d: usize,
                            schedule: &mut Schedule,
                            events: &mut HashMap<usize, Due>| {
                if let Some(at) = actions.tx_done {
                    order += 1;
                    schedule.push(Reverse((at, order as u64, order)));
                    events.insert(order, Due::TxDone(d));
                }
                if let Some((at, packet)) = actions.arrival {
                    order += 1;
                    schedule.push(Reverse((at, order as u64, order)));
                    events.insert(order, Due::Arrive(d, packet));
                }
            };
            while !runner_stop.load(Ordering::Relaxed) {
                let wait =
                    schedule
                        .peek()
                        .map_or(Duration::from_millis(50), |Reverse((at, ..))| {
                            Duration::from_nanos(at.as_nanos().saturating_sub(now().as_nanos()))
                        });
                if let Ok((from, packet)) = rx.recv_timeout(wait) {
                    match PacketRepr::parse(&packet) {
                        Ok(repr) => {
                            uid += 1;
                            bytes.insert(uid, packet);
                            let actions = channels[from].enqueue(now(), Packet { uid, repr });
                            plan(actions, from, &mut schedule, &mut events);
                        }
                        Err(_) => report.unparsed += 1,
                    }
                }
                let t = now();
                while schedule.peek().is_some_and(|Reverse((at, ..))| *at <= t) {
                    let Reverse((at, _, key)) = schedule.pop().expect("peeked");
                    report
                        .lag
                        .push(Duration::from_nanos(t.as_nanos() - at.as_nanos()));
                    match events.remove(&key).expect("scheduled") {
                        Due::TxDone(d) => {
                            let actions = channels[d].on_tx_done(at);
                            plan(actions, d, &mut schedule, &mut events);
                        }
                        Due::Arrive(d, packet) => {
                            if let Some(data) = bytes.remove(&packet.uid) {
                                report.delivered[d] += 1;
                                let _ = devices[1 - d].send(&data);
                            }
                        }
                    }
                }
                for (d, channel) in channels.iter().enumerate() {
                    report.dropped[d] = channel.queue.drops;
                }
                // Dropped and lost packets never arrive: forget bytes far older than any
                // packet still queued could be.
                if bytes.len() > 100_000 {
                    bytes.retain(|&k, _| k + 100_000 > uid);
                }
            }
            report
        });
        WiredLink {
            stop,
            runner: Some(runner),
        }
    }

    pub fn stop(mut self) -> WiredReport {
        self.stop.store(true, Ordering::Relaxed);
        self.runner
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}
