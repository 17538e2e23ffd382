//! Heavy hitters without a dictionary: the prefix extending method (PEM; Wang, Li, Jha,
//! "Locally Differentially Private Heavy Hitter Identification", arXiv 1708.06674, §4).
//!
//! A value is its bytes padded with 0x00 to `max_bytes`; the users of round r report OLH
//! of its first ℓ_r bits (`prefix_bits`, ℓ_R = 8·max_bytes). The curator estimates every
//! one of the 2^ℓ_1 prefixes of round 1 from its group, keeps the [`KEEP_FACTOR`]·K most
//! frequent, extends each by the next ℓ_{r+1} − ℓ_r bits, estimates those from round
//! r + 1's group, and so on; the last round's K most frequent are the answer, with their
//! frequency estimated (and its standard error) from the last group, an unbiased sample
//! of the population. Values are the padded bytes with the trailing NULs stripped; bytes
//! that are not UTF-8, or hold a NUL inside, are no value and are dropped.

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::OpenMechanism;
use privlift::{Error, Result};

use super::estimate::{olh_frequencies, support_counts};
use super::{Randomiser, Report};

/// Prefixes kept per round: this many times the K asked for (a margin for the prefixes
/// of true heavy hitters that the noise ranks just below the K-th).
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
    let mut kept: Vec<Vec<u8>> = alloc::vec![Vec::new()];
    let mut last = None;
    let mut from = 0u32;
    for (r, (&bits, (seeds, ys))) in prefix_bits.iter().zip(&groups).enumerate() {
        let step = bits.checked_sub(from).filter(|s| (1..=MAX_STEP_BITS).contains(s)).ok_or_else(|| {
            Error::invalid(
                "prefix_bits",
                alloc::format!("round {r} extends by more than {MAX_STEP_BITS} bits, or by none"),
            )
        })?;
        let candidates: Vec<Vec<u8>> = kept.iter().flat_map(|p| extensions(p, from, step)).collect();
        let refs: Vec<&[u8]> = candidates.iter().map(Vec::as_slice).collect();
        let counts = support_counts(seeds, ys, *g, &refs);
        let f = olh_frequencies(&counts, seeds.len() as u64, randomiser, "pem");
        let keep = if r + 1 == prefix_bits.len() { candidates.len() } else { KEEP_FACTOR * top };
        let order = ranked(&f.estimate, &candidates, keep);
        kept = order.iter().map(|&i| candidates[i].clone()).collect();
        last = Some((order, f));
        from = bits;
    }
    if from as usize != 8 * max_bytes {
        return Err(Error::invalid("prefix_bits", "the last round must cover every bit of max_bytes"));
    }
    let mut out =
        HeavyHitters { values: Vec::new(), estimate: Vec::new(), std_error: Vec::new(), n: reports.len() as u64 };
    if let Some((order, f)) = last {
        for (i, bytes) in order.into_iter().zip(kept) {
            if out.values.len() == top {
                break;
            }
            if let Some(v) = value_of(bytes) {
                out.values.push(v);
                out.estimate.push(f.estimate[i]);
                out.std_error.push(f.std_error[i]);
            }
        }
    }
    Ok(out)
}

/// The indices of the `keep` largest estimates (NaN last), ties by candidate bytes.
fn ranked(estimate: &[f64], candidates: &[Vec<u8>], keep: usize) -> Vec<usize> {
    let key = |i: usize| if estimate[i].is_nan() { f64::NEG_INFINITY } else { estimate[i] };
    let mut order: Vec<usize> = (0..estimate.len()).collect();
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then_with(|| candidates[a].cmp(&candidates[b])));
    order.truncate(keep);
    order
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
}
