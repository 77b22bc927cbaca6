//! One TCP connection endpoint as a sans-IO state machine (RFC 9293).
//!
//! Inputs: [`TcpSocket::handle_segment`], [`TcpSocket::handle_timeout`], and the application
//! calls `send`, `recv`, `close`. Outputs: [`TcpSocket::poll_transmit`] (segments to put on the
//! wire) and [`TcpSocket::poll_timeout`] (when to call `handle_timeout` next).
//!
//! Loss recovery is NewReno (RFC 5681 §3.2, RFC 6582: the timer is reset on the first partial
//! ACK only, so a recovery from many losses ends in a timeout rather than lasting one round
//! trip per hole), or Reno's (RFC 5681 §3.2 alone: the first new ACK ends it) where the
//! congestion controller asks for it (`cc::Recovery`); the window grows only while the sender is limited by it (RFC 7661 §4.2,
//! as Linux does), so a receive-window-limited flow does not inflate cwnd without bound; the
//! retransmission timer follows RFC 6298 with Karn's rule (one timed segment per
//! round trip, as BSD does); delayed ACKs follow RFC 5681 §4.2; receiver and sender
//! silly-window avoidance (with Nagle's algorithm, RFC 896) and the persist timer follow RFC
//! 1122 §4.2.3.3, §4.2.3.4 and §4.2.2.17 (a zero-window probe carries one byte of new data).
//! A window that closes under data in flight is handled as `TcpConfig::zero_window` says
//! (BSD's persist, Linux's retransmission, or the hold paper 001 assumes).
//! After a lost SYN or SYN-ACK the connection starts with a 3 s RTO (RFC 6298 §5.7) and a
//! one-segment window (RFC 5681 §3.1).
//!
//! Sequence numbers are compared only with numbers less than a window apart (RFC 9293 §3.4);
//! anything that spans the whole connection (bytes written, acknowledged, received) is a
//! 64-bit stream offset, so a connection can carry any number of bytes.
//!
//! Where each part lives: this file holds the socket's state, the application's calls and
//! the accessors; the connection states and closing (`state`), the handshake
//! (`handshake`), segment arrival and the receive path (`receive`), the acknowledgement
//! fields (`ack`), NewReno and RFC 6675 loss recovery (`recovery`), RACK-TLP with PRR
//! (`rack_recovery`) and its undo (`undo`), ECN (`ecn`), delivery-rate control and pacing
//! (`rate_control`), the timers (`timers`) and the send path (`transmit`).

use core::time::Duration;

mod ack;
mod ecn;
mod handshake;
mod rack_recovery;
mod rate_control;
mod receive;
mod recovery;
mod state;
mod timers;
mod transmit;
mod undo;

use super::cc::CongestionControl;
use super::config::TcpConfig;
use super::prr::Prr;
use super::rack::Rack;
use super::reassembly::Reassembly;
use super::receive_autotune::ReceiveAutotune;
use super::rto::RtoEstimator;
use super::rtt_samples::RttSamples;
use super::sack_report::SackReport;
use super::scoreboard::Scoreboard;
use super::timestamps::TimestampState;
use super::tlp::TailLossProbe;
use super::undo::Undo;
use crate::seq::SeqNumber;
use crate::time::Instant;
use rate_control::Pacing;
pub use state::TcpState;
use timers::Persist;

/// Counters a run reports per connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub segments_sent: u64,
    pub segments_received: u64,
    /// Payload bytes put on the wire, retransmissions included.
    pub bytes_sent: u64,
    /// Segments sent again (fast retransmit, partial ACK, after a timeout).
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    /// RFC 6675's rescue retransmissions (NextSeg rule 4), one at most a recovery.
    pub rescue_retransmissions: u64,
    pub timeouts: u64,
    pub duplicate_acks: u64,
    pub zero_window_probes: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub loss_probes: u64,
    /// CE-marked data segments received (RFC 3168).
    pub ce_received: u64,
    /// Window reductions in answer to ECN-Echo.
    pub ecn_reductions: u64,
    /// Reductions undone as spurious (D-SACKs or timestamps; Linux's TCP*Undo counters).
    pub undos: u64,
    /// Payload bytes the peer acknowledged.
    pub bytes_acked: u64,
    /// Payload bytes received in order (what the application can read).
    pub bytes_received: u64,
    /// Segments dropped as old duplicates by PAWS (RFC 7323 section 5).
    pub paws_rejected: u64,
    /// The connection gave up after too many consecutive timeouts.
    pub aborted: bool,
}

#[derive(Debug)]
pub struct TcpSocket {
    config: TcpConfig,
    cc: Box<dyn CongestionControl>,
    state: TcpState,
    local_port: u16,
    remote_port: u16,
    mss: u32,

    // Send side (RFC 9293 §3.3.1 names).
    iss: SeqNumber,
    snd_una: SeqNumber,
    snd_nxt: SeqNumber,
    /// Highest sequence number sent plus one: what is beyond `snd_nxt` after a timeout
    /// rewound it is being sent again.
    snd_max: SeqNumber,
    snd_wnd: u32,
    max_snd_wnd: u32,
    snd_wl1: SeqNumber,
    snd_wl2: SeqNumber,
    snd_shift: u8,
    peer_offered_scaling: bool,
    /// Bytes the application wrote, and of those, bytes the peer acknowledged.
    written: u64,
    acked: u64,
    close_requested: bool,
    handshake_pending: bool,
    retransmit_head: bool,
    force_send: bool,
    in_recovery: bool,
    partial_acks: u32,
    /// RFC 6582's `recover`: the highest sequence number sent when the last recovery episode
    /// (fast retransmit or timeout) began, until an ACK covers it. Kept only while pending, so
    /// it is never compared with numbers 2^31 away.
    recover: Option<SeqNumber>,
    dupacks: u32,
    /// End of the timed segment and when it was sent (Karn: cleared on any retransmission).
    timed: Option<(SeqNumber, Instant)>,
    rto: RtoEstimator,
    rtt_samples: RttSamples,
    rtx_deadline: Option<Instant>,
    persist: Option<Persist>,
    /// The window closed under data in flight and `ZeroWindow::Hold` stopped the timer.
    held: bool,
    /// SACK and timestamps as the handshake agreed them.
    sack_ok: bool,
    timestamps_ok: bool,
    timestamps: TimestampState,
    /// The acknowledgment number of the last ACK sent (RFC 7323's Last.ACK.sent).
    last_ack_sent: SeqNumber,
    /// Sequence space from the ISS to `snd_una`: the scoreboard's offsets start there.
    una_offset: u64,
    scoreboard: Scoreboard,
    sack_report: SackReport,
    /// RACK-TLP and PRR (`LossRecovery::RackTlp` with SACK): segments in flight with their
    /// send times, the reduction under way, the outstanding probe and the two timers.
    rack: Rack,
    prr: Prr,
    tlp: TailLossProbe,
    reorder_deadline: Option<Instant>,
    probe_deadline: Option<Instant>,
    /// A tail loss probe is due at the next transmission.
    probe_due: bool,
    /// Pacing, for a controller that sets the window from rate samples (BBR).
    pacing: Option<Pacing>,
    /// What a spurious reduction would restore (with RACK-TLP).
    undo: Undo,
    /// ECN (RFC 3168) as the handshake agreed it; the receiver echoes a CE mark until a
    /// CWR arrives; the sender owes a CWR flag, and reduces for ECN until an ACK above
    /// `cwr_until`.
    ecn_ok: bool,
    ece_pending: bool,
    cwr_pending: bool,
    cwr_until: Option<SeqNumber>,
    /// The segment being handled arrived CE-marked; the one last sent is ECT.
    arriving_ce: bool,
    sent_ect: bool,

    // Receive side.
    irs: SeqNumber,
    rcv_nxt: SeqNumber,
    /// Right edge of the window last advertised; never moves left.
    rcv_adv: SeqNumber,
    rcv_shift: u8,
    /// Stream offset of `rcv_nxt` (bytes received in order).
    received: u64,
    unread: u64,
    /// Payload bytes the application has read.
    read: u64,
    /// The window last advertised, in bytes (Linux's rcv_wnd).
    rcv_wnd: u32,
    /// The receive buffer's autotuning, from establishment (`receive_autotuning`).
    autotune: Option<ReceiveAutotune>,
    reassembly: Reassembly,
    peer_fin_offset: Option<u64>,
    fin_received: bool,
    ack_now: bool,
    unacked_segments: u32,
    delack_deadline: Option<Instant>,
    time_wait_deadline: Option<Instant>,
    /// A reset to send in answer to a segment for a closed connection (seq, ack, ACK flag).
    reset: Option<(SeqNumber, SeqNumber, bool)>,
    /// Timeouts since the last acknowledgement of new data (RFC 1122 §4.2.3.5, R2), and
    /// when the first of them fired.
    consecutive_timeouts: u32,
    first_timeout_at: Option<Instant>,
    /// When the last acceptable ACK arrived (Linux's rcv_tstamp).
    last_ack_at: Instant,
    /// Our SYN or SYN-ACK timed out at least once.
    handshake_timed_out: bool,
    /// Our SYN's or SYN-ACK's retransmissions (by the timer, or answering a repeated SYN)
    /// and when the first went out (Linux's `total_retrans` and `retrans_stamp`).
    handshake_retransmissions: u32,
    handshake_first_sent: Option<Instant>,

    stats: TcpStats,
}

impl TcpSocket {
    pub fn new(
        config: TcpConfig,
        cc: Box<dyn CongestionControl>,
        local_port: u16,
        remote_port: u16,
    ) -> Self {
        let rto = RtoEstimator::with_floor(
            config.initial_rto,
            config.min_rto,
            config.max_rto,
            config.clock_granularity,
            config.rto_floor,
        );
        TcpSocket {
            mss: config.mss,
            rcv_shift: config.receive_window_shift(),
            config,
            cc,
            state: TcpState::Closed,
            local_port,
            remote_port,
            iss: SeqNumber(0),
            snd_una: SeqNumber(0),
            snd_nxt: SeqNumber(0),
            snd_max: SeqNumber(0),
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: SeqNumber(0),
            snd_wl2: SeqNumber(0),
            snd_shift: 0,
            peer_offered_scaling: false,
            written: 0,
            acked: 0,
            close_requested: false,
            handshake_pending: false,
            retransmit_head: false,
            force_send: false,
            in_recovery: false,
            partial_acks: 0,
            recover: None,
            dupacks: 0,
            timed: None,
            rto,
            rtt_samples: RttSamples::default(),
            rtx_deadline: None,
            persist: None,
            held: false,
            sack_ok: false,
            timestamps_ok: false,
            timestamps: TimestampState::default(),
            last_ack_sent: SeqNumber(0),
            una_offset: 0,
            scoreboard: Scoreboard::default(),
            sack_report: SackReport::default(),
            rack: Rack::default(),
            prr: Prr::default(),
            tlp: TailLossProbe::default(),
            reorder_deadline: None,
            probe_deadline: None,
            probe_due: false,
            pacing: None,
            undo: Undo::default(),
            ecn_ok: false,
            ece_pending: false,
            cwr_pending: false,
            cwr_until: None,
            arriving_ce: false,
            sent_ect: false,
            irs: SeqNumber(0),
            rcv_nxt: SeqNumber(0),
            rcv_adv: SeqNumber(0),
            received: 0,
            unread: 0,
            read: 0,
            rcv_wnd: 0,
            autotune: None,
            reassembly: Reassembly::default(),
            peer_fin_offset: None,
            fin_received: false,
            ack_now: false,
            unacked_segments: 0,
            delack_deadline: None,
            time_wait_deadline: None,
            reset: None,
            consecutive_timeouts: 0,
            first_timeout_at: None,
            last_ack_at: Instant::ZERO,
            handshake_timed_out: false,
            handshake_retransmissions: 0,
            handshake_first_sent: None,
            stats: TcpStats::default(),
        }
    }

    /// Active open: the SYN goes out at the next `poll_transmit`.
    pub fn connect(&mut self, iss: SeqNumber) {
        self.set_iss(iss);
        self.state = TcpState::SynSent;
        self.handshake_pending = true;
    }

    /// Passive open; `iss` is used for the SYN-ACK.
    pub fn listen(&mut self, iss: SeqNumber) {
        self.set_iss(iss);
        self.state = TcpState::Listen;
    }

    fn set_iss(&mut self, iss: SeqNumber) {
        self.cc.seed(u64::from(iss.0));
        self.iss = iss;
        self.snd_una = iss;
        self.snd_nxt = iss;
        self.snd_max = iss;
        self.recover = None;
    }

    /// Queues up to `bytes` of (virtual) data; returns how many the send buffer took.
    pub fn send(&mut self, bytes: u64) -> u64 {
        if self.close_requested || matches!(self.state, TcpState::Closed | TcpState::Listen) {
            return 0;
        }
        if bytes > 0 {
            self.rate_on_write();
        }
        let buffered = self.written - self.acked;
        let room = u64::from(self.config.send_buffer).saturating_sub(buffered);
        let taken = bytes.min(room);
        self.written += taken;
        taken
    }

    /// Reads up to `max` in-order bytes at `now`; returns how many were read.
    pub fn recv(&mut self, now: Instant, max: u64) -> u64 {
        let n = self.unread.min(max);
        self.unread -= n;
        self.read += n;
        if let Some(autotune) = self.autotune.as_mut().filter(|_| n > 0) {
            autotune.on_copied(now, self.read);
        }
        if n > 0 && self.state.is_synchronized() {
            // Tell a sender that may be blocked that the window opened (RFC 1122 §4.2.3.3).
            let edge = self.rcv_nxt + self.free_receive_space();
            let growth = edge.diff(self.rcv_adv);
            let threshold = (2 * self.mss).min(self.receive_space_limit() / 2);
            if growth >= i64::from(threshold) {
                self.ack_now = true;
            }
        }
        n
    }

    /// The application is done writing: a FIN follows the data.
    pub fn close(&mut self) {
        match self.state {
            TcpState::Closed | TcpState::Listen | TcpState::SynSent => self.enter_closed(),
            _ => self.close_requested = true,
        }
    }

    pub fn state(&self) -> TcpState {
        self.state
    }

    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }

    pub fn config(&self) -> &TcpConfig {
        &self.config
    }

    pub fn cwnd(&self) -> u32 {
        self.cc.window().cwnd
    }

    pub fn ssthresh(&self) -> u32 {
        self.cc.window().ssthresh
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.rto.srtt()
    }

    pub fn rto(&self) -> Duration {
        self.rto.rto()
    }

    /// The peer's advertised window, scaled, in bytes.
    pub fn send_window(&self) -> u32 {
        self.snd_wnd
    }

    pub fn bytes_in_flight(&self) -> u32 {
        self.snd_nxt - self.snd_una
    }

    /// Bytes buffered for the application to read.
    pub fn readable(&self) -> u64 {
        self.unread
    }

    /// True once the peer's FIN was received in order (the stream has ended).
    pub fn peer_closed(&self) -> bool {
        self.fin_received
    }

    /// True when every byte written and the FIN have been acknowledged.
    pub fn all_acknowledged(&self) -> bool {
        self.close_requested && self.snd_una.diff(self.data_end()) > 0
    }

    pub fn local_port(&self) -> u16 {
        self.local_port
    }

    pub fn remote_port(&self) -> u16 {
        self.remote_port
    }

    /// Sequence number just past the application's data; the FIN takes this number.
    fn data_end(&self) -> SeqNumber {
        self.iss + 1 + self.written as u32
    }

    /// Bytes written and not yet sent (from `snd_nxt`).
    fn unsent(&self) -> u32 {
        let end = self.data_end();
        if self.snd_nxt < end {
            end - self.snd_nxt
        } else {
            0
        }
    }

    /// Segments (of the current MSS) that `bytes` make up, the last one short: what Linux
    /// counts where we count bytes.
    fn segments(&self, bytes: u64) -> u64 {
        bytes.div_ceil(u64::from(self.mss.max(1)))
    }

    /// After a timeout, until the ACK of what was sent before it (Linux's Loss state).
    fn in_loss_state(&self) -> bool {
        self.recover.is_some() && !self.in_recovery
    }

    fn fin_sent(&self) -> bool {
        self.close_requested && self.snd_max.diff(self.data_end()) > 0
    }

    /// The payload the receive buffer holds: the autotuned window clamp, or the buffer.
    fn receive_space_limit(&self) -> u32 {
        self.autotune
            .as_ref()
            .map_or(self.config.receive_buffer, ReceiveAutotune::window_clamp)
    }

    fn free_receive_space(&self) -> u32 {
        u64::from(self.receive_space_limit()).saturating_sub(self.unread) as u32
    }
}
