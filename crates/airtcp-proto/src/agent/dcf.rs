//! Plain DCF: one FIFO at the AP, no privileges (the baseline of paper 000).

use super::{AccessPlan, ApAgent, ApQueue, ApView};
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Clone, Copy, Debug, Default)]
pub struct PlainDcf;

impl ApAgent for PlainDcf {
    fn name(&self) -> &'static str {
        "dcf"
    }

    fn classify(&self, _packet: &PacketRepr) -> ApQueue {
        ApQueue::Data
    }

    fn plan(&mut self, _now: Instant, _view: &ApView) -> AccessPlan {
        AccessPlan::plain(ApQueue::Data)
    }
}
