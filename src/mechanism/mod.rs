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
pub use receipt::{Receipt, ReceiptEntry};

use alloc::vec::Vec;
use rand::{CryptoRng, RngCore};

use crate::error::{Error, Result};
use crate::leakage::{self, JointSY, Leakage, DEFAULT_ALPHA_ORDER};
use crate::sample::{ChannelSampler, UnarySampler};
use crate::spec::{Document, Matrix, MechanismKind};
use crate::verify::{evaluate, Policy, Verification};

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

    /// Leakage of the exact sampler under the joint P_SX.
    fn audit(&self, p_sx: &Matrix, alpha: f64) -> Result<Leakage> {
        match self {
            Runtime::Channel(s) => leakage::audit(p_sx, &Self::effective(s), alpha),
            Runtime::PerSecret { sampler, nx } => {
                leakage::audit_per_secret(p_sx, &Self::per_secret_blocks(sampler, *nx), alpha)
            }
            Runtime::Unary(u) => {
                let (q01, q10) = u.effective();
                leakage::audit_unary(p_sx, q01, q10, alpha)
            }
        }
    }

    /// Worst LIP w.r.t. X over a set of priors (the `bp_lip` claim).
    fn bp_lip(&self, priors: &[Vec<f64>]) -> Result<f64> {
        if let Runtime::PerSecret { .. } = self {
            return Err(Error::InvalidArgument {
                name: "claims.bp_lip".into(),
                reason: "BP-LIP is defined for a channel P(Y|X); this mechanism depends on the secret".into(),
            });
        }
        let mut worst = 0.0f64;
        for p in priors {
            worst = worst.max(self.audit(&Matrix::diag(p), DEFAULT_ALPHA_ORDER)?.lip);
        }
        Ok(worst)
    }

    fn joint(&self, p_sx: &Matrix) -> Option<JointSY> {
        match self {
            Runtime::Channel(s) => Some(JointSY::markov(p_sx, &Self::effective(s))),
            Runtime::PerSecret { sampler, nx } => {
                Some(JointSY::per_secret(p_sx, &Self::per_secret_blocks(sampler, *nx)))
            }
            Runtime::Unary(_) => None,
        }
    }
}

impl Document {
    /// Audits the mechanism *as declared* in the document (what `privlift audit` prints).
    pub fn audit(&self, alpha_order: f64) -> Result<Leakage> {
        match self.mechanism() {
            MechanismKind::Matrix(m) => leakage::audit(self.p_sx(), m, alpha_order),
            MechanismKind::PerSecret { p_y_given_sx, .. } => {
                leakage::audit_per_secret(self.p_sx(), p_y_given_sx, alpha_order)
            }
            MechanismKind::Unary { q01, q10 } => leakage::audit_unary(self.p_sx(), *q01, *q10, alpha_order),
        }
    }

    /// Worst LIP w.r.t. X of the *declared* mechanism over a set of priors (what a
    /// `bp_lip` claim promises).
    ///
    /// # Errors
    /// `invalid_argument` for a non-Markov per-secret mechanism (BP-LIP is defined for a
    /// channel P(Y|X)) or a prior of the wrong length.
    pub fn audit_bp_lip(&self, priors: &[Vec<f64>]) -> Result<f64> {
        let mut worst = 0.0f64;
        for p in priors {
            if p.len() != self.input().len() {
                return Err(Error::field("priors").dims(self.input().len(), p.len()));
            }
            let d = Matrix::diag(p);
            let l = match self.mechanism() {
                MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => {
                    leakage::audit(&d, m, DEFAULT_ALPHA_ORDER)?
                }
                MechanismKind::Unary { q01, q10 } => leakage::audit_unary(&d, *q01, *q10, DEFAULT_ALPHA_ORDER)?,
                MechanismKind::PerSecret { markov: None, .. } => {
                    return Err(Error::InvalidArgument {
                        name: "claims.bp_lip".into(),
                        reason: "BP-LIP is defined for a channel P(Y|X); this mechanism depends on the secret".into(),
                    })
                }
            };
            worst = worst.max(l.lip);
        }
        Ok(worst)
    }

    /// The exact SRLIP leakage (Lopuhaä-Zwakenberg, privacy funnel, Def 3) of the
    /// *declared* channel for the attributes of the document's `srlip` claim; `None` when
    /// it makes none.
    ///
    /// # Errors
    /// `invalid_argument` for a mechanism that is not a channel P(Y|X) (SRLIP of a
    /// per-secret or unary mechanism is not audited) or an audit above
    /// [`leakage::MAX_SRLIP_WORK`].
    pub fn audit_srlip(&self) -> Result<Option<leakage::Srlip>> {
        let Some(c) = &self.claims().srlip else { return Ok(None) };
        match self.mechanism() {
            MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => {
                Ok(Some(leakage::audit_srlip(self.p_sx(), m, &c.attributes)?))
            }
            _ => Err(srlip_needs_a_channel()),
        }
    }

    /// Claims and policy checked against the *declared* mechanism at α-order `alpha`
    /// (what `privlift audit` reports). [`Document::check`] is the same on the exact
    /// sampler, which is what a client relies on; the two agree to ~1e-15.
    pub fn check_declared(&self, policy: &Policy, alpha_order: f64) -> Result<Verification> {
        policy.validate()?;
        let leak = self.audit(alpha_order)?;
        let bp = self.claims().bp_lip.as_ref().map(|c| self.audit_bp_lip(&c.priors).unwrap_or(f64::INFINITY));
        let alpha = alpha_claim(self, &leak, |k| self.audit(k))?;
        let srlip = self.audit_srlip()?.map(|r| r.eps);
        Ok(evaluate(leak, self.claims(), policy, bp, alpha).with_srlip(self.claims(), srlip))
    }

    /// Builds the exact sampler and audits the channel it *actually* draws from
    /// (see [`crate::sample::alias`]), then checks claims and `policy`. Never fails on a
    /// claim: the report says which checks hold.
    pub fn check(&self, policy: &Policy) -> Result<Verification> {
        Ok(self.prepare(policy)?.0)
    }

    fn prepare(&self, policy: &Policy) -> Result<(Verification, Runtime)> {
        policy.validate()?;
        let runtime = Runtime::build(self)?;
        let leak = runtime.audit(self.p_sx(), DEFAULT_ALPHA_ORDER)?;
        let bp = match &self.claims().bp_lip {
            Some(c) => Some(runtime.bp_lip(&c.priors)?),
            None => None,
        };
        let alpha = alpha_claim(self, &leak, |k| runtime.audit(self.p_sx(), k))?;
        let srlip = match (&self.claims().srlip, &runtime) {
            (None, _) => None,
            (Some(c), Runtime::Channel(sampler)) => {
                Some(leakage::audit_srlip(self.p_sx(), &Runtime::effective(sampler), &c.attributes)?.eps)
            }
            (Some(_), _) => return Err(srlip_needs_a_channel()),
        };
        Ok((evaluate(leak, self.claims(), policy, bp, alpha).with_srlip(self.claims(), srlip), runtime))
    }

    /// Verifies the document against its own claims and the user's `policy`, and returns
    /// a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies about its guarantee),
    /// `policy_violated` (it is honest but leaks more than the user accepts),
    /// `invalid_argument` (a malformed policy).
    pub fn verify(&self, policy: &Policy) -> Result<VerifiedMechanism> {
        let (verification, runtime) = self.prepare(policy)?;
        let leakage = verification.clone().into_result()?;
        let joint = runtime.joint(self.p_sx());
        Ok(VerifiedMechanism { doc: self.clone(), runtime, leakage, verification, joint })
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
    leakage: Leakage,
    verification: Verification,
    joint: Option<JointSY>,
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
    pub fn document(&self) -> &Document {
        &self.doc
    }
    /// The audited leakage of the sampler that runs.
    pub fn leakage(&self) -> &Leakage {
        &self.leakage
    }
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
    fn check_input(&self, x: usize) -> Result<()> {
        let n = self.doc.input().len();
        if x >= n {
            return Err(Error::UnknownValue { value: alloc::format!("index {x} (the alphabet has {n} values)") });
        }
        if self.doc.prior()[x] == 0.0 {
            let label = self.doc.input().label(x).unwrap_or_default();
            return Err(Error::UnknownValue {
                value: alloc::format!(
                    "{label:?}: the mechanism's prior gives it probability 0, so its LIP guarantee does not cover it"
                ),
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
            return Err(Error::UnknownValue { value: alloc::format!("secret index {s} (|S| = {ns})") });
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
        let y = crate::spec::resolve(self.doc.output(), value)
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

    pub(crate) fn joint(&self) -> Option<&JointSY> {
        self.joint.as_ref()
    }
}
