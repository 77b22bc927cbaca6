//! An end host: a namespace with one TUN device, `tun0`, carrying the host's address (the
//! simulator's address of its node) and a route to every other node's address through it.
//! The emulator keeps the device's file descriptor: what the host's stack sends arrives
//! there, and what the emulator writes the host receives. The device's own drop counters
//! (`device_drops`) tell what was lost on either side of that descriptor: `tx_dropped` when
//! the host sent into a full device queue (500 packets, TUN's `TUN_READQ_SIZE`) that the
//! engine had not read yet, `rx_dropped` when the host's stack refused what the engine
//! wrote (its backlog was full).

use std::io;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Serialize;
use tun_rs::SyncDevice;

use crate::netns::{ip, Namespace, Run};

/// Every node's address is in 10.0.0.0/8 (`airtcp_sim::packet::node_address`).
pub const NETWORK: &str = "10.0.0.0/8";

pub struct Host {
    // Declared before the namespace: the device closes before its namespace goes.
    pub device: SyncDevice,
    pub namespace: Namespace,
}

impl Host {
    /// `run`'s host `name` (its namespace created here) with `address` on its `tun0`.
    pub fn create(run: &Run, name: &str, address: Ipv4Addr) -> io::Result<Self> {
        let namespace = Namespace::create(run, name)?;
        // Made in the root namespace under a name unique on the machine (15 bytes at most),
        // then moved into the host's namespace and renamed.
        static DEVICES: AtomicU32 = AtomicU32::new(0);
        let temporary = format!(
            "at{:x}x{:x}",
            std::process::id(),
            DEVICES.fetch_add(1, Ordering::Relaxed)
        );
        let device = tun_rs::DeviceBuilder::new()
            .name(&temporary)
            .mtu(1500)
            // Brought up in the root namespace, it would send IPv6 router solicitations
            // into the emulated network.
            .enable(false)
            // TSO from the host (`device_io`).
            .with(|builder| {
                builder.offload(true);
            })
            .build_sync()
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot make a TUN device (/dev/net/tun): {e}"),
                )
            })?;
        ip(&["link", "set", &temporary, "netns", namespace.name()])?;
        let ns = namespace.name();
        ip(&["-n", ns, "link", "set", &temporary, "name", "tun0"])?;
        ip(&[
            "-n",
            ns,
            "addr",
            "add",
            &format!("{address}/32"),
            "dev",
            "tun0",
        ])?;
        ip(&["-n", ns, "link", "set", "tun0", "up"])?;
        ip(&["-n", ns, "route", "add", NETWORK, "dev", "tun0"])?;
        Ok(Host { device, namespace })
    }
}

/// Gives the host's route to the emulated network `attributes` (ip-route(8): `rto_min
/// 200ms`, `initcwnd 10`, `quickack 1`), per-destination TCP settings of its kernel.
pub fn set_route_attributes(namespace: &Namespace, attributes: &[&str]) -> io::Result<()> {
    let route = [
        "-n",
        namespace.name(),
        "route",
        "replace",
        NETWORK,
        "dev",
        "tun0",
    ];
    ip(&[&route[..], attributes].concat()).map(drop)
}

/// Packets a host's device dropped, by the kernel's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeviceDrops {
    /// Sent by the host into a full device queue, before the engine read them.
    pub tx_dropped: u64,
    /// Written by the engine, refused by the host's stack.
    pub rx_dropped: u64,
}

/// The drop counters of the host's `tun0` in `namespace`.
pub fn device_drops(namespace: &Namespace) -> io::Result<DeviceDrops> {
    let shown = ip(&[
        "-j",
        "-s",
        "-n",
        namespace.name(),
        "link",
        "show",
        "dev",
        "tun0",
    ])?;
    parse_device_drops(&shown).ok_or_else(|| {
        io::Error::other(format!(
            "ip -j -s link show tun0 in {} printed no counters: {shown}",
            namespace.name()
        ))
    })
}

fn parse_device_drops(shown: &str) -> Option<DeviceDrops> {
    let links: serde_json::Value = serde_json::from_str(shown).ok()?;
    let stats = links.get(0)?.get("stats64")?;
    let dropped = |direction: &str| stats.get(direction)?.get("dropped")?.as_u64();
    Some(DeviceDrops {
        tx_dropped: dropped("tx")?,
        rx_dropped: dropped("rx")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_are_read_from_ip_s_json() {
        let shown = r#"[{"ifname":"tun0","stats64":{"rx":{"bytes":0,"packets":0,"dropped":3},
            "tx":{"bytes":9,"packets":1,"dropped":31}}}]"#;
        assert_eq!(
            parse_device_drops(shown),
            Some(DeviceDrops {
                tx_dropped: 31,
                rx_dropped: 3
            })
        );
        assert_eq!(parse_device_drops("[]"), None);
        assert_eq!(parse_device_drops("not json"), None);
    }
}
