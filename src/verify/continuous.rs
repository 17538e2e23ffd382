//! Verification of a continuous document: the audit of its **exact lattice sampler**
//! ([`crate::sample::lattice::LatticeMechanism`]: rational variance/scale rounded up, λ
//! rounded down), not of the document's floats. A claim `{eps, delta}` with `delta > 0`
//! holds when the audited δ at `eps` is at most `delta`; with `delta = 0` when the
//! audited pure ε is at most `eps`; both with the tolerance of [`super::within`].

use alloc::vec::Vec;
use serde::Serialize;

pub use super::policy::ContinuousPolicy;
use super::{within, within_delta, Check};
use crate::document::{ContinuousDocument, EpsDelta};
use crate::error::Result;
use crate::param::{Budget, Epsilon};
use crate::sample::lattice::LatticeMechanism;

/// The sampler of `doc` with the cost of its verification under `policy` checked
/// against the policy's budget before any table is built.
fn costed_sampler(doc: &ContinuousDocument, policy: &ContinuousPolicy) -> Result<LatticeMechanism> {
    let budget = crate::verify::work_budget(policy.max_verify_work)?;
    let m = doc.sampler()?;
    work_of(&m, policy).check("this continuous document", budget)?;
    Ok(m)
}

/// The work of verifying `m` under `policy`: the audit computes one LIP δ and one LDP δ
/// (at the claims' ε), and a policy limit at another ε one more of its kind.
fn work_of(m: &LatticeMechanism, policy: &ContinuousPolicy) -> crate::verify::Work {
    let lip = 1 + usize::from(policy.lip.is_some());
    let ldp = 1 + usize::from(policy.ldp.is_some());
    crate::verify::Work(m.audit_work(lip, ldp))
}

/// An audited (ε, δ): δ at ε (upper bound).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AuditedEpsDelta {
    /// The ε (nats) at which δ was evaluated.
    pub eps: f64,
    /// The audited δ at `eps` (0 when the pure ε is at most `eps`).
    pub delta: f64,
}

/// The audit of a continuous document's exact sampler.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContinuousAudit {
    /// δ of (ε, δ)-LIP at ε = the LIP claim's ε (else the LDP claim's, else 1).
    pub lip: AuditedEpsDelta,
    /// δ of (ε, δ)-LDP at ε = the LDP claim's ε (else the LIP claim's, else 1); δ is NaN
    /// when not computed.
    pub ldp: AuditedEpsDelta,
    /// Pure ε-LIP (∞ for Gaussian noise).
    pub lip_pure_eps: f64,
    /// Pure ε-LDP (∞ for Gaussian noise; NaN when not computed).
    pub ldp_pure_eps: f64,
    /// Tail mass added to each δ (Gaussian window truncation).
    pub tail_mass: f64,
    /// Number of lattice points.
    pub points: usize,
}

/// Claims and policy checked against the audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContinuousVerification {
    /// The audit of the exact sampler the checks read.
    pub audit: ContinuousAudit,
    /// Notions `lip`/`ldp` (pure ε checked) or `lip.delta`/`ldp.delta` (δ at the ε).
    pub claims: Vec<Check>,
    /// The policy's limits, named `max_lip`/`max_ldp` (pure ε) or with a `.delta@eps=ε` suffix (δ at the ε).
    pub policy: Vec<Check>,
    /// Whether every claim holds (true when there is none).
    pub claims_hold: bool,
    /// Whether every policy limit holds (true when the policy sets none).
    pub policy_holds: bool,
}

fn check_one(
    m: &LatticeMechanism,
    notion: &str,
    c: EpsDelta,
    pure: f64,
    known: AuditedEpsDelta,
    delta_at: &dyn Fn(&LatticeMechanism, f64) -> Result<f64>,
) -> Result<Check> {
    let (eps, delta) = (c.eps.get(), c.delta.get());
    if delta == 0.0 {
        return Ok(Check { notion: notion.into(), bound: eps, actual: pure, holds: within(pure, eps) });
    }
    // δ = 0 only when the audited pure ε (an upper bound) is at most the claimed ε
    // itself. Within the ε tolerance but above it, the privacy loss does exceed ε with
    // some probability, and that δ is computed and compared with the claim: a claim of
    // δ = 1e-300 at an ε 5e-10 below the pure one is false (δ ≈ 3.7e-10 for a discrete
    // Laplace), whatever the ε tolerance allows for a pure claim.
    let d = if pure <= eps {
        0.0
    } else if known.eps == eps {
        known.delta
    } else {
        delta_at(m, eps)?
    };
    Ok(Check {
        notion: alloc::format!("{notion}.delta@eps={}", crate::numeric::Shown(eps)),
        bound: delta,
        actual: d,
        holds: within_delta(d, delta),
    })
}

fn lip_at(m: &LatticeMechanism, e: f64) -> Result<f64> {
    m.lip_delta(Epsilon::new("epsilon", e)?)
}
fn ldp_at(m: &LatticeMechanism, e: f64) -> Result<f64> {
    m.ldp_delta(Epsilon::new("epsilon", e)?)
}

impl ContinuousDocument {
    /// Audits the exact sampler: pure ε-LIP/LDP, δ at the claimed ε of each notion.
    ///
    /// # Errors
    /// `too_costly` above [`crate::verify::DEFAULT_MAX_VERIFY_WORK`] (checked before any
    /// table is built).
    pub fn audit(&self) -> Result<ContinuousAudit> {
        let m = costed_sampler(self, &ContinuousPolicy::default())?;
        audit_with(&m, claimed_eps(self.claims().lip), claimed_eps(self.claims().ldp))
    }

    /// What verifying this document under `policy` costs, in work units (what its budget,
    /// `maxVerifyWork`, is compared with), computed from its parameters alone.
    ///
    /// # Errors
    /// The sampler's errors (a σ or scale out of range).
    pub fn verify_work(&self, policy: &ContinuousPolicy) -> Result<crate::verify::Work> {
        Ok(work_of(&self.sampler()?, policy))
    }

    /// Audits and checks claims and `policy` (never fails on a claim).
    ///
    /// # Errors
    /// As [`ContinuousDocument::audit`]; `invalid_argument` for a malformed policy.
    pub fn check(&self, policy: &ContinuousPolicy) -> Result<ContinuousVerification> {
        Ok(self.prepare(policy)?.0)
    }

    pub(crate) fn prepare(&self, policy: &ContinuousPolicy) -> Result<(ContinuousVerification, LatticeMechanism)> {
        let m = costed_sampler(self, policy)?;
        let audit = audit_with(&m, claimed_eps(self.claims().lip), claimed_eps(self.claims().ldp))?;
        let mut claims = Vec::new();
        if let Some(c) = self.claims().lip {
            claims.push(check_one(&m, "lip", c, audit.lip_pure_eps, audit.lip, &lip_at)?);
        }
        if let Some(c) = self.claims().ldp {
            claims.push(check_one(&m, "ldp", c, audit.ldp_pure_eps, audit.ldp, &ldp_at)?);
        }
        let mut pol = Vec::new();
        if let Some(c) = policy.lip {
            pol.push(check_one(&m, "max_lip", c, audit.lip_pure_eps, audit.lip, &lip_at)?);
        }
        if let Some(c) = policy.ldp {
            pol.push(check_one(&m, "max_ldp", c, audit.ldp_pure_eps, audit.ldp, &ldp_at)?);
        }
        let claims_hold = claims.iter().all(|c| c.holds);
        let policy_holds = pol.iter().all(|c| c.holds);
        Ok((ContinuousVerification { audit, claims, policy: pol, claims_hold, policy_holds }, m))
    }
}

/// The ε of an (ε, δ) claim.
fn claimed_eps(c: Option<EpsDelta>) -> Option<Budget> {
    c.map(|c| c.eps)
}

/// The audit of `m` with δ evaluated at the given ε of each notion (module docs).
///
/// # Errors
/// As [`LatticeMechanism::lip_delta`]: a δ is computed, at an ε that must then be an
/// [`Epsilon`], only where the pure ε of the audit exceeds the given one.
pub fn audit_with(m: &LatticeMechanism, lip_eps: Option<Budget>, ldp_eps: Option<Budget>) -> Result<ContinuousAudit> {
    let a = m.audit()?;
    let le = lip_eps.or(ldp_eps).map_or(1.0, Budget::get);
    let de = ldp_eps.or(lip_eps).map_or(1.0, Budget::get);
    let lip_d = if a.lip_eps <= le { 0.0 } else { lip_at(m, le)? };
    let ldp_d = if a.ldp_eps <= de { 0.0 } else { ldp_at(m, de)? };
    Ok(ContinuousAudit {
        lip: AuditedEpsDelta { eps: le, delta: lip_d },
        ldp: AuditedEpsDelta { eps: de, delta: ldp_d },
        lip_pure_eps: a.lip_eps,
        ldp_pure_eps: a.ldp_eps,
        tail_mass: a.tail_mass,
        points: m.lattice().len(),
    })
}
