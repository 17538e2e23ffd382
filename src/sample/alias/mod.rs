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

mod channel;
mod quantise;
#[cfg(test)]
mod tests;

pub use channel::{ChannelSampler, DenseSampler, QuantisedChannel};
pub(crate) use quantise::{checked_sum, exact_of, probability};

use alloc::vec;
use alloc::vec::Vec;
use rand::RngCore;

use crate::error::{Error, Result};
use quantise::{quantise_row, Weights};

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
