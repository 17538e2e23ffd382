//! The keep-or-uniform sampler: P(y|x) = κ·[y = x] + (1 − κ)/g over g outputs (k-RR,
//! Warner's randomised response, `rr_lip` with uniform mixing), drawn from one uniform
//! word — 32 bits when the exact check below allows it, else 64 — by one product and a
//! comparison, and no table.
//!
//! # The 64-bit draw
//! A uniform word r ∈ [0, 2⁶⁴) and the product p = r·g < g·2⁶⁴ (exact, 128 bits) give the
//! bucket y(r) = ⌊p / 2⁶⁴⌋ ∈ [0, g) and the fraction f(r) = p mod 2⁶⁴. The draw keeps x
//! when f(r) < T, and outputs y(r) otherwise. T is ⌊κ·2⁶⁴⌋ (at least 1 when κ > 0).
//!
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
//! # The 32-bit draw
//! A uniform word r ∈ [0, 2³²), p = r·g < g·2³² (one 64-bit product), the bucket
//! y(r) = ⌊p / 2³²⌋ and the fraction f(r) = p mod 2³², as above over 2³². Here the draw
//! outputs y(r) when f(r) < F = g·w, and keeps x otherwise: the outputs come first in each
//! bucket. The fractions of bucket y are a_y + j·g (a_y ∈ [0, g)), and those below g·w are
//! exactly j = 0 … w − 1, all below 2³² when g·w ≤ 2³²: **every bucket outputs y on exactly
//! w words**, and W_κ = 2³² − g·w. The channel is exactly κ₃₂·I + (1 − κ₃₂)/g with
//! κ₃₂ = 1 − g·w/2³², no output favoured by a rounding.
//!
//! w = ⌈(2³² − ⌊κ·2³²⌋)/g⌉, the smallest with g·w ≥ (1 − κ)·2³², so κ₃₂ ≤ κ: the channel
//! drawn is the document's followed by a garbling (keep the output with probability
//! κ₃₂/κ, else draw it uniformly), so every leakage the audit reads — LDP, LIP, ALIP, the
//! lift measures, mutual information — is at most the document's, exactly, and every claim
//! the document's channel meets the drawn one meets. What it costs is utility: κ₃₂ falls
//! short of κ by Δ < g/2³², which the curator's estimates from the document's κ carry as a
//! bias of at most Δ/κ of a frequency's distance to 1/g. The 32-bit draw is used only
//! when Δ is below a tenth of the standard error of a frequency estimated from
//! [`FIDELITY_REPORTS`] reports (`fits_32_bits`); otherwise (large g, where the grid of
//! 2³² is coarse: k = 4096 at ε = 1 loses 0.2 % of κ; or g·w > 2³², as for κ = 0 and g not a
//! power of 2) the draw takes 64 bits.
//!
//! # Timing and randomness
//! One word per draw, whatever x is (4 bytes or 8 in a batch, fixed by the document); the
//! same instructions for every x (the products, a comparison, a branch-free select), and no
//! memory read that depends on x or on the word: no table, so no cache line to time.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::param::Probability;
use crate::rng::Randomness;

/// The number of reports up to which a 32-bit draw's bias stays below a tenth of the
/// standard error of every frequency estimate (`fits_32_bits`): a billion.
pub const FIDELITY_REPORTS: f64 = 1e9;

/// Keep the input with probability κ, else a uniform output over g: the exact integer
/// sampler of the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepOrUniform {
    /// g, the number of outputs (and of inputs).
    g: u64,
    /// How a word is drawn.
    word: Word,
}

/// The word of a draw and its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// 64 bits: keeps x when the fraction is below `threshold` (T).
    Bits64 { threshold: u64 },
    /// 32 bits: outputs the bucket when the fraction is below `outputs` (F = g·w ≤ 2³²),
    /// else keeps x.
    Bits32 { outputs: u64 },
}

/// 2³².
const TWO32: u64 = 1 << 32;

/// F = g·w of the 32-bit draw of κ = `keep` over `g` outputs, if g·w ≤ 2³² and its Δ
/// passes the fidelity check of the module documentation: Δ ≤ σ/10, with σ the standard
/// error of a frequency from [`FIDELITY_REPORTS`] reports, √(q(1 − q)/N)/κ at the least
/// likely output probability q ∈ {(1 − κ)/g, κ + (1 − κ)/g}: Δ/κ·|f − 1/g| ≤ Δ/κ ≤ σ/10.
fn fits_32_bits(keep: f64, g: u64) -> Option<u64> {
    // κ·2³² is exact in f64 (a power of 2), and its floor fits: κ < 1.
    let kept = (keep * TWO32 as f64) as u64;
    let w = (TWO32 - kept).div_ceil(g);
    let outputs = g.checked_mul(w).filter(|&f| f <= TWO32)?;
    let kept32 = TWO32 - outputs;
    // Δ ≥ 0: kept32 ≤ kept ≤ κ·2³². Both terms are exact; the difference rounds once.
    let delta = keep - kept32 as f64 / TWO32 as f64;
    let off = (1.0 - keep) / g as f64;
    let var = |q: f64| q * (1.0 - q);
    let sd = libm::sqrt(var(off).min(var(keep + off)) / FIDELITY_REPORTS) / keep;
    (keep == 0.0 && delta == 0.0 || delta / keep <= sd / 10.0).then_some(outputs)
}

impl KeepOrUniform {
    /// Keeps with probability κ = `keep`, otherwise draws uniformly over `g` outputs.
    ///
    /// # Errors
    /// `invalid_argument` for κ outside [0, 1) (κ = 1 is the identity, whose threshold
    /// 2⁶⁴ does not fit one word: [`super::MixSampler::identity`]) or g outside 1..2³².
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
        let g = g as u64;
        if let Some(outputs) = fits_32_bits(keep, g) {
            return Ok(KeepOrUniform { g, word: Word::Bits32 { outputs } });
        }
        Ok(Self::bits64(keep, g))
    }

    /// The 64-bit draw of κ = `keep` (in [0, 1)) over `g` (in 1..2³²) outputs.
    fn bits64(keep: f64, g: u64) -> Self {
        // κ < 1 in f64 is at most 1 − 2⁻⁵³, so κ·2⁶⁴ < 2⁶⁴ and the floor (`as`) fits; a
        // non-zero κ never quantises to 0.
        let scaled = (keep * 18446744073709551616.0) as u64;
        let threshold = if keep > 0.0 { scaled.max(1) } else { 0 };
        KeepOrUniform { g, word: Word::Bits64 { threshold } }
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

    /// The bytes of randomness a draw takes: 4 or 8.
    pub fn word_bytes(&self) -> usize {
        match self.word {
            Word::Bits64 { .. } => 8,
            Word::Bits32 { .. } => 4,
        }
    }

    /// (W_κ, (W_y)_y): the numerators over 2⁶⁴ of keeping x and of each output y (the
    /// counts of the module documentation, summing to 2⁶⁴; the 32-bit draw's times 2³²).
    pub fn weights(&self) -> (u128, Vec<u128>) {
        let (g, t) = match self.word {
            Word::Bits32 { outputs } => {
                let w = u128::from(outputs / self.g) << 32;
                return (u128::from(TWO32 - outputs) << 32, alloc::vec![w; self.g as usize]);
            }
            Word::Bits64 { threshold } => (self.g, threshold),
        };
        // On u64 (wasm32 divides u128 in software): m = 2⁶⁴ mod g, a_y = (g − y·m mod g)
        // mod g, n_y = ⌈(2⁶⁴ − a_y)/g⌉ = ⌊(2⁶⁴ − 1 − a_y)/g⌋ + 1, and c_y = ⌊(T − a_y −
        // 1)/g⌋ + 1 when T > a_y. No division per y: y·m mod g steps by m, and as 0 ≤ a_y < g,
        // ⌊(N − a_y)/g⌋ = ⌊N/g⌋ − [a_y > N mod g] for N = 2⁶⁴ − 1 and, when T > a_y, N = T − 1.
        let m = (u64::MAX % g + 1) % g;
        let (n_quot, n_rem) = (u64::MAX / g, u64::MAX % g);
        let (t_quot, t_rem) = match t.checked_sub(1) {
            Some(t1) => (t1 / g, t1 % g),
            None => (0, 0),
        };
        let (mut keep, mut ym) = (0u128, 0u64);
        let w = (0..g)
            .map(|_| {
                let a = if ym == 0 { 0 } else { g - ym };
                ym += m; // < 2g ≤ 2³³
                if ym >= g {
                    ym -= g;
                }
                // n_y = 2⁶⁴ when g = 1: on u128.
                let n = u128::from(n_quot - u64::from(a > n_rem)) + 1;
                let c = if t > a { u128::from(t_quot - u64::from(a > t_rem)) + 1 } else { 0 };
                keep += c;
                n - c
            })
            .collect();
        (keep, w)
    }

    /// Maps one uniform word to an output for input `x` (branch-free): the same work, and
    /// the same word, whatever `x` is. The 32-bit draw reads the word's low 32 bits.
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        match self.word {
            Word::Bits64 { threshold } => Self::draw64(self.g, threshold, x, r),
            Word::Bits32 { outputs } => Self::draw32(self.g, outputs, x, r as u32),
        }
    }

    /// The 64-bit draw.
    #[inline(always)]
    fn draw64(g: u64, threshold: u64, x: usize, r: u64) -> usize {
        // p = r·g = A·2³² + B with A = (r >> 32)·g and B = (r mod 2³²)·g, each below 2⁶⁴
        // (g < 2³²), and A + ⌊B / 2³²⌋ < 2⁶⁴: the bucket is its top 32 bits' carry into
        // bit 64, the fraction p's low 64 bits.
        let (a, b) = ((r >> 32) * g, (r & 0xffff_ffff) * g);
        let bucket = ((a + (b >> 32)) >> 32) as usize;
        let fraction = r.wrapping_mul(g);
        let mask = ((fraction < threshold) as usize).wrapping_neg();
        (x & mask) | (bucket & !mask)
    }

    /// The 32-bit draw.
    #[inline(always)]
    fn draw32(g: u64, outputs: u64, x: usize, r: u32) -> usize {
        let p = u64::from(r) * g;
        let mask = (((p & 0xffff_ffff) >= outputs) as usize).wrapping_neg();
        (x & mask) | ((p >> 32) as usize & !mask)
    }

    /// Replaces every input in `xs` by its draw, one word each, in order (fetched a block
    /// at a time: `draws` for 64-bit words; 32-bit words a block at a time through
    /// `draw32_block`). Inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_in_place<R: Randomness + ?Sized>(&self, xs: &mut [u32], rng: &mut R) -> Result<()> {
        let g = self.g;
        match self.word {
            Word::Bits64 { threshold } => super::draws(xs, rng, |x, r| Self::draw64(g, threshold, x, r)),
            Word::Bits32 { outputs } => {
                super::in_blocks_with::<4, R>(xs, rng, |chunk, bytes| Self::draw32_block(g, outputs, chunk, bytes))
            }
        }
    }

    /// The 32-bit draw of every input of `xs`, input i from the little-endian word
    /// `bytes[4i..4i + 4]`: four inputs an instruction where the build has wasm SIMD
    /// (`sample::simd`), the rest one at a time. The same outputs either way.
    #[inline(always)]
    fn draw32_block(g: u64, outputs: u64, xs: &mut [u32], bytes: &[u8]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let done = super::simd::draw32(g, outputs, xs, bytes);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let done = 0;
        for i in done..xs.len().min(bytes.len() / 4) {
            let r = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]));
            xs[i] = Self::draw32(g, outputs, xs[i] as usize, r) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    /// κ validated into its type, as a caller does.
    fn new(keep: f64, g: usize) -> Result<KeepOrUniform> {
        KeepOrUniform::new(Probability::new("keep", keep)?, g)
    }
    use super::*;
    use rand::{Rng, SeedableRng};

    /// 2⁶⁴.
    const TWO64: u128 = 1 << 64;

    /// The draw of the module documentation, in 128-bit arithmetic: (kept, bucket).
    fn spec(s: &KeepOrUniform, r: u64) -> (bool, usize) {
        match s.word {
            Word::Bits64 { threshold } => {
                let p = u128::from(r) * u128::from(s.g);
                ((p as u64) < threshold, (p >> 64) as usize)
            }
            Word::Bits32 { outputs } => {
                let p = u128::from(r as u32) * u128::from(s.g);
                (p % (1 << 32) >= u128::from(outputs), (p >> 32) as usize)
            }
        }
    }

    /// The words a draw reads: 2⁶⁴ or 2³².
    fn words(s: &KeepOrUniform) -> u128 {
        1 << (8 * s.word_bytes())
    }

    /// What the batch path outputs for input `x` and the one word `r` (its low 32 bits
    /// for a 32-bit draw: the first four bytes of the source).
    fn batch_draw(s: &KeepOrUniform, x: u32, r: u64) -> usize {
        let mut xs = [x];
        s.sample_in_place(&mut xs, &mut crate::sample::tests::Words::new(alloc::vec![r])).unwrap();
        xs[0] as usize
    }

    /// The 32-bit draw that outputs on `w` words of each bucket.
    fn bits32(g: u64, w: u64) -> KeepOrUniform {
        KeepOrUniform { g, word: Word::Bits32 { outputs: g * w } }
    }

    /// Instances: g from 1 to 2³² − 1, κ at the ends and inside, and random ones, with
    /// both draws.
    fn instances() -> Vec<KeepOrUniform> {
        let mut out = Vec::new();
        for g in [1usize, 2, 3, 7, 21, 256, 257, 1000, 4096, (1 << 31) + 11, u32::MAX as usize] {
            for keep in [0.0, 1e-300, 0.25, 0.5, (1f64.exp() - 1.0) / (1f64.exp() + g as f64 - 1.0), 1.0 - 1e-16] {
                out.push(new(keep, g).unwrap());
                out.push(KeepOrUniform::bits64(keep, g as u64));
            }
        }
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(32);
        for _ in 0..60 {
            let g = rng.random_range(1..=300);
            let threshold = match rng.random_range(0..4) {
                0 => rng.random_range(0..2 * g),
                1 => u64::MAX - rng.random_range(0..2 * g),
                _ => rng.random(),
            };
            out.push(KeepOrUniform { g, word: Word::Bits64 { threshold } });
            let w_max = TWO32 / g;
            out.push(bits32(g, [0, 1, w_max, w_max - 1, rng.random_range(0..=w_max)][rng.random_range(0..5)]));
        }
        out.extend([bits32(u32::MAX.into(), 1), bits32(1 << 31, 2), bits32(1, TWO32)]);
        out
    }

    #[test]
    fn the_batch_draws_exactly_the_weights_the_audit_reads() {
        // The exact channel of the batch path, counted from its outputs: the buckets'
        // bounds L_y = ⌈y·2ᵇ/g⌉ (b = 64 or 32) from their definition; each bucket is two
        // runs — the words that keep input x = g (no output's index) and those that output
        // y, in either order — whose boundary is found by bisection. Every count, scaled to
        // 2⁶⁴, must equal `weights` (W_κ and each W_y), and the weights must sum to 2⁶⁴.
        // Only small g are counted bucket by bucket.
        for s in instances().into_iter().filter(|s| s.g <= 1000) {
            let (g, sentinel, total) = (s.g as u128, s.g as u32, words(&s));
            let bound = |y: u128| (y * total).div_ceil(g);
            let out = |r: u128| batch_draw(&s, sentinel, r as u64);
            let (mut keep, mut mass) = (0u128, alloc::vec![0u128; s.len()]);
            for y in 0..g {
                let (lo, hi) = (bound(y), bound(y + 1));
                if lo == hi {
                    continue;
                }
                let first = out(lo);
                assert!(first == s.len() || first == y as usize, "{s:?}, bucket {y}");
                // The first word of the bucket that draws otherwise than its first (hi if none).
                let (mut a, mut b) = (lo, hi);
                while a < b {
                    let mid = a + (b - a) / 2;
                    if out(mid) != first {
                        b = mid
                    } else {
                        a = mid + 1
                    }
                }
                // Two runs: checked at their ends.
                assert_eq!(out(a - 1), first, "{s:?}, bucket {y}");
                if a < hi {
                    let second = out(a);
                    assert!(second != first && (second == s.len() || second == y as usize), "{s:?}, bucket {y}");
                    assert_eq!(out(hi - 1), second, "{s:?}, bucket {y}");
                }
                let (runs, scale) = ([a - lo, hi - a], TWO64 / total);
                let kept = if first == s.len() { runs[0] } else { runs[1] };
                keep += kept * scale;
                mass[y as usize] += (hi - lo - kept) * scale;
            }
            let (w_keep, w) = s.weights();
            assert_eq!((keep, &mass), (w_keep, &w), "{s:?}");
            assert_eq!(w_keep + w.iter().sum::<u128>(), TWO64, "{s:?}");
        }
    }

    /// The division-free weights equal the formula with two divisions per output, for
    /// every instance's g and random thresholds (T = 0 and T at the buckets' edges too).
    #[test]
    fn weights_equal_the_divided_formula() {
        let divided = |g: u64, t: u64| {
            let m = (u64::MAX % g + 1) % g;
            let mut keep = 0u128;
            let w: Vec<u128> = (0..g)
                .map(|y| {
                    let a = (g - (y * m) % g) % g;
                    let n = u128::from((u64::MAX - a) / g) + 1;
                    let c = if t > a { u128::from((t - a - 1) / g) + 1 } else { 0 };
                    keep += c;
                    n - c
                })
                .collect();
            (keep, w)
        };
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(11);
        for g in [1u64, 2, 3, 5, 7, 64, 1000, 4096, 65_521] {
            let mut ts = alloc::vec![0u64, 1, g - 1, g, g + 1, u64::MAX];
            ts.extend((0..8).map(|_| rng.random::<u64>()));
            for t in ts {
                let s = KeepOrUniform { g, word: Word::Bits64 { threshold: t } };
                assert_eq!(s.weights(), divided(g, t), "g = {g}, T = {t}");
            }
        }
    }

    #[test]
    fn every_word_draws_as_the_128_bit_definition() {
        // Random words and the words at the buckets' and the threshold's edges, for every g
        // (up to 2³² − 1, where the 32-bit halves' products come closest to 2⁶⁴).
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(7);
        for s in instances() {
            let (g, total) = (u128::from(s.g), words(&s));
            let mut words: Vec<u64> = (0..2000).map(|_| rng.random()).collect();
            for y in [1, 2, g / 2, g - 1] {
                let l = (y * total).div_ceil(g);
                words.extend([l.saturating_sub(1), l, l + 1].map(|v| v.min(u64::MAX as u128) as u64));
            }
            let edge = match s.word {
                Word::Bits64 { threshold } => threshold,
                Word::Bits32 { outputs } => outputs,
            };
            words.extend([0, 1, u64::MAX, u64::MAX - 1, u32::MAX.into(), edge, edge.wrapping_sub(1)]);
            for r in words {
                let (kept, bucket) = spec(&s, r);
                let x = (r % s.g) as usize;
                assert_eq!(s.sample_word(x, r), if kept { x } else { bucket }, "{s:?}, r = {r:#x}");
                assert_eq!(batch_draw(&s, x as u32, r), s.sample_word(x, r), "{s:?}, r = {r:#x}");
            }
        }
    }

    #[test]
    fn the_32_bit_draw_is_uniform_and_keeps_at_most_kappa() {
        // Every 32-bit draw the constructor picks: each output's weight the same (no output
        // favoured), and W_κ ≤ κ·2⁶⁴ (exact: a product by a power of 2), so that its channel
        // is the document's garbled (module documentation) and no leakage exceeds it.
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(33);
        let mut picked = 0;
        for _ in 0..3000 {
            let g = rng.random_range(1..=2000usize);
            let keep = match rng.random_range(0..3) {
                0 => rng.random::<f64>(),
                1 => {
                    let e = rng.random_range(0.01f64..8.0).exp();
                    (e - 1.0) / (e + g as f64 - 1.0)
                }
                _ => rng.random_range(0.0..1e-6),
            };
            let s = new(keep, g).unwrap();
            let (w_keep, w) = s.weights();
            if s.word_bytes() == 4 {
                picked += 1;
                assert!(w.iter().all(|&v| v == w[0]), "{s:?}");
                assert!(w_keep <= (keep * TWO64 as f64) as u128, "{s:?}, κ = {keep}");
            }
        }
        assert!(picked > 1000, "{picked}");
    }

    #[test]
    fn the_word_is_32_bits_where_its_bias_is_below_the_noise() {
        // k-RR at ε: κ = (e^ε − 1)/(e^ε + k − 1). At ε = 1, k = 2, 21 and 256 draw 32 bits;
        // k = 4096 (κ short by 0.2 %) and κ = 0 over g not a power of 2 (g·w > 2³²) draw 64.
        let krr = |eps: f64, k: usize| new((eps.exp() - 1.0) / (eps.exp() + k as f64 - 1.0), k).unwrap();
        for k in [2, 21, 256] {
            assert_eq!(krr(1.0, k).word_bytes(), 4, "k = {k}");
        }
        assert_eq!(krr(1.0, 4096).word_bytes(), 8);
        assert_eq!(new(0.0, 5).unwrap().word_bytes(), 8);
        let uniform = new(0.0, 4).unwrap();
        assert_eq!(uniform.weights(), (0, alloc::vec![TWO64 / 4; 4]));
        // The loss at k = 4096 that the check refuses, and the one it accepts at k = 256.
        let loss = |k: usize| {
            let e = 1f64.exp();
            let keep = (e - 1.0) / (e + k as f64 - 1.0);
            let outputs = (k as u64) * (TWO32 - (keep * TWO32 as f64) as u64).div_ceil(k as u64);
            1.0 - (TWO32 - outputs) as f64 / TWO32 as f64 / keep
        };
        assert!(loss(4096) > 1e-3 && loss(256) < 1e-5, "{} {}", loss(4096), loss(256));
    }

    #[test]
    fn keep_quantises_down_and_never_to_zero() {
        let s = KeepOrUniform::bits64(0.5, 3);
        assert_eq!(s.word, Word::Bits64 { threshold: 1 << 63 });
        // g odd: r ↦ r·g mod 2⁶⁴ is a bijection, so W_κ = T exactly.
        assert_eq!(s.weights().0, 1 << 63);
        assert_eq!(new(1e-300, 5).unwrap().word, Word::Bits64 { threshold: 1 });
        assert_eq!(
            KeepOrUniform::bits64(0.0, 5).weights(),
            (0, alloc::vec![TWO64 / 5 + 1, TWO64 / 5, TWO64 / 5, TWO64 / 5, TWO64 / 5])
        );
        // The 32-bit draw of κ = 1/2 over 3: w = ⌈2³¹/3⌉ words an output, the rest keep.
        let w = (1u64 << 31).div_ceil(3);
        assert_eq!(new(0.5, 3).unwrap(), bits32(3, w));
        assert_eq!(bits32(3, w).weights(), (u128::from(TWO32 - 3 * w) << 32, alloc::vec![u128::from(w) << 32; 3]));
        for (keep, g) in [(1.0, 3), (f64::NAN, 3), (-0.1, 3), (0.5, 0), (0.5, 1 << 32)] {
            assert!(matches!(new(keep, g), Err(Error::InvalidArgument { .. })), "{keep}, {g}");
        }
    }

    #[test]
    fn every_input_consumes_the_same_words() {
        // The randomness a batch consumes does not depend on the inputs: one word a report,
        // in order, for every x (8 bytes, or 4 for a 32-bit draw).
        let words: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for s in [KeepOrUniform::bits64(0.3, 21), new(0.3, 21).unwrap()] {
            let bytes = s.word_bytes();
            // The words as the batch reads them: 8 bytes each, or each 64-bit word's halves.
            let drawn: Vec<u64> = match bytes {
                8 => words.clone(),
                _ => words.iter().flat_map(|&w| [w & 0xffff_ffff, w >> 32]).collect(),
            };
            for x in 0..21u32 {
                let mut source = crate::sample::tests::Words::new(words.clone());
                let mut xs = alloc::vec![x; drawn.len()];
                s.sample_in_place(&mut xs, &mut source).unwrap();
                assert_eq!(source.consumed(), bytes * drawn.len(), "x = {x}");
                assert!(xs.iter().zip(&drawn).all(|(&y, &r)| y as usize == s.sample_word(x as usize, r)));
            }
        }
    }
}
