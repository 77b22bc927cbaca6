//! TCP parameters and the two profiles offered.
//!
//! Defaults follow the RFCs (`rfc`): initial window from RFC 3390 (min(4·MSS, max(2·MSS,
//! 4380 B))), minimum RTO 1 s and initial RTO 1 s (RFC 6298 §2), delayed ACK every second
//! full segment or after 200 ms (RFC 5681 §4.2 allows up to 500 ms), 64 KiB buffers.
//! `linux` approximates a current Linux stack: initial window 10 segments (RFC 6928),
//! minimum RTO 200 ms on the variance term and maximum RTO 120 s (`tcp_rtt_estimator`,
//! TCP_RTO_MAX), delayed-ACK timer 40 ms, larger buffers (the receive buffer autotuned as
//! Linux's, up to 6 MiB: `receive_autotuning`), SACK
//! and timestamps, slow start by the segments each ACK covers (`tcp_slow_start`), RACK-TLP
//! loss detection with PRR (`LossRecovery::RackTlp`), ECN accepted but not asked for
//! (`Ecn::Accept`, `tcp_ecn` = 2), and
//! Linux's answer to a window that closes under data in flight (`ZeroWindow`), and Linux's
//! initial window after a lost SYN (`SynLossWindow`). The `rfc`
//! profile leaves SACK and timestamps off (RFC 5681 alone).

use core::time::Duration;

use serde::{Deserialize, Serialize};

use super::cc::CongestionParams;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpProfile {
    #[default]
    Rfc,
    Linux,
}

/// How `min_rto` bounds the retransmission timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFloor {
    /// RFC 6298 §2.4: RTO = max(SRTT + 4·RTTVAR, min_rto).
    #[default]
    Total,
    /// Linux (`tcp_rtt_estimator`, `__tcp_set_rto`): RTO = SRTT + max(4·RTTVAR, min_rto), so
    /// on a long path the timer stays min_rto above the RTT instead of reaching down to it.
    Variance,
}

/// How much an ACK grows the congestion window in slow start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStart {
    /// RFC 5681 §3.1: cwnd += min(N, SMSS) per ACK (RFC 3465's limit L = 1 SMSS), so a
    /// receiver that delays ACKs makes the window grow 1.5 times per round trip.
    #[default]
    PerAck,
    /// Linux (`tcp_slow_start`): cwnd grows by every segment the ACK covers, up to ssthresh,
    /// the rest counting toward congestion avoidance: twice per round trip also with delayed
    /// ACKs.
    PerSegment,
}

/// How a SACK sender finds losses and paces its fast recovery (without SACK both use
/// NewReno's, RFC 6582).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// RFC 6675: a segment is lost when DupThresh segments, or (DupThresh − 1)·SMSS bytes,
    /// are SACKed above it; cwnd drops to ssthresh at once and the pipe paces the recovery;
    /// a lost retransmission waits for the timer.
    #[default]
    Rfc6675,
    /// Linux's (`tcp_recovery` = 1, the default since 4.18): RACK-TLP (RFC 8985) finds losses
    /// by time, lost retransmissions included, and probes the tail; PRR (RFC 6937) brings
    /// cwnd down to ssthresh in step with deliveries; after a timeout every segment not
    /// SACKed is deemed lost and resent before new data.
    RackTlp,
}

/// Explicit Congestion Notification (RFC 3168) as Linux's `tcp_ecn` sysctl offers it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecn {
    /// Neither asked for nor accepted (`tcp_ecn` = 0).
    #[default]
    Off,
    /// Accepted when the peer's SYN asks for it, not asked for (`tcp_ecn` = 2, Linux's
    /// default).
    Accept,
    /// Asked for in the SYN, and accepted (`tcp_ecn` = 1).
    On,
}

/// What a sender does when the peer's window closes to zero while data is in flight. The
/// RFCs leave it open (RFC 9293 §3.8.6.1 asks only that the window be probed); it decides
/// whether a zero-window ACK freezes a connection (paper 001, M-TCP) or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ZeroWindow {
    /// 4.4BSD and FreeBSD (`tcp_output`): the retransmission timer stops and its backoff is
    /// cleared, `snd_nxt` returns to `snd_una`, and the persist timer probes; cwnd, ssthresh
    /// and the RTO estimate stay as they were.
    #[default]
    Persist,
    /// Linux (`tcp_retransmit_timer`): the retransmission timer keeps running; when it
    /// expires the sender enters loss recovery (cwnd of one segment) and probes.
    Retransmit,
    /// The sender paper 001 (like M-TCP) assumes, which we know no stack to be: the
    /// retransmission timer stops and its backoff is cleared, nothing is rewound, probes go
    /// out from where sending stopped, and when the window opens sending goes on from there
    /// with the timer restarted.
    Hold,
}

/// The congestion window a connection starts with when its own SYN or SYN-ACK had to be
/// sent again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SynLossWindow {
    /// RFC 5681 §3.1: after a lost SYN or SYN-ACK the initial window is one segment.
    #[default]
    Rfc5681,
    /// Linux (`tcp_init_transfer`): one segment only after more than one retransmission of
    /// the SYN or SYN-ACK, at least one of them by the timer (`undo_marker`; "in light of
    /// RFC 6298's more aggressive 1 s initial RTO"), and not when the answer echoes the
    /// first one's timestamp, which shows the timeout spurious (`tcp_try_undo_spurious_syn`);
    /// otherwise the initial window.
    Linux,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window in segments; `None` applies the RFC 3390 formula.
    pub initial_window: Option<u32>,
    pub initial_rto: Duration,
    pub min_rto: Duration,
    pub max_rto: Duration,
    pub rto_floor: RtoFloor,
    /// Clock granularity G of RFC 6298 §2.
    pub clock_granularity: Duration,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Duration,
    /// Acknowledge at least every this many full-sized segments (RFC 5681 says 2).
    pub ack_every: u32,
    pub send_buffer: u32,
    /// The receive buffer in bytes of payload; with `receive_autotuning`, the most it grows
    /// to (Linux's `tcp_rmem[2]`).
    pub receive_buffer: u32,
    /// Linux's receive-buffer autotuning (`tcp_moderate_rcvbuf`, `tcp_rcv_space_adjust`):
    /// the window starts at the payload share of `tcp_rmem[1]` (128 KiB) and grows once a
    /// receiver-measured RTT to keep ahead of what the application reads.
    pub receive_autotuning: bool,
    pub window_scaling: bool,
    /// SACK (RFC 2018) with RFC 6675's loss recovery, if the peer offers it too.
    pub sack: bool,
    /// Timestamps (RFC 7323: RTTM and PAWS), if the peer offers them too.
    pub timestamps: bool,
    /// Nagle's algorithm (RFC 896): hold a short segment while data is unacknowledged.
    pub nagle: bool,
    pub dupack_threshold: u32,
    pub slow_start: SlowStart,
    pub loss_recovery: LossRecovery,
    pub ecn: Ecn,
    /// Pacing as Linux's fq qdisc applies it to any controller (`tcp_update_pacing_rate`:
    /// 200 % of cwnd/SRTT while cwnd is below half ssthresh, 120 % after). BBR paces
    /// whatever this says, as Linux's internal pacing does for it.
    pub pacing: bool,
    /// How long TIME-WAIT lasts (2·MSL).
    pub time_wait: Duration,
    /// The largest persist (zero-window probe) interval.
    pub max_persist: Duration,
    pub zero_window: ZeroWindow,
    pub syn_loss_window: SynLossWindow,
    /// Consecutive retransmission timeouts before the connection is abandoned (R2 of
    /// RFC 1122 §4.2.3.5; Linux's tcp_retries2 is 15).
    pub max_retransmissions: u32,
    /// Parameters of the congestion controllers.
    pub congestion_params: CongestionParams,
}

impl TcpConfig {
    pub fn profile(profile: TcpProfile) -> Self {
        match profile {
            TcpProfile::Rfc => Self::default(),
            TcpProfile::Linux => TcpConfig {
                initial_window: Some(10),
                min_rto: Duration::from_millis(200),
                max_rto: Duration::from_secs(120),
                slow_start: SlowStart::PerSegment,
                loss_recovery: LossRecovery::RackTlp,
                ecn: Ecn::Accept,
                rto_floor: RtoFloor::Variance,
                delayed_ack_timeout: Duration::from_millis(40),
                send_buffer: 4 << 20,
                receive_buffer: 6 << 20,
                receive_autotuning: true,
                zero_window: ZeroWindow::Retransmit,
                syn_loss_window: SynLossWindow::Linux,
                sack: true,
                timestamps: true,
                ..Self::default()
            },
        }
    }

    /// Initial congestion window in bytes.
    pub fn initial_cwnd(&self) -> u32 {
        match self.initial_window {
            Some(segments) => segments.max(1) * self.mss,
            None => (4 * self.mss).min((2 * self.mss).max(4380)),
        }
    }

    /// Window-scale shift that lets the 16-bit field express the whole receive buffer
    /// (RFC 7323 §2.3: at most 14).
    pub fn receive_window_shift(&self) -> u8 {
        if !self.window_scaling {
            return 0;
        }
        let mut shift = 0u8;
        while shift < 14 && (self.receive_buffer >> shift) > u32::from(u16::MAX) {
            shift += 1;
        }
        shift
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window: None,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_secs(1),
            max_rto: Duration::from_secs(60),
            rto_floor: RtoFloor::Total,
            clock_granularity: Duration::from_millis(1),
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(200),
            ack_every: 2,
            send_buffer: 64 << 10,
            receive_buffer: 64 << 10,
            receive_autotuning: false,
            window_scaling: true,
            sack: false,
            timestamps: false,
            nagle: true,
            dupack_threshold: 3,
            slow_start: SlowStart::PerAck,
            loss_recovery: LossRecovery::Rfc6675,
            ecn: Ecn::Off,
            pacing: false,
            time_wait: Duration::from_secs(60),
            max_persist: Duration::from_secs(60),
            zero_window: ZeroWindow::Persist,
            syn_loss_window: SynLossWindow::Rfc5681,
            max_retransmissions: 15,
            congestion_params: CongestionParams::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3390_initial_window() {
        let with = |mss| {
            TcpConfig {
                mss,
                ..TcpConfig::default()
            }
            .initial_cwnd()
        };
        assert_eq!(with(1460), 4380);
        assert_eq!(with(1024), 4096);
        assert_eq!(with(536), 2144);
        assert_eq!(with(4000), 8000);
        assert_eq!(TcpConfig::profile(TcpProfile::Linux).initial_cwnd(), 14600);
    }

    #[test]
    fn window_shift_covers_the_buffer() {
        let shift = |receive_buffer| {
            TcpConfig {
                receive_buffer,
                ..TcpConfig::default()
            }
            .receive_window_shift()
        };
        assert_eq!(shift(16 << 10), 0);
        assert_eq!(shift(64 << 10), 1);
        assert_eq!(shift(2 << 20), 6);
        assert_eq!(shift(u32::MAX), 14);
        let off = TcpConfig {
            window_scaling: false,
            receive_buffer: 2 << 20,
            ..TcpConfig::default()
        };
        assert_eq!(off.receive_window_shift(), 0);
    }
}
