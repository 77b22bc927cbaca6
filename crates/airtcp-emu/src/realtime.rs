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

use serde::Serialize;
use thread_priority::{
    set_thread_priority_and_policy, thread_native_id, RealtimeThreadSchedulePolicy, ThreadPriority,
    ThreadSchedulePolicy,
};

/// The engine's `SCHED_FIFO` priority (1-99).
pub const FIFO_PRIORITY: u8 = 10;

/// How the engine thread is scheduled, for the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scheduling {
    /// "fifo" or "normal".
    pub policy: &'static str,
    pub priority: u8,
    /// Why the engine runs in the normal class, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Makes the calling thread the engine's: real-time if `realtime` and permitted.
pub fn schedule_engine(realtime: bool) -> Scheduling {
    // Best effort: without it the engine is later, not wrong.
    let _ = std::fs::write("/proc/thread-self/timerslack_ns", "1");
    let normal = |reason: String| Scheduling {
        policy: "normal",
        priority: 0,
        reason: Some(reason),
    };
    if !realtime {
        return normal("realtime = false".to_string());
    }
    let priority = ThreadPriority::Crossplatform(
        FIFO_PRIORITY
            .try_into()
            .expect("a valid real-time priority"),
    );
    let policy = ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo);
    match set_thread_priority_and_policy(thread_native_id(), priority, policy) {
        Ok(()) => Scheduling {
            policy: "fifo",
            priority: FIFO_PRIORITY,
            reason: None,
        },
        Err(error) => normal(format!("SCHED_FIFO refused: {error:?}")),
    }
}
