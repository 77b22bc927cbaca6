//! The radiotap header (radiotap.org; pcap link type 127, LINKTYPE_IEEE802_11_RADIOTAP) that
//! an 802.11 monitor puts before each captured frame: here version 0 with the TSFT, Flags
//! and Channel fields, the Rate field for a DSSS or non-HT OFDM frame, the MCS (present bit
//! 19), VHT (21) or HE (23) field for an HT, VHT or HE one, and, where the channel has
//! geometry, the dBm Antenna Signal and dBm Antenna Noise fields (present bits 5 and 6, one
//! signed byte each), and the A-MPDU status (present bit 20) of an A-MPDU's subframes; each
//! field at its natural alignment, all little-endian. The MCS,
//! VHT and HE fields say what airtcp models of the PPDU: its MCS, streams, bandwidth and
//! guard interval, BCC coding, no STBC, an SU PPDU.

/// Flags field: the frame was sent with the short DSSS preamble.
pub const FLAG_SHORT_PREAMBLE: u8 = 0x02;
/// Flags field: the frame ends with its 4-byte FCS.
pub const FLAG_FCS_AT_END: u8 = 0x10;
/// Flags field: the frame failed its FCS check (collided or corrupted).
pub const FLAG_BAD_FCS: u8 = 0x40;

/// Channel flags: modulation and band.
pub const CHANNEL_CCK: u16 = 0x0020;
pub const CHANNEL_OFDM: u16 = 0x0040;
pub const CHANNEL_2GHZ: u16 = 0x0080;
pub const CHANNEL_5GHZ: u16 = 0x0100;
pub const CHANNEL_GFSK: u16 = 0x0800;

const PRESENT_TSFT_FLAGS: u32 = 0b0011;
const PRESENT_RATE: u32 = 0b0100;
const PRESENT_CHANNEL: u32 = 0b1000;
const PRESENT_SIGNAL: u32 = 0b110_0000;
const PRESENT_MCS: u32 = 1 << 19;
const PRESENT_AMPDU: u32 = 1 << 20;
const PRESENT_VHT: u32 = 1 << 21;
const PRESENT_HE: u32 = 1 << 23;

/// Bytes of the header `emit` writes for a DSSS or OFDM frame: 8 of preamble, TSFT (8),
/// Flags, Rate, Channel (4); two more with the signal and noise.
pub const RADIOTAP_LEN: usize = 22;

/// The rate a frame went at, as radiotap says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadiotapRate {
    /// DSSS or non-HT OFDM: units of 500 kbit/s.
    Legacy(u8),
    /// HT: MCS index 0-31, 40 MHz or 20, short GI or not.
    Ht { mcs: u8, wide: bool, short_gi: bool },
    /// VHT: MCS 0-9, streams, bandwidth in MHz, short GI or not.
    Vht {
        mcs: u8,
        streams: u8,
        width_mhz: u16,
        short_gi: bool,
    },
    /// HE SU: MCS 0-11, streams, bandwidth in MHz, guard interval in ns.
    He {
        mcs: u8,
        streams: u8,
        width_mhz: u16,
        guard_interval_ns: u16,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadiotapRepr {
    /// The TSF timer in microseconds. Radiotap defines it as the arrival of the MPDU's first
    /// bit; Wireshark reads it by default as the end of the PPDU.
    pub tsft_us: u64,
    pub flags: u8,
    pub rate: RadiotapRate,
    pub channel_mhz: u16,
    pub channel_flags: u16,
    /// The frame's power at the receiver and the noise there, in dBm.
    pub signal_dbm: Option<(i8, i8)>,
    /// A subframe of an A-MPDU: the A-MPDU's reference number (one per PPDU) and whether it
    /// is the last subframe (the A-MPDU status field, present bit 20).
    pub ampdu: Option<(u32, bool)>,
}

/// A-MPDU status flags: the last subframe is known, and this is it.
const AMPDU_LAST_KNOWN: u16 = 0x0004;
const AMPDU_IS_LAST: u16 = 0x0008;

impl RadiotapRepr {
    /// The header's length in bytes.
    pub fn header_len(&self) -> usize {
        // the fields up to the channel, and signal and noise, end 2-aligned
        let mut len = RADIOTAP_LEN + if self.signal_dbm.is_some() { 2 } else { 0 };
        if let RadiotapRate::Ht { .. } = self.rate {
            len += 3;
        }
        if self.ampdu.is_some() {
            len = len.next_multiple_of(4) + 8;
        }
        match self.rate {
            RadiotapRate::Vht { .. } | RadiotapRate::He { .. } => len.next_multiple_of(2) + 12,
            _ => len,
        }
    }

    pub fn emit(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let mut present = PRESENT_TSFT_FLAGS | PRESENT_CHANNEL;
        present |= match self.rate {
            RadiotapRate::Legacy(_) => PRESENT_RATE,
            RadiotapRate::Ht { .. } => PRESENT_MCS,
            RadiotapRate::Vht { .. } => PRESENT_VHT,
            RadiotapRate::He { .. } => PRESENT_HE,
        };
        if self.signal_dbm.is_some() {
            present |= PRESENT_SIGNAL;
        }
        if self.ampdu.is_some() {
            present |= PRESENT_AMPDU;
        }
        out.extend_from_slice(&[0, 0, 0, 0]); // version, pad, length (set below)
        out.extend_from_slice(&present.to_le_bytes());
        out.extend_from_slice(&self.tsft_us.to_le_bytes());
        out.push(self.flags);
        // Rate (1 byte) or the padding that aligns Channel to 2 bytes
        out.push(match self.rate {
            RadiotapRate::Legacy(units) => units,
            _ => 0,
        });
        out.extend_from_slice(&self.channel_mhz.to_le_bytes());
        out.extend_from_slice(&self.channel_flags.to_le_bytes());
        if let Some((signal, noise)) = self.signal_dbm {
            out.extend_from_slice(&[signal as u8, noise as u8]);
        }
        let align2 = |out: &mut Vec<u8>| {
            if (out.len() - start) % 2 == 1 {
                out.push(0);
            }
        };
        if let RadiotapRate::Ht {
            mcs,
            wide,
            short_gi,
        } = self.rate
        {
            // known: bandwidth, MCS index, guard interval, FEC type
            let flags = u8::from(wide) | (u8::from(short_gi) << 2);
            out.extend_from_slice(&[0x01 | 0x02 | 0x04 | 0x10, flags, mcs]);
        }
        if let Some((reference, last)) = self.ampdu {
            while (out.len() - start) % 4 != 0 {
                out.push(0);
            }
            let flags = AMPDU_LAST_KNOWN | if last { AMPDU_IS_LAST } else { 0 };
            out.extend_from_slice(&reference.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&[0, 0]); // delimiter CRC, reserved
        }
        match self.rate {
            RadiotapRate::Legacy(_) | RadiotapRate::Ht { .. } => {}
            RadiotapRate::Vht {
                mcs,
                streams,
                width_mhz,
                short_gi,
            } => {
                align2(out);
                // known: guard interval, bandwidth
                out.extend_from_slice(&(0x0004u16 | 0x0040).to_le_bytes());
                out.push(u8::from(short_gi) << 2);
                out.push(match width_mhz {
                    20 => 0,
                    40 => 1,
                    80 => 4,
                    _ => 11,
                });
                out.extend_from_slice(&[(mcs << 4) | streams, 0, 0, 0]);
                out.extend_from_slice(&[0, 0, 0, 0]); // coding (BCC), group id, partial AID
            }
            RadiotapRate::He {
                mcs,
                streams,
                width_mhz,
                guard_interval_ns,
            } => {
                align2(out);
                // data1: HE_SU format, data MCS known, coding known, bandwidth known
                let data1: u16 = 0x0020 | 0x0080 | 0x4000;
                // data2: GI known
                let data2: u16 = 0x0002;
                let data3 = u16::from(mcs) << 8;
                let bandwidth: u16 = match width_mhz {
                    20 => 0,
                    40 => 1,
                    80 => 2,
                    _ => 3,
                };
                let gi: u16 = match guard_interval_ns {
                    800 => 0,
                    1600 => 1,
                    _ => 2,
                };
                let data5 = bandwidth | (gi << 4);
                let data6 = u16::from(streams);
                for word in [data1, data2, data3, 0, data5, data6] {
                    out.extend_from_slice(&word.to_le_bytes());
                }
            }
        }
        let len = (out.len() - start) as u16;
        out[start + 2..start + 4].copy_from_slice(&len.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let mut out = Vec::new();
        RadiotapRepr {
            tsft_us: 0x0102_0304,
            flags: FLAG_BAD_FCS,
            rate: RadiotapRate::Legacy(22),
            channel_mhz: 2412,
            channel_flags: CHANNEL_CCK | CHANNEL_2GHZ,
            signal_dbm: None,
            ampdu: None,
        }
        .emit(&mut out);
        assert_eq!(out.len(), RADIOTAP_LEN);
        assert_eq!(&out[..8], &[0, 0, 22, 0, 0x0f, 0, 0, 0]);
        assert_eq!(&out[8..16], &[4, 3, 2, 1, 0, 0, 0, 0]);
        assert_eq!(&out[16..], &[0x40, 22, 0x6c, 0x09, 0xa0, 0x00]);
    }

    #[test]
    fn signal_and_noise_follow_the_channel() {
        let mut out = Vec::new();
        let repr = RadiotapRepr {
            tsft_us: 7,
            flags: 0,
            rate: RadiotapRate::Legacy(4),
            channel_mhz: 2412,
            channel_flags: CHANNEL_CCK | CHANNEL_2GHZ,
            signal_dbm: Some((-79, -94)),
            ampdu: None,
        };
        repr.emit(&mut out);
        assert_eq!(out.len(), repr.header_len());
        assert_eq!(&out[..8], &[0, 0, 24, 0, 0x6f, 0, 0, 0]);
        assert_eq!(&out[22..], &[(-79i8) as u8, (-94i8) as u8]);
    }

    #[test]
    fn a_mpdu_status_is_4_aligned_between_mcs_and_vht() {
        let mut out = Vec::new();
        let repr = RadiotapRepr {
            tsft_us: 1,
            flags: 0,
            rate: RadiotapRate::Vht {
                mcs: 9,
                streams: 1,
                width_mhz: 80,
                short_gi: false,
            },
            channel_mhz: 5180,
            channel_flags: CHANNEL_OFDM | CHANNEL_5GHZ,
            signal_dbm: None,
            ampdu: Some((0x0102_0304, true)),
        };
        repr.emit(&mut out);
        // present: TSFT, Flags, Channel, A-MPDU status, VHT
        assert_eq!(&out[4..8], &(0x0030_000bu32).to_le_bytes());
        // channel ends at 22; the A-MPDU status at 24: reference, flags (last known, last)
        assert_eq!(&out[22..24], &[0, 0]);
        assert_eq!(&out[24..32], &[4, 3, 2, 1, 0x0c, 0, 0, 0]);
        assert_eq!(out.len(), 44);
        assert_eq!(repr.header_len(), 44);
    }

    #[test]
    fn mcs_vht_and_he_fields_replace_the_rate() {
        let repr = |rate| RadiotapRepr {
            tsft_us: 1,
            flags: 0,
            rate,
            channel_mhz: 5180,
            channel_flags: CHANNEL_OFDM | CHANNEL_5GHZ,
            signal_dbm: Some((-60, -90)),
            ampdu: None,
        };
        let mut out = Vec::new();
        repr(RadiotapRate::Ht {
            mcs: 15,
            wide: true,
            short_gi: true,
        })
        .emit(&mut out);
        // present: TSFT, Flags, Channel, signal, noise, MCS; rate byte left 0 (padding)
        assert_eq!(&out[4..8], &(0x0008_006bu32).to_le_bytes());
        assert_eq!(out[17], 0);
        assert_eq!(&out[24..], &[0x17, 0x05, 15]);
        assert_eq!(out.len(), 27);
        assert_eq!(u16::from_le_bytes([out[2], out[3]]) as usize, out.len());
        let mut out = Vec::new();
        repr(RadiotapRate::Vht {
            mcs: 9,
            streams: 2,
            width_mhz: 80,
            short_gi: false,
        })
        .emit(&mut out);
        assert_eq!(&out[4..8], &(0x0020_006bu32).to_le_bytes());
        // the VHT field starts at 24, 2-aligned: known, flags, bandwidth 80, MCS 9 NSS 2
        assert_eq!(&out[24..30], &[0x44, 0x00, 0x00, 4, 0x92, 0]);
        assert_eq!(out.len(), 36);
        for rate in [
            RadiotapRate::Legacy(12),
            RadiotapRate::Ht {
                mcs: 0,
                wide: false,
                short_gi: false,
            },
            RadiotapRate::Vht {
                mcs: 0,
                streams: 1,
                width_mhz: 20,
                short_gi: false,
            },
        ] {
            for signal_dbm in [None, Some((-50, -90))] {
                for ampdu in [None, Some((7, true))] {
                    let mut out = Vec::new();
                    let repr = RadiotapRepr {
                        signal_dbm,
                        ampdu,
                        ..repr(rate)
                    };
                    repr.emit(&mut out);
                    assert_eq!(repr.header_len(), out.len(), "{repr:?}");
                }
            }
        }
        let mut out = Vec::new();
        let he = repr(RadiotapRate::He {
            mcs: 11,
            streams: 1,
            width_mhz: 160,
            guard_interval_ns: 3200,
        });
        he.emit(&mut out);
        assert_eq!(&out[4..8], &(0x0080_006bu32).to_le_bytes());
        assert_eq!(out.len(), 36);
        assert_eq!(he.header_len(), 36);
        // data3: MCS 11 in bits 8-11; data5: 160 MHz, 3.2 µs GI; data6: 1 stream
        assert_eq!(&out[28..30], &[0x00, 0x0b]);
        assert_eq!(&out[32..36], &[0x23, 0x00, 0x01, 0x00]);
    }
}
