//! The audit reads a joint P_SY one output column at a time: for each y, the secrets (or
//! groups of secrets that share one lift) with P(s) > 0. A dense [`JointSY`] gives one term
//! per secret; a structured joint gives one term per group, which is how a k-RR column of
//! 4096 secrets is audited as two terms (see [`super::structured`]).

use alloc::vec::Vec;

use super::JointSY;

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
            let joint = self.p_sy[s * self.ny + y];
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
}
