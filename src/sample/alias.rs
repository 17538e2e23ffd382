//! An exact, branch-free integer alias sampler (Walker 1977, Vose 1991) driven by one
//! 64-bit random word per draw.
//!
//! # Why this design
//! * **Exactness.** A row P(·|x) is quantised once to integer weights `W_y` with
//!   `Σ_y W_y = 2⁶⁴` exactly. The table has `K = 2ᵇ ≥ k` columns (padding columns have
//!   weight 0) of capacity `C = 2⁶⁴⁻ᵇ`. A draw `r` (uniform on 64 bits) picks column
//!   `i = r >> (64 − b)` and compares the low `64 − b` bits with the threshold `t_i`. Every
//!   one of the `2⁶⁴` words maps to exactly one output, so output `y` has probability
//!   exactly `W_y / 2⁶⁴`. [`AliasTable::probabilities`] recomputes these exact values from
//!   the table itself, and the verifier audits *them*: the privacy that is checked is the
//!   privacy of the bits that run.
//! * **Worst-case deviation from the document.** With `q_y = p_y / Σ p`, each weight is
//!   `⌊q_y · 2⁶⁴⌋` computed in f64, so `|W_y/2⁶⁴ − q_y| ≤ 2⁻⁵²·q_y + 2⁻⁶⁴`, except the
//!   largest weight, which also absorbs the rounding residue of the row: at most
//!   `(k + 1)·2⁻⁵²` more. A non-zero `p_y` never quantises to 0 (it is raised to `2⁻⁶⁴`),
//!   and a zero stays zero. Rows of a valid document sum to 1 within 1e-9, so `q_y`
//!   differs from `p_y` by at most that relative amount.
//! * **Timing.** A draw does the same work for every input: one random word, one shift,
//!   one mask, one table load, one comparison and a branch-free select. There is no
//!   rejection loop and no scan whose length depends on x. The one input-dependent
//!   effect is *which* table entry is loaded (row x, uniformly random column), i.e. the
//!   cache line touched; a full-row scan would remove it but costs O(k) per draw
//!   (~7 M draws/s at k = 256 in wasm instead of > 100 M/s). We accept the cache-line
//!   channel: it needs an attacker co-resident on the user's own device who can time
//!   the page's memory accesses, which is outside the local-privacy threat model
//!   (the adversary sees the released value, not the device).
//! * **Memory.** One `u64` per entry: threshold `t < C` in the high `64 − b` bits and
//!   alias in the low `b` bits. A column that never aliases is stored as "threshold 0,
//!   alias = itself".

use alloc::vec;
use alloc::vec::Vec;
use rand::RngCore;

use crate::error::{Error, Result};
use crate::rng::Randomness;

/// Integer weights summing to exactly 2⁶⁴, from a non-negative finite row, into `w`.
fn quantise_into(p: &[f64], w: &mut Vec<u128>) -> Result<()> {
    const TWO64: u128 = 1 << 64;
    let sum: f64 = crate::numeric::sum(p);
    if sum.is_nan() || sum <= 0.0 || !sum.is_finite() || p.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(Error::InvalidArgument {
            name: "row".into(),
            reason: "a sampler row needs finite non-negative entries with a positive sum".into(),
        });
    }
    let scale = 18446744073709551616.0f64; // 2^64
    w.clear();
    w.extend(p.iter().map(|&v| {
        if v == 0.0 {
            0
        } else {
            // Floors (`as`); at or above 2⁶⁴ it is 2⁶⁴. Through u64: a hardware conversion,
            // where f64 → u128 is a soft-float call.
            let q = v / sum * scale;
            let q = if q >= scale { TWO64 } else { q as u64 as u128 };
            q.clamp(1, TWO64)
        }
    }));
    let total: u128 = w.iter().sum();
    let (imax, _) = w.iter().enumerate().max_by_key(|(_, v)| **v).expect("non-empty row");
    if total > TWO64 {
        w[imax] -= total - TWO64;
    } else {
        w[imax] += TWO64 - total;
    }
    Ok(())
}

/// W/2⁶⁴ for a weight W ≤ 2⁶⁴, rounded once (through u64: u128 → f64 is a soft-float call).
pub(crate) fn probability(w: u128) -> f64 {
    let v = if w >= 1 << 64 { 18446744073709551616.0 } else { w as u64 as f64 };
    v / 18446744073709551616.0
}

/// Buffers reused by every row of a [`ChannelSampler`] (one allocation each, not per row).
#[derive(Default)]
struct Scratch {
    w: Vec<u128>,
    t: Vec<u128>,
    alias: Vec<usize>,
    small: Vec<usize>,
    large: Vec<usize>,
}

/// Appends the `cols = 2^bits` entries of the alias table of `p` to `out` (Vose's method on
/// exact integer weights).
fn build_into(p: &[f64], bits: u32, s: &mut Scratch, out: &mut Vec<u64>) -> Result<()> {
    let cols = 1usize << bits;
    let cap: u128 = 1u128 << (64 - bits);
    quantise_into(p, &mut s.w)?;
    s.w.resize(cols, 0);
    s.t.clear();
    s.t.resize(cols, 0);
    s.alias.clear();
    s.alias.extend(0..cols);
    s.small.clear();
    s.large.clear();
    for i in 0..cols {
        if s.w[i] < cap {
            s.small.push(i);
        } else {
            s.large.push(i);
        }
    }
    let w = &mut s.w;
    while let (Some(&sm), Some(&l)) = (s.small.last(), s.large.last()) {
        s.small.pop();
        s.t[sm] = w[sm];
        s.alias[sm] = l;
        w[l] -= cap - w[sm];
        if w[l] < cap {
            s.large.pop();
            s.small.push(l);
        }
    }
    // Exact integer arithmetic: the columns left over hold exactly C each.
    debug_assert!(s.small.is_empty());
    for &i in &s.large {
        debug_assert_eq!(w[i], cap);
        s.t[i] = 0;
        s.alias[i] = i;
    }
    out.extend((0..cols).map(|i| ((s.t[i] as u64) << bits) | s.alias[i] as u64));
    Ok(())
}

/// Table width for `k` outcomes: 2^bits ≥ k columns, at least 2.
fn width(k: usize) -> Result<u32> {
    if k == 0 || k > (1 << 31) {
        return Err(Error::InvalidArgument {
            name: "row".into(),
            reason: alloc::format!("a sampler needs 1..2^31 outcomes, got {k}"),
        });
    }
    Ok(k.next_power_of_two().max(2).trailing_zeros())
}

/// The alias table of one distribution over `k` outcomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasTable {
    k: usize,
    bits: u32,
    /// `(t << bits) | alias` per column.
    entries: Vec<u64>,
}

impl AliasTable {
    /// Builds the table for the (not necessarily exactly normalised) row `p`.
    ///
    /// # Errors
    /// `invalid_argument` for an empty row, more than 2³¹ outcomes, or a row with a
    /// negative / non-finite entry or a zero sum.
    pub fn new(p: &[f64]) -> Result<Self> {
        let bits = width(p.len())?;
        let mut entries = Vec::with_capacity(1 << bits);
        build_into(p, bits, &mut Scratch::default(), &mut entries)?;
        Ok(AliasTable { k: p.len(), bits, entries })
    }

    /// Number of outcomes.
    pub fn len(&self) -> usize {
        self.k
    }
    /// Always false: a table has at least one outcome.
    pub fn is_empty(&self) -> bool {
        self.k == 0
    }

    /// Exact probability of each outcome as the integer numerator over 2⁶⁴.
    pub fn weights(&self) -> Vec<u128> {
        table_weights(&self.entries, self.bits, self.k)
    }

    /// Exact probabilities, each rounded once to the nearest f64.
    pub fn probabilities(&self) -> Vec<f64> {
        self.weights().into_iter().map(probability).collect()
    }

    /// Maps one uniform 64-bit word to an outcome (branch-free).
    #[inline(always)]
    pub fn sample_word(&self, r: u64) -> usize {
        select(&self.entries, self.bits, r)
    }

    /// Draws one outcome.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> usize {
        self.sample_word(rng.next_u64())
    }
}

#[inline(always)]
fn select(row: &[u64], bits: u32, r: u64) -> usize {
    let i = (r >> (64 - bits)) as usize;
    let low = r & (u64::MAX >> bits);
    let e = row[i];
    let t = e >> bits;
    let a = (e & ((1u64 << bits) - 1)) as usize;
    // mask = all ones when low < t (take column i), zero otherwise (take alias).
    let mask = ((low < t) as usize).wrapping_neg();
    (i & mask) | (a & !mask)
}

fn table_weights(row: &[u64], bits: u32, k: usize) -> Vec<u128> {
    let cap: u128 = 1u128 << (64 - bits);
    let mut w = vec![0u128; row.len()];
    for (i, &e) in row.iter().enumerate() {
        let t = (e >> bits) as u128;
        let a = (e & ((1u64 << bits) - 1)) as usize;
        w[i] += t;
        w[a] += cap - t;
    }
    debug_assert!(w[k..].iter().all(|&v| v == 0), "padding column has mass");
    w.truncate(k);
    w
}

/// One alias table per input row, stored contiguously for batch sampling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSampler {
    nx: usize,
    ny: usize,
    bits: u32,
    cols: usize,
    entries: Vec<u64>,
}

impl ChannelSampler {
    /// Builds tables for every row of a row-stochastic matrix (rows x, columns y).
    pub fn new(rows: usize, cols_y: usize, data: &[f64]) -> Result<Self> {
        let bits = width(cols_y)?;
        let cols = 1usize << bits;
        let mut entries = Vec::with_capacity(rows * cols);
        let mut scratch = Scratch::default();
        for x in 0..rows {
            build_into(&data[x * cols_y..(x + 1) * cols_y], bits, &mut scratch, &mut entries)?;
        }
        Ok(ChannelSampler { nx: rows, ny: cols_y, bits, cols, entries })
    }

    /// Number of inputs (rows of the channel).
    pub fn inputs(&self) -> usize {
        self.nx
    }
    /// Number of outputs (columns of the channel).
    pub fn outputs(&self) -> usize {
        self.ny
    }

    /// The exact channel the sampler draws from, row-major `nx × ny`, each entry the
    /// exact rational `W/2⁶⁴` rounded once to f64.
    pub fn effective_channel(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.nx * self.ny);
        for x in 0..self.nx {
            let row = &self.entries[x * self.cols..(x + 1) * self.cols];
            out.extend(table_weights(row, self.bits, self.ny).into_iter().map(probability));
        }
        out
    }

    /// One draw for input `x` (caller checks `x < inputs()`).
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        select(&self.entries[x * self.cols..(x + 1) * self.cols], self.bits, r)
    }

    /// One draw for input `x` (caller checks `x < inputs()`): one word of `rng`.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        Ok(self.sample_word(x, rng.next_word()?))
    }

    /// Draws for every input in `xs` into `out` (cleared first), one word each, fetched
    /// 1024 at a time. Inputs must be valid.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample_many<R: Randomness + ?Sized>(&self, xs: &[u32], rng: &mut R, out: &mut Vec<u32>) -> Result<()> {
        out.clear();
        out.reserve(xs.len());
        let mut buf = [0u64; 1024];
        for chunk in xs.chunks(1024) {
            let words = &mut buf[..chunk.len()];
            rng.fill_words(words)?;
            out.extend(chunk.iter().zip(words.iter()).map(|(&x, &r)| self.sample_word(x as usize, r) as u32));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_two_pow_64_and_match_row() {
        let p = [0.1, 0.2, 0.3, 0.4, 0.0];
        let t = AliasTable::new(&p).unwrap();
        let w = t.weights();
        assert_eq!(w.iter().sum::<u128>(), 1u128 << 64);
        assert_eq!(w[4], 0);
        for (q, v) in p.iter().zip(t.probabilities()) {
            assert!((q - v).abs() <= 1e-15, "{q} vs {v}");
        }
    }

    #[test]
    fn every_word_hits_the_exact_weight_on_a_small_grid() {
        // Count outcomes over a full stratified grid of words: column bits × 64 threshold points.
        let p = [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
        let t = AliasTable::new(&p).unwrap();
        assert_eq!(t.bits, 2);
        let mut c = [0u64; 3];
        for col in 0..4u64 {
            for j in 0..1024u64 {
                let r = (col << 62) | (j << 52);
                c[t.sample_word(r)] += 1;
            }
        }
        // Each outcome gets ~1/3 of the 4096 grid words (threshold granularity 2^-10).
        for v in c {
            assert!((v as i64 - 1365).abs() <= 2, "{c:?}");
        }
    }

    #[test]
    fn tiny_probability_is_never_zeroed_and_zero_is_never_drawn() {
        let p = [1e-300, 1.0 - 1e-12, 1e-12, 0.0];
        let t = AliasTable::new(&p).unwrap();
        let w = t.weights();
        assert!(w[0] >= 1);
        assert_eq!(w[3], 0);
        for r in [0u64, u64::MAX, 1 << 63, (3u64 << 62) | 12345] {
            assert_ne!(t.sample_word(r), 3);
        }
    }

    #[test]
    fn one_outcome_and_rejects_bad_rows() {
        let t = AliasTable::new(&[1.0]).unwrap();
        assert_eq!(t.sample_word(0), 0);
        assert_eq!(t.sample_word(u64::MAX), 0);
        assert!(AliasTable::new(&[]).is_err());
        assert!(AliasTable::new(&[0.0, 0.0]).is_err());
        assert!(AliasTable::new(&[f64::NAN, 1.0]).is_err());
        assert!(AliasTable::new(&[-0.1, 1.1]).is_err());
    }
}
