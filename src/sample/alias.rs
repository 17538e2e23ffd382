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

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use once_cell::race::OnceBox;
use rand::RngCore;

use crate::error::{Error, Result};
use crate::rng::Randomness;

/// Integer weights summing to exactly 2⁶⁴, from a non-negative finite row, into `w`: the
/// 128-bit reference of [`quantise_u64`].
#[cfg(test)]
fn quantise_into(p: &[f64], w: &mut Vec<u128>) -> Result<()> {
    const TWO64: u128 = 1 << 64;
    let sum = checked_sum(p)?;
    w.clear();
    w.extend(p.iter().map(|&v| {
        if v == 0.0 {
            0
        } else {
            // Floors (`as`); at or above 2⁶⁴ it is 2⁶⁴. Through u64: a hardware conversion,
            // where f64 → u128 is a soft-float call.
            let q = v / sum * SCALE;
            let q = if q >= SCALE { TWO64 } else { q as u64 as u128 };
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

/// 2⁶⁴ as f64.
const SCALE: f64 = 18446744073709551616.0;
/// 2⁻⁶⁴: `w as f64 * INV_SCALE` is `w as f64 / SCALE` bit for bit (a power of two, and
/// every weight ≥ 1 stays far above the subnormals), without the division.
const INV_SCALE: f64 = 1.0 / SCALE;

/// The row's sum, after checking that its entries are finite and non-negative with a
/// positive sum.
#[inline(always)]
pub(crate) fn checked_sum(p: &[f64]) -> Result<f64> {
    let sum: f64 = crate::numeric::sum(p);
    // A NaN or infinite entry makes the sum NaN or infinite, so only the signs remain to be
    // checked (a NaN compares false, an infinite sum is refused).
    if sum.is_nan() || sum <= 0.0 || !sum.is_finite() || p.iter().any(|v| *v < 0.0) {
        return Err(Error::invalid("row", "a sampler row needs finite non-negative entries with a positive sum"));
    }
    Ok(sum)
}

/// `q as u64` for 0 ≤ q < 2⁶⁴ through the signed conversion, which wasm runtimes do in
/// one instruction where the unsigned one takes a sequence; above 2⁶³, q is an integer, and
/// `q − 2⁶³` is exact. Larger q (only a weight of 2⁶⁴, handled apart) saturates.
#[inline(always)]
fn to_u64(q: f64) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    if q < TWO63 {
        q as i64 as u64
    } else {
        ((q - TWO63) as i64 as u64).saturating_add(1 << 63)
    }
}

/// How a row quantises: every weight below 2⁶⁴, or all the mass on one outcome.
#[derive(Clone, Copy)]
enum Weights {
    /// The weights, each < 2⁶⁴, are in the buffer.
    Below,
    /// Outcome `i` has weight 2⁶⁴ and every other outcome 0.
    All(usize),
}

impl Weights {
    /// From the outcome holding all the mass, if one does.
    fn of(full: Option<u32>) -> Self {
        full.map_or(Weights::Below, |all| Weights::All(all as usize))
    }
    /// The outcome holding all the mass, if one does (the inverse of [`Weights::of`]).
    fn full(self) -> Option<u32> {
        match self {
            Weights::Below => None,
            Weights::All(all) => Some(all as u32),
        }
    }
}

/// Integer weights summing to exactly 2⁶⁴ from a non-negative finite row: each non-zero
/// entry's floor of `p_y / Σp · 2⁶⁴` (at least 1), the last of the largest weights absorbing
/// the residue. The weights go to `w` (as long as `p`), each below 2⁶⁴; a weight of 2⁶⁴ (all
/// the mass on one outcome) is [`Weights::All`], and `w` is then all 0.
///
/// A row whose (compensated) sum is exactly 1, as a normalised document's rows mostly are,
/// skips the division: p_y / 1 is p_y, bit for bit.
///
/// On u64 (wasm32 emulates 128-bit arithmetic) with a 128-bit total only. An entry whose
/// scaled value rounds to 2⁶⁴ has p_y ≥ (1 − 2⁻⁵³)·Σp, so at most one does, and it is the
/// largest weight: it keeps 2⁶⁴ minus the others. (The 128-bit quantiser this replaced is
/// kept in the tests as the reference, bit for bit.)
///
/// Inlined into its callers, as are the sum and the exact probabilities: a dense channel's
/// row is then one function for a wasm engine to optimise (each function tiers up on its
/// own, after about the same work in the baseline tier).
#[inline(always)]
fn quantise_u64(p: &[f64], w: &mut [u64]) -> Result<Weights> {
    let sum = checked_sum(p)?;
    let normalised = sum == 1.0;
    let (mut full, mut fulls) = (0usize, 0usize);
    // The total and the last of the largest weights, gathered in the same pass.
    let (mut total, mut imax, mut big) = (0u128, 0usize, 0u64);
    for (i, (&v, slot)) in p.iter().zip(w.iter_mut()).enumerate() {
        let q = if normalised { v * SCALE } else { v / sum * SCALE };
        let weight = if v == 0.0 {
            0
        } else if q >= SCALE {
            (full, fulls) = (i, fulls + 1);
            0
        } else {
            to_u64(q).max(1)
        };
        total += weight as u128;
        if weight >= big {
            (imax, big) = (i, weight);
        }
        *slot = weight;
    }
    const TWO64: u128 = 1 << 64;
    let (imax, base, total) = if fulls > 0 { (full, TWO64, total + TWO64) } else { (imax, big as u128, total) };
    // The largest weight absorbs the residue 2⁶⁴ − total.
    let Some(fixed) = (base + TWO64).checked_sub(total).filter(|_| fulls <= 1) else {
        return Err(Error::invalid("row", "a sampler row's weights do not quantise to 2^64"));
    };
    if fixed == TWO64 {
        return Ok(Weights::All(imax));
    }
    w[imax] = fixed as u64;
    Ok(Weights::Below)
}

/// W/2⁶⁴ for a weight W ≤ 2⁶⁴, rounded once (through u64: u128 → f64 is a soft-float call).
pub(crate) fn probability(w: u128) -> f64 {
    let v = if w >= 1 << 64 { SCALE } else { w as u64 as f64 };
    v / SCALE
}

/// Buffers reused by every row of a [`ChannelSampler`] (one allocation each, not per row).
#[derive(Default)]
struct Scratch {
    /// The weights below 2⁶⁴ (the Vose loop's working copy).
    left: Vec<u64>,
    /// Vose's two work lists in one array: the columns below capacity ("small") as a stack
    /// growing up from 0, the others ("large") as a stack growing down from the end.
    order: Vec<u32>,
}

/// Appends the `cols = 2^bits` entries of the alias table of `p` to `out` (Vose's method on
/// exact integer weights).
fn build_into(p: &[f64], bits: u32, s: &mut Scratch, out: &mut Vec<u64>) -> Result<()> {
    s.left.clear();
    s.left.resize(p.len(), 0);
    let full = quantise_row(p, &mut s.left, None)?;
    vose_into(Weights::of(full), bits, s, out);
    Ok(())
}

/// W/2⁶⁴ of each of a row's weights (`w` when they are [`Weights::Below`]) into `exact`, as
/// `probability` rounds it: the table built from them realises exactly these (Vose's loop
/// moves mass between columns, never between outcomes).
#[inline(always)]
fn write_exact(w: &[u64], quantised: Weights, exact: &mut [f64]) {
    match quantised {
        Weights::All(all) => {
            exact.fill(0.0);
            exact[all] = 1.0;
        }
        Weights::Below => {
            for (e, &v) in exact.iter_mut().zip(w) {
                *e = v as f64 * INV_SCALE;
            }
        }
    }
}

/// Appends the `cols = 2^bits` entries of the alias table of one quantised row to `out`:
/// for [`Weights::Below`], the weights are `s.left` (consumed). Exact integer arithmetic
/// that cannot fail: the weights sum to 2⁶⁴.
///
/// The loop runs on u64: a weight of exactly 2⁶⁴ leaves every other weight 0, and its
/// table (every column aliases to it) is written directly; every other weight, and every
/// remainder `w − (C − w_small)` of the loop, is below 2⁶⁴. Columns are u32 (at most 2³¹).
fn vose_into(quantised: Weights, bits: u32, s: &mut Scratch, out: &mut Vec<u64>) {
    let cols = 1usize << bits;
    let cap: u64 = 1u64 << (64 - bits);
    let start = out.len();
    if let Weights::All(all) = quantised {
        // Threshold 0 everywhere: every word goes to the alias `all`.
        out.extend((0..cols).map(|_| all as u64));
        return;
    }
    let w = &mut s.left;
    // A column that never aliases is "threshold 0, alias = itself".
    out.extend(0..cols as u64);
    w.resize(cols, 0);
    // Small columns go up from 0 (`order[..small]`), large ones down from the end
    // (`order[large..]`, the latest at `order[large]`): both are stacks, popped in the order
    // they were pushed in reverse, as two vectors would be.
    let order = &mut s.order;
    order.clear();
    order.resize(cols, 0);
    let (mut small, mut large) = (0usize, cols);
    for (i, &v) in w.iter().enumerate() {
        if v < cap {
            order[small] = i as u32;
            small += 1;
        } else {
            large -= 1;
            order[large] = i as u32;
        }
    }
    let table = &mut out[start..];
    // Each round retires one small column, so `small + (cols − large) ≤ cols − rounds`: a
    // large column turned small is written below `large`, never over the large stack.
    while small > 0 && large < cols {
        let (sm, l) = (order[small - 1] as usize, order[large] as usize);
        small -= 1;
        table[sm] = (w[sm] << bits) | l as u64;
        w[l] -= cap - w[sm];
        if w[l] < cap {
            large += 1;
            order[small] = l as u32;
            small += 1;
        }
    }
    // Exact integer arithmetic: the columns left over hold exactly C each, and keep
    // "threshold 0, alias = itself".
    debug_assert_eq!(small, 0);
    debug_assert!(order[large..].iter().all(|&i| w[i as usize] == cap));
}

/// Table width for `k` outcomes: 2^bits ≥ k columns, at least 2.
fn width(k: usize) -> Result<u32> {
    if k == 0 || k > (1 << 31) {
        return Err(Error::invalid("row", alloc::format!("a sampler needs 1..2^31 outcomes, got {k}")));
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
    #[inline(always)]
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
        select(&self.entries, 0, self.bits, r)
    }

    /// Draws one outcome.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> usize {
        self.sample_word(rng.next_u64())
    }
}

/// The draw of word `r` from the table at `entries[base..base + 2^bits]`. The row's offset
/// is folded into one index: one bounds check per draw, not one for the row and one for
/// the column.
#[inline(always)]
fn select(entries: &[u64], base: usize, bits: u32, r: u64) -> usize {
    let i = (r >> (64 - bits)) as usize;
    let low = r & (u64::MAX >> bits);
    let e = entries[base + i];
    let t = e >> bits;
    let a = (e & ((1u64 << bits) - 1)) as usize;
    // mask = all ones when low < t (take column i), zero otherwise (take alias).
    let mask = ((low < t) as usize).wrapping_neg();
    (i & mask) | (a & !mask)
}

fn table_weights(row: &[u64], bits: u32, k: usize) -> Vec<u128> {
    let mut w = Vec::new();
    match table_weights_into(row, bits, k, &mut w) {
        Some(all) => {
            let mut full = vec![0u128; k];
            full[all] = 1 << 64;
            full
        }
        None => w.into_iter().map(u128::from).collect(),
    }
}

/// The exact weight of each of the `k` outcomes of one table, into `w` (cleared first);
/// `Some(y)` when outcome y has weight 2⁶⁴ (and every other 0), which u64 cannot hold.
///
/// u64 with wrapping adds (wasm32 emulates 128-bit arithmetic): the true weights are sums
/// of at most 2⁶⁴ in all, so each one below 2⁶⁴ is exact, and a weight of 2⁶⁴ shows as
/// every weight wrapping to 0. Then the outcome holding it is the one column 0 gives mass
/// to: itself if its threshold is positive, else its alias.
fn table_weights_into(row: &[u64], bits: u32, k: usize, w: &mut Vec<u64>) -> Option<usize> {
    let cap: u64 = 1u64 << (64 - bits);
    let mask = (1u64 << bits) - 1;
    w.clear();
    w.resize(row.len(), 0);
    for (i, &e) in row.iter().enumerate() {
        let (t, a) = (e >> bits, (e & mask) as usize);
        w[i] = w[i].wrapping_add(t);
        w[a] = w[a].wrapping_add(cap - t);
    }
    debug_assert!(w[k..].iter().all(|&v| v == 0), "padding column has mass");
    w.truncate(k);
    if w.iter().all(|&v| v == 0) {
        let e = row[0];
        return Some(if e >> bits > 0 { 0 } else { (e & mask) as usize });
    }
    None
}

/// A channel's rows quantised to integer weights over 2⁶⁴, as [`AliasTable`] quantises a
/// row: the exact channel that verification audits, and all that
/// [`ChannelSampler::from_quantised`] needs to build the tables that realise it (Vose's
/// loop on these weights cannot fail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantisedChannel {
    nx: usize,
    ny: usize,
    bits: u32,
    /// Row-major `nx × ny`, each weight below 2⁶⁴ (all 0 in a row of `full`).
    weights: Vec<u64>,
    /// Per row, the outcome holding all the mass (weight 2⁶⁴, which u64 cannot hold).
    full: Vec<Option<u32>>,
}

impl QuantisedChannel {
    /// Quantises every row of a row-stochastic matrix (rows x, columns y).
    ///
    /// # Errors
    /// As [`ChannelSampler::new`].
    pub fn new(rows: usize, cols_y: usize, data: &[f64]) -> Result<Self> {
        Self::quantise(rows, cols_y, data, None)
    }

    /// [`QuantisedChannel::new`] and the exact channel, row-major, each entry `W/2⁶⁴`
    /// rounded once (what [`QuantisedChannel::exact_channel`] returns), from the weights
    /// as each row is quantised.
    ///
    /// # Errors
    /// As [`ChannelSampler::new`].
    pub fn with_channel(rows: usize, cols_y: usize, data: &[f64]) -> Result<(Self, Vec<f64>)> {
        check_shape(rows, cols_y, data)?;
        let mut exact = vec![0.0; data.len()];
        Ok((Self::quantise(rows, cols_y, data, Some(&mut exact))?, exact))
    }

    fn quantise(rows: usize, cols_y: usize, data: &[f64], exact: Option<&mut [f64]>) -> Result<Self> {
        let bits = check_shape(rows, cols_y, data)?;
        // One allocation each, zeroed in bulk; each row is written in place.
        let (mut weights, mut full) = (vec![0u64; data.len()], Vec::with_capacity(rows));
        let mut exact_rows = exact.map(|e| e.chunks_exact_mut(cols_y));
        for (row, w) in data.chunks_exact(cols_y).zip(weights.chunks_exact_mut(cols_y)) {
            full.push(quantise_row(row, w, exact_rows.as_mut().and_then(Iterator::next))?);
        }
        Ok(QuantisedChannel { nx: rows, ny: cols_y, bits, weights, full })
    }

    /// Number of inputs (rows of the channel).
    pub fn inputs(&self) -> usize {
        self.nx
    }
    /// Number of outputs (columns of the channel).
    pub fn outputs(&self) -> usize {
        self.ny
    }

    /// The exact channel, row-major `nx × ny`, each entry the exact rational `W/2⁶⁴`
    /// rounded once to f64: what the tables built from these weights draw from.
    pub fn exact_channel(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.weights.len()];
        let rows = self.weights.chunks_exact(self.ny).zip(out.chunks_exact_mut(self.ny));
        for ((row, exact), &full) in rows.zip(&self.full) {
            write_exact(row, Weights::of(full), exact);
        }
        out
    }
}

/// Table width for a channel's rows, after checking that `data` holds `rows × cols_y`
/// entries.
fn check_shape(rows: usize, cols_y: usize, data: &[f64]) -> Result<u32> {
    let bits = width(cols_y)?;
    if rows.checked_mul(cols_y) != Some(data.len()) {
        return Err(Error::invalid(
            "rows",
            alloc::format!("a {rows} × {cols_y} channel needs {rows}·{cols_y} entries, got {}", data.len()),
        ));
    }
    Ok(bits)
}

/// Quantises one row into `w`, and its exact probabilities into `exact`; the outcome holding
/// all the mass, if one does. A kernel of its own, never inlined, so that a wasm engine
/// optimises it during a page's first verify (see `leakage::lift`).
#[inline(never)]
fn quantise_row(row: &[f64], w: &mut [u64], exact: Option<&mut [f64]>) -> Result<Option<u32>> {
    let quantised = quantise_u64(row, w)?;
    if let Some(exact) = exact {
        write_exact(w, quantised, exact);
    }
    Ok(quantised.full())
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
    ///
    /// # Errors
    /// `invalid_argument` for no outputs, more than 2³¹, or a row with a negative or
    /// non-finite entry or a zero sum.
    pub fn new(rows: usize, cols_y: usize, data: &[f64]) -> Result<Self> {
        Ok(Self::from_quantised(&QuantisedChannel::new(rows, cols_y, data)?))
    }

    /// The tables of quantised rows (Vose's loop on each: exact, and it cannot fail).
    pub fn from_quantised(q: &QuantisedChannel) -> Self {
        let cols = 1usize << q.bits;
        let mut entries = Vec::with_capacity(q.nx * cols);
        let mut scratch = Scratch::default();
        for (row, &full) in q.weights.chunks_exact(q.ny).zip(&q.full) {
            if full.is_none() {
                scratch.left.clear();
                scratch.left.extend_from_slice(row);
            }
            vose_into(Weights::of(full), q.bits, &mut scratch, &mut entries);
        }
        ChannelSampler { nx: q.nx, ny: q.ny, bits: q.bits, cols, entries }
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
        let mut out = vec![0.0; self.nx * self.ny];
        let mut w = Vec::with_capacity(self.cols);
        for (row, exact) in self.entries.chunks_exact(self.cols).zip(out.chunks_exact_mut(self.ny)) {
            let quantised = match table_weights_into(row, self.bits, self.ny, &mut w) {
                None => Weights::Below,
                Some(all) => Weights::All(all),
            };
            write_exact(&w, quantised, exact);
        }
        out
    }

    /// One draw for input `x` (caller checks `x < inputs()`).
    #[inline(always)]
    pub fn sample_word(&self, x: usize, r: u64) -> usize {
        select(&self.entries, x * self.cols, self.bits, r)
    }

    /// One draw for input `x` (caller checks `x < inputs()`): one word of `rng`.
    ///
    /// # Errors
    /// `rng` if the random source fails.
    pub fn sample<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        Ok(self.sample_word(x, rng.next_word()?))
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

/// A dense channel's sampler whose alias tables are built at its first draw.
///
/// Verification audits the quantised weights ([`QuantisedChannel`]); Vose's loop, which
/// turns them into tables, is no part of the audit and was a sixth of a dense verification,
/// so a page that verifies and shows its receipt does not
/// pay for it. The tables are built from exactly the audited weights, by integer
/// arithmetic that cannot fail, once (a race between threads builds them twice and keeps
/// one; both are the same).
#[derive(Debug, Clone)]
pub struct DenseSampler {
    quantised: QuantisedChannel,
    tables: OnceBox<ChannelSampler>,
}

impl PartialEq for DenseSampler {
    /// The same channel: the tables are a function of the weights.
    fn eq(&self, other: &Self) -> bool {
        self.quantised == other.quantised
    }
}
impl Eq for DenseSampler {}

impl DenseSampler {
    /// The sampler of `quantised`, its tables not built yet.
    pub fn new(quantised: QuantisedChannel) -> Self {
        DenseSampler { quantised, tables: OnceBox::new() }
    }
    /// The audited weights.
    pub fn quantised(&self) -> &QuantisedChannel {
        &self.quantised
    }
    /// The alias tables, built at the first call.
    #[inline]
    pub fn tables(&self) -> &ChannelSampler {
        self.tables.get_or_init(|| Box::new(ChannelSampler::from_quantised(&self.quantised)))
    }
    /// Whether the tables have been built (by a draw or [`DenseSampler::tables`]).
    pub fn built(&self) -> bool {
        self.tables.get().is_some()
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

    /// The table as the 128-bit Vose loop built it before the u64 path: the reference the
    /// fast path must match bit for bit.
    fn reference_table(p: &[f64], bits: u32) -> Vec<u64> {
        let cols = 1usize << bits;
        let cap: u128 = 1u128 << (64 - bits);
        let mut w = Vec::new();
        quantise_into(p, &mut w).unwrap();
        w.resize(cols, 0);
        let (mut t, mut alias) = (vec![0u128; cols], (0..cols).collect::<Vec<_>>());
        let mut small: Vec<usize> = (0..cols).filter(|&i| w[i] < cap).collect();
        let mut large: Vec<usize> = (0..cols).filter(|&i| w[i] >= cap).collect();
        while let (Some(&sm), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            t[sm] = w[sm];
            alias[sm] = l;
            w[l] -= cap - w[sm];
            if w[l] < cap {
                large.pop();
                small.push(l);
            }
        }
        for &i in &large {
            t[i] = 0;
            alias[i] = i;
        }
        (0..cols).map(|i| ((t[i] as u64) << bits) | alias[i] as u64).collect()
    }

    /// Rows of a random channel with zero entries and rows holding all the mass.
    fn random_channel(seed: u64, nx: usize, ny: usize) -> Vec<f64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
        let mut data = Vec::with_capacity(nx * ny);
        for x in 0..nx {
            let mut row: Vec<f64> =
                (0..ny).map(|_| if rng.random_bool(0.3) { 0.0 } else { rng.random::<f64>() }).collect();
            if x % 5 == 0 || row.iter().all(|&v| v == 0.0) {
                row.iter_mut().for_each(|v| *v = 0.0);
                row[rng.random_range(0..ny)] = 1.0;
            }
            data.extend(row);
        }
        data
    }

    #[test]
    fn quantised_rows_build_the_tables_each_row_builds_alone() {
        for (seed, nx, ny) in [(1, 1, 1), (2, 7, 3), (3, 20, 17), (4, 9, 64)] {
            let data = random_channel(seed, nx, ny);
            let (q, exact) = QuantisedChannel::with_channel(nx, ny, &data).unwrap();
            let tables = ChannelSampler::from_quantised(&q);
            let bits = width(ny).unwrap();
            for (x, row) in data.chunks_exact(ny).enumerate() {
                let mut alone = Vec::new();
                build_into(row, bits, &mut Scratch::default(), &mut alone).unwrap();
                assert_eq!(tables.entries[x << bits..(x + 1) << bits], alone[..], "seed {seed}, row {x}");
            }
            // The exact channel: from the weights in the quantising pass, from the weights
            // afterwards and read back from the tables, bit for bit.
            let bits_of = |v: &[f64]| v.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits_of(&exact), bits_of(&q.exact_channel()));
            assert_eq!(bits_of(&exact), bits_of(&tables.effective_channel()));
            assert_eq!(tables, ChannelSampler::new(nx, ny, &data).unwrap());
        }
    }

    #[test]
    fn a_dense_sampler_builds_its_tables_at_the_first_draw_and_draws_as_the_eager_one() {
        let (nx, ny) = (12, 10);
        let data = random_channel(7, nx, ny);
        let lazy = DenseSampler::new(QuantisedChannel::new(nx, ny, &data).unwrap());
        assert!(!lazy.built());
        let copy = lazy.clone();
        let eager = ChannelSampler::new(nx, ny, &data).unwrap();
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..4000 {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            assert_eq!(lazy.tables().sample_word(i % nx, r), eager.sample_word(i % nx, r));
        }
        assert!(lazy.built() && !copy.built());
        assert_eq!(lazy, copy);
    }

    #[test]
    fn a_channel_of_the_wrong_size_is_refused() {
        for (nx, ny, len) in [(2, 3, 5), (2, 3, 7), (usize::MAX, 2, 4)] {
            let e = QuantisedChannel::new(nx, ny, &vec![0.5; len]).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        }
        assert!(QuantisedChannel::new(1, 0, &[]).is_err());
    }

    #[test]
    fn the_u64_path_builds_the_128_bit_reference_table() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(5);
        let mut rows: Vec<Vec<f64>> = vec![
            vec![1.0],
            vec![1.0, 0.0, 0.0],
            vec![0.0, 3.0],
            vec![0.5, 0.5],
            vec![0.75, 0.25],
            vec![1.0 - 1e-16, 1e-16, 0.0],
            vec![1e-300, 1.0 - 1e-12, 1e-12, 0.0],
            vec![1.0, 1e-300, 1e-300],
            vec![0.25; 4],
            vec![1.0 / 3.0; 3],
            vec![f64::MIN_POSITIVE, 1.0],
        ];
        for _ in 0..400 {
            let k = rng.random_range(1..=70);
            let zeros = rng.random_range(0.0..0.6);
            let mut row: Vec<f64> = (0..k)
                .map(|_| if rng.random_bool(zeros) { 0.0 } else { rng.random::<f64>().powi(rng.random_range(1..8)) })
                .collect();
            if row.iter().all(|&v| v == 0.0) {
                row[0] = 1.0;
            }
            rows.push(row);
        }
        let mut s = Scratch::default();
        for row in &rows {
            let bits = width(row.len()).unwrap();
            let mut table = Vec::new();
            build_into(row, bits, &mut s, &mut table).unwrap();
            assert_eq!(table, reference_table(row, bits), "row {row:?}");
            // The weights read back from the table (u64, wrapping) are the quantised ones,
            // a weight of 2⁶⁴ included, and so are the effective channel's probabilities.
            let mut w = Vec::new();
            quantise_into(row, &mut w).unwrap();
            assert_eq!(table_weights(&table, bits, row.len()), w, "row {row:?}");
            let exact: Vec<f64> = w.iter().map(|&v| probability(v)).collect();
            let (q, channel) = QuantisedChannel::with_channel(1, row.len(), row).unwrap();
            let sampler = ChannelSampler::from_quantised(&q);
            assert_eq!(sampler.effective_channel(), exact);
            assert_eq!(
                channel.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                exact.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}
