//! The ports of simulated flows: servers listen on iperf's port, UDP goes to the discard
//! port, and each flow's client uses a port of its own, from which arriving packets are
//! matched back to their flow.
//!
//! Client ports count up from 1024 and skip the server port, so that no flow count the
//! scenario schema allows ([`crate::limits::MAX_FLOWS`]) can reuse a port or collide with a
//! server (flow 3977 once got port 5001 and never connected).

/// TCP servers listen here (iperf's default port).
pub const SERVER_PORT: u16 = 5001;
/// UDP sinks (the discard service, RFC 863).
pub const UDP_SINK_PORT: u16 = 9;
pub const FIRST_CLIENT_PORT: u16 = 1024;

/// Workload `k` (`sim::workloads`) listens on this plus `k`: above every bulk flow's client
/// port (at most 1024 + `MAX_FLOWS`), with room for `MAX_WORKLOADS`; its connections use
/// client ports from `FIRST_CLIENT_PORT`, the server port telling them from bulk flows.
pub const WORKLOAD_SERVER_PORT: u16 = 65_000;
/// Connections a workload has open at once (client ports below the workloads' servers).
pub const MAX_CONNECTIONS: u32 = 60_000;

// The ports cannot meet: bulk flows' clients, workloads' clients, workloads' servers.
const _: () = assert!(
    FIRST_CLIENT_PORT as usize + crate::limits::MAX_FLOWS + 1 < WORKLOAD_SERVER_PORT as usize
        && FIRST_CLIENT_PORT as u32 + MAX_CONNECTIONS <= WORKLOAD_SERVER_PORT as u32
        && WORKLOAD_SERVER_PORT as usize + crate::limits::MAX_WORKLOADS <= 65_536
);

/// The client port of flow `flow`; `None` past the port space.
pub fn client_port(flow: usize) -> Option<u16> {
    let port = usize::from(FIRST_CLIENT_PORT) + flow;
    let port = if port >= usize::from(SERVER_PORT) {
        port + 1
    } else {
        port
    };
    u16::try_from(port).ok()
}

/// The flow whose client uses `port`, if any.
pub fn flow_of_port(port: u16) -> Option<usize> {
    if port < FIRST_CLIENT_PORT || port == SERVER_PORT {
        return None;
    }
    let offset = usize::from(port - FIRST_CLIENT_PORT);
    Some(if port > SERVER_PORT {
        offset - 1
    } else {
        offset
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MAX_FLOWS;

    #[test]
    fn every_allowed_flow_has_its_own_port_distinct_from_the_servers() {
        let mut seen = std::collections::HashSet::new();
        for flow in 0..MAX_FLOWS {
            let port = client_port(flow).expect("fits in 16 bits");
            assert!(port != SERVER_PORT && port != UDP_SINK_PORT, "flow {flow}");
            assert!(seen.insert(port), "flow {flow} reuses port {port}");
            assert_eq!(flow_of_port(port), Some(flow));
        }
        assert_eq!(client_port(3977), Some(5002), "the flow that once got 5001");
        assert_eq!(flow_of_port(SERVER_PORT), None);
        assert_eq!(flow_of_port(UDP_SINK_PORT), None);
    }
}
