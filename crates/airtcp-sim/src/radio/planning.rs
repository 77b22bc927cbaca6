//! An AP's channel-access plan on a shared channel (paper 000 §2.2): the AP's radio carries
//! out what its agent plans (`airtcp_proto::agent::AccessPlanner`) as the central DCF does
//! it (`wlan::dcf`, with the rules both share in `wlan::ap_plan`), and tells the agent what
//! it perceived of the channel.
//!
//! - **Two queues.** The agent classifies each packet into the AP's data or ACK queue; the
//!   two share the WLAN's queue limit unless the agent gives the ACK queue its own.
//! - **A plan at each new channel access**: when the radio backs off after its own exchange
//!   (acknowledged or given up), and when a frame changes the head of its queues (the first
//!   frame, or the first ACK) while it has no exchange under way.
//! - **Backoff 0**: the radio's backoff is set to no slots, so it transmits once its medium
//!   has been idle for its IFS: DIFS (with EDCA, its traffic's one AC's AIFS: the agent's
//!   `ac` is that AC), or EIFS after a frame it received in error (IEEE 802.11-2020
//!   §10.3.2.3.7, EIFS − DIFS + AIFS with EDCA, §10.23.2.4), as any of its accesses.
//! - **TXOP** (§10.23.2.9): after the ACK of an access's frame, the next frame of the queue
//!   goes SIFS later, without RTS, if its exchange (`ap_plan::txop_frame_ns`) ends within the
//!   limit counted from the access's first frame; a frame that fails ends the TXOP and backs
//!   off as any failure (its retry count rises, CW doubles: §10.23.2.2 c). The same runs
//!   for any EDCAF with a TXOP limit that does not aggregate (`edca`).
//! - **A-MSDU**: up to `aggregate` frames of the queue in one MAC frame (`ap_plan`), to the
//!   receiver of the first; paper 000 packs ACKs for several stations, so its MSDUs for other
//!   stations ride along and are delivered with it when its receiver decodes it (the central
//!   DCF's rule: all delivered or lost together). Once sent, its retries carry the same MSDUs
//!   (one sequence number: the receiver drops a retry it has, all of it).
//! - **What the radio perceives** (`Perception`): Bianchi's virtual slots as one radio sees
//!   them. A busy period lasts until the medium has been idle for DIFS (AIFS with EDCA;
//!   frames SIFS apart, and a NAV, stay one period); the idle slots after it are counted in the radio's
//!   slot time and reported when the medium next falls busy or the radio accesses it. A busy
//!   period the radio's own access opened is not reported (the central DCF reports none for
//!   the AP's accesses); any other is, when it is over, as a collision if the radio saw a
//!   frame fail in it: a reception that ended in error, a preamble lost to another one, or a
//!   capture of a stronger frame. The radio cannot tell a collision from a frame the noise
//!   corrupted, and does not know of collisions it heard nothing of (two hidden stations
//!   colliding at a third radio); the central DCF knows every transmitter. The events reach
//!   the agent with their times after each call into the channel, and before it plans.

use std::time::Duration;

use airtcp_proto::agent::{AccessPlan, ApQueue, ChannelEvent};

use super::*;
use crate::wlan::ap_plan::{frames_per_access, plan_access, txop_frame_ns};

/// A planning AP's side of its interface: the plan of its next access, and the MSDUs the head
/// MAC frame of each queue carries once it has been sent (its retries carry the same).
#[derive(Debug)]
pub(super) struct Planning {
    plan: AccessPlan,
    in_flight: [usize; 2],
}

impl Planning {
    pub fn new() -> Self {
        Planning {
            plan: AccessPlan::plain(ApQueue::Data),
            in_flight: [1, 1],
        }
    }
}

/// A TXOP under way: when its first frame went on the air, its limit, the frames delivered in
/// it and how long it has lasted (to the last ACK, or to the end of a frame that failed).
#[derive(Clone, Copy, Debug)]
pub(super) struct Txop {
    start: Instant,
    limit_ns: u64,
    delivered: usize,
    busy_ns: u64,
}

impl Txop {
    /// The TXOP is over: a burst if it delivered more than one frame.
    pub fn end(&self, counters: &mut MacCounters) {
        counters.count_txop(self.delivered, self.busy_ns);
    }
}

/// What a planning AP's radio perceived of the channel (module doc), for its agent.
#[derive(Debug, Default)]
pub(super) struct Perception {
    /// The busy period under way.
    busy: Option<BusyPeriod>,
    /// Events not yet handed to the agent, with their times.
    pending: Vec<(Instant, ChannelEvent)>,
}

/// A busy period as the radio sees it: whether its own access opened it, and whether a
/// frame failed in it.
#[derive(Clone, Copy, Debug)]
struct BusyPeriod {
    own: bool,
    frame_failed: bool,
}

impl Perception {
    /// The radio's medium, idle since `since`, fell busy at `at`, by its own access if `own`;
    /// the radio counts idle slots after `ifs_ns` (DIFS, or its AC's AIFS with EDCA).
    pub fn idle_ended(
        &mut self,
        since: Instant,
        at: Instant,
        own: bool,
        (ifs_ns, phy): (u64, &Phy),
    ) {
        let counting = since + Duration::from_nanos(ifs_ns);
        if at < counting {
            return; // idle for less than its IFS: the busy period goes on
        }
        if let Some(busy) = self.busy.filter(|busy| !busy.own) {
            let collision = busy.frame_failed;
            self.pending.push((since, ChannelEvent::Busy { collision }));
        }
        let slots = (at - counting).as_nanos() as u64 / phy.slot_ns;
        self.pending.push((at, ChannelEvent::IdleSlots(slots)));
        self.busy = Some(BusyPeriod {
            own,
            frame_failed: false,
        });
    }

    /// A frame failed at the radio during the busy period.
    pub fn frame_failed(&mut self) {
        if let Some(busy) = &mut self.busy {
            busy.frame_failed = true;
        }
    }
}

impl SharedChannel {
    /// The queue interface `i` serves: the data queue, or at a planning AP the queue of its
    /// plan (the other if that one has emptied).
    pub(super) fn serving(&self, i: u32) -> usize {
        let interface = &self.interfaces[i as usize];
        match &interface.planning {
            None => 0,
            Some(planning) => {
                let queue = planning.plan.queue as usize;
                if interface.queues[queue].is_empty() {
                    1 - queue
                } else {
                    queue
                }
            }
        }
    }

    /// The queue a packet for interface `i` joins: the one its AP's agent names, or the data
    /// queue.
    pub(super) fn classify(&mut self, i: u32, packet: &Packet) -> usize {
        let interface = &mut self.interfaces[i as usize];
        if interface.planning.is_none() {
            return ApQueue::Data as usize;
        }
        let planner = interface
            .agent
            .as_mut()
            .and_then(|s| s.agent.access_planner());
        planner.map_or(ApQueue::Data as usize, |p| {
            p.classify(&packet.repr) as usize
        })
    }

    /// Hands the agent of planning interface `i` what its radio perceived since last time.
    pub(super) fn hand_perception(&mut self, i: u32) {
        let interface = &mut self.interfaces[i as usize];
        let radio = &mut self.radios[interface.radio as usize];
        let Some(perception) = &mut radio.access.perceived else {
            return;
        };
        if perception.pending.is_empty() {
            return;
        }
        let mut planner = interface
            .agent
            .as_mut()
            .and_then(|s| s.agent.access_planner());
        for (at, event) in perception.pending.drain(..) {
            if let Some(planner) = &mut planner {
                planner.on_channel(at, event);
            }
        }
    }

    /// Asks the agent of planning interface `i` for the plan of its next access.
    fn replan(&mut self, i: u32, now: Instant) -> AccessPlan {
        self.hand_perception(i);
        let interface = &mut self.interfaces[i as usize];
        let planner = interface
            .agent
            .as_mut()
            .and_then(|s| s.agent.access_planner());
        let backlog = interface.txqs.as_ref().map_or(0, |t| t.backlog(0));
        let plan = plan_access(planner, now, &interface.queues, backlog);
        interface.planning.as_mut().expect("a planning AP").plan = plan;
        plan
    }

    /// A frame changed the head of planning interface `i`'s queues: the AP plans again,
    /// unless its exchange under way will when it ends; with backoff 0 it contends at once.
    /// Whether that settled the arrival (otherwise it goes as any frame's).
    pub(super) fn planned_arrival(&mut self, i: u32, now: Instant) -> bool {
        let r = self.interfaces[i as usize].radio;
        if self.radios[r as usize].exchange.is_some() {
            return true;
        }
        if !self.replan(i, now).zero_backoff {
            return false;
        }
        let access = &mut self.radios[r as usize].access;
        access.zero();
        if access.idle_since.is_some() {
            self.schedule_access(r, now);
        }
        true
    }

    /// Radio `r`'s exchange of its EDCAF `k` is over: it backs off (the post-backoff if
    /// nothing is queued); a planning AP (one EDCAF) with a frame queued plans its next
    /// access, with backoff 0 if the plan says.
    pub(super) fn back_off(&mut self, r: u32, k: usize, now: Instant) {
        if self.radios[r as usize].access.perceived.is_some() {
            let i = self.radios[r as usize].interfaces[0];
            if self.head_interface(r, 0).is_some() && self.replan(i, now).zero_backoff {
                self.radios[r as usize].access.zero();
                return;
            }
        }
        self.radios[r as usize].access.draw(k);
    }

    /// What an access of interface `i` sends at `now`: the queue, the frames its MAC frame
    /// carries, and the TXOP it opens; a planning AP's access is counted.
    pub(super) fn access_selection(
        &mut self,
        i: u32,
        now: Instant,
    ) -> (usize, usize, Option<Txop>) {
        let interface = &self.interfaces[i as usize];
        let Some(planning) = &interface.planning else {
            // an EDCAF with a TXOP limit: further frames SIFS apart (an A-MPDU is shortened
            // to fit instead, `aggregation`)
            let edcaf =
                &self.radios[interface.radio as usize].access.edcafs[usize::from(interface.edcaf)];
            let txop = (edcaf.txop_ns > 0 && !self.aggregates(i)).then_some(Txop {
                start: now,
                limit_ns: edcaf.txop_ns,
                delivered: 0,
                busy_ns: 0,
            });
            return (ApQueue::Data as usize, 1, txop);
        };
        let queue = self.serving(i);
        let queued = &interface.queues[queue];
        let msdus = if queued.front().is_some_and(|head| head.transmitted) {
            planning.in_flight[queue]
        } else {
            frames_per_access(&planning.plan, queued.len())
        };
        let txop = planning
            .plan
            .txop_ns
            .filter(|_| msdus == 1)
            .map(|limit_ns| Txop {
                start: now,
                limit_ns,
                delivered: 0,
                busy_ns: 0,
            });
        let zero_backoff = self.radios[interface.radio as usize].access.edcafs[0].zero_backoff;
        let counters = &mut self.wlans[interface.wlan as usize].counters;
        counters.count_ap_access(queue == ApQueue::Ack as usize, zero_backoff);
        (queue, msdus, txop)
    }

    /// The data frame of radio `r`'s exchange goes on the air at `now` for `airtime_ns`:
    /// a planning AP remembers what its head frame carries, and its TXOP how long it lasts.
    pub(super) fn data_sent(&mut self, r: u32, now: Instant, airtime_ns: u64, first: bool) {
        let delta = self.phy.propagation_ns;
        let Some(exchange) = &mut self.radios[r as usize].exchange else {
            return;
        };
        if let Some(txop) = &mut exchange.txop {
            txop.busy_ns = (now - txop.start).as_nanos() as u64 + airtime_ns + delta;
        }
        let interface = &mut self.interfaces[exchange.interface as usize];
        if let (Some(planning), true) = (&mut interface.planning, first) {
            planning.in_flight[exchange.queue] = exchange.msdus;
        }
    }

    /// The ACK of a frame of a TXOP reached radio `r` at `at`: the next frame of the queue
    /// goes SIFS later if its exchange fits in the TXOP. Whether it does; otherwise the TXOP
    /// is over and counted.
    pub(super) fn continue_txop(
        &mut self,
        r: u32,
        done: &Exchange,
        mut txop: Txop,
        at: Instant,
        out: &mut RadioActions,
    ) -> bool {
        txop.delivered += 1;
        txop.busy_ns = (at - txop.start).as_nanos() as u64;
        let (i, queue) = (done.interface, done.queue);
        let w = self.interfaces[i as usize].wlan as usize;
        if !self.interfaces[i as usize].queues[queue].is_empty() {
            // The rate is chosen before the fit is known: a rate control asked for a frame
            // that then waits for the next access is asked again then.
            let (mut next, bytes) = self.open_exchange(r, i, (queue, 1), at);
            let phy = &self.wlans[w].phy;
            let data_ns = phy.airtime_ns(bytes, next.rate_bps);
            let ack_ns = phy.airtime_ns(FRAME_ACK_BYTES, phy.control_rate_bps(next.rate_bps));
            if txop.busy_ns + txop_frame_ns(phy, data_ns, ack_ns) <= txop.limit_ns {
                next.rts = false;
                next.continues_txop = true;
                next.txop = Some(txop);
                let sifs = Duration::from_nanos(phy.sifs_ns);
                // it fits: on the air SIFS after the ACK (one that waits for the next access
                // is noted then)
                self.note_attempts(i, (queue, 1), at + sifs);
                self.mac_stats(i).count_attempt(next.rate_bps);
                let radio = &mut self.radios[r as usize];
                radio.exchange = Some(next);
                radio.owed = Some(Owed {
                    kind: Kind::Data,
                    to: next.to,
                    wlan: w as u32,
                    rate_bps: next.rate_bps,
                    duration_ns: 0,
                });
                out.timers.push((at + sifs, RadioEvent::Sifs { radio: r }));
                return true;
            }
        }
        txop.end(&mut self.wlans[w].counters);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tests::{pure_ack, tcp_packet, udp_packet};
    use airtcp_proto::agent::AckPriority;
    use airtcp_proto::wifi::Preamble;
    use airtcp_proto::wire::TcpFlags;

    /// An AP and a station 5 m apart on an 802.11b channel, ack_priority on the AP.
    fn channel() -> SharedChannel {
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let fifo = crate::config::Queueing::Fifo;
        let mut channel = super::super::two_node_channel(&phy, None, 7, fifo);
        channel.place_agent(0, 0, Box::new(AckPriority), AccessCategory::Be);
        channel
    }

    #[test]
    fn the_ack_queue_gets_pure_tcp_acks_only() {
        let mut channel = channel();
        let flags = |syn, fin, rst| TcpFlags {
            ack: true,
            syn,
            fin,
            rst,
            ..TcpFlags::default()
        };
        let packets = [
            (
                "a data segment",
                tcp_packet(flags(false, false, false), 1024),
            ),
            ("a SYN-ACK", tcp_packet(flags(true, false, false), 0)),
            ("a FIN", tcp_packet(flags(false, true, false), 0)),
            ("a RST", tcp_packet(flags(false, false, true), 0)),
            ("a datagram", udp_packet(100)),
            ("a pure ACK", pure_ack()),
        ];
        let mut out = RadioActions::default();
        for (_, packet) in packets {
            channel.enqueue(Instant::ZERO, 0, 0, packet, 1, &mut out);
        }
        let queues = &channel.interfaces[0].queues;
        let acks: Vec<_> = queues[ApQueue::Ack as usize]
            .iter()
            .map(|f| f.packet)
            .collect();
        assert_eq!(acks, [pure_ack()]);
        assert_eq!(queues[ApQueue::Data as usize].len(), packets.len() - 1);
        // The first ACK changed the head: the plan serves it, with backoff 0.
        assert_eq!(channel.serving(0), ApQueue::Ack as usize);
        assert!(channel.radios[0].access.edcafs[0].zero_backoff);
    }

    #[test]
    fn a_radio_perceives_idle_slots_and_busy_periods_apart_by_difs() {
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let us = |micros: u64| Instant::from_nanos(micros * 1_000);
        let mut seen = Perception::default();
        let difs = phy.difs_ns();
        // Idle from 0: busy 50 µs (DIFS) + 3 slots + 5 µs later.
        seen.idle_ended(us(0), us(115), false, (difs, &phy));
        // A frame fails; idle again at 1000 µs, busy again SIFS later (the ACK): one period.
        seen.frame_failed();
        seen.idle_ended(us(1000), us(1010), false, (difs, &phy));
        // Idle at 1400 µs; the radio's own access after DIFS and 2 slots.
        seen.idle_ended(us(1400), us(1490), true, (difs, &phy));
        // Its own exchange ends at 2000 µs; another radio's frame comes DIFS later.
        seen.frame_failed();
        seen.idle_ended(us(2000), us(2050), false, (difs, &phy));
        let events: Vec<_> = seen.pending.drain(..).collect();
        assert_eq!(
            events,
            [
                (us(115), ChannelEvent::IdleSlots(3)),
                (us(1400), ChannelEvent::Busy { collision: true }),
                (us(1490), ChannelEvent::IdleSlots(2)),
                (us(2050), ChannelEvent::IdleSlots(0)),
            ]
        );
    }
}
