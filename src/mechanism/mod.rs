//! What runs on the device: a mechanism that passed verification, and its receipts.
//!
//! A [`VerifiedMechanism`] can only be obtained from [`Document::verify`], so a
//! mechanism whose claims or policy failed is never used to perturb.

mod receipt;

pub use receipt::{Receipt, ReceiptEntry};

use alloc::vec::Vec;
use rand::{CryptoRng, RngCore};

use crate::error::{Error, Result};
use crate::leakage::{self, JointSY, Leakage, DEFAULT_ALPHA_ORDER};
use crate::sample::ChannelSampler;
use crate::spec::{Document, Matrix, MechanismKind};
use crate::verify::{evaluate, Policy, Verification};

impl Document {
    /// Audits the channel *as declared* in the document (what `privlift audit` prints).
    pub fn audit(&self, alpha_order: f64) -> Result<Leakage> {
        match self.mechanism() {
            MechanismKind::Matrix(m) => leakage::audit(self.p_sx(), m, alpha_order),
        }
    }

    /// Builds the exact sampler and audits the channel it *actually* draws from
    /// (see [`crate::sample::alias`]), then checks claims and `policy`. Never fails on a
    /// claim: the report says which checks hold.
    pub fn check(&self, policy: &Policy) -> Result<Verification> {
        Ok(self.prepare(policy)?.0)
    }

    fn prepare(&self, policy: &Policy) -> Result<(Verification, ChannelSampler, Matrix)> {
        policy.validate()?;
        let MechanismKind::Matrix(m) = self.mechanism();
        let sampler = ChannelSampler::new(m.rows(), m.cols(), m.as_slice())?;
        let effective = Matrix::from_flat(m.rows(), m.cols(), sampler.effective_channel());
        let leak = leakage::audit(self.p_sx(), &effective, DEFAULT_ALPHA_ORDER)?;
        Ok((evaluate(leak, self.claims(), policy), sampler, effective))
    }

    /// Verifies the document against its own claims and the user's `policy`, and returns
    /// a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies about its guarantee),
    /// `policy_violated` (it is honest but leaks more than the user accepts),
    /// `invalid_argument` (a malformed policy).
    pub fn verify(&self, policy: &Policy) -> Result<VerifiedMechanism> {
        let (verification, sampler, effective) = self.prepare(policy)?;
        let leakage = verification.clone().into_result()?;
        let joint = JointSY::markov(self.p_sx(), &effective);
        Ok(VerifiedMechanism { doc: self.clone(), sampler, leakage, verification, joint })
    }
}

/// A mechanism whose claims and policy were verified on the exact sampler.
#[derive(Debug, Clone)]
pub struct VerifiedMechanism {
    doc: Document,
    sampler: ChannelSampler,
    leakage: Leakage,
    verification: Verification,
    joint: JointSY,
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
    /// The exact channel the sampler draws from (rows x).
    pub fn effective_channel(&self) -> Matrix {
        Matrix::from_flat(self.sampler.inputs(), self.sampler.outputs(), self.sampler.effective_channel())
    }

    fn check_input(&self, x: usize) -> Result<()> {
        if x >= self.sampler.inputs() {
            return Err(Error::UnknownValue {
                value: alloc::format!("index {x} (the alphabet has {} values)", self.sampler.inputs()),
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
        self.check_input(x)?;
        Ok(self.sampler.sample(x, rng))
    }

    /// Perturbs an input given by label (or by decimal index).
    pub fn perturb_label<R: RngCore + CryptoRng + ?Sized>(&self, value: &str, rng: &mut R) -> Result<usize> {
        let x = self.doc.input_index(value)?;
        self.perturb(x, rng)
    }

    /// Perturbs many inputs; every input is checked before any randomness is used.
    pub fn perturb_many<R: RngCore + CryptoRng + ?Sized>(&self, xs: &[u32], rng: &mut R) -> Result<Vec<u32>> {
        self.check_all(xs)?;
        let mut out = Vec::new();
        self.sampler.sample_many(xs, rng, &mut out);
        Ok(out)
    }

    fn check_all(&self, xs: &[u32]) -> Result<()> {
        match xs.iter().find(|&&x| x as usize >= self.sampler.inputs()) {
            Some(&x) => self.check_input(x as usize),
            None => Ok(()),
        }
    }

    /// Maps pre-drawn uniform 64-bit words to outputs (`words.len() ≥ xs.len()`); for
    /// callers that draw from a fallible source such as [`crate::rng::OsPoolRng::try_fill`].
    pub fn perturb_with_words(&self, xs: &[u32], words: &[u64], out: &mut Vec<u32>) -> Result<()> {
        self.check_all(xs)?;
        if words.len() < xs.len() {
            return Err(Error::InvalidArgument { name: "words".into(), reason: "fewer words than inputs".into() });
        }
        out.clear();
        out.extend(xs.iter().zip(words).map(|(&x, &r)| self.sampler.sample_word(x as usize, r) as u32));
        Ok(())
    }

    /// [`VerifiedMechanism::perturb`] on the OS/browser CSPRNG pool, with no panic path:
    /// a failing random source is returned as the `rng` error.
    #[cfg(feature = "std")]
    pub fn perturb_os(&self, x: usize, rng: &mut crate::rng::OsPoolRng) -> Result<usize> {
        self.check_input(x)?;
        Ok(self.sampler.sample_word(x, rng.try_next_u64()?))
    }

    /// [`VerifiedMechanism::perturb_many`] on the OS/browser CSPRNG pool (no panic path).
    #[cfg(feature = "std")]
    pub fn perturb_many_os(&self, xs: &[u32], rng: &mut crate::rng::OsPoolRng) -> Result<Vec<u32>> {
        self.check_all(xs)?;
        let mut out = Vec::with_capacity(xs.len());
        let mut words = [0u64; 1024];
        for chunk in xs.chunks(1024) {
            let w = &mut words[..chunk.len()];
            rng.try_fill_words(w)?;
            out.extend(chunk.iter().zip(w.iter()).map(|(&x, &r)| self.sampler.sample_word(x as usize, r) as u32));
        }
        Ok(out)
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

    pub(crate) fn joint(&self) -> &JointSY {
        &self.joint
    }
}
