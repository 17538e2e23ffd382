//! Continuous documents on the device: audit, verification, perturbation and receipts.
//!
//! # API (what the bindings call)
//! * [`crate::parse_any`] → [`crate::AnyDocument`] (or
//!   [`ContinuousDocument::from_json`]);
//! * [`ContinuousDocument::audit`] → [`ContinuousAudit`] (what `privlift audit` prints);
//! * [`ContinuousDocument::verify`]`(&ContinuousPolicy)` → [`VerifiedContinuous`], or
//!   `claim_violated` / `policy_violated` / `no_claims`;
//! * [`VerifiedContinuous::perturb`]`(x, rng)` → the released `y` (on the lattice, f64);
//! * [`VerifiedContinuous::receipt`]`(y, Some(x))` → [`ContinuousReceipt`]: the ratio
//!   `P(y|x_k)/P(y)` over the lattice (≤ 256 points for drawing, exact min/max over all
//!   points) and its value at the user's own `x`.
//!
//! # What verification checks
//! The audit runs on the **exact sampler** ([`crate::sample::lattice::LatticeMechanism`]:
//! rational variance/scale rounded up, λ rounded down), not on the document's floats. A
//! claim `{eps, delta}` with `delta > 0` holds when the audited δ at `eps` is at most
//! `delta`; with `delta = 0` when the audited pure ε is at most `eps`; both with the
//! tolerance of [`crate::verify::within`].

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::document::{ContinuousDocument, EpsDelta};
use crate::error::{Error, Result};
use crate::rng::Randomness;
use crate::sample::lattice::LatticeMechanism;
pub use crate::verify::continuous::{
    audit_with, AuditedEpsDelta, ContinuousAudit, ContinuousPolicy, ContinuousVerification,
};

impl ContinuousDocument {
    /// Verifies the document against its claims and `policy` on the exact sampler, and
    /// returns a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies), `policy_violated`,
    /// `invalid_argument` (malformed policy, audit too large).
    pub fn verify(&self, policy: &ContinuousPolicy) -> Result<VerifiedContinuous> {
        let (v, runtime) = self.prepare(policy)?;
        crate::verify::decide(&v.claims, &v.policy)?;
        Ok(VerifiedContinuous { doc: self.clone(), runtime, verification: v })
    }
}

/// A continuous mechanism whose claims and policy were verified on the exact sampler.
#[derive(Debug, Clone)]
pub struct VerifiedContinuous {
    doc: ContinuousDocument,
    runtime: LatticeMechanism,
    verification: ContinuousVerification,
}

/// Random bytes kept available in the OS pool before a draw ([`VerifiedContinuous::perturb_index`]).
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
    /// one σ per point, where it depends on σ(x) (see [`crate::sample::lattice`]).
    ///
    /// # Errors
    /// `non_finite` / `unknown_value` for `x` not finite or outside the domain.
    pub fn perturb<R: Randomness + ?Sized>(&self, x: f64, rng: &mut R) -> Result<f64> {
        let j = self.perturb_index(x, rng)?;
        Ok(self.doc.lattice().value(j))
    }

    /// [`VerifiedContinuous::perturb`] returning the output index `j`.
    ///
    /// # Errors
    /// As [`VerifiedContinuous::perturb`].
    ///
    /// The OS pool is refilled first (fallibly: a failing source is the `rng` error)
    /// unless it holds [`OS_RESERVE`] bytes; a draw of the exact samplers uses a few dozen
    /// bytes on average (geometric tails).
    pub fn perturb_index<R: Randomness + ?Sized>(&self, x: f64, rng: &mut R) -> Result<i64> {
        let k = self.doc.lattice().index_of(x)?;
        rng.draw(OS_RESERVE, |r| self.runtime.sample_index(k, r))?
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
            return Err(Error::UnknownOutput {
                value: alloc::format!("{y} (this mechanism never releases it)", y = crate::numeric::Shown(y)),
            });
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
