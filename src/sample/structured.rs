//! Exact samplers of the structured kinds, none of which holds a |X| × |Y| table:
//!
//! * [`MixSampler`]: P(y|x) = κ·[y = x] + (1 − κ)·m_y (k-RR, Jiang et al. eq 19, the
//!   identity) as one Bernoulli(K/2⁶⁴) and one alias draw from m, then a branch-free select:
//!   two words per draw for every x, O(|Y|) memory.
//! * [`SparseSampler`]: one alias table per row over that row's non-zero entries.
//! * [`Categorical::Merge`]: the block b(x) of a partition, then the inner sampler.
//!
//! Exactness is as in [`super::alias`]: each probability is an integer over 2⁶⁴ (for the
//! mixture, a product of two, over 2¹²⁸), and those integers are what the audit reads.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::alias::{AliasTable, DenseSampler};
use crate::error::{Error, Result};
use crate::rng::Randomness;

const TWO64: u128 = 1 << 64;

/// κ as an integer over 2⁶⁴: ⌊κ·2⁶⁴⌋, raised to 1 when κ > 0 (so a non-zero κ never
/// becomes 0), exactly 2⁶⁴ for κ = 1.
fn quantise_keep(keep: f64) -> Result<u128> {
    if !(0.0..=1.0).contains(&keep) {
        return Err(Error::InvalidArgument {
            name: "keep".into(),
            reason: alloc::format!("must be a probability, got {keep}", keep = crate::numeric::Shown(keep)),
        });
    }
    let k = (keep * 18446744073709551616.0) as u128; // exact scaling; `as` floors
    Ok(if keep > 0.0 { k.clamp(1, TWO64) } else { 0 })
}

/// P(y|x) = K/2⁶⁴·[y = x] + (1 − K/2⁶⁴)·M_y/2⁶⁴ over |X| = |Y| = k.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixSampler {
    keep: u128,
    mixing: AliasTable,
}

impl MixSampler {
    /// The sampler of κ = `keep` and the mixing distribution `mixing` (its length is k).
    ///
    /// # Errors
    /// `invalid_argument` for κ outside [0, 1] or a bad mixing row ([`AliasTable::new`]).
    pub fn new(keep: f64, mixing: &[f64]) -> Result<Self> {
        Ok(MixSampler { keep: quantise_keep(keep)?, mixing: AliasTable::new(mixing)? })
    }

    /// The identity on `k` symbols (κ = 1).
    pub fn identity(k: usize) -> Result<Self> {
        Self::new(1.0, &alloc::vec![1.0; k])
    }

    /// k.
    pub fn len(&self) -> usize {
        self.mixing.len()
    }
    /// Never true (a sampler has at least one symbol).
    pub fn is_empty(&self) -> bool {
        self.mixing.is_empty()
    }
    /// K, the numerator of κ over 2⁶⁴.
    pub fn keep_weight(&self) -> u128 {
        self.keep
    }
    /// M_y, the numerators of m over 2⁶⁴ (summing to 2⁶⁴).
    pub fn mixing_weights(&self) -> Vec<u128> {
        self.mixing.weights()
    }

    /// Maps two uniform words to an output for input `x` (branch-free): `r[0]` decides
    /// keep, `r[1]` draws from m; both are used whatever `x` is.
    #[inline(always)]
    pub fn sample_words(&self, x: usize, r: &[u64]) -> usize {
        let mixed = self.mixing.sample_word(r[1]);
        let mask = (((r[0] as u128) < self.keep) as usize).wrapping_neg();
        (x & mask) | (mixed & !mask)
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Most words one draw of any [`Categorical`] takes (a mixture takes two).
pub const MAX_WORDS_PER_DRAW: usize = 2;

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
    /// Random words one draw consumes: the same for every input.
    pub fn words_per_draw(&self) -> usize {
        match self {
            Categorical::Dense(_) | Categorical::Sparse(_) => 1,
            Categorical::Mix(_) => 2,
            Categorical::Merge { inner, .. } => inner.words_per_draw(),
        }
    }

    /// One draw for input `x < inputs()` from `words_per_draw()` uniform words.
    #[inline(always)]
    pub fn sample_words(&self, x: usize, r: &[u64]) -> usize {
        match self {
            Categorical::Dense(s) => s.tables().sample_word(x, r[0]),
            Categorical::Mix(m) => m.sample_words(x, r),
            Categorical::Sparse(s) => s.sample_word(x, r[0]),
            Categorical::Merge { blocks, inner } => inner.sample_words(blocks[x] as usize, r),
        }
    }

    /// One draw for input `x` (caller checks `x < inputs()`).
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        if self.words_per_draw() == 1 {
            return Ok(self.sample_words(x, &[rng.next_word()?]));
        }
        let mut r = [0u64; MAX_WORDS_PER_DRAW];
        let w = &mut r[..self.words_per_draw()];
        rng.fill_words(w)?;
        Ok(self.sample_words(x, w))
    }

    /// Draws for every input in `xs` into `out` (cleared first); inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_many<R: Randomness + ?Sized>(&self, xs: &[u32], rng: &mut R, out: &mut Vec<u32>) -> Result<()> {
        if let Categorical::Dense(s) = self {
            return s.tables().sample_many(xs, rng, out);
        }
        out.clear();
        out.reserve(xs.len());
        let w = self.words_per_draw();
        let mut buf = [0u64; 1024];
        for chunk in xs.chunks(1024 / w) {
            let words = &mut buf[..chunk.len() * w];
            rng.fill_words(words)?;
            out.extend(chunk.iter().zip(words.chunks_exact(w)).map(|(&x, r)| self.sample_words(x as usize, r) as u32));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_quantises_exactly_at_the_ends() {
        assert_eq!(quantise_keep(0.0).unwrap(), 0);
        assert_eq!(quantise_keep(1.0).unwrap(), TWO64);
        assert_eq!(quantise_keep(0.5).unwrap(), TWO64 / 2);
        assert_eq!(quantise_keep(1e-300).unwrap(), 1);
        assert!(quantise_keep(f64::NAN).is_err() && quantise_keep(1.5).is_err());
    }

    #[test]
    fn mixture_keeps_below_the_threshold_and_mixes_above() {
        let m = MixSampler::new(0.5, &[0.25; 4]).unwrap();
        // r[0] < 2⁶³ keeps x; otherwise the alias draw from r[1] (column = top two bits).
        assert_eq!(m.sample_words(2, &[0, 3 << 62]), 2);
        assert_eq!(m.sample_words(2, &[1 << 63, 3 << 62]), 3);
        assert_eq!(m.sample_words(2, &[u64::MAX, 0]), 0);
        let id = MixSampler::identity(3).unwrap();
        assert!((0..3).all(|x| id.sample_words(x, &[u64::MAX, u64::MAX]) == x));
    }
}
