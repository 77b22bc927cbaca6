//! Wireless LAN: the 802.11 MAC of one infrastructure BSS.

pub(crate) mod ap_plan;
pub(crate) mod block_ack;
pub mod dcf;

pub use crate::config::{AmpduLimits, Driver, DriverQueue, EdcaSet, Qdisc, Queueing};
pub use dcf::{Actions, AirBody, AirFrame, Bss, Frame, MacCounters, MacParams, MacQueue};
