//! The emulator (issue 12, work in progress on branch `emu`): real Linux TCP stacks in network
//! namespaces, each end host attached through a TUN device to one emulator process that
//! carries their IPv4 packets over emulated links on a wall clock (the approach mahimahi
//! takes; this kernel has no netem).
//!
//! So far: namespaces and TUN-attached hosts that are always removed (`netns`, `host`), and
//! a two-host relay with a fixed one-way delay (`relay`) that measured ping RTTs within
//! 0.4 ms of twice the delay. Next: `airtcp-sim`'s engine, links and 802.11 MAC on a wall
//! clock behind the same TUN devices, agents on the real packets, iperf3 flows, `airtcp emu`.

pub mod host;
pub mod netns;
pub mod relay;
