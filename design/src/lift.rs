//! What the lift-based designers (ORR/AORR, watchdog, subset merging, SRR) read from a
//! joint P_SX: P(s), P(s|x), the symbol-wise lifts Λ(x), Ψ(x) and the lifts of a merged
//! set of symbols (Zarrabian, Ding, Sadeghi eqs 2, 6–10), and the privacy notion with the
//! margin every design keeps below its budget — LIP, ALIP, LDP (Defs 1–3) and the
//! lift-based / lift-inverse notions of their Sec. VI-B (eqs 27–33).

use alloc::vec::Vec;

use crate::tolerance::{BUDGET_NATS, BUDGET_RELATIVE};
use privlift::document::{AlphaLift, Claims, Matrix, TwoSided};
use privlift::error::{Error, Result};
use privlift::leakage::{alpha_eps, alpha_lift, chi2_eps, chi2_lift, l1_eps, l1_lift};
use privlift::param::Epsilon;

/// Designs meet a budget ε with a margin: they are computed at
/// ε' = ε(1 − [`BUDGET_RELATIVE`]) − [`BUDGET_NATS`] (1e-9, 1e-11) and claim ε. Lifts computed in floating point sit within a
/// few ulps of the design bound (a vertex of the polytope is exactly on it), and the audit
/// rounds leakage *up*; the margin (≥ 1e-11 absolute in ln, far above the ~1e-15 relative
/// error of the computation) keeps a tight design from auditing a hair above the target.
pub(crate) fn design_budget(eps: f64) -> f64 {
    eps * (1.0 - BUDGET_RELATIVE) - BUDGET_NATS
}

/// The error for a budget `eps` (named `name`) that the design margin swallows
/// ([`design_budget`] ≤ 0).
pub(crate) fn below_design_margin(name: &str, eps: f64) -> Error {
    Error::invalid(name, alloc::format!("{eps} is below the design margin ({BUDGET_NATS:e} nats)"))
}

/// The privacy notion a lift-based design targets, w.r.t. the secret S
/// (Zarrabian, Ding, Sadeghi Defs 1–3 and Sec. VI-B).
///
/// The three lift-measure notions pair a *lift-based* measure (Definition 5, eqs 27–29),
/// which bounds an average of the lifts above 1, with its *lift-inverse* (Definition 6,
/// eqs 30–32), which bounds the average of the inverse lifts; the paper enforces both in
/// Sec. VI-B. Each takes ALIP-style budgets (εl, εu) in nats, mapped to the measure's
/// bound as printed in Sec. VI-B; `--epsilon E` means εl = εu = E, as for LIP. The
/// one-sided lift-based notions are not offered: alone they allow a zero lift, i.e. an
/// output that rules a secret out (infinite min-lift leakage) — Λ_α stays finite when
/// some l(s,y) = 0, and Λ_ℓ1 = 2P(s), Λ_χ² ≥ P(s) then, within any budget at least that
/// large — which is why the paper introduces the inverses (Sec. VI-A).
///
/// Unlike LIP/ALIP/LDP these depend on the whole vector of lifts of an output, not only on
/// (Λ, Ψ): see [`MergedLifts`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Notion {
    /// ε-LIP: e^{−ε} ≤ Ψ(y) and Λ(y) ≤ e^{ε} (eq 3).
    Lip {
        /// The budget ε, in nats.
        eps: Epsilon,
    },
    /// (εl, εu)-ALIP: e^{−εl} ≤ Ψ(y) and Λ(y) ≤ e^{εu} (eq 5).
    Alip {
        /// The lower budget εl (on Ψ), in nats.
        eps_l: Epsilon,
        /// The upper budget εu (on Λ), in nats.
        eps_u: Epsilon,
    },
    /// ε-LDP w.r.t. S: Γ(y) = Λ(y)/Ψ(y) ≤ e^{ε} (eq 4).
    Ldp {
        /// The budget ε, in nats.
        eps: Epsilon,
    },
    /// ℓ1-privacy (Sec. VI-B): Λ_ℓ1(y) ≤ e^{εu} − 1 (eq 27) and Ψ_ℓ1(y) ≤ e^{εl} − 1
    /// (eq 30) for every y.
    L1 {
        /// The lift-inverse budget εl (on Ψ_ℓ1), in nats.
        eps_l: Epsilon,
        /// The lift-based budget εu (on Λ_ℓ1), in nats.
        eps_u: Epsilon,
    },
    /// χ²-privacy (Sec. VI-B): Λ_χ²(y) ≤ (e^{εu} − 1)² (eq 28) and
    /// Ψ_χ²(y) ≤ (e^{εl} − 1)² (eq 31) for every y.
    Chi2 {
        /// The lift-inverse budget εl (on Ψ_χ²), in nats.
        eps_l: Epsilon,
        /// The lift-based budget εu (on Λ_χ²), in nats.
        eps_u: Epsilon,
    },
    /// α-lift privacy (Sec. VI-B, eq 33): Λ_α(y) ≤ e^{εu} (eq 29) and Ψ_α(y) ≤ e^{εl}
    /// (eq 32) for every y, at an order α > 1. Λ_α is a power mean of the lifts, so it
    /// is at most Λ (ALIP's bound, the limit α → ∞) and grows with α; for α ≤ 1 it is
    /// ≤ 1 (Σ_s P(s) l(s,y) = 1), so the lift-side bound would be void: orders ≤ 1 are
    /// refused.
    AlphaLift {
        /// The order α (> 1) of Λ_α and Ψ_α.
        order: f64,
        /// The lift-inverse budget εl (on Ψ_α), in nats.
        eps_l: Epsilon,
        /// The lift-based budget εu (on Λ_α), in nats.
        eps_u: Epsilon,
    },
}

/// The lifts of one output (a symbol or a merged set released as one output):
/// (P(s), l(s, y)) for the secrets with P(s) > 0, and their max Λ and min Ψ. The
/// lift-measure notions need all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedLifts {
    /// (P(s), l(s, y)) of the kept secrets, in order.
    pub terms: Vec<(f64, f64)>,
    /// Λ(y) = max_s l(s, y).
    pub lambda: f64,
    /// Ψ(y) = min_s l(s, y).
    pub psi: f64,
}

impl Notion {
    /// Checks what a design needs beyond each budget's rule ([`Epsilon`]: finite, in
    /// [0, 700]): a budget not so small that the design margin of `design_budget`
    /// swallows it (so > 0), and for α-lift the order (finite, > 1).
    ///
    /// # Errors
    /// `invalid_argument` naming the budget (`epsilon`, `eps_l`, `eps_u`) or
    /// `alpha_order`.
    pub fn check(&self) -> Result<()> {
        let budgets: &[(&str, Epsilon)] = match self {
            Notion::Lip { eps } | Notion::Ldp { eps } => &[("epsilon", *eps)],
            Notion::Alip { eps_l, eps_u }
            | Notion::L1 { eps_l, eps_u }
            | Notion::Chi2 { eps_l, eps_u }
            | Notion::AlphaLift { eps_l, eps_u, .. } => &[("eps_l", *eps_l), ("eps_u", *eps_u)],
        };
        for &(name, e) in budgets {
            let e = e.get();
            if design_budget(e) <= 0.0 {
                return Err(below_design_margin(name, e));
            }
        }
        if let Notion::AlphaLift { order, .. } = *self {
            check_alpha_order(order)?;
        }
        Ok(())
    }

    /// (ln lower, ln upper) lift bounds for the ALIP-type notions, at the design budget.
    /// `None` for LDP, whose constraint is not a per-output lift interval, and for the
    /// lift-measure notions, whose constraints are not convex in the channel (Sec. VI-B:
    /// "ORR is not applicable to these measures").
    pub(crate) fn lift_bounds(&self) -> Option<(f64, f64)> {
        match *self {
            Notion::Lip { eps } => Some((-design_budget(eps.get()), design_budget(eps.get()))),
            Notion::Alip { eps_l, eps_u } => Some((-design_budget(eps_l.get()), design_budget(eps_u.get()))),
            _ => None,
        }
    }

    /// The (εl, εu) budgets of the notion (εl = εu = ε for LIP; `None` for LDP).
    fn budgets(&self) -> Option<(f64, f64)> {
        match *self {
            Notion::Lip { eps } => Some((eps.get(), eps.get())),
            Notion::Ldp { .. } => None,
            Notion::Alip { eps_l, eps_u }
            | Notion::L1 { eps_l, eps_u }
            | Notion::Chi2 { eps_l, eps_u }
            | Notion::AlphaLift { eps_l, eps_u, .. } => Some((eps_l.get(), eps_u.get())),
        }
    }

    /// For a lift-measure notion, the (εl, εu) at which the output's lift-inverse and
    /// lift-based measures meet the Sec. VI-B bounds exactly, in nats and rounded up
    /// ([`privlift::leakage::l1_eps`] and siblings): ln(1 + Ψ_ℓ1), ln(1 + Λ_ℓ1) for ℓ1,
    /// ln(1 + √Ψ_χ²), ln(1 + √Λ_χ²) for χ², ln Ψ_α, ln Λ_α for α-lift. The output meets
    /// the notion at (εl, εu) iff these are ≤ εl and ≤ εu. `None` for LIP/ALIP/LDP.
    ///
    /// The measures are the audit's own functions (eqs 27–32), evaluated without an
    /// error allowance: the design margin (`design_budget`) covers it and `publish`
    /// re-audits with one.
    pub fn measure_eps(&self, m: &MergedLifts) -> Option<(f64, f64)> {
        let t = &m.terms;
        match *self {
            Notion::L1 { .. } => Some((l1_eps(l1_lift(t, 0.0, true)), l1_eps(l1_lift(t, 0.0, false)))),
            Notion::Chi2 { .. } => Some((chi2_eps(chi2_lift(t, 0.0, true)), chi2_eps(chi2_lift(t, 0.0, false)))),
            Notion::AlphaLift { order, .. } => {
                Some((alpha_eps(alpha_lift(t, order, 0.0, true)), alpha_eps(alpha_lift(t, order, 0.0, false))))
            }
            _ => None,
        }
    }

    /// Whether an output with max-lift Λ and min-lift Ψ meets the (design) budget of a
    /// LIP, ALIP or LDP notion. The lift-measure notions need every lift: this is
    /// `false` for them (use [`Notion::admits`]).
    pub(crate) fn private(&self, lambda: f64, psi: f64) -> bool {
        match *self {
            Notion::Ldp { eps } => psi > 0.0 && lambda / psi <= libm::exp(design_budget(eps.get())),
            Notion::Lip { .. } | Notion::Alip { .. } => {
                let (lo, hi) = self.lift_bounds().unwrap_or((0.0, 0.0));
                psi >= libm::exp(lo) && lambda <= libm::exp(hi)
            }
            _ => false,
        }
    }

    /// Whether an output (a symbol, eq 6 / eq 33, or a merged set, eqs 9–10) meets the
    /// notion at the design budget (`design_budget`).
    pub fn admits(&self, m: &MergedLifts) -> bool {
        match (self.measure_eps(m), self.budgets()) {
            (Some((el, eu)), Some((bl, bu))) => el <= design_budget(bl) && eu <= design_budget(bu),
            _ => self.private(m.lambda, m.psi),
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
    /// * ℓ1, χ², α-lift: the measures are not functions of (Λ, Ψ); this gives the ALIP
    ///   metric at the notion's budgets. Algorithm 1 uses [`Notion::risk_of`].
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
            Notion::Alip { eps_l, eps_u }
            | Notion::L1 { eps_l, eps_u }
            | Notion::Chi2 { eps_l, eps_u }
            | Notion::AlphaLift { eps_l, eps_u, .. } => (up / eps_u.get()).max(down / eps_l.get()),
        }
    }

    /// The risk ω of an output for Algorithm 1: [`Notion::risk`] of its (Λ, Ψ) for LIP,
    /// ALIP and LDP; for the lift-measure notions **max{ε̂u / εu, ε̂l / εl}** with
    /// (ε̂l, ε̂u) = [`Notion::measure_eps`], the largest fraction of a budget the output
    /// uses — the ALIP choice above, carried over.
    ///
    /// The paper prints ω = Ψ_α + Λ_α (Sec. VI-B, after eq 33; likewise for ℓ1, χ²).
    /// Unlike ALIP's Λ + Ψ both terms grow with leakage, so the printed order is not
    /// inverted, but it adds a measure bounded by e^{εl} to one bounded by e^{εu}, so at
    /// asymmetric budgets the side with the larger budget dominates the order whichever
    /// side actually breaks. Ours is ≤ 1 exactly when the output is private, so the
    /// riskiest symbol is the one furthest from private, and it reduces to the ALIP
    /// metric as α → ∞ (ln Λ_α → ln Λ, ln Ψ_α → |ln Ψ|). [`Notion::paper_measure_risk`]
    /// keeps the printed one; a test compares the utility of both.
    pub fn risk_of(&self, m: &MergedLifts) -> f64 {
        match (self.measure_eps(m), self.budgets()) {
            (Some((el, eu)), Some((bl, bu))) => (eu / bu).max(el / bl),
            _ => self.risk(m.lambda, m.psi),
        }
    }

    /// The printed Sec. VI-B risk ω = Ψ_m + Λ_m (the notion's lift-inverse plus its
    /// lift-based measure; Λ + Ψ for the other notions, as [`Notion::paper_alip_risk`]).
    /// Kept for comparison only.
    pub fn paper_measure_risk(&self, m: &MergedLifts) -> f64 {
        let t = &m.terms;
        match *self {
            Notion::L1 { .. } => l1_lift(t, 0.0, true) + l1_lift(t, 0.0, false),
            Notion::Chi2 { .. } => chi2_lift(t, 0.0, true) + chi2_lift(t, 0.0, false),
            Notion::AlphaLift { order, .. } => alpha_lift(t, order, 0.0, true) + alpha_lift(t, order, 0.0, false),
            _ => Self::paper_alip_risk(m.lambda, m.psi),
        }
    }

    /// The printed ALIP risk of Algorithm 1, ω = Λ + Ψ (kept for comparison only).
    pub fn paper_alip_risk(lambda: f64, psi: f64) -> f64 {
        lambda + psi
    }

    /// The claims a document designed for this notion makes (the target budgets).
    pub(crate) fn claims(&self) -> Claims {
        let two = |l: Epsilon, u: Epsilon| TwoSided { eps_l: l.into(), eps_u: u.into() };
        match *self {
            Notion::Lip { eps } => Claims { lip: Some(eps.into()), ..Claims::default() },
            Notion::Alip { eps_l, eps_u } => Claims { alip: Some(two(eps_l, eps_u)), ..Claims::default() },
            Notion::Ldp { eps } => Claims { ldp: Some(eps.into()), ..Claims::default() },
            Notion::L1 { eps_l, eps_u } => Claims { l1: Some(two(eps_l, eps_u)), ..Claims::default() },
            Notion::Chi2 { eps_l, eps_u } => Claims { chi2: Some(two(eps_l, eps_u)), ..Claims::default() },
            Notion::AlphaLift { order, eps_l, eps_u } => Claims {
                alpha: Some(AlphaLift { order, eps_l: eps_l.into(), eps_u: eps_u.into() }),
                ..Claims::default()
            },
        }
    }

    /// A short name for ids and messages: the `--notion` spelling.
    pub fn name(&self) -> &'static str {
        match self {
            Notion::Lip { .. } => "lip",
            Notion::Alip { .. } => "alip",
            Notion::Ldp { .. } => "ldp",
            Notion::L1 { .. } => "l1",
            Notion::Chi2 { .. } => "chi2",
            Notion::AlphaLift { .. } => "alpha",
        }
    }
}

/// Checks the order of an α-lift notion: finite and > 1 (see [`Notion::AlphaLift`]).
///
/// # Errors
/// `invalid_argument` naming `alpha_order`.
pub fn check_alpha_order(order: f64) -> Result<()> {
    if !order.is_finite() || order <= 1.0 {
        return Err(Error::invalid(
            "alpha_order",
            alloc::format!(
                "the α-lift order must be finite and > 1 (at α ≤ 1 the α-lift is ≤ 1 and bounds nothing), got {order}"
            ),
        ));
    }
    Ok(())
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
    /// The view of a joint P_SX (rows s, columns x).
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

    /// The number of kept secrets (those with P(s) > 0).
    pub fn ns(&self) -> usize {
        self.p_s.len()
    }

    /// |X|, the number of inputs (those with P(x) = 0 included).
    pub fn nx(&self) -> usize {
        self.p_x.len()
    }

    /// The lifts of the merged set `set` released as one output: the lift of s is
    /// l(s, set) = P(set | s) / P(set) = P(s | set) / P(s), from the merged posterior
    /// P(s | set) = Σ_{x∈set} P(s, x) / P(set) (Zarrabian et al. eqs 9–10; for a single
    /// symbol, eq 6's Λ(x), Ψ(x)). `None` if P(set) = 0.
    pub fn merged(&self, set: &[usize]) -> Option<MergedLifts> {
        let p: f64 = set.iter().map(|&x| self.p_x[x]).sum();
        if p <= 0.0 {
            return None;
        }
        let nx = self.nx();
        let (mut lambda, mut psi) = (0.0f64, f64::INFINITY);
        let mut terms = Vec::with_capacity(self.ns());
        for (s, &ps) in self.p_s.iter().enumerate() {
            let joint: f64 = set.iter().map(|&x| self.p_sx[s * nx + x]).sum();
            let l = joint / (ps * p);
            lambda = lambda.max(l);
            psi = psi.min(l);
            terms.push((ps, l));
        }
        Some(MergedLifts { terms, lambda, psi })
    }

    /// (Λ, Ψ) of the merged set `set` released as one output ([`JointView::merged`]).
    /// `None` if P(set) = 0.
    pub fn merged_lifts(&self, set: &[usize]) -> Option<(f64, f64)> {
        self.merged(set).map(|m| (m.lambda, m.psi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ε in nats, as a notion's budget.
    fn nats(e: f64) -> Epsilon {
        Epsilon::new("epsilon", e).expect("a budget in [0, 700] nats")
    }

    fn lifts(terms: &[(f64, f64)]) -> MergedLifts {
        let lambda = terms.iter().fold(0.0f64, |m, t| m.max(t.1));
        let psi = terms.iter().fold(f64::INFINITY, |m, t| m.min(t.1));
        MergedLifts { terms: terms.to_vec(), lambda, psi }
    }

    #[test]
    fn alpha_order_and_budgets_are_checked() {
        for order in [1.0, 0.5, -2.0, f64::NAN, f64::INFINITY] {
            let e = Notion::AlphaLift { order, eps_l: nats(1.0), eps_u: nats(1.0) }.check().unwrap_err();
            assert!(matches!(&e, Error::InvalidArgument { name, .. } if name == "alpha_order"), "{order}: {e:?}");
        }
        Notion::AlphaLift { order: 1.5, eps_l: nats(1.0), eps_u: nats(1.0) }.check().unwrap();
        let e = Notion::L1 { eps_l: nats(0.0), eps_u: nats(1.0) }.check().unwrap_err();
        assert!(matches!(&e, Error::InvalidArgument { name, .. } if name == "eps_l"), "{e:?}");
        // A NaN cannot be a notion's budget: the request refuses it where it is read.
        let nan = crate::request::LiftBudget {
            notion: Some("chi2".into()),
            eps_l: Some(1.0),
            eps_u: Some(f64::NAN),
            ..Default::default()
        };
        let e = nan.notion("watchdog").unwrap_err();
        assert!(matches!(&e, Error::InvalidArgument { name, .. } if name == "eps_u"), "{e:?}");
    }

    /// A budget the margin swallows is refused with the margin's size in nats; one just
    /// above the margin is accepted.
    #[test]
    fn a_budget_below_the_design_margin_is_refused() {
        let e = Notion::Lip { eps: nats(1e-12) }.check().unwrap_err();
        let Error::InvalidArgument { name, reason } = e else { panic!("{e:?}") };
        assert_eq!(
            (name.as_str(), reason.as_str()),
            ("epsilon", "0.000000000001 is below the design margin (1e-11 nats)")
        );
        Notion::Ldp { eps: nats(2e-11) }.check().unwrap();
    }

    /// P(s) = (½, ½), lifts (1.5, 0.5): Λ_ℓ1 = 0.5, Ψ_ℓ1 = ½(1 − 2/3) + ½(2 − 1) = 2/3;
    /// Λ_χ² = 0.25, Ψ_χ² = ½(1/9) + ½ = 5/9; Λ_2 = √1.25, Ψ_2 = √(½·4/9 + ½·4) = √(20/9).
    #[test]
    fn measures_by_hand() {
        let m = lifts(&[(0.5, 1.5), (0.5, 0.5)]);
        let close = |(a, b): (f64, f64), (x, y): (f64, f64)| {
            assert!((a - x).abs() < 1e-12 && (b - y).abs() < 1e-12, "({a}, {b}) vs ({x}, {y})")
        };
        close(
            Notion::L1 { eps_l: nats(1.0), eps_u: nats(1.0) }.measure_eps(&m).unwrap(),
            ((5.0f64 / 3.0).ln(), 1.5f64.ln()),
        );
        close(
            Notion::Chi2 { eps_l: nats(1.0), eps_u: nats(1.0) }.measure_eps(&m).unwrap(),
            ((5.0f64 / 9.0).sqrt().ln_1p(), 0.5f64.ln_1p()),
        );
        close(
            Notion::AlphaLift { order: 2.0, eps_l: nats(1.0), eps_u: nats(1.0) }.measure_eps(&m).unwrap(),
            ((20.0f64 / 9.0).sqrt().ln(), 1.25f64.sqrt().ln()),
        );
        assert!(Notion::Lip { eps: nats(1.0) }.measure_eps(&m).is_none());
    }

    /// For the lift-measure notions the risk of Algorithm 1 is ≤ 1 exactly when the output
    /// meets the notion at the budget (up to the design margin).
    #[test]
    fn risk_at_most_one_iff_private() {
        let notions = [
            Notion::L1 { eps_l: nats(0.4), eps_u: nats(0.9) },
            Notion::Chi2 { eps_l: nats(1.1), eps_u: nats(0.3) },
            Notion::AlphaLift { order: 4.0, eps_l: nats(0.5), eps_u: nats(0.5) },
        ];
        for n in notions {
            let mut seen = [false; 2];
            for i in 1..40 {
                let q = i as f64 / 40.0; // P(s0 | y) with P(s) = (0.3, 0.7)
                let m = lifts(&[(0.3, q / 0.3), (0.7, (1.0 - q) / 0.7)]);
                let r = n.risk_of(&m);
                if (r - 1.0).abs() > 1e-6 {
                    assert_eq!(n.admits(&m), r < 1.0, "{n:?} at q = {q}: risk {r}");
                }
                seen[usize::from(n.admits(&m))] = true;
            }
            assert_eq!(seen, [true, true], "{n:?}: both private and non-private outputs");
        }
    }

    /// A secret ruled out (l = 0, P(s) = 0.2): the lift-based measures stay small —
    /// Λ_ℓ1 = 2P(s) = 0.4, Λ_χ² = 0.25, Λ_2 = √(0.8·1.25²) = 1.118 — while every
    /// lift-inverse is ∞, so each notion refuses the output at any budget.
    #[test]
    fn a_zero_lift_is_caught_only_by_the_inverse() {
        let m = lifts(&[(0.2, 0.0), (0.8, 1.25)]);
        for (n, up) in [
            (Notion::L1 { eps_l: nats(5.0), eps_u: nats(5.0) }, 0.4f64.ln_1p()),
            (Notion::Chi2 { eps_l: nats(5.0), eps_u: nats(5.0) }, 0.5f64.ln_1p()),
            (Notion::AlphaLift { order: 2.0, eps_l: nats(5.0), eps_u: nats(5.0) }, (0.8f64 * 1.5625).sqrt().ln()),
        ] {
            let (lo, hi) = n.measure_eps(&m).unwrap();
            assert!((hi - up).abs() < 1e-12 && lo == f64::INFINITY, "{n:?}: {lo} {hi}");
            assert!(!n.admits(&m) && n.risk_of(&m) == f64::INFINITY);
        }
    }

    #[test]
    fn names_and_claims() {
        let a = Notion::AlphaLift { order: 3.0, eps_l: nats(0.2), eps_u: nats(0.4) };
        assert_eq!(a.name(), "alpha");
        let b = |v: f64| privlift::param::Budget::finite("b", v).unwrap();
        let (eps_l, eps_u) = (b(0.2), b(0.4));
        assert_eq!(a.claims().alpha, Some(AlphaLift { order: 3.0, eps_l, eps_u }));
        assert_eq!(Notion::L1 { eps_l: nats(0.2), eps_u: nats(0.4) }.claims().l1, Some(TwoSided { eps_l, eps_u }));
        assert_eq!(Notion::Chi2 { eps_l: nats(0.2), eps_u: nats(0.4) }.claims().chi2, Some(TwoSided { eps_l, eps_u }));
        assert!(a.lift_bounds().is_none() && !a.private(1.0, 1.0));
    }
}
