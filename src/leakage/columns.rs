//! The audit reads a joint P_SY one output column at a time: for each y, the secrets (or
//! groups of secrets that share one lift) with P(s) > 0. A dense [`JointSY`] gives one term
//! per secret; a structured joint gives one term per group, which is how a k-RR column of
//! 4096 secrets is audited as two terms (see [`super::structured`]).

use alloc::vec;
use alloc::vec::Vec;

use super::rows::{over_row, Row};
use super::JointSY;
use crate::numeric::{greatest, least};

/// Secrets of one output column that share a lift: a single secret of a dense joint, or a
/// group of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Term {
    /// P(group), rounded up when it is a computed sum (the lift measures increase with it).
    pub weight: f64,
    /// The computed lift l(s,y), within the joint's [`Columns::lift_rel_error`] of the exact one.
    pub lift: f64,
    /// P(y|s) for every s of the group (for the LDP w.r.t. S).
    pub cond: f64,
    /// P(group, y) (for I(S;Y)).
    pub joint: f64,
    /// P(group)·P(y) (for I(S;Y)).
    pub independent: f64,
}

/// A joint P_SY read column by column.
pub trait Columns {
    /// |Y|.
    fn ny(&self) -> usize;
    /// Roundings bounding the relative error of each P(s,y) and P(y).
    fn roundings(&self) -> usize;
    /// Relative error bound of a computed lift.
    fn lift_rel_error(&self) -> f64;
    /// Whether a product fell into the subnormal range (no rounding bound holds).
    fn underflowed(&self) -> bool;
    /// Pushes the terms of column `y` onto `out`; `false` when y is never released.
    fn column(&self, y: usize, out: &mut Vec<Term>) -> bool;

    /// The smallest and largest computed lift and the largest ratio max_s P(y|s) /
    /// min_s P(y|s) over the released outputs: all a verification without the lift and
    /// information measures reads. Read column by column here; a joint may override it
    /// with a faster order of the same exact minima and maxima.
    fn extremes(&self) -> Extremes {
        let mut e = Extremes::NONE;
        let mut terms = Vec::new();
        for y in 0..self.ny() {
            terms.clear();
            if self.column(y, &mut terms) && !terms.is_empty() {
                e.fold_column(&terms);
            }
        }
        e
    }
}

/// The extremes of a joint's computed lifts and of its LDP ratio (see [`Columns::extremes`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extremes {
    /// The smallest computed lift (∞ when no output is released).
    pub min_lift: f64,
    /// The largest computed lift.
    pub max_lift: f64,
    /// The largest max_s P(y|s) / min_s P(y|s) over released outputs (∞ when some secret
    /// never produces a released y).
    pub worst_ratio: f64,
}

impl Extremes {
    /// Nothing seen yet.
    pub const NONE: Extremes = Extremes { min_lift: f64::INFINITY, max_lift: 0.0, worst_ratio: 0.0 };

    /// Adds the terms of one released output's column (at least one): its lifts, and the
    /// ratio of its largest to smallest P(y|s) for the LDP w.r.t. S (`ln_up` is
    /// increasing, so the largest ratio gives the largest bound: one log, not one per y).
    pub(crate) fn fold_column(&mut self, terms: &[Term]) {
        let (mut pmax, mut pmin) = (0.0f64, f64::INFINITY);
        for t in terms {
            self.min_lift = least(self.min_lift, t.lift);
            self.max_lift = greatest(self.max_lift, t.lift);
            pmax = greatest(pmax, t.cond);
            pmin = least(pmin, t.cond);
        }
        self.worst_ratio = self.worst_ratio.max(ratio(pmax, pmin));
    }

    /// One secret's row of P_SY (P(s) = `ps` > 0), the products `scale`·`row` ([`JointSY::row`]),
    /// folded in: its lifts P(s,y)/(P(s)P(y)) over the possible outputs, and P(y|s) into the
    /// per-output `pmax`/`pmin`. A kernel of its own, never inlined, so that a wasm engine
    /// optimises it during a page's first verify (see `leakage::lift`).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn fold_joint_row(
        &mut self,
        ps: f64,
        scale: f64,
        row: Row<'_>,
        p_y: &[f64],
        support_y: &[bool],
        pmax: &mut [f64],
        pmin: &mut [f64],
    ) {
        over_row!(row, |entries| {
            let cols = entries.zip(p_y).zip(support_y).zip(pmax.iter_mut().zip(pmin.iter_mut()));
            for (((w, &py), &possible), (hi, lo)) in cols {
                let joint = scale * w;
                let lift = if py <= 0.0 { 0.0 } else { joint / (ps * py) };
                let cond = joint / ps;
                if possible {
                    self.min_lift = least(self.min_lift, lift);
                    self.max_lift = greatest(self.max_lift, lift);
                    *hi = greatest(*hi, cond);
                    *lo = least(*lo, cond);
                }
            }
        })
    }
}

/// max/min of one column's P(y|s), infinite when the minimum is 0.
pub(crate) fn ratio(pmax: f64, pmin: f64) -> f64 {
    if pmin == 0.0 {
        f64::INFINITY
    } else {
        pmax / pmin
    }
}

impl Columns for JointSY {
    fn ny(&self) -> usize {
        self.ny
    }
    fn roundings(&self) -> usize {
        self.roundings
    }
    fn lift_rel_error(&self) -> f64 {
        JointSY::lift_rel_error(self)
    }
    fn underflowed(&self) -> bool {
        self.underflow
    }
    fn column(&self, y: usize, out: &mut Vec<Term>) -> bool {
        if !self.support_y[y] {
            return false;
        }
        for s in 0..self.ns {
            let Some(lift) = self.lift(s, y) else { continue };
            let joint = self.joint(s, y);
            out.push(Term {
                weight: self.p_s[s],
                lift,
                cond: joint / self.p_s[s],
                joint,
                independent: self.p_s[s] * self.p_y[y],
            });
        }
        true
    }

    /// [`Columns::extremes`] row by row: the same computed lifts and P(y|s) (the same
    /// operations on the same values) read in memory order, where a column's stride is a
    /// whole row of P_SY. Minima and maxima are exact, so the order changes no bit.
    fn extremes(&self) -> Extremes {
        let ny = self.ny;
        let mut e = Extremes::NONE;
        let (mut pmax, mut pmin) = (vec![0.0f64; ny], vec![f64::INFINITY; ny]);
        let (mut any, mut buf) = (false, Vec::new());
        for (s, &ps) in self.p_s.iter().enumerate() {
            if ps <= 0.0 {
                continue;
            }
            any = true;
            let (scale, row) = self.row(s, &mut buf);
            e.fold_joint_row(ps, scale, row, &self.p_y, &self.support_y, &mut pmax, &mut pmin);
        }
        if any {
            for ((&hi, &lo), _) in pmax.iter().zip(&pmin).zip(&self.support_y).filter(|(_, &sp)| sp) {
                e.worst_ratio = e.worst_ratio.max(ratio(hi, lo));
            }
        }
        e
    }
}
