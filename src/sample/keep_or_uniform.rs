//! The keep-or-uniform sampler: P(y|x) = κ·[y = x] + (1 − κ)/g over g outputs (k-RR,
//! Warner's randomised response, `rr_lip` with uniform mixing), drawn from one 64-bit word
//! by one 64 × 32-bit product and a comparison, and no table.
//!
//! # The draw
//! A uniform word r ∈ [0, 2⁶⁴) and the product p = r·g < g·2⁶⁴ (exact, 128 bits) give the
//! bucket y(r) = ⌊p / 2⁶⁴⌋ ∈ [0, g) and the fraction f(r) = p mod 2⁶⁴. The draw keeps x
//! when f(r) < T, and outputs y(r) otherwise. T is ⌊κ·2⁶⁴⌋ (at least 1 when κ > 0).
//!
//! # The exact channel (what the audit reads)
//! Bucket y is the interval of words r ∈ [L_y, L_{y+1}) with L_y = ⌈y·2⁶⁴/g⌉. On it,
//! f(r) = r·g − y·2⁶⁴ runs through the arithmetic progression a_y, a_y + g, a_y + 2g, …
//! below 2⁶⁴, starting at a_y = L_y·g − y·2⁶⁴ = (−y·2⁶⁴) mod g ∈ [0, g). So bucket y holds
//!
//! * n_y = ⌈(2⁶⁴ − a_y)/g⌉ words (Σ_y n_y = 2⁶⁴: the buckets partition the words), of which
//! * c_y = ⌈(T − a_y)/g⌉ when T > a_y, else 0, have f < T: they keep x, and they come first
//!   in the bucket (f increases with r);
//! * the other W_y = n_y − c_y output y.
//!
//! Keeping does not depend on y's value, only on the word, so for every input x
//!
//! P(y|x) = (W_y + [y = x]·W_κ) / 2⁶⁴,  W_κ = Σ_y c_y,
//!
//! exactly: the form of [`super::MixSampler::weights`], the numerators the audit of the
//! mixture reads (`leakage::MixExact`). Each W_y is within 1 of (2⁶⁴ − W_κ)/g, and W_κ
//! within g of T (equal to T when g is odd: then r ↦ r·g mod 2⁶⁴ is a bijection).
//!
//! # Timing and randomness
//! One word per draw, whatever x is; the same instructions for every x (two 32 × 32-bit
//! products for the bucket, one for the fraction, a comparison, a branch-free select), and
//! no memory read that depends on x or on the word: no table, so no cache line to time.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::param::Probability;
use crate::rng::Randomness;

/// Keep the input with probability κ, else a uniform output over g: the exact integer
/// sampler of the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepOrUniform {
    /// g, the number of outputs (and of inputs).
    g: u64,
    /// T: the draw keeps x when its fraction is below T.
    threshold: u64,
}

impl KeepOrUniform {
    /// Keeps with probability κ = `keep`, otherwise draws uniformly over `g` outputs.
    ///
    /// # Errors
    /// `invalid_argument` for κ = 1 (the identity, whose threshold 2⁶⁴ does not fit one
    /// word: [`super::MixSampler::identity`]) or g outside 1..2³².
    pub fn new(keep: Probability, g: usize) -> Result<Self> {
        let keep = keep.get();
        if keep >= 1.0 {
            return Err(Error::invalid(
                "keep",
                alloc::format!(
                    "a keep-or-uniform sampler keeps with a probability in [0, 1), got {}",
                    crate::numeric::Shown(keep)
                ),
            ));
        }
        if g == 0 || g as u64 > u64::from(u32::MAX) {
            return Err(Error::invalid(
                "outputs",
                alloc::format!("a keep-or-uniform sampler needs 1..2^32 outputs, got {g}"),
            ));
        }
        // κ < 1 in f64 is at most 1 − 2⁻⁵³, so κ·2⁶⁴ < 2⁶⁴ and the floor (`as`) fits; a
        // non-zero κ never quantises to 0.
        let scaled = (keep * 18446744073709551616.0) as u64;
        let threshold = if keep > 0.0 { scaled.max(1) } else { 0 };
        Ok(KeepOrUniform { g: g as u64, threshold })
    }

    /// g.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.g as usize
    }
    /// Never true (g ≥ 1).
    pub fn is_empty(&self) -> bool {
        self.g == 0
    }

    /// (W_κ, (W_y)_y): the numerators over 2⁶⁴ of keeping x and of each output y (the
    /// counts of the module documentation, summing to 2⁶⁴).
    pub fn weights(&self) -> (u128, Vec<u128>) {
        // On u64 (g < 2³², so y·m < 2⁶⁴; wasm32 divides u128 in software): m = 2⁶⁴ mod g,
        // a_y = (g − y·m mod g) mod g, n_y = ⌈(2⁶⁴ − a_y)/g⌉ = ⌊(2⁶⁴ − 1 − a_y)/g⌋ + 1, and
        // c_y = ⌊(T − a_y − 1)/g⌋ + 1 when T > a_y.
        let (g, t) = (self.g, self.threshold);
        let m = (u64::MAX % g + 1) % g;
        let mut keep = 0u128;
        let w = (0..g)
            .map(|y| {
                let a = (g - (y * m) % g) % g;
                // n_y = 2⁶⁴ when g = 1: on u128.
                let n = u128::from((u64::MAX - a) / g) + 1;
                let c = if t > a { u128::from((t - a - 1) / g) + 1 } else { 0 };
                keep += c;
                n - c
            })
            .collect();
        (keep, w)
    }

    /// Maps one uniform word to an output for input `x` (branch-free): the same work, and
    /// the same word, whatever `x` is.
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        // p = r·g = A·2³² + B with A = (r >> 32)·g and B = (r mod 2³²)·g, each below 2⁶⁴
        // (g < 2³²), and A + ⌊B / 2³²⌋ < 2⁶⁴: the bucket is its top 32 bits' carry into
        // bit 64, the fraction p's low 64 bits.
        let g = self.g;
        let (a, b) = ((r >> 32) * g, (r & 0xffff_ffff) * g);
        let bucket = ((a + (b >> 32)) >> 32) as usize;
        let fraction = r.wrapping_mul(g);
        let mask = ((fraction < self.threshold) as usize).wrapping_neg();
        (x & mask) | (bucket & !mask)
    }

    /// Replaces every input in `xs` by its draw, one word each, in order (fetched a block
    /// at a time: `draws`). Inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_in_place<R: Randomness + ?Sized>(&self, xs: &mut [u32], rng: &mut R) -> Result<()> {
        super::draws(xs, rng, |x, r| self.sample_word(x, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// κ validated into its type, as a caller does.
    fn new(keep: f64, g: usize) -> Result<KeepOrUniform> {
        KeepOrUniform::new(Probability::new("keep", keep)?, g)
    }
    use rand::{Rng, SeedableRng};

    /// 2⁶⁴.
    const TWO64: u128 = 1 << 64;

    /// The draw of the module documentation, in 128-bit arithmetic: (kept, bucket).
    fn spec(s: &KeepOrUniform, r: u64) -> (bool, usize) {
        let p = u128::from(r) * u128::from(s.g);
        ((p as u64) < s.threshold, (p >> 64) as usize)
    }

    /// What the batch path outputs for input `x` and the one word `r`.
    fn batch_draw(s: &KeepOrUniform, x: u32, r: u64) -> usize {
        let mut xs = [x];
        s.sample_in_place(&mut xs, &mut crate::sample::tests::Words::new(alloc::vec![r])).unwrap();
        xs[0] as usize
    }

    /// Instances: g from 1 to 2³² − 1, κ at the ends and inside, and random ones.
    fn instances() -> Vec<KeepOrUniform> {
        let mut out = Vec::new();
        for g in [1usize, 2, 3, 7, 21, 256, 257, 1000, (1 << 31) + 11, u32::MAX as usize] {
            for keep in [0.0, 1e-300, 0.25, 0.5, (1f64.exp() - 1.0) / (1f64.exp() + g as f64 - 1.0), 1.0 - 1e-16] {
                out.push(new(keep, g).unwrap());
            }
        }
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(32);
        for _ in 0..60 {
            let g = rng.random_range(1..=300);
            let threshold = match rng.random_range(0..4) {
                0 => rng.random_range(0..2 * g as u64),
                1 => u64::MAX - rng.random_range(0..2 * g as u64),
                _ => rng.random(),
            };
            out.push(KeepOrUniform { g: g as u64, threshold });
        }
        out
    }

    #[test]
    fn the_batch_draws_exactly_the_weights_the_audit_reads() {
        // The exact channel of the batch path, counted from its outputs: the buckets'
        // bounds L_y = ⌈y·2⁶⁴/g⌉ from their definition; inside each, the words that keep
        // input x = g (no output's index) come first, found by bisection, and the rest
        // output y. Every count must equal `weights` (W_κ and each W_y), and the weights
        // must sum to 2⁶⁴. Only small g are counted bucket by bucket.
        for s in instances().into_iter().filter(|s| s.g <= 1000) {
            let (g, sentinel) = (s.g as u128, s.g as u32);
            let bound = |y: u128| (y * TWO64).div_ceil(g);
            let (mut keep, mut mass) = (0u128, alloc::vec![0u128; s.len()]);
            for y in 0..g {
                let (lo, hi) = (bound(y), bound(y + 1));
                let out = |r: u128| batch_draw(&s, sentinel, r as u64);
                // The first word of the bucket that outputs y (hi if none does).
                let (mut a, mut b) = (lo, hi);
                while a < b {
                    let mid = a + (b - a) / 2;
                    if out(mid) == y as usize {
                        b = mid
                    } else {
                        a = mid + 1
                    }
                }
                // The bucket is a run of keeps, then a run of y: checked at its ends.
                if a > lo {
                    assert!(out(lo) == s.len() && out(a - 1) == s.len(), "{s:?}, bucket {y}");
                }
                if a < hi {
                    assert!(out(a) == y as usize && out(hi - 1) == y as usize, "{s:?}, bucket {y}");
                }
                keep += a - lo;
                mass[y as usize] += hi - a;
            }
            let (w_keep, w) = s.weights();
            assert_eq!((keep, &mass), (w_keep, &w), "{s:?}");
            assert_eq!(w_keep + w.iter().sum::<u128>(), TWO64, "{s:?}");
        }
    }

    #[test]
    fn every_word_draws_as_the_128_bit_definition() {
        // Random words and the words at the buckets' and the threshold's edges, for every g
        // (up to 2³² − 1, where the 32-bit halves' products come closest to 2⁶⁴).
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(7);
        for s in instances() {
            let g = u128::from(s.g);
            let mut words: Vec<u64> = (0..2000).map(|_| rng.random()).collect();
            for y in [1, 2, g / 2, g - 1] {
                let l = (y * TWO64).div_ceil(g);
                words.extend([l.saturating_sub(1), l, l + 1].map(|v| v.min(u64::MAX as u128) as u64));
            }
            words.extend([0, 1, u64::MAX, u64::MAX - 1, s.threshold, s.threshold.wrapping_sub(1)]);
            for r in words {
                let (kept, bucket) = spec(&s, r);
                let x = (r % s.g) as usize;
                assert_eq!(s.sample_word(x, r), if kept { x } else { bucket }, "{s:?}, r = {r:#x}");
            }
        }
    }

    #[test]
    fn keep_quantises_down_and_never_to_zero() {
        let s = new(0.5, 3).unwrap();
        assert_eq!(s.threshold, 1 << 63);
        // g odd: r ↦ r·g mod 2⁶⁴ is a bijection, so W_κ = T exactly.
        assert_eq!(s.weights().0, 1 << 63);
        assert_eq!(new(1e-300, 5).unwrap().threshold, 1);
        assert_eq!(
            new(0.0, 5).unwrap().weights(),
            (0, alloc::vec![TWO64 / 5 + 1, TWO64 / 5, TWO64 / 5, TWO64 / 5, TWO64 / 5])
        );
        for (keep, g) in [(1.0, 3), (f64::NAN, 3), (-0.1, 3), (0.5, 0), (0.5, 1 << 32)] {
            assert!(matches!(new(keep, g), Err(Error::InvalidArgument { .. })), "{keep}, {g}");
        }
    }

    #[test]
    fn every_input_consumes_the_same_words() {
        // The randomness a batch consumes does not depend on the inputs: 8 bytes a report,
        // one word each, in order, for every x.
        let s = new(0.3, 21).unwrap();
        let words: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for x in 0..21u32 {
            let mut source = crate::sample::tests::Words::new(words.clone());
            let mut xs = alloc::vec![x; words.len()];
            s.sample_in_place(&mut xs, &mut source).unwrap();
            assert_eq!(source.consumed(), 8 * words.len(), "x = {x}");
            assert!(xs.iter().zip(&words).all(|(&y, &r)| y as usize == s.sample_word(x as usize, r)));
        }
    }
}
