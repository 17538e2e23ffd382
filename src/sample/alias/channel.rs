//! A channel's samplers: its rows quantised once ([`QuantisedChannel`], what verification
//! audits), their alias tables stored contiguously ([`ChannelSampler`]), and those tables
//! built at the first draw ([`DenseSampler`]).

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use once_cell::race::OnceBox;

use super::quantise::{exact_of, quantise_row, write_exact, Weights};
use super::{select, table_weights_into, vose_into, width, Scratch};
use crate::error::{Error, Result};
use crate::numeric::{greatest, least};
use crate::rng::Randomness;

/// A channel's rows quantised to integer weights over 2⁶⁴, as
/// [`AliasTable`](super::AliasTable) quantises a row: the exact channel that verification
/// audits, and all that
/// [`ChannelSampler::from_quantised`] needs to build the tables that realise it (Vose's
/// loop on these weights cannot fail).
#[derive(Debug, Clone)]
pub struct QuantisedChannel {
    nx: usize,
    ny: usize,
    bits: u32,
    /// Row-major `nx × ny`, each weight below 2⁶⁴ (all 0 in a row of `full`).
    weights: Vec<u64>,
    /// Per row, the outcome holding all the mass (weight 2⁶⁴, which u64 cannot hold).
    full: Vec<Option<u32>>,
    /// Per output y, max_x and min_x of the exact P(y|x), gathered as each row is quantised,
    /// while it is in cache, so that LDP w.r.t. X needs no pass of its own over the channel;
    /// empty when the exact channel was written out ([`QuantisedChannel::with_channel`]),
    /// whose columns hold them.
    top: Vec<f64>,
    bottom: Vec<f64>,
}

impl PartialEq for QuantisedChannel {
    /// The same weights (the extremes are a function of them).
    fn eq(&self, other: &Self) -> bool {
        (self.nx, self.ny, self.bits, &self.weights, &self.full)
            == (other.nx, other.ny, other.bits, &other.weights, &other.full)
    }
}
impl Eq for QuantisedChannel {}

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
        let gather = exact.is_none();
        let (mut top, mut bottom) =
            if gather { (vec![0.0; cols_y], vec![f64::INFINITY; cols_y]) } else { Default::default() };
        let mut exact_rows = exact.map(|e| e.chunks_exact_mut(cols_y));
        for (row, w) in data.chunks_exact(cols_y).zip(weights.chunks_exact_mut(cols_y)) {
            let all = quantise_row(row, w, exact_rows.as_mut().and_then(Iterator::next))?;
            if gather {
                fold_extremes(&mut top, &mut bottom, w, all);
            }
            full.push(all);
        }
        Ok(QuantisedChannel { nx: rows, ny: cols_y, bits, weights, full, top, bottom })
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
        for (x, exact) in out.chunks_exact_mut(self.ny).enumerate() {
            self.exact_row(x, exact);
        }
        out
    }

    /// Per output y, max_x and min_x of the exact P(y|x): the extremes of the columns of
    /// [`QuantisedChannel::exact_channel`], bit for bit; `None` when built
    /// [`QuantisedChannel::with_channel`] (that channel's columns hold them).
    pub fn output_extremes(&self) -> Option<(&[f64], &[f64])> {
        (self.top.len() == self.ny).then_some((&self.top, &self.bottom))
    }

    /// Row `x` of [`QuantisedChannel::exact_channel`] into `out` (`outputs()` long), bit for
    /// bit: an audit reads the exact channel a row at a time from the weights, without a
    /// second `nx × ny` matrix beside them.
    #[inline]
    pub fn exact_row(&self, x: usize, out: &mut [f64]) {
        write_exact(&self.weights[x * self.ny..(x + 1) * self.ny], Weights::of(self.full[x]), out);
    }

    /// Row `x`'s weights, each below 2⁶⁴, whose [`exact_of`] are its entries of
    /// [`QuantisedChannel::exact_channel`]; `None` for a row holding all its mass in one
    /// outcome (its weights all 0).
    #[inline]
    pub(crate) fn weights_row(&self, x: usize) -> Option<&[u64]> {
        self.full[x].is_none().then(|| &self.weights[x * self.ny..(x + 1) * self.ny])
    }

    /// Entry `(x, y)` of [`QuantisedChannel::exact_channel`], bit for bit.
    #[inline]
    pub fn exact_entry(&self, x: usize, y: usize) -> f64 {
        match self.full[x] {
            Some(all) => {
                if all as usize == y {
                    1.0
                } else {
                    0.0
                }
            }
            None => exact_of(self.weights[x * self.ny + y]),
        }
    }
}

/// A quantised row's exact probabilities (as [`write_exact`] rounds them) folded into the
/// per-output largest and smallest; `all`: the outcome of a row holding all the mass (its
/// weights all 0). A kernel of its own, never inlined (see `leakage::lift`).
#[inline(never)]
fn fold_extremes(top: &mut [f64], bottom: &mut [f64], w: &[u64], all: Option<u32>) {
    match all {
        None => {
            for ((t, b), &v) in top.iter_mut().zip(bottom.iter_mut()).zip(w) {
                let p = exact_of(v);
                *t = greatest(*t, p);
                *b = least(*b, p);
            }
        }
        Some(all) => {
            let own = bottom[all as usize];
            bottom.fill(0.0);
            (top[all as usize], bottom[all as usize]) = (1.0, least(own, 1.0));
        }
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

/// One alias table per input row, stored contiguously for batch sampling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSampler {
    nx: usize,
    ny: usize,
    bits: u32,
    cols: usize,
    pub(super) entries: Vec<u64>,
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
        crate::sample::draws(xs, rng, |x, r| self.sample_word(x, r))
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
    /// Shared with the exact channel the audit reads ([`DenseSampler::shared`]).
    quantised: Arc<QuantisedChannel>,
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
        DenseSampler { quantised: Arc::new(quantised), tables: OnceBox::new() }
    }
    /// The audited weights.
    pub fn quantised(&self) -> &QuantisedChannel {
        &self.quantised
    }
    /// The audited weights, shared (not copied): what the audit reads its exact channel from.
    pub fn shared(&self) -> Arc<QuantisedChannel> {
        Arc::clone(&self.quantised)
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
