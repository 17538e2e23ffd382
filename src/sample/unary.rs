//! Exact sampler for unary encoding: every bit is an independent Bernoulli draw from
//! one 64-bit word against an integer threshold, so P(bit = 1) is exactly `T/2⁶⁴`.
//!
//! Timing: a report of |X| bits always consumes |X| words and does |X| comparisons;
//! the threshold for bit j is selected branch-free from (j == x). Nothing else depends
//! on x.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::param::Probability;

const TWO64: f64 = 18446744073709551616.0;

/// `round(p·2⁶⁴)` as u128 (so that p = 1 is representable).
fn threshold(p: f64) -> Result<u128> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid("probability", alloc::format!("{p} ∉ [0, 1]", p = crate::numeric::Shown(p))));
    }
    let t = libm::round(p * TWO64) as u128;
    // A non-zero probability never becomes 0, and p < 1 never becomes 1.
    Ok(if p > 0.0 && t == 0 {
        1
    } else if p < 1.0 && t >= 1u128 << 64 {
        (1u128 << 64) - 1
    } else {
        t
    })
}

/// Bit-flip sampler of unary encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnarySampler {
    k: usize,
    /// Threshold for the bit of the true value: P(1) = 1 − q10.
    hot: u128,
    /// Threshold for every other bit: P(1) = q01.
    cold: u128,
}

impl UnarySampler {
    /// A sampler of `k`-bit reports: each other bit is 1 with probability `q01`, the true
    /// value's bit is 0 with probability `q10`; `invalid_argument` unless both are in `[0, 1]`.
    pub fn new(k: usize, q01: Probability, q10: Probability) -> Result<Self> {
        Ok(UnarySampler { k, hot: threshold(1.0 - q10.get())?, cold: threshold(q01.get())? })
    }

    /// The exact (q01, q10) the sampler draws with, each rounded once to f64.
    pub fn effective(&self) -> (Probability, Probability) {
        (Probability::computed(self.cold as f64 / TWO64), Probability::computed(1.0 - self.hot as f64 / TWO64))
    }

    /// Number of bits of a report (the size of the input alphabet).
    pub fn len(&self) -> usize {
        self.k
    }
    /// Whether a report has no bits.
    pub fn is_empty(&self) -> bool {
        self.k == 0
    }

    /// One report for input `x` from `k` uniform words.
    pub fn sample_words(&self, x: usize, words: &[u64]) -> Vec<bool> {
        let diff = self.hot ^ self.cold;
        words
            .iter()
            .take(self.k)
            .enumerate()
            .map(|(j, &r)| {
                let mask = ((j == x) as u128).wrapping_neg();
                let t = self.cold ^ (diff & mask);
                (r as u128) < t
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(p: f64) -> Probability {
        Probability::new("q", p).unwrap()
    }

    #[test]
    fn thresholds_are_exact_and_never_collapse() {
        let s = UnarySampler::new(4, pr(0.25), pr(0.5)).unwrap();
        assert_eq!((s.effective().0.get(), s.effective().1.get()), (0.25, 0.5));
        assert_eq!(threshold(1e-30).unwrap(), 1);
        assert_eq!(threshold(1.0).unwrap(), 1u128 << 64);
        assert!(threshold(1.0 - f64::EPSILON / 2.0).unwrap() < 1u128 << 64);
        assert!(threshold(1.5).is_err());
        // Word 0 is below every non-zero threshold; u64::MAX is below only p = 1.
        let s = UnarySampler::new(3, pr(0.3), pr(0.0)).unwrap();
        assert_eq!(s.sample_words(1, &[0, 0, 0]), [true, true, true]);
        assert_eq!(s.sample_words(1, &[u64::MAX; 3]), [false, true, false]);
    }
}
