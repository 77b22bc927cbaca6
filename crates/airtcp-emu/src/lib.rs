//! The emulator: real Linux TCP stacks in network namespaces, each end host attached through
//! a TUN device to one engine that carries their IPv4 packets across the scenario's emulated
//! network on the wall clock (the approach mahimahi takes; this kernel has no netem). The
//! network is `airtcp-sim`'s own code (links, queues, 802.11 MAC, routers, agents) driven
//! by `Simulation::run_until`/`inject`/`drain_outgoing`, so a scenario means the same in
//! both.
//!
//! `netns` makes, marks and removes namespaces (and cleans up after crashed runs), `host`
//! puts a TUN-attached host in one, `emulation` starts and stops a run, `engine` is its
//! event loop on the wall clock (`clock`), sleeping in `wait` until `early`'s margin before
//! an event, within `duty`'s share of the CPU, scheduled by `realtime`, reading and writing through `device_io`; `lag`
//! measures how late it hands packets over.

pub mod clock;
pub mod device_io;
pub mod duty;
pub mod early;
pub mod emulation;
pub mod engine;
pub mod host;
pub mod lag;
pub mod netns;
pub mod realtime;
pub mod wait;

pub use emulation::{Emulation, EmulationOptions, EmulationReport, HostInfo, StartError};
