//! Sans-IO protocol state machines for airtcp.
//!
//! Nothing here reads a clock, opens a socket or owns a global random generator: time comes in
//! as `now`, inputs arrive through `handle_*` and outputs leave through `poll_*` (the pattern of
//! quinn-proto). The same code runs inside the discrete-event simulator and, later, against
//! real packets in the emulator.

pub mod agent;
pub mod aqm;
pub mod seq;
pub mod tcp;
pub mod time;
pub mod wifi;
pub mod wire;

pub use seq::SeqNumber;
pub use time::Instant;
