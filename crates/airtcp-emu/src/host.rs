//! An end host: a namespace with one TUN device, its address and a route to the emulated
//! network. The emulator keeps the device's file descriptor: what the host's stack sends
//! arrives there, and what the emulator writes the host receives.

use std::io;
use std::net::Ipv4Addr;

use tun_rs::SyncDevice;

use crate::netns::{ip, Namespace};

pub struct Host {
    // Declared before the namespace: the device closes before its namespace goes.
    pub device: SyncDevice,
    pub namespace: Namespace,
    pub address: Ipv4Addr,
}

impl Host {
    /// A host `name` (its namespace and its device, `tun0` inside it) with `address`, which
    /// reaches `network` (an IPv4 prefix, e.g. 10.77.0.0/16) through the emulator.
    pub fn create(name: &str, address: Ipv4Addr, network: &str) -> io::Result<Self> {
        let namespace = Namespace::create(name)?;
        // Made in this namespace under a name unique to it, then moved and renamed.
        let device = tun_rs::DeviceBuilder::new()
            .name(name)
            .mtu(1500)
            .build_sync()?;
        ip(&["link", "set", name, "netns", namespace.name()])?;
        let ns = namespace.name();
        ip(&["-n", ns, "link", "set", name, "name", "tun0"])?;
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
        ip(&["-n", ns, "route", "add", network, "dev", "tun0"])?;
        Ok(Host {
            device,
            namespace,
            address,
        })
    }
}
