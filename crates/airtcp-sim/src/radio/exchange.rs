//! The frame exchanges of a shared channel (IEEE 802.11-2020 §10.3.2.5-§10.3.2.9, §10.3.4.4):
//! an exchange opens with DATA or RTS at the rate its destination's rate choice gives, the
//! addressee answers with ACK or CTS (a CTS only while its NAV is clear), the sender
//! succeeds on the response or fails at its timeout, retrying on the short or long counter;
//! control frames at the highest mandatory rate not above the data frame's (§10.6.6.5.2). A
//! planning AP's exchange may carry an A-MSDU or continue a TXOP (`planning`); in an
//! aggregating WLAN the data frame is an A-MPDU answered by a BlockAck, or a lone MPDU
//! answered by an ACK (`aggregation`).

use super::aggregation::{data_airtime_ns, response_bytes};
use super::*;
use crate::wlan::ap_plan::payload_bytes;

impl SharedChannel {
    /// The backoff of the radio's EDCAF `k` ended: it sends its head frame (a planning AP,
    /// what its plan says), or the RTS for it.
    pub(super) fn start_exchange(
        &mut self,
        r: u32,
        k: usize,
        now: Instant,
        out: &mut RadioActions,
    ) {
        let i = self.head_interface(r, k).expect("a frame is queued");
        if self.owes_block_ack_req(i) {
            self.send_block_ack_req(r, i, now, out); // ahead of data
            return;
        }
        self.refill(i, now); // at each channel access (`queueing`)
        let (queue, msdus, txop) = self.access_selection(i, now);
        let (exchange, bytes) = if self.aggregates(i) {
            self.open_ampdu_exchange(r, i, now)
        } else {
            self.note_attempts(i, (queue, msdus), now);
            self.open_exchange(r, i, (queue, msdus), now)
        };
        let w = self.interfaces[i as usize].wlan;
        self.mac_stats(i).count_attempt(exchange.rate_bps);
        let part = &mut self.wlans[w as usize];
        part.counters.attempts += 1;
        let phy = &part.phy;
        let control = phy.control_rate_bps(exchange.rate_bps);
        let ack_ns = phy.airtime_ns(response_bytes(part, exchange.mpdus), control);
        let (rts, to, rate_bps) = (exchange.rts, exchange.to, exchange.rate_bps);
        let mpdus = exchange.mpdus;
        self.radios[r as usize].exchange = Some(Exchange { txop, ..exchange });
        if rts {
            let data_ns = data_airtime_ns(phy, bytes, rate_bps, mpdus);
            let cts_ns = phy.airtime_ns(FRAME_CTS_BYTES, control);
            let duration = 3 * phy.sifs_ns + cts_ns + data_ns + ack_ns;
            self.transmit(
                r,
                Kind::Rts,
                to,
                w,
                (FRAME_RTS_BYTES, control),
                duration,
                None,
                now,
                out,
            );
        } else {
            self.send_data(r, now, out);
        }
    }

    /// The `msdus` frames at the head of queue `queue` of interface `i` go on the air at
    /// `at` (an RTS, or the data frame): the MSDU lifetime runs from an MSDU's first attempt
    /// (`expiry`), where its sojourn ends (`QueueMeter`). Nothing to note without either.
    pub(super) fn note_attempts(&mut self, i: u32, (queue, msdus): (usize, usize), at: Instant) {
        let w = self.interfaces[i as usize].wlan;
        let Interface { queues, meter, .. } = &mut self.interfaces[i as usize];
        if self.wlans[w as usize].params.msdu_lifetime_ns.is_some() || meter.is_some() {
            for frame in queues[queue].iter_mut().take(msdus) {
                note_attempt(meter.as_deref_mut(), at, frame);
            }
        }
    }

    /// An exchange of radio `r` for the `msdus` frames at the head of queue `queue` of
    /// interface `i`, at the rate its destination's rate choice gives now, with an RTS if
    /// the data frame is longer than the threshold; and the data frame's bytes. The caller
    /// notes the attempt (`note_attempts`) once it is sure the exchange goes.
    pub(super) fn open_exchange(
        &mut self,
        r: u32,
        i: u32,
        (queue, msdus): (usize, usize),
        now: Instant,
    ) -> (Exchange, u32) {
        let w = self.interfaces[i as usize].wlan;
        let interface = &self.interfaces[i as usize];
        let frames = &interface.queues[queue];
        let frame = *frames.front().expect("head frame");
        let to =
            self.interfaces[(self.wlans[w as usize].first_interface + frame.to) as usize].radio;
        let edcaf = &self.radios[r as usize].access.edcafs[usize::from(interface.edcaf)];
        let attempt = edcaf.short_retries + edcaf.long_retries;
        let part = &self.wlans[w as usize];
        let bytes = part.phy.mac_overhead_bytes + payload_bytes(frames.iter().take(msdus));
        let long = part
            .params
            .rts_threshold
            .is_some_and(|threshold| bytes > threshold);
        let mac = interface.mac;
        let (rate_bps, rate_index) = self.pick_rate(r, to, w, mac, frame.to, now, attempt);
        let exchange = Exchange {
            interface: i,
            queue,
            msdus,
            to,
            rate_bps,
            rate_index,
            mpdus: 0,
            rts: long,
            long,
            cts_received: false,
            collided: false,
            txop: None,
            continues_txop: false,
            block_ack_req: None,
        };
        (exchange, bytes)
    }

    /// Sends the data frame of the radio's exchange.
    pub(super) fn send_data(&mut self, r: u32, now: Instant, out: &mut RadioActions) {
        let exchange = self.radios[r as usize].exchange.expect("an exchange");
        if exchange.mpdus > 0 {
            self.send_mpdus(r, now, out);
            return;
        }
        let interface = &mut self.interfaces[exchange.interface as usize];
        let frames = &mut interface.queues[exchange.queue];
        let head = frames.front_mut().expect("head frame");
        let retry = head.transmitted;
        head.transmitted = true;
        let tid = interface.edcaf;
        let frame = *head;
        let carried = frames.iter().take(exchange.msdus);
        let w = interface.wlan;
        let phy = &self.wlans[w as usize].phy;
        let bytes = phy.mac_overhead_bytes + payload_bytes(carried);
        let ack_ns = phy.airtime_ns(FRAME_ACK_BYTES, phy.control_rate_bps(exchange.rate_bps));
        let duration = phy.sifs_ns + ack_ns;
        if interface.planning.is_some() || exchange.txop.is_some() {
            let airtime = phy.airtime_ns(bytes, exchange.rate_bps);
            self.data_sent(r, now, airtime, !retry);
        }
        let header = DataHeader {
            sequence: frame.sequence,
            retry,
            mpdus: 0,
            tid,
        };
        self.transmit_data(r, &exchange, (w, bytes), duration, header, now, out);
    }

    /// Puts radio `r`'s data frame of `exchange` on the air: `bytes` long in WLAN `w`, its
    /// Duration and header.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transmit_data(
        &mut self,
        r: u32,
        exchange: &Exchange,
        (w, bytes): (u32, u32),
        duration_ns: u64,
        header: DataHeader,
        now: Instant,
        out: &mut RadioActions,
    ) {
        let frame = (bytes, exchange.rate_bps);
        let to = exchange.to;
        self.transmit(
            r,
            Kind::Data,
            to,
            w,
            frame,
            duration_ns,
            Some(header),
            now,
            out,
        );
    }

    pub(super) fn send_owed(&mut self, r: u32, owed: Owed, now: Instant, out: &mut RadioActions) {
        if self.radios[r as usize].sending_until.is_some() {
            // Cannot answer while sending; a data frame after its CTS then fails.
            if owed.kind == Kind::Data {
                self.fail_attempt(r, now);
            }
            return;
        }
        match owed.kind {
            Kind::Data => self.send_data(r, now, out),
            kind => {
                let bytes = match kind {
                    Kind::Cts => FRAME_CTS_BYTES,
                    Kind::BlockAck => response_bytes(&self.wlans[owed.wlan as usize], 2),
                    _ => FRAME_ACK_BYTES,
                };
                self.transmit(
                    r,
                    kind,
                    owed.to,
                    owed.wlan,
                    (bytes, owed.rate_bps),
                    owed.duration_ns,
                    None,
                    now,
                    out,
                );
            }
        }
    }

    /// A reception ended in error at a radio waiting for a response whose timeout passed.
    pub(super) fn response_failed(&mut self, q: u32, at: Instant) {
        if self.radios[q as usize]
            .awaiting
            .is_some_and(|awaiting| awaiting.expired)
        {
            self.fail_attempt(q, at);
        }
    }

    /// Radio `q` decoded frame `t` at `at`; if it was not the response that radio awaits
    /// past its timeout, the attempt has failed (§10.3.2.9).
    pub(super) fn received(
        &mut self,
        q: u32,
        t: &Transmission,
        at: Instant,
        out: &mut RadioActions,
    ) {
        self.take_frame(q, t, at, out);
        self.response_failed(q, at);
    }

    /// What radio `q` does with frame `t` it decoded at `at`.
    fn take_frame(&mut self, q: u32, t: &Transmission, at: Instant, out: &mut RadioActions) {
        let sifs = Duration::from_nanos(self.wlans[t.wlan as usize].phy.sifs_ns);
        let carried = (t.kind == Kind::Data && t.to == q).then(|| self.carried_at(t));
        let radio = &mut self.radios[q as usize];
        radio.access.eifs_after = None;
        if t.to != q {
            let until = at + Duration::from_nanos(t.duration_ns);
            if until > radio.nav_until {
                radio.nav_until = until;
            }
            self.response_failed(q, at);
            return;
        }
        let phy = &self.wlans[t.wlan as usize].phy;
        let control = phy.control_rate_bps(t.rate_bps);
        match t.kind {
            Kind::Data if t.data.is_some_and(|data| data.mpdus > 0) => {
                let owed = self.take_mpdus(q, t, at, out);
                self.radios[q as usize].owed = Some(owed);
                out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
            }
            Kind::Data => {
                let DataHeader {
                    sequence,
                    retry,
                    tid,
                    ..
                } = t.data.expect("data frames have one");
                let from = (t.sender, tid);
                let duplicate = is_duplicate(&mut radio.last_sequence, from, sequence, retry);
                let part = &mut self.wlans[t.wlan as usize];
                if duplicate {
                    part.radio_counters.duplicates += 1;
                } else {
                    // Each MSDU to its own MAC: an A-MSDU of the AP's TCP ACKs rides to the
                    // first one's receiver (docs/radio.md, access planning).
                    let (interface, queue, msdus) = carried.expect("taken above");
                    let frames = &self.interfaces[interface as usize].queues[queue];
                    for frame in frames.iter().take(msdus) {
                        out.deliveries.push((at, part.bss, frame.to, frame.packet));
                    }
                }
                radio.owed = Some(Owed {
                    kind: Kind::Ack,
                    to: t.sender,
                    wlan: t.wlan,
                    rate_bps: control,
                    duration_ns: 0,
                });
                out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
            }
            Kind::BlockAckReq => {
                let owed = self.take_block_ack_req(q, t, at);
                self.radios[q as usize].owed = Some(owed);
                out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
            }
            Kind::Rts => {
                // A CTS only while the NAV is clear (§10.3.2.8).
                if radio.nav_until <= at {
                    let cts_ns = phy.airtime_ns(FRAME_CTS_BYTES, control);
                    radio.owed = Some(Owed {
                        kind: Kind::Cts,
                        to: t.sender,
                        wlan: t.wlan,
                        rate_bps: control,
                        duration_ns: t.duration_ns.saturating_sub(phy.sifs_ns + cts_ns),
                    });
                    out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
                }
            }
            Kind::Cts | Kind::Ack | Kind::BlockAck => {
                let expected = radio
                    .awaiting
                    .is_some_and(|a| a.from == t.sender && a.kind == t.kind);
                if !expected {
                    return;
                }
                radio.awaiting = None;
                if t.kind == Kind::Cts {
                    // The CTS resets the short retry count (§10.3.4.4); the data frame goes
                    // SIFS later.
                    if let Some(exchange) = &mut radio.exchange {
                        let k = usize::from(self.interfaces[exchange.interface as usize].edcaf);
                        radio.access.edcafs[k].short_retries = 0;
                        exchange.cts_received = true;
                        radio.owed = Some(Owed {
                            kind: Kind::Data,
                            to: t.sender,
                            wlan: t.wlan,
                            rate_bps: exchange.rate_bps,
                            duration_ns: 0,
                        });
                        out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
                    }
                } else {
                    self.succeed(q, at, out);
                }
            }
        }
    }

    /// The frames of radio `r`'s exchange were acknowledged at `at`: the next frame of a
    /// TXOP follows, or the radio backs off.
    pub(super) fn succeed(&mut self, r: u32, at: Instant, out: &mut RadioActions) {
        let exchange = self.radios[r as usize]
            .exchange
            .take()
            .expect("an exchange");
        if exchange.block_ack_req.is_some() {
            self.settle_block_ack_req(r, exchange.interface, (true, true), at);
            let k = self.edcaf_of(exchange.interface);
            self.back_off(r, k, at);
            return;
        }
        if exchange.mpdus > 0 {
            self.settle_mpdus(&exchange, true);
        }
        let interface = &mut self.interfaces[exchange.interface as usize];
        let counters = &mut self.wlans[interface.wlan as usize].counters;
        counters.successes += u64::from(!exchange.continues_txop);
        if exchange.mpdus == 0 {
            for _ in 0..exchange.msdus {
                let frame = interface.queues[exchange.queue]
                    .pop_front()
                    .expect("head frame");
                counters.delivered_msdus += 1;
                counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
            }
            counters.count_aggregate(exchange.msdus);
            self.mac_stats(exchange.interface).delivered += exchange.msdus as u64;
        }
        self.refill(exchange.interface, at); // the transmission completed (`queueing`)
        self.report_rate(r, &exchange, at, Some(true), true);
        let k = self.edcaf_of(exchange.interface);
        let edcaf = &mut self.radios[r as usize].access.edcafs[k];
        (edcaf.short_retries, edcaf.long_retries) = (0, 0);
        edcaf.station_retries = 0;
        edcaf.cw = edcaf.cw_min;
        if let Some(txop) = exchange.txop {
            if self.continue_txop(r, &exchange, txop, at, out) {
                return;
            }
        }
        self.back_off(r, k, at); // the post-backoff, or the AP's next plan
    }

    /// Radio `r`'s attempt went unanswered (or its response was lost): retry or drop.
    pub(super) fn fail_attempt(&mut self, r: u32, now: Instant) {
        let radio = &mut self.radios[r as usize];
        radio.awaiting = None;
        // The data frame owed after a CTS goes with the exchange; an ACK or CTS owed to
        // another radio is still sent.
        if radio.owed.is_some_and(|owed| owed.kind == Kind::Data) {
            radio.owed = None;
        }
        let Some(exchange) = radio.exchange.take() else {
            self.refresh(r, now, now);
            return;
        };
        let interface = &self.interfaces[exchange.interface as usize];
        let (w, k) = (interface.wlan as usize, usize::from(interface.edcaf));
        if exchange.block_ack_req.is_some() {
            self.settle_block_ack_req(r, exchange.interface, (true, false), now);
            self.back_off(r, k, now);
            self.refresh(r, now, now);
            return;
        }
        self.mac_stats(exchange.interface).failures += 1;
        let params = &self.wlans[w].params;
        let short_limit = params.short_retry_limit;
        // Sent: the data frame after its CTS, or alone.
        let long = exchange.long && (exchange.cts_received || !exchange.rts);
        let radio = &mut self.radios[r as usize];
        let edcaf = &mut radio.access.edcafs[k];
        let mac_limit = if long {
            edcaf.short_retries = 0;
            edcaf.long_retries += 1;
            edcaf.long_retries >= params.long_retry_limit
        } else {
            edcaf.short_retries += 1;
            edcaf.short_retries >= params.short_retry_limit
        };
        // A rate control whose retry chain ends frames (Minstrel) decides instead, counting
        // attempts as it chose their rates.
        let attempts = edcaf.short_retries + edcaf.long_retries;
        let at_limit = match chain_limit(&radio.rates, exchange.to) {
            Some(limit) => attempts >= limit,
            None => mac_limit,
        };
        let radio_counters = &mut self.wlans[w].radio_counters;
        if exchange.rts && !exchange.cts_received {
            radio_counters.rts_failures += 1;
        } else {
            radio_counters.data_failures += 1;
        }
        let counters = &mut self.wlans[w].counters;
        counters.failed_attempts += 1;
        if exchange.collided {
            counters.collisions += 1;
        } else {
            counters.channel_errors += 1;
        }
        let data_attempted = !exchange.rts || exchange.cts_received;
        if let Some(txop) = exchange.txop {
            txop.end(counters);
        }
        // An A-MPDU's MPDUs count their failures each (an MPDU reaching its limit puts CW
        // back to CWmin, §10.23.2.2); rate control sees each A-MPDU as one frame.
        let aggregated = exchange.mpdus > 0;
        let at_limit = if aggregated {
            self.settle_mpdus(&exchange, false)
        } else {
            at_limit
        };
        let counters = &mut self.wlans[w].counters;
        if at_limit {
            if !aggregated {
                counters.retry_drops += exchange.msdus as u64;
                let queue =
                    &mut self.interfaces[exchange.interface as usize].queues[exchange.queue];
                queue.drain(..exchange.msdus);
            }
            let edcaf = &mut self.radios[r as usize].access.edcafs[k];
            (edcaf.short_retries, edcaf.long_retries) = (0, 0);
            if self.dcf_ns3 {
                ns3_failed_cw(edcaf, short_limit);
            } else {
                edcaf.after_failure(true);
            }
            let outcome = data_attempted.then_some(false);
            self.report_rate(r, &exchange, now, outcome, true);
        } else {
            // an A-MPDU's retries are counted per MPDU as they go again
            counters.retries += u64::from(!aggregated);
            let edcaf = &mut self.radios[r as usize].access.edcafs[k];
            if self.dcf_ns3 {
                ns3_failed_cw(edcaf, short_limit);
            } else {
                edcaf.after_failure(false);
            }
            let outcome = data_attempted.then_some(false);
            self.report_rate(r, &exchange, now, outcome, aggregated);
        }
        self.refill(exchange.interface, now); // the transmission completed (`queueing`)
        self.back_off(r, k, now);
        self.refresh(r, now, now);
    }

    /// Tells the rate control of the exchange's destination how the attempt went.
    pub(super) fn report_rate(
        &mut self,
        r: u32,
        exchange: &Exchange,
        now: Instant,
        acked: Option<bool>,
        done: bool,
    ) {
        let Some(index) = exchange.rate_index else {
            return;
        };
        let radio = &mut self.radios[r as usize];
        let Some((_, RateChoice::Control { control, .. })) =
            radio.rates.iter_mut().find(|(to, _)| *to == exchange.to)
        else {
            return;
        };
        let now_ns = now.as_nanos();
        if let Some(acked) = acked {
            control.handle_attempt(now_ns, index, acked);
        }
        if done {
            control.handle_frame_done(now_ns, acked == Some(true));
        }
    }

    /// The data rate from radio `r` to radio `to` for this attempt (and the rate control's
    /// index of it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pick_rate(
        &mut self,
        r: u32,
        to: u32,
        w: u32,
        mac: u32,
        to_mac: u32,
        now: Instant,
        attempt: u32,
    ) -> (u64, Option<usize>) {
        let part = &self.wlans[w as usize];
        let radio = &mut self.radios[r as usize];
        if !radio.rates.iter().any(|(d, _)| *d == to) {
            let choice = match &part.rate_control {
                Some(name) => {
                    let rates = part.phy.rates().to_vec();
                    let infos = rates
                        .iter()
                        .map(|&rate| RateInfo {
                            rate_bps: rate,
                            exchange_ns: part
                                .phy
                                .airtime_ns(part.phy.mac_overhead_bytes + 1200, rate)
                                + part.phy.sifs_ns
                                + part
                                    .phy
                                    .airtime_ns(FRAME_ACK_BYTES, part.phy.control_rate_bps(rate)),
                        })
                        .collect();
                    let infos: Vec<RateInfo> = infos;
                    let control = airtcp_proto::wifi::rate_control::new_rate_control(
                        name,
                        &infos,
                        radio.seed ^ u64::from(to),
                    )
                    .expect("the name is checked");
                    RateChoice::Control { control, rates }
                }
                None => {
                    // Frames to and from a station go at its rate (the AP's MAC is 0).
                    let station = if mac == 0 { to_mac } else { mac };
                    RateChoice::Fixed(part.mac_rates[station as usize])
                }
            };
            radio.rates.push((to, choice));
        }
        let (_, choice) = radio
            .rates
            .iter_mut()
            .find(|(d, _)| *d == to)
            .expect("made above");
        match choice {
            RateChoice::Fixed(rate) => (*rate, None),
            RateChoice::Control { control, rates } => {
                let index = control.rate_for_attempt(now.as_nanos(), attempt);
                (rates[index], Some(index))
            }
        }
    }
}

/// Whether a data frame of `sequence` from (transmitter radio, TID) `from`, a retry or
/// not, is one received before (§10.3.2.14.3: its cache is per transmitter and TID, as
/// the ACs' frames interleave); it becomes the last received from there.
fn is_duplicate(
    last_sequence: &mut Vec<(u32, u16)>,
    (sender, tid): (u32, u8),
    sequence: u16,
    retry: bool,
) -> bool {
    let from = sender << 2 | u32::from(tid);
    match last_sequence.iter_mut().find(|(known, _)| *known == from) {
        Some(entry) => {
            let duplicate = retry && entry.1 == sequence;
            entry.1 = sequence;
            duplicate
        }
        None => {
            last_sequence.push((from, sequence));
            false
        }
    }
}

/// The attempts the rate control of destination `to` gives a frame, if its chain ends
/// frames.
fn chain_limit(rates: &[(u32, RateChoice)], to: u32) -> Option<u32> {
    rates.iter().find_map(|(dest, choice)| match choice {
        RateChoice::Control { control, .. } if *dest == to => control.attempt_limit(),
        _ => None,
    })
}

/// ns-3 3.44's `Txop::UpdateFailedCw` after a failed attempt: a station retry count, apart
/// from the frame's and not reset when a frame is dropped, sets the CW to
/// 2^count × (CWmin + 1) − 1 (at most CWmax) until it has reached `limit`; the failure after
/// that puts the CW back to CWmin.
pub(super) fn ns3_failed_cw(edcaf: &mut Edcaf, limit: u32) {
    if edcaf.station_retries < limit {
        edcaf.station_retries += 1;
        let cw = (u64::from(edcaf.cw_min) + 1) << edcaf.station_retries.min(32);
        edcaf.cw = (cw - 1).min(u64::from(edcaf.cw_max)) as u32;
    } else {
        edcaf.station_retries = 0;
        edcaf.cw = edcaf.cw_min;
    }
}

#[cfg(test)]
mod tests {
    use super::is_duplicate;

    #[test]
    fn duplicates_are_found_per_transmitter_and_tid() {
        let mut cache = Vec::new();
        // radio 3's BE frame 5 arrives (its ACK lost), then its VO frame 6, then BE's retry
        // of 5: a duplicate, though frame 6 came from the same radio in between
        assert!(!is_duplicate(&mut cache, (3, 1), 5, false));
        assert!(!is_duplicate(&mut cache, (3, 3), 6, false));
        assert!(is_duplicate(&mut cache, (3, 1), 5, true));
        // a retry of a frame not received before, another radio's frame 5, a first copy
        assert!(!is_duplicate(&mut cache, (3, 1), 7, true));
        assert!(!is_duplicate(&mut cache, (4, 1), 7, true));
        assert!(!is_duplicate(&mut cache, (3, 1), 7, false));
    }
}
