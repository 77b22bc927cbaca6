//! Paper 000 §2.2 (a): after the AP wins the channel with ACKs queued, it sends them back to
//! back, SIFS apart, each with its MAC ACK, within an 802.11e TXOP limit (IEEE 802.11-2020
//! §10.23.2.9). Channel access itself is ordinary DCF.

use super::{AccessPlan, AccessPlanner, Agent, ApQueue, ApView};
use crate::time::Instant;

/// EDCA default TXOP limit of AC_VO for DSSS/HR-DSSS PHYs (802.11-2020 Table 9-155).
pub const DSSS_AC_VO_TXOP_NS: u64 = 3_264_000;
/// EDCA default TXOP limit of AC_VO for OFDM PHYs.
pub const OFDM_AC_VO_TXOP_NS: u64 = 1_504_000;

#[derive(Clone, Copy, Debug)]
pub struct TxopBurst {
    pub txop_ns: u64,
}

impl Agent for TxopBurst {
    fn name(&self) -> &'static str {
        "txop_burst"
    }
    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        Some(self)
    }
}

impl AccessPlanner for TxopBurst {
    fn plan(&mut self, _now: Instant, view: &ApView) -> AccessPlan {
        let queue = view.ack_first();
        let txop_ns = (queue == ApQueue::Ack).then_some(self.txop_ns);
        AccessPlan {
            txop_ns,
            ..AccessPlan::plain(queue)
        }
    }
}
