//! Paper 000 §2.2 (b): the AP packs up to K queued ACKs into one MAC frame (an A-MSDU: one
//! MAC header, one MAC ACK, 14-byte subframe headers padded to 4 bytes, 802.11-2020 §9.3.2.2).
//! A collision or error loses all of them. Channel access itself is ordinary DCF.

use super::{AccessPlan, AccessPlanner, Agent, ApQueue, ApView};
use crate::time::Instant;

#[derive(Clone, Copy, Debug)]
pub struct AckAggregation {
    pub max_frames: usize,
}

impl Agent for AckAggregation {
    fn name(&self) -> &'static str {
        "ack_aggregation"
    }
    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        Some(self)
    }
}

impl AccessPlanner for AckAggregation {
    fn plan(&mut self, _now: Instant, view: &ApView) -> AccessPlan {
        let queue = view.ack_first();
        let aggregate = if queue == ApQueue::Ack {
            self.max_frames.max(1)
        } else {
            1
        };
        AccessPlan {
            aggregate,
            ..AccessPlan::plain(queue)
        }
    }
}
