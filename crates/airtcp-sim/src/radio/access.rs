//! One radio's DCF channel access off the fast path (IEEE 802.11-2020 §10.3.4.3): its own
//! view of the medium, its backoff counted in its own idle slots.
//!
//! The radio's medium is idle while its PHY neither sends nor receives, the energy at its
//! antenna is under the CCA threshold and its NAV has run out (the `Medium` decides). Once
//! idle it waits DIFS, or EIFS after a frame it received in error, then counts its backoff a
//! slot at a time; the medium falling busy freezes the count at the slots that had passed.
//! One access event per radio and idle period: a busy medium only bumps the generation that
//! makes the pending event stale. This is what ns-3's `ChannelAccessManager` does per device.
//!
//! EIFS ends with a frame received correctly or with the radio's own next transmission (its
//! purpose, room for the ACK of a frame this radio could not decode, is then past). ns-3
//! 3.44's (`ns3_eifs_ack_ns`) runs from the end of the frame received in error rather than
//! from when the medium falls idle after it, so a busy medium after the error (another
//! signal still on the air) counts towards it, with one EstimatedAckTxTime for every PPDU.
//!
//! With EDCA the radio contends as the EDCAF of its WLAN's one access category: its AIFS
//! instead of DIFS (§10.23.2.4: EIFS − DIFS + AIFS after an error) and that AC's CWmin and
//! CWmax; where the traffic uses several ACs, as four EDCAFs (`Access::edcafs`), each
//! counting its own backoff after its own AIFS in the one view of the medium (`edca`).
//!
//! At an AP whose agent plans its accesses, the backoff may be set to no slots by the plan,
//! and the idle and busy periods are recorded for the agent (`planning::Perception`).

use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;
use rand::Rng;
use std::time::Duration;

use super::planning::Perception;
use crate::rng::Stream;

/// One EDCAF of a radio (the DCF's one, or EDCA's per access category): its IFS, contention
/// window, backoff and retry counts (§10.23.2.2: each EDCAF keeps its own).
#[derive(Debug)]
pub struct Edcaf {
    /// The IFS after which it counts: DIFS, or its AC's AIFS with EDCA.
    pub ifs_ns: u64,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Backoff slots left; `None`: no backoff pending (a frame arriving to a medium idle for
    /// its IFS goes at once).
    pub backoff: Option<u32>,
    pub cw: u32,
    /// The pending backoff was set to 0 by an AP's access plan, not drawn.
    pub zero_backoff: bool,
    pub short_retries: u32,
    pub long_retries: u32,
    /// ns-3 3.44's station retry count, which sets the CW with `DcfModel::Ns3`.
    pub station_retries: u32,
    /// Its AC's TXOP limit with EDCA (0: one frame or A-MPDU an access).
    pub txop_ns: u64,
}

impl Edcaf {
    /// One that counts after `ifs_ns` with a contention window from `cw_min` to `cw_max`.
    pub fn new((ifs_ns, cw_min, cw_max): (u64, u32, u32)) -> Self {
        Edcaf {
            ifs_ns,
            cw_min,
            cw_max,
            backoff: None,
            cw: cw_min,
            zero_backoff: false,
            short_retries: 0,
            long_retries: 0,
            station_retries: 0,
            txop_ns: 0,
        }
    }

    /// An attempt failed: CW doubles, or returns to CWmin once the frame reached its retry
    /// limit (§10.23.2.2).
    pub fn after_failure(&mut self, at_limit: bool) {
        self.cw = if at_limit {
            self.cw_min
        } else {
            (2 * self.cw + 1).min(self.cw_max)
        };
    }
}

/// A radio's view of the medium and its EDCAFs' backoffs counted in it.
#[derive(Debug)]
pub struct Access {
    /// One, or one per access category in `AccessCategory::ALL`'s order (the last, the
    /// highest priority, wins an internal collision).
    pub edcafs: Vec<Edcaf>,
    /// Since when this radio's medium has been idle, while it is.
    pub idle_since: Option<Instant>,
    /// After a frame received in error, the rate of its PPDU: the next IFS is EIFS.
    pub eifs_after: Option<u64>,
    /// When that frame ended (for ns-3's EIFS).
    pub error_end: Instant,
    /// ns-3 3.44's EIFS: from the end of the frame received in error, with this
    /// EstimatedAckTxTime (`WifiPhy::GetAckTxTime`: 304 µs on 802.11b and g).
    pub ns3_eifs_ack_ns: Option<u64>,
    /// Bumped when the pending access event becomes stale.
    pub generation: u32,
    /// When the pending access event fires (the earliest of its EDCAFs').
    pub scheduled: Option<Instant>,
    /// At a planning AP: what the radio perceives of the channel, for its agent.
    pub perceived: Option<Perception>,
    rng: Stream,
}

impl Access {
    /// An access with these EDCAFs, drawing its backoffs from `rng`.
    pub fn new(edcafs: Vec<Edcaf>, rng: Stream) -> Self {
        Access {
            edcafs,
            idle_since: None,
            eifs_after: None,
            error_end: Instant::ZERO,
            ns3_eifs_ack_ns: None,
            generation: 0,
            scheduled: None,
            perceived: None,
            rng,
        }
    }

    /// When an EDCAF with IFS `ifs_ns` starts counting its backoff in an idle period that
    /// began at `since`: its IFS later, or EIFS after a reception error (§10.3.2.3.7; with
    /// EDCA, EIFS − DIFS + AIFS); ns-3's EIFS runs from the end of the frame received in
    /// error, DIFS (AIFS) after the medium falls idle at the earliest.
    pub fn counting_from(&self, since: Instant, phy: &Phy, ifs_ns: u64) -> Instant {
        match self.eifs_after {
            None => since + Duration::from_nanos(ifs_ns),
            Some(rate) => match self.ns3_eifs_ack_ns {
                None => since + Duration::from_nanos(phy.eifs_ns(rate) - phy.difs_ns() + ifs_ns),
                Some(ack_ns) => {
                    let eifs_no_difs = Duration::from_nanos(phy.sifs_ns + ack_ns);
                    since.max(self.error_end + eifs_no_difs) + Duration::from_nanos(ifs_ns)
                }
            },
        }
    }

    /// A frame ended in error at `at` (a frame of `rate_bps`): the next IFS is EIFS.
    pub fn reception_failed(&mut self, at: Instant, rate_bps: u64) {
        self.eifs_after = Some(rate_bps);
        self.error_end = at;
        self.reception_lost();
    }

    /// A frame the PHY was receiving was lost (in error, to a second preamble, or to a
    /// stronger frame it captured instead): a planning AP's agent hears of it.
    pub fn reception_lost(&mut self) {
        if let Some(perception) = &mut self.perceived {
            perception.frame_failed();
        }
    }

    /// EDCAF `k` draws a backoff in [0, CW].
    pub fn draw(&mut self, k: usize) {
        let edcaf = &mut self.edcafs[k];
        edcaf.backoff = Some(self.rng.random_range(0..=edcaf.cw));
        edcaf.zero_backoff = false;
    }

    /// A backoff of no slots, as an AP's access plan sets it (paper 000 §2.2 (c)): the radio
    /// (its one EDCAF) transmits once its IFS has passed.
    pub fn zero(&mut self) {
        self.edcafs[0].backoff = Some(0);
        self.edcafs[0].zero_backoff = true;
    }

    /// The radio's own access ends its idle period at `at`: the EDCAFs that did not access
    /// keep the slots they had left.
    pub fn seize(&mut self, at: Instant, phy: &Phy) {
        let Some(since) = self.idle_since.take() else {
            return;
        };
        if let Some(perception) = &mut self.perceived {
            perception.idle_ended(since, at, true, (self.edcafs[0].ifs_ns, phy));
        }
        if self.edcafs.len() > 1 {
            self.count_slots(since, at, phy);
        }
    }

    /// The medium fell busy at `at`: each backoff keeps the slots not yet counted, and the
    /// pending access event goes stale.
    pub fn freeze(&mut self, at: Instant, phy: &Phy) {
        let Some(since) = self.idle_since.take() else {
            return;
        };
        if let Some(perception) = &mut self.perceived {
            perception.idle_ended(since, at, false, (self.edcafs[0].ifs_ns, phy));
        }
        self.count_slots(since, at, phy);
        self.stale();
    }

    /// Each EDCAF's backoff counts the idle slots past its IFS between `since` and `at`.
    fn count_slots(&mut self, since: Instant, at: Instant, phy: &Phy) {
        for k in 0..self.edcafs.len() {
            let counting_from = self.counting_from(since, phy, self.edcafs[k].ifs_ns);
            let edcaf = &mut self.edcafs[k];
            if let (Some(left), true) = (edcaf.backoff, at > counting_from) {
                let elapsed = (at - counting_from).as_nanos() as u64;
                let counted = (elapsed / phy.slot_ns).min(u64::from(left)) as u32;
                edcaf.backoff = Some(left - counted);
            }
        }
    }

    /// Makes the pending access event stale.
    pub fn stale(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.scheduled = None;
    }

    /// When EDCAF `k` of this idle radio accesses the medium, if it has a backoff running or
    /// a frame to send (`has_frame`): its IFS then the backoff's slots after the medium fell
    /// idle, or once its IFS has passed for a frame without backoff. May be before now.
    pub fn edcaf_time(&self, k: usize, has_frame: bool, phy: &Phy) -> Option<Instant> {
        let since = self.idle_since?;
        let edcaf = &self.edcafs[k];
        let slots = match edcaf.backoff {
            Some(slots) => slots,
            None if has_frame => 0,
            None => return None,
        };
        let from = self.counting_from(since, phy, edcaf.ifs_ns);
        Some(from + Duration::from_nanos(u64::from(slots) * phy.slot_ns))
    }

    /// When this idle radio accesses the medium: the earliest of its EDCAFs' times
    /// (`edcaf_time`, `has_frame(k)` telling whether EDCAF `k` has a frame), not before `now`.
    pub fn access_time(
        &self,
        now: Instant,
        has_frame: impl Fn(usize) -> bool,
        phy: &Phy,
    ) -> Option<Instant> {
        let earliest = (0..self.edcafs.len())
            .filter_map(|k| self.edcaf_time(k, has_frame(k), phy))
            .min()?;
        Some(earliest.max(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, StreamId};
    use airtcp_proto::wifi::Preamble;

    fn us(micros: u64) -> Instant {
        Instant::from_nanos(micros * 1_000)
    }

    #[test]
    fn backoff_counts_idle_slots_after_difs_and_freezes() {
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let mut access = Access::new(
            vec![Edcaf::new((phy.difs_ns(), 31, 1023))],
            stream(
                1,
                StreamId::Radio {
                    channel: 0,
                    radio: 0,
                },
            ),
        );
        access.edcafs[0].backoff = Some(5);
        access.idle_since = Some(us(100));
        // DIFS 50 µs, then five 20 µs slots.
        assert_eq!(access.access_time(us(100), |_| false, &phy), Some(us(250)));
        // Busy at 195 µs: slots ending at 170 and 190 µs were counted, the third was not.
        access.freeze(us(195), &phy);
        assert_eq!(access.edcafs[0].backoff, Some(3));
        assert_eq!(access.idle_since, None);
        assert_eq!(access.access_time(us(300), |_| true, &phy), None, "busy");
        // Busy again within DIFS: nothing counted.
        access.idle_since = Some(us(1000));
        access.freeze(us(1040), &phy);
        assert_eq!(access.edcafs[0].backoff, Some(3));
        // After an error the IFS is EIFS (10 + 56 + 192 + 50 µs after an 11 Mbit/s PPDU).
        access.eifs_after = Some(11_000_000);
        access.idle_since = Some(us(2000));
        assert_eq!(
            access.access_time(us(2000), |_| true, &phy),
            Some(us(2000 + 308 + 60))
        );
        // ns-3's EIFS runs from the end of the frame in error: here 100 µs before the
        // medium fell idle, so SIFS + 304 µs from that end, then DIFS, then the 3 slots.
        access.ns3_eifs_ack_ns = Some(304_000);
        access.reception_failed(us(1900), 11_000_000);
        assert_eq!(
            access.access_time(us(2000), |_| true, &phy),
            Some(us(1900 + 314 + 50 + 60))
        );
        // ... and DIFS alone once that end is further back than SIFS + EstimatedAckTxTime.
        access.reception_failed(us(1600), 11_000_000);
        assert_eq!(
            access.access_time(us(2000), |_| true, &phy),
            Some(us(2000 + 50 + 60))
        );
        access.ns3_eifs_ack_ns = None;
        // No backoff: a frame goes once the IFS has passed, or at once after it.
        access.eifs_after = None;
        access.edcafs[0].backoff = None;
        assert_eq!(access.access_time(us(2010), |_| true, &phy), Some(us(2050)));
        assert_eq!(access.access_time(us(3000), |_| true, &phy), Some(us(3000)));
        assert_eq!(access.access_time(us(3000), |_| false, &phy), None);
        let generation = access.generation;
        access.freeze(us(3000), &phy);
        assert_ne!(access.generation, generation, "the pending event is stale");
    }

    #[test]
    fn with_edca_the_radio_counts_after_its_acs_aifs() {
        // AC_BK's AIFSN 7 on 802.11b: AIFS = 10 + 7·20 = 150 µs where DIFS is 50 µs.
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let aifs = phy.sifs_ns + 7 * phy.slot_ns;
        let rng = stream(
            1,
            StreamId::Radio {
                channel: 0,
                radio: 0,
            },
        );
        let mut access = Access::new(vec![Edcaf::new((aifs, 31, 1023))], rng);
        access.edcafs[0].backoff = Some(2);
        access.idle_since = Some(us(100));
        assert_eq!(
            access.access_time(us(100), |_| false, &phy),
            Some(us(100 + 150 + 40))
        );
        // Busy 10 µs into AIFS's last slot's successor: nothing but the slots past AIFS count.
        access.freeze(us(100 + 150 + 30), &phy);
        assert_eq!(access.edcafs[0].backoff, Some(1));
        // After an error: EIFS - DIFS + AIFS (§10.23.2.4): 10 + 56 + 192 + 150 µs.
        access.eifs_after = Some(11_000_000);
        access.idle_since = Some(us(1000));
        assert_eq!(
            access.access_time(us(1000), |_| true, &phy),
            Some(us(1000 + 408 + 20))
        );
    }
}
