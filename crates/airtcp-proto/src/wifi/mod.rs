//! IEEE 802.11 timing shared by the simulated MAC and by analysis: PHY parameter sets and
//! frame durations (IEEE 802.11-2020 clauses 15-19 and 21, 802.11ax-2021 clause 27), error
//! rates, propagation, rate control, and Bianchi's saturation model.

pub mod bianchi;
pub mod edca;
pub mod error_rate;
pub mod mcs;
pub mod modulation;
mod phy;
pub mod propagation;
pub mod rate_control;
mod standard_dcf;

pub use phy::{
    slots_between, Modulation, Phy, PhyError, Preamble, FRAME_ACK_BYTES, FRAME_CTS_BYTES,
    FRAME_RTS_BYTES,
};
