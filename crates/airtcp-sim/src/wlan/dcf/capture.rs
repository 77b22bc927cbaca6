//! What a monitor on the BSS's channel would capture: every frame of each exchange (RTS,
//! CTS, data, ACK; an A-MSDU is one data frame; an A-MPDU one record per subframe, then its
//! BlockAck: `ampdu`) from the moment its first bit leaves the
//! transmitter, with its rate, the NAV its Duration field sets (IEEE 802.11-2020 §9.2.5:
//! through the ACK that ends the exchange), the retry bit and sequence number of data
//! frames, and a bad-FCS mark when it collided or the channel corrupted it. While capturing
//! is on the DCF reports them in `Actions::air` (`on_air`); `crate::pcap::wlan` writes them
//! as radiotap records. Stations are named by node, so the writer needs nothing from the BSS.

use std::ops::Range;
use std::time::Duration;

use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;

use super::{Actions, Bss};
use crate::packet::Packet;

/// One frame on the air.
#[derive(Clone, Debug, PartialEq)]
pub struct AirFrame {
    /// When its first bit is sent.
    pub at: Instant,
    /// How long it is on the air (PHY preamble and header included).
    pub airtime_ns: u64,
    pub rate_bps: u64,
    /// The NAV its Duration field sets.
    pub nav_ns: u64,
    /// Collided, or corrupted by the channel's error model.
    pub bad_fcs: bool,
    /// The node it is addressed to.
    pub receiver: usize,
    pub body: AirBody,
    /// On a channel with geometry: its power at the receiver and the noise there, in dBm.
    pub signal_dbm: Option<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AirBody {
    Rts {
        transmitter: usize,
    },
    Cts,
    Ack,
    /// A data frame of one MSDU, or an A-MSDU of several; `ap` is the BSS's AP (its BSSID);
    /// `ampdu`: a subframe of an A-MPDU, its reference number and whether it is the last.
    Data {
        transmitter: usize,
        ap: usize,
        retry: bool,
        sequence: u16,
        msdus: Vec<Packet>,
        ampdu: Option<(u32, bool)>,
    },
    /// A compressed BlockAckReq from `transmitter`: the recipient's window is to start at
    /// `start_sequence`.
    BlockAckReq {
        transmitter: usize,
        start_sequence: u16,
    },
    /// A compressed BlockAck from `transmitter`: bit i of `bitmap` (its first
    /// `bitmap_bytes`) acknowledges sequence number `start_sequence + i`.
    BlockAck {
        transmitter: usize,
        start_sequence: u16,
        bitmap: [u8; 32],
        bitmap_bytes: u8,
    },
}

impl Bss {
    /// Reports every frame put on the air from now on in `Actions::air`.
    pub fn capture_air(&mut self) {
        self.capture = true;
    }

    /// Reports the frame `frame` builds, only while capturing: the DCF's hot path pays one
    /// test of a flag.
    #[inline(always)]
    pub(super) fn on_air(&self, actions: &mut Actions, frame: impl FnOnce(&Bss) -> AirFrame) {
        if self.capture {
            actions.air.push(frame(self));
        }
    }

    /// The PHY of frames between MACs `a` and `b` (`Bss::use_station_phys`).
    fn phy_between(&self, a: u32, b: u32) -> &Phy {
        super::link_phy(&self.phy, &self.link_phys, a, b)
    }

    /// The NAV of an RTS for a data frame of `payload` bytes sent with `phy`: through the
    /// data frame's ACK.
    fn rts_nav_ns(phy: &Phy, payload: u32) -> u64 {
        3 * phy.sifs_ns + phy.cts_airtime_ns() + phy.data_airtime_ns(payload) + phy.ack_airtime_ns()
    }

    /// An RTS from EDCAF `edcaf` at `at` for its head frame of `queue` (`payload` bytes).
    #[cold]
    pub(super) fn rts_frame(
        &self,
        at: Instant,
        edcaf: u32,
        queue: usize,
        payload: u32,
        collided: bool,
    ) -> AirFrame {
        let station = &self.edcafs[edcaf as usize];
        let (mac, to) = (station.mac, station.queues[queue][0].to);
        let phy = self.phy_between(mac, to);
        AirFrame {
            at,
            airtime_ns: phy.rts_airtime_ns(),
            rate_bps: phy.basic_rate_bps,
            nav_ns: Self::rts_nav_ns(phy, payload),
            bad_fcs: collided,
            receiver: self.node(to),
            body: AirBody::Rts {
                transmitter: self.node(mac),
            },
            signal_dbm: None,
        }
    }

    /// The CTS answering an RTS EDCAF `edcaf` sent at `rts_at` for `payload` bytes to `to`.
    #[cold]
    pub(super) fn cts_frame(&self, rts_at: Instant, edcaf: u32, to: u32, payload: u32) -> AirFrame {
        let mac = self.edcafs[edcaf as usize].mac;
        let phy = self.phy_between(mac, to);
        let after_rts = phy.rts_airtime_ns() + phy.propagation_ns + phy.sifs_ns;
        AirFrame {
            at: rts_at + Duration::from_nanos(after_rts),
            airtime_ns: phy.cts_airtime_ns(),
            rate_bps: phy.basic_rate_bps,
            nav_ns: Self::rts_nav_ns(phy, payload) - phy.sifs_ns - phy.cts_airtime_ns(),
            bad_fcs: false,
            receiver: self.node(mac),
            body: AirBody::Cts,
            signal_dbm: None,
        }
    }

    /// A data frame from EDCAF `edcaf` at `at` carrying the frames `carried` of `queue`.
    #[cold]
    pub(super) fn data_frame(
        &self,
        at: Instant,
        edcaf: u32,
        queue: usize,
        carried: Range<usize>,
        bad_fcs: bool,
    ) -> AirFrame {
        let mac = self.edcafs[edcaf as usize].mac;
        let frames = &self.edcafs[edcaf as usize].queues[queue];
        let first = frames[carried.start];
        let payload = self.payload_bytes(edcaf, queue, carried.start, carried.len());
        let phy = self.phy_between(mac, first.to);
        AirFrame {
            at,
            airtime_ns: phy.data_airtime_ns(payload),
            rate_bps: phy.data_rate_bps,
            nav_ns: phy.sifs_ns + phy.ack_airtime_ns(),
            bad_fcs,
            receiver: self.node(first.to),
            body: AirBody::Data {
                transmitter: self.node(mac),
                ap: self.node(0),
                retry: first.transmitted,
                sequence: first.sequence,
                msdus: frames.range(carried).map(|f| f.packet).collect(),
                ampdu: None,
            },
            signal_dbm: None,
        }
    }

    /// The MAC ACK at `at` of a data frame `mac` sent to `to`.
    #[cold]
    pub(super) fn ack_frame(&self, at: Instant, mac: u32, to: u32) -> AirFrame {
        let phy = self.phy_between(mac, to);
        AirFrame {
            at,
            airtime_ns: phy.ack_airtime_ns(),
            rate_bps: phy.basic_rate_bps,
            nav_ns: 0,
            bad_fcs: false,
            receiver: self.node(mac),
            body: AirBody::Ack,
            signal_dbm: None,
        }
    }

    /// The frame at `index` of a queue went on the air: sending it again is a retry.
    pub(super) fn mark_transmitted(&mut self, edcaf: u32, queue: usize, index: usize) {
        self.edcafs[edcaf as usize].queues[queue][index].transmitted = true;
    }
}
