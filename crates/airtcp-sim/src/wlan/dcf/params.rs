//! The MAC parameters of a BSS: the RTS threshold (dot11RTSThreshold), the retry limits
//! (dot11ShortRetryLimit, dot11LongRetryLimit: IEEE 802.11-2020 §10.3.4.4), the queue
//! limits, the MSDU lifetime (dot11MaxTransmitMSDULifetime) and ns-3's MaxDelay, and which
//! IFS the stations that did not send in a collision wait.

#[derive(Debug)]
pub struct MacParams {
    pub rts_threshold: Option<u32>,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Frames a MAC may hold; at an AP with an agent, in both its queues together.
    pub queue_packets: u32,
    /// At an AP with an agent: a separate limit for its ACK queue, the data queue keeping
    /// `queue_packets`.
    pub ack_queue_packets: Option<u32>,
    /// dot11MaxTransmitMSDULifetime, counted from an MSDU's first transmission attempt;
    /// `None` keeps MSDUs until sent or dropped at the retry limit.
    pub msdu_lifetime_ns: Option<u64>,
    /// A limit on the time an MSDU may wait in a MAC queue from its arrival (ns-3's
    /// `WifiMacQueue` MaxDelay); `None`: no limit.
    pub queue_max_delay_ns: Option<u64>,
    /// Whether the stations that did not send in a collision wait EIFS (their PHY began to
    /// receive a frame that failed) or DIFS (it saw only a busy medium).
    pub eifs_after_collision: bool,
}
