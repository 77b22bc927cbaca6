//! The MSDU lifetime (dot11MaxTransmitMSDULifetime, from an MSDU's first transmission
//! attempt) and the queue's sojourn limit (`queue_max_delay`, from its arrival, ns-3's
//! MaxDelay).

use super::*;

const SECOND: Instant = Instant::from_nanos(1_000_000_000);

fn with_lifetime(mut params: MacParams, lifetime_ms: u64) -> MacParams {
    params.msdu_lifetime_ns = Some(lifetime_ms * 1_000_000);
    params
}

fn with_max_delay(mut params: MacParams, max_delay_ms: u64) -> MacParams {
    params.queue_max_delay_ns = Some(max_delay_ms * 1_000_000);
    params
}

/// `count` frames to `to` from MAC `mac`, queued at `k * spacing_ms`.
fn frames_at(mac: u32, to: u32, count: u64, spacing_ms: u64) -> Vec<(Instant, u32, (Packet, u32))> {
    (0..count)
        .map(|k| {
            (
                Instant::from_nanos(k * spacing_ms * 1_000_000),
                mac,
                (udp_packet(1000), to),
            )
        })
        .collect()
}

#[test]
fn the_msdu_lifetime_runs_from_the_first_attempt_not_from_the_queue() {
    // 30 frames queued at once take about 45 ms to send; each is sent within 10 ms of its
    // first attempt, so none is discarded however long it waited in the queue.
    let mut bss = bss_of(2, with_lifetime(params(None, 7, 4, 100), 10), 0.0, None, 1);
    let starts = drive(&mut bss, frames_at(1, 0, 30, 0), SECOND);
    let c = &bss.counters;
    assert!(starts.last().unwrap().as_nanos() > 30_000_000, "{starts:?}");
    assert_eq!((c.successes, c.lifetime_drops), (30, 0), "{c:?}");
}

#[test]
fn the_queue_sojourn_limit_discards_msdus_at_dequeue_and_never_sends_them() {
    // The same 30 frames with a 10 ms sojourn limit: only those dequeued within 10 ms of
    // their arrival go out and the rest are discarded.
    let mut bss = bss_of(2, with_max_delay(params(None, 7, 4, 100), 10), 0.0, None, 1);
    let starts = drive(&mut bss, frames_at(1, 0, 30, 0), SECOND);
    let c = &bss.counters;
    assert!(
        starts.iter().all(|s| s.as_nanos() <= 10_000_000),
        "{starts:?}"
    );
    assert_eq!(c.successes as usize, starts.len());
    assert_eq!(c.successes + c.queue_delay_drops, 30, "{c:?}");
    assert!(c.queue_delay_drops >= 20, "{c:?}");
    assert_eq!(c.station_queue_delay_drops, vec![c.queue_delay_drops]);
    assert_eq!((c.ap_queue_delay_drops, c.lifetime_drops), (0, 0));
}

#[test]
fn msdus_that_wait_less_than_the_sojourn_limit_are_never_discarded() {
    // One frame every 3 ms: none waits anywhere near 10 ms.
    let mut bss = bss_of(2, with_max_delay(params(None, 7, 4, 100), 10), 0.0, None, 2);
    drive(&mut bss, frames_at(1, 0, 100, 3), SECOND);
    assert_eq!(
        (bss.counters.successes, bss.counters.queue_delay_drops),
        (100, 0)
    );
}

#[test]
fn a_retry_after_the_lifetime_discards_the_msdu() {
    // Every frame is corrupted and retries are almost unlimited: each frame is retried
    // with growing backoffs until an attempt would start 20 ms after its first. The second
    // frame, queued with the first, is first attempted when the first is discarded, more
    // than 20 ms after it arrived, and its own 20 ms run from there.
    let mut bss = bss_of(
        2,
        with_lifetime(params(None, 1000, 1000, 10), 20),
        1.0,
        None,
        3,
    );
    let starts = drive(&mut bss, frames_at(1, 0, 2, 0), SECOND);
    let c = &bss.counters;
    let limit = 20_000_000;
    let (first, second): (Vec<u64>, Vec<u64>) = starts
        .iter()
        .map(|s| s.as_nanos())
        .partition(|&s| s <= limit);
    assert!(first.len() >= 3 && second.len() >= 2, "{starts:?}");
    assert!(second[0] > limit, "{starts:?}");
    assert!(second.iter().all(|&s| s - second[0] <= limit), "{starts:?}");
    assert_eq!(
        (c.lifetime_drops, c.retry_drops, c.successes),
        (2, 0, 0),
        "{c:?}"
    );
}

#[test]
fn the_aps_queues_discard_msdus_past_the_sojourn_limit_and_it_plans_again() {
    // 40 pure ACKs at an AP with ACK priority: its ACK queue drains for longer than the
    // 5 ms limit; the AP's drops are its own, and once its ACK queue is empty it plans
    // again and sends its data frame.
    let mut bss = bss_of(
        2,
        with_max_delay(params(None, 7, 4, 100), 5),
        0.0,
        Some("ack_priority"),
        4,
    );
    let mut arrivals: Vec<_> = (0..40)
        .map(|_| (Instant::ZERO, 0, (pure_ack(), 1)))
        .collect();
    // A data frame still young when the ACK queue's expired frames go.
    arrivals.push((Instant::from_nanos(4_000_000), 0, (udp_packet(1000), 1)));
    drive(&mut bss, arrivals, SECOND);
    let c = &bss.counters;
    assert!(c.ap_queue_delay_drops > 0, "{c:?}");
    assert_eq!(c.queue_delay_drops, c.ap_queue_delay_drops);
    assert_eq!(c.station_queue_delay_drops, vec![0]);
    assert_eq!(c.successes + c.queue_delay_drops, 41, "{c:?}");
    // The ACKs that went out carry fewer bytes than the data frame.
    let data_bytes = u64::from(LLC_SNAP_BYTES + udp_packet(1000).len());
    assert!(c.delivered_msdu_bytes > data_bytes, "{c:?}");
}
