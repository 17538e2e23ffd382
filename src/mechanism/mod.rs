//! What runs on the device: a mechanism that passed verification, and its receipts.
//!
//! A [`VerifiedMechanism`] can only be obtained from [`Document::verify`], so a
//! mechanism whose claims or policy failed is never used to perturb. Verification audits
//! the sampler that will run (its exact integer probabilities), not the floating-point
//! numbers of the document.

pub mod continuous;
mod receipt;

pub use continuous::{
    AuditedEpsDelta, ContinuousAudit, ContinuousPolicy, ContinuousReceipt, ContinuousVerification, VerifiedContinuous,
};
pub use receipt::{Receipt, ReceiptEntry, ReceiptSection};

use alloc::borrow::Cow;
use alloc::vec::Vec;
use rand::{CryptoRng, RngCore};

use crate::document::{Document, Matrix, MechanismKind};
use crate::error::{Error, Result};
use crate::leakage::{self, JointSY, Leakage, DEFAULT_ALPHA_ORDER};
use crate::sample::{ChannelSampler, UnarySampler};
use crate::verify::{evaluate, Policy, Verification, Work};

/// The exact sampler of a document, and the channel it realises.
#[derive(Debug, Clone)]
enum Runtime {
    /// Rows x: a matrix mechanism, or a per-secret one that is Markov.
    Channel(ChannelSampler),
    /// Rows s·|X| + x: a per-secret (non-Markov) mechanism, run by the curator.
    PerSecret { sampler: ChannelSampler, nx: usize },
    /// Unary encoding.
    Unary(UnarySampler),
}

impl Runtime {
    fn build(doc: &Document) -> Result<Self> {
        Ok(match doc.mechanism() {
            MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => {
                Runtime::Channel(ChannelSampler::new(m.rows(), m.cols(), m.as_slice())?)
            }
            MechanismKind::PerSecret { p_y_given_sx, markov: None } => {
                let (nx, ny) = (p_y_given_sx[0].rows(), p_y_given_sx[0].cols());
                let stacked: Vec<f64> = p_y_given_sx.iter().flat_map(|m| m.as_slice().iter().copied()).collect();
                Runtime::PerSecret { sampler: ChannelSampler::new(stacked.len() / ny, ny, &stacked)?, nx }
            }
            MechanismKind::Unary { q01, q10 } => Runtime::Unary(UnarySampler::new(doc.input().len(), *q01, *q10)?),
        })
    }

    fn effective(sampler: &ChannelSampler) -> Matrix {
        Matrix::from_flat(sampler.inputs(), sampler.outputs(), sampler.effective_channel())
    }

    fn per_secret_blocks(sampler: &ChannelSampler, nx: usize) -> Vec<Matrix> {
        let eff = Self::effective(sampler);
        let ny = eff.cols();
        (0..eff.rows() / nx)
            .map(|s| Matrix::from_flat(nx, ny, eff.as_slice()[s * nx * ny..(s + 1) * nx * ny].to_vec()))
            .collect()
    }

    /// The exact channels the sampler realises: P(Y|X) (for a per-secret mechanism the
    /// induced channel of Ding, Liu, Farokhi eq 9) and, for a per-secret one, its blocks
    /// P(Y|S=s,X). `None` for unary encoding (2^|X| outputs; audited in closed form).
    fn channels(&self, p_sx: &Matrix) -> Channels {
        match self {
            Runtime::Channel(s) => Some((Self::effective(s), None)),
            Runtime::PerSecret { sampler, nx } => {
                let blocks = Self::per_secret_blocks(sampler, *nx);
                Some((leakage::induced_channel(p_sx, &blocks), Some(blocks)))
            }
            Runtime::Unary(_) => None,
        }
    }
}

/// The exact channels a runtime realises ([`Runtime::channels`]), built once per verification.
type Channels = Option<(Matrix, Option<Vec<Matrix>>)>;

/// The exact sampler's audits: w.r.t. S under the declared joint, and w.r.t. X under the
/// declared prior (S = X), sharing the channels built once.
struct Audits {
    s: Leakage,
    x: Leakage,
}

/// The audit of the exact channel P(Y|X) (a unary encoding's, in closed form) under `joint`.
fn audit_channel(runtime: &Runtime, channels: &Channels, joint: &Matrix, alpha: f64) -> Result<Leakage> {
    match (runtime, channels) {
        (Runtime::Unary(u), _) => {
            let (q01, q10) = u.effective();
            leakage::audit_unary(joint, q01, q10, alpha)
        }
        (_, Some((channel, _))) => leakage::audit(joint, channel, alpha),
        // A channel runtime always has channels; kept as a typed error rather than a panic.
        (_, None) => Err(wrong_kind("internal: no channel for a channel mechanism")),
    }
}

fn audit_exact(doc: &Document, runtime: &Runtime, channels: &Channels, alpha: f64) -> Result<Audits> {
    let x = audit_channel(runtime, channels, &joint_of_x(doc), alpha)?;
    let s = match channels {
        _ if !doc.has_secret() => x.clone(),
        Some((_, Some(blocks))) => leakage::audit_per_secret(doc.p_sx(), blocks, alpha)?,
        _ => audit_channel(runtime, channels, doc.p_sx(), alpha)?,
    };
    Ok(Audits { s, x })
}

/// The joint of S = X, diag(P_X): the document's own joint when it declares no secret
/// (borrowed: at |X| = 4096 a copy is 134 MB), else built.
fn joint_of_x(doc: &Document) -> Cow<'_, Matrix> {
    if doc.has_secret() {
        Cow::Owned(Matrix::diag(doc.prior()))
    } else {
        Cow::Borrowed(doc.p_sx())
    }
}

/// Worst LIP w.r.t. X over a set of priors (the `bp_lip` claim), on the exact channel
/// built once: LIP alone ([`leakage::lip_only`]) for a channel, the closed-form audit for
/// a unary encoding.
fn bp_lip(runtime: &Runtime, channels: &Channels, priors: &[Vec<f64>]) -> Result<f64> {
    if let Runtime::PerSecret { .. } = runtime {
        return Err(Error::InvalidArgument {
            name: "claims.bp_lip".into(),
            reason: "BP-LIP is defined for a channel P(Y|X); this mechanism depends on the secret".into(),
        });
    }
    let mut worst = 0.0f64;
    for p in priors {
        let diag = Matrix::diag(p);
        let lip = match (runtime, channels) {
            (Runtime::Channel(_), Some((channel, _))) => leakage::lip_only(&diag, channel)?,
            _ => audit_channel(runtime, channels, &diag, DEFAULT_ALPHA_ORDER)?.lip,
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
        Ok(self.check_at(&Policy::default(), alpha_order)?.leakage)
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
                Ok(Some(leakage::audit_srlip(self.p_sx(), &Runtime::effective(&sampler), &c.attributes)?))
            }
            _ => Err(srlip_needs_a_channel()),
        }
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
        Ok(self.prepare(policy, alpha_order)?.0)
    }

    fn prepare(&self, policy: &Policy, alpha_order: f64) -> Result<(Verification, Runtime, Channels)> {
        policy.validate()?;
        Work::of(self).check("this document", crate::verify::work_budget(policy.max_verify_work)?)?;
        let runtime = Runtime::build(self)?;
        let channels = runtime.channels(self.p_sx());
        let Audits { s, x } = audit_exact(self, &runtime, &channels, alpha_order)?;
        let bp = match &self.claims().bp_lip {
            Some(c) => Some(bp_lip(&runtime, &channels, &c.priors)?),
            None => None,
        };
        let alpha = alpha_claim(self, &s, |k| Ok(audit_exact(self, &runtime, &channels, k)?.s))?;
        let srlip = match (&self.claims().srlip, &runtime, &channels) {
            (None, _, _) => None,
            (Some(c), Runtime::Channel(_), Some((channel, _))) => {
                Some(leakage::audit_srlip(self.p_sx(), channel, &c.attributes)?.eps)
            }
            (Some(_), _, _) => return Err(srlip_needs_a_channel()),
        };
        let verification = evaluate(s, x, self.claims(), policy, bp, alpha).with_srlip(self.claims(), srlip);
        Ok((verification, runtime, channels))
    }

    /// Verifies the document against its own claims and the user's `policy`, and returns
    /// a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies about its guarantee),
    /// `policy_violated` (it is honest but leaks more than the user accepts),
    /// `too_costly` (refused before any allocation), `invalid_argument` (a malformed
    /// policy).
    pub fn verify(&self, policy: &Policy) -> Result<VerifiedMechanism> {
        let (verification, runtime, channels) = self.prepare(policy, DEFAULT_ALPHA_ORDER)?;
        verification.clone().into_result()?;
        let (joint_x, joint_s) = match &channels {
            Some((channel, blocks)) => {
                let x = JointSY::markov(&joint_of_x(self), channel);
                let s = match (self.has_secret(), blocks) {
                    (false, _) => None,
                    (true, Some(b)) => Some(JointSY::per_secret(self.p_sx(), b)),
                    (true, None) => Some(JointSY::markov(self.p_sx(), channel)),
                };
                (Some(x), s)
            }
            None => (None, None),
        };
        Ok(VerifiedMechanism { doc: self.clone(), runtime, verification, joint_x, joint_s })
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

/// A mechanism whose claims and policy were verified on the exact sampler.
#[derive(Debug, Clone)]
pub struct VerifiedMechanism {
    doc: Document,
    runtime: Runtime,
    verification: Verification,
    /// P(X,Y) under the declared prior (the receipt's rows of the user's values); `None`
    /// for unary encoding.
    joint_x: Option<JointSY>,
    /// P(S,Y) under the declared joint, when the document declares a secret.
    joint_s: Option<JointSY>,
}

fn srlip_needs_a_channel() -> Error {
    Error::InvalidArgument {
        name: "claims.srlip".into(),
        reason: "SRLIP is audited for a channel P(Y|X) (a matrix mechanism); this mechanism is not one".into(),
    }
}

fn wrong_kind(what: &str) -> Error {
    Error::InvalidArgument { name: "mechanism".into(), reason: what.into() }
}

impl VerifiedMechanism {
    /// The verified document.
    pub fn document(&self) -> &Document {
        &self.doc
    }
    /// The audited leakage of the sampler that runs, w.r.t. the document's secret S.
    pub fn leakage(&self) -> &Leakage {
        &self.verification.leakage
    }
    /// The audited leakage of the sampler that runs, w.r.t. the user's value X under the
    /// declared prior: what the user's limits and the ledger read.
    pub fn leakage_x(&self) -> &Leakage {
        &self.verification.leakage_x
    }
    /// The checks of the claims and the policy made by verification.
    pub fn verification(&self) -> &Verification {
        &self.verification
    }

    /// The exact channel P(Y|X) the sampler draws from (rows x); for a per-secret
    /// mechanism, the rows are (s, x) in the order s·|X| + x.
    ///
    /// # Errors
    /// `invalid_argument` for unary encoding (its channel has 2^|X| columns).
    pub fn effective_channel(&self) -> Result<Matrix> {
        match &self.runtime {
            Runtime::Channel(s) | Runtime::PerSecret { sampler: s, .. } => Ok(Runtime::effective(s)),
            Runtime::Unary(_) => Err(wrong_kind("unary encoding has no explicit channel matrix")),
        }
    }

    fn channel(&self) -> Result<&ChannelSampler> {
        match &self.runtime {
            Runtime::Channel(s) => Ok(s),
            Runtime::PerSecret { .. } => {
                Err(wrong_kind("this mechanism depends on the secret S: only the curator, who knows s, can apply it"))
            }
            Runtime::Unary(_) => Err(wrong_kind("unary encoding reports a bit vector: use perturb_bits")),
        }
    }

    /// An input must be in the alphabet **and** have positive prior probability: the
    /// curator's audit gives an input its prior calls impossible no LIP protection at all
    /// (its outputs may be released by nobody else, so they can identify it exactly, and
    /// no receipt exists for them). Such a value is refused rather than perturbed.
    ///
    /// The prior is exactly 0 wherever the joint's column is (validation guarantees it),
    /// so this guard is the joint's. No error names the value or its index.
    fn check_input(&self, x: usize) -> Result<()> {
        let n = self.doc.input().len();
        if x >= n {
            return Err(Error::UnknownValue {
                reason: alloc::format!("its index is out of range (the input alphabet has {n} values)"),
            });
        }
        if self.doc.prior()[x] == 0.0 {
            return Err(Error::UnknownValue {
                reason: "the document's prior gives it probability 0, so no LIP guarantee covers it".into(),
            });
        }
        Ok(())
    }

    /// Releases a perturbed output index for input index `x`.
    ///
    /// # Privacy
    /// The output is drawn exactly from the audited row P(·|x) (integer alias table).
    /// Use a CSPRNG seeded by the OS: [`crate::rng::os_rng`].
    pub fn perturb<R: RngCore + CryptoRng + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        let s = self.channel()?;
        self.check_input(x)?;
        Ok(s.sample(x, rng))
    }

    /// Perturbs an input given by label (or by decimal index).
    pub fn perturb_label<R: RngCore + CryptoRng + ?Sized>(&self, value: &str, rng: &mut R) -> Result<usize> {
        let x = self.doc.input_index(value)?;
        self.perturb(x, rng)
    }

    /// Perturbs many inputs; every input is checked before any randomness is used.
    pub fn perturb_many<R: RngCore + CryptoRng + ?Sized>(&self, xs: &[u32], rng: &mut R) -> Result<Vec<u32>> {
        let s = self.channel()?;
        self.check_all(xs)?;
        let mut out = Vec::new();
        s.sample_many(xs, rng, &mut out);
        Ok(out)
    }

    fn check_all(&self, xs: &[u32]) -> Result<()> {
        let prior = self.doc.prior();
        match xs.iter().find(|&&x| prior.get(x as usize).is_none_or(|&p| p == 0.0)) {
            Some(&x) => self.check_input(x as usize),
            None => Ok(()),
        }
    }

    /// [`VerifiedMechanism::perturb`] on the OS/browser CSPRNG pool, with no panic path:
    /// a failing random source is returned as the `rng` error.
    #[cfg(feature = "std")]
    pub fn perturb_os(&self, x: usize, rng: &mut crate::rng::OsPoolRng) -> Result<usize> {
        let s = self.channel()?;
        self.check_input(x)?;
        Ok(s.sample_word(x, rng.try_next_u64()?))
    }

    /// [`VerifiedMechanism::perturb_many`] on the OS/browser CSPRNG pool (no panic path).
    #[cfg(feature = "std")]
    pub fn perturb_many_os(&self, xs: &[u32], rng: &mut crate::rng::OsPoolRng) -> Result<Vec<u32>> {
        let s = self.channel()?;
        self.check_all(xs)?;
        let mut out = Vec::with_capacity(xs.len());
        let mut words = [0u64; 1024];
        for chunk in xs.chunks(1024) {
            let w = &mut words[..chunk.len()];
            rng.try_fill_words(w)?;
            out.extend(chunk.iter().zip(w.iter()).map(|(&x, &r)| s.sample_word(x as usize, r) as u32));
        }
        Ok(out)
    }

    /// The curator's side of a per-secret mechanism: perturbs `x` knowing the secret `s`.
    pub fn perturb_with_secret<R: RngCore + CryptoRng + ?Sized>(
        &self,
        s: usize,
        x: usize,
        rng: &mut R,
    ) -> Result<usize> {
        self.check_input(x)?;
        let ns = self.doc.secret().len();
        if s >= ns {
            return Err(Error::UnknownValue {
                reason: alloc::format!("the secret's index is out of range (|S| = {ns})"),
            });
        }
        // No audit covers a pair the joint calls impossible: its row is never weighed.
        if self.doc.p_sx().get(s, x) == 0.0 {
            return Err(Error::UnknownValue {
                reason: "the document's joint gives this (secret, value) pair probability 0, so no audit covers it"
                    .into(),
            });
        }
        match &self.runtime {
            Runtime::PerSecret { sampler, nx } => Ok(sampler.sample(s * nx + x, rng)),
            Runtime::Channel(c) => Ok(c.sample(x, rng)),
            Runtime::Unary(_) => Err(wrong_kind("unary encoding reports a bit vector: use perturb_bits")),
        }
    }

    /// Unary encoding: the perturbed bit vector for input `x` (|X| words of randomness).
    pub fn perturb_bits<R: RngCore + CryptoRng + ?Sized>(&self, x: usize, rng: &mut R) -> Result<Vec<bool>> {
        let Runtime::Unary(u) = &self.runtime else {
            return Err(wrong_kind("perturb_bits is for unary encoding; use perturb"));
        };
        self.check_input(x)?;
        let words: Vec<u64> = (0..u.len()).map(|_| rng.next_u64()).collect();
        Ok(u.sample_words(x, &words))
    }

    /// [`VerifiedMechanism::perturb_bits`] on the OS/browser CSPRNG pool (no panic path).
    #[cfg(feature = "std")]
    pub fn perturb_bits_os(&self, x: usize, rng: &mut crate::rng::OsPoolRng) -> Result<Vec<bool>> {
        let Runtime::Unary(u) = &self.runtime else {
            return Err(wrong_kind("perturb_bits is for unary encoding; use perturb"));
        };
        self.check_input(x)?;
        let mut words = alloc::vec![0u64; u.len()];
        rng.try_fill_words(&mut words)?;
        Ok(u.sample_words(x, &words))
    }

    /// The privacy receipt for a released output index `y`.
    pub fn receipt(&self, y: usize) -> Result<Receipt> {
        Receipt::new(self, y)
    }

    /// The receipt for an output given by label (or decimal index).
    pub fn receipt_label(&self, value: &str) -> Result<Receipt> {
        let y = crate::document::resolve(self.doc.output(), value)
            .ok_or_else(|| Error::UnknownOutput { value: alloc::format!("{value:?}") })?;
        self.receipt(y)
    }

    /// The receipt for a released unary-encoding bit vector.
    pub fn receipt_bits(&self, bits: &[bool]) -> Result<Receipt> {
        let Runtime::Unary(u) = &self.runtime else {
            return Err(wrong_kind("receipt_bits is for unary encoding; use receipt"));
        };
        if bits.len() != u.len() {
            return Err(Error::field("bits").dims(u.len(), bits.len()));
        }
        Receipt::for_bits(self, u.effective(), bits)
    }

    /// LIP w.r.t. X that holds under **every** prior, not only the declared one (the prior
    /// is declared, not proved): min(LDP_X, 2ε, ln((e^ε − 1 + P_min)/P_min)) with ε the
    /// audited LIP_X under the declared prior, whose smallest mass is P_min. ε-LDP implies
    /// ε-LIP under any prior; the other two are the η-free terms of Jiang et al. eq 12
    /// ([`crate::accounting::transfer_lip_bound`] with η = ∞), which need a full-support
    /// declared prior (with a zero in it only LDP_X remains).
    pub fn lip_x_under_any_prior(&self) -> f64 {
        let l = self.leakage_x();
        let pmin = self.doc.prior().iter().copied().fold(f64::INFINITY, f64::min);
        let transfer = crate::accounting::transfer_lip_bound(l.lip, f64::INFINITY, pmin).unwrap_or(f64::INFINITY);
        transfer.min(l.ldp_x)
    }

    /// The bounds every receipt of this mechanism states for the lifts of the user's
    /// values X: (min, max) over every output. They come from the audit of the sampler
    /// that runs, under the declared prior, and nothing else; for unary encoding they
    /// are widened by the rounding of the receipt's own lift formula
    /// (`receipt_rounding`).
    pub fn receipt_bounds(&self) -> (f64, f64) {
        let l = self.leakage_x();
        receipt::widen(l.min_lift, l.max_lift, self.receipt_rounding())
    }

    /// The relative rounding bound of the lifts a receipt computes beyond the audit's own
    /// (0 for channels: the receipt reads the audit's joint).
    pub(crate) fn receipt_rounding(&self) -> f64 {
        match &self.runtime {
            Runtime::Unary(u) => crate::numeric::gamma(2 * u.len() + 8),
            _ => 0.0,
        }
    }

    pub(crate) fn joint_x(&self) -> Option<&JointSY> {
        self.joint_x.as_ref()
    }
    pub(crate) fn joint_s(&self) -> Option<&JointSY> {
        self.joint_s.as_ref()
    }
}
