//! Kernel TCP (CUBIC) through one of the simulator's links on the wall clock: 10 Mbit/s,
//! 20 ms each way, a bandwidth-delay product of queue; iperf3 should get 90-100 % of the
//! rate (issue 12's acceptance). Needs root, /dev/net/tun and iperf3; skipped without.

use std::net::Ipv4Addr;
use std::process::{Command, Stdio};
use std::sync::Arc;

use airtcp_emu::host::Host;
use airtcp_emu::netns;
use airtcp_emu::wired::WiredLink;
use airtcp_sim::config::DirectionConfig;
use airtcp_sim::queue::QueueLimit;

fn can_run() -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    let tools = Command::new("iperf3").arg("-v").output().is_ok();
    if !(root && std::path::Path::new("/dev/net/tun").exists() && tools) {
        eprintln!("skipped: needs root, /dev/net/tun and iperf3");
        return false;
    }
    true
}

#[test]
fn kernel_cubic_fills_a_ten_megabit_link() {
    if !can_run() {
        return;
    }
    let prefix = format!("aemw{}-", std::process::id());
    let net = "10.78.0.0/16";
    let a = Host::create(&format!("{prefix}a"), Ipv4Addr::new(10, 78, 0, 1), net).unwrap();
    let b = Host::create(&format!("{prefix}b"), Ipv4Addr::new(10, 78, 0, 2), net).unwrap();
    let direction = DirectionConfig {
        rate_bps: 10_000_000,
        delay_ns: 20_000_000,
        queue: QueueLimit {
            packets: Some(34),
            bytes: None,
        },
        errors: Default::default(),
    };
    let link = WiredLink::start(
        [Arc::new(a.device), Arc::new(b.device)],
        [direction.clone(), direction],
        1,
    );
    let mut server = Command::new("ip")
        .args([
            "netns",
            "exec",
            b.namespace.name(),
            "iperf3",
            "-s",
            "-1",
            "-B",
        ])
        .arg(b.address.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let client = Command::new("ip")
        .args(["netns", "exec", a.namespace.name(), "iperf3", "-c"])
        .arg(b.address.to_string())
        .args(["-t", "6", "-O", "2", "-J", "-C", "cubic"])
        .output()
        .unwrap();
    let _ = server.wait();
    let report = link.stop();
    let json = String::from_utf8_lossy(&client.stdout);
    let bps: f64 = json
        .split("\"sum_received\"")
        .nth(1)
        .and_then(|s| s.split("\"bits_per_second\":").nth(1))
        .and_then(|s| s.split([',', '}']).next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no iperf3 result: {json}"));
    let mut lag = report.lag.clone();
    lag.sort();
    eprintln!(
        "goodput {bps:.0} bit/s, delivered {:?}, dropped {:?}, lag p50 {:?} p99 {:?}",
        report.delivered,
        report.dropped,
        lag[lag.len() / 2],
        lag[lag.len() * 99 / 100]
    );
    assert!((9.0e6..=10.0e6).contains(&bps), "{bps}");
    drop((a.namespace, b.namespace));
    assert!(netns::list(&prefix).unwrap().is_empty());
}
