//! Verification of an open document in O(g) (plus O(listed) with a prior): the exact
//! LDP w.r.t. X of the quantised randomiser that will run ([`super::channel`]), the LIP,
//! εl and εu w.r.t. X under the sparse prior for every seed ([`super::lift`]), the claims
//! and the user's policy, decided by the rule every kind shares.

use alloc::vec::Vec;
use serde::Serialize;

use super::channel::Randomiser;
use super::lift::{self, Column};
use super::OpenDocument;
use crate::error::Result;
use crate::numeric::abs_ln_up;
use crate::sample::AliasTable;
use crate::verify::{Check, Policy, Work};

/// The audit of an open document's exact randomiser w.r.t. the user's value X.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OpenAudit {
    /// ε-LDP w.r.t. X (prior-free), in nats, rounded up.
    pub ldp_x: f64,
    /// ε-LIP w.r.t. X under the prior, for every seed: max(εl, εu). Without a prior, the
    /// LDP (LIP ≤ LDP under every prior).
    pub lip: f64,
    /// εl: −ln of the least lift any report can give any value.
    pub eps_l: f64,
    /// εu: ln of the greatest lift.
    pub eps_u: f64,
}

/// Claims and policy checked against the audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenVerification {
    /// The audit the checks read.
    pub audit: OpenAudit,
    /// `ldp_x`, and `lip` when claimed.
    pub claims: Vec<Check>,
    /// One check per limit the policy sets (S = X: every limit reads the audit w.r.t. X).
    pub policy: Vec<Check>,
    /// Whether every claim holds.
    pub claims_hold: bool,
    /// Whether every policy limit holds.
    pub policy_holds: bool,
}

impl OpenVerification {
    /// `Ok` when every claim and every limit holds; otherwise the first failure as the
    /// typed error every kind gives (`claim_violated`, `policy_violated`).
    ///
    /// # Errors
    /// As stated.
    pub fn into_result(self) -> Result<OpenAudit> {
        crate::verify::decide(&self.claims, &self.policy)?;
        Ok(self.audit)
    }
}

/// A verified open mechanism: its document, audit and the samplers that run.
#[derive(Debug, Clone)]
pub struct VerifiedOpen {
    pub(super) doc: OpenDocument,
    pub(super) verification: OpenVerification,
    pub(super) randomiser: Randomiser,
    /// The heavy-hitter round's alias table over `split` (`None` for the other kinds).
    pub(super) rounds: Option<AliasTable>,
}

impl OpenDocument {
    /// Builds the randomiser, audits it and checks claims and `policy` (never fails on a
    /// claim: the report says which hold).
    ///
    /// # Errors
    /// `too_costly` above the policy's budget (before anything is built),
    /// `invalid_argument` for a malformed policy.
    pub fn check(&self, policy: &Policy) -> Result<OpenVerification> {
        Ok(self.prepare(policy)?.verification)
    }

    /// [`OpenDocument::check`], then refuses a document whose claims or the policy's
    /// limits do not hold; the result perturbs values and gives receipts.
    ///
    /// # Errors
    /// Those of `check`, `claim_violated`, `policy_violated`.
    pub fn verify(&self, policy: &Policy) -> Result<VerifiedOpen> {
        let v = self.prepare(policy)?;
        crate::verify::decide(&v.verification.claims, &v.verification.policy)?;
        Ok(v)
    }

    /// The audit alone (what `privlift audit` prints), under the default budget.
    ///
    /// # Errors
    /// As [`OpenDocument::check`].
    pub fn audit(&self) -> Result<OpenAudit> {
        Ok(self.check(&Policy::default())?.audit)
    }

    fn prepare(&self, policy: &Policy) -> Result<VerifiedOpen> {
        work(self).check("this document", crate::verify::work_budget(policy.max_verify_work)?)?;
        let m = self.mechanism();
        let randomiser = Randomiser::new(m.outputs(), m.epsilon())?;
        let rounds = match m {
            super::OpenMechanism::HeavyHitters { split, .. } => {
                Some(AliasTable::new(&split.iter().map(|p| p.get()).collect::<Vec<_>>())?)
            }
            _ => None,
        };
        let audit = audit(self, &randomiser);
        let mut claims = alloc::vec![check("ldp_x", self.claims.ldp_x.get(), audit.ldp_x)];
        if let Some(l) = self.claims.lip {
            claims.push(check("lip", l.get(), audit.lip));
        }
        // S = X: a limit about the secret reads the same audit; ALIP's εl and εu are the
        // least and greatest lift's.
        let policy: Vec<Check> = policy
            .limits()
            .iter()
            .filter_map(|&(name, limit)| {
                let actual = match name {
                    "max_ldp_x" | "max_ldp" | "max_ldp_s" => audit.ldp_x,
                    "max_eps_l" | "max_eps_l_s" => audit.eps_l,
                    "max_eps_u" | "max_eps_u_s" => audit.eps_u,
                    _ => audit.lip,
                };
                limit.map(|b| check(name, b.get(), actual))
            })
            .collect();
        let verification = OpenVerification {
            audit,
            claims_hold: claims.iter().all(|c| c.holds),
            policy_holds: policy.iter().all(|c| c.holds),
            claims,
            policy,
        };
        Ok(VerifiedOpen { doc: self.clone(), verification, randomiser, rounds })
    }
}

/// The work of verifying `doc` ([`Work::open`] of its sizes).
pub(crate) fn work(doc: &OpenDocument) -> Work {
    let m = doc.mechanism();
    Work::open(m.outputs(), doc.prior().map_or(0, |p| p.values().len()), m.rounds())
}

fn check(notion: &str, bound: f64, actual: f64) -> Check {
    Check { notion: notion.into(), bound, actual, holds: crate::verify::within(actual, bound) }
}

/// The audit of `doc`'s randomiser: its LDP, and the least and greatest lift over every
/// output, seed and collision pattern ([`lift::audit_bounds`]).
fn audit(doc: &OpenDocument, r: &Randomiser) -> OpenAudit {
    let ldp_x = r.ldp();
    let (total, least, n) = match doc.prior() {
        Some(p) => {
            let least = if p.other_mass() > 0.0 { 0.0 } else { p.p().iter().copied().fold(1.0, f64::min) };
            (crate::numeric::sum(p.p()) + p.other_mass(), least, p.values().len())
        }
        None => (1.0, 0.0, 0),
    };
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for y in 0..r.outputs() {
        let (l, h) = lift::audit_bounds(r.column(y), total, least, n);
        lo = lo.min(l);
        hi = hi.max(h);
    }
    let eps_u = if hi <= 1.0 { 0.0 } else { abs_ln_up(hi, 0.0) };
    let eps_l = if lo >= 1.0 { 0.0 } else { abs_ln_up(lo, 0.0) };
    // Never above the LDP, which bounds every lift under every prior.
    let (eps_l, eps_u) = (eps_l.min(ldp_x), eps_u.min(ldp_x));
    OpenAudit { ldp_x, lip: eps_l.max(eps_u), eps_l, eps_u }
}

impl Randomiser {
    /// Column y's (a, b, κ).
    pub(crate) fn column(&self, y: usize) -> Column {
        Column { a: self.a[y], b: self.b[y], keep: self.keep }
    }
}

impl VerifiedOpen {
    /// The verified document.
    pub fn document(&self) -> &OpenDocument {
        &self.doc
    }
    /// The verification it passed.
    pub fn verification(&self) -> &OpenVerification {
        &self.verification
    }
    /// The audit.
    pub fn audit(&self) -> OpenAudit {
        self.verification.audit
    }
}
