//! Paper 000 §2.2 (c), the evaluated scheme: TCP ACKs in their own queue, served first; an
//! access with an ACK at the head uses backoff counter 0, i.e. transmits right after DIFS.

use super::{AccessPlan, AccessPlanner, Agent, ApQueue, ApView};
use crate::time::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct AckPriority;

impl Agent for AckPriority {
    fn name(&self) -> &'static str {
        "ack_priority"
    }
    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        Some(self)
    }
}

impl AccessPlanner for AckPriority {
    fn plan(&mut self, _now: Instant, view: &ApView) -> AccessPlan {
        let queue = view.ack_first();
        AccessPlan {
            zero_backoff: queue == ApQueue::Ack,
            ..AccessPlan::plain(queue)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_backoff_exactly_when_an_ack_is_at_the_head() {
        let mut agent = AckPriority;
        let plan = agent.plan(
            Instant::ZERO,
            &ApView {
                data_frames: 5,
                ack_frames: 1,
            },
        );
        assert_eq!((plan.queue, plan.zero_backoff), (ApQueue::Ack, true));
        let plan = agent.plan(
            Instant::ZERO,
            &ApView {
                data_frames: 5,
                ack_frames: 0,
            },
        );
        assert_eq!((plan.queue, plan.zero_backoff), (ApQueue::Data, false));
    }
}
