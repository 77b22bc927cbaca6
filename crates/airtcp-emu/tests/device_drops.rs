//! A host's TUN device drops what its kernel sends while nobody reads it (its queue holds
//! 500 packets), and `host::device_drops` reads that from the kernel's counters: the losses
//! outside the emulated network that an emulated run reports.

mod common;

use std::net::Ipv4Addr;
use std::process::Command;

use airtcp_emu::host::{device_drops, Host};
use airtcp_emu::netns::Run;
use common::{assert_nothing_left, can_run};

const SENT: u32 = 800;

#[test]
fn datagrams_sent_into_an_unread_device_are_counted_as_its_drops() {
    if !can_run(&["python3"]) {
        return;
    }
    {
        let run = Run::new().unwrap();
        let host = Host::create(&run, "drops", Ipv4Addr::new(10, 0, 0, 1)).unwrap();
        let before = device_drops(&host.namespace).unwrap();
        assert_eq!((before.tx_dropped, before.rx_dropped), (0, 0));
        let send = format!(
            "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
             for _ in range({SENT}): s.sendto(b'x' * 100, ('10.0.0.2', 9))"
        );
        let status = Command::new("ip")
            .args([
                "netns",
                "exec",
                host.namespace.name(),
                "python3",
                "-c",
                &send,
            ])
            .status()
            .unwrap();
        assert!(status.success());
        let drops = device_drops(&host.namespace).unwrap();
        // Nothing reads the device: what its queue cannot hold is dropped, and counted.
        assert!(
            drops.tx_dropped >= u64::from(SENT) - 500 && drops.tx_dropped < u64::from(SENT),
            "{drops:?}"
        );
        assert_eq!(drops.rx_dropped, 0);
    }
    assert_nothing_left();
}
