//! The lift l(s,y) = P(s|y)/P(s) = P(s,y) / (P(s) P(y)) (Zarrabian et al. eq 1) and
//! the joint P_SY it is computed from.

use alloc::vec;
use alloc::vec::Vec;

use crate::document::Matrix;
use crate::numeric::least;

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
    pub(crate) p_sy: Vec<f64>,
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
    /// (or scanning) the |X| × |X| diagonal matrix.
    pub fn diagonal(prior: &[f64], p_y_given_x: &Matrix) -> Self {
        debug_assert_eq!(prior.len(), p_y_given_x.rows());
        let (nx, ny) = (prior.len(), p_y_given_x.cols());
        let mut p_sy = vec![0.0; nx * ny];
        let mut support_y = vec![false; ny];
        let mut p_s = vec![0.0; nx];
        let mut p_y = vec![0.0; ny];
        let mut underflow = false;
        for (s, &psx) in prior.iter().enumerate() {
            if psx == 0.0 {
                continue;
            }
            p_s[s] = psx;
            underflow |=
                diagonal_row(psx, p_y_given_x.row(s), &mut p_sy[s * ny..(s + 1) * ny], &mut p_y, &mut support_y);
        }
        Self::finish_with(nx, p_sy, p_s, p_y, support_y, underflow, 1)
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
            // x outermost: each channel row is read once (not once per secret) while the
            // |S| rows of P_SY stay in cache. Every P(s,y) and P(s) still adds its terms in
            // increasing x, so the sums are the same, bit for bit.
            let w = channel(0);
            let mut column: Vec<(usize, f64)> = Vec::with_capacity(ns);
            for x in 0..nx {
                column.clear();
                column.extend((0..ns).map(|s| (s, p_sx.get(s, x))).filter(|&(_, psx)| psx != 0.0));
                if column.is_empty() {
                    continue;
                }
                underflow |= add_input(&mut p_sy, ny, &column, w.row(x), &mut p_s, &mut support_y);
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
                    underflow |= psx * min_positive(row) < UNDERFLOW_THRESHOLD;
                    for (sp, &v) in support_y.iter_mut().zip(row) {
                        *sp |= v > 0.0;
                    }
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
        Self::finish_with(nx, p_sy, p_s, p_y, support_y, underflow, widest)
    }

    /// [`JointSY::finish`] with P(y) = Σ_s P(s,y) already summed (in increasing s).
    fn finish_with(
        nx: usize,
        p_sy: Vec<f64>,
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
        Some(self.p_sy[s * self.ny + y] / (self.p_s[s] * py))
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
            self.p_sy[s * self.ny + y] / self.p_y[y]
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

/// Rows `s[0] < s[1] < s[2] < s[3]` of the row-major `p_sy` (`ny` columns), each `ny` long,
/// mutably at once.
fn rows_mut(p_sy: &mut [f64], ny: usize, s: [usize; 4]) -> [&mut [f64]; 4] {
    let (head, rest) = p_sy[s[0] * ny..].split_at_mut(ny);
    let (b, rest) = rest[(s[1] - s[0] - 1) * ny..].split_at_mut(ny);
    let (c, rest) = rest[(s[2] - s[1] - 1) * ny..].split_at_mut(ny);
    let d = &mut rest[(s[3] - s[2] - 1) * ny..][..ny];
    [head, b, c, d]
}

/// The smallest positive entry of a channel row (∞ when none): a product P(s,x)·w is
/// monotone in w, so it decides whether any product of the row underflows.
fn min_positive(row: &[f64]) -> f64 {
    row.iter().copied().filter(|&w| w > 0.0).fold(f64::INFINITY, least)
}

// The per-row kernels below are functions of their own, never inlined: a wasm engine runs
// a call in the code it started with (V8 has no on-stack replacement for wasm), so a loop
// over all rows in one call would run entirely in the baseline tier on a page's first
// verify, while a kernel called once per row is optimised after its first calls and the
// rest of the rows run optimised (BENCHMARKS.md, "Cold verify"). scripts/build-wasm.sh keeps
// wasm-opt from inlining them back (`-ocimfs`).

/// One row of [`JointSY::diagonal`]: P(s,y) = P(s)·P(y|s) into `out`, added to P(y) in the
/// order `finish` sums it (rows s = 0, 1, …; a skipped row adds only zeros); true when a
/// product underflows.
#[inline(never)]
fn diagonal_row(psx: f64, row: &[f64], out: &mut [f64], p_y: &mut [f64], support_y: &mut [bool]) -> bool {
    // Monotone in w: the smallest positive entry decides the underflow (see `accumulate`).
    let min_pos = min_positive(row);
    for (sp, &w) in support_y.iter_mut().zip(row) {
        *sp |= w > 0.0;
    }
    for ((o, py), &w) in out.iter_mut().zip(p_y.iter_mut()).zip(row) {
        *o = psx * w;
        *py += *o;
    }
    psx * min_pos < UNDERFLOW_THRESHOLD
}

/// One input's terms of [`JointSY::markov`] (x outermost): its P(s,x)·P(y|x) added to the
/// rows of P_SY of the secrets in `column` (P(s,x) ≠ 0), four secrets per pass over the
/// channel row (each entry loaded once for four multiply-adds); true when a product
/// underflows.
#[inline(never)]
fn add_input(
    p_sy: &mut [f64],
    ny: usize,
    column: &[(usize, f64)],
    row: &[f64],
    p_s: &mut [f64],
    support_y: &mut [bool],
) -> bool {
    let mut underflow = false;
    let m = min_positive(row);
    for &(s, psx) in column {
        p_s[s] += psx;
        underflow |= psx * m < UNDERFLOW_THRESHOLD;
    }
    let mut quads = column.chunks_exact(4);
    for q in &mut quads {
        let [a, b, c, d] = rows_mut(p_sy, ny, [q[0].0, q[1].0, q[2].0, q[3].0]);
        let (pa, pb, pc, pd) = (q[0].1, q[1].1, q[2].1, q[3].1);
        let (a, b, c, d) = (&mut a[..ny], &mut b[..ny], &mut c[..ny], &mut d[..ny]);
        for (i, &v) in row[..ny].iter().enumerate() {
            a[i] += pa * v;
            b[i] += pb * v;
            c[i] += pc * v;
            d[i] += pd * v;
        }
    }
    for &(s, psx) in quads.remainder() {
        for (o, &v) in p_sy[s * ny..(s + 1) * ny].iter_mut().zip(row) {
            *o += psx * v;
        }
    }
    for (sp, &v) in support_y.iter_mut().zip(row) {
        *sp |= v > 0.0;
    }
    underflow
}
