//! The counters of one BSS, reported per run (the run summary's WLAN section): attempts,
//! outcomes, drops by cause, channel accesses, TXOPs, aggregation and airtime. The DCF and
//! its submodules count into them; `wlan::ap_plan` holds the helpers that count several
//! at once.

use serde::Serialize;

/// Counters of one BSS, reported per run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MacCounters {
    /// Transmission attempts of data (or RTS) frames.
    pub attempts: u64,
    pub successes: u64,
    /// Channel accesses in which two or more stations transmitted.
    pub collisions: u64,
    /// Attempts that failed (collided or corrupted).
    pub failed_attempts: u64,
    /// Attempts beyond the first for a frame.
    pub retries: u64,
    /// Frames dropped at the retry limit.
    pub retry_drops: u64,
    /// Frames dropped because a MAC queue was full.
    pub queue_drops: u64,
    /// MSDUs discarded because the MSDU lifetime passed since their first transmission
    /// attempt: all, the AP's, and each station's (in the WLAN's station order).
    pub lifetime_drops: u64,
    pub ap_lifetime_drops: u64,
    pub station_lifetime_drops: Vec<u64>,
    /// MSDUs discarded because they waited in a queue longer than `queue_max_delay`: all,
    /// the AP's, and each station's.
    pub queue_delay_drops: u64,
    pub ap_queue_delay_drops: u64,
    pub station_queue_delay_drops: Vec<u64>,
    /// Frames corrupted by the channel's error model.
    pub channel_errors: u64,
    /// Attempts to a station that had left the BSS (no ACK came back).
    pub absent_receiver_failures: u64,
    /// Frames lost because their station had left (its own, while detached with `lose`).
    pub absent_drops: u64,
    /// `contenders[k]`: channel accesses at which k MACs (AP included) held a frame.
    pub contenders: Vec<u64>,
    /// Payload (MSDU) bytes delivered.
    pub delivered_msdu_bytes: u64,
    /// MSDUs delivered (an aggregate counts each of its MSDUs).
    pub delivered_msdus: u64,
    /// AP transmissions (first frames of its accesses), and of those: ACK-headed ones,
    /// ones made with backoff 0, and ones that were both.
    pub ap_accesses: u64,
    pub ap_ack_headed_accesses: u64,
    pub ap_zero_backoff_accesses: u64,
    pub ap_zero_backoff_ack_headed_accesses: u64,
    /// TXOP bursts of two or more frames, their frames, and the longest one.
    pub txop_bursts: u64,
    pub txop_frames: u64,
    pub max_txop_ns: u64,
    /// Aggregated MAC frames and the MSDUs they carried.
    pub aggregates: u64,
    pub aggregated_msdus: u64,
    /// In a BSS that aggregates (`ampdu`): transmissions (A-MPDUs, and lone MPDUs), the
    /// MPDUs they carried, those not acknowledged, and those a recipient held back for
    /// order after a gap.
    pub ampdus: u64,
    pub ampdu_mpdus: u64,
    pub ampdu_failed_mpdus: u64,
    pub reordered_mpdus: u64,
    /// BlockAckReqs answered, and those given up at the retry limit (`block_ack_req`).
    pub block_ack_reqs: u64,
    pub block_ack_reqs_given_up: u64,
    /// With mac80211's queues (`txq`): frames CoDel dropped.
    pub codel_drops: u64,
    /// With a qdisc above the drivers (`aqm`, `txq::qdisc`): frames its AQM dropped (tail
    /// drops count in `queue_drops`).
    pub aqm_drops: u64,
    /// Frames marked CE instead of dropped: by mac80211's CoDel or a qdisc's AQM.
    pub ecn_marks: u64,
    /// With EDCA: EDCAFs that lost an internal collision to a higher AC of their MAC.
    pub internal_collisions: u64,
    /// Airtime of the data PPDUs each station sent, and of those the AP sent it (in the
    /// WLAN's station order; collisions and errors included).
    pub station_uplink_airtime_ns: Vec<u64>,
    pub station_downlink_airtime_ns: Vec<u64>,
}
