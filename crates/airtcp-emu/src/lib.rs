//! The emulator (issue 12, work in progress on branch `emu`): real Linux TCP stacks in network
//! namespaces, each end host attached through a TUN device to one emulator process that
//! carries their IPv4 packets over emulated links on a wall clock (the approach mahimahi
//! takes; this kernel has no netem).
//!
//! So far: namespaces and TUN-attached hosts that are always removed (`netns`, `host`); a
//! two-host relay with a fixed one-way delay (`relay`: ping RTTs within 0.4 ms of twice the
//! delay); and two hosts joined by `airtcp-sim`'s own wired `Channel` driven on the wall
//! clock (`wired`: kernel CUBIC with iperf3 gets 9.65 Mbit/s of 10, release lag p50 81 us,
//! p99 122 us). Next: the whole engine (routing, the 802.11 MAC, agents) on a wall clock
//! behind the same TUN devices, scenario files, `airtcp emu`.

pub mod host;
pub mod netns;
pub mod relay;
pub mod wired;
