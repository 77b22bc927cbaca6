//! The radiotap header (radiotap.org; pcap link type 127, LINKTYPE_IEEE802_11_RADIOTAP) that
//! an 802.11 monitor puts before each captured frame: here version 0 with the TSFT, Flags,
//! Rate and Channel fields and, where the channel has geometry, the dBm Antenna Signal and
//! dBm Antenna Noise fields (present bits 5 and 6, one signed byte each), each at its
//! natural alignment, all little-endian.

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
pub const CHANNEL_GFSK: u16 = 0x0800;

/// Present bits 0-3: TSFT, Flags, Rate, Channel; 5 and 6: dBm antenna signal and noise.
const PRESENT: u32 = 0b1111;
const PRESENT_SIGNAL: u32 = 0b110_0000;

/// Bytes of the header `emit` writes: 8 of preamble, TSFT (8), Flags, Rate, Channel (4);
/// two more with the signal and noise.
pub const RADIOTAP_LEN: usize = 22;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadiotapRepr {
    /// The TSF timer in microseconds. Radiotap defines it as the arrival of the MPDU's first
    /// bit; Wireshark reads it by default as the end of the PPDU.
    pub tsft_us: u64,
    pub flags: u8,
    /// Rate in units of 500 kbit/s.
    pub rate_500kbps: u8,
    pub channel_mhz: u16,
    pub channel_flags: u16,
    /// The frame's power at the receiver and the noise there, in dBm.
    pub signal_dbm: Option<(i8, i8)>,
}

impl RadiotapRepr {
    /// The header's length in bytes.
    pub fn header_len(&self) -> usize {
        RADIOTAP_LEN + if self.signal_dbm.is_some() { 2 } else { 0 }
    }

    pub fn emit(&self, out: &mut Vec<u8>) {
        let present = PRESENT
            | if self.signal_dbm.is_some() {
                PRESENT_SIGNAL
            } else {
                0
            };
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(self.header_len() as u16).to_le_bytes());
        out.extend_from_slice(&present.to_le_bytes());
        out.extend_from_slice(&self.tsft_us.to_le_bytes());
        out.push(self.flags);
        out.push(self.rate_500kbps);
        out.extend_from_slice(&self.channel_mhz.to_le_bytes());
        out.extend_from_slice(&self.channel_flags.to_le_bytes());
        if let Some((signal, noise)) = self.signal_dbm {
            out.extend_from_slice(&[signal as u8, noise as u8]);
        }
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
            rate_500kbps: 22,
            channel_mhz: 2412,
            channel_flags: CHANNEL_CCK | CHANNEL_2GHZ,
            signal_dbm: None,
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
            rate_500kbps: 4,
            channel_mhz: 2412,
            channel_flags: CHANNEL_CCK | CHANNEL_2GHZ,
            signal_dbm: Some((-79, -94)),
        };
        repr.emit(&mut out);
        assert_eq!(out.len(), repr.header_len());
        assert_eq!(&out[..8], &[0, 0, 24, 0, 0x6f, 0, 0, 0]);
        assert_eq!(&out[22..], &[(-79i8) as u8, (-94i8) as u8]);
    }
}
