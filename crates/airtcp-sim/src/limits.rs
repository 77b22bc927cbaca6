//! Bounds of a scenario, stated once: the simulator enforces them, and the Python schema
//! reads them through `airtcp._core.limits()`. Each keeps a run's memory predictable, so that
//! an oversized scenario is refused with a message instead of failing an allocation.

/// Flows in a scenario: each needs a client port of its own (`crate::ports`).
pub const MAX_FLOWS: usize = 60_000;

/// Workloads in a scenario: each listens on a server port of its own above the flows'
/// client ports (`crate::ports`).
pub const MAX_WORKLOADS: usize = 64;

/// Nodes in a scenario. Each node with several neighbours that sends keeps a first-hop
/// table of 16 bytes a node (`crate::routing`): 1 MiB each at this bound.
pub const MAX_NODES: usize = 65_536;

/// Stations in one WLAN (with a server each, that is 20002 nodes).
pub const MAX_STATIONS: usize = 10_000;

/// Time-series samples a run may keep: one per TCP flow per sampling instant, 69 bytes each
/// in memory, so about 1.4 GB.
pub const MAX_SERIES_SAMPLES: u64 = 20_000_000;

/// Bytes a time-series sample takes in memory (see `crate::summary::TimeSeries`).
pub const SERIES_SAMPLE_BYTES: u64 = 69;

/// The largest retry limit: dot11ShortRetryLimit and dot11LongRetryLimit are INTEGER
/// (1..255) in the standard's MIB (IEEE 802.11-2020 Annex C).
pub const MAX_RETRY_LIMIT: u32 = 255;

/// The most frames a WLAN's firmware queue may hold (`firmware_queue_frames`): a MAC queue
/// of frames, 136 bytes each beside their packets.
pub const MAX_FIRMWARE_QUEUE_FRAMES: u32 = 65_536;

/// The shortest sampling interval: 1 µs.
pub const MIN_SAMPLE_INTERVAL_NS: u64 = 1_000;

/// Node names become file names (pcap traces) and, in the emulator, namespace names.
pub const MAX_NODE_NAME_LEN: usize = 64;

/// A node name is safe as a file name: ASCII letters, digits, `_`, `-` and `.`, not starting
/// with `.` or `-`, at most [`MAX_NODE_NAME_LEN`] characters.
pub fn is_safe_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphanumeric() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && name.len() <= MAX_NODE_NAME_LEN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_leave_a_directory_are_unsafe() {
        for good in ["sta1", "srv-40", "ap_2.4GHz", "_x"] {
            assert!(is_safe_name(good), "{good}");
        }
        for bad in [
            "",
            "../../escaped",
            "a/b",
            ".hidden",
            "-rf",
            "sp ace",
            "é",
            &"x".repeat(65),
        ] {
            assert!(!is_safe_name(bad), "{bad}");
        }
    }
}
