//! The lift l(s,y) = P(s|y)/P(s) = P(s,y) / (P(s) P(y)) (Zarrabian et al. eq 1) and
//! the joint P_SY it is computed from.

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::rows::{over_row, ChannelRows, Row};
use crate::document::Matrix;
use crate::numeric::least;
use crate::sample::QuantisedChannel;

/// P_SY and its marginals, with the structural support of each output.
///
/// The support is decided from which *inputs* are non-zero, not from the computed
/// product, so an underflowed product can never hide a zero-probability event: where
/// the support says `P(y) > 0` but the computed value is 0, the audit reports infinite
/// leakage (the conservative side).
///
/// The relative-error bounds of [`crate::numeric`] hold only while no product is
/// subnormal (below `f64::MIN_POSITIVE`, where rounding errors are absolute, up to
/// 2⁻¹⁰⁷⁵, not relative; fuzzer finding F8). A product P(s,x)·P(y|x) or P(s)·P(y) below
/// twice that (the factor 2 keeps the quotients P(s,y)/(P(s)P(y)) and P(s,y)/P(s),
/// divided by sums ≤ 1 + 1e-9, normal too) is recorded as an underflow, and the audit
/// then reports infinite leakage, as for a product that rounded to 0.
#[derive(Debug, Clone)]
pub struct JointSY {
    pub(crate) ns: usize,
    pub(crate) ny: usize,
    /// P(s,y), row-major `ns × ny`.
    pub(crate) p_sy: Cells,
    pub(crate) p_s: Vec<f64>,
    pub(crate) p_y: Vec<f64>,
    pub(crate) support_y: Vec<bool>,
    /// Number of roundings bounding the relative error of each P(s,y) and P(y).
    pub(crate) roundings: usize,
    /// Number of roundings bounding the relative error of a computed lift
    /// ([`JointSY::lift_rel_error`]).
    pub(crate) lift_roundings: usize,
    /// Some product fell below [`UNDERFLOW_THRESHOLD`]: the rounding bounds do not hold.
    pub(crate) underflow: bool,
}

/// The entries P(s,y) of a [`JointSY`].
#[derive(Debug, Clone)]
pub(crate) enum Cells {
    /// Row-major `ns × ny`.
    Stored(Vec<f64>),
    /// S = X: P(s,y) = P(s)·P(y|s), the product of P(s) and the channel's entry computed at
    /// each read. It is the one rounding a stored product would have had, so every value
    /// read is the same bit for bit, without a second |X| × |Y| matrix (8 MB at k = 1024,
    /// kept by a verified mechanism for its receipts).
    Diagonal(Matrix),
    /// S = X as [`Cells::Diagonal`], the channel's entries the exact probabilities of a
    /// dense sampler's weights (shared with the sampler), computed at each read.
    Quantised(Arc<QuantisedChannel>),
}

impl JointSY {
    /// P(s,y).
    #[inline]
    pub(crate) fn joint(&self, s: usize, y: usize) -> f64 {
        match &self.p_sy {
            Cells::Stored(v) => v[s * self.ny + y],
            Cells::Diagonal(m) => self.p_s[s] * m.get(s, y),
            Cells::Quantised(q) => self.p_s[s] * q.exact_entry(s, y),
        }
    }

    /// Row s of P_SY as a factor and a row whose products with it are P(s,y), bit for bit:
    /// (1, the stored row) or, for S = X, (P(s), the channel's row P(·|s): its entries, or
    /// a sampler's weights, or written into `buf`); 1·v = v exactly.
    pub(crate) fn row<'a>(&'a self, s: usize, buf: &'a mut Vec<f64>) -> (f64, Row<'a>) {
        match &self.p_sy {
            Cells::Stored(v) => (1.0, Row::Entries(&v[s * self.ny..(s + 1) * self.ny])),
            Cells::Diagonal(m) => (self.p_s[s], Row::Entries(m.row(s))),
            Cells::Quantised(q) => (self.p_s[s], q.row_in(s, buf)),
        }
    }

    /// Every P(s,y), row-major (a copy).
    #[cfg(test)]
    pub(crate) fn cells(&self) -> Vec<f64> {
        (0..self.ns).flat_map(|s| (0..self.ny).map(move |y| (s, y))).map(|(s, y)| self.joint(s, y)).collect()
    }
}

/// Products below this are treated as underflowed (see [`JointSY`]).
pub(crate) const UNDERFLOW_THRESHOLD: f64 = 2.0 * f64::MIN_POSITIVE;

impl JointSY {
    /// P(s,y) = Σ_x P(s,x) P(y|x) for a Markov chain S → X → Y.
    ///
    /// Iterates only over the non-zero entries of P_SX, so S = X (a diagonal joint)
    /// costs O(|X|·|Y|), not O(|X|²·|Y|).
    pub fn markov(p_sx: &Matrix, p_y_given_x: &Matrix) -> Self {
        debug_assert_eq!(p_sx.cols(), p_y_given_x.rows());
        Self::accumulate(p_sx, p_y_given_x.cols(), true, |_| p_y_given_x)
    }

    /// [`JointSY::markov`] for S = X, the joint diag(`prior`), bit for bit, without building
    /// (or scanning) the |X| × |X| diagonal matrix, and without storing P_SY: its entries
    /// are read from `p_y_given_x` (shared, not copied).
    pub fn diagonal(prior: &[f64], p_y_given_x: &Matrix) -> Self {
        Self::diagonal_of(prior, p_y_given_x, Cells::Diagonal(p_y_given_x.clone()))
    }

    /// [`JointSY::diagonal`] of the exact channel of a dense sampler's weights, read a row
    /// at a time (the same values, bit for bit, as the matrix of
    /// [`QuantisedChannel::exact_channel`]) and shared, not copied.
    pub(crate) fn diagonal_quantised(prior: &[f64], q: &Arc<QuantisedChannel>) -> Self {
        Self::diagonal_of(prior, &**q, Cells::Quantised(Arc::clone(q)))
    }

    /// The joint of S = X under `prior`, its cells `cells` read from `channel`.
    fn diagonal_of(prior: &[f64], channel: &dyn ChannelRows, cells: Cells) -> Self {
        debug_assert_eq!(prior.len(), channel.inputs());
        let (nx, ny) = (prior.len(), channel.outputs());
        let mut support_y = vec![false; ny];
        let mut p_s = vec![0.0; nx];
        let mut p_y = vec![0.0; ny];
        let mut underflow = false;
        let mut buf = Vec::new();
        for (s, &psx) in prior.iter().enumerate() {
            if psx == 0.0 {
                continue;
            }
            p_s[s] = psx;
            underflow |= diagonal_row(psx, channel.row_in(s, &mut buf), &mut p_y, &mut support_y);
        }
        Self::finish_with(nx, cells, p_s, p_y, support_y, underflow, 1)
    }

    /// P(s,y) = Σ_x P(s,x) P(y|s,x) for a non-Markov mechanism (one channel per secret).
    pub fn per_secret(p_sx: &Matrix, p_y_given_sx: &[Matrix]) -> Self {
        let ny = p_y_given_sx.first().map_or(0, Matrix::cols);
        Self::accumulate(p_sx, ny, false, |s| &p_y_given_sx[s])
    }

    /// P(s,y) = Σ_x P(s,x) P(y|x) with `channel(s)` the channel used for secret s.
    ///
    /// A product P(s,x)·w is monotone in w, so it underflows for some w > 0 of a channel
    /// row iff it does for the row's smallest positive entry; with one channel for every
    /// secret (`shared`) those minima and the support of y are found once, per input, and
    /// the inner loop is a plain multiply-add (the same sums, in the same order).
    fn accumulate<'a>(p_sx: &Matrix, ny: usize, shared: bool, channel: impl Fn(usize) -> &'a Matrix) -> Self {
        let (ns, nx) = (p_sx.rows(), p_sx.cols());
        let mut p_sy = vec![0.0; ns * ny];
        let mut support_y = vec![false; ny];
        let mut p_s = vec![0.0; ns];
        let mut underflow = false;
        // The most non-zeros of a joint row.
        let widest = (0..ns).map(|s| p_sx.row(s).iter().filter(|&&v| v != 0.0).count()).max().unwrap_or(0).max(1);
        if shared {
            // x outermost, four inputs at a time: each channel row is read once (not once
            // per secret) while the |S| rows of P_SY stay in cache, and each P(s,y) adds the
            // four inputs' terms in a register. Every P(s,y) and P(s) still adds its terms in
            // increasing x, so the sums are the same, bit for bit.
            let w = channel(0);
            // The row of an input past the last (its terms are +0).
            let zeros = vec![0.0; ny];
            let mut block: Vec<(usize, [f64; 4])> = Vec::with_capacity(ns);
            let mut out = Outputs { p_sy: &mut p_sy, p_s: &mut p_s, support_y: &mut support_y };
            for x0 in (0..nx).step_by(4) {
                let p = |s: usize, i: usize| if x0 + i < nx { p_sx.get(s, x0 + i) } else { 0.0 };
                block.clear();
                block
                    .extend((0..ns).map(|s| (s, [p(s, 0), p(s, 1), p(s, 2), p(s, 3)])).filter(|(_, q)| q != &[0.0; 4]));
                if !block.is_empty() {
                    let row = |i: usize| if x0 + i < nx { w.row(x0 + i) } else { &zeros[..] };
                    underflow |= add_inputs(&mut out, ny, &block, [row(0), row(1), row(2), row(3)]);
                }
            }
        } else {
            for s in 0..ns {
                let (out, w_s) = (&mut p_sy[s * ny..(s + 1) * ny], channel(s));
                for (x, &psx) in p_sx.row(s).iter().enumerate() {
                    if psx == 0.0 {
                        continue;
                    }
                    p_s[s] += psx;
                    let row = w_s.row(x);
                    underflow |= psx * support_and_min(row.iter().copied(), &mut support_y) < UNDERFLOW_THRESHOLD;
                    for (o, &v) in out.iter_mut().zip(row) {
                        *o += psx * v;
                    }
                }
            }
        }
        Self::finish(nx, ny, p_sy, p_s, support_y, underflow, widest)
    }

    /// P(y), the underflow check of the lifts' denominators and the rounding counts, from
    /// P(s,y) over `nx` inputs (`widest`: most non-zeros of a joint row).
    pub(crate) fn finish(
        nx: usize,
        ny: usize,
        p_sy: Vec<f64>,
        p_s: Vec<f64>,
        support_y: Vec<bool>,
        underflow: bool,
        widest: usize,
    ) -> Self {
        let mut p_y = vec![0.0; ny];
        for row in p_sy.chunks_exact(ny.max(1)) {
            for (py, v) in p_y.iter_mut().zip(row) {
                *py += v;
            }
        }
        Self::finish_with(nx, Cells::Stored(p_sy), p_s, p_y, support_y, underflow, widest)
    }

    /// [`JointSY::finish`] with P(y) = Σ_s P(s,y) already summed (in increasing s).
    fn finish_with(
        nx: usize,
        p_sy: Cells,
        p_s: Vec<f64>,
        p_y: Vec<f64>,
        support_y: Vec<bool>,
        underflow: bool,
        widest: usize,
    ) -> Self {
        let (ns, ny) = (p_s.len(), p_y.len());
        // The denominators P(s)·P(y) of the lifts: a rounded product is monotone in each
        // factor, so the smallest is that of the smallest P(s) > 0 and the smallest P(y)
        // of a possible output (O(|S| + |Y|), not one product per pair).
        let ps_min = p_s.iter().copied().filter(|&ps| ps > 0.0).fold(f64::INFINITY, least);
        let py_min = p_y.iter().zip(&support_y).filter(|(_, &sp)| sp).fold(f64::INFINITY, |m, (&py, _)| least(m, py));
        let underflow =
            underflow || (ps_min < f64::INFINITY && py_min < f64::INFINITY && ps_min * py_min < UNDERFLOW_THRESHOLD);
        // Each P(s,y) is a sum of ≤ |X| products: ≤ |X| + 1 roundings, +1 for the
        // f64 conversion of an integer-quantised channel entry; P(y) adds ≤ |S|. A lift
        // P(s,y)/(P(s)P(y)) adds the product and the division, and P(s), a sum of the
        // `widest` non-zeros of a joint row (none for the diagonal joint of S = X).
        let roundings = nx + 2 + ns;
        let lift_roundings = 2 * roundings + 4 + (widest - 1);
        JointSY { ns, ny, p_sy, p_s, p_y, support_y, roundings, lift_roundings, underflow }
    }

    /// The joint of `p_sx`'s rows read as declared entries that each carry `n` roundings
    /// already (a merged joint, whose entries are sums): every bound widens accordingly
    /// (P(s,y), P(y) and P(s) each inherit them).
    pub(crate) fn with_input_roundings(mut self, n: usize) -> Self {
        self.roundings += n;
        self.lift_roundings += 3 * n;
        self
    }

    /// Relative error bound of a computed lift: P(s,y), P(y) (one more sum over s),
    /// P(s) (a sum over x), the product P(s)P(y) and the division.
    pub(crate) fn lift_rel_error(&self) -> f64 {
        crate::numeric::gamma(self.lift_roundings)
    }

    /// Computed lift l(s,y); `None` when P(s) = 0 or P(y) = 0 (ignored outputs).
    /// Returns `Some(0.0)` for a structurally possible output whose product underflowed,
    /// which the audit then reports as infinite leakage.
    pub fn lift(&self, s: usize, y: usize) -> Option<f64> {
        if self.p_s[s] <= 0.0 || !self.support_y[y] {
            return None;
        }
        let py = self.p_y[y];
        if py <= 0.0 {
            return Some(0.0);
        }
        Some(self.joint(s, y) / (self.p_s[s] * py))
    }

    /// Whether some product underflowed, so the computed lifts carry no rounding bound
    /// (the audit then reports infinite leakage).
    pub fn underflowed(&self) -> bool {
        self.underflow
    }

    /// The output marginal P(y), indexed by y.
    pub fn p_y(&self) -> &[f64] {
        &self.p_y
    }
    /// The secret marginal P(s) = Σ_x P(s,x), indexed by s.
    pub fn p_s(&self) -> &[f64] {
        &self.p_s
    }
    /// Whether output `y` has positive probability.
    pub fn output_possible(&self, y: usize) -> bool {
        self.support_y[y] && self.p_y[y] > 0.0
    }
    /// P(s|y).
    pub fn posterior(&self, s: usize, y: usize) -> f64 {
        if self.p_y[y] > 0.0 {
            self.joint(s, y) / self.p_y[y]
        } else {
            0.0
        }
    }
    /// Number of secret values |S|.
    pub fn ns(&self) -> usize {
        self.ns
    }
    /// Number of outputs |Y|.
    pub fn ny(&self) -> usize {
        self.ny
    }
}

/// The outputs a channel row makes possible (P(y|x) > 0) marked in `support_y`, and the row's
/// smallest positive entry (∞ when none), in one pass: a product P(s,x)·w is monotone in w,
/// so that entry decides whether any product of the row underflows.
#[inline(always)]
fn support_and_min(row: impl Iterator<Item = f64>, support_y: &mut [bool]) -> f64 {
    support_y.iter_mut().zip(row).fold(f64::INFINITY, |m, (sp, w)| support_step(sp, m, w))
}

/// One entry `w` of a channel row into [`support_and_min`]: its output marked possible
/// when `w > 0`, and `w` into the smallest positive entry so far, `min_pos`.
#[inline(always)]
fn support_step(possible: &mut bool, min_pos: f64, w: f64) -> f64 {
    let positive = w > 0.0;
    *possible |= positive;
    least(min_pos, if positive { w } else { f64::INFINITY })
}

// The per-row kernels below are functions of their own, never inlined: a wasm engine runs
// a call in the code it started with (V8 has no on-stack replacement for wasm), so a loop
// over all rows in one call would run entirely in the baseline tier on a page's first
// verify, while a kernel called once per row is optimised after its first calls and the
// rest of the rows run optimised (a dense 1024² first verify in Chromium took half the time
// once its loops were per-row kernels). scripts/build-wasm.sh keeps
// wasm-opt from inlining them back (`-ocimfs`).

/// One row of [`JointSY::diagonal`]: P(s,y) = P(s)·P(y|s) added to P(y) in the order
/// `finish` sums a stored joint (rows s = 0, 1, …; a skipped row adds only zeros); true when
/// a product underflows.
#[inline(never)]
fn diagonal_row(psx: f64, row: Row<'_>, p_y: &mut [f64], support_y: &mut [bool]) -> bool {
    over_row!(row, |entries| {
        // Monotone in w: the smallest positive entry decides the underflow (see `accumulate`).
        // [`support_and_min`] in the same pass, so that each entry is read (a weight's
        // probability made) once.
        let mut min_pos = f64::INFINITY;
        for ((py, sp), w) in p_y.iter_mut().zip(support_y.iter_mut()).zip(entries) {
            min_pos = support_step(sp, min_pos, w);
            *py += psx * w;
        }
        psx * min_pos < UNDERFLOW_THRESHOLD
    })
}

/// What [`add_inputs`] adds to: the rows of P_SY, P(s) and the possible outputs.
struct Outputs<'a> {
    p_sy: &'a mut [f64],
    p_s: &'a mut [f64],
    support_y: &'a mut [bool],
}

/// Four consecutive inputs' terms of [`JointSY::markov`] (x outermost): P(s,x)·P(y|x) added
/// to the rows of P_SY of the secrets in `block` (each with its P(s,x) for the four
/// inputs), two secrets per pass over the four channel rows; P(s,x) added to P(s), and the
/// outputs of each input with P(s,x) ≠ 0 for some s marked possible. True when a product
/// P(s,x)·P(y|x) underflows.
///
/// Each P(s,y) adds its four terms in increasing x in a register, ((((P + t₀) + t₁) + t₂) +
/// t₃), as the plain loop adds them one by one: the same sums, bit for bit. A term of a zero
/// P(s,x) is +0 (entries are finite and ≥ 0, sums start at +0) and changes no sum. Loads
/// and stores per multiply-add: 1, against 2.25 one input at a time. One function for the
/// whole step (a wasm engine tiers each function up on its own).
#[inline(never)]
fn add_inputs(out: &mut Outputs<'_>, ny: usize, block: &[(usize, [f64; 4])], rows: [&[f64]; 4]) -> bool {
    let mut underflow = false;
    for (i, row) in rows.iter().enumerate() {
        // Every P(s) adds its terms in increasing x (i, then the secrets).
        if block.iter().all(|(_, p)| p[i] == 0.0) {
            continue;
        }
        let m = support_and_min(row.iter().copied(), out.support_y);
        for &(s, p) in block.iter().filter(|(_, p)| p[i] != 0.0) {
            out.p_s[s] += p[i];
            underflow |= p[i] * m < UNDERFLOW_THRESHOLD;
        }
    }
    let p_sy = &mut *out.p_sy;
    let [r0, r1, r2, r3] = rows.map(|r| &r[..ny]);
    let mut pairs = block.chunks_exact(2);
    for pair in &mut pairs {
        let ((s, p), (t, q)) = (pair[0], pair[1]);
        let (head, tail) = p_sy.split_at_mut(t * ny);
        let (a, b) = (&mut head[s * ny..][..ny], &mut tail[..ny]);
        for y in 0..ny {
            a[y] = a[y] + p[0] * r0[y] + p[1] * r1[y] + p[2] * r2[y] + p[3] * r3[y];
            b[y] = b[y] + q[0] * r0[y] + q[1] * r1[y] + q[2] * r2[y] + q[3] * r3[y];
        }
    }
    for &(s, p) in pairs.remainder() {
        let a = &mut p_sy[s * ny..][..ny];
        for y in 0..ny {
            a[y] = a[y] + p[0] * r0[y] + p[1] * r1[y] + p[2] * r2[y] + p[3] * r3[y];
        }
    }
    underflow
}
