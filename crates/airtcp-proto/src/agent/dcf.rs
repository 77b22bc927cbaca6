//! Plain DCF: one FIFO at the AP, no privileges (the baseline of paper 000).

use super::{AccessPlan, AccessPlanner, Agent, ApQueue, ApView};
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Clone, Copy, Debug, Default)]
pub struct PlainDcf;

impl Agent for PlainDcf {
    fn name(&self) -> &'static str {
        "dcf"
    }
    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        Some(self)
    }
}

impl AccessPlanner for PlainDcf {
    fn classify(&self, _packet: &PacketRepr) -> ApQueue {
        ApQueue::Data
    }

    fn plan(&mut self, _now: Instant, _view: &ApView) -> AccessPlan {
        AccessPlan::plain(ApQueue::Data)
    }
}
