//! Heavy hitters without a dictionary: the prefix extending method (PEM; Wang, Li, Jha,
//! "Locally Differentially Private Heavy Hitter Identification", arXiv 1708.06674, §4).
//!
//! A value is its bytes padded with 0x00 to `max_bytes`; the users of round r report OLH
//! of its first ℓ_r bits (`prefix_bits`, ℓ_R = 8·max_bytes). The curator estimates the
//! prefixes of round 1 from its group, keeps the most frequent, extends each by the next
//! ℓ_{r+1} − ℓ_r bits, estimates those from round r + 1's group, and so on; the answer is
//! K values of the last round, each with its frequency estimate and standard error.
//!
//! What a client sends is PEM's; the curator's search uses three facts PEM leaves aside:
//! * a prefix that no value has ([`is_value_prefix`]: bytes that are not UTF-8, or a
//!   byte after the padding) has frequency 0 and is never a candidate;
//! * a prefix that holds a whole padding byte *is* a value (no value holds a NUL): every
//!   later round's prefix of it is the same value, so each later group estimates its
//!   frequency again, from other users. Its support counts and report counts add up over
//!   those rounds — the OLH estimate from the union of independent uniform samples of the
//!   population: unbiased, with the variance of that many reports (a value of b bytes is
//!   estimated from every round with ℓ_r ≥ 8(b + 1), not from the last alone);
//! * an open prefix is kept only above the noise of its round (Bonferroni over the
//!   round's candidates, as the thresholds of Bassily, Nissim, Stemmer, Thakurta,
//!   "Practical Locally Private Heavy Hitters", NeurIPS 2017), where PEM keeps the top K
//!   whatever their estimates; values are ranked by the evidence z = f̂/σ₀ of a nonzero
//!   frequency, which weighs each estimate by the reports behind it
//!   (`kept_for_next`).
//!
//! Values are the padded bytes with the trailing NULs stripped.

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::OpenMechanism;
use privlift::{Error, Result};

use privlift::open::value::PAD;

use super::estimate::{olh_estimate, support_counts};
use super::{Randomiser, Report};

/// Open prefixes and whole values kept per round, each: at most this many times the K
/// asked for (a margin for the prefixes of true heavy hitters that the noise ranks just
/// below the K-th).
pub const KEEP_FACTOR: usize = 2;
/// Most bits the first round enumerates, or a round extends by (2²⁰ candidates).
pub const MAX_STEP_BITS: u32 = 20;
/// Most values asked for.
pub const MAX_TOP: usize = 10_000;

/// The heavy hitters found, most frequent first.
#[derive(Debug, Clone, PartialEq)]
pub struct HeavyHitters {
    /// The values, most frequent first.
    pub values: Vec<String>,
    /// Their estimated frequencies (from the last round's group).
    pub estimate: Vec<f64>,
    /// Their standard errors.
    pub std_error: Vec<f64>,
    /// Every report, of every round.
    pub n: u64,
}

/// The `top` most frequent values by PEM from `reports` of a `heavy_hitters` mechanism
/// over values of at most `max_bytes` bytes (the document's `domain.max_bytes`).
///
/// # Errors
/// `invalid_argument` for another kind, a report of another kind, `top` outside
/// [1, [`MAX_TOP`]], or a schedule whose first round or a step exceeds
/// [`MAX_STEP_BITS`] bits.
pub fn heavy_hitters(
    mechanism: &OpenMechanism,
    max_bytes: usize,
    reports: &[Report],
    top: usize,
) -> Result<HeavyHitters> {
    let OpenMechanism::HeavyHitters { epsilon, g, prefix_bits, .. } = mechanism else {
        return Err(Error::invalid("mechanism", "heavy hitters need a `heavy_hitters` document"));
    };
    if !(1..=MAX_TOP).contains(&top) {
        return Err(Error::invalid("top", alloc::format!("must be from 1 to {MAX_TOP}")));
    }
    let randomiser = Randomiser::new(*epsilon, *g)?;
    let mut groups: Vec<(Vec<u32>, Vec<u32>)> = alloc::vec![(Vec::new(), Vec::new()); prefix_bits.len()];
    for r in reports {
        let Report::HeavyHitters { round, seed, y } = *r else {
            return Err(Error::invalid("reports", "a report of another kind"));
        };
        let group =
            groups.get_mut(round as usize).ok_or_else(|| Error::invalid("reports", "a round past the document's"))?;
        group.0.push(seed);
        group.1.push(y);
    }
    let mut kept = alloc::vec![Candidate { bytes: Vec::new(), count: 0, n: 0 }];
    let mut from = 0u32;
    for (r, (&bits, (seeds, ys))) in prefix_bits.iter().zip(&groups).enumerate() {
        let step = bits.checked_sub(from).filter(|s| (1..=MAX_STEP_BITS).contains(s)).ok_or_else(|| {
            Error::invalid(
                "prefix_bits",
                alloc::format!("round {r} extends by more than {MAX_STEP_BITS} bits, or by none"),
            )
        })?;
        let mut candidates: Vec<Candidate> = kept.iter().flat_map(|c| c.extended(from, step, max_bytes)).collect();
        let refs: Vec<&[u8]> = candidates.iter().map(|c| c.bytes.as_slice()).collect();
        let counts = support_counts(seeds, ys, *g, &refs);
        for (c, count) in candidates.iter_mut().zip(counts) {
            c.count += count;
            c.n += seeds.len() as u64;
        }
        let last = r + 1 == prefix_bits.len();
        kept = kept_for_next(candidates, bits, last, KEEP_FACTOR * top, randomiser);
        from = bits;
    }
    if from as usize != 8 * max_bytes {
        return Err(Error::invalid("prefix_bits", "the last round must cover every bit of max_bytes"));
    }
    // The answer: the K values of strongest evidence, most frequent first.
    kept.truncate(top);
    let mut out =
        HeavyHitters { values: Vec::new(), estimate: Vec::new(), std_error: Vec::new(), n: reports.len() as u64 };
    let mut found: Vec<(String, f64, f64)> = kept
        .into_iter()
        .filter_map(|c| {
            let (f, se) = olh_estimate(c.count, c.n, randomiser);
            value_of(c.bytes).map(|v| (v, f, se))
        })
        .collect();
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (v, f, se) in found {
        out.values.push(v);
        out.estimate.push(f);
        out.std_error.push(se);
    }
    Ok(out)
}

/// A prefix of some round and its support: `count` reports, of the `n` in the rounds
/// that estimated it, whose hash of their prefix matched it.
struct Candidate {
    bytes: Vec<u8>,
    count: u64,
    n: u64,
}

impl Candidate {
    /// The candidates of the next round, `step` bits on from `from`. A prefix holding a
    /// whole padding byte is a whole value (no value holds a NUL): its one extension is
    /// the same value, whose support carries on, since each later round's group estimates
    /// the same frequency from other users. Any other prefix gets its extensions that are
    /// the prefix of some value ([`is_value_prefix`]), their support to be counted.
    fn extended(&self, from: u32, step: u32, max_bytes: usize) -> Vec<Candidate> {
        let to = from + step;
        if self.bytes[..from as usize / 8].contains(&PAD) {
            let mut bytes = self.bytes.clone();
            bytes.resize(to.div_ceil(8) as usize, PAD);
            return alloc::vec![Candidate { bytes, count: self.count, n: self.n }];
        }
        extensions(&self.bytes, from, step)
            .filter(|b| is_value_prefix(b, to, max_bytes))
            .map(|bytes| Candidate { bytes, count: 0, n: 0 })
            .collect()
    }
}

/// What a round keeps of its `candidates` (`bits` long; every one a whole value in the
/// `last` round):
/// * of the whole values (holding a padding byte), the `keep` of strongest evidence
///   ([`evidence`]): they are estimated from different numbers of reports, and one
///   estimated from few reports is more often high by chance;
/// * of the open prefixes (all estimated from this round's group), the `keep` of largest
///   estimate among those above the noise of this round's candidates ([`noise_bound`]).
///   PEM keeps the top K whatever their estimates: at a low ε most of them are noise, and
///   each kept noise prefix brings its every extension into the next round, where the
///   largest noise outranks true values (the "noise promotions" of the last round).
///
/// Whole values first, each list in order of evidence.
fn kept_for_next(candidates: Vec<Candidate>, bits: u32, last: bool, keep: usize, r: Randomiser) -> Vec<Candidate> {
    let bound = noise_bound(candidates.len());
    let whole_bytes = bits as usize / 8;
    let (whole, open): (Vec<Candidate>, Vec<Candidate>) =
        candidates.into_iter().partition(|c| last || c.bytes[..whole_bytes].contains(&PAD));
    let mut out = strongest(whole, keep, r);
    let open = open.into_iter().filter(|c| evidence(c, r) > bound).collect();
    out.extend(strongest(open, keep, r));
    out
}

/// The `keep` candidates of strongest [`evidence`] (NaN last), ties by their bytes.
fn strongest(candidates: Vec<Candidate>, keep: usize, r: Randomiser) -> Vec<Candidate> {
    let mut scored: Vec<(f64, Candidate)> = candidates.into_iter().map(|c| (evidence(&c, r), c)).collect();
    scored.sort_by(|(za, a), (zb, b)| zb.total_cmp(za).then_with(|| a.bytes.cmp(&b.bytes)));
    scored.truncate(keep);
    scored.into_iter().map(|(_, c)| c).collect()
}

/// The evidence that a candidate's frequency is not 0: z = f̂/σ₀, its estimate over the
/// standard error the estimate has when f = 0, σ₀ = √(q(1 − q)/n)/(p − q). Among
/// candidates of one round's group it orders as f̂ does (σ₀ depends on n only); across
/// groups it weighs each estimate by how many reports made it. −∞ without reports.
fn evidence(c: &Candidate, r: Randomiser) -> f64 {
    let f = olh_estimate(c.count, c.n, r).0;
    if f.is_nan() {
        return f64::NEG_INFINITY;
    }
    let (p, q) = (r.p_same(), 1.0 / f64::from(r.outputs));
    f * (p - q) * libm::sqrt(c.n as f64 / (q * (1.0 - q)))
}

/// [`noise_bound`]'s bisection stops at this width of z: above the rounding of z (≤ 40,
/// whose ulp is at most 7.1e-15), and far below any difference in evidence that could
/// change which prefix is kept.
const Z_WIDTH: f64 = 1e-12;

/// z such that the chance a standard normal exceeds it is 1/m: the evidence (≈ a
/// standard normal for a prefix of frequency 0) that the largest of m such prefixes
/// reaches about as often as not, so that a round keeps in expectation at most one open
/// prefix of no value (Bonferroni). Bisection on the normal tail (to [`Z_WIDTH`]).
fn noise_bound(m: usize) -> f64 {
    let tail = 1.0 / m.max(2) as f64;
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    while hi - lo > Z_WIDTH {
        let mid = 0.5 * (lo + hi);
        if privlift::numeric::q(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether the `bits`-bit prefix `p` (as [`prefix`] writes it) is the prefix of some
/// value of at most `max_bytes` bytes: its whole bytes are UTF-8 (a character cut at the
/// end only if its remaining bytes fit in `max_bytes`) up to the first padding byte, and
/// padding from there on. Any other prefix has frequency 0: estimating it could only let
/// the noise promote it above a true one.
pub fn is_value_prefix(p: &[u8], bits: u32, max_bytes: usize) -> bool {
    let whole = &p[..bits as usize / 8];
    if let Some(end) = whole.iter().position(|&b| b == PAD) {
        return core::str::from_utf8(&whole[..end]).is_ok() && p[end..].iter().all(|&b| b == PAD);
    }
    match core::str::from_utf8(whole) {
        Ok(_) => true,
        // A character cut by the prefix's end: its lead byte says how many bytes it needs.
        Err(e) if e.error_len().is_none() => {
            let width = match whole[e.valid_up_to()] {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            e.valid_up_to() + width <= max_bytes
        }
        Err(_) => false,
    }
}

/// Every extension of the `from`-bit prefix `p` by `step` bits, as ceil((from + step)/8)
/// bytes, big-endian bit order, unused low bits of the last byte cleared.
pub fn extensions(p: &[u8], from: u32, step: u32) -> impl Iterator<Item = Vec<u8>> + '_ {
    let to = from + step;
    (0..1u32 << step).map(move |e| {
        let mut bytes = p.to_vec();
        bytes.resize(to.div_ceil(8) as usize, 0);
        for k in 0..step {
            if e >> (step - 1 - k) & 1 == 1 {
                let bit = from + k;
                bytes[(bit / 8) as usize] |= 0x80 >> (bit % 8);
            }
        }
        bytes
    })
}

/// The prefix of a value as round r's client hashes it: its bytes padded with 0x00 to
/// `max_bytes`, the first `bits` bits, low bits of the last byte cleared.
pub fn prefix(value: &[u8], max_bytes: usize, bits: u32) -> Vec<u8> {
    let mut bytes = value.to_vec();
    bytes.resize(max_bytes, 0);
    bytes.truncate(bits.div_ceil(8) as usize);
    if bits % 8 != 0 {
        if let Some(last) = bytes.last_mut() {
            *last &= 0xff << (8 - bits % 8);
        }
    }
    bytes
}

/// The value of padded bytes: trailing NULs stripped; `None` unless the rest is UTF-8
/// without a NUL.
fn value_of(mut bytes: Vec<u8>) -> Option<String> {
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_enumerate_the_next_bits_big_endian() {
        let all: Vec<Vec<u8>> = extensions(&[], 0, 3).collect();
        assert_eq!(all[0], [0]);
        assert_eq!(all[5], [0b1010_0000]);
        let next: Vec<Vec<u8>> = extensions(&[0b1010_0000], 3, 7).collect();
        assert_eq!(next.len(), 128);
        assert_eq!(next[127], [0b1011_1111, 0b1100_0000]);
        // Every extension is the prefix of some value: the client's prefix of it.
        for e in &next {
            assert_eq!(&prefix(e, 4, 10), e);
        }
    }

    #[test]
    fn a_prefix_is_padded_cut_and_cleared() {
        assert_eq!(prefix(b"ab", 4, 32), [b'a', b'b', 0, 0]);
        assert_eq!(prefix(b"\xff", 4, 4), [0xf0]);
        assert_eq!(prefix(b"a", 2, 12), [b'a', 0]);
    }

    #[test]
    fn values_strip_padding_and_drop_what_is_not_one() {
        assert_eq!(value_of(b"ab\0\0".to_vec()).as_deref(), Some("ab"));
        assert_eq!(value_of(alloc::vec![0; 3]).as_deref(), Some(""));
        assert_eq!(value_of(b"a\0b".to_vec()), None);
        assert_eq!(value_of(b"\xff\0".to_vec()), None);
    }

    #[test]
    fn only_prefixes_of_some_value_are_candidates() {
        // Round 1 of one byte: ASCII, the empty value (padding), the lead bytes of UTF-8.
        let first: Vec<u8> = extensions(&[], 0, 8).filter(|b| is_value_prefix(b, 8, 4)).map(|b| b[0]).collect();
        let want: Vec<u8> = (0x00..=0x7F).chain(0xC2..=0xF4).collect();
        assert_eq!(first, want);
        // After the padding only padding; the value before it must be whole UTF-8.
        assert!(is_value_prefix(b"a\0\0", 24, 4));
        assert!(!is_value_prefix(b"a\0b", 24, 4));
        assert!(!is_value_prefix(b"\xC3\0", 16, 4));
        assert!(!is_value_prefix(&[b'a', 0, 0x10], 20, 4), "a bit after the padding");
        // A character cut at the prefix's end only if its bytes fit in max_bytes.
        assert!(is_value_prefix("é".as_bytes()[..1].as_ref(), 8, 2));
        assert!(!is_value_prefix(b"ab\xE2", 24, 4), "a 3-byte character from byte 3 of 4");
        assert!(is_value_prefix(b"a\xE2\x82", 24, 4));
        assert!(!is_value_prefix(b"a\x82", 16, 4), "a continuation byte after ASCII");
        // A partial byte is not judged: it may start any byte.
        assert!(is_value_prefix(&[b'a', 0x80], 12, 4));
    }
}
