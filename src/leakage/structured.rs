//! The audit of the exact channel of any categorical kind, without building a |X| × |Y|
//! table for the structured ones.
//!
//! * **Mixture** P(y|x) = κ·[y = x] + (1 − κ)·m_y (k-RR, eq 19, the identity), S = X: in
//!   column y every secret s ≠ y has the same lift (1 − κ)m_y / P(y), so the column is two
//!   terms — the secret y and the group X∖{y}, whose mass Σ_{x≠y} P(x) comes from prefix
//!   and suffix sums (no cancellation) and is rounded up. The whole audit is O(|X|).
//!   With a declared secret S, P(s,y) = P(s,x=y)·P(y|y) + Σ_{x≠y} P(s,x)·(1 − κ)m_y is
//!   O(|S|·|X|).
//! * **Merge** P(y|x) = Q(y|b(x)): S → X → B → Y is a Markov chain, so every S-side measure
//!   is the inner mechanism's under the merged joint P(s,b) = Σ_{x∈b} P(s,x); for S = X the
//!   lift of x is the lift of its block, so the secrets X group into the blocks. Its
//!   entries are sums, and the bounds widen by their roundings.
//! * **Sparse**: P(s,y) accumulated over the non-zero entries only.
//!
//! # Rounding (see [`crate::numeric`])
//! The sampler's exact entries (1 − κ)·m_y = W_y/2⁶⁴ and κ + (1 − κ)·m_y = (W_κ + W_y)/2⁶⁴
//! are each rounded once to f64 ([`MixExact`]). Then P(y) = P(y)·P(y|y) + (Σ_{x≠y} P(x))·
//! (1 − κ)m_y carries ≤ |X| + 3 roundings and a lift P(y|s)/P(y) ≤ |X| + 8. The bound used,
//! γ(2(|X| + 5) + 4) (the dense joint's rule for |X| + 5 roundings), covers it with room:
//! it was set when κ, 1 − κ and m_y were rounded apart and the entries carried 3 and 4.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::columns::{Columns, Extremes, Term};
use super::lift::UNDERFLOW_THRESHOLD;
use super::ln_of_ratio;
use super::{
    from_joint_in, ldp_of_extremes, ldp_of_rows, lip_of, lip_only, maximal_leakage, mutual_information_xy, JointSY,
    Leakage, Scope,
};
use crate::document::Matrix;
use crate::error::Result;
use crate::numeric::{gamma, ln_up, prefix_suffix_sums, up_rel};
use crate::sample::QuantisedChannel;

/// The exact mixture κ·I + (1 − κ)·1mᵀ as the sampler realises it (one alias table over the
/// outputs and "keep", [`crate::sample::MixSampler`]): each entry the exact rational of its
/// integer numerators over 2⁶⁴, rounded once to f64.
#[derive(Debug, Clone, PartialEq)]
pub struct MixExact {
    /// P(y|x) for x ≠ y: W_y / 2⁶⁴, i.e. (1 − κ)·m_y.
    pub off: Vec<f64>,
    /// P(y|y): (W_κ + W_y) / 2⁶⁴, the integer sum rounded once, i.e. κ + (1 − κ)·m_y.
    pub diag: Vec<f64>,
}

/// The exact channel a sampler realises, in the form of its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Exact {
    /// Every entry.
    Dense(Matrix),
    /// Every entry, the exact probability of a dense sampler's integer weight (shared with
    /// the sampler), computed where it is read: [`Exact::Dense`] of
    /// [`QuantisedChannel::exact_channel`], bit for bit, without that copy.
    Quantised(Arc<QuantisedChannel>),
    /// κ·I + (1 − κ)·1mᵀ.
    Mix(MixExact),
    /// Row x: its non-zero entries (y, P(y|x)), y increasing; `outputs` is |Y|.
    Sparse {
        /// |Y|.
        outputs: usize,
        /// The non-zero entries of each row.
        rows: Vec<Vec<(u32, f64)>>,
    },
    /// The block of x, then `inner` on the blocks.
    Merge {
        /// b(x).
        blocks: Vec<u32>,
        /// The channel on the blocks.
        inner: Box<Exact>,
    },
}

impl Exact {
    /// |X|.
    pub fn inputs(&self) -> usize {
        match self {
            Exact::Dense(m) => m.rows(),
            Exact::Quantised(q) => q.inputs(),
            Exact::Mix(m) => m.off.len(),
            Exact::Sparse { rows, .. } => rows.len(),
            Exact::Merge { blocks, .. } => blocks.len(),
        }
    }
    /// |Y|.
    pub fn outputs(&self) -> usize {
        match self {
            Exact::Dense(m) => m.cols(),
            Exact::Quantised(q) => q.outputs(),
            Exact::Mix(m) => m.off.len(),
            Exact::Sparse { outputs, .. } => *outputs,
            Exact::Merge { inner, .. } => inner.outputs(),
        }
    }

    /// The dense channel (O(|X|·|Y|)): for the SRLIP audit and for tests.
    pub fn to_dense(&self) -> Matrix {
        match self {
            Exact::Dense(m) => m.clone(),
            Exact::Quantised(q) => Matrix::from_flat(q.inputs(), q.outputs(), q.exact_channel()),
            Exact::Mix(mx) => {
                let k = mx.off.len();
                let (off, diag) = (&mx.off, &mx.diag);
                let w = (0..k * k).map(|i| if i / k == i % k { diag[i % k] } else { off[i % k] }).collect();
                Matrix::from_flat(k, k, w)
            }
            Exact::Sparse { outputs, rows } => {
                let mut w = vec![0.0; rows.len() * outputs];
                for (x, r) in rows.iter().enumerate() {
                    for &(y, p) in r {
                        w[x * outputs + y as usize] = p;
                    }
                }
                Matrix::from_flat(rows.len(), *outputs, w)
            }
            Exact::Merge { blocks, inner } => {
                let q = inner.to_dense();
                let w = blocks.iter().flat_map(|&b| q.row(b as usize).iter().copied()).collect();
                Matrix::from_flat(blocks.len(), q.cols(), w)
            }
        }
    }
}

/// P_SY of any exact channel: dense, or grouped by shared lifts.
#[derive(Debug, Clone)]
pub enum Joint {
    /// One term per secret.
    Dense(JointSY),
    /// A mixture with S = X: two terms per column.
    Mix(MixJoint),
    /// A merge with S = X: the joint of the blocks, each x reading its block's lift.
    Grouped {
        /// b(x).
        blocks: Vec<u32>,
        /// P(x).
        prior: Vec<f64>,
        /// The joint of the blocks (S = B).
        inner: Box<Joint>,
    },
}

/// A mixture's joint with S = X.
#[derive(Debug, Clone)]
pub struct MixJoint {
    prior: Vec<f64>,
    off: Vec<f64>,
    diag: Vec<f64>,
    /// Σ_{x≠y} P(x), from prefix and suffix sums.
    rest: Vec<f64>,
    /// Whether some x ≠ y has P(x) > 0.
    others: Vec<bool>,
    p_y: Vec<f64>,
    support_y: Vec<bool>,
    /// Roundings each prior entry already carries (a merged prior's sums).
    input_roundings: usize,
    underflow: bool,
}

impl MixJoint {
    fn new(prior: &[f64], mx: &MixExact, input_roundings: usize) -> Self {
        let k = prior.len();
        let (before, after) = prefix_suffix_sums(prior);
        let positive = prior.iter().filter(|&&p| p > 0.0).count();
        let mut rest = vec![0.0; k];
        let mut others = vec![false; k];
        let mut p_y = vec![0.0; k];
        let mut support_y = vec![false; k];
        let mut underflow = false;
        for y in 0..k {
            let c = mix_cell(mx, prior, (&before, &after, positive), y);
            (rest[y], others[y], p_y[y], support_y[y]) = (c.rest, c.others, c.joint, c.support);
            underflow |= c.underflow;
        }
        MixJoint {
            prior: prior.to_vec(),
            off: mx.off.clone(),
            diag: mx.diag.clone(),
            rest,
            others,
            p_y,
            support_y,
            input_roundings,
            underflow,
        }
    }

    fn roundings(&self) -> usize {
        self.prior.len() + 5 + self.input_roundings
    }

    fn lift(&self, s: usize, y: usize) -> Option<f64> {
        if self.prior[s] <= 0.0 || !self.support_y[y] {
            return None;
        }
        let py = self.p_y[y];
        if py <= 0.0 {
            return Some(0.0);
        }
        Some(if s == y { self.diag[y] } else { self.off[y] } / py)
    }
}

impl Columns for MixJoint {
    fn ny(&self) -> usize {
        self.p_y.len()
    }
    fn roundings(&self) -> usize {
        MixJoint::roundings(self)
    }
    fn lift_rel_error(&self) -> f64 {
        gamma(2 * MixJoint::roundings(self) + 4 + self.input_roundings)
    }
    fn underflowed(&self) -> bool {
        self.underflow
    }
    fn column(&self, y: usize, out: &mut Vec<Term>) -> bool {
        if !self.support_y[y] {
            return false;
        }
        let py = self.p_y[y];
        let lift = |num: f64| if py <= 0.0 { 0.0 } else { num / py };
        let widen = |w: f64, n: usize| if n == 0 { w } else { up_rel(w, gamma(n)) };
        if self.prior[y] > 0.0 {
            let p = self.prior[y];
            out.push(Term {
                weight: widen(p, self.input_roundings),
                lift: lift(self.diag[y]),
                cond: self.diag[y],
                joint: p * self.diag[y],
                independent: p * py,
            });
        }
        if self.others[y] {
            let r = self.rest[y];
            out.push(Term {
                weight: widen(r, self.prior.len() + self.input_roundings),
                lift: lift(self.off[y]),
                cond: self.off[y],
                joint: r * self.off[y],
                independent: r * py,
            });
        }
        true
    }
}

impl Joint {
    /// |S| (the rows of a receipt section).
    pub fn ns(&self) -> usize {
        match self {
            Joint::Dense(j) => j.ns(),
            Joint::Mix(m) => m.prior.len(),
            Joint::Grouped { prior, .. } => prior.len(),
        }
    }
    /// P(s).
    pub fn p_s(&self, s: usize) -> f64 {
        match self {
            Joint::Dense(j) => j.p_s()[s],
            Joint::Mix(m) => m.prior[s],
            Joint::Grouped { prior, .. } => prior[s],
        }
    }
    /// The computed lift l(s,y), as the audit computed it; `None` when P(s) = 0 or y is
    /// never released.
    pub fn lift(&self, s: usize, y: usize) -> Option<f64> {
        match self {
            Joint::Dense(j) => j.lift(s, y),
            Joint::Mix(m) => m.lift(s, y),
            Joint::Grouped { blocks, prior, inner } => {
                if prior[s] <= 0.0 {
                    None
                } else {
                    inner.lift(blocks[s] as usize, y)
                }
            }
        }
    }
    /// P(s|y) (0 when P(y) = 0).
    pub fn posterior(&self, s: usize, y: usize) -> f64 {
        match self {
            Joint::Dense(j) => j.posterior(s, y),
            _ => self.lift(s, y).map_or(0.0, |l| self.p_s(s) * l),
        }
    }
    /// Whether output `y` has positive probability.
    pub fn output_possible(&self, y: usize) -> bool {
        match self {
            Joint::Dense(j) => j.output_possible(y),
            Joint::Mix(m) => m.support_y[y] && m.p_y[y] > 0.0,
            Joint::Grouped { inner, .. } => inner.output_possible(y),
        }
    }
}

impl Columns for Joint {
    fn ny(&self) -> usize {
        match self {
            Joint::Dense(j) => j.ny,
            Joint::Mix(m) => m.ny(),
            Joint::Grouped { inner, .. } => inner.ny(),
        }
    }
    fn roundings(&self) -> usize {
        match self {
            Joint::Dense(j) => j.roundings,
            Joint::Mix(m) => MixJoint::roundings(m),
            Joint::Grouped { inner, .. } => inner.roundings(),
        }
    }
    fn lift_rel_error(&self) -> f64 {
        match self {
            Joint::Dense(j) => j.lift_rel_error(),
            Joint::Mix(m) => Columns::lift_rel_error(m),
            Joint::Grouped { inner, .. } => inner.lift_rel_error(),
        }
    }
    fn underflowed(&self) -> bool {
        match self {
            Joint::Dense(j) => j.underflow,
            Joint::Mix(m) => m.underflow,
            Joint::Grouped { inner, .. } => inner.underflowed(),
        }
    }
    fn column(&self, y: usize, out: &mut Vec<Term>) -> bool {
        match self {
            Joint::Dense(j) => j.column(y, out),
            Joint::Mix(m) => m.column(y, out),
            Joint::Grouped { inner, .. } => inner.column(y, out),
        }
    }
    fn extremes(&self) -> Extremes {
        match self {
            Joint::Dense(j) => j.extremes(),
            Joint::Mix(m) => m.extremes(),
            Joint::Grouped { inner, .. } => inner.extremes(),
        }
    }
}

/// P(s,b) = Σ_{x∈b} P(s,x) (or P(b) for S = X) and the roundings its entries carry.
fn merge_joint(joint: Option<&Matrix>, prior: &[f64], blocks: &[u32], nb: usize) -> (Option<Matrix>, Vec<f64>, usize) {
    let mut size = vec![0usize; nb];
    let mut p_b = vec![0.0; nb];
    for (x, &b) in blocks.iter().enumerate() {
        p_b[b as usize] += prior[x];
        size[b as usize] += 1;
    }
    let r = size.iter().copied().max().unwrap_or(1).saturating_sub(1);
    let merged = joint.map(|j| {
        let mut w = vec![0.0; j.rows() * nb];
        for s in 0..j.rows() {
            for (x, &b) in blocks.iter().enumerate() {
                w[s * nb + b as usize] += j.get(s, x);
            }
        }
        Matrix::from_flat(j.rows(), nb, w)
    });
    (merged, p_b, r)
}

/// P(s,y) of a mixture under a declared joint (dense, |S| × |X|).
fn mix_joint_declared(p_sx: &Matrix, mx: &MixExact) -> JointSY {
    let (ns, nx) = (p_sx.rows(), p_sx.cols());
    let mut p_sy = vec![0.0; ns * nx];
    let mut p_s = vec![0.0; ns];
    let mut support_y = vec![false; nx];
    let mut underflow = false;
    for s in 0..ns {
        let row = p_sx.row(s);
        p_s[s] = row.iter().filter(|&&v| v != 0.0).sum();
        let (before, after) = prefix_suffix_sums(row);
        let positive = row.iter().filter(|&&p| p > 0.0).count();
        for y in 0..nx {
            let c = mix_cell(mx, row, (&before, &after, positive), y);
            p_sy[s * nx + y] = c.joint;
            support_y[y] |= c.support;
            underflow |= c.underflow;
        }
    }
    let mut j = JointSY::finish(nx, nx, p_sy, p_s, support_y, underflow, 1);
    // P(s,y): |X| + 5 roundings (see the module docs); P(y) adds |S|; the lift adds P(s)
    // (a sum of ≤ |X| terms), the product and the division.
    j.roundings = nx + 5 + ns;
    j.lift_roundings = 2 * j.roundings + nx + 4;
    j
}

/// One cell of a mixture's joint, for a joint row (P(s,x) over x; the prior for S = X).
struct MixCell {
    /// row[y]·P(y|y) + (Σ_{x≠y} row[x])·(1 − κ)m_y.
    joint: f64,
    /// Σ_{x≠y} row[x], from prefix and suffix sums.
    rest: f64,
    /// Whether some x ≠ y has row[x] > 0.
    others: bool,
    /// Whether the cell is structurally positive (from the exact numerators, all ≥ 2⁻¹²⁸ when
    /// non-zero, not from the computed product).
    support: bool,
    /// Some structurally positive product fell into the subnormal range.
    underflow: bool,
}

/// The mixture's cell (row, y); `sums` are the row's prefix and suffix sums and its number
/// of positive entries.
fn mix_cell(mx: &MixExact, row: &[f64], sums: (&[f64], &[f64], usize), y: usize) -> MixCell {
    let (before, after, positive) = sums;
    let rest = before[y] + after[y + 1];
    let others = positive > usize::from(row[y] > 0.0);
    // Structurally positive iff the numerator is (≥ 1 over 2⁶⁴, never rounded to 0).
    let (off_pos, diag_pos) = (mx.off[y] > 0.0, mx.diag[y] > 0.0);
    let (a_pos, b_pos) = (row[y] > 0.0 && diag_pos, others && off_pos);
    let (a, b) = (row[y] * mx.diag[y], rest * mx.off[y]);
    let underflow = (off_pos && mx.off[y] < UNDERFLOW_THRESHOLD)
        || (a_pos && a < UNDERFLOW_THRESHOLD)
        || (b_pos && b < UNDERFLOW_THRESHOLD);
    MixCell { joint: a + b, rest, others, support: a_pos || b_pos, underflow }
}

/// P(s,y) of a sparse channel, over its non-zero entries (the same sums, in the same order,
/// as the dense joint of the same channel).
fn sparse_joint(joint: Option<&Matrix>, prior: &[f64], outputs: usize, rows: &[Vec<(u32, f64)>]) -> JointSY {
    let nx = rows.len();
    let ns = joint.map_or(nx, Matrix::rows);
    let mut p_sy = vec![0.0; ns * outputs];
    let mut p_s = vec![0.0; ns];
    let mut support_y = vec![false; outputs];
    let mut underflow = false;
    let mut max_row = 1usize;
    for s in 0..ns {
        let out = &mut p_sy[s * outputs..(s + 1) * outputs];
        let mut add = |x: usize, psx: f64| {
            if psx == 0.0 {
                return;
            }
            p_s[s] += psx;
            for &(y, w) in &rows[x] {
                let prod = psx * w;
                out[y as usize] += prod;
                support_y[y as usize] |= w > 0.0;
                underflow |= w > 0.0 && prod < UNDERFLOW_THRESHOLD;
            }
        };
        match joint {
            None => add(s, prior[s]),
            Some(j) => {
                max_row = max_row.max(j.row(s).iter().filter(|&&v| v != 0.0).count());
                for (x, &psx) in j.row(s).iter().enumerate() {
                    add(x, psx);
                }
            }
        }
    }
    JointSY::finish(nx, outputs, p_sy, p_s, support_y, underflow, max_row)
}

/// P_SY of the exact channel `ch` under the declared joint `joint` (`None`: S = X under
/// `prior`), with `input_roundings` already carried by the joint's entries.
fn build(joint: Option<&Matrix>, prior: &[f64], ch: &Exact, input_roundings: usize) -> Joint {
    let with =
        |j: JointSY| Joint::Dense(if input_roundings == 0 { j } else { j.with_input_roundings(input_roundings) });
    match ch {
        Exact::Dense(m) => match joint {
            None => with(JointSY::diagonal(prior, m)),
            Some(j) => with(JointSY::markov(j, m)),
        },
        Exact::Quantised(q) => match joint {
            None => with(JointSY::diagonal_quantised(prior, q)),
            Some(j) => with(JointSY::markov(j, &ch.to_dense())),
        },
        Exact::Mix(mx) => match joint {
            None => Joint::Mix(MixJoint::new(prior, mx, input_roundings)),
            Some(j) => with(mix_joint_declared(j, mx)),
        },
        Exact::Sparse { outputs, rows } => with(sparse_joint(joint, prior, *outputs, rows)),
        Exact::Merge { blocks, inner } => {
            let (merged, p_b, r) = merge_joint(joint, prior, blocks, inner.inputs());
            let j = build(merged.as_ref(), &p_b, inner, input_roundings + r);
            match joint {
                None => Joint::Grouped { blocks: blocks.clone(), prior: prior.to_vec(), inner: Box::new(j) },
                Some(_) => j,
            }
        }
    }
}

/// P_SY of the exact channel under the declared joint (`None`: S = X under `prior`): what
/// the audit reads and what a receipt's lifts are computed from.
pub fn joint_of(joint: Option<&Matrix>, prior: &[f64], ch: &Exact) -> Joint {
    build(joint, prior, ch, 0)
}

/// LDP w.r.t. X (prior-free; see [`ldp_of_rows`]) of an exact channel.
pub(crate) fn ldp_x(ch: &Exact) -> f64 {
    match ch {
        Exact::Dense(m) => ldp_of_rows(m),
        Exact::Quantised(q) => match q.output_extremes() {
            Some((hi, lo)) => ldp_of_extremes(hi, lo),
            None => ldp_of_rows(&ch.to_dense()),
        },
        Exact::Mix(mx) => {
            if mx.off.len() < 2 {
                return 0.0;
            }
            let (off, diag) = (&mx.off, &mx.diag);
            // P(y|y) and (1 − κ)m_y: one rounding each, one division (γ(8) covers it with
            // room); the largest ratio, then one log (ln_up is increasing).
            let worst = off
                .iter()
                .zip(diag)
                .filter(|(_, &d)| d > 0.0)
                .fold(0.0f64, |w, (&o, &d)| w.max(if o == 0.0 { f64::INFINITY } else { d / o }));
            ln_of_ratio(worst, gamma(8))
        }
        Exact::Sparse { outputs, rows } => {
            let (mut hi, mut lo, mut count) =
                (vec![0.0f64; *outputs], vec![f64::INFINITY; *outputs], vec![0usize; *outputs]);
            for r in rows {
                for &(y, p) in r {
                    let y = y as usize;
                    hi[y] = hi[y].max(p);
                    lo[y] = lo[y].min(p);
                    count[y] += usize::from(p > 0.0);
                }
            }
            let worst = (0..*outputs)
                .filter(|&y| hi[y] > 0.0)
                .fold(0.0f64, |w, y| w.max(if count[y] < rows.len() { f64::INFINITY } else { hi[y] / lo[y] }));
            ln_of_ratio(worst, gamma(3))
        }
        // Every block has an input, so the prior-free maximum over x is the one over blocks.
        Exact::Merge { inner, .. } => ldp_x(inner),
    }
}

/// Maximal leakage ln Σ_y max_{x: P(x)>0} P(y|x) (see [`maximal_leakage`]).
fn maximal(ch: &Exact, prior: &[f64]) -> f64 {
    match ch {
        Exact::Dense(m) => maximal_leakage(prior, m),
        Exact::Quantised(_) => maximal_leakage(prior, &ch.to_dense()),
        Exact::Mix(mx) => {
            let (off, diag) = (&mx.off, &mx.diag);
            let positive = prior.iter().filter(|&&p| p > 0.0).count();
            let total: f64 = (0..prior.len())
                .map(|y| {
                    if prior[y] > 0.0 {
                        diag[y]
                    } else if positive > 0 {
                        off[y]
                    } else {
                        0.0
                    }
                })
                .sum();
            ln_up(total, gamma(prior.len() + 5)).max(0.0)
        }
        Exact::Sparse { outputs, rows } => {
            let mut m = vec![0.0f64; *outputs];
            for (r, _) in rows.iter().zip(prior).filter(|(_, &p)| p > 0.0) {
                for &(y, p) in r {
                    m[y as usize] = m[y as usize].max(p);
                }
            }
            ln_up(m.iter().sum(), gamma(outputs + 1)).max(0.0)
        }
        Exact::Merge { blocks, inner } => {
            let (_, p_b, _) = merge_joint(None, prior, blocks, inner.inputs());
            maximal(inner, &p_b)
        }
    }
}

/// Audits the exact channel `ch` w.r.t. S under the declared joint (`None`: S = X under
/// `prior`) at α-order `alpha`: every measure of [`audit`](super::audit). A dense channel takes exactly
/// [`audit`](super::audit)'s path; the structured ones read grouped columns (module docs), and their
/// X-side I(X;Y) is the S = X audit's I(S;Y) under the joint's marginal.
///
/// # Errors
/// As [`audit`](super::audit).
pub fn audit_exact(joint: Option<&Matrix>, prior: &[f64], ch: &Exact, alpha: f64) -> Result<Leakage> {
    super::check_alpha(alpha)?;
    Ok(measure(&build(joint, prior, ch, 0), joint, prior, ch, alpha, Scope::ALL, None))
}

/// The measures of `scope` from `j`, the joint of `ch` under `joint` (`None`: S = X under
/// `prior`) as [`joint_of`] builds it: what a verification computes, on the joint the
/// verified mechanism then keeps for its receipts. With [`Scope::ALL`] it is
/// [`audit_exact`], bit for bit. `known_ldp_x` is the channel's LDP w.r.t. X when an
/// audit under another joint already computed it (it is prior-free).
pub fn measure(
    j: &Joint,
    joint: Option<&Matrix>,
    prior: &[f64],
    ch: &Exact,
    alpha: f64,
    scope: Scope,
    known_ldp_x: Option<f64>,
) -> Leakage {
    if let (true, Exact::Quantised(_)) = (scope.information, ch) {
        // The information measures read the whole channel, column by column: its matrix,
        // made once.
        return measure(j, joint, prior, &Exact::Dense(ch.to_dense()), alpha, scope, known_ldp_x);
    }
    let mut out = from_joint_in(j, alpha, scope);
    out.ldp_x = known_ldp_x.unwrap_or_else(|| ldp_x(ch));
    if !scope.information {
        return out;
    }
    let p_x: Cow<'_, [f64]> = match joint {
        None => Cow::Borrowed(prior),
        Some(js) => Cow::Owned(js.col_sums()),
    };
    out.maximal_leakage = maximal(ch, &p_x);
    out.mi_xy = match (ch, j, joint) {
        // `audit`'s I(X;Y): the channel under the marginal, against the joint's P(y).
        (Exact::Dense(m), Joint::Dense(d), _) => mutual_information_xy(&p_x, m, d.p_y()),
        (_, _, None) => out.mi_sy,
        (_, _, Some(_)) => from_joint_in(&build(None, &p_x, ch, 0), alpha, scope).mi_sy,
    };
    out
}

/// LIP alone under S = X with `prior` (a `bp_lip` prior): [`lip_only`] for a dense channel.
///
/// # Errors
/// As [`lip_only`].
pub fn lip_exact(prior: &[f64], ch: &Exact) -> Result<f64> {
    match ch {
        Exact::Dense(m) if m.rows() != prior.len() => lip_only(&Matrix::diag(prior), m),
        Exact::Quantised(q) if q.inputs() != prior.len() => lip_only(&Matrix::diag(prior), &ch.to_dense()),
        _ => Ok(lip_of(&build(None, prior, ch, 0))),
    }
}

/// The dense channel the SRLIP audit reads (it visits every (x, y) anyway).
pub fn srlip_channel(ch: &Exact) -> Cow<'_, Matrix> {
    match ch {
        Exact::Dense(m) => Cow::Borrowed(m),
        _ => Cow::Owned(ch.to_dense()),
    }
}
