//! Active queue management: the state machines a queue runs to decide what to drop, and the
//! schedulers that pick which queue sends next. Each is sans-IO (the queue's owner passes
//! `now` and the packets); the simulator's WLAN MACs run them as Linux's mac80211 does
//! (`airtcp-sim`'s `wlan::dcf::txq`), its wired links as Linux's qdiscs (`airtcp-sim`'s
//! `aqm`: `codel`, `fq` as FQ-CoDel, `pie`).

pub mod airtime;
pub mod aql;
pub mod codel;
pub mod fq;
pub mod pie;
pub mod red;
