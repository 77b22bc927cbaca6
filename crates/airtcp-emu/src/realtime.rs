//! The engine thread's scheduling. A thread of the normal class woken by its timer waits
//! for the CPU behind any busy neighbour: measured here with three busy loops on two cores,
//! a timerfd wake-up was 3.9 ms late at the 99.9th percentile (p50 14 µs), against 37 µs
//! under `SCHED_FIFO` (max 115 µs). So the engine asks for `SCHED_FIFO` at a low real-time
//! priority, above every normal thread and below the kernel's own real-time threads (threaded
//! interrupts run at 50), and a timer slack of 1 ns (Linux lets a normal thread's timer
//! fire up to 50 µs late). The engine sleeps whenever nothing is due, so it takes a core
//! only for the work the emulated network needs, and the kernel's real-time throttling
//! (`kernel.sched_rt_runtime_us`, 95 % by default) leaves the rest of a second to others
//! whatever happens. Without the privilege (or with `realtime = false`) it runs in the
//! normal class, later under load but never early.
//!
//! A busy engine gains nothing from the real-time class and loses much: on this kernel a
//! fair-class task starved on its CPU (the kernel's `ksoftirqd`, say) is given 50 ms at a
//! stretch by the deadline server (`fair_server`, 50 ms a second), and an engine busy 95 %
//! of the time was measured stalling 50-60 ms inside its work (wall 60 ms, CPU 10-13 ms)
//! about once a second at 1 Gbit/s: a lag p99 of 47 ms, against 1.65 ms in the normal
//! class. So the engine steps down to the normal class while it is awake more than
//! [`DEMOTE_ABOVE`] of the time and back up below [`PROMOTE_BELOW`] (`duty`), counting the
//! steps down.

use serde::Serialize;
use thread_priority::{
    set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
    RealtimeThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
};

/// The engine's `SCHED_FIFO` priority (1-99).
pub const FIFO_PRIORITY: u8 = 10;

/// The share of a duty window above which a real-time engine steps down, and below which it
/// steps back up.
pub const DEMOTE_ABOVE: f64 = 0.7;
pub const PROMOTE_BELOW: f64 = 0.4;

/// How the engine thread is scheduled, for the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scheduling {
    /// "fifo" or "normal".
    pub policy: &'static str,
    pub priority: u8,
    /// Why the engine runs in the normal class, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Times a real-time engine stepped down to the normal class while busy.
    pub demotions: u64,
}

impl Scheduling {
    /// The normal class, for `reason`.
    pub fn normal(reason: String) -> Scheduling {
        Scheduling {
            policy: "normal",
            priority: 0,
            reason: Some(reason),
            demotions: 0,
        }
    }
}

/// Makes the calling thread the engine's: real-time if `realtime` and permitted.
pub fn schedule_engine(realtime: bool) -> Scheduling {
    // Best effort: without it the engine is later, not wrong.
    let _ = std::fs::write("/proc/thread-self/timerslack_ns", "1");
    let normal = Scheduling::normal;
    if !realtime {
        return normal("realtime = false".to_string());
    }
    match set_realtime(true) {
        Ok(()) => Scheduling {
            policy: "fifo",
            priority: FIFO_PRIORITY,
            reason: None,
            demotions: 0,
        },
        Err(error) => normal(format!("SCHED_FIFO refused: {error}")),
    }
}

/// Puts the calling thread in `SCHED_FIFO` at [`FIFO_PRIORITY`], or back in the normal class.
pub fn set_realtime(realtime: bool) -> Result<(), String> {
    let (priority, policy) = if realtime {
        let priority = FIFO_PRIORITY
            .try_into()
            .expect("a valid real-time priority");
        (
            ThreadPriority::Crossplatform(priority),
            ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo),
        )
    } else {
        (
            ThreadPriority::Crossplatform(0u8.try_into().expect("a valid priority")),
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other),
        )
    };
    set_thread_priority_and_policy(thread_native_id(), priority, policy)
        .map_err(|error| format!("{error:?}"))
}

/// Steps a real-time engine down while it is busy and back up when it is not.
#[derive(Debug)]
pub struct Demotion {
    eligible: bool,
    demoted: bool,
    pub demotions: u64,
}

impl Demotion {
    /// For an engine whose scheduling is `scheduling`.
    pub fn new(scheduling: &Scheduling) -> Self {
        Demotion {
            eligible: scheduling.policy == "fifo",
            demoted: false,
            demotions: 0,
        }
    }

    /// The engine was awake `share` of its last duty window.
    pub fn update(&mut self, share: f64) {
        if !self.eligible {
            return;
        }
        if !self.demoted && share > DEMOTE_ABOVE && set_realtime(false).is_ok() {
            self.demoted = true;
            self.demotions += 1;
        } else if self.demoted && share < PROMOTE_BELOW && set_realtime(true).is_ok() {
            self.demoted = false;
        }
    }
}
