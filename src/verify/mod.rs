//! Verification: recompute the leakage of the mechanism that will actually run, check
//! every claim of the document, and check the user's policy.
//!
//! # Tolerance
//! A claim or limit `c` is met when the audited leakage `L` (already rounded to the
//! conservative side, see [`crate::numeric`]) satisfies `L ≤ c·(1 + 1e-9) + 1e-12`. The
//! relative part absorbs the printing of ε in JSON; the absolute part lets a claim of
//! exactly 0 (an output independent of the input) survive the upward rounding of the
//! audit. Both are far below any budget a person could tell apart. A δ gets the
//! relative part only ([`within_delta`]), and an unbounded leakage is within no finite
//! claim, however large.
//!
//! # Cost
//! Before anything is allocated, [`Work`] estimates what verifying a document costs and
//! refuses it with `too_costly` above the policy's budget ([`DEFAULT_MAX_VERIFY_WORK`]
//! unless `maxVerifyWork` says otherwise).

pub mod continuous;
mod cost;
pub(crate) mod discrete;
mod parse;
mod policy;
pub(crate) mod runtime;

pub use cost::{work_budget, Work, DEFAULT_MAX_VERIFY_WORK};
pub use policy::{Policy, PolicyValue};

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::document::Claims;
use crate::error::{Error, Result};
use crate::leakage::{alpha_eps, chi2_eps, l1_eps, Leakage};
use policy::Measure;

/// Relative tolerance of claim and policy checks.
pub const REL_TOLERANCE: f64 = 1e-9;
/// Absolute tolerance of claim and policy checks (nats).
pub const ABS_TOLERANCE: f64 = 1e-12;

/// One checked claim or limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// `ldp`, `ldp_x`, `lip`, `alip.eps_l`, `alip.eps_u`, `bp_lip`, `l1.eps_l`, `l1.eps_u`,
    /// `chi2.eps_l`, `chi2.eps_u`, `alpha.eps_l`, `alpha.eps_u` (claims) or the policy
    /// field name.
    pub notion: String,
    /// The claimed budget or the policy limit.
    pub bound: f64,
    /// The audited leakage.
    pub actual: f64,
    /// Whether `actual` is within `bound` up to the module's tolerance.
    pub holds: bool,
}

/// The outcome of checking a document: every claim and every policy limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verification {
    /// The audit w.r.t. the document's secret S (the claims `ldp`, `lip`, `alip`, … are
    /// about S); equal to `leakage_x` when the document declares no secret.
    pub leakage: Leakage,
    /// The audit w.r.t. the user's value X under the declared prior (S = X): what the
    /// user's limits, the receipt's first section and the ledger read.
    pub leakage_x: Leakage,
    /// One check per claimed budget (two for `alip`, `l1`, `chi2`, `alpha`: εl and εu).
    pub claims: Vec<Check>,
    /// One check per limit the policy sets, named by its snake_case field (`max_lip`, …).
    pub policy: Vec<Check>,
    /// Whether every claim holds (true when there is none).
    pub claims_hold: bool,
    /// Whether every policy limit holds (true when the policy sets none).
    pub policy_holds: bool,
}

/// `actual ≤ bound` with the module's tolerance. An unbounded (or NaN) `actual` is
/// within no finite bound: the tolerance never overflows into +∞ (a claim of
/// `f64::MAX` does not cover infinite leakage).
pub fn within(actual: f64, bound: f64) -> bool {
    if bound == f64::INFINITY {
        return !actual.is_nan();
    }
    if !actual.is_finite() {
        return false;
    }
    let tol = bound * (1.0 + REL_TOLERANCE) + ABS_TOLERANCE;
    actual <= if tol.is_finite() { tol } else { bound }
}

/// `actual ≤ bound` for a probability δ: a relative tolerance only (an absolute 1e-12
/// would let a claim of δ = 1e-300 pass with an audited 3e-13).
pub fn within_delta(actual: f64, bound: f64) -> bool {
    !actual.is_nan() && actual <= bound * (1.0 + REL_TOLERANCE)
}

fn check(notion: &str, bound: f64, actual: f64) -> Check {
    Check { notion: notion.into(), bound, actual, holds: within(actual, bound) }
}

/// Checks `claims` and `policy` against an audited `leakage`. `bp_lip` is the audited
/// worst LIP over the priors of a `bp_lip` claim, when the document makes one; `alpha`
/// the audited (max_y Λ_α, max_y Ψ_α) at the order of an `alpha` claim (absent: the
/// leakage's own α-measures if its `alpha_order` is the claim's, else the claim fails).
///
/// The lift-measure claims (`l1`, `chi2`, `alpha`, Zarrabian et al. Sec. VI-B) are
/// checked in nats, like `alip`: `actual` is the ε at which the audited measure meets the
/// claim's bound ([`crate::leakage::l1_eps`], `chi2_eps`, `alpha_eps`, rounded up), so
/// one tolerance rule serves every claim.
pub fn evaluate(
    leakage: Leakage,
    leakage_x: Leakage,
    claims: &Claims,
    policy: &Policy,
    bp_lip: Option<f64>,
    alpha: Option<(f64, f64)>,
) -> Verification {
    let mut cl = Vec::new();
    if let Some(e) = claims.ldp {
        cl.push(check("ldp", e.get(), leakage.ldp));
    }
    if let Some(e) = claims.ldp_x {
        cl.push(check("ldp_x", e.get(), leakage.ldp_x));
    }
    if let Some(e) = claims.lip {
        cl.push(check("lip", e.get(), leakage.lip));
    }
    if let Some(a) = claims.alip {
        cl.push(check("alip.eps_l", a.eps_l.get(), leakage.alip.eps_l));
        cl.push(check("alip.eps_u", a.eps_u.get(), leakage.alip.eps_u));
    }
    if let Some(c) = &claims.bp_lip {
        cl.push(check("bp_lip", c.eps.get(), bp_lip.unwrap_or(f64::INFINITY)));
    }
    if let Some(a) = claims.l1 {
        cl.push(check("l1.eps_l", a.eps_l.get(), l1_eps(leakage.l1_lift_inverse)));
        cl.push(check("l1.eps_u", a.eps_u.get(), l1_eps(leakage.l1_lift)));
    }
    if let Some(a) = claims.chi2 {
        cl.push(check("chi2.eps_l", a.eps_l.get(), chi2_eps(leakage.chi2_lift_inverse)));
        cl.push(check("chi2.eps_u", a.eps_u.get(), chi2_eps(leakage.chi2_lift)));
    }
    if let Some(a) = claims.alpha {
        let (lift, inverse) = match alpha {
            Some(m) => m,
            None if leakage.alpha_order == a.order => (leakage.alpha_lift, leakage.alpha_lift_inverse),
            None => (f64::INFINITY, f64::INFINITY),
        };
        cl.push(check("alpha.eps_l", a.eps_l.get(), alpha_eps(inverse)));
        cl.push(check("alpha.eps_u", a.eps_u.get(), alpha_eps(lift)));
    }
    let actual = |m: Measure| match m {
        // LDP w.r.t. X is prior-free: the same number in both audits.
        Measure::LdpX => leakage_x.ldp_x,
        Measure::LipX => leakage_x.lip,
        Measure::EpsLX => leakage_x.alip.eps_l,
        Measure::EpsUX => leakage_x.alip.eps_u,
        Measure::LdpS => leakage.ldp,
        Measure::LipS => leakage.lip,
        Measure::EpsLS => leakage.alip.eps_l,
        Measure::EpsUS => leakage.alip.eps_u,
    };
    let pol: Vec<Check> = policy
        .limits()
        .iter()
        .zip(policy::LIMITS)
        .filter_map(|(&(n, v), (_, _, m))| v.map(|b| check(n, b.get(), actual(m))))
        .collect();
    let claims_hold = cl.iter().all(|c| c.holds);
    let policy_holds = pol.iter().all(|c| c.holds);
    Verification { leakage, leakage_x, claims: cl, policy: pol, claims_hold, policy_holds }
}

impl Verification {
    /// Adds the check of an `srlip` claim (Lopuhaä-Zwakenberg, privacy funnel, Def 3)
    /// against `actual`, the audited SRLIP leakage ([`crate::leakage::audit_srlip`]);
    /// a claim with no audit (`None`) fails. No claim: unchanged.
    pub fn with_srlip(mut self, claims: &Claims, actual: Option<f64>) -> Self {
        if let Some(c) = &claims.srlip {
            let ch = check("srlip", c.eps.get(), actual.unwrap_or(f64::INFINITY));
            self.claims_hold &= ch.holds;
            self.claims.push(ch);
        }
        self
    }

    /// `Ok` when there is at least one claim, all claims hold and the policy holds;
    /// otherwise the first failure as a typed error.
    pub fn into_result(self) -> Result<Leakage> {
        decide(&self.claims, &self.policy)?;
        Ok(self.leakage)
    }
}

/// `Ok` when there is at least one claim, every claim holds and every policy check holds;
/// otherwise the first failure as a typed error. Discrete and continuous verifications
/// decide by this one rule.
pub(crate) fn decide(claims: &[Check], policy: &[Check]) -> Result<()> {
    if claims.is_empty() {
        return Err(Error::NoClaims);
    }
    if let Some(c) = claims.iter().find(|c| !c.holds) {
        return Err(Error::ClaimViolated { notion: c.notion.clone(), claimed: c.bound, actual: c.actual });
    }
    if let Some(c) = policy.iter().find(|c| !c.holds) {
        return Err(Error::PolicyViolated {
            notion: c.notion.strip_prefix("max_").unwrap_or(&c.notion).into(),
            limit: c.bound,
            actual: c.actual,
        });
    }
    Ok(())
}
