//! A packet in flight through the simulator: its IPv4/TCP/UDP representation and a unique id
//! for traces. Agents and MACs classify packets from the headers only.

use airtcp_proto::wire::PacketRepr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub uid: u64,
    pub repr: PacketRepr,
}

impl Packet {
    /// IPv4 length in bytes.
    pub fn len(&self) -> u32 {
        self.repr.ip_len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Marks the packet CE (RFC 3168 §5) if its transport is ECN-capable; false if not
    /// (an AQM then drops it).
    pub fn mark_ce(&mut self) -> bool {
        let ect = self.repr.ip.is_ect();
        if ect {
            self.repr.ip.ecn = airtcp_proto::wire::Ipv4Repr::CE;
        }
        ect
    }
}

/// What a queue holds (`queue`, `aqm`): a packet, as on a wired link, or something that
/// carries one, as a WLAN's frame under a qdisc (`wlan::dcf::txq::qdisc`).
pub trait Carries: Copy {
    fn packet(&self) -> &Packet;
    fn packet_mut(&mut self) -> &mut Packet;
}

impl Carries for Packet {
    fn packet(&self) -> &Packet {
        self
    }
    fn packet_mut(&mut self) -> &mut Packet {
        self
    }
}

/// IPv4 address of a node: 10.x.y.z from the node index, so that the simulator can route by
/// address without a lookup table.
pub fn node_address(node: usize) -> [u8; 4] {
    let id = node as u32 + 1;
    [10, (id >> 16) as u8, (id >> 8) as u8, id as u8]
}

pub fn address_node(addr: [u8; 4]) -> Option<usize> {
    if addr[0] != 10 {
        return None;
    }
    let id = (u32::from(addr[1]) << 16) | (u32::from(addr[2]) << 8) | u32::from(addr[3]);
    id.checked_sub(1).map(|n| n as usize)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use airtcp_proto::wire::{Ipv4Repr, TcpFlags, TcpRepr, TransportRepr, UdpRepr};
    use airtcp_proto::SeqNumber;

    pub fn udp_packet(payload_len: u32) -> Packet {
        Packet {
            uid: 0,
            repr: PacketRepr {
                ip: Ipv4Repr {
                    src: node_address(0),
                    dst: node_address(1),
                    ttl: 64,
                    dscp: 0,
                    ecn: 0,
                },
                transport: TransportRepr::Udp(UdpRepr {
                    src_port: 1,
                    dst_port: 2,
                    payload_len,
                }),
            },
        }
    }

    /// A UDP packet of flow `port` (its source port) with `len` bytes of payload.
    pub fn udp_from(port: u16, len: u32) -> Packet {
        let mut packet = udp_packet(len);
        if let TransportRepr::Udp(udp) = &mut packet.repr.transport {
            udp.src_port = port;
        }
        packet
    }

    /// The source port of a UDP packet (`udp_from`'s flow).
    pub fn udp_src_port(packet: &Packet) -> u16 {
        match packet.repr.transport {
            TransportRepr::Udp(udp) => udp.src_port,
            _ => unreachable!("a UDP packet"),
        }
    }

    /// A TCP segment from node 0 to node 1 with these flags and payload.
    pub fn tcp_packet(flags: TcpFlags, payload_len: u32) -> Packet {
        let mut packet = udp_packet(0);
        packet.repr.transport = TransportRepr::Tcp(TcpRepr {
            src_port: 5001,
            dst_port: 1024,
            seq: SeqNumber(1),
            ack: SeqNumber(1),
            flags,
            window: 100,
            mss: None,
            window_scale: None,
            sack_permitted: false,
            sack: Default::default(),
            timestamps: None,
            compaction: None,
            payload_len,
        });
        packet
    }

    /// A pure TCP ACK: the ACK flag alone, no payload.
    pub fn pure_ack() -> Packet {
        let ack = TcpFlags {
            ack: true,
            ..TcpFlags::default()
        };
        tcp_packet(ack, 0)
    }

    #[test]
    fn addresses_round_trip() {
        for node in [0, 1, 254, 255, 70_000] {
            assert_eq!(address_node(node_address(node)), Some(node));
        }
        assert_eq!(address_node([192, 168, 0, 1]), None);
    }
}
