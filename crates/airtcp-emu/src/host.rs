//! An end host: a namespace with one TUN device, `tun0`, carrying the host's address (the
//! simulator's address of its node) and a route to every other node's address through it.
//! The emulator keeps the device's file descriptor: what the host's stack sends arrives
//! there, and what the emulator writes the host receives.

use std::io;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};

use tun_rs::SyncDevice;

use crate::netns::{ip, Namespace};

/// Every node's address is in 10.0.0.0/8 (`airtcp_sim::packet::node_address`).
pub const NETWORK: &str = "10.0.0.0/8";

pub struct Host {
    // Declared before the namespace: the device closes before its namespace goes.
    pub device: SyncDevice,
    pub namespace: Namespace,
}

impl Host {
    /// The host `namespace` (created here) with `address` on its `tun0`.
    pub fn create(namespace: &str, address: Ipv4Addr) -> io::Result<Self> {
        let namespace = Namespace::create(namespace)?;
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
