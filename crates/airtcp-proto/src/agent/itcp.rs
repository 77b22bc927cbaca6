//! I-TCP (Bakre and Badrinath, "I-TCP: Indirect TCP for Mobile Hosts", ICDCS 1995), one of
//! paper 001's baselines: the base station splits each connection to a mobile host in two.
//! On its cell interface it ends the fixed host's connection as if it were the mobile (a TCP
//! receiver of its own acknowledges the data as it arrives) and carries the bytes on over a
//! connection of its own to the mobile (a TCP sender, as if it were the fixed host). Wireless
//! losses are repaired on the wireless hop and the fixed sender never sees them; end-to-end
//! semantics are lost: the sender's data is acknowledged before the mobile has it. At a
//! handoff the old base station hands both connections, with the bytes not yet delivered, to
//! the new one (`Agent::hand_over` at the handoff's adjust), as I-TCP moves the connection
//! state between mobile support routers (the transfer itself takes no time here).
//!
//! The wireless connection keeps the fixed host's sequence numbers (its initial sequence
//! number is the fixed host's), so the mobile sees the same stream numbered the same way, and
//! an emulator finds each segment's payload by its sequence number. The base station opens
//! the wireless connection when the fixed host's SYN comes, and answers the fixed host once
//! the mobile has: its receive buffer towards the fixed host is then the window the mobile
//! advertised, so the fixed host may have no more in flight than it would end to end. Both
//! connections take the rfc TCP defaults (NewReno, a 64 KiB send buffer towards the mobile;
//! docs/tcp.md) with the MSS, SACK and timestamps the fixed host offered. A connection is
//! split at its SYN; ones already under way when the agent is placed pass untouched.

use core::any::Any;
use std::collections::VecDeque;

use super::connection::ConnectionKey;
use super::{Agent, Direction, InterfaceQueue, Verdict};
use crate::seq::SeqNumber;
use crate::tcp::{cc, TcpConfig, TcpSocket, TcpState};
use crate::time::Instant;
use crate::wire::{Ipv4Repr, PacketRepr, TcpRepr, TransportRepr};

/// The TTL of what the base station sends for the two ends.
const TTL: u8 = 64;

/// One connection split at the base station.
#[derive(Debug)]
struct Split {
    key: ConnectionKey,
    /// The fixed host's SYN, and the TCP settings both sides take from it.
    syn: TcpRepr,
    config: TcpConfig,
    /// Facing the fixed host, as the mobile: receives its data; opened once the mobile has
    /// answered the wireless connection.
    wired: Option<TcpSocket>,
    /// Facing the mobile, as the fixed host: sends the data on.
    wireless: TcpSocket,
    wireless_closed: bool,
    wired_closed: bool,
}

fn socket(config: &TcpConfig, local: u16, remote: u16) -> TcpSocket {
    let cc = cc::by_name("newreno", config).expect("a known controller");
    TcpSocket::new(config.clone(), cc, local, remote)
}

impl Split {
    /// A split for the fixed host's `syn`, on its way to the mobile.
    fn new(key: ConnectionKey, syn: &TcpRepr) -> Split {
        let config = TcpConfig {
            mss: u32::from(syn.mss.unwrap_or(536)),
            sack: syn.sack_permitted,
            timestamps: syn.timestamps.is_some(),
            ..TcpConfig::default()
        };
        let (fixed_port, mobile_port) = (key.sender.1, key.receiver.1);
        let mut wireless = socket(&config, fixed_port, mobile_port);
        wireless.connect(syn.seq);
        Split {
            key,
            syn: *syn,
            config,
            wired: None,
            wireless,
            wireless_closed: false,
            wired_closed: false,
        }
    }

    /// Answers the fixed host once the mobile has answered, with the mobile's window.
    fn open_wired(&mut self, now: Instant) {
        if self.wired.is_some() || self.wireless.state() != TcpState::Established {
            return;
        }
        let config = TcpConfig {
            receive_buffer: self.wireless.send_window().max(self.config.mss),
            ..self.config.clone()
        };
        let mut wired = socket(&config, self.key.receiver.1, self.key.sender.1);
        // Any number will do towards the fixed host, which sends no data the other way.
        wired.listen(SeqNumber(self.syn.seq.0 ^ 0x4954_4350));
        wired.handle_segment(now, &self.syn);
        self.wired = Some(wired);
    }

    /// Moves what the wired side received into the wireless side's send buffer, and the
    /// ends' closes across; returns the bytes moved.
    fn relay(&mut self, now: Instant) -> u64 {
        self.open_wired(now);
        let Some(wired) = &mut self.wired else {
            return 0;
        };
        let moved = self.wireless.send(wired.readable());
        wired.recv(now, moved);
        if wired.peer_closed() && wired.readable() == 0 && !self.wireless_closed {
            self.wireless.close();
            self.wireless_closed = true;
        }
        if self.wireless.peer_closed() && !self.wired_closed {
            wired.close();
            self.wired_closed = true;
        }
        moved
    }

    /// The segments both sides send now, as packets and the way each goes.
    fn transmit(&mut self, now: Instant, outbox: &mut VecDeque<(Direction, PacketRepr)>) {
        let (fixed, mobile) = (self.key.sender.0, self.key.receiver.0);
        let packet = |src, dst, tcp| PacketRepr {
            ip: Ipv4Repr {
                src,
                dst,
                ttl: TTL,
                dscp: 0,
                ecn: 0,
            },
            transport: TransportRepr::Tcp(tcp),
        };
        while let Some(seg) = self.wired.as_mut().and_then(|w| w.poll_transmit(now)) {
            outbox.push_back((Direction::Inbound, packet(mobile, fixed, seg)));
        }
        while let Some(seg) = self.wireless.poll_transmit(now) {
            outbox.push_back((Direction::Outbound, packet(fixed, mobile, seg)));
        }
    }

    fn closed(&self) -> bool {
        let wired = self.wired.as_ref().map(TcpSocket::state);
        wired == Some(TcpState::Closed) && self.wireless.state() == TcpState::Closed
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let wired = self.wired.as_ref().and_then(TcpSocket::poll_timeout);
        [wired, self.wireless.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    fn sockets(&mut self) -> impl Iterator<Item = &mut TcpSocket> {
        self.wired.iter_mut().chain([&mut self.wireless])
    }
}

/// What the agent has done, for the run's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItcpStats {
    pub split_connections: u64,
    /// Bytes received from fixed hosts and passed to the wireless connections.
    pub relayed_bytes: u64,
    pub handed_over: u64,
    pub taken_over: u64,
}

#[derive(Debug, Default)]
pub struct Itcp {
    splits: Vec<Split>,
    outbox: VecDeque<(Direction, PacketRepr)>,
    pub stats: ItcpStats,
}

/// The connections handed from one base station to the next.
type Handover = Vec<Split>;

impl Itcp {
    fn split_of(&mut self, key: ConnectionKey) -> Option<&mut Split> {
        self.splits.iter_mut().find(|split| split.key == key)
    }

    /// Relays and sends what the split at `index` has, and forgets it once both sides are
    /// closed.
    fn drive(&mut self, now: Instant, index: usize) {
        let split = &mut self.splits[index];
        self.stats.relayed_bytes += split.relay(now);
        split.transmit(now, &mut self.outbox);
        if split.closed() {
            self.splits.remove(index);
        }
    }
}

impl Agent for Itcp {
    fn name(&self) -> &'static str {
        "itcp"
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = packet.tcp().copied() else {
            return Verdict::Pass;
        };
        let key = match direction {
            // From the fixed host: data, its SYN, its ACKs of the handshake, its FIN.
            Direction::Outbound => ConnectionKey::of_data(packet, &tcp),
            // From the mobile: its SYN-ACK and ACKs.
            Direction::Inbound => ConnectionKey::of_ack(packet, &tcp),
        };
        let index = match self.splits.iter().position(|split| split.key == key) {
            Some(index) => index,
            None if direction == Direction::Outbound && tcp.flags.syn && !tcp.flags.ack => {
                self.splits.push(Split::new(key, &tcp));
                self.stats.split_connections += 1;
                self.drive(now, self.splits.len() - 1);
                return Verdict::Drop;
            }
            None => return Verdict::Pass,
        };
        let split = &mut self.splits[index];
        match (direction, &mut split.wired) {
            (Direction::Outbound, Some(wired)) => wired.handle_segment(now, &tcp),
            // The fixed host's SYN again, before the mobile answered: the answer will come.
            (Direction::Outbound, None) => {}
            (Direction::Inbound, _) => split.wireless.handle_segment(now, &tcp),
        }
        self.drive(now, index);
        Verdict::Drop
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.splits.iter().filter_map(Split::poll_timeout).min()
    }

    fn handle_timeout(&mut self, now: Instant, _queue: &mut dyn InterfaceQueue) {
        let mut index = 0;
        while index < self.splits.len() {
            let before = self.splits.len();
            for socket in self.splits[index].sockets() {
                if socket.poll_timeout().is_some_and(|t| t <= now) {
                    socket.handle_timeout(now);
                }
            }
            self.drive(now, index);
            if self.splits.len() == before {
                index += 1;
            }
        }
    }

    fn hand_over(&mut self, _now: Instant, mobile: [u8; 4]) -> Option<Box<dyn Any + Send>> {
        let (leaving, staying) = std::mem::take(&mut self.splits)
            .into_iter()
            .partition::<Handover, _>(|split| split.key.receiver.0 == mobile);
        self.splits = staying;
        if leaving.is_empty() {
            return None;
        }
        self.stats.handed_over += leaving.len() as u64;
        Some(Box::new(leaving))
    }

    fn take_over(&mut self, now: Instant, _mobile: [u8; 4], state: Box<dyn Any + Send>) {
        let Ok(arriving) = state.downcast::<Handover>() else {
            return; // another kind's state: nothing I-TCP can use
        };
        self.stats.taken_over += arriving.len() as u64;
        for split in *arriving {
            if self.split_of(split.key).is_none() {
                self.splits.push(split);
                self.drive(now, self.splits.len() - 1);
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("split_connections", self.stats.split_connections),
            ("relayed_bytes", self.stats.relayed_bytes),
            ("handed_over", self.stats.handed_over),
            ("taken_over", self.stats.taken_over),
        ]
    }
}
