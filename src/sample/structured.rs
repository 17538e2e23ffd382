//! Exact samplers of the structured kinds, none of which holds a |X| × |Y| table:
//!
//! * [`MixSampler`]: P(y|x) = κ·[y = x] + (1 − κ)·m_y (k-RR, Jiang et al. eq 19, the
//!   identity): for a uniform m and κ < 1 the table-free [`KeepOrUniform`]; otherwise one
//!   alias draw over k + 1 outcomes — output y with weight (1 − κ)·m_y, or "keep x" with
//!   weight κ — then a branch-free select. One word per draw for every x, O(|Y|) memory.
//! * [`SparseSampler`]: one alias table per row over that row's non-zero entries.
//! * [`Categorical::Merge`]: the block b(x) of a partition, then the inner sampler.
//!
//! Exactness is as in [`super::alias`]: each probability is an integer over 2⁶⁴, and those
//! integers are what the audit reads.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::alias::{AliasTable, DenseSampler};
use super::KeepOrUniform;
use crate::error::Result;
use crate::param::Probability;
use crate::rng::Randomness;

/// P(y|x) = (W_κ·[y = x] + W_y) / 2⁶⁴ over |X| = |Y| = k, with W_κ + Σ_y W_y = 2⁶⁴.
///
/// A uniform mixing with κ < 1 (`krr`, `rr_lip` with equal weights) draws by
/// [`KeepOrUniform`]: one 64 × 32-bit product of the word and a comparison, no table. Any
/// other is one alias table over the k + 1 outcomes "output y" (W_y, the quantised
/// (1 − κ)·m_y) and "keep x" (outcome k, W_κ, the quantised κ).
///
/// One 64-bit word per draw (not a Bernoulli(κ) word and an alias word from m): each
/// probability is one integer over 2⁶⁴, not a product of two over 2¹²⁸.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixSampler {
    draw: MixDraw,
}

/// How a [`MixSampler`] maps a word to an outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
enum MixDraw {
    /// Keep, else uniform: no table.
    Uniform(KeepOrUniform),
    /// One alias table over the outputs and "keep" (the last outcome).
    Alias(AliasTable),
}

impl MixSampler {
    /// The sampler of κ = `keep` and the mixing distribution `mixing` (its length is k;
    /// normalised here, as an alias row is).
    ///
    /// # Errors
    /// `invalid_argument` for a bad mixing row (negative or non-finite entries, or a zero
    /// sum).
    pub fn new(keep: Probability, mixing: &[f64]) -> Result<Self> {
        let sum = super::alias::checked_sum(mixing)?;
        if keep.get() < 1.0 && mixing.iter().all(|&m| m == mixing[0]) {
            return Ok(MixSampler { draw: MixDraw::Uniform(KeepOrUniform::new(keep, mixing.len())?) });
        }
        let keep = keep.get();
        let mut p: Vec<f64> = mixing.iter().map(|&m| (1.0 - keep) * (m / sum)).collect();
        p.push(keep);
        Ok(MixSampler { draw: MixDraw::Alias(AliasTable::new(&p)?) })
    }

    /// The identity on `k` symbols (κ = 1).
    pub fn identity(k: usize) -> Result<Self> {
        Self::new(Probability::ONE, &alloc::vec![1.0; k])
    }

    /// k.
    #[inline(always)]
    pub fn len(&self) -> usize {
        match &self.draw {
            MixDraw::Uniform(u) => u.len(),
            MixDraw::Alias(table) => table.len() - 1,
        }
    }
    /// Never true (a sampler has at least one symbol).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// (W_κ, (W_y)_y): the numerators over 2⁶⁴ of keeping x and of each output y.
    pub fn weights(&self) -> (u128, Vec<u128>) {
        match &self.draw {
            MixDraw::Uniform(u) => u.weights(),
            MixDraw::Alias(table) => {
                let mut w = table.weights();
                let keep = w.pop().unwrap_or(0);
                (keep, w)
            }
        }
    }

    /// Maps one uniform word to an output for input `x` (branch-free): the same work,
    /// and the same word, whatever `x` is.
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        match &self.draw {
            MixDraw::Uniform(u) => u.sample_word(x, r),
            MixDraw::Alias(table) => Self::alias_word(table, x, r),
        }
    }

    /// The alias draw: outcome k (the last) keeps x.
    #[inline(always)]
    fn alias_word(table: &AliasTable, x: usize, r: u64) -> usize {
        let drawn = table.sample_word(r);
        let mask = ((drawn == table.len() - 1) as usize).wrapping_neg();
        (x & mask) | (drawn & !mask)
    }

    /// The bytes of randomness a batch draw takes: 4 for a 32-bit keep-or-uniform word
    /// ([`KeepOrUniform`]), else 8.
    pub fn word_bytes(&self) -> usize {
        match &self.draw {
            MixDraw::Uniform(u) => u.word_bytes(),
            MixDraw::Alias(_) => 8,
        }
    }

    /// Replaces every input in `xs` by its draw, one word each, in order; the way of
    /// drawing matched once, not once per draw. Inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_in_place<R: Randomness + ?Sized>(&self, xs: &mut [u32], rng: &mut R) -> Result<()> {
        match &self.draw {
            MixDraw::Uniform(u) => u.sample_in_place(xs, rng),
            MixDraw::Alias(table) => super::draws(xs, rng, |x, r| Self::alias_word(table, x, r)),
        }
    }
}

/// One alias table per row over the row's non-zero entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseSampler {
    outputs: usize,
    /// Row x draws an index into `ys[offsets[x]..]`.
    offsets: Vec<usize>,
    ys: Vec<u32>,
    tables: Vec<AliasTable>,
}

impl SparseSampler {
    /// Builds the tables of `rows` (pairs (y, p) per input) over `outputs` outputs.
    ///
    /// # Errors
    /// `invalid_argument` for an empty row or one that is not a sampler row.
    pub fn new(outputs: usize, rows: &[&[(u32, f64)]]) -> Result<Self> {
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        let mut ys = Vec::new();
        let mut tables = Vec::with_capacity(rows.len());
        let mut p = Vec::new();
        offsets.push(0);
        for row in rows {
            p.clear();
            p.extend(row.iter().map(|&(_, v)| v));
            tables.push(AliasTable::new(&p)?);
            ys.extend(row.iter().map(|&(y, _)| y));
            offsets.push(ys.len());
        }
        Ok(SparseSampler { outputs, offsets, ys, tables })
    }

    /// The exact weights (over 2⁶⁴) of row `x`, as pairs (y, W).
    pub fn row_weights(&self, x: usize) -> Vec<(u32, u128)> {
        let ys = &self.ys[self.offsets[x]..self.offsets[x + 1]];
        ys.iter().copied().zip(self.tables[x].weights()).collect()
    }

    #[inline(always)]
    fn sample_word(&self, x: usize, r: u64) -> usize {
        self.ys[self.offsets[x] + self.tables[x].sample_word(r)] as usize
    }
}

/// The exact sampler of a categorical channel P(Y|X), whatever its document kind.
///
/// `repr(u8)`: a tag byte of its own, which every draw matches, rather than a niche in a
/// field of the nested samplers, which takes a few more instructions to decode per draw
/// (a tenth of a seeded `perturb` of 170 instructions).
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(u8)]
pub enum Categorical {
    /// A dense channel: one alias table per row, built at the first draw.
    Dense(DenseSampler),
    /// κ·I + (1 − κ)·1mᵀ.
    Mix(MixSampler),
    /// Non-zero entries only.
    Sparse(SparseSampler),
    /// The block `blocks[x]`, then `inner` on the blocks.
    Merge {
        /// b(x) for each input.
        blocks: Vec<u32>,
        /// The sampler on the blocks.
        inner: Box<Categorical>,
    },
}

impl Categorical {
    /// |X|.
    pub fn inputs(&self) -> usize {
        match self {
            Categorical::Dense(s) => s.quantised().inputs(),
            Categorical::Mix(m) => m.len(),
            Categorical::Sparse(s) => s.offsets.len() - 1,
            Categorical::Merge { blocks, .. } => blocks.len(),
        }
    }
    /// |Y|.
    pub fn outputs(&self) -> usize {
        match self {
            Categorical::Dense(s) => s.quantised().outputs(),
            Categorical::Mix(m) => m.len(),
            Categorical::Sparse(s) => s.outputs,
            Categorical::Merge { inner, .. } => inner.outputs(),
        }
    }
    /// One draw for input `x < inputs()` from one uniform word (every kind takes one).
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        match self {
            Categorical::Dense(s) => s.tables().sample_word(x, r),
            Categorical::Mix(m) => m.sample_word(x, r),
            Categorical::Sparse(s) => s.sample_word(x, r),
            Categorical::Merge { blocks, inner } => inner.sample_word(blocks[x] as usize, r),
        }
    }

    /// One draw for input `x` (caller checks `x < inputs()`). Always inlined, as
    /// [`Self::sample_word`] and `VerifiedMechanism::perturb`, its caller: one draw is a few
    /// nanoseconds, and LLVM leaves a generic function with several callers out of line.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    #[inline(always)]
    pub fn sample<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        Ok(self.sample_word(x, rng.next_word()?))
    }

    /// The bytes of randomness a batch draw takes an input: 8, or 4 for a mixture drawn
    /// from 32-bit words ([`KeepOrUniform`]).
    pub fn word_bytes(&self) -> usize {
        match self {
            Categorical::Mix(m) => m.word_bytes(),
            Categorical::Merge { inner, .. } => inner.word_bytes(),
            Categorical::Dense(_) | Categorical::Sparse(_) => 8,
        }
    }

    /// Replaces every input in `xs` by its draw, one uniform word each (of
    /// [`Self::word_bytes`]), in order; inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_in_place<R: Randomness + ?Sized>(&self, xs: &mut [u32], rng: &mut R) -> Result<()> {
        // The kind is matched once per call, not once per draw: each kind runs its own loop
        // (with the match inside the loop, a `krr` document drew at half the rate of the
        // same channel as a dense `matrix`).
        match self {
            Categorical::Dense(s) => s.tables().sample_in_place(xs, rng),
            Categorical::Mix(m) => m.sample_in_place(xs, rng),
            Categorical::Sparse(s) => super::draws(xs, rng, |x, r| s.sample_word(x, r)),
            Categorical::Merge { blocks, inner } => {
                xs.iter_mut().for_each(|x| *x = blocks[*x as usize]);
                inner.sample_in_place(xs, rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// κ validated as a caller does.
    fn mix(keep: f64, mixing: &[f64]) -> Result<MixSampler> {
        MixSampler::new(Probability::new("keep", keep)?, mixing)
    }

    #[test]
    fn keep_is_one_outcome_of_the_table_and_exact_at_the_ends() {
        let (keep, w) = mix(1.0, &[1.0; 3]).unwrap().weights();
        assert_eq!((keep, w), (1 << 64, vec![0, 0, 0]));
        let (keep, w) = mix(0.0, &[1.0; 4]).unwrap().weights();
        assert_eq!((keep, w), (0, vec![1 << 62; 4]));
        let (keep, w) = mix(0.5, &[1.0; 2]).unwrap().weights();
        assert_eq!((keep, w), (1 << 63, vec![1 << 62; 2]));
        // A non-zero κ never quantises to 0.
        assert!(mix(1e-300, &[1.0; 3]).unwrap().weights().0 >= 1);
        assert!(mix(f64::NAN, &[1.0]).is_err() && mix(1.5, &[1.0]).is_err());
        assert!(mix(0.5, &[0.0, 0.0]).is_err() && mix(0.5, &[1.0, -0.5]).is_err());
    }

    #[test]
    fn mixture_keeps_on_the_keep_outcome_and_mixes_otherwise() {
        // κ = 1/2 and m = (1/2, 1/4, 1/8, 1/8) (an alias table): 5 outcomes in an 8-column
        // table (the top three bits pick the column). Outcome 4 (keep) has weight 2⁶³.
        let m = mix(0.5, &[0.5, 0.25, 0.125, 0.125]).unwrap();
        assert!(matches!(m.draw, MixDraw::Alias(_)));
        let (keep, w) = m.weights();
        assert_eq!((keep, w), (1 << 63, vec![1 << 62, 1 << 61, 1 << 60, 1 << 60]));
        let mut counts = [0u64; 4];
        // Every word in a grid of 2¹⁶ evenly spaced ones: keep ↦ x = 2.
        for i in 0..1u64 << 16 {
            counts[m.sample_word(2, i << 48)] += 1;
        }
        assert_eq!(counts, [1 << 14, 1 << 13, (1 << 15) + (1 << 12), 1 << 12]);
        let id = MixSampler::identity(3).unwrap();
        assert!((0..3).all(|x| [0, u64::MAX / 3, u64::MAX].iter().all(|&r| id.sample_word(x, r) == x)));
        // A uniform mixing with κ < 1 draws without a table; κ = 1 or an unequal one with.
        assert!(matches!(krr(21).draw, MixDraw::Uniform(_)));
        assert!(matches!(id.draw, MixDraw::Alias(_)));
    }

    /// The k-RR sampler of the `krr` kind at ε = 1: κ = (e − 1)/(e + k − 1), m uniform.
    fn krr(k: usize) -> MixSampler {
        let e = 1f64.exp();
        mix((e - 1.0) / (e + k as f64 - 1.0), &vec![1.0; k]).unwrap()
    }

    /// What the batch path outputs for input `x` and the one word `r`.
    fn batch_draw(c: &Categorical, x: u32, r: u64) -> usize {
        let mut xs = [x];
        c.sample_in_place(&mut xs, &mut crate::sample::tests::Words::new(vec![r])).unwrap();
        xs[0] as usize
    }

    #[test]
    fn the_batch_draws_exactly_the_audited_alias_mixture() {
        // The exact channel of the batch path, read from its outputs alone: within each of
        // the 2^b columns of words (the top b bits) an alias draw is a step function of the
        // low bits, one output below a threshold, one from it on. The threshold is found by
        // bisection, so each output's numerator over 2⁶⁴ is exact; it must equal what the
        // audit reads (`MixSampler::weights`: κ·[y = x] + W_y). (The uniform mixture's:
        // `keep_or_uniform`'s tests.)
        for k in [2usize, 21, 256] {
            let mixing: Vec<f64> = (1..=k).map(|y| y as f64).collect();
            let m = mix(0.3, &mixing).unwrap();
            let (keep, w) = m.weights();
            let c = Categorical::Mix(m);
            let b = (k + 1).next_power_of_two().trailing_zeros();
            let width = 1u128 << (64 - b);
            for x in [0, k as u32 / 2, k as u32 - 1] {
                let mut mass = vec![0u128; k];
                for col in 0..1u128 << b {
                    let word = |low: u128| (col * width + low) as u64;
                    let (first, last) = (batch_draw(&c, x, word(0)), batch_draw(&c, x, word(width - 1)));
                    // The first low value whose output is `last` (all of them if one output).
                    let (mut lo, mut hi) = (0u128, width - 1);
                    while lo < hi {
                        let mid = (lo + hi) / 2;
                        if batch_draw(&c, x, word(mid)) == last && first != last {
                            hi = mid
                        } else {
                            lo = mid + 1
                        }
                    }
                    let step = if first == last { 0 } else { lo };
                    mass[first] += step;
                    mass[last] += width - step;
                }
                let audited: Vec<u128> = (0..k).map(|y| w[y] + if y == x as usize { keep } else { 0 }).collect();
                assert_eq!(mass, audited, "k = {k}, x = {x}");
            }
        }
    }

    #[test]
    fn the_batch_is_the_per_word_draw_in_stream_order() {
        // Across blocks of 64 KiB: the seeded stream (the golden vectors') is consumed word
        // by word, each word (32 bits for the krr of 21, 64 for the dense channel) drawn as
        // `sample_word` draws it.
        let dense = Categorical::Dense(super::super::alias::DenseSampler::new(
            super::super::alias::QuantisedChannel::new(3, 3, &[0.5, 0.25, 0.25, 0.1, 0.8, 0.1, 0.3, 0.3, 0.4]).unwrap(),
        ));
        assert_eq!(krr(21).word_bytes(), 4);
        for c in [Categorical::Mix(krr(21)), dense] {
            let k = c.inputs() as u32;
            let xs: Vec<u32> = (0..20_000u32).map(|i| i.wrapping_mul(2_654_435_761) % k).collect();
            let mut ys = xs.clone();
            c.sample_in_place(&mut ys, &mut crate::rng::DeterministicRngForTesting::seed_from_u64(5)).unwrap();
            let mut rng = crate::rng::DeterministicRngForTesting::seed_from_u64(5);
            let mut word = || match c.word_bytes() {
                4 => u64::from(rand::RngCore::next_u32(&mut rng)),
                _ => rand::RngCore::next_u64(&mut rng),
            };
            let each: Vec<u32> = xs.iter().map(|&x| c.sample_word(x as usize, word()) as u32).collect();
            assert_eq!(ys, each);
        }
    }
}
