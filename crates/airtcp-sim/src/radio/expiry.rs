//! The MSDU lifetime and the queue sojourn limit on a channel with geometry, as the central
//! DCF applies them (`wlan::dcf`'s `discard_expired`): an MSDU whose lifetime
//! (`msdu_lifetime_ns`, dot11MaxTransmitMSDULifetime, IEEE 802.11-2020 Annex C: the time
//! after its first transmission attempt after which further attempts are terminated) has
//! passed, or that has waited in its MAC queue longer than the sojourn limit
//! (`queue_max_delay_ns`, ns-3's `WifiMacQueue` MaxDelay), is discarded at the head of its
//! queue when its radio gets an access, also before a retry, instead of being sent.
//!
//! - Queues are FIFO, so what is discarded is a prefix of each queue of the radio's
//!   interfaces; a discarded head frame resets its EDCAF's retry counts and CW.
//! - A numbered MPDU discarded makes its originator owe the recipient a BlockAckReq
//!   (`block_ack_req`), which moves the window past it.
//! - Counted as on the central DCF: `lifetime_drops` and `queue_delay_drops`, split into the
//!   AP's and each station's.
//!
//! Nothing runs without a limit (the default): `SharedChannel::time_limits` is false then.

use super::*;

impl SharedChannel {
    /// Radio `r` got an access at `now`: the frames past their lifetime or sojourn limit at
    /// the heads of its interfaces' queues are discarded (module doc).
    pub(super) fn discard_expired(&mut self, r: u32, now: Instant) {
        for n in 0..self.radios[r as usize].interfaces.len() {
            let i = self.radios[r as usize].interfaces[n];
            if self.discard_expired_of(i, now) {
                self.refill(i, now); // the discards may have emptied its queue (`queueing`)
            }
        }
    }

    /// `discard_expired` for interface `i`; whether it discarded any.
    fn discard_expired_of(&mut self, i: u32, now: Instant) -> bool {
        let interface = &mut self.interfaces[i as usize];
        let part = &mut self.wlans[interface.wlan as usize];
        let limits = (part.params.msdu_lifetime_ns, part.params.queue_max_delay_ns);
        let (mut discarded, mut numbered) = (false, Vec::new());
        for queue in &mut interface.queues {
            while let Some(frame) = queue.front() {
                if !part
                    .counters
                    .count_expired(frame, now, limits, interface.mac)
                {
                    break;
                }
                let frame = queue.pop_front().expect("the head");
                discarded = true;
                if frame.mpdu.numbered() {
                    numbered.push(frame.to);
                }
            }
        }
        if !discarded {
            return false;
        }
        // a new head frame: no retries yet, CW back at its minimum
        let k = usize::from(interface.edcaf);
        let edcaf = &mut self.radios[interface.radio as usize].access.edcafs[k];
        (edcaf.short_retries, edcaf.long_retries) = (0, 0);
        edcaf.cw = edcaf.cw_min;
        for to in numbered {
            self.owe_block_ack_req(i, to);
        }
        true
    }
}
