//! No agent: every packet passes untouched. A kind of its own so that a sweep can compare
//! agents with their absence by changing one setting.

use super::Agent;

#[derive(Clone, Copy, Debug, Default)]
pub struct NoAgent;

impl Agent for NoAgent {
    fn name(&self) -> &'static str {
        "none"
    }
}
