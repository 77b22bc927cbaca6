//! Real kernel ping between two namespaces through an emulated wired link, checked for what
//! holds however loaded the machine: every echo answered, none faster than the configured
//! delay, every packet carried once, nothing left behind. How close the round trips come to
//! the configured delay and how late the engine runs are timing, which a busy machine
//! changes: bench/emu_link.py measures them (docs/benchmarks.md).

mod common;

use common::{assert_nothing_left, can_run, in_host, start, two_hosts, MS};
use serde_json::json;

/// "rtt min/avg/max/mdev = 40.282/40.394/40.707/0.084 ms" -> the minimum. Replies still
/// due when a request leaves make ping add ", pipe N" (a slow round trip on a busy machine).
fn min_rtt_ms(text: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.contains("min/avg/max"))
        .expect(text);
    let values = line.split_once(" = ").expect(text).1;
    let min = values.split('/').next().expect(text);
    min.parse().unwrap_or_else(|_| panic!("{text}"))
}

#[test]
fn ping_takes_the_configured_delay() {
    if !can_run(&["ping"]) {
        return;
    }
    // 20 ms each way at 100 Mbit/s: 84-byte echoes serialise in 6.72 us per direction.
    let direction = json!({"rate_bps": 100_000_000u64, "delay_ns": 20 * MS});
    let scenario = two_hosts(
        direction.clone(),
        direction,
        json!({"kind": "ping", "count": 20, "interval_ns": 50 * MS, "payload_bytes": 56, "train": 1}),
        10,
    );
    {
        let mut emulation = start(scenario);
        let (a, b) = (&emulation.hosts()[0], &emulation.hosts()[1]);
        let output = in_host(
            a,
            &["ping", "-c", "20", "-i", "0.05", &b.address.to_string()],
        );
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let report = emulation.stop().unwrap();
        let configured = 40.0 + 2.0 * 0.00672;
        assert!(text.contains(" 0% packet loss"), "{text}");
        // A busy machine makes round trips longer (0.2-0.4 ms on an idle one: the kernel's
        // path through two TUN devices and two thread hand-offs), never shorter; ping prints
        // them to 0.001 ms.
        assert!(min_rtt_ms(&text) >= configured - 0.001, "{text}");
        let counters = report.summary.emulator.unwrap();
        assert_eq!(
            (counters.injected, counters.delivered),
            (40, 40),
            "{counters:?}"
        );
        // One lag sample per packet written to a host.
        assert_eq!(report.lag.packets, 40);
        assert!(report
            .device_drops
            .iter()
            .all(|drops| drops.tx_dropped == 0));
    }
    assert_nothing_left();
}
