//! Linux mac80211's intermediate queues on a channel with geometry: each MAC of a WLAN that
//! sets `queueing` to `fq_codel` or `fq_codel_airtime` keeps the per-receiver FQ-CoDel tins
//! and the station scheduler of `wlan::dcf::txq` (whose module doc cites Linux), and its
//! queue on the channel plays the driver's hardware queue, refilled as the central DCF
//! refills it: when a frame arrives to an empty one, at each channel access and when a
//! transmission completes (acknowledged or given up), a transmission's worth (an A-MPDU's,
//! or one frame) from each receiver the scheduler picks, until it holds ath9k's depth.
//!
//! - **Airtime**: every data PPDU's airtime is charged to the station at the other end, at
//!   the sender's scheduler and at the receiver's (the AP's, for an upload), collisions and
//!   losses included, as on the central DCF; `station_uplink_airtime_ns` and
//!   `station_downlink_airtime_ns` count it per station.
//! - **A planning AP** (`planning`) keeps its ACK queue below the tins, as on the central
//!   DCF (`wlan::dcf::txq`): the ACKs its agent classifies go straight to it.
//! - **With EDCA** the tins are the interface's AC's: the one AC's, or with several ACs
//!   (`edca`) each AC's interface keeps its own tins and scheduler, and airtime is charged
//!   per AC (as Linux's `sta->airtime[ac]`).

use super::*;
use crate::wlan::dcf::{expected_airtime_ns, Budget, Sizing, Txqs};

impl SharedChannel {
    /// Interface `i`'s driver moves frames from its intermediate queues into its queue on
    /// the channel, if it has them.
    pub(super) fn refill(&mut self, i: u32, now: Instant) {
        let interface = &mut self.interfaces[i as usize];
        let Some(txqs) = &mut interface.txqs else {
            return;
        };
        let part = &mut self.wlans[interface.wlan as usize];
        let mac = interface.mac;
        let (rates, phy) = (&part.mac_rates, &part.phy);
        let aggregation = part.aggregation.as_ref();
        // Frames to and from a station go at its rate (the AP's MAC is 0).
        let budget = |to: u32| match aggregation {
            Some(aggregating) => {
                let station = if mac == 0 { to } else { mac };
                aggregating.budget(rates[station as usize])
            }
            None => Budget::SINGLE,
        };
        let estimate = |frame: &Frame| {
            let station = if mac == 0 { frame.to } else { mac };
            // its one AC is AC_VO only with a TXOP limit of 0 set: counted as any other
            expected_airtime_ns(phy, rates[station as usize], true, frame)
        };
        let sizing = Sizing {
            aggregation: aggregation.map(|a| (a.format(), phy.mac_overhead_bytes)),
            budget: &budget,
            estimate: &estimate,
            siblings: 0..1,
        };
        let fifo = &mut interface.queues[ApQueue::Data as usize];
        let meter = interface.meter.as_deref_mut();
        txqs.refill(now, 0, fifo, &sizing)
            .count(&mut part.counters, meter);
    }

    /// Puts a frame of interface `i` into its intermediate queues, those over their limit
    /// dropped; whether it then has a frame on the channel's queue to contend for.
    pub(super) fn enqueue_txq(&mut self, i: u32, frame: Frame, now: Instant) -> bool {
        let interface = &mut self.interfaces[i as usize];
        let txqs = interface.txqs.as_mut().expect("intermediate queues");
        let part = &mut self.wlans[interface.wlan as usize];
        let meter = interface.meter.as_deref_mut();
        txqs.enqueue(0, frame).count(&mut part.counters, meter);
        if interface.queues[ApQueue::Data as usize].is_empty() {
            self.refill(i, now);
        }
        !self.interfaces[i as usize].queues[ApQueue::Data as usize].is_empty()
    }

    /// Radio `r` put a data PPDU of `airtime_ns` on the air in its exchange, in WLAN `w`: its
    /// airtime is the station's at the other end, at both ends' schedulers.
    pub(super) fn charge_airtime(&mut self, r: u32, w: u32, airtime_ns: u64) {
        let Some(exchange) = self.radios[r as usize].exchange else {
            return;
        };
        let sender = &mut self.interfaces[exchange.interface as usize];
        let (mac, edcaf) = (sender.mac, usize::from(sender.edcaf));
        let Some(to) = sender.queues[exchange.queue].front().map(|frame| frame.to) else {
            return;
        };
        if let Some(txqs) = &mut sender.txqs {
            txqs.charge_station(0, to, airtime_ns);
        }
        let part = &mut self.wlans[w as usize];
        part.counters.count_airtime(mac, to, airtime_ns);
        // with several ACs, the receiver's of the same AC (Linux keeps airtime per AC)
        let receiver = match self.interfaces[(part.first_interface + to) as usize].by_ac {
            Some(by_ac) => by_ac[edcaf],
            None => part.first_interface + to,
        };
        if let Some(txqs) = &mut self.interfaces[receiver as usize].txqs {
            txqs.charge_station(0, mac, airtime_ns);
        }
    }
}

/// The intermediate queues (or qdisc) of MAC `mac`'s interface for AC index `ac` of WLAN
/// `spec` on a channel with geometry, if it keeps them.
pub(super) fn txqs_of(spec: &WlanSpec, mac: u32, ac: u8) -> Option<Txqs> {
    Txqs::new(
        (spec.queueing, spec.driver, spec.qdisc.as_ref()),
        &spec.mac_rates,
        spec.flow_hash_key,
        (4 * mac + u32::from(ac), 1),
    )
}
