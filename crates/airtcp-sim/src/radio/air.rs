//! Frames on the air of a shared channel: a transmission reaches each radio in range with
//! its gain and a fading draw, where the PHY may lock on it (preamble detection, capture),
//! and ends there, where the frame locked on is decoded or lost by its SINR chunks; a
//! monitor's view of it for captures.

use super::aggregation::{self, data_airtime_ns};
use super::*;

impl SharedChannel {
    /// Puts a frame on the air from radio `r`: every radio in range gets its signal.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transmit(
        &mut self,
        r: u32,
        kind: Kind,
        to: u32,
        wlan: u32,
        (bytes, rate_bps): (u32, u64),
        duration_ns: u64,
        data: Option<DataHeader>,
        now: Instant,
        out: &mut RadioActions,
    ) {
        let phy = &self.wlans[wlan as usize].phy;
        let mpdus = data.map_or(0, |data| data.mpdus);
        let airtime = data_airtime_ns(phy, bytes, rate_bps, mpdus);
        let end = now + Duration::from_nanos(airtime);
        if kind == Kind::Data {
            self.charge_airtime(r, wlan, airtime);
        }
        let serial = self.next_serial;
        self.next_serial = serial.wrapping_add(1);
        let tx = self.transmissions.insert(Transmission {
            kind,
            sender: r,
            to,
            wlan,
            rate_bps,
            start: now,
            duration_ns,
            data,
            overlapped: false,
            reached: None,
            serial,
        });
        // Frames arriving for this radio now meet its own signal: their loss is a
        // collision (both senders chose the same slot), as the central DCF counts it.
        self.overlap_addressed(r, now);
        let radio = &mut self.radios[r as usize];
        radio.sending_until = Some(end);
        radio.antenna.lock = None; // sending aborts a reception
        radio.access.eifs_after = None; // and ends an EIFS: the ACK it made room for is past
        radio.access.freeze(now, &self.phy);
        let power = radio.tx_power_mw;
        self.backoff_changed(r);
        if let Some(moving) = &mut self.moving {
            // The lists may change before the frame ends: keep whom it reached.
            let mut reached = moving.spare.pop().unwrap_or_default();
            reached.extend_from_slice(&self.neighbours[r as usize]);
            let slot = moving.reached.insert(reached);
            self.transmissions.get_mut(tx).expect("just sent").reached = Some(slot);
        }
        // Lent out while the signals arrive, which never changes who hears whom.
        let neighbours = std::mem::take(&mut self.neighbours[r as usize]);
        for neighbour in &neighbours {
            let fading = self.fading_factor();
            let delay = Duration::from_nanos(neighbour.delay_ns);
            let arrival = Arrival {
                tx,
                serial,
                addressed: neighbour.radio == to,
                start: now + delay,
                end: end + delay,
                power_mw: power * neighbour.gain * fading,
            };
            self.arrive(neighbour.radio, arrival, now);
        }
        self.neighbours[r as usize] = neighbours;
        out.timers.push((end, RadioEvent::TxEnd { tx }));
    }

    pub(super) fn fading_factor(&mut self) -> f64 {
        match self.fading {
            FadingConfig::None => 1.0,
            FadingConfig::Rayleigh => Exp1.sample(&mut self.rng),
            FadingConfig::Nakagami { m } => Gamma::new(m, 1.0 / m)
                .expect("m is checked")
                .sample(&mut self.rng),
        }
    }

    /// A signal starts arriving at radio `q`.
    pub(super) fn arrive(&mut self, q: u32, arrival: Arrival, now: Instant) {
        self.mark_overlaps(q, &arrival);
        let mut lost_lock = false;
        let radio = &mut self.radios[q as usize];
        radio.antenna.add(arrival);
        if radio.sending_until.is_none() {
            // The power first: the others' energy, a pass over the antenna's signals, only
            // for a frame strong enough to be detected at all.
            let detect = |frame: &Arrival, antenna: &Antenna| {
                frame.power_mw >= self.preamble_rssi_mw && {
                    let others = antenna.energy_mw(frame.start, Some(frame.serial));
                    frame.power_mw >= self.preamble_snr * (self.noise_mw + others)
                }
            };
            match radio.antenna.lock {
                // A preamble is detected over PREAMBLE_DETECTION: a frame that starts
                // within that time of the one being detected counts against its SNR, and
                // two that start together at 0 dB are both missed (ns-3's
                // `ThresholdPreambleDetectionModel` after `PreambleDetectionDuration`).
                Some(current)
                    if arrival.start < current.start + PREAMBLE_DETECTION
                        && !detect(&current, &radio.antenna) =>
                {
                    radio.antenna.lock = detect(&arrival, &radio.antenna).then_some(arrival);
                    lost_lock = radio.antenna.lock.is_none();
                }
                None => {
                    if detect(&arrival, &radio.antenna) {
                        radio.antenna.lock = Some(arrival);
                    }
                }
                Some(current) => {
                    if self
                        .capture_ratio
                        .is_some_and(|ratio| arrival.power_mw >= current.power_mw * ratio)
                    {
                        radio.antenna.lock = Some(arrival);
                        let wlan = self.transmissions.get(arrival.tx).expect("on the air").wlan;
                        self.wlans[wlan as usize].radio_counters.captures += 1;
                        radio.access.reception_lost();
                    }
                }
            }
        }
        if lost_lock {
            // Two preambles missed together: a response awaited past its timeout is not
            // coming.
            self.radios[q as usize].access.reception_lost();
            self.response_failed(q, now);
        }
        let sensed = arrival.start + Duration::from_nanos(self.cca_time_ns);
        self.refresh(q, now, sensed);
    }

    /// A signal reaches radio `q` while others are on the air there, or while `q` sends:
    /// frames addressed to `q` among them (the new one included) overlap another signal.
    pub(super) fn mark_overlaps(&mut self, q: u32, arrival: &Arrival) {
        // The addressee's own transmission overlaps it too.
        let sending = self.radios[q as usize].sending_until.is_some();
        let others = self.overlap_addressed(q, arrival.start);
        if (sending || others) && arrival.addressed {
            if let Some(t) = self.transmissions.get_mut(arrival.tx) {
                t.overlapped = true;
            }
        }
    }

    /// The frames addressed to radio `q` on the air there at `at` overlap another signal;
    /// whether any signal was on the air there.
    fn overlap_addressed(&mut self, q: u32, at: Instant) -> bool {
        let mut any = false;
        for other in self.radios[q as usize].antenna.on_air(at) {
            any = true;
            if other.addressed {
                let t = self.transmissions.get_mut(other.tx);
                if let Some(t) = t.filter(|t| t.serial == other.serial) {
                    t.overlapped = true;
                }
            }
        }
        any
    }

    /// A transmission ends: at its sender, then at every radio it reached.
    pub(super) fn end_transmission(&mut self, tx: u32, now: Instant, out: &mut RadioActions) {
        let t = self.transmissions.take(tx);
        let s = t.sender;
        let radio = &mut self.radios[s as usize];
        radio.sending_until = None;
        if matches!(t.kind, Kind::Data | Kind::Rts | Kind::BlockAckReq) {
            radio.access.stale();
            let generation = radio.access.generation;
            radio.awaiting = Some(Awaiting {
                kind: match t.kind {
                    Kind::Rts => Kind::Cts,
                    Kind::BlockAckReq => Kind::BlockAck,
                    _ if t.data.is_some_and(|data| data.mpdus > 1) => Kind::BlockAck,
                    _ => Kind::Ack,
                },
                from: t.to,
                expired: false,
                generation,
            });
            let timeout = self.wlans[t.wlan as usize].phy.response_timeout_ns();
            out.timers.push((
                now + Duration::from_nanos(timeout),
                RadioEvent::Timeout {
                    radio: s,
                    generation,
                },
            ));
            self.backoff_changed(s);
        }
        if matches!(t.kind, Kind::Ack | Kind::Cts | Kind::BlockAck) {
            // A response it sent aborted its own reception of the response it awaits.
            self.response_failed(s, now);
        }
        self.refresh(s, now, now);
        let mut at_receiver = None;
        let reached = match (&mut self.moving, t.reached) {
            (Some(moving), Some(slot)) => Some(moving.reached.take(slot)),
            _ => None,
        };
        let count = reached
            .as_ref()
            .map_or(self.neighbours[s as usize].len(), Vec::len);
        for n in 0..count {
            let neighbour = match &reached {
                Some(list) => list[n],
                None => self.neighbours[s as usize][n],
            };
            let at = now + Duration::from_nanos(neighbour.delay_ns);
            if self.capture && neighbour.radio == t.to {
                let power = self.radios[t.to as usize].antenna.power_of(t.serial);
                let decoded = self.signal_ends(neighbour.radio, &t, at, out);
                at_receiver = power.map(|power| (decoded, power));
            } else {
                self.signal_ends(neighbour.radio, &t, at, out);
            }
        }
        if let (Some(moving), Some(mut list)) = (&mut self.moving, reached) {
            list.clear();
            moving.spare.push(list);
        }
        if self.capture {
            let bss = self.wlans[t.wlan as usize].bss;
            if t.data.is_some_and(|data| data.mpdus > 0) {
                let frames = self.air_mpdus(&t, now, at_receiver);
                out.air.extend(frames.into_iter().map(|frame| (bss, frame)));
            } else {
                let frame = self.air_frame(&t, now, at_receiver);
                out.air.push((bss, frame));
            }
        }
    }

    /// Frame `t`, which ended at `end`, as a monitor by its receiver captured it: bad unless
    /// the receiver decoded it, with the power it had there.
    #[cold]
    pub(super) fn air_frame(
        &self,
        t: &Transmission,
        end: Instant,
        at_receiver: Option<(bool, f64)>,
    ) -> AirFrame {
        let node = |radio: u32| self.radios[radio as usize].node;
        let part = &self.wlans[t.wlan as usize];
        let body = match t.kind {
            Kind::Rts => AirBody::Rts {
                transmitter: node(t.sender),
            },
            Kind::Cts => AirBody::Cts,
            Kind::Ack => AirBody::Ack,
            Kind::BlockAck => self.air_block_ack(t.sender, aggregation::response_bytes(part, 2)),
            Kind::BlockAckReq => AirBody::BlockAckReq {
                transmitter: node(t.sender),
                start_sequence: t.data.expect("a BlockAckReq has its header").sequence,
            },
            Kind::Data => {
                let DataHeader {
                    sequence, retry, ..
                } = t.data.expect("data frames have one");
                let ap = self.interfaces[part.first_interface as usize].radio;
                AirBody::Data {
                    transmitter: node(t.sender),
                    ap: node(ap),
                    retry,
                    sequence,
                    msdus: self.carried(t).map(|frame| frame.packet).collect(),
                    ampdu: None,
                }
            }
        };
        AirFrame {
            at: t.start,
            airtime_ns: (end - t.start).as_nanos() as u64,
            rate_bps: t.rate_bps,
            nav_ns: t.duration_ns,
            bad_fcs: !at_receiver.is_some_and(|(decoded, _)| decoded),
            receiver: node(t.to),
            body,
            signal_dbm: at_receiver.map(|(_, power)| (mw_to_dbm(power), self.noise_dbm())),
        }
    }

    /// Transmission `t` ends at radio `q` at `at`; whether `q` decoded it.
    pub(super) fn signal_ends(
        &mut self,
        q: u32,
        t: &Transmission,
        at: Instant,
        out: &mut RadioActions,
    ) -> bool {
        let radio = &mut self.radios[q as usize];
        let locked = radio.antenna.lock.filter(|lock| lock.serial == t.serial);
        let mut decoded = false;
        if let Some(frame) = locked {
            let ok = if t.data.is_some_and(|data| data.mpdus > 0) {
                self.decode_mpdus(q, t, &frame)
            } else {
                let phy = &self.wlans[t.wlan as usize].phy;
                let shape = frame_shape(phy, t.rate_bps);
                let p = radio.antenna.success_probability(
                    &frame,
                    &shape,
                    self.noise_mw,
                    &mut self.success_cache,
                );
                p >= 1.0 || self.rng.random::<f64>() < p
            };
            self.radios[q as usize].antenna.lock = None;
            self.radios[q as usize].antenna.prune(at);
            decoded = ok;
            if ok {
                if q == t.to && matches!(t.kind, Kind::Data | Kind::Rts) {
                    self.heard(t.sender, frame.power_mw);
                }
                self.received(q, t, at, out);
            } else {
                self.radios[q as usize]
                    .access
                    .reception_failed(at, t.rate_bps);
                if q == t.to {
                    self.blame(t, t.overlapped);
                }
                self.response_failed(q, at);
            }
        } else {
            if q == t.to {
                // Not even detected: a collision if other signals were on the air.
                self.blame(t, t.overlapped);
            }
            self.radios[q as usize].antenna.prune(at);
        }
        self.refresh(q, at, at);
        decoded
    }

    /// The MSDUs data frame `t` carries, with their MACs: the head frames of its sender's
    /// exchange, one or an A-MSDU's, queued until the exchange ends.
    pub(super) fn carried(&self, t: &Transmission) -> impl Iterator<Item = &Frame> {
        let (interface, queue, msdus) = self.carried_at(t);
        self.interfaces[interface as usize].queues[queue]
            .iter()
            .take(msdus)
    }

    /// Where those MSDUs are: the sender's interface, its queue and how many.
    pub(super) fn carried_at(&self, t: &Transmission) -> (u32, usize, usize) {
        let exchange = self.radios[t.sender as usize]
            .exchange
            .expect("a data frame's sender has its exchange under way");
        debug_assert_eq!(
            self.interfaces[exchange.interface as usize].queues[exchange.queue]
                .front()
                .map(|frame| frame.sequence),
            t.data.map(|data| data.sequence)
        );
        (exchange.interface, exchange.queue, exchange.msdus)
    }

    /// The addressee of radio `sender`'s exchange decoded its frame at `power_mw`.
    pub(super) fn heard(&mut self, sender: u32, power_mw: f64) {
        if let Some(exchange) = self.radios[sender as usize].exchange {
            let stats = self.mac_stats(exchange.interface);
            stats.received += 1;
            stats.power_sum_mw += power_mw;
        }
    }

    /// Frame `t` failed at its addressee, by a collision or not: the exchange it belongs
    /// to is its sender's (data, RTS) or its addressee's (the ACK or CTS it awaited).
    pub(super) fn blame(&mut self, t: &Transmission, collided: bool) {
        let owner = match t.kind {
            Kind::Data | Kind::Rts | Kind::BlockAckReq => t.sender,
            Kind::Ack | Kind::Cts | Kind::BlockAck => t.to,
        };
        if let Some(exchange) = &mut self.radios[owner as usize].exchange {
            exchange.collided |= collided;
        }
    }
}

/// A frame's PHY header and payload, for its error chunks: DSSS sends its 48-bit PLCP
/// header at 1 Mbit/s after a 144 µs preamble (long), or at 2 Mbit/s after 72 µs (short,
/// above 1 Mbit/s); OFDM its 24-bit SIGNAL at 6 Mbit/s after a 16 µs preamble; HT, VHT and
/// HE the rest of their preamble at 6 Mbit/s, the data at the MCS.
pub(super) fn frame_shape(phy: &Phy, rate_bps: u64) -> FrameShape {
    match phy.modulation {
        Modulation::Dsss(preamble) => {
            let short = preamble == Preamble::Short && rate_bps > 1_000_000;
            let (header_ns, header_rate) = if short {
                (72_000, 2_000_000)
            } else {
                (144_000, 1_000_000)
            };
            FrameShape {
                family: Family::Dsss,
                header_ns,
                header_rate_bps: header_rate,
                payload_ns: header_ns + 48 * 1_000_000_000 / header_rate,
                payload_rate_bps: rate_bps,
            }
        }
        // An HT, VHT or HE PPDU at an MCS: every field after the legacy preamble up to the
        // data (L-SIG, the SIG fields, the training fields) read as 6 Mbit/s BPSK, as ns-3
        // reads them with the SIG modes.
        Modulation::Mcs(setting) if setting.mcs_of(rate_bps).is_some() => FrameShape {
            family: Family::Mcs(setting),
            header_ns: 16_000,
            header_rate_bps: 6_000_000,
            payload_ns: setting.preamble_ns(),
            payload_rate_bps: rate_bps,
        },
        Modulation::Mcs(setting) => FrameShape {
            family: Family::Mcs(setting),
            ..non_ht_ofdm(rate_bps)
        },
        _ => non_ht_ofdm(rate_bps),
    }
}

/// A non-HT OFDM PPDU: its 24-bit SIGNAL at 6 Mbit/s after the 16 µs preamble.
fn non_ht_ofdm(rate_bps: u64) -> FrameShape {
    FrameShape {
        family: Family::Ofdm,
        header_ns: 16_000,
        header_rate_bps: 6_000_000,
        payload_ns: 20_000,
        payload_rate_bps: rate_bps,
    }
}

/// How long a PHY takes to detect a preamble (ns-3's `PreambleDetectionDuration`, 4 µs).
pub(super) const PREAMBLE_DETECTION: Duration = Duration::from_micros(4);
