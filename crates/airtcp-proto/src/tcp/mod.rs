//! A sans-IO TCP for the simulator: handshake, bulk data transfer, NewReno loss recovery,
//! delayed ACKs, RFC 6298 retransmission timer, window scaling, persist timer and orderly close.
//!
//! Payload bytes are virtual: the sender's stream is a count of bytes, and segments carry
//! lengths. Everything that matters to congestion control, ACK clocking and the AP agents is
//! in the headers.

pub mod cc;
mod config;
mod delivery_rate;
mod prr;
mod rack;
mod reassembly;
mod receive_autotune;
mod rto;
mod rtt_samples;
mod sack_report;
mod scoreboard;
mod socket;
mod timestamps;
mod tlp;
mod undo;

pub use config::{
    Ecn, LossRecovery, RtoFloor, SlowStart, SynLossWindow, TcpConfig, TcpProfile, ZeroWindow,
};
pub use delivery_rate::{DeliveryRate, RateSample, TxSnapshot};
pub use reassembly::Reassembly;
pub use receive_autotune::{AutotuneConfig, ReceiveAutotune};
pub use rto::RtoEstimator;
pub use socket::{TcpSocket, TcpState, TcpStats};
