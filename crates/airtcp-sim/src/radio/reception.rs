//! What one radio receives: the signals on the air at its antenna, the frame its PHY is
//! locked on, and whether that frame survives the noise and interference it met.
//!
//! As ns-3's `InterferenceHelper` does, a frame is cut into chunks of constant SINR at every
//! start and end of another signal, and at the boundary between its PHY header (sent at the
//! header rate) and its payload (at the data rate); its success probability is the product
//! of the chunks' success rates (`airtcp_proto::wifi::error_rate`), one draw deciding it.
//! The preamble itself is not error-checked: detecting it is the lock decision (`Medium`).

use airtcp_proto::wifi::error_rate::{min_sinr_db, Family, SinrSuccess};
use airtcp_proto::Instant;

/// A signal at this radio's antenna: transmission `tx` (its slot while on the air) of serial
/// number `serial` (never reused: a signal outlives its transmission's slot while a frame it
/// overlapped is being received), `addressed` to this radio or not, from `start` to `end`
/// (at this radio: propagation delay included), received with `power_mw`.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub tx: u32,
    pub serial: u32,
    pub addressed: bool,
    pub start: Instant,
    pub end: Instant,
    pub power_mw: f64,
}

/// How a frame is sent, for its error chunks: the PHY header from `header_ns` after its start
/// at `header_rate_bps`, the payload from `payload_ns` at `payload_rate_bps`.
#[derive(Clone, Copy, Debug)]
pub struct FrameShape {
    pub family: Family,
    pub header_ns: u64,
    pub header_rate_bps: u64,
    pub payload_ns: u64,
    pub payload_rate_bps: u64,
}

/// The signals at one radio, and the one its PHY is receiving.
#[derive(Debug, Default)]
pub struct Antenna {
    arrivals: Vec<Arrival>,
    /// The arrival (its `tx`) the PHY is locked on.
    pub lock: Option<Arrival>,
}

impl Antenna {
    pub fn add(&mut self, arrival: Arrival) {
        self.arrivals.push(arrival);
    }

    /// Power of the signals that have not ended by `at`, `except` one transmission (a
    /// signal registered ahead of its arrival counts already: see `Medium`).
    #[inline]
    pub fn energy_mw(&self, at: Instant, except: Option<u32>) -> f64 {
        self.arrivals
            .iter()
            .filter(|a| a.end > at && Some(a.serial) != except)
            .map(|a| a.power_mw)
            .sum()
    }

    /// The power at which transmission `tx` arrives here, if it does.
    pub fn power_of(&self, serial: u32) -> Option<f64> {
        self.arrivals
            .iter()
            .find(|a| a.serial == serial)
            .map(|a| a.power_mw)
    }

    /// The signals that have not ended by `at`.
    pub fn on_air(&self, at: Instant) -> impl Iterator<Item = &Arrival> + '_ {
        self.arrivals.iter().filter(move |a| a.end > at)
    }

    /// Forgets signals that ended before `now` and that no frame being received overlaps
    /// (one ending at `now` stays until the next call: its transmission, which may end at
    /// the same instant as the one pruning, has yet to be settled here).
    pub fn prune(&mut self, now: Instant) {
        let keep_from = self.lock.map_or(now, |lock| lock.start.min(now));
        // Usually nothing has ended: look before rewriting the list.
        if self.arrivals.iter().any(|a| a.end < keep_from) {
            self.arrivals.retain(|a| a.end >= keep_from);
        }
    }

    /// Probability that `frame` (an arrival at this antenna) is received without error,
    /// over noise `noise_mw` and the other signals that overlapped it.
    pub fn success_probability(
        &self,
        frame: &Arrival,
        shape: &FrameShape,
        noise_mw: f64,
        cache: &mut SuccessCache,
    ) -> f64 {
        let (start, end) = (frame.start.as_nanos(), frame.end.as_nanos());
        let header_at = start + shape.header_ns;
        let payload_at = start + shape.payload_ns;
        let header_bits = bits_in(payload_at - header_at, shape.header_rate_bps);
        let payload_bits = bits_in(end.saturating_sub(payload_at), shape.payload_rate_bps);
        let overlaps =
            |a: &Arrival| a.serial != frame.serial && a.start < frame.end && a.end > frame.start;
        if !self.arrivals.iter().any(overlaps) {
            // The common case: two chunks at one SINR.
            let sinr = frame.power_mw / noise_mw;
            return cache.success_rate(shape.family, shape.header_rate_bps, sinr, header_bits)
                * cache.success_rate(shape.family, shape.payload_rate_bps, sinr, payload_bits);
        }
        // The signals that overlapped the frame, in the antenna's order (the order their
        // powers are summed in), and the times that cut it into chunks of constant SINR.
        let mut others = std::mem::take(&mut cache.overlapping);
        let mut cuts = std::mem::take(&mut cache.cuts);
        others.clear();
        cuts.clear();
        cuts.extend([header_at, payload_at, end]);
        for a in self.arrivals.iter().filter(|a| overlaps(a)) {
            let (from, to) = (a.start.as_nanos(), a.end.as_nanos());
            others.push((from, to, a.power_mw));
            cuts.extend([from, to]);
        }
        let bits = (header_bits, payload_bits);
        let certain = survives_all_at_once(frame.power_mw, noise_mw, &others, shape, bits, cache);
        let probability = if certain && !cfg!(debug_assertions) {
            1.0
        } else {
            let chunked = chunked_probability(
                frame,
                (header_at, payload_at),
                shape,
                noise_mw,
                (&others, &mut cuts),
                cache,
            );
            debug_assert!(!certain || chunked == 1.0, "{chunked} survives all at once");
            chunked
        };
        cache.overlapping = others;
        cache.cuts = cuts;
        probability
    }
}

impl Antenna {
    /// Probability that the part of `frame` from `from` to `to` (ns, at this antenna), sent
    /// at `rate_bps` of `family`, is received without error: the product of its chunks of
    /// constant SINR (an A-MPDU's PHY header, or one of its MPDUs: `radio::aggregation`).
    pub fn segment_probability(
        &self,
        frame: &Arrival,
        (family, rate_bps): (Family, u64),
        (from, to): (u64, u64),
        noise_mw: f64,
        cache: &mut SuccessCache,
    ) -> f64 {
        if to <= from {
            return 1.0;
        }
        let overlaps = |a: &Arrival| {
            a.serial != frame.serial && a.start.as_nanos() < to && a.end.as_nanos() > from
        };
        if !self.arrivals.iter().any(overlaps) {
            let sinr = frame.power_mw / noise_mw;
            return cache.success_rate(family, rate_bps, sinr, bits_in(to - from, rate_bps));
        }
        let mut others = std::mem::take(&mut cache.overlapping);
        let mut cuts = std::mem::take(&mut cache.cuts);
        others.clear();
        cuts.clear();
        cuts.push(to);
        for a in self.arrivals.iter().filter(|a| overlaps(a)) {
            let (start, end) = (a.start.as_nanos(), a.end.as_nanos());
            others.push((start, end, a.power_mw));
            cuts.extend([start, end]);
        }
        cuts.retain(|&t| t > from && t <= to);
        cuts.sort_unstable();
        cuts.dedup();
        let mut probability = 1.0;
        let mut at = from;
        for &cut in &cuts {
            let interference: f64 = others
                .iter()
                .filter(|&&(start, end, _)| start <= at && end > at)
                .map(|&(_, _, power_mw)| power_mw)
                .sum();
            let sinr = frame.power_mw / (noise_mw + interference);
            probability *= cache.success_rate(family, rate_bps, sinr, bits_in(cut - at, rate_bps));
            at = cut;
            if probability < 1e-30 {
                probability = 0.0;
                break;
            }
        }
        cache.overlapping = others;
        cache.cuts = cuts;
        probability
    }
}

/// The product of `frame`'s chunks' success rates: the frame cut at `cuts` (its own times
/// and those of the `others` that overlapped it) into chunks of constant SINR, from its PHY
/// header at `header_at` (the preamble is the lock decision), at the header rate until
/// `payload_at`. The least likely chunk first: a frame already below 1e-30 is lost whatever
/// the rest (no draw in [0, 1) falls under it but 0 itself, once in 2^53), which spares the
/// rest of a collided frame's chunks.
fn chunked_probability(
    frame: &Arrival,
    (header_at, payload_at): (u64, u64),
    shape: &FrameShape,
    noise_mw: f64,
    (others, cuts): (&[(u64, u64, f64)], &mut Vec<u64>),
    cache: &mut SuccessCache,
) -> f64 {
    let (start, end) = (frame.start.as_nanos(), frame.end.as_nanos());
    cuts.retain(|&t| t > start && t <= end);
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = std::mem::take(&mut cache.chunk_list);
    chunks.clear();
    let mut from = header_at;
    for &to in cuts.iter() {
        if to <= from {
            continue;
        }
        let interference: f64 = others
            .iter()
            .filter(|&&(start, end, _)| start <= from && end > from)
            .map(|&(_, _, power_mw)| power_mw)
            .sum();
        let sinr = frame.power_mw / (noise_mw + interference);
        let rate = if from < payload_at {
            shape.header_rate_bps
        } else {
            shape.payload_rate_bps
        };
        chunks.push((sinr, rate, bits_in(to - from, rate)));
        from = to;
    }
    chunks.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut probability = 1.0;
    for &(sinr, rate, bits) in &chunks {
        probability *= cache.success_rate(shape.family, rate, sinr, bits);
        if probability < 1e-30 {
            probability = 0.0;
            break;
        }
    }
    cache.chunk_list = chunks;
    probability
}

/// Whether a frame received at `power_mw` certainly survives all its chunks: at a SINR no
/// chunk's is below (every overlapping signal's power summed), its PHY header's bits and its
/// payload's each meet the SINR from which the model gives exactly 1 for that many bits
/// (`SuccessCache::certain_from`). Every chunk then rounds to 1, their product is 1 (what
/// cutting the frame would give, with no draw to follow), and the frame need not be cut.
/// Most frames that overlap another overlap a far weaker one.
fn survives_all_at_once(
    power_mw: f64,
    noise_mw: f64,
    others: &[(u64, u64, f64)],
    shape: &FrameShape,
    (header_bits, payload_bits): (u64, u64),
    cache: &mut SuccessCache,
) -> bool {
    // Sums of non-negative terms in one order: the whole sum is at least any chunk's, which
    // adds some of the same terms in the same order (rounding is monotonic).
    let interference: f64 = others.iter().map(|&(_, _, power_mw)| power_mw).sum();
    let sinr = power_mw / (noise_mw + interference);
    sinr >= cache.certain_from(shape.family, shape.header_rate_bps, header_bits)
        && sinr >= cache.certain_from(shape.family, shape.payload_rate_bps, payload_bits)
}

/// Bits sent in `ns` at `rate_bps` (whole bits, as ns-3 counts a chunk's): in 64 bits when
/// the product fits, as it does for any frame (a 128-bit division is a library call).
fn bits_in(ns: u64, rate_bps: u64) -> u64 {
    match ns.checked_mul(rate_bps) {
        Some(product) => product / 1_000_000_000,
        None => (u128::from(ns) * u128::from(rate_bps) / 1_000_000_000) as u64,
    }
}

/// The last success rates computed, direct-mapped by their arguments, in two levels. Without
/// fading or interference a pair of radios meets the same SINR frame after frame: a chunk's
/// rate is kept by (rate, SINR, bits). Frames that overlap meet a few SINRs (one per set of
/// signals on the air) in chunks of every length: the rate's error probability at a SINR,
/// which for CCK costs a numerical integral, is kept by (rate, SINR) (`SinrSuccess`), so that
/// another length costs an exponential. A hit returns exactly what the model would.
#[derive(Debug)]
pub struct SuccessCache {
    chunks: Vec<Option<(ChunkKey, f64)>>,
    sinrs: Vec<Option<(SinrKey, SinrSuccess)>>,
    /// By (family, rate, bits): `certain_from`'s SINRs.
    certain: Vec<Option<(BitsKey, f64)>>,
    /// Scratch space of `Antenna::success_probability`, kept to spare allocations: the
    /// signals overlapping a frame (start, end, power), its cuts and its chunks.
    overlapping: Vec<(u64, u64, f64)>,
    cuts: Vec<u64>,
    chunk_list: Vec<(f64, u64, u64)>,
}

/// A chunk's family, rate, SINR (its bits) and bit count.
type ChunkKey = (Family, u64, u64, u64);
/// The same without the bit count.
type SinrKey = (Family, u64, u64);
/// A chunk's family, rate and bit count.
type BitsKey = (Family, u64, u64);

impl Default for SuccessCache {
    fn default() -> Self {
        SuccessCache {
            chunks: vec![None; 1 << CHUNK_SLOT_BITS],
            sinrs: vec![None; 1 << SINR_SLOT_BITS],
            certain: vec![None; 1 << CERTAIN_SLOT_BITS],
            overlapping: Vec::new(),
            cuts: Vec::new(),
            chunk_list: Vec::new(),
        }
    }
}

/// log2 of each level's slots: more SINRs than that are met only where every frame overlaps
/// others at many radios, and there a miss costs less than the memory it would take.
const CHUNK_SLOT_BITS: u32 = 12;
const SINR_SLOT_BITS: u32 = 13;
/// A run sends frames of a few lengths at a few rates.
const CERTAIN_SLOT_BITS: u32 = 8;

impl SuccessCache {
    /// The model's success rate of a chunk (`SinrSuccess::success`). Inlined, a miss out of
    /// line: most calls hit.
    #[inline]
    pub fn success_rate(&mut self, family: Family, rate_bps: u64, sinr: f64, bits: u64) -> f64 {
        if bits == 0 {
            return 1.0;
        }
        let key = (family, rate_bps, sinr.to_bits(), bits);
        let hash = key
            .2
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(rate_bps ^ bits.rotate_left(32))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let slot = (hash >> (64 - CHUNK_SLOT_BITS)) as usize;
        match self.chunks[slot] {
            Some((cached, value)) if cached == key => value,
            _ => self.missed(slot, key, sinr),
        }
    }

    /// `success_rate` of a chunk not kept, which it keeps in `slot`.
    #[inline(never)]
    fn missed(&mut self, slot: usize, key: ChunkKey, sinr: f64) -> f64 {
        let (family, rate_bps, _, bits) = key;
        let value = self.at_sinr(family, rate_bps, sinr).success(bits);
        self.chunks[slot] = Some((key, value));
        value
    }

    /// A SINR from which a chunk of at most `bits` bits at `rate_bps` certainly succeeds
    /// (the model gives exactly 1): 1 % above the lowest SINR at which twice the bits do
    /// (`min_sinr_db`, which bisects the model itself). A chunk's success rate falls with
    /// its bits and rises with its SINR; the margins keep the comparison clear of the
    /// last-place wobble of the model's arithmetic near its threshold.
    pub fn certain_from(&mut self, family: Family, rate_bps: u64, bits: u64) -> f64 {
        let key = (family, rate_bps, bits);
        let hash = (rate_bps ^ bits.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (hash >> (64 - CERTAIN_SLOT_BITS)) as usize;
        match self.certain[slot] {
            Some((cached, sinr)) if cached == key => sinr,
            _ => {
                let db = min_sinr_db(family, rate_bps, 2 * bits, 1.0);
                let sinr = 1.01 * 10f64.powf(db / 10.0);
                self.certain[slot] = Some((key, sinr));
                sinr
            }
        }
    }

    /// The kept `SinrSuccess` of a rate at a SINR, made if missing.
    fn at_sinr(&mut self, family: Family, rate_bps: u64, sinr: f64) -> &mut SinrSuccess {
        let key = (family, rate_bps, sinr.to_bits());
        let hash = key
            .2
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(rate_bps)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let slot = (hash >> (64 - SINR_SLOT_BITS)) as usize;
        let entry = &mut self.sinrs[slot];
        if !entry.is_some_and(|(cached, _)| cached == key) {
            *entry = Some((key, SinrSuccess::new(family, rate_bps, sinr)));
        }
        &mut entry.as_mut().expect("filled above").1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_proto::wifi::error_rate::success_rate;

    fn at(us: u64) -> Instant {
        Instant::from_nanos(us * 1_000)
    }

    const DSSS_11: FrameShape = FrameShape {
        family: Family::Dsss,
        header_ns: 144_000,
        header_rate_bps: 1_000_000,
        payload_ns: 192_000,
        payload_rate_bps: 11_000_000,
    };

    #[test]
    fn chunks_multiply_with_interference_added_where_it_overlaps() {
        let noise = 1e-9;
        let frame = Arrival {
            tx: 0,
            serial: 0,
            addressed: true,
            start: at(0),
            end: at(1192),
            power_mw: 1e-8,
        };
        let mut antenna = Antenna::default();
        antenna.add(frame);
        let alone =
            antenna.success_probability(&frame, &DSSS_11, noise, &mut SuccessCache::default());
        let header = success_rate(Family::Dsss, 1_000_000, 10.0, 48);
        let payload = success_rate(Family::Dsss, 11_000_000, 10.0, 11_000);
        assert!((alone - header * payload).abs() < 1e-12, "{alone}");
        // Two interferers by hand: 2e-9 over [500, 700) µs and 3e-9 over [600, 900) µs.
        for (tx, from, to, power) in [(1, 500, 700, 2e-9), (2, 600, 900, 3e-9)] {
            antenna.add(Arrival {
                tx,
                serial: tx,
                addressed: false,
                start: at(from),
                end: at(to),
                power_mw: power,
            });
        }
        let expected = header
            * success_rate(Family::Dsss, 11_000_000, 10.0, 11 * 308)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 3e-9, 11 * 100)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 6e-9, 11 * 100)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 4e-9, 11 * 200)
            * success_rate(Family::Dsss, 11_000_000, 10.0, 11 * 292);
        let got =
            antenna.success_probability(&frame, &DSSS_11, noise, &mut SuccessCache::default());
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        assert!(got < alone);
        let on_air: Vec<u32> = antenna.on_air(at(650)).map(|a| a.serial).collect();
        assert_eq!(on_air, vec![0, 1, 2]);
        assert_eq!(antenna.energy_mw(at(800), None), 1e-8 + 3e-9);
        antenna.lock = Some(frame);
        antenna.prune(at(1000));
        assert_eq!(
            antenna.arrivals.len(),
            3,
            "overlapping the frame being received"
        );
        antenna.lock = None;
        antenna.prune(at(1000));
        assert_eq!(antenna.arrivals.len(), 1);
        antenna.prune(at(1192));
        assert_eq!(antenna.arrivals.len(), 1, "ending now: kept until settled");
        antenna.prune(at(1193));
        assert!(antenna.arrivals.is_empty());
    }
}
