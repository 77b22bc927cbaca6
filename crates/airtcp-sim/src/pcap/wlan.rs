//! A BSS's channel as an 802.11 monitor captures it: `<dir>/wlan<i>-<ap>.pcap`, one radiotap
//! record per frame on the air (`crate::wlan::AirFrame`): RTS, CTS, data frames (an A-MSDU as
//! a QoS data frame), MAC ACKs, collided or corrupted frames with the radiotap bad-FCS flag.
//! Frames end with their FCS (the complement of the right one when bad). The record's time is
//! when the frame's first bit is sent; its TSFT is when its last symbol ends (before an ERP
//! frame's signal extension), which is how Wireshark reads TSFT by default (preference
//! `wlan_radio.tsf_at_end`), so its 802.11 radio view shows each frame's start, end and the
//! gaps between them as simulated. Data frames
//! carry each MSDU as LLC/SNAP and IPv4; by default a record ends after the last MSDU's
//! transport header. A WLAN that names a channel is shown on it; the others do not interfere
//! in the simulator, so they are shown on channels 1, 6 and 11 in turn (36, 40, 44 in 5 GHz).
//! HT, VHT and HE data frames are QoS data frames (TID 0) and carry radiotap's MCS, VHT or
//! HE field instead of a rate; an A-MPDU's subframes are one record each, with radiotap's
//! A-MPDU status (the PPDU's reference number, the last subframe marked) and the TSFT of the
//! PPDU's end, followed by the compressed BlockAck. On a channel with
//! geometry each frame carries its power at its receiver and the noise there (dBm Antenna
//! Signal and Noise).

use std::path::Path;

use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
use airtcp_proto::wifi::propagation::channel_frequency_hz;
use airtcp_proto::wifi::{Modulation, Phy, Preamble};
use airtcp_proto::wire::ieee80211::{
    emit_amsdu_subframe_header, emit_fcs, DsDirection, FrameRepr, LLC_SNAP_IPV4,
};
use airtcp_proto::wire::radiotap::{
    RadiotapRate, RadiotapRepr, CHANNEL_2GHZ, CHANNEL_5GHZ, CHANNEL_CCK, CHANNEL_GFSK,
    CHANNEL_OFDM, FLAG_BAD_FCS, FLAG_FCS_AT_END, FLAG_SHORT_PREAMBLE,
};
use pcap_file::DataLink;

use super::{mac_of, TraceFiles};
use crate::packet::{address_node, Packet};
use crate::wlan::{AirBody, AirFrame};

/// Channels 1, 6 and 11 of the 2.4 GHz band; 36, 40 and 44 of the 5 GHz band; 1, 5 and 9
/// of the 6 GHz band.
const CHANNELS_MHZ: [[u16; 3]; 3] = [[2412, 2437, 2462], [5180, 5200, 5220], [5955, 5975, 5995]];
/// Longest Duration a frame may carry (IEEE 802.11-2020 §9.2.4.2).
const MAX_DURATION_US: u64 = 32_767;

/// How a BSS's frames go on the air.
struct Radio {
    channel_mhz: u16,
    channel_flags: u16,
    short_preamble: bool,
    signal_extension_ns: u64,
    /// An MCS PHY's setting: its frames at an MCS carry radiotap's MCS, VHT or HE field.
    mcs: Option<McsPhy>,
}

impl Radio {
    fn of(bss: usize, phy: &Phy, channel: Option<u32>) -> Radio {
        let (modulation, short_preamble, mcs) = match phy.modulation {
            Modulation::Dsss(preamble) => (CHANNEL_CCK, preamble == Preamble::Short, None),
            Modulation::ErpOfdm | Modulation::Ofdm => (CHANNEL_OFDM, false, None),
            Modulation::Mcs(setting) => (CHANNEL_OFDM, false, Some(setting)),
            Modulation::Fhss { .. } => (CHANNEL_GFSK, false, None),
        };
        let band = phy.band();
        let (defaults, band_flag) = match band {
            Band::Ghz2_4 => (CHANNELS_MHZ[0], CHANNEL_2GHZ),
            Band::Ghz5 => (CHANNELS_MHZ[1], CHANNEL_5GHZ),
            Band::Ghz6 => (CHANNELS_MHZ[2], CHANNEL_5GHZ),
        };
        Radio {
            channel_mhz: channel
                .and_then(|number| channel_frequency_hz(band, number))
                .map_or(defaults[bss % defaults.len()], |hz| (hz / 1e6) as u16),
            channel_flags: band_flag | modulation,
            short_preamble,
            signal_extension_ns: phy.signal_extension_ns(),
            mcs,
        }
    }

    /// How radiotap says the rate of a frame sent at `rate_bps`.
    fn rate(&self, rate_bps: u64) -> RadiotapRate {
        let Some((setting, mcs)) = self
            .mcs
            .and_then(|setting| Some((setting, setting.mcs_of(rate_bps)?)))
        else {
            return RadiotapRate::Legacy((rate_bps / 500_000) as u8);
        };
        match setting.format {
            Format::Ht => RadiotapRate::Ht {
                mcs: 8 * (setting.streams - 1) + mcs,
                wide: setting.width_mhz == 40,
                short_gi: setting.guard_interval_ns == 400,
            },
            Format::Vht => RadiotapRate::Vht {
                mcs,
                streams: setting.streams,
                width_mhz: setting.width_mhz,
                short_gi: setting.guard_interval_ns == 400,
            },
            Format::He => RadiotapRate::He {
                mcs,
                streams: setting.streams,
                width_mhz: setting.width_mhz,
                guard_interval_ns: setting.guard_interval_ns,
            },
        }
    }
}

pub struct WlanTraces {
    files: TraceFiles,
    radios: Vec<Radio>,
    buffer: Vec<u8>,
    snaplen: Option<u32>,
}

impl WlanTraces {
    /// Creates a capture per BSS, named after its index and its AP (`wlans`: the AP node's
    /// name, the PHY and the channel number of each); records keep `snaplen` bytes of each
    /// frame, or its headers.
    pub fn create(
        dir: &Path,
        wlans: &[(&str, &Phy, Option<u32>)],
        snaplen: Option<u32>,
    ) -> std::io::Result<WlanTraces> {
        let names = wlans
            .iter()
            .enumerate()
            .map(|(i, (ap, _, _))| format!("wlan{i}-{ap}"));
        // An A-MSDU's headers run through its last subframe: allow whole frames.
        let files = TraceFiles::create(
            dir,
            names,
            DataLink::IEEE802_11_RADIOTAP,
            snaplen.unwrap_or(65_535),
        )?;
        Ok(WlanTraces {
            files,
            radios: wlans
                .iter()
                .enumerate()
                .map(|(i, (_, phy, channel))| Radio::of(i, phy, *channel))
                .collect(),
            buffer: Vec::with_capacity(4096),
            snaplen,
        })
    }

    /// Records `frame` in the capture of `bss`; each packet it carries with the payload
    /// `payload_of` gives (an emulated host's real bytes) or zeros.
    pub fn record<'p>(
        &mut self,
        bss: usize,
        frame: &AirFrame,
        payload_of: impl Fn(&Packet) -> Option<&'p [u8]>,
    ) -> std::io::Result<()> {
        let radio = &self.radios[bss];
        let mut flags = FLAG_FCS_AT_END;
        if frame.bad_fcs {
            flags |= FLAG_BAD_FCS;
        }
        if radio.short_preamble && frame.rate_bps > 1_000_000 {
            flags |= FLAG_SHORT_PREAMBLE;
        }
        self.buffer.clear();
        // dBm as radiotap carries it: a signed byte.
        let dbm = |value: f64| value.round().clamp(-128.0, 127.0) as i8;
        let radiotap = RadiotapRepr {
            tsft_us: (frame.at.as_nanos() + frame.airtime_ns - radio.signal_extension_ns) / 1_000,
            flags,
            rate: radio.rate(frame.rate_bps),
            channel_mhz: radio.channel_mhz,
            channel_flags: radio.channel_flags,
            signal_dbm: frame
                .signal_dbm
                .map(|(signal, noise)| (dbm(signal), dbm(noise))),
            ampdu: match frame.body {
                AirBody::Data { ampdu, .. } => ampdu,
                _ => None,
            },
        };
        radiotap.emit(&mut self.buffer);
        let headers_end = emit_frame(&mut self.buffer, frame, radio.mcs.is_some(), payload_of);
        emit_fcs(&mut self.buffer, radiotap.header_len(), !frame.bad_fcs);
        let original = self.buffer.len();
        let kept = match self.snaplen {
            Some(snaplen) => original.min(snaplen as usize),
            None => headers_end.unwrap_or(original),
        };
        self.files
            .write(bss, frame.at, original, &self.buffer[..kept])
    }

    /// A run that did not finish leaves no partial captures behind.
    pub fn discard(self) {
        self.files.discard();
    }

    pub fn finish(self) -> std::io::Result<()> {
        self.files.finish()
    }
}

/// Appends the MAC frame (without its FCS); returns where the last MSDU's headers end in
/// `out` if it carries any.
fn emit_frame<'p>(
    out: &mut Vec<u8>,
    frame: &AirFrame,
    qos: bool,
    payload_of: impl Fn(&Packet) -> Option<&'p [u8]>,
) -> Option<usize> {
    let duration_us = frame.nav_ns.div_ceil(1_000).min(MAX_DURATION_US) as u16;
    let receiver = mac_of(frame.receiver);
    let header = match &frame.body {
        AirBody::Rts { transmitter } => FrameRepr::Rts {
            duration_us,
            receiver,
            transmitter: mac_of(*transmitter),
        },
        AirBody::Cts => FrameRepr::Cts {
            duration_us,
            receiver,
        },
        AirBody::Ack => FrameRepr::Ack {
            duration_us,
            receiver,
        },
        AirBody::BlockAckReq {
            transmitter,
            start_sequence,
        } => FrameRepr::BlockAckReq {
            duration_us,
            receiver,
            transmitter: mac_of(*transmitter),
            start_sequence: *start_sequence,
        },
        AirBody::BlockAck {
            transmitter,
            start_sequence,
            bitmap,
            bitmap_bytes,
        } => FrameRepr::BlockAck {
            duration_us,
            receiver,
            transmitter: mac_of(*transmitter),
            start_sequence: *start_sequence,
            bitmap: *bitmap,
            bitmap_bytes: *bitmap_bytes,
        },
        AirBody::Data {
            transmitter,
            ap,
            retry,
            sequence,
            msdus,
            ..
        } => {
            let direction = if transmitter == ap {
                DsDirection::FromAp
            } else {
                DsDirection::ToAp
            };
            let amsdu = msdus.len() > 1;
            let (source, destination) = ends(&msdus[0]);
            let address3 = match direction {
                _ if amsdu => mac_of(*ap),
                DsDirection::ToAp => destination,
                DsDirection::FromAp => source,
            };
            FrameRepr::Data {
                direction,
                retry: *retry,
                duration_us,
                receiver,
                transmitter: mac_of(*transmitter),
                address3,
                sequence: *sequence,
                qos,
                amsdu,
            }
        }
    };
    header.emit(out);
    let mut headers_end = None;
    if let AirBody::Data { msdus, .. } = &frame.body {
        let amsdu = msdus.len() > 1;
        let mut subframe_start = out.len();
        for (i, packet) in msdus.iter().enumerate() {
            if amsdu {
                if i > 0 {
                    // Every subframe but the last is padded to a multiple of 4 bytes.
                    let padded = (out.len() - subframe_start).next_multiple_of(4);
                    out.resize(subframe_start + padded, 0);
                    subframe_start = out.len();
                }
                let (source, destination) = ends(packet);
                let msdu_len = LLC_SNAP_IPV4.len() as u32 + packet.len();
                emit_amsdu_subframe_header(out, destination, source, msdu_len as u16);
            }
            out.extend_from_slice(&LLC_SNAP_IPV4);
            headers_end = Some(out.len() + packet.repr.header_len() as usize);
            out.extend_from_slice(&match payload_of(packet) {
                Some(payload) => packet.repr.emit_with_payload(payload),
                None => packet.repr.emit(),
            });
        }
    }
    headers_end
}

/// MAC addresses of a packet's source and destination nodes.
fn ends(packet: &Packet) -> ([u8; 6], [u8; 6]) {
    let node = |address| mac_of(address_node(address).unwrap_or(0));
    (node(packet.repr.ip.src), node(packet.repr.ip.dst))
}
