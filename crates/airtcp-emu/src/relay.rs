//! A first relay between two hosts: every IPv4 packet one sends reaches the other after a
//! fixed one-way delay, released on the wall clock. A reader thread per device, and one
//! thread that releases packets in order of their due time (ties in arrival order, as the
//! simulator's engine orders events). To be replaced by `airtcp-sim`'s engine on a wall
//! clock.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tun_rs::SyncDevice;

/// How late packets left against their due time.
#[derive(Clone, Debug, Default)]
pub struct Lag {
    pub samples: Vec<Duration>,
}

pub struct Relay {
    stop: Arc<AtomicBool>,
    releaser: Option<JoinHandle<Lag>>,
}

impl Relay {
    pub fn start(devices: [Arc<SyncDevice>; 2], delay: Duration) -> Relay {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel::<(Instant, usize, Vec<u8>)>();
        for (from, device) in devices.iter().enumerate() {
            let (device, tx, stop) = (device.clone(), tx.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok(n) = device.recv(&mut buf) else { return };
                    // IPv4 only: the kernel's IPv6 chatter stays on its side.
                    if n >= 20 && buf[0] >> 4 == 4 {
                        let due = Instant::now() + delay;
                        if tx.send((due, 1 - from, buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        let releaser_stop = stop.clone();
        let releaser = std::thread::spawn(move || {
            let mut due: BinaryHeap<Reverse<(Instant, u64, usize, Vec<u8>)>> = BinaryHeap::new();
            let (mut order, mut lag) = (0u64, Lag::default());
            while !releaser_stop.load(Ordering::Relaxed) {
                let wait = due
                    .peek()
                    .map_or(Duration::from_millis(50), |Reverse((t, ..))| {
                        t.saturating_duration_since(Instant::now())
                    });
                if let Ok((t, to, packet)) = rx.recv_timeout(wait) {
                    order += 1;
                    due.push(Reverse((t, order, to, packet)));
                }
                let now = Instant::now();
                while due.peek().is_some_and(|Reverse((t, ..))| *t <= now) {
                    let Reverse((t, _, to, packet)) = due.pop().expect("peeked");
                    lag.samples.push(now - t);
                    let _ = devices[to].send(&packet);
                }
            }
            lag
        });
        Relay {
            stop,
            releaser: Some(releaser),
        }
    }

    /// Stops releasing; how late the packets were.
    pub fn stop(mut self) -> Lag {
        self.stop.store(true, Ordering::Relaxed);
        self.releaser
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default()
    }
}
