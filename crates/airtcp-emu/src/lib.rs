//! The emulator: real Linux TCP stacks in network namespaces, each end host attached through
//! a TUN device to one engine that carries their IPv4 packets across the scenario's emulated
//! network on the wall clock (the approach mahimahi takes; this kernel has no netem). The
//! network is `airtcp-sim`'s own code (links, queues, 802.11 MAC, routers, agents) driven
//! by `Simulation::run_until`/`inject`/`drain_outgoing`, so a scenario means the same in
//! both.
//!
//! `netns` makes and removes namespaces (and cleans up after crashed runs), `host` puts a
//! TUN-attached host in one, `emulation` runs the engine, `lag` measures how late it is.

pub mod emulation;
pub mod host;
pub mod lag;
pub mod netns;

pub use emulation::{Emulation, EmulationOptions, EmulationReport, HostInfo, StartError};
