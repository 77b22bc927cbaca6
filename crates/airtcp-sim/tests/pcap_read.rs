//! A node's trace read back (`pcap::tcp_records`): the sequence and acknowledgment numbers
//! and payload lengths of a transfer of known size, from records cut after their headers.

mod common;

use airtcp_sim::packet::node_address;
use airtcp_sim::pcap::tcp_records;
use airtcp_sim::{run_json, RunOptions};
use common::{wired_tcp, S};

#[test]
fn the_receivers_trace_shows_every_byte_sent_and_acknowledged() {
    const BYTES: u32 = 300_000;
    let dir = std::env::temp_dir().join(format!("airtcp-pcap-read-test-{}", std::process::id()));
    let options = RunOptions {
        pcap_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let scenario = wired_tcp(10_000_000, 5, 100, 0.01, Some(u64::from(BYTES)), 1, 10);
    run_json(&scenario.to_string(), &options).expect("runs");
    let records = tcp_records(&dir.join("b.pcap")).expect("reads");
    std::fs::remove_dir_all(&dir).unwrap();

    let (a, b) = (
        u32::from_be_bytes(node_address(0)),
        u32::from_be_bytes(node_address(1)),
    );
    let syn = records.iter().find(|r| r.src == a && r.syn).expect("a SYN");
    let first = syn.seq.wrapping_add(1);
    // The data that reached b, by offset: every byte of the transfer, some more than once
    // (1 % loss, retransmissions).
    let mut covered = vec![false; BYTES as usize];
    for r in records.iter().filter(|r| r.src == a && r.payload_bytes > 0) {
        let offset = r.seq.wrapping_sub(first) as usize;
        covered[offset..offset + r.payload_bytes as usize].fill(true);
    }
    assert!(covered.iter().all(|&c| c), "a byte never reached b");
    // b's last ACK covers the transfer and a's FIN.
    let last_ack = records
        .iter()
        .filter(|r| r.src == b)
        .filter_map(|r| r.ack)
        .max_by_key(|ack| ack.wrapping_sub(first))
        .unwrap();
    assert_eq!(last_ack.wrapping_sub(first), BYTES + 1);
    assert!(records.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    assert!(records.last().unwrap().time_ns < 10 * S);
}
