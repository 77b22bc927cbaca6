//! Agents written here, against `airtcp_proto::agent::Agent` alone, run in the simulator
//! without any change to it: one drops every k-th TCP data segment leaving an interface, one
//! answers every data segment with an ACK of its own. Plus an agent that delays, one that
//! uses its timer and the queue, and placement errors.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use airtcp_proto::agent::{Agent, Direction, InterfaceQueue, Signal, Verdict};
use airtcp_proto::wire::{Ipv4Repr, PacketRepr, TcpFlags, TcpRepr, TransportRepr};
use airtcp_proto::Instant;
use airtcp_sim::{RunOptions, Scenario, Simulation, Summary};
use common::wired_tcp;
use serde_json::Value;

/// What a test agent saw, shared with the test (the simulator owns the agent).
#[derive(Debug, Default)]
struct Tally {
    seen: u64,
    acted: u64,
}

type Shared = Arc<Mutex<Tally>>;

fn data_segment(packet: &PacketRepr) -> Option<&TcpRepr> {
    packet.tcp().filter(|tcp| tcp.payload_len > 0)
}

/// Drops every k-th TCP data segment leaving by its interface.
#[derive(Debug)]
struct DropEveryKth {
    k: u64,
    tally: Shared,
}

impl Agent for DropEveryKth {
    fn name(&self) -> &'static str {
        "drop_every_kth"
    }

    fn handle_packet(
        &mut self,
        _now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        if direction != Direction::Outbound || data_segment(packet).is_none() {
            return Verdict::Pass;
        }
        let mut tally = self.tally.lock().unwrap();
        tally.seen += 1;
        if tally.seen % self.k == 0 {
            tally.acted += 1;
            return Verdict::Drop;
        }
        Verdict::Pass
    }
}

/// Answers every TCP data segment leaving by its interface with a pure ACK of its own, handed
/// back to the node (inbound) as if its destination had sent it: a premature ACK, as a
/// split-connection proxy would give.
#[derive(Debug)]
struct AckEveryData {
    pending: Vec<PacketRepr>,
    tally: Shared,
}

impl Agent for AckEveryData {
    fn name(&self) -> &'static str {
        "ack_every_data"
    }

    fn handle_packet(
        &mut self,
        _now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = data_segment(packet).filter(|_| direction == Direction::Outbound) else {
            return Verdict::Pass;
        };
        self.tally.lock().unwrap().seen += 1;
        self.pending.push(PacketRepr {
            ip: Ipv4Repr {
                src: packet.ip.dst,
                dst: packet.ip.src,
                ttl: 64,
                dscp: 0,
                ecn: 0,
            },
            transport: TransportRepr::Tcp(TcpRepr {
                src_port: tcp.dst_port,
                dst_port: tcp.src_port,
                seq: tcp.ack,
                ack: tcp.seq + tcp.payload_len,
                flags: TcpFlags {
                    ack: true,
                    ..TcpFlags::default()
                },
                window: u16::MAX,
                mss: None,
                window_scale: None,
                sack_permitted: false,
                sack: Default::default(),
                timestamps: None,
                compaction: None,
                payload_len: 0,
            }),
        });
        Verdict::Pass
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        let ack = self.pending.pop()?;
        self.tally.lock().unwrap().acted += 1;
        Some((Direction::Inbound, ack))
    }
}

/// Holds every inbound data segment for `delay`.
#[derive(Debug)]
struct DelayInbound {
    delay: Duration,
    tally: Shared,
}

impl Agent for DelayInbound {
    fn name(&self) -> &'static str {
        "delay_inbound"
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        if direction == Direction::Inbound && data_segment(packet).is_some() {
            self.tally.lock().unwrap().seen += 1;
            return Verdict::Delay(now + self.delay);
        }
        Verdict::Pass
    }
}

/// Every `period`, empties its interface's queue of waiting packets (counting them), and
/// counts signals.
#[derive(Debug)]
struct PeriodicFlush {
    period: Duration,
    next: Instant,
    tally: Shared,
    signals: Arc<Mutex<Vec<String>>>,
}

impl Agent for PeriodicFlush {
    fn name(&self) -> &'static str {
        "periodic_flush"
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Some(self.next)
    }

    fn handle_timeout(&mut self, now: Instant, queue: &mut dyn InterfaceQueue) {
        let mut tally = self.tally.lock().unwrap();
        tally.seen += 1;
        while queue.remove(0).is_some() {
            tally.acted += 1;
        }
        self.next = now + self.period;
    }

    fn handle_signal(&mut self, _now: Instant, signal: Signal, queue: &mut dyn InterfaceQueue) {
        self.signals.lock().unwrap().push(format!(
            "{}:{}:{:?}",
            signal.name,
            queue.len(),
            signal.host
        ));
    }
}

fn simulation(scenario: &Value) -> Simulation {
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    Simulation::new(scenario, &RunOptions::default()).unwrap()
}

fn run(simulation: Simulation) -> Summary {
    simulation.run().unwrap().summary
}

/// One 1 MB transfer from `a` to `b` over 10 Mbit/s, 10 ms, a queue that never fills.
fn transfer() -> Value {
    wired_tcp(10_000_000, 10, 1000, 0.0, Some(1_000_000), 1, 30)
}

#[test]
fn dropping_every_kth_data_segment_is_counted_and_repaired() {
    let baseline = run(simulation(&transfer()));
    assert_eq!(baseline.flows[0].retransmissions, 0);
    let tally = Shared::default();
    let mut sim = simulation(&transfer());
    let agent = DropEveryKth {
        k: 50,
        tally: tally.clone(),
    };
    sim.place_agent("a", None, Box::new(agent)).unwrap();
    let summary = run(sim);
    let flow = &summary.flows[0];
    let tally = tally.lock().unwrap();
    assert_eq!(tally.acted, tally.seen / 50);
    assert!(tally.acted >= 13, "{tally:?}"); // 1 MB is 685 segments of 1460 B
                                             // Every dropped segment was missing at the receiver and sent again; all arrived once.
    assert!(flow.retransmissions >= tally.acted, "{flow:?}");
    assert_eq!(
        (flow.bytes_delivered, flow.completed),
        (1_000_000, Some(true))
    );
    // The link carried exactly what the agent let through.
    let sent = summary.links[0].delivered + summary.links[0].queue_drops;
    assert_eq!(
        sent,
        baseline.links[0].delivered + flow.retransmissions - tally.acted
    );
}

#[test]
fn an_agent_can_answer_every_data_segment_with_its_own_ack() {
    let baseline = run(simulation(&transfer()));
    let tally = Shared::default();
    let mut sim = simulation(&transfer());
    let agent = AckEveryData {
        pending: Vec::new(),
        tally: tally.clone(),
    };
    sim.place_agent("a", Some("b"), Box::new(agent)).unwrap();
    let summary = run(sim);
    let tally = tally.lock().unwrap();
    assert!(tally.seen >= 685, "{tally:?}");
    assert_eq!(tally.acted, tally.seen, "one ACK injected per data segment");
    // The injected ACKs go up the sender's own stack, not onto the link: the receiver's
    // ACKs still cross it. Acknowledged at once instead of after a round trip, the sender's
    // window opens sooner, and the transfer, still exact, ends sooner.
    let (flow, before) = (&summary.flows[0], &baseline.flows[0]);
    assert_eq!(
        (flow.bytes_delivered, flow.completed),
        (1_000_000, Some(true))
    );
    assert!(summary.links[1].delivered > 0);
    let (fast, slow) = (
        flow.completion_time_s.unwrap(),
        before.completion_time_s.unwrap(),
    );
    assert!(fast < slow - 0.04, "{fast} vs {slow}"); // 1 MB alone takes 0.8 s to serialise
}

#[test]
fn delayed_packets_arrive_later_and_only_once() {
    let tally = Shared::default();
    let baseline = run(simulation(&transfer()));
    let mut sim = simulation(&transfer());
    let agent = DelayInbound {
        delay: Duration::from_millis(40),
        tally: tally.clone(),
    };
    sim.place_agent("b", None, Box::new(agent)).unwrap();
    let summary = run(sim);
    let (flow, before) = (&summary.flows[0], &baseline.flows[0]);
    assert_eq!(
        (flow.bytes_delivered, flow.completed),
        (1_000_000, Some(true))
    );
    // 40 ms more of round trip: the transfer takes longer.
    let (slow, fast) = (
        flow.completion_time_s.unwrap(),
        before.completion_time_s.unwrap(),
    );
    assert!(slow > fast + 0.04, "{slow} vs {fast}");
    assert!(tally.lock().unwrap().seen >= 685);
}

#[test]
fn timers_fire_and_the_queue_can_be_edited_and_signals_arrive() {
    let tally = Shared::default();
    let signals = Arc::new(Mutex::new(Vec::new()));
    let mut sim = simulation(&transfer());
    let agent = PeriodicFlush {
        period: Duration::from_millis(100),
        next: Instant::from_nanos(100_000_000),
        tally: tally.clone(),
        signals: signals.clone(),
    };
    sim.place_agent("a", None, Box::new(agent)).unwrap();
    sim.schedule_signal(Instant::from_nanos(2_500_000_000), "a", None, "handoff")
        .unwrap();
    let summary = run(sim);
    let tally = tally.lock().unwrap();
    // 30 s of run, every 100 ms: the timer re-armed itself each time.
    assert!((299..=300).contains(&tally.seen), "{tally:?}");
    assert!(tally.acted > 0, "the flushes found waiting packets");
    let flow = &summary.flows[0];
    assert_eq!(
        (flow.bytes_delivered, flow.completed),
        (1_000_000, Some(true))
    );
    assert!(flow.retransmissions >= tally.acted);
    assert_eq!(signals.lock().unwrap().len(), 1);
    let signal = &signals.lock().unwrap()[0];
    assert!(signal.starts_with("handoff:"), "{signal}");
    assert!(
        signal.ends_with(":None"),
        "a scheduled signal names no host: {signal}"
    );
}

#[test]
fn placement_names_the_node_and_its_interfaces() {
    let mut sim = simulation(&transfer());
    let tally = Shared::default();
    let agent = || {
        Box::new(DropEveryKth {
            k: 2,
            tally: tally.clone(),
        })
    };
    let error = sim.place_agent("c", None, agent()).unwrap_err();
    assert_eq!(error.message, "no node named 'c'");
    let error = sim.place_agent("a", Some("wlan"), agent()).unwrap_err();
    assert_eq!(
        error.message,
        "a has no interface 'wlan'; expected one of b"
    );
    sim.place_agent("a", Some("b"), agent()).unwrap();
    let error = sim.place_agent("a", None, agent()).unwrap_err();
    assert_eq!(error.message, "the interface already has an agent");
}
