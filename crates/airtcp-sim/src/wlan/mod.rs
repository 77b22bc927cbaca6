//! Wireless LAN: the 802.11 MAC of one infrastructure BSS.

pub(crate) mod ap_plan;
pub(crate) mod block_ack;
pub mod dcf;

pub use dcf::{
    Actions, AirBody, AirFrame, AmpduLimits, Bss, Driver, DriverQueue, EdcaSet, Frame, MacCounters,
    MacParams, MacQueue, Qdisc, Queueing,
};
