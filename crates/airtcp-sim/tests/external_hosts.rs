//! Hosts outside the simulator (the emulator's path): bytes a host sends cross the
//! simulated network and reach the other host as bytes, on time, with the payload intact,
//! the headers as routers and agents left them and valid checksums.

mod common;

use airtcp_proto::wire::{Ipv4Repr, PacketRepr, TcpFlags, TcpRepr, TransportRepr};
use airtcp_proto::{Instant, SeqNumber};
use airtcp_sim::packet::node_address;
use airtcp_sim::{RunOptions, Scenario, Simulation};
use common::{MS, S};
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use proptest::prelude::*;
use serde_json::json;

/// a - router - b, 10 Mbit/s and 5 ms each way; a TCP flow from a to b.
fn through_a_router() -> Simulation {
    let wired = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS});
    let scenario = json!({
        "name": "external", "seed": 1, "duration_ns": 10 * S,
        "nodes": ["a", "router", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired},
                  {"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired}],
        "flows": [{"name": "tcp", "src": 0, "dst": 2, "app": {"kind": "tcp_bulk"}}],
    });
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    let options = RunOptions {
        external_hosts: true,
        ..RunOptions::default()
    };
    Simulation::new(scenario, &options).unwrap()
}

fn segment(src: usize, dst: usize, payload_len: u32) -> PacketRepr {
    PacketRepr {
        ip: Ipv4Repr {
            src: node_address(src),
            dst: node_address(dst),
            ttl: 64,
            dscp: 0,
            ecn: 0,
        },
        transport: TransportRepr::Tcp(TcpRepr {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNumber(1),
            ack: SeqNumber(1),
            flags: TcpFlags {
                ack: true,
                ..TcpFlags::default()
            },
            window: 500,
            payload_len,
            ..TcpRepr::default()
        }),
    }
}

fn drained(sim: &mut Simulation) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    sim.drain_outgoing(|node, _, bytes| out.push((node, bytes.to_vec())));
    out
}

#[test]
fn a_hosts_packet_crosses_the_network_on_time_with_its_payload() {
    let mut sim = through_a_router();
    assert_eq!(sim.external_hosts(), vec![0, 2]);
    let payload: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
    let sent = segment(0, 2, 1000);
    sim.inject(0, &sent.emit_with_payload(&payload)).unwrap();
    // Two hops of 1040 bytes at 10 Mbit/s (0.832 ms each) and 2 x 5 ms.
    let arrival = Instant::from_nanos(2 * 832_000 + 10 * MS);
    sim.run_until(Instant::from_nanos(arrival.as_nanos() - 1))
        .unwrap();
    assert!(drained(&mut sim).is_empty());
    // Drained later than it arrived: the emulator is told when it was due.
    sim.run_until(Instant::from_nanos(arrival.as_nanos() + MS))
        .unwrap();
    let mut out = Vec::new();
    sim.drain_outgoing(|node, due, bytes| out.push((node, due, bytes.to_vec())));
    assert_eq!(out.len(), 1);
    let (node, due, bytes) = &out[0];
    assert_eq!(*due, arrival);
    assert_eq!(*node, 2);
    let (repr, received) = PacketRepr::parse_with_payload(bytes).unwrap();
    assert_eq!(received, &payload[..]);
    let mut expected = sent;
    expected.ip.ttl = 63; // the router's hop
    assert_eq!(repr, expected);
    let sliced = SlicedPacket::from_ip(bytes).unwrap();
    let (Some(NetSlice::Ipv4(ip)), Some(TransportSlice::Tcp(tcp))) =
        (&sliced.net, &sliced.transport)
    else {
        panic!("IPv4 and TCP");
    };
    let ip = ip.header().to_header();
    assert_eq!(ip.header_checksum, ip.calc_header_checksum());
    let computed = tcp
        .to_header()
        .calc_checksum_ipv4(&ip, tcp.payload())
        .unwrap();
    assert_eq!(tcp.checksum(), computed);

    let summary = sim.finish(0.0).unwrap().summary;
    let counters = summary.emulator.unwrap();
    assert_eq!((counters.injected, counters.delivered), (1, 1));
    // The hosts' own TCP is the traffic: the simulation ran no flow of its own.
    assert_eq!(summary.flows[0].packets_sent, 0);
    assert_eq!(summary.links[0].delivered, 1);
}

#[test]
fn bytes_that_are_not_the_hosts_packets_are_counted_and_dropped() {
    let mut sim = through_a_router();
    sim.inject(0, &[0x60, 0, 0, 0]).unwrap(); // IPv6
    sim.inject(0, &segment(0, 2, 10).emit()[..30]).unwrap(); // truncated
    sim.inject(0, &segment(2, 0, 10).emit()).unwrap(); // b's address, from a
    sim.run_until(Instant::from_nanos(S)).unwrap();
    assert!(drained(&mut sim).is_empty());
    let counters = sim.finish(1.0).unwrap().summary.emulator.unwrap();
    assert_eq!(counters.unparsed, 2);
    assert_eq!(counters.foreign_source, 1);
    assert_eq!(counters.injected, 0);
}

#[test]
fn a_flow_ending_at_a_router_cannot_be_emulated() {
    let wired = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS});
    let scenario = json!({
        "name": "external", "seed": 1, "duration_ns": S,
        "nodes": ["a", "router", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired},
                  {"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired}],
        "flows": [{"name": "tcp", "src": 0, "dst": 1, "app": {"kind": "tcp_bulk"}}],
    });
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    let options = RunOptions {
        external_hosts: true,
        ..RunOptions::default()
    };
    let error = Simulation::new(scenario, &options).err().unwrap();
    assert_eq!(error.key, "nodes[1]");
    assert!(error.message.contains("2 neighbours"), "{error}");
}

#[test]
fn traces_hold_the_bytes_the_hosts_sent() {
    let dir = std::env::temp_dir().join(format!("airtcp-external-traces-{}", std::process::id()));
    let wired = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS});
    // Station a in the BSS of ap, which is wired to b.
    let scenario = json!({
        "name": "external", "seed": 1, "duration_ns": S,
        "nodes": ["a", "ap", "b"],
        "links": [{"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [{"ap": 1, "stations": [0],
                   "phy": {"standard": "802.11b", "rate_bps": 11_000_000,
                           "basic_rate_bps": 2_000_000}}],
        "flows": [{"name": "tcp", "src": 0, "dst": 2, "app": {"kind": "tcp_bulk"}}],
    });
    let options = RunOptions {
        external_hosts: true,
        pcap_dir: Some(dir.join("nodes")),
        wlan_pcap_dir: Some(dir.join("wlans")),
        pcap_snaplen: Some(65_535),
        ..RunOptions::default()
    };
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    let mut sim = Simulation::new(scenario, &options).unwrap();
    let payload: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8 + 1).collect();
    sim.inject(0, &segment(0, 2, 1000).emit_with_payload(&payload))
        .unwrap();
    sim.run_until(Instant::from_nanos(S)).unwrap();
    assert_eq!(drained(&mut sim).len(), 1);
    sim.finish(0.0).unwrap();

    let holding = |file: &std::path::Path| {
        let reader = pcap_file::pcap::PcapReader::new(std::fs::File::open(file).unwrap());
        let mut reader = reader.unwrap();
        let mut count = 0;
        while let Some(record) = reader.next_packet() {
            let data = record.unwrap().data;
            count += data.windows(payload.len()).any(|w| w == payload) as usize;
        }
        count
    };
    // Sent by a, received by ap and b; once on the air.
    let traces = [
        ("nodes/a.pcap", 1),
        ("nodes/ap.pcap", 1),
        ("nodes/b.pcap", 1),
    ];
    for (file, expected) in traces {
        assert_eq!(holding(&dir.join(file)), expected, "{file}");
    }
    let air: Vec<_> = std::fs::read_dir(dir.join("wlans")).unwrap().collect();
    assert_eq!(air.len(), 1);
    assert_eq!(holding(&air[0].as_ref().unwrap().path()), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// a - r1 - r2 - b with ACK filtering and regeneration on the r1-r2 link, both hosts
/// outside: the emulator's whole packet path, agents included.
fn through_agents() -> Simulation {
    let wired = json!({"rate_bps": 10_000_000u64, "delay_ns": MS});
    let scenario = json!({
        "name": "fuzz", "seed": 1, "duration_ns": S,
        "nodes": ["a", "r1", "r2", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired},
                  {"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired},
                  {"a": 2, "b": 3, "a_to_b": wired, "b_to_a": wired}],
        "flows": [{"name": "tcp", "src": 0, "dst": 3, "app": {"kind": "tcp_bulk"}}],
        "agents": [{"node": 2, "interface": "r1", "agent": {"kind": "af"}},
                   {"node": 1, "interface": "r2", "agent": {"kind": "ar"}}],
    });
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    let options = RunOptions {
        external_hosts: true,
        ..RunOptions::default()
    };
    Simulation::new(scenario, &options).unwrap()
}

/// Bytes a host might send: valid segments and ACKs between a and b, cut short, with
/// bytes overwritten, or random.
fn host_bytes() -> impl Strategy<Value = (usize, Vec<u8>)> {
    let valid = (any::<bool>(), 0u32..1400, any::<u32>(), any::<u32>()).prop_map(
        |(from_a, len, seq, ack)| {
            let (src, dst) = if from_a { (0, 3) } else { (3, 0) };
            let mut packet = segment(src, dst, len);
            let tcp = packet.tcp_mut().unwrap();
            (tcp.seq, tcp.ack) = (SeqNumber(seq), SeqNumber(ack));
            let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
            (src, packet.emit_with_payload(&payload))
        },
    );
    let mangled = (
        valid.clone(),
        0usize..1500,
        proptest::collection::vec((0usize..1500, any::<u8>()), 0..4),
    )
        .prop_map(|((node, mut bytes), cut, writes)| {
            for (at, value) in writes {
                if let Some(byte) = bytes.get_mut(at) {
                    *byte = value;
                }
            }
            bytes.truncate(cut.max(1));
            (node, bytes)
        });
    let random = (
        prop_oneof![Just(0usize), Just(3usize)],
        proptest::collection::vec(any::<u8>(), 0..120),
    );
    prop_oneof![valid, mangled, random]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Fuzzing the emulator's packet path: whatever the hosts send, the network parses,
    /// carries, filters, regenerates and writes it back without a panic, and every packet
    /// is counted once.
    #[test]
    fn malformed_and_truncated_packets_never_crash_the_packet_path(
        sent in proptest::collection::vec(host_bytes(), 1..40),
    ) {
        let mut sim = through_agents();
        for (i, (node, bytes)) in sent.iter().enumerate() {
            sim.inject(*node, bytes).unwrap();
            sim.run_until(Instant::from_nanos(i as u64 * 100_000)).unwrap();
            sim.drain_outgoing(|_, _, bytes| {
                PacketRepr::parse_with_payload(bytes).expect("what a host receives parses");
            });
        }
        sim.run_until(Instant::from_nanos(S)).unwrap();
        let counters = sim.finish(1.0).unwrap().summary.emulator.unwrap();
        prop_assert_eq!(
            counters.injected + counters.unparsed + counters.foreign_source,
            sent.len() as u64
        );
    }
}
