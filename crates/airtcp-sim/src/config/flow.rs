//! Flows as a scenario gives them (`flows[]`): endpoints, times, the application (TCP bulk,
//! a TCP workload, UDP CBR, ping) and the TCP settings it changes from its profile.

use std::time::Duration;

use airtcp_proto::tcp::cc::CongestionParams;
use airtcp_proto::tcp::{
    Ecn, LossRecovery, RtoFloor, SlowStart, SynLossWindow, TcpConfig, TcpProfile, ZeroWindow,
};
use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// The DSCP its packets carry, both ways (RFC 2474; a WLAN with EDCA maps it to an AC).
    #[serde(default)]
    pub dscp: u8,
    pub app: AppConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// FTP-like bulk transfer over TCP: unlimited, or `bytes` then close.
    TcpBulk {
        #[serde(default)]
        bytes: Option<u64>,
        #[serde(default = "newreno")]
        congestion_control: String,
        #[serde(default)]
        tcp: TcpOverrides,
    },
    /// Many finite TCP flows (`workload`): sizes drawn from `sizes`, arriving as a Poisson
    /// process whose mean offered rate is `rate_bps`, at most `count` of them, each
    /// a connection of its own (`congestion_control`, `tcp`).
    TcpWorkload {
        sizes: crate::workload::SizeSpec,
        rate_bps: u64,
        #[serde(default)]
        count: Option<u64>,
        #[serde(default = "newreno")]
        congestion_control: String,
        #[serde(default)]
        tcp: TcpOverrides,
    },
    /// UDP constant bit rate.
    UdpCbr { rate_bps: u64, payload_bytes: u32 },
    /// ICMP echo probes, as ping sends them: `count` groups `interval_ns` apart, each a
    /// train of `train` requests back to back (1: ping; 2 or more: packet pairs and trains
    /// for capacity estimates); the destination answers each. `one_way`: the probes are
    /// echo replies, which nobody answers, so that a train has the path to itself (capacity
    /// tools send one-way UDP for the same reason).
    Ping {
        count: u32,
        interval_ns: u64,
        payload_bytes: u32,
        train: u32,
        #[serde(default)]
        one_way: bool,
    },
}

fn newreno() -> String {
    "newreno".into()
}

/// TCP settings a scenario may change; the rest come from the profile.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOverrides {
    pub profile: Option<TcpProfile>,
    pub mss: Option<u32>,
    pub initial_window: Option<u32>,
    pub initial_rto_ns: Option<u64>,
    pub min_rto_ns: Option<u64>,
    pub max_rto_ns: Option<u64>,
    pub rto_floor: Option<RtoFloor>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_timeout_ns: Option<u64>,
    pub ack_every: Option<u32>,
    pub send_buffer: Option<u32>,
    pub receive_buffer: Option<u32>,
    pub receive_autotuning: Option<bool>,
    pub window_scaling: Option<bool>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub nagle: Option<bool>,
    pub time_wait_ns: Option<u64>,
    pub zero_window: Option<ZeroWindow>,
    pub syn_loss_window: Option<SynLossWindow>,
    pub slow_start: Option<SlowStart>,
    pub loss_recovery: Option<LossRecovery>,
    pub ecn: Option<Ecn>,
    pub pacing: Option<bool>,
    pub congestion_params: Option<CongestionParams>,
}

impl TcpOverrides {
    pub fn build(&self) -> TcpConfig {
        let mut c = TcpConfig::profile(self.profile.unwrap_or_default());
        let ns = Duration::from_nanos;
        if let Some(v) = self.mss {
            c.mss = v;
        }
        if self.initial_window.is_some() {
            c.initial_window = self.initial_window;
        }
        if let Some(v) = self.initial_rto_ns {
            c.initial_rto = ns(v);
        }
        if let Some(v) = self.min_rto_ns {
            c.min_rto = ns(v);
        }
        if let Some(v) = self.max_rto_ns {
            c.max_rto = ns(v);
        }
        if let Some(v) = self.rto_floor {
            c.rto_floor = v;
        }
        if let Some(v) = self.delayed_ack {
            c.delayed_ack = v;
        }
        if let Some(v) = self.delayed_ack_timeout_ns {
            c.delayed_ack_timeout = ns(v);
        }
        if let Some(v) = self.ack_every {
            c.ack_every = v;
        }
        if let Some(v) = self.send_buffer {
            c.send_buffer = v;
        }
        if let Some(v) = self.receive_buffer {
            c.receive_buffer = v;
        }
        if let Some(v) = self.receive_autotuning {
            c.receive_autotuning = v;
        }
        if let Some(v) = self.window_scaling {
            c.window_scaling = v;
        }
        if let Some(v) = self.sack {
            c.sack = v;
        }
        if let Some(v) = self.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = self.nagle {
            c.nagle = v;
        }
        if let Some(v) = self.time_wait_ns {
            c.time_wait = ns(v);
        }
        if let Some(v) = self.zero_window {
            c.zero_window = v;
        }
        if let Some(v) = self.syn_loss_window {
            c.syn_loss_window = v;
        }
        if let Some(v) = self.slow_start {
            c.slow_start = v;
        }
        if let Some(v) = self.loss_recovery {
            c.loss_recovery = v;
        }
        if let Some(v) = self.ecn {
            c.ecn = v;
        }
        if let Some(v) = self.pacing {
            c.pacing = v;
        }
        if let Some(v) = &self.congestion_params {
            c.congestion_params = v.clone();
        }
        c
    }
}
