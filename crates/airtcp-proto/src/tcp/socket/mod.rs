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

use core::time::Duration;

mod ecn;
mod rack_recovery;
mod rate_control;
mod undo;

use super::cc::{AckEvent, CongestionControl, Recovery};
use super::config::{SynLossWindow, TcpConfig, ZeroWindow};
use super::prr::Prr;
use super::rack::Rack;
use super::reassembly::Reassembly;
use super::receive_autotune::{AutotuneConfig, ReceiveAutotune};
use super::rto::RtoEstimator;
use super::rtt_samples::RttSamples;
use super::sack_report::SackReport;
use super::scoreboard::{NextSegment, Scoreboard};
use super::timestamps::{self, TimestampState};
use super::tlp::TailLossProbe;
use super::undo::Undo;
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{Ipv4Repr, SackBlocks, TcpFlags, TcpRepr, Timestamps};
use rate_control::Pacing;

/// The RTO a connection starts with after its SYN or SYN-ACK was lost (RFC 6298 §5.7).
const SYN_LOSS_RTO: Duration = Duration::from_secs(3);

/// Connection states of RFC 9293 §3.3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl TcpState {
    fn is_synchronized(self) -> bool {
        !matches!(
            self,
            TcpState::Closed | TcpState::Listen | TcpState::SynSent
        )
    }

    /// States in which data we wrote may still be unsent or unacknowledged (the FIN waits
    /// behind it), so a closed window must be probed (RFC 9293 §3.8.6.1).
    fn may_have_data_unacked(self) -> bool {
        matches!(
            self,
            TcpState::Established
                | TcpState::CloseWait
                | TcpState::FinWait1
                | TcpState::Closing
                | TcpState::LastAck
        )
    }

    fn accepts_data(self) -> bool {
        matches!(
            self,
            TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2
        )
    }
}

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

#[derive(Clone, Copy, Debug)]
struct Persist {
    deadline: Instant,
    interval: Duration,
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

    /// When `handle_timeout` must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        // This runs after every segment handled or sent: folded by hand over the timers, as
        // an iterator over an array of options did not compile to as little.
        fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        let mut deadline = earliest(self.rtx_deadline, self.delack_deadline);
        deadline = earliest(deadline, self.reorder_deadline);
        deadline = earliest(deadline, self.probe_deadline);
        deadline = earliest(deadline, self.persist.map(|p| p.deadline));
        deadline = earliest(deadline, self.time_wait_deadline);
        earliest(deadline, self.pacing.and_then(|p| p.deadline))
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        if self.time_wait_deadline.is_some_and(|t| t <= now) {
            self.enter_closed();
            return;
        }
        if self.delack_deadline.is_some_and(|t| t <= now) {
            self.delack_deadline = None;
            self.ack_now = true;
        }
        if let Some(pacing) = self
            .pacing
            .as_mut()
            .filter(|p| p.deadline.is_some_and(|t| t <= now))
        {
            pacing.deadline = None;
        }
        if let Some(persist) = self.persist.filter(|p| p.deadline <= now) {
            self.force_send = true;
            if self.snd_wnd == 0 {
                self.stats.zero_window_probes += 1;
            }
            let interval = (persist.interval * 2).min(self.config.max_persist);
            self.persist = Some(Persist {
                deadline: now + interval,
                interval,
            });
        }
        if self.reorder_deadline.is_some_and(|t| t <= now) {
            self.on_reorder_timeout(now);
        }
        if self.probe_deadline.is_some_and(|t| t <= now) {
            self.on_probe_timeout(now);
        }
        if self.rtx_deadline.is_some_and(|t| t <= now) {
            self.on_retransmission_timeout(now);
        }
    }

    fn on_retransmission_timeout(&mut self, now: Instant) {
        self.rtx_deadline = None;
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                self.handshake_pending = true;
                self.handshake_timed_out = true;
            }
            _ if self.snd_una != self.snd_max => {
                // RFC 5681 §3.1 and RFC 6582 §3.2 step 1: collapse the window, forget the
                // recovery episode, and go back to the first unacknowledged byte.
                let flight = self.snd_max - self.snd_una;
                if self.rack_on() && self.recover.is_none() {
                    self.undo_on_timeout();
                }
                self.cc.on_rto(now, flight, self.recover.is_some());
                self.rtt_samples.on_timeout(self.snd_max);
                self.scoreboard.start_recovery(self.una_offset);
                self.recover = Some(self.snd_max);
                self.in_recovery = false;
                self.dupacks = 0;
                self.cwr_until = None;
                self.cwr_pending = self.ecn_ok;
                if self.rack_on() {
                    // Linux (`tcp_enter_loss`): every segment not SACKed is lost and goes
                    // again before new data; the head at once, whatever the windows.
                    self.rack_on_timeout();
                    self.rate_on_timeout(now);
                    self.retransmit_head = true;
                } else {
                    self.snd_nxt = self.snd_una;
                    self.retransmit_head = false;
                }
            }
            _ => return,
        }
        self.stats.timeouts += 1;
        let since = *self.first_timeout_at.get_or_insert(now);
        if self.probing_a_closed_window() {
            // Linux (`tcp_retransmit_timer`, `tcp_rtx_probe0_timed_out`): into a zero window
            // the retransmissions are probes, and a peer that answers them is alive; the
            // connection times out only after 2·TCP_RTO_MAX without an ACK and of
            // retransmitting, whatever the count.
            let limit = 2 * self.config.max_rto;
            if now - self.last_ack_at > limit && now - since > limit {
                self.stats.aborted = true;
                self.enter_closed();
                return;
            }
        } else {
            self.consecutive_timeouts += 1;
            if self.consecutive_timeouts > self.config.max_retransmissions {
                self.stats.aborted = true;
                self.enter_closed();
                return;
            }
        }
        self.timed = None;
        self.rto.back_off();
        self.rtx_deadline = Some(now + self.rto.rto());
    }

    /// A Linux sender's retransmissions into a window the peer closed with data in flight.
    fn probing_a_closed_window(&self) -> bool {
        self.config.zero_window == ZeroWindow::Retransmit
            && self.snd_wnd == 0
            && self.state.may_have_data_unacked()
    }

    /// `handle_segment` for a segment whose IP header carried ECN codepoint `ecn`
    /// (`Ipv4Repr::CE` for a congestion mark).
    pub fn handle_segment_ecn(&mut self, now: Instant, seg: &TcpRepr, ecn: u8) {
        self.arriving_ce = ecn == Ipv4Repr::CE;
        self.handle_segment(now, seg);
        self.arriving_ce = false;
    }

    pub fn handle_segment(&mut self, now: Instant, seg: &TcpRepr) {
        self.stats.segments_received += 1;
        if seg.flags.rst {
            if self.state.is_synchronized() || self.state == TcpState::SynSent {
                self.enter_closed();
            }
            return;
        }
        match self.state {
            // RFC 9293 §3.10.7.1: answer anything but a reset with a reset, so that a peer
            // still retransmitting (its last ACK was lost) does not wait forever.
            TcpState::Closed => {
                self.reset = Some(if seg.flags.ack {
                    (seg.ack, SeqNumber(0), false)
                } else {
                    (SeqNumber(0), seg.seq + seg.seq_len(), true)
                });
            }
            TcpState::Listen => {
                if seg.flags.syn && !seg.flags.ack {
                    self.accept_syn(now, seg);
                    self.state = TcpState::SynReceived;
                    self.handshake_pending = true;
                }
            }
            TcpState::SynSent => {
                if seg.flags.syn && seg.flags.ack && seg.ack == self.iss + 1 {
                    self.accept_syn(now, seg);
                    self.process_ack(now, seg);
                    self.enter_established(now, seg);
                    self.ack_now = true;
                }
            }
            _ => self.handle_synchronized(now, seg),
        }
        self.update_persist(now);
    }

    /// Takes the peer's initial sequence number and options (RFC 7323 §2.2: scaling applies
    /// only if both sides offer it; the SYN's own window is never scaled).
    fn accept_syn(&mut self, now: Instant, seg: &TcpRepr) {
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt;
        match seg.window_scale {
            Some(shift) if self.config.window_scaling => {
                self.snd_shift = shift.min(14);
                self.peer_offered_scaling = true;
            }
            _ => {
                self.snd_shift = 0;
                self.rcv_shift = 0;
            }
        }
        self.sack_ok = self.config.sack && seg.sack_permitted;
        self.ecn_on_syn(seg);
        self.timestamps_ok = self.config.timestamps && seg.timestamps.is_some();
        if let Some(seen) = seg.timestamps.filter(|_| self.timestamps_ok) {
            self.timestamps.on_syn(seen);
        }
        // The MSS options count the fixed headers only; the options every segment carries
        // come out of the payload (RFC 6691 §2, RFC 1122 §4.2.2.6): 1448 bytes with
        // timestamps on a 1500-byte MTU, as Linux's tcp_current_mss.
        let options = if self.timestamps_ok {
            TcpRepr::TIMESTAMPS_OPTION_LEN
        } else {
            0
        };
        self.mss = self.config.mss.min(u32::from(seg.mss.unwrap_or(536))) - options;
        self.snd_wnd = u32::from(seg.window);
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        let initial_cwnd = TcpConfig {
            mss: self.mss,
            ..self.config.clone()
        }
        .initial_cwnd();
        let window = self.cc.window_mut();
        window.mss = self.mss;
        window.cwnd = initial_cwnd;
        if self.config.receive_autotuning {
            // From the handshake on: the SYN-ACK and first ACKs offer the initial window
            // (Linux's `tcp_select_initial_window` within `tcp_rmem[1]`).
            let most = self.config.receive_buffer;
            let config = AutotuneConfig {
                rmem: [4096.min(most), 131_072.min(most), most],
                ..AutotuneConfig::default()
            };
            self.autotune = Some(ReceiveAutotune::new(config, self.mss, now));
        }
    }

    /// The handshake completed with `seg`. If our SYN or SYN-ACK had to be sent again, the
    /// path is unknown: RFC 6298 §5.7 restarts from a 3 s RTO (unless an RTT sample already
    /// came), and the window from one segment as `syn_loss_window` says.
    fn enter_established(&mut self, now: Instant, seg: &TcpRepr) {
        self.state = TcpState::Established;

        if self.handshake_timed_out {
            if self.rto.srtt().is_none() {
                self.rto.fall_back(SYN_LOSS_RTO);
            }
            if self.one_segment_after_handshake(seg) {
                let window = self.cc.window_mut();
                window.cwnd = window.mss;
            }
        }
        self.rate_on_established(now);
    }

    /// After a handshake timeout: whether the window starts from one segment.
    fn one_segment_after_handshake(&self, seg: &TcpRepr) -> bool {
        match self.config.syn_loss_window {
            SynLossWindow::Rfc5681 => true,
            SynLossWindow::Linux => {
                let spurious = self.timestamps_ok
                    && seg
                        .timestamps
                        .zip(self.handshake_first_sent)
                        .is_some_and(|(seen, first)| seen.echo_reply == timestamps::clock(first));
                self.handshake_retransmissions > 1 && !spurious
            }
        }
    }

    fn handle_synchronized(&mut self, now: Instant, seg: &TcpRepr) {
        if seg.flags.syn {
            // A retransmitted SYN (our SYN-ACK was lost) or SYN-ACK (our ACK was lost).
            if self.state == TcpState::SynReceived {
                self.handshake_pending = true;
            } else {
                self.ack_now = true;
            }
            return;
        }
        let seen = seg.timestamps.filter(|_| self.timestamps_ok);
        if let Some(seen) = seen {
            if self.timestamps.rejects(seen, seg.flags.rst) {
                self.stats.paws_rejected += 1;
                self.ack_now = true;
                return;
            }
        }
        if !self.acceptable(seg) {
            // Linux's `tcp_send_dupack`: data that had all arrived before is D-SACKed.
            if self.sack_ok && seg.payload_len > 0 {
                let start = self.offset_of(seg.seq).max(0) as u64;
                self.report_duplicates(start, start + u64::from(seg.payload_len));
            }
            self.ack_now = true;
            return;
        }
        if let Some(seen) = seen {
            self.timestamps
                .on_segment(seen, seg.seq, self.last_ack_sent);
            if let Some(autotune) = &mut self.autotune {
                autotune.on_timestamps(now, seen.echo_reply, seg.payload_len);
            }
        }
        if seg.flags.ack {
            if self.state == TcpState::SynReceived {
                if seg.ack.diff(self.snd_una) > 0 && seg.ack.diff(self.snd_max) <= 0 {
                    self.enter_established(now, seg);
                } else {
                    return;
                }
            }
            if !self.process_ack(now, seg) {
                return;
            }
        }
        if self.state.accepts_data() && seg.payload_len > 0 {
            self.process_data(now, seg);
        }
        if seg.flags.fin {
            let offset = self.offset_of(seg.seq) + i64::from(seg.payload_len);
            if offset >= 0 && self.peer_fin_offset.is_none() {
                self.peer_fin_offset = Some(offset as u64);
            }
            self.ack_now = true;
        }
        self.consume_fin();
        self.advance_close_states(now);
    }

    /// RFC 9293 §3.10.7.4 segment acceptability test.
    fn acceptable(&self, seg: &TcpRepr) -> bool {
        let window = self.rcv_adv.diff(self.rcv_nxt).max(0);
        let start = seg.seq.diff(self.rcv_nxt);
        let len = i64::from(seg.seq_len());
        match (len, window) {
            (0, 0) => start == 0,
            (0, _) => (0..window).contains(&start),
            (_, 0) => false,
            _ => start < window && start + len > 0,
        }
    }

    /// Stream offset of a sequence number on the receive side.
    fn offset_of(&self, seq: SeqNumber) -> i64 {
        self.received as i64 + seq.diff(self.rcv_nxt)
    }

    /// Processes the acknowledgement fields; false if the segment must be dropped.
    fn process_ack(&mut self, now: Instant, seg: &TcpRepr) -> bool {
        let ack = seg.ack;
        if ack.diff(self.snd_max) > 0 {
            // It acknowledges what was never sent: answer with an ACK and drop the segment,
            // data included (RFC 9293 §3.10.7.4).
            self.ack_now = true;
            return false;
        }
        self.last_ack_at = now;
        let old_window = self.snd_wnd;
        let seg_window = u32::from(seg.window) << self.snd_shift;
        if !seg.flags.syn
            && (self.snd_wl1 < seg.seq || (self.snd_wl1 == seg.seq && self.snd_wl2 <= ack))
        {
            self.snd_wnd = seg_window;
            self.max_snd_wnd = self.max_snd_wnd.max(seg_window);
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = ack;
        }
        let newly_sacked = self.take_sack_blocks(&seg.sack);
        let echo = seg.timestamps.filter(|_| self.timestamps_ok);
        if self.rack_on() {
            self.rack_ack(now, seg, echo, seg_window == old_window);
        } else {
            self.reno_ack(now, seg, echo, newly_sacked, old_window, seg_window);
            self.ecn_on_ack(ack);
            self.ecn_on_echo(now, seg);
        }
        self.update_pacing_rate();
        if self.snd_wnd > 0 && self.persist.is_some() {
            self.persist = None;
        }
        if self.snd_wnd == 0 && self.snd_nxt != self.snd_una {
            self.on_window_closed_in_flight();
        } else if self.held && self.snd_wnd > 0 {
            self.held = false;
            if self.snd_una != self.snd_max && self.rtx_deadline.is_none() {
                self.rtx_deadline = Some(now + self.rto.rto());
            }
        }
        true
    }

    /// An ACK's acknowledgement fields with RFC 6675's or NewReno's loss recovery.
    fn reno_ack(
        &mut self,
        now: Instant,
        seg: &TcpRepr,
        echo: Option<Timestamps>,
        newly_sacked: u64,
        old_window: u32,
        seg_window: u32,
    ) {
        let ack = seg.ack;
        if ack > self.snd_una {
            self.on_new_ack(now, ack, echo);
            if newly_sacked > 0 && self.snd_una != self.snd_max && !self.in_recovery {
                // RFC 6675 section 5: an ACK that SACKs new data is a duplicate "regardless
                // of its status as a cumulative acknowledgment".
                self.count_duplicate_ack(now);
            }
        } else if ack == self.snd_una
            && self.snd_una != self.snd_max
            && seg.payload_len == 0
            && !seg.flags.fin
            && seg_window == old_window
            && seg_window > 0
            && (!self.sack_ok || newly_sacked > 0)
        {
            // A zero-window ACK answers a window probe; it says nothing about loss. With
            // SACK a duplicate ACK counts only if it SACKs new data (RFC 6675 section 2),
            // so duplicates of what was already received do not.
            self.on_duplicate_ack(now);
        }
    }

    /// The peer closed its window with data in flight. BSD stops the retransmission timer
    /// and falls back to probing: what was in flight is sent again once the window opens (so
    /// no RTT is timed across the pause, Karn's rule). `Hold` stops the timer and rewinds
    /// nothing. Linux keeps the timer running.
    fn on_window_closed_in_flight(&mut self) {
        if self.config.zero_window == ZeroWindow::Retransmit || !self.state.may_have_data_unacked()
        {
            return;
        }
        self.rtx_deadline = None;
        self.rto.clear_backoff();
        self.timed = None;
        if self.config.zero_window == ZeroWindow::Hold {
            self.held = true;
            return;
        }
        self.snd_nxt = self.snd_una;
        self.retransmit_head = false;
    }

    /// Sequence-space offset of `seq` from the ISS, on the send side.
    fn send_offset(&self, seq: SeqNumber) -> u64 {
        (self.una_offset as i64 + seq.diff(self.snd_una)).max(0) as u64
    }

    /// Enters an ACK's SACK blocks in the scoreboard; the bytes newly SACKed.
    fn take_sack_blocks(&mut self, sack: &SackBlocks) -> u64 {
        if !self.sack_ok || sack.is_empty() {
            return 0;
        }
        let mut blocks = [(0, 0); SackBlocks::MAX];
        for (slot, &(left, right)) in blocks.iter_mut().zip(sack.as_slice()) {
            *slot = (self.send_offset(left), self.send_offset(right));
        }
        let max = self.send_offset(self.snd_max);
        self.scoreboard
            .on_sack(&blocks[..sack.as_slice().len()], self.una_offset, max)
    }

    /// RTTM (RFC 7323 section 4): with timestamps every ACK of new data measures, from the
    /// segment's send time or, where Karn's rule forbids that, from the echo (as Linux's
    /// `tcp_ack_update_rtt`), weighted as one of the samples a round trip brings (Appendix
    /// G).
    fn measure_with_timestamps(
        &mut self,
        now: Instant,
        sample: Option<Duration>,
        echo: Option<Timestamps>,
        flight: u32,
    ) {
        if let Some(rtt) = sample.or_else(|| echo.and_then(|seen| timestamps::rtt(now, seen))) {
            let expected = u64::from(flight / (2 * self.mss).max(1)).max(1);
            self.rto.on_sample_among(rtt, expected);
        }
    }

    /// The cumulative ACK moved to `ack`: counters, RTT samples, snd_una. Returns the bytes
    /// acknowledged, the flight before the ACK and the RTT sample it gave.
    fn advance_una(
        &mut self,
        now: Instant,
        ack: SeqNumber,
        echo: Option<Timestamps>,
    ) -> (u32, u32, Option<Duration>) {
        let acked = ack - self.snd_una;
        self.cc.on_any_ack(now, acked);
        self.consecutive_timeouts = 0;
        self.first_timeout_at = None;
        let flight_before = self.snd_max - self.snd_una;
        // Payload bytes exclude the SYN and FIN sequence numbers. Both tests compare numbers
        // within the window, never with the initial sequence number, which may be more than
        // 2^31 behind.
        // The SYN is all that precedes the first payload byte (snd_una meets the ISS again
        // after 2^32 bytes, hence the second test).
        let syn_acked = self.snd_una == self.iss && self.acked == 0;
        let fin_acked = self.close_requested && ack.diff(self.data_end()) > 0;
        let payload_acked = acked - u32::from(syn_acked) - u32::from(fin_acked);
        self.acked += u64::from(payload_acked);
        self.stats.bytes_acked += u64::from(payload_acked);

        let rtt = self.rtt_samples.on_ack(now, self.snd_una, ack);
        if self.timestamps_ok {
            self.measure_with_timestamps(now, rtt, echo, flight_before);
        } else if let Some((end, sent_at)) = self.timed {
            if ack >= end {
                self.rto.on_sample(now - sent_at);
                self.timed = None;
            }
        }
        if let Some(sample) = rtt {
            self.cc.on_rtt_sample(now, sample);
        }
        self.snd_una = ack;
        self.una_offset += u64::from(acked);
        self.scoreboard.on_cumulative_ack(self.una_offset);
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        (acked, flight_before, rtt)
    }

    fn on_new_ack(&mut self, now: Instant, ack: SeqNumber, echo: Option<Timestamps>) {
        let (acked, flight_before, rtt) = self.advance_una(now, ack, echo);
        let recovered = self.recover.is_some_and(|recover| ack >= recover);
        if recovered {
            self.recover = None;
        }
        let reno = self.cc.recovery() == Recovery::Reno;
        if self.in_recovery {
            if recovered || (reno && !self.sack_ok) {
                self.in_recovery = false;
                self.dupacks = 0;
                self.scoreboard.start_recovery(self.una_offset);
                self.cc.on_exit_recovery(now, self.snd_max - self.snd_una);
            } else if self.sack_ok {
                // RFC 6675: the scoreboard, not the partial ACK, says what to resend.
                self.partial_acks += 1;
            } else {
                self.cc.on_partial_ack(now, acked);
                self.retransmit_head = true;
                self.timed = None;
                self.partial_acks += 1;
            }
        } else {
            self.dupacks = 0;
            self.grow_window(now, acked, flight_before, rtt);
        }
        // RFC 6298 §5.2 and §5.3; in a NewReno recovery only the first partial ACK restarts
        // the timer (RFC 6582's Impatient variant), in a SACK recovery every one does.
        let keep_timer = self.in_recovery
            && !self.sack_ok
            && self.partial_acks > 1
            && self.rtx_deadline.is_some();
        self.restart_retransmission_timer(now, keep_timer);
    }

    /// New data acknowledged outside recovery: the controller grows the window if the
    /// sender was limited by it (RFC 7661 §4.2, Linux's `tcp_is_cwnd_limited`).
    fn grow_window(&mut self, now: Instant, acked: u32, flight_before: u32, rtt: Option<Duration>) {
        let window = self.cc.window();
        let cwnd_limited = if window.in_slow_start() {
            2 * u64::from(flight_before) >= u64::from(window.cwnd)
        } else {
            flight_before + window.mss > window.cwnd
        };
        if cwnd_limited {
            self.cc.on_ack(&AckEvent {
                now,
                bytes_acked: acked,
                flight_size: flight_before,
                rtt,
            });
        }
    }

    /// After an ACK of new data (RFC 6298 §5.2, §5.3): stopped when nothing is outstanding,
    /// else restarted unless `keep`.
    fn restart_retransmission_timer(&mut self, now: Instant, keep: bool) {
        if self.snd_una == self.snd_max {
            self.rtx_deadline = None;
        } else if !keep {
            self.rtx_deadline = Some(now + self.rto.rto());
        }
    }

    fn on_duplicate_ack(&mut self, now: Instant) {
        self.cc.on_any_ack(now, 0);
        self.count_duplicate_ack(now);
    }

    /// DupAcks rises by one; loss recovery starts at DupThresh (or, with SACK, when the
    /// first unacknowledged segment is deemed lost).
    fn count_duplicate_ack(&mut self, now: Instant) {
        self.dupacks += 1;
        self.stats.duplicate_acks += 1;
        let threshold = self.config.dupack_threshold;
        // RFC 6675 section 5: with SACK, also when the first unacknowledged segment is
        // deemed lost (enough SACKed above it), whatever the count.
        let lost = self.sack_ok
            && (self.dupacks >= threshold
                || self.scoreboard.is_lost(
                    self.una_offset,
                    u64::from(self.mss),
                    u64::from(threshold),
                ));
        if self.in_recovery {
            if !self.sack_ok {
                self.cc.on_dupack_in_recovery(now);
            }
        } else if (lost || (!self.sack_ok && self.dupacks == threshold))
            && (self.recover.is_none() || (!self.sack_ok && self.cc.recovery() == Recovery::Reno))
        {
            // RFC 6582 §3.2 step 2: only once an ACK has covered the last recovery point, so
            // that dupacks for data sent before a timeout do not trigger a second reduction.
            // Reno (RFC 5681) has no such point.
            self.in_recovery = true;
            self.partial_acks = 0;
            self.recover = Some(self.snd_max);
            self.cwr_pending = self.ecn_ok;
            if self.cwr_until.take().is_some() {
                // A reduction for ECN in this window already set ssthresh: not again
                // (RFC 3168 §6.1.2); NewReno's inflation only.
                let window = self.cc.window_mut();
                window.cwnd = window.ssthresh + 3 * window.mss;
            } else {
                self.cc.on_enter_recovery(now, self.snd_max - self.snd_una);
            }
            if self.sack_ok {
                // RFC 6675 section 5 step 4: cwnd = ssthresh, no inflation: the pipe
                // estimate paces the recovery.
                let window = self.cc.window_mut();
                window.cwnd = window.ssthresh;
                self.scoreboard.start_recovery(self.una_offset);
            }
            self.retransmit_head = true;
            self.timed = None;
            self.stats.fast_retransmits += 1;
        }
    }

    fn process_data(&mut self, now: Instant, seg: &TcpRepr) {
        let start = self.offset_of(seg.seq);
        let end = start + i64::from(seg.payload_len);
        let received = self.received as i64;
        let window_end = received + self.rcv_adv.diff(self.rcv_nxt).max(0);
        let (from, to) = (start.max(received), end.min(window_end));
        if self.sack_ok {
            self.report_duplicates(start.max(0) as u64, end.max(0) as u64);
        }
        if from >= to {
            self.ack_now = true; // a duplicate, or wholly beyond the window
            return;
        }
        self.ecn_on_data(seg);
        if from > received {
            // Out of order: hold it and send a duplicate ACK at once (RFC 5681 §4.2).
            self.reassembly.insert(from as u64, to as u64);
            self.sack_report.on_out_of_order(from as u64);
            self.ack_now = true;
            return;
        }
        let had_gap = !self.reassembly.is_empty();
        self.reassembly.insert(from as u64, to as u64);
        let next = self.reassembly.take_contiguous(self.received);
        let advanced = next - self.received;
        self.received = next;
        self.unread += advanced;
        self.rcv_nxt = self.rcv_nxt + advanced as u32;
        if let Some(autotune) = &mut self.autotune {
            autotune.on_data_received(now, self.received, self.rcv_wnd);
        }
        self.stats.bytes_received += advanced;
        self.unacked_segments += 1;
        if had_gap
            || start < received
            || end > window_end
            || !self.config.delayed_ack
            || self.unacked_segments >= self.config.ack_every
        {
            self.ack_now = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.config.delayed_ack_timeout);
        }
    }

    /// The parts of the data segment `[start, end)` (stream offsets) that had arrived
    /// before, below the cumulative point or held out of order, go to the next ACK as a
    /// D-SACK (RFC 2883 §4, Linux's `tcp_dsack_set` in `tcp_data_queue` and
    /// `tcp_data_queue_ofo`).
    fn report_duplicates(&mut self, start: u64, end: u64) {
        self.sack_report.on_segment();
        let received = self.received;
        if start < received {
            self.sack_report.on_duplicate(start, end.min(received));
        }
        let from = start.max(received);
        for &(held_start, held_end) in self.reassembly.ranges() {
            let (s, e) = (held_start.max(from), held_end.min(end));
            if s < e {
                self.sack_report.on_duplicate(s, e);
            }
        }
    }

    fn consume_fin(&mut self) {
        if !self.fin_received && self.peer_fin_offset == Some(self.received) {
            self.fin_received = true;
            self.rcv_nxt = self.rcv_nxt + 1;
            self.rcv_adv = self.rcv_adv.max(self.rcv_nxt);
            self.ack_now = true;
        }
    }

    fn advance_close_states(&mut self, now: Instant) {
        let fin_acked = self.all_acknowledged();
        self.state = match self.state {
            TcpState::Established if self.fin_received => TcpState::CloseWait,
            TcpState::FinWait1 if fin_acked && self.fin_received => TcpState::TimeWait,
            TcpState::FinWait1 if fin_acked => TcpState::FinWait2,
            TcpState::FinWait1 if self.fin_received => TcpState::Closing,
            TcpState::FinWait2 | TcpState::Closing if self.fin_received && fin_acked => {
                TcpState::TimeWait
            }
            TcpState::LastAck if fin_acked => {
                self.enter_closed();
                return;
            }
            state => state,
        };
        if self.state == TcpState::TimeWait && self.time_wait_deadline.is_none() {
            self.time_wait_deadline = Some(now + self.config.time_wait);
            self.rtx_deadline = None;
            self.reorder_deadline = None;
            self.probe_deadline = None;
            self.persist = None;
        }
    }

    fn enter_closed(&mut self) {
        self.state = TcpState::Closed;
        self.rtx_deadline = None;
        self.reorder_deadline = None;
        self.probe_deadline = None;
        self.persist = None;
        self.delack_deadline = None;
        self.time_wait_deadline = None;
        self.handshake_pending = false;
        self.ack_now = false;
    }

    /// Payload bytes the windows and sender silly-window avoidance allow at `snd_nxt`.
    fn sendable_len(&self) -> u32 {
        let unsent = self.unsent();
        if unsent == 0 {
            return 0;
        }
        let in_flight = self.snd_nxt - self.snd_una;
        // cwnd limits what the network holds: in a SACK recovery RFC 6675's pipe, else the
        // flight; the peer's window limits the sequence space.
        let pipe = if self.rack_on() {
            self.rack.pipe().min(u64::from(u32::MAX)) as u32
        } else if self.in_recovery && self.sack_ok {
            let max = self.send_offset(self.snd_max);
            let (mss, threshold) = (u64::from(self.mss), u64::from(self.config.dupack_threshold));
            self.scoreboard
                .pipe(self.una_offset, max, mss, threshold)
                .min(u64::from(u32::MAX)) as u32
        } else if self.sack_ok && self.recover.is_some() {
            // After a timeout (until an ACK covers what was sent before it) the holes are
            // resent between SACKed data, which is not in the network (as Linux's
            // tcp_packets_in_flight): only the resent holes count.
            let sacked = self
                .scoreboard
                .sacked_between(self.una_offset, self.send_offset(self.snd_nxt));
            in_flight - sacked.min(u64::from(in_flight)) as u32
        } else {
            in_flight
        };
        let usable = (self.cc.window().cwnd.saturating_sub(pipe))
            .min(self.snd_wnd.saturating_sub(in_flight));
        // Resending after a timeout stops at data the peer SACKed.
        let run = self.unsacked_run(self.snd_nxt);
        let len = self.mss.min(unsent).min(usable).min(run);
        // RFC 1122 §4.2.3.4: a short segment only if it is the rest of the data (held back
        // while data is in flight, by Nagle's rule, RFC 896, until the application closes),
        // fills a hole up to SACKed data, or is at least half the largest window the peer
        // has offered.
        let nagle_allows = !self.config.nagle || in_flight == 0 || self.close_requested;
        let full = len == self.mss || (len == unsent && nagle_allows) || len == run;
        let half_window = in_flight == 0 && len > 0 && len >= self.max_snd_wnd / 2;
        if full || half_window {
            len
        } else {
            0
        }
    }

    /// Arms the persist timer when data waits, nothing is in flight and the window forbids
    /// sending (a zero window, or one too small to avoid silly windows).
    fn update_persist(&mut self, now: Instant) {
        let waiting = self.snd_nxt < self.data_end()
            && self.snd_nxt == self.snd_una
            && self.sendable_len() == 0;
        let held = self.held && self.snd_wnd == 0 && self.snd_una != self.snd_max;
        let blocked = self.state.may_have_data_unacked() && (waiting || held);
        if !blocked {
            if self.snd_wnd > 0 {
                self.persist = None;
            }
            return;
        }
        if self.persist.is_none() {
            let interval = self.rto.rto().min(self.config.max_persist);
            self.persist = Some(Persist {
                deadline: now + interval,
                interval,
            });
            if self.snd_una == self.snd_max {
                self.rtx_deadline = None;
            }
        }
    }

    /// `poll_transmit` with the ECN codepoint the segment's IP header carries
    /// (`Ipv4Repr::ECT0` for new data once ECN is agreed).
    pub fn poll_transmit_ecn(&mut self, now: Instant) -> Option<(TcpRepr, u8)> {
        let seg = self.poll_transmit(now)?;
        Some((seg, self.take_sent_codepoint()))
    }

    pub fn poll_transmit(&mut self, now: Instant) -> Option<TcpRepr> {
        self.sent_ect = false;
        if let Some((seq, ack, with_ack)) = self.reset.take() {
            let flags = TcpFlags {
                rst: true,
                ack: with_ack,
                ..TcpFlags::default()
            };
            let mut seg = self.segment(now, seq, 0, flags);
            seg.ack = ack;
            seg.window = 0;
            self.stats.segments_sent += 1;
            return Some(seg);
        }
        let Some(seg) = self.next_segment(now) else {
            // Nothing to send: data the application wrote since the last segment arrived may
            // be blocked by a zero window, which only the persist timer can reopen.
            self.update_persist(now);
            return None;
        };
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += u64::from(seg.payload_len);
        if seg.flags.ack {
            self.ack_now = false;
            self.unacked_segments = 0;
            self.delack_deadline = None;
        }
        Some(seg)
    }

    fn next_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        match self.state {
            TcpState::Closed | TcpState::Listen => return None,
            TcpState::SynSent | TcpState::SynReceived => return self.handshake_segment(now),
            _ => {}
        }
        if self.force_send {
            self.force_send = false;
            if let Some(seg) = self.forced_segment(now) {
                return Some(seg);
            }
        }
        if self.retransmit_head {
            self.retransmit_head = false;
            if self.snd_una != self.snd_max {
                let len = self.unsacked_run(self.snd_una).min(self.mss);
                return Some(self.resend(now, self.snd_una, len));
            }
        }
        if self.probe_due {
            self.probe_due = false;
            if let Some(seg) = self.probe_segment(now) {
                return Some(seg);
            }
        }
        let seg = if self.paced_out(now) {
            None
        } else if self.rack_on() && (self.in_recovery || self.recover.is_some()) {
            self.rack_recovery_segment(now)
        } else if self.in_recovery && self.sack_ok {
            self.sack_recovery_segment(now)
        } else {
            self.new_data_segment(now)
        };
        if seg.is_some() {
            return seg;
        }
        if self.ack_now {
            let seq = self.snd_nxt;
            return Some(self.segment(
                now,
                seq,
                0,
                TcpFlags {
                    ack: true,
                    ..TcpFlags::default()
                },
            ));
        }
        None
    }

    /// Sends again up to `len` bytes from `seq`, never beyond what was sent, and moves
    /// HighRxt past them.
    fn resend(&mut self, now: Instant, seq: SeqNumber, len: u32) -> TcpRepr {
        let seg = self.resend_unmarked(now, seq, len);
        let start = self.send_offset(seq);
        let end = self.send_offset(seq + seg.seq_len()).max(start + 1);
        self.scoreboard.on_retransmitted(end);
        seg
    }

    /// `resend` without telling the scoreboard (RFC 6675's rescue leaves HighRxt alone).
    fn resend_unmarked(&mut self, now: Instant, seq: SeqNumber, len: u32) -> TcpRepr {
        let sent_end = if self.snd_max > self.data_end() {
            self.data_end()
        } else {
            self.snd_max
        };
        let len = if sent_end > seq {
            (sent_end - seq).min(len)
        } else {
            0
        };
        self.data_segment(now, seq, len, true)
    }

    /// Bytes from `seq` up to the next SACKed byte (all the rest without SACK).
    fn unsacked_run(&self, seq: SeqNumber) -> u32 {
        let offset = self.send_offset(seq);
        match self.scoreboard.next_sacked(offset) {
            Some(sacked) if self.sack_ok => (sacked - offset).min(u64::from(u32::MAX)) as u32,
            _ => u32::MAX,
        }
    }

    /// RFC 6675 section 5 step (C): while the pipe leaves a segment's room in cwnd, what
    /// `NextSeg` says: a lost hole, new data, or another hole.
    fn sack_recovery_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        let mss = u64::from(self.mss);
        let threshold = u64::from(self.config.dupack_threshold);
        let max = self.send_offset(self.snd_max);
        let pipe = self.scoreboard.pipe(self.una_offset, max, mss, threshold);
        if pipe + mss > u64::from(self.cc.window().cwnd) {
            return None;
        }
        let len = self.sendable_len();
        let fin_due = self.close_requested && self.snd_nxt + len == self.data_end();
        // Rule 4 counts data: a sent FIN rides again on the last data segment.
        let data_sent = self.send_offset(self.snd_max.min(self.data_end()));
        let next = self.scoreboard.next_segment(
            self.una_offset,
            data_sent,
            mss,
            threshold,
            len > 0 || fin_due,
        );
        match next {
            NextSegment::Retransmit { offset, len } => {
                let seq = self.snd_una + (offset - self.una_offset) as u32;
                Some(self.resend(now, seq, len as u32))
            }
            NextSegment::Rescue { offset, len } => {
                self.scoreboard.on_rescued();
                self.stats.rescue_retransmissions += 1;
                let seq = self.snd_una + (offset - self.una_offset) as u32;
                Some(self.resend_unmarked(now, seq, len as u32))
            }
            NextSegment::NewData => self.new_data_segment(now),
            NextSegment::Nothing => None,
        }
    }

    fn handshake_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        if !self.handshake_pending {
            return None;
        }
        self.handshake_pending = false;
        let retransmission = self.snd_max != self.iss;
        if retransmission {
            self.stats.retransmissions += 1;
            self.handshake_retransmissions += 1;
        } else {
            self.timed = Some((self.iss + 1, now));
            self.handshake_first_sent = Some(now);
        }
        self.snd_nxt = self.iss + 1;
        self.snd_max = self.iss + 1;
        self.rtx_deadline.get_or_insert(now + self.rto.rto());
        let syn_ack = self.state == TcpState::SynReceived;
        let mut seg = self.segment(
            now,
            self.iss,
            0,
            TcpFlags {
                syn: true,
                ack: syn_ack,
                ..TcpFlags::default()
            },
        );
        seg.mss = Some(self.config.mss.min(u32::from(u16::MAX)) as u16);
        // A SYN-ACK offers scaling only if the SYN did (RFC 7323 §1.3), and so with SACK
        // (RFC 2018 section 2) and timestamps (RFC 7323 section 3.2).
        if self.config.window_scaling && (!syn_ack || self.peer_offered_scaling) {
            seg.window_scale = Some(self.config.receive_window_shift());
        }
        seg.sack_permitted = self.config.sack && (!syn_ack || self.sack_ok);
        (seg.flags.ece, seg.flags.cwr) = self.ecn_syn_flags(syn_ack);
        if self.config.timestamps && (!syn_ack || self.timestamps_ok) {
            seg.timestamps = Some(self.timestamps.option(now));
        }
        seg.window = self.free_receive_space().min(u32::from(u16::MAX)) as u16;
        if !syn_ack {
            seg.ack = SeqNumber(0);
        }
        Some(seg)
    }

    /// A persist-timer transmission: one byte into a zero window, or a short segment into a
    /// window too small for the silly-window rules.
    fn forced_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        let end = self.data_end();
        let seq = if self.held && self.snd_wnd == 0 {
            // Held: new data if there is any, else the first byte still unacknowledged.
            if self.snd_nxt < end {
                self.snd_nxt
            } else {
                self.snd_una
            }
        } else if self.snd_nxt == self.snd_una {
            self.snd_nxt
        } else {
            return None;
        };
        if seq >= end {
            return None;
        }
        let len = (end - seq).min(self.mss).min(self.snd_wnd.max(1));
        let seg = self.segment(
            now,
            seq,
            len,
            TcpFlags {
                ack: true,
                ..TcpFlags::default()
            },
        );
        if self.snd_wnd == 0 {
            // The probe byte may be dropped: it does not advance snd_nxt, so it is sent again
            // as ordinary data once the window opens.
            self.snd_max = self.snd_max.max(seq + len);
        } else {
            let again = seq < self.snd_max;
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.rtx_deadline.get_or_insert(now + self.rto.rto());
            if self.rack_on() {
                self.rack_on_transmit(now, seq, seq + len, again);
            }
        }
        Some(seg)
    }

    fn new_data_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        if !matches!(
            self.state,
            TcpState::Established
                | TcpState::CloseWait
                | TcpState::FinWait1
                | TcpState::Closing
                | TcpState::LastAck
        ) {
            return None;
        }
        if self.sack_ok && self.snd_nxt < self.snd_max {
            // After a timeout, what the peer SACKed is not sent again.
            let offset = self.send_offset(self.snd_nxt);
            if let Some((_, end)) = self.scoreboard.sacked_range(offset) {
                self.snd_nxt = self.snd_nxt + (end - offset) as u32;
            }
        }
        let len = self.sendable_len();
        let fin_due = self.close_requested && self.snd_nxt + len == self.data_end();
        if len == 0 && !fin_due {
            return None;
        }
        let seq = self.snd_nxt;
        Some(self.data_segment(now, seq, len, seq < self.snd_max))
    }

    /// A data (and possibly FIN) segment starting at `seq`, sent for the first time or again.
    fn data_segment(
        &mut self,
        now: Instant,
        seq: SeqNumber,
        len: u32,
        retransmission: bool,
    ) -> TcpRepr {
        self.rate_on_data_sent(now, len);
        let end = self.data_end();
        // A FIN rides on the segment that ends the data: when it is due, or when it was sent
        // before and this segment is sent again.
        let fin =
            self.close_requested && seq + len == end && (seq == self.snd_nxt || self.fin_sent());
        let mut seg = self.segment(
            now,
            seq,
            len,
            TcpFlags {
                ack: true,
                fin,
                psh: fin,
                ..TcpFlags::default()
            },
        );
        self.ecn_on_send(&mut seg, retransmission);
        let seg_end = seq + seg.seq_len();
        if retransmission {
            self.stats.retransmissions += 1;
            self.timed = None;
            self.rtt_samples.on_retransmission(seg_end);
        } else {
            self.timed.get_or_insert((seg_end, now));
            self.rtt_samples.on_first_transmission(seg_end, now);
        }
        if seq == self.snd_nxt {
            self.snd_nxt = seg_end;
        }
        self.snd_max = self.snd_max.max(seg_end);
        if self.rtx_deadline.is_none() {
            self.rtx_deadline = Some(now + self.rto.rto());
        }
        if self.rack_on() {
            self.rack_on_transmit(now, seq, seg_end, retransmission);
            if retransmission {
                self.undo_on_retransmit(now);
            }
        }
        if fin {
            self.state = match self.state {
                TcpState::Established => TcpState::FinWait1,
                TcpState::CloseWait => TcpState::LastAck,
                state => state,
            };
        }
        seg
    }

    fn segment(
        &mut self,
        now: Instant,
        seq: SeqNumber,
        payload_len: u32,
        flags: TcpFlags,
    ) -> TcpRepr {
        let timestamps = (self.timestamps_ok && !flags.rst).then(|| self.timestamps.option(now));
        let reports = !self.reassembly.is_empty() || self.sack_report.has_dsack();
        let sack = if self.sack_ok && flags.ack && reports {
            // A D-SACK may lie below the cumulative ACK (RFC 2883 §4).
            let (rcv_nxt, received) = (self.rcv_nxt, self.received);
            let to_seq = |offset: u64| rcv_nxt + offset.wrapping_sub(received) as u32;
            let blocks = self.sack_report.blocks(&self.reassembly);
            SackBlocks::new(
                blocks
                    .into_iter()
                    .map(|(start, end)| (to_seq(start), to_seq(end))),
            )
        } else {
            SackBlocks::default()
        };
        if flags.ack {
            self.last_ack_sent = self.rcv_nxt;
        }
        let flags = TcpFlags {
            ece: flags.ece
                || (flags.ack && !flags.syn && !flags.rst && self.ecn_ok && self.ece_pending),
            ..flags
        };
        let mut seg = TcpRepr {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq,
            ack: self.rcv_nxt,
            flags,
            window: self.advertise_window(),
            mss: None,
            window_scale: None,
            sack_permitted: false,
            sack,
            timestamps,
            compaction: None,
            payload_len,
        };
        // The blocks the option space holds: four, or three beside timestamps (as Linux).
        seg.sack = SackBlocks::new(seg.sack_on_wire().iter().copied());
        seg
    }

    /// The window field, applying receiver silly-window avoidance (RFC 1122 §4.2.3.3): the
    /// right edge moves only by at least min(buffer/2, MSS), and never to the left.
    fn advertise_window(&mut self) -> u16 {
        let edge = self.rcv_nxt + self.free_receive_space();
        let threshold = self.mss.min(self.receive_space_limit() / 2);
        if edge.diff(self.rcv_adv) >= i64::from(threshold) || self.rcv_adv < self.rcv_nxt {
            self.rcv_adv = edge.max(self.rcv_nxt);
        }
        let window = self.rcv_adv - self.rcv_nxt;
        self.rcv_wnd = window;
        (window >> self.rcv_shift).min(u32::from(u16::MAX)) as u16
    }
}
