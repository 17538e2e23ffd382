//! Verification of a discrete document: the exact sampler's audits w.r.t. S and X, the
//! claims and the policy ([`Document::audit`], [`Document::check`]). The verified
//! runtime is built from the result by [`Document::verify`] in [`crate::mechanism`].

use alloc::vec::Vec;

use super::runtime::{exact, Channels, Runtime};
use super::{evaluate, Policy, Verification, Work};
use crate::document::{Document, Matrix};
use crate::error::{Error, Result};
use crate::leakage::{self, Joint, JointSY, Leakage, Scope, DEFAULT_ALPHA_ORDER};

/// The exact sampler's audits: w.r.t. S under the declared joint, and w.r.t. X under the
/// declared prior (S = X), sharing the channels built once; and the joints they read,
/// which the verified mechanism keeps for its receipts (`None` for unary encoding).
pub(crate) struct Audits {
    /// `None` when it was left to first use ([`SecretAudit::Deferred`]).
    pub(crate) s: Option<Leakage>,
    x: Leakage,
    pub(crate) joint_x: Option<Joint>,
    pub(crate) joint_s: Option<Joint>,
}

/// Whether a verification computes the audit w.r.t. S.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SecretAudit {
    /// Always (`audit`, `check`).
    Now,
    /// Only when a claim or a policy limit reads it ([`s_audit_needed`]); otherwise the
    /// verified mechanism computes it at first use (its report, a receipt's S section).
    Deferred,
}

/// Whether deciding the verification reads the audit w.r.t. S: a claim about S (`ldp`,
/// `lip`, `alip`, `l1`, `chi2`, `alpha`) or a policy limit about S. The `ldp_x` claim reads
/// LDP w.r.t. X, the same number in both audits; `bp_lip` and `srlip` have audits of their
/// own.
pub(crate) fn s_audit_needed(doc: &Document, policy: &Policy) -> bool {
    let c = doc.claims();
    c.ldp.is_some()
        || c.lip.is_some()
        || c.alip.is_some()
        || c.l1.is_some()
        || c.chi2.is_some()
        || c.alpha.is_some()
        || policy.limits_the_secret()
}

/// The audit w.r.t. S of a channel under the declared joint `j`, and the joint it reads:
/// what verification computes, or what a verified mechanism computes at first use.
pub(crate) fn audit_markov(
    j: &Matrix,
    prior: &[f64],
    ch: &leakage::Exact,
    alpha: f64,
    scope: Scope,
    ldp_x: f64,
) -> (Leakage, Joint) {
    let js = leakage::joint_of(Some(j), prior, ch);
    (leakage::measure(&js, Some(j), prior, ch, alpha, scope, Some(ldp_x)), js)
}

/// The audit of the exact channel P(Y|X) (a unary encoding's, in closed form) under the
/// declared `joint` (`None`: S = X under `prior`).
pub(crate) fn audit_channel(
    runtime: &Runtime,
    channels: &Channels,
    joint: Option<&Matrix>,
    prior: &[f64],
    alpha: f64,
) -> Result<Leakage> {
    match (runtime, channels) {
        (Runtime::Unary(u), _) => {
            let (q01, q10) = u.effective();
            match joint {
                Some(j) => leakage::audit_unary(j, q01, q10, alpha),
                None => leakage::audit_unary_x(prior, q01, q10, alpha),
            }
        }
        (_, Some((channel, _))) => leakage::audit_exact(joint, prior, channel, alpha),
        // A channel runtime always has channels; kept as a typed error rather than a panic.
        (_, None) => Err(Error::wrong_kind("internal: no channel for a channel mechanism")),
    }
}

fn audit_exact(
    doc: &Document,
    runtime: &Runtime,
    channels: &Channels,
    alpha: f64,
    scope: Scope,
    when: SecretAudit,
) -> Result<Audits> {
    let prior = doc.prior();
    let Some((ch, blocks)) = channels else {
        // Unary encoding: its closed-form audits (every measure).
        let x = audit_channel(runtime, channels, None, prior, alpha)?;
        let s = match doc.declared_joint() {
            None => x.clone(),
            Some(j) => audit_channel(runtime, channels, Some(j), prior, alpha)?,
        };
        return Ok(Audits { s: Some(s), x, joint_x: None, joint_s: None });
    };
    leakage::check_alpha(alpha)?;
    // The information measures read the whole channel, column by column: a channel read
    // from its weights is made a matrix once, for the audits w.r.t. X and S both.
    let dense;
    let ch = match ch {
        leakage::Exact::Quantised(_) if scope.information => {
            dense = leakage::Exact::Dense(ch.to_dense());
            &dense
        }
        _ => ch,
    };
    let joint_x = leakage::joint_of(None, prior, ch);
    let x = leakage::measure(&joint_x, None, prior, ch, alpha, scope, None);
    let (s, joint_s) = match (doc.declared_joint(), blocks) {
        (None, _) => (Some(x.clone()), None),
        (Some(j), Some(b)) => {
            (Some(leakage::audit_per_secret(j, b, alpha)?), Some(Joint::Dense(JointSY::per_secret(j, b))))
        }
        (Some(_), None) if when == SecretAudit::Deferred => (None, None),
        (Some(j), None) => {
            let (s, js) = audit_markov(j, prior, ch, alpha, scope, x.ldp_x);
            (Some(s), Some(js))
        }
    };
    Ok(Audits { s, x, joint_x: Some(joint_x), joint_s })
}

/// The audit w.r.t. S at another α-order (an `alpha` claim's), the lift measures only,
/// on the joints `a` already built.
fn audit_s_at(doc: &Document, runtime: &Runtime, channels: &Channels, a: &Audits, order: f64) -> Result<Leakage> {
    let scope = Scope { lift_measures: true, information: false };
    match (channels, doc.declared_joint(), &a.joint_x, &a.joint_s) {
        (Some((_, Some(b))), Some(j), _, _) => leakage::audit_per_secret(j, b, order),
        (Some((ch, None)), j, Some(jx), js) => {
            leakage::check_alpha(order)?;
            Ok(match (j, js) {
                (Some(j), Some(js)) => leakage::measure(js, Some(j), doc.prior(), ch, order, scope, None),
                _ => leakage::measure(jx, None, doc.prior(), ch, order, scope, None),
            })
        }
        _ => audit_channel(runtime, channels, doc.declared_joint(), doc.prior(), order),
    }
}

/// Worst LIP w.r.t. X over a set of priors (the `bp_lip` claim), on the exact channel
/// built once: LIP alone ([`leakage::lip_only`]) for a channel, the closed-form audit for
/// a unary encoding.
fn bp_lip(runtime: &Runtime, channels: &Channels, priors: &[Vec<f64>]) -> Result<f64> {
    if let Runtime::PerSecret { .. } = runtime {
        return Err(Error::invalid(
            "claims.bp_lip",
            "BP-LIP is defined for a channel P(Y|X); this mechanism depends on the secret",
        ));
    }
    let mut worst = 0.0f64;
    for p in priors {
        let lip = match (runtime, channels) {
            (Runtime::Channel(_), Some((channel, _))) => leakage::lip_exact(p, channel)?,
            _ => audit_channel(runtime, channels, None, p, DEFAULT_ALPHA_ORDER)?.lip,
        };
        worst = worst.max(lip);
    }
    Ok(worst)
}

impl Document {
    /// Audits the **exact sampler** a client would run (the integer alias table's
    /// probabilities, not the document's floats) w.r.t. S at α-order `alpha_order`: what
    /// `privlift audit` prints. There is one audit path; the CLI and the clients agree.
    ///
    /// # Errors
    /// `too_costly` above [`crate::verify::DEFAULT_MAX_VERIFY_WORK`]; sampler errors.
    pub fn audit(&self, alpha_order: f64) -> Result<Leakage> {
        Ok(self.prepare(&Policy::default(), alpha_order, Scope::ALL, SecretAudit::Now)?.0.leakage)
    }

    /// The exact SRLIP leakage (Lopuhaä-Zwakenberg, privacy funnel, Def 3) of the exact
    /// channel for the attributes of the document's `srlip` claim; `None` when it makes
    /// none.
    ///
    /// # Errors
    /// `invalid_argument` for a mechanism that is not a channel P(Y|X) (SRLIP of a
    /// per-secret or unary mechanism is not audited); `too_costly` above the default
    /// verification budget (checked first) or [`leakage::MAX_SRLIP_WORK`].
    pub fn audit_srlip(&self) -> Result<Option<leakage::Srlip>> {
        let Some(c) = &self.claims().srlip else { return Ok(None) };
        Work::of(self).check("this document", crate::verify::DEFAULT_MAX_VERIFY_WORK)?;
        match Runtime::build(self)? {
            Runtime::Channel(sampler) => {
                let channel = exact(&sampler);
                Ok(Some(leakage::audit_srlip(&self.p_sx(), &leakage::srlip_channel(&channel), &c.attributes)?))
            }
            _ => Err(srlip_needs_a_channel()),
        }
    }

    /// The exact channel P(Y|X) the document's sampler draws from, in the form of its kind
    /// (dense, mixture, sparse or merge; [`leakage::Exact`]); `None` for unary encoding and
    /// a per-secret mechanism that is not Markov.
    ///
    /// # Errors
    /// `too_costly` above the default verification budget; sampler errors.
    pub fn exact_channel(&self) -> Result<Option<leakage::Exact>> {
        Work::of(self).check("this document", crate::verify::DEFAULT_MAX_VERIFY_WORK)?;
        Ok(match Runtime::build(self)? {
            Runtime::Channel(c) => Some(exact(&c)),
            _ => None,
        })
    }

    /// Builds the exact sampler and audits the channel it *actually* draws from
    /// (see [`crate::sample::alias`]), then checks claims and `policy`. Never fails on a
    /// claim: the report says which checks hold.
    ///
    /// # Errors
    /// `too_costly` (before anything is allocated), `invalid_argument` for a malformed
    /// policy or an unsupported claim.
    pub fn check(&self, policy: &Policy) -> Result<Verification> {
        self.check_at(policy, DEFAULT_ALPHA_ORDER)
    }

    /// [`Document::check`] with the α-lift measures at order `alpha_order`.
    ///
    /// # Errors
    /// As [`Document::check`]; `invalid_argument` for an α-order not > 0 and ≠ 1.
    pub fn check_at(&self, policy: &Policy, alpha_order: f64) -> Result<Verification> {
        self.check_in(policy, alpha_order, Scope::for_claims(self.claims()))
    }

    /// [`Document::check_at`] computing the measures of `scope` (at least those the claims
    /// read): `Scope::ALL` for a report that prints every measure, as `privlift audit` does.
    ///
    /// # Errors
    /// As [`Document::check_at`].
    pub fn check_in(&self, policy: &Policy, alpha_order: f64, scope: Scope) -> Result<Verification> {
        let needed = Scope::for_claims(self.claims());
        let scope = Scope {
            lift_measures: scope.lift_measures || needed.lift_measures,
            information: scope.information || needed.information,
        };
        Ok(self.prepare(policy, alpha_order, scope, SecretAudit::Now)?.0)
    }

    /// Builds the sampler, audits it (the measures of `scope`: a verification computes what
    /// the claims, the policy and the receipts read), and checks claims and policy.
    ///
    /// With [`SecretAudit::Deferred`] the audit w.r.t. S may be left out (`audits.s` is then
    /// `None`): no check reads it ([`s_audit_needed`]), and the report's `leakage` holds the
    /// audit w.r.t. X in its place, for the caller to replace ([`Document::verify`]).
    pub(crate) fn prepare(
        &self,
        policy: &Policy,
        alpha_order: f64,
        scope: Scope,
        when: SecretAudit,
    ) -> Result<(Verification, Runtime, Channels, Audits)> {
        Work::of(self).check("this document", crate::verify::work_budget(policy.max_verify_work)?)?;
        let (runtime, channels) = Runtime::build_with_channels(self)?;
        let audits = audit_exact(self, &runtime, &channels, alpha_order, scope, when)?;
        let (s, x) = (audits.s.clone().unwrap_or_else(|| audits.x.clone()), audits.x.clone());
        let bp = match &self.claims().bp_lip {
            Some(c) => Some(bp_lip(&runtime, &channels, &c.priors)?),
            None => None,
        };
        let alpha = alpha_claim(self, &s, |k| audit_s_at(self, &runtime, &channels, &audits, k))?;
        let srlip = match (&self.claims().srlip, &runtime, &channels) {
            (None, _, _) => None,
            (Some(c), Runtime::Channel(_), Some((channel, _))) => {
                Some(leakage::audit_srlip(&self.p_sx(), &leakage::srlip_channel(channel), &c.attributes)?.eps)
            }
            (Some(_), _, _) => return Err(srlip_needs_a_channel()),
        };
        let verification = evaluate(s, x, self.claims(), policy, bp, alpha).with_srlip(self.claims(), srlip);
        Ok((verification, runtime, channels, audits))
    }
}

/// The audited (max_y Λ_α, max_y Ψ_α) at the order of the document's `alpha` claim, if
/// it makes one: from `leak` when it was audited at that order, else by `audit`.
fn alpha_claim(doc: &Document, leak: &Leakage, audit: impl Fn(f64) -> Result<Leakage>) -> Result<Option<(f64, f64)>> {
    let Some(c) = doc.claims().alpha else { return Ok(None) };
    if leak.alpha_order == c.order {
        return Ok(Some((leak.alpha_lift, leak.alpha_lift_inverse)));
    }
    let l = audit(c.order)?;
    Ok(Some((l.alpha_lift, l.alpha_lift_inverse)))
}

fn srlip_needs_a_channel() -> Error {
    Error::invalid(
        "claims.srlip",
        "SRLIP is audited for a channel P(Y|X) (a matrix mechanism); this mechanism is not one",
    )
}
