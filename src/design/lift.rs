//! What the lift-based designers (ORR/AORR, watchdog, subset merging, SRR) read from a
//! joint P_SX: P(s), P(s|x), the symbol-wise lifts Λ(x), Ψ(x) and the lifts of a merged
//! set of symbols (Zarrabian, Ding, Sadeghi eqs 2, 6–10), and the privacy notion with the
//! margin every design keeps below its budget.

use alloc::vec::Vec;

use super::check_eps;
use crate::error::{Error, Result};
use crate::spec::{AlipJson, Claims, Matrix};

/// Designs meet a budget ε with a margin: they are computed at
/// ε' = ε(1 − 1e-9) − 1e-11 and claim ε. Lifts computed in floating point sit within a
/// few ulps of the design bound (a vertex of the polytope is exactly on it), and the audit
/// rounds leakage *up*; the margin (≥ 1e-11 absolute in ln, far above the ~1e-15 relative
/// error of the computation) keeps a tight design from auditing a hair above the target.
pub(crate) fn design_budget(eps: f64) -> f64 {
    eps * (1.0 - 1e-9) - 1e-11
}

/// The privacy notion a lift-based design targets, w.r.t. the secret S
/// (Zarrabian, Ding, Sadeghi Defs 1–3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Notion {
    /// ε-LIP: e^{−ε} ≤ Ψ(y) and Λ(y) ≤ e^{ε} (eq 3).
    Lip { eps: f64 },
    /// (εl, εu)-ALIP: e^{−εl} ≤ Ψ(y) and Λ(y) ≤ e^{εu} (eq 5).
    Alip { eps_l: f64, eps_u: f64 },
    /// ε-LDP w.r.t. S: Γ(y) = Λ(y)/Ψ(y) ≤ e^{ε} (eq 4).
    Ldp { eps: f64 },
}

impl Notion {
    /// Checks the budgets (finite, > 0, and not so small that the design margin of
    /// [`design_budget`] swallows them).
    pub fn check(&self) -> Result<()> {
        let budgets: &[(&str, f64)] = match self {
            Notion::Lip { eps } | Notion::Ldp { eps } => &[("epsilon", *eps)],
            Notion::Alip { eps_l, eps_u } => &[("eps_l", *eps_l), ("eps_u", *eps_u)],
        };
        for &(name, e) in budgets {
            check_eps(name, e)?;
            if design_budget(e) <= 0.0 {
                return Err(Error::InvalidArgument {
                    name: name.into(),
                    reason: alloc::format!("{e} is below the design margin (1e-11 nats)"),
                });
            }
        }
        Ok(())
    }

    /// (ln lower, ln upper) lift bounds for the ALIP-type notions, at the design budget.
    /// `None` for LDP, whose constraint is not a per-output lift interval.
    pub(crate) fn lift_bounds(&self) -> Option<(f64, f64)> {
        match *self {
            Notion::Lip { eps } => Some((-design_budget(eps), design_budget(eps))),
            Notion::Alip { eps_l, eps_u } => Some((-design_budget(eps_l), design_budget(eps_u))),
            Notion::Ldp { .. } => None,
        }
    }

    /// Whether an output with max-lift Λ and min-lift Ψ meets the (design) budget.
    pub(crate) fn private(&self, lambda: f64, psi: f64) -> bool {
        match *self {
            Notion::Ldp { eps } => psi > 0.0 && lambda / psi <= libm::exp(design_budget(eps)),
            _ => {
                let (lo, hi) = self.lift_bounds().unwrap_or((0.0, 0.0));
                psi >= libm::exp(lo) && lambda <= libm::exp(hi)
            }
        }
    }

    /// The risk ω of a symbol or merged set used to order Algorithm 1 (Zarrabian et al.
    /// Sec. IV-A), for this notion.
    ///
    /// * LIP: max{ln Λ, |ln Ψ|} (as printed);
    /// * LDP: Λ/Ψ (as printed; ∞ when Ψ = 0);
    /// * ALIP: **max{ln Λ / εu, |ln Ψ| / εl}**, the largest fraction of a budget used —
    ///   not the printed Λ + Ψ. Λ + Ψ *decreases* as the min-lift leakage |ln Ψ| grows
    ///   (Ψ → 0), so it ranks a symbol with Λ = 1.5, Ψ = 0.01 (|ln Ψ| = 4.6) as less risky
    ///   (1.51) than one with Λ = 1.5, Ψ = 0.9 (2.4); both printed metrics for LIP and LDP
    ///   increase in Λ and decrease in Ψ. Ours does too, reduces to the LIP metric
    ///   divided by ε when εl = εu, and weighs each side by its own budget.
    ///   [`Notion::paper_alip_risk`] keeps the printed one for comparison (a test pins
    ///   the misordering and the utility of both).
    pub fn risk(&self, lambda: f64, psi: f64) -> f64 {
        let up = libm::log(lambda).max(0.0);
        let down = if psi > 0.0 { (-libm::log(psi)).max(0.0) } else { f64::INFINITY };
        match *self {
            Notion::Lip { .. } => up.max(down),
            Notion::Ldp { .. } => {
                if psi > 0.0 {
                    lambda / psi
                } else {
                    f64::INFINITY
                }
            }
            Notion::Alip { eps_l, eps_u } => (up / eps_u).max(down / eps_l),
        }
    }

    /// The printed ALIP risk of Algorithm 1, ω = Λ + Ψ (kept for comparison only).
    pub fn paper_alip_risk(lambda: f64, psi: f64) -> f64 {
        lambda + psi
    }

    /// The claims a document designed for this notion makes (the target budgets).
    pub(crate) fn claims(&self) -> Claims {
        match *self {
            Notion::Lip { eps } => Claims { lip: Some(eps), ..Claims::default() },
            Notion::Alip { eps_l, eps_u } => Claims { alip: Some(AlipJson { eps_l, eps_u }), ..Claims::default() },
            Notion::Ldp { eps } => Claims { ldp: Some(eps), ..Claims::default() },
        }
    }

    /// A short name for ids and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Notion::Lip { .. } => "lip",
            Notion::Alip { .. } => "alip",
            Notion::Ldp { .. } => "ldp",
        }
    }
}

/// P(s), P(x) and P(s|x) of a joint (rows s, columns x). Secrets with P(s) = 0 are
/// dropped (no lift is defined for them, and the audit ignores them); P(s|x) is 0 for an
/// input with P(x) = 0 (such an input never occurs and every designer treats it apart).
#[derive(Debug, Clone)]
pub struct JointView {
    /// P(s) of the kept secrets.
    pub p_s: Vec<f64>,
    /// P(x).
    pub p_x: Vec<f64>,
    /// P(s, x) of the kept secrets, row-major (kept s × x).
    pub p_sx: Vec<f64>,
    /// P(s|x), row-major (kept s × x).
    pub cond: Vec<f64>,
}

impl JointView {
    pub fn new(p_sx: &Matrix) -> Self {
        let (ns, nx) = (p_sx.rows(), p_sx.cols());
        let p_x = p_sx.col_sums();
        let keep: Vec<usize> = (0..ns).filter(|&s| p_sx.row(s).iter().sum::<f64>() > 0.0).collect();
        let p_s: Vec<f64> = keep.iter().map(|&s| p_sx.row(s).iter().sum()).collect();
        let mut joint = Vec::with_capacity(keep.len() * nx);
        let mut cond = Vec::with_capacity(keep.len() * nx);
        for &s in &keep {
            for (x, &px) in p_x.iter().enumerate() {
                let v = p_sx.get(s, x);
                joint.push(v);
                cond.push(if px > 0.0 { v / px } else { 0.0 });
            }
        }
        JointView { p_s, p_x, p_sx: joint, cond }
    }

    pub fn ns(&self) -> usize {
        self.p_s.len()
    }

    pub fn nx(&self) -> usize {
        self.p_x.len()
    }

    /// (Λ, Ψ) of the merged set `set` released as one output: the lift of s is
    /// l(s, set) = P(set | s) / P(set) (Zarrabian et al. eqs 9–10; for a single symbol,
    /// eq 6's Λ(x), Ψ(x)). `None` if P(set) = 0.
    pub fn merged_lifts(&self, set: &[usize]) -> Option<(f64, f64)> {
        let p: f64 = set.iter().map(|&x| self.p_x[x]).sum();
        if p <= 0.0 {
            return None;
        }
        let nx = self.nx();
        let (mut lambda, mut psi) = (0.0f64, f64::INFINITY);
        for (s, &ps) in self.p_s.iter().enumerate() {
            let joint: f64 = set.iter().map(|&x| self.p_sx[s * nx + x]).sum();
            let l = joint / (ps * p);
            lambda = lambda.max(l);
            psi = psi.min(l);
        }
        Some((lambda, psi))
    }
}
