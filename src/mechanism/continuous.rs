//! Continuous documents on the device: audit, verification, perturbation and receipts.
//!
//! # API (what the bindings call)
//! * [`crate::document::parse_any`] → [`crate::document::AnyDocument`] (or
//!   [`ContinuousDocument::from_json`]);
//! * [`ContinuousDocument::audit`] → [`ContinuousAudit`] (what `privlift audit` prints);
//! * [`ContinuousDocument::verify`]`(&ContinuousPolicy)` → [`VerifiedContinuous`], or
//!   `claim_violated` / `policy_violated` / `no_claims`;
//! * [`VerifiedContinuous::perturb`]`(x, rng)` → the released `y` (on the lattice, f64);
//!   `perturb_os(x, &mut OsPoolRng)` in the browser/OS build;
//! * [`VerifiedContinuous::receipt`]`(y, Some(x))` → [`ContinuousReceipt`]: the ratio
//!   `P(y|x_k)/P(y)` over the lattice (≤ 256 points for drawing, exact min/max over all
//!   points) and its value at the user's own `x`.
//!
//! # What verification checks
//! The audit runs on the **exact sampler** ([`crate::continuous::LatticeMechanism`]:
//! rational variance/scale rounded up, λ rounded down), not on the document's floats. A
//! claim `{eps, delta}` with `delta > 0` holds when the audited δ at `eps` is at most
//! `delta`; with `delta = 0` when the audited pure ε is at most `eps`; both with the
//! tolerance of [`crate::verify::within`].

use alloc::string::String;
use alloc::vec::Vec;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::continuous::LatticeMechanism;
use crate::document::{ContinuousDocument, EpsDelta};
use crate::error::{Error, Result};
use crate::verify::{within, within_delta, Check};

/// Limits a client sets on a continuous mechanism (absent: not checked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinuousPolicy {
    /// The most (ε, δ)-LIP the client accepts (pure ε checked when δ = 0, else δ at ε).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lip: Option<EpsDelta>,
    /// The most (ε, δ)-LDP the client accepts (pure ε checked when δ = 0, else δ at ε).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ldp: Option<EpsDelta>,
    /// The verification budget in work units (absent:
    /// [`crate::verify::DEFAULT_MAX_VERIFY_WORK`]).
    #[serde(default, alias = "maxVerifyWork", skip_serializing_if = "Option::is_none")]
    pub max_verify_work: Option<f64>,
}

impl ContinuousPolicy {
    /// Parses a policy object `{"lip": {"eps", "delta"}, "ldp": {…}, "maxVerifyWork": W}`
    /// (what `privlift verify --policy` reads for a continuous document), refusing
    /// unknown and duplicate keys.
    ///
    /// # Errors
    /// `json` for a malformed object; range errors are reported by verification.
    pub fn from_json(text: &str) -> Result<Self> {
        let v = crate::document::strict::from_str(text)?;
        serde_json::from_value(v).map_err(|e| Error::Json { message: alloc::format!("policy: {e}") })
    }
}

/// The sampler of `doc` with the cost of its verification (the audit and `evals`
/// evaluations of δ) checked against `budget` before any table is built.
fn costed_sampler(doc: &ContinuousDocument, budget: Option<f64>, evals: usize) -> Result<LatticeMechanism> {
    let budget = crate::verify::work_budget(budget)?;
    let m = doc.sampler()?;
    crate::verify::Work(m.audit_work(evals)).check("this continuous document", budget)?;
    Ok(m)
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
    if c.delta == 0.0 {
        return Ok(Check { notion: notion.into(), bound: c.eps, actual: pure, holds: within(pure, c.eps) });
    }
    let pure_ok = within(pure, c.eps);
    let d = if pure_ok {
        0.0
    } else if known.eps == c.eps {
        known.delta
    } else {
        delta_at(m, c.eps)?
    };
    Ok(Check {
        notion: alloc::format!("{notion}.delta@eps={}", c.eps),
        bound: c.delta,
        actual: d,
        holds: within_delta(d, c.delta),
    })
}

fn lip_at(m: &LatticeMechanism, e: f64) -> Result<f64> {
    m.lip_delta(e)
}
fn ldp_at(m: &LatticeMechanism, e: f64) -> Result<f64> {
    m.ldp_delta(e)
}

impl ContinuousDocument {
    /// Audits the exact sampler: pure ε-LIP/LDP, δ at the claimed ε of each notion.
    ///
    /// # Errors
    /// `too_costly` above [`crate::verify::DEFAULT_MAX_VERIFY_WORK`] (checked before any
    /// table is built).
    pub fn audit(&self) -> Result<ContinuousAudit> {
        let m = costed_sampler(self, None, 2)?;
        audit_with(&m, self.claims().lip.map(|c| c.eps), self.claims().ldp.map(|c| c.eps))
    }

    /// Audits and checks claims and `policy` (never fails on a claim).
    ///
    /// # Errors
    /// As [`ContinuousDocument::audit`]; `invalid_argument` for a malformed policy.
    pub fn check(&self, policy: &ContinuousPolicy) -> Result<ContinuousVerification> {
        Ok(self.prepare(policy)?.0)
    }

    fn prepare(&self, policy: &ContinuousPolicy) -> Result<(ContinuousVerification, LatticeMechanism)> {
        for (name, c) in [("policy.lip", policy.lip), ("policy.ldp", policy.ldp)] {
            if let Some(c) = c {
                if !(c.eps >= 0.0 && (0.0..=1.0).contains(&c.delta)) {
                    return Err(Error::InvalidArgument {
                        name: name.into(),
                        reason: alloc::format!("needs eps ≥ 0 and delta in [0, 1]; got {c:?}"),
                    });
                }
            }
        }
        // δ at each claim's ε (2), and at each policy limit's.
        let evals = 2 + usize::from(policy.lip.is_some()) + usize::from(policy.ldp.is_some());
        let m = costed_sampler(self, policy.max_verify_work, evals)?;
        let audit = audit_with(&m, self.claims().lip.map(|c| c.eps), self.claims().ldp.map(|c| c.eps))?;
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

    /// Verifies the document against its claims and `policy` on the exact sampler, and
    /// returns a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies), `policy_violated`,
    /// `invalid_argument` (malformed policy, audit too large).
    pub fn verify(&self, policy: &ContinuousPolicy) -> Result<VerifiedContinuous> {
        let (v, runtime) = self.prepare(policy)?;
        if v.claims.is_empty() {
            return Err(Error::NoClaims);
        }
        if let Some(c) = v.claims.iter().find(|c| !c.holds) {
            return Err(Error::ClaimViolated { notion: c.notion.clone(), claimed: c.bound, actual: c.actual });
        }
        if let Some(c) = v.policy.iter().find(|c| !c.holds) {
            return Err(Error::PolicyViolated {
                notion: c.notion.trim_start_matches("max_").into(),
                limit: c.bound,
                actual: c.actual,
            });
        }
        Ok(VerifiedContinuous { doc: self.clone(), runtime, verification: v })
    }
}

/// The audit of `m` with δ evaluated at the given ε of each notion (module docs).
///
/// # Errors
/// As [`LatticeMechanism::lip_delta`].
pub fn audit_with(m: &LatticeMechanism, lip_eps: Option<f64>, ldp_eps: Option<f64>) -> Result<ContinuousAudit> {
    let a = m.audit()?;
    let le = lip_eps.or(ldp_eps).unwrap_or(1.0);
    let de = ldp_eps.or(lip_eps).unwrap_or(1.0);
    let lip_d = if a.lip_eps <= le { 0.0 } else { m.lip_delta(le)? };
    let ldp_d = if a.ldp_eps <= de { 0.0 } else { m.ldp_delta(de)? };
    Ok(ContinuousAudit {
        lip: AuditedEpsDelta { eps: le, delta: lip_d },
        ldp: AuditedEpsDelta { eps: de, delta: ldp_d },
        lip_pure_eps: a.lip_eps,
        ldp_pure_eps: a.ldp_eps,
        tail_mass: a.tail_mass,
        points: m.lattice().len(),
    })
}

/// A continuous mechanism whose claims and policy were verified on the exact sampler.
#[derive(Debug, Clone)]
pub struct VerifiedContinuous {
    doc: ContinuousDocument,
    runtime: LatticeMechanism,
    verification: ContinuousVerification,
}

/// Random bytes kept available in the OS pool before a draw ([`VerifiedContinuous::perturb_os`]).
pub const OS_RESERVE: usize = 16 * 1024;

/// Most points of a receipt's curve.
pub const RECEIPT_CURVE_POINTS: usize = 256;

/// What a released `y` says about every value of the domain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContinuousReceipt {
    /// The `id` of the document whose mechanism released `y`.
    pub mechanism_id: String,
    /// The released value and its lattice index `j` (`y = lo + step·j`).
    pub output: f64,
    /// The lattice index `j` of the released value.
    pub output_index: i64,
    /// `P(y)` under the lattice prior.
    pub p_output: f64,
    /// The curve: lattice values (≤ 256, evenly spread, both ends included) and
    /// `P(y|x)/P(y)` at each.
    pub xs: Vec<f64>,
    /// `P(y|x)/P(y)` at each point of `xs`.
    pub ratios: Vec<f64>,
    /// Exact extremes of the ratio over **all** lattice points, and where.
    pub min_ratio: f64,
    /// The lattice point where `min_ratio` is reached.
    pub min_ratio_x: f64,
    /// The largest ratio over all lattice points.
    pub max_ratio: f64,
    /// The lattice point where `max_ratio` is reached.
    pub max_ratio_x: f64,
    /// The user's value, its lattice point and the ratio there (when given).
    pub user_x: Option<f64>,
    /// The lattice point nearest the user's value (when given).
    pub user_point: Option<f64>,
    /// The ratio at `user_point` (when the user's value is given).
    pub user_ratio: Option<f64>,
    /// The verified claims.
    pub lip: Option<EpsDelta>,
    /// The document's verified (ε, δ)-LDP claim, when it makes one.
    pub ldp: Option<EpsDelta>,
}

impl VerifiedContinuous {
    /// The verified document.
    pub fn document(&self) -> &ContinuousDocument {
        &self.doc
    }
    /// The checks of the claims and the policy made by verification.
    pub fn verification(&self) -> &ContinuousVerification {
        &self.verification
    }
    /// The audit of the exact sampler made by verification.
    pub fn audit(&self) -> &ContinuousAudit {
        &self.verification.audit
    }
    /// The exact sampler.
    pub fn sampler(&self) -> &LatticeMechanism {
        &self.runtime
    }

    /// Releases a perturbed value for the user's `x ∈ [lo, hi]`: `x` is mapped to its
    /// nearest lattice point `x_k`, and `y = lo + step·j` with `j` drawn exactly from the
    /// audited `P(·|k)`.
    ///
    /// # Privacy
    /// As verified (the claims). Timing: the draw's running time depends on the random
    /// bits and the noise scale only, not on `x` — except for a Gaussian mechanism with
    /// one σ per point, where it depends on σ(x) (see [`crate::continuous::lattice`]).
    ///
    /// # Errors
    /// `non_finite` / `unknown_value` for `x` not finite or outside the domain.
    pub fn perturb<R: RngCore + CryptoRng + ?Sized>(&self, x: f64, rng: &mut R) -> Result<f64> {
        let k = self.doc.lattice().index_of(x)?;
        let j = self.runtime.sample_index(k, rng)?;
        Ok(self.doc.lattice().value(j))
    }

    /// [`VerifiedContinuous::perturb`] on the OS/browser CSPRNG pool. The pool is
    /// refilled first (fallibly: a failing source is the `rng` error) unless it holds
    /// [`OS_RESERVE`] bytes; a draw of the exact samplers uses a few dozen bytes on
    /// average (geometric tails), so the infallible `RngCore` path, which panics on an OS
    /// failure, is reached only by a draw needing more than that many random bytes.
    ///
    /// # Errors
    /// As [`VerifiedContinuous::perturb`]; `rng` if the OS source fails.
    #[cfg(feature = "std")]
    pub fn perturb_os(&self, x: f64, rng: &mut crate::rng::OsPoolRng) -> Result<f64> {
        let k = self.doc.lattice().index_of(x)?;
        rng.ensure(OS_RESERVE)?;
        let j = self.runtime.sample_index(k, rng)?;
        Ok(self.doc.lattice().value(j))
    }

    /// [`VerifiedContinuous::perturb`] returning the output index `j`.
    ///
    /// # Errors
    /// As [`VerifiedContinuous::perturb`].
    pub fn perturb_index<R: RngCore + CryptoRng + ?Sized>(&self, x: f64, rng: &mut R) -> Result<i64> {
        let k = self.doc.lattice().index_of(x)?;
        self.runtime.sample_index(k, rng)
    }

    /// The receipt of a released `y`, optionally at the user's own `x`.
    ///
    /// # Errors
    /// `unknown_output` if `y` is not a lattice value or has probability 0;
    /// `non_finite` / `unknown_value` for a bad `x`.
    pub fn receipt(&self, y: f64, x: Option<f64>) -> Result<ContinuousReceipt> {
        let lat = self.doc.lattice();
        let j = lat.output_index(y)?;
        let col = self.runtime.column(j);
        let py: f64 = col.iter().zip(self.runtime.prior()).map(|(a, p)| a * p).sum();
        if py.is_nan() || py <= 0.0 {
            return Err(Error::UnknownOutput { value: alloc::format!("{y} (this mechanism never releases it)") });
        }
        let ratio: Vec<f64> = col.iter().map(|a| a / py).collect();
        let n = ratio.len();
        let (mut imin, mut imax) = (0, 0);
        for (k, &r) in ratio.iter().enumerate() {
            if r < ratio[imin] {
                imin = k;
            }
            if r > ratio[imax] {
                imax = k;
            }
        }
        let idx: Vec<usize> = if n <= RECEIPT_CURVE_POINTS {
            (0..n).collect()
        } else {
            let m = RECEIPT_CURVE_POINTS - 1;
            (0..=m).map(|i| libm::round((i * (n - 1)) as f64 / m as f64) as usize).collect()
        };
        let (user_point, user_ratio) = match x {
            Some(x) => {
                let k = lat.index_of(x)?;
                (Some(lat.value(k as i64)), Some(ratio[k]))
            }
            None => (None, None),
        };
        Ok(ContinuousReceipt {
            mechanism_id: self.doc.id().into(),
            output: lat.value(j),
            output_index: j,
            p_output: py,
            xs: idx.iter().map(|&k| lat.value(k as i64)).collect(),
            ratios: idx.iter().map(|&k| ratio[k]).collect(),
            min_ratio: ratio[imin],
            min_ratio_x: lat.value(imin as i64),
            max_ratio: ratio[imax],
            max_ratio_x: lat.value(imax as i64),
            user_x: x,
            user_point,
            user_ratio,
            lip: self.doc.claims().lip,
            ldp: self.doc.claims().ldp,
        })
    }
}
