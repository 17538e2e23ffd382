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

use alloc::boxed::Box;
use alloc::vec::Vec;
use once_cell::race::OnceBox;

use crate::document::{Document, Matrix};
use crate::error::{Error, Result};
use crate::leakage::{Exact, Joint, Leakage, Scope, DEFAULT_ALPHA_ORDER};
use crate::param::{Budget, Probability};
use crate::rng::Randomness;
use crate::sample::Categorical;
use crate::verify::discrete::{audit_markov, s_audit_needed, SecretAudit};
use crate::verify::runtime::{exact, Runtime};
use crate::verify::{Policy, Verification};

impl Document {
    /// Verifies the document against its own claims and the user's `policy`, and returns
    /// a mechanism ready to perturb.
    ///
    /// # Errors
    /// `no_claims`, `claim_violated` (the document lies about its guarantee),
    /// `policy_violated` (it is honest but leaks more than the user accepts),
    /// `too_costly` (refused before any allocation), `invalid_argument` (a malformed
    /// policy).
    pub fn verify(&self, policy: &Policy) -> Result<VerifiedMechanism> {
        let when = if s_audit_needed(self, policy) { SecretAudit::Now } else { SecretAudit::Deferred };
        let scope = Scope::for_claims(self.claims());
        let (verification, runtime, channels, audits) = self.prepare(policy, DEFAULT_ALPHA_ORDER, scope, when)?;
        crate::verify::decide(&verification.claims, &verification.policy)?;
        // The receipts read the joints the audit read: their lifts are the audited ones.
        let secret = match (audits.s, channels) {
            (Some(_), _) => Secret::Audited(SecretReport { verification, joint_s: audits.joint_s }),
            (None, Some((channel, None))) => {
                Secret::Deferred { pending: Pending { report: verification, channel }, audit: OnceBox::new() }
            }
            (None, _) => return Err(Error::wrong_kind("internal: a deferred audit w.r.t. S needs a channel")),
        };
        let every_input_possible = self.prior().iter().all(|&p| p != 0.0);
        Ok(VerifiedMechanism { doc: self.clone(), runtime, joint_x: audits.joint_x, secret, every_input_possible })
    }
}

/// The report of a verification and the joint P_SY its audit w.r.t. S read.
#[derive(Debug, Clone)]
struct SecretReport {
    verification: Verification,
    /// P(S,Y) under the declared joint, when the document declares a secret.
    joint_s: Option<Joint>,
}

/// The audit w.r.t. S: made during verification, or at first use when no claim and no
/// policy limit read it (`verify::discrete::s_audit_needed`). Then verification skips the
/// joint P_SY of a channel — 16 M multiply-adds for a dense 1024² channel with |S| = 16, a
/// third of its verification in wasm — and the report, `leakage`
/// and the receipts' S section compute it on first use, with the same arguments and so the
/// same bits.
#[derive(Debug, Clone)]
enum Secret {
    Audited(SecretReport),
    Deferred { pending: Pending, audit: OnceBox<SecretReport> },
}

/// What the deferred audit w.r.t. S reads.
#[derive(Debug, Clone)]
struct Pending {
    /// The checks of claims and policy, final (none of them read the audit w.r.t. S); its
    /// `leakage` is a stand-in, never shown.
    report: Verification,
    /// The exact channel the sampler realises.
    channel: Exact,
}

impl Pending {
    fn audit(&self, doc: &Document) -> SecretReport {
        let x = &self.report.leakage_x;
        let (leakage, joint_s) = match doc.declared_joint() {
            Some(j) => {
                // The scope and order verification would have audited at (`Document::verify`).
                let scope = Scope::for_claims(doc.claims());
                let (s, js) = audit_markov(j, doc.prior(), &self.channel, DEFAULT_ALPHA_ORDER, scope, x.ldp_x);
                (s, Some(js))
            }
            // S = X (not deferred by verification; kept total).
            None => (x.clone(), None),
        };
        SecretReport { verification: Verification { leakage, ..self.report.clone() }, joint_s }
    }
}

/// A mechanism whose claims and policy were verified on the exact sampler.
#[derive(Debug, Clone)]
pub struct VerifiedMechanism {
    doc: Document,
    runtime: Runtime,
    /// P(X,Y) under the declared prior (the receipt's rows of the user's values); `None`
    /// for unary encoding.
    joint_x: Option<Joint>,
    secret: Secret,
    /// No input has prior 0 (the usual prior): a batch is then checked by its largest
    /// input alone. Read from the prior once here, not once a batch: a pass over the |X|
    /// priors was 6 % of a one-input batch in wasm at |X| = 21, and grows with |X|.
    every_input_possible: bool,
}

impl VerifiedMechanism {
    /// The verified document.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    fn secret(&self) -> &SecretReport {
        match &self.secret {
            Secret::Audited(r) => r,
            Secret::Deferred { pending, audit } => audit.get_or_init(|| Box::new(pending.audit(&self.doc))),
        }
    }

    /// The audited leakage of the sampler that runs, w.r.t. the document's secret S.
    pub fn leakage(&self) -> &Leakage {
        &self.secret().verification.leakage
    }
    /// The audited leakage of the sampler that runs, w.r.t. the user's value X under the
    /// declared prior: what the user's limits and the ledger read.
    pub fn leakage_x(&self) -> &Leakage {
        match &self.secret {
            Secret::Audited(r) => &r.verification.leakage_x,
            Secret::Deferred { pending, .. } => &pending.report.leakage_x,
        }
    }
    /// The checks of the claims and the policy made by verification.
    pub fn verification(&self) -> &Verification {
        &self.secret().verification
    }

    /// The exact channel P(Y|X) the sampler draws from (rows x); for a per-secret
    /// mechanism, the rows are (s, x) in the order s·|X| + x.
    ///
    /// # Errors
    /// `invalid_argument` for unary encoding (its channel has 2^|X| columns).
    pub fn effective_channel(&self) -> Result<Matrix> {
        match &self.runtime {
            Runtime::Channel(c) => Ok(exact(c).to_dense()),
            Runtime::PerSecret { sampler: s, .. } => Ok(Runtime::effective(s)),
            Runtime::Unary(_) => Err(Error::wrong_kind("unary encoding has no explicit channel matrix")),
        }
    }

    fn channel(&self) -> Result<&Categorical> {
        match &self.runtime {
            Runtime::Channel(s) => Ok(s),
            Runtime::PerSecret { .. } => Err(Error::wrong_kind(
                "this mechanism depends on the secret S: only the curator, who knows s, can apply it",
            )),
            Runtime::Unary(_) => Err(Error::wrong_kind("unary encoding reports a bit vector: use perturb_bits")),
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
            return Err(input_out_of_range(n));
        }
        if self.doc.prior()[x] == 0.0 {
            return Err(input_of_prior_zero());
        }
        Ok(())
    }

    /// Releases a perturbed output index for input index `x`.
    ///
    /// # Privacy
    /// The output is drawn exactly from the audited row P(·|x) (integer alias table).
    /// Use a CSPRNG seeded by the OS: [`crate::rng::os_rng`].
    ///
    /// # Errors
    /// `unknown_value` for an `x` outside the alphabet or of prior 0; `rng` if the random
    /// source fails; `invalid_argument` for unary encoding (use `perturb_bits`).
    ///
    /// Always inlined: a report is a few nanoseconds of work, and called out of line the
    /// `Result` goes through memory (LLVM inlines it by itself only where it has one caller;
    /// the refusals are built out of line, so each copy stays small).
    #[inline(always)]
    pub fn perturb<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<usize> {
        let s = self.channel()?;
        self.check_input(x)?;
        s.sample(x, rng)
    }

    /// Perturbs an input given by label (or by decimal index).
    pub fn perturb_label<R: Randomness + ?Sized>(&self, value: &str, rng: &mut R) -> Result<usize> {
        let x = self.doc.input_index(value)?;
        self.perturb(x, rng)
    }

    /// Perturbs many inputs; every input is checked before any randomness is used.
    pub fn perturb_many<R: Randomness + ?Sized>(&self, xs: &[u32], rng: &mut R) -> Result<Vec<u32>> {
        let mut out = xs.to_vec();
        self.perturb_in_place(&mut out, rng)?;
        Ok(out)
    }

    /// [`Self::perturb_many`] replacing each input of `xs` by its output (the wasm client's
    /// batch, in the caller's array). On an error nothing in `xs` is a report to send: an
    /// invalid input is refused before any draw (`xs` unchanged), and a failing source
    /// stops the batch and zeroes `xs` (half drawn, it would still hold the user's inputs).
    pub fn perturb_in_place<R: Randomness + ?Sized>(&self, xs: &mut [u32], rng: &mut R) -> Result<()> {
        let s = self.channel()?;
        self.check_all(xs)?;
        let drawn = s.sample_in_place(xs, rng);
        if drawn.is_err() {
            xs.fill(0);
        }
        drawn
    }

    fn check_all(&self, xs: &[u32]) -> Result<()> {
        let prior = self.doc.prior();
        // Every input possible (the usual prior): one branch-free pass for the largest
        // input, which a comparison per element and a lookup of its prior cost 10 % of
        // `perturbMany` in wasm. Otherwise (or for an input out of range) the search that
        // names the first refused input.
        if self.every_input_possible && (largest(xs) as usize) < prior.len() {
            return Ok(());
        }
        match xs.iter().find(|&&x| prior.get(x as usize).is_none_or(|&p| p == 0.0)) {
            Some(&x) => self.check_input(x as usize),
            None => Ok(()),
        }
    }

    /// The curator's side of a per-secret mechanism: perturbs `x` knowing the secret `s`.
    pub fn perturb_with_secret<R: Randomness + ?Sized>(&self, s: usize, x: usize, rng: &mut R) -> Result<usize> {
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
            Runtime::PerSecret { sampler, nx } => sampler.tables().sample(s * nx + x, rng),
            Runtime::Channel(c) => c.sample(x, rng),
            Runtime::Unary(_) => Err(Error::wrong_kind("unary encoding reports a bit vector: use perturb_bits")),
        }
    }

    /// Unary encoding: the perturbed bit vector for input `x` (|X| words of randomness).
    pub fn perturb_bits<R: Randomness + ?Sized>(&self, x: usize, rng: &mut R) -> Result<Vec<bool>> {
        let Runtime::Unary(u) = &self.runtime else {
            return Err(Error::wrong_kind("perturb_bits is for unary encoding; use perturb"));
        };
        self.check_input(x)?;
        let words = (0..u.len()).map(|_| rng.next_word()).collect::<Result<Vec<u64>>>()?;
        Ok(u.sample_words(x, &words))
    }

    /// The privacy receipt for a released output index `y`.
    pub fn receipt(&self, y: usize) -> Result<Receipt> {
        Receipt::new(self, y)
    }

    /// The receipt for an output given by label (or decimal index).
    pub fn receipt_label(&self, value: &str) -> Result<Receipt> {
        let y = crate::document::resolve(self.doc.output(), value)
            .ok_or_else(|| Error::UnknownOutput { value: alloc::format!("{}", crate::error::Quoted(value)) })?;
        self.receipt(y)
    }

    /// The receipt for a released unary-encoding bit vector.
    pub fn receipt_bits(&self, bits: &[bool]) -> Result<Receipt> {
        let Runtime::Unary(u) = &self.runtime else {
            return Err(Error::wrong_kind("receipt_bits is for unary encoding; use receipt"));
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
        let transfer = Budget::new("lip", l.lip)
            .and_then(|lip| Ok((lip, Probability::new("pmin", pmin)?)))
            .and_then(|(lip, pmin)| crate::accounting::transfer_lip_bound(lip, Budget::INFINITE, pmin))
            .unwrap_or(f64::INFINITY);
        transfer.min(l.ldp_x)
    }

    /// The bounds every receipt of this mechanism states for the lifts of the user's
    /// values X: (min, max) over every output. They come from the audit of the sampler
    /// that runs, under the declared prior, and nothing else; for unary encoding they
    /// are widened by the rounding of the receipt's own lift formula
    /// (`receipt_rounding`).
    pub fn receipt_bounds(&self) -> (f64, f64) {
        let l = self.leakage_x();
        crate::numeric::widen(l.min_lift, l.max_lift, self.receipt_rounding())
    }

    /// The relative rounding bound of the lifts a receipt computes beyond the audit's own
    /// (0 for channels: the receipt reads the audit's joint).
    pub(crate) fn receipt_rounding(&self) -> f64 {
        match &self.runtime {
            Runtime::Unary(u) => crate::numeric::gamma(2 * u.len() + 8),
            _ => 0.0,
        }
    }

    pub(crate) fn joint_x(&self) -> Option<&Joint> {
        self.joint_x.as_ref()
    }
    pub(crate) fn joint_s(&self) -> Option<&Joint> {
        self.secret().joint_s.as_ref()
    }
}

/// The largest of `xs` (0 for none), in four independent maxima: one running maximum is a
/// chain of dependent selects, a quarter of a batch's draw time in wasm. With wasm SIMD,
/// the four maxima are one instruction's lanes (`sample::simd::largest`).
fn largest(xs: &[u32]) -> u32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let (m0, xs) = {
        let (m, n) = crate::sample::simd::largest(xs);
        (m, &xs[n..])
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let m0 = 0;
    let (mut m0, mut m1, mut m2, mut m3) = (m0, 0u32, 0u32, 0u32);
    let quads = xs.chunks_exact(4);
    let rest = quads.remainder().iter().fold(0, |a, &x| a.max(x));
    for q in quads {
        if let &[a, b, c, d] = q {
            (m0, m1, m2, m3) = (m0.max(a), m1.max(b), m2.max(c), m3.max(d));
        }
    }
    rest.max(m0).max(m1).max(m2).max(m3)
}

/// The refusal of an input index outside the alphabet of `n` values (out of line, so that
/// each inlined copy of [`VerifiedMechanism::perturb`] stays small).
#[cold]
#[inline(never)]
fn input_out_of_range(n: usize) -> Error {
    Error::UnknownValue { reason: alloc::format!("its index is out of range (the input alphabet has {n} values)") }
}

/// The refusal of an input the prior gives probability 0 (out of line, as above).
#[cold]
#[inline(never)]
fn input_of_prior_zero() -> Error {
    Error::UnknownValue { reason: "the document's prior gives it probability 0, so no LIP guarantee covers it".into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::Budget;
    use crate::rng::DeterministicRngForTesting;

    fn tables_built(m: &VerifiedMechanism) -> bool {
        match &m.runtime {
            Runtime::Channel(Categorical::Dense(s)) | Runtime::PerSecret { sampler: s, .. } => s.built(),
            _ => panic!("not a dense channel"),
        }
    }

    /// A per-secret mechanism, as a dense channel: verification (a design's audit of its
    /// own document) builds no tables; the curator's first draw does, and draws from
    /// exactly the audited channel.
    #[test]
    fn a_per_secret_mechanism_builds_its_tables_at_the_first_draw() {
        let doc = Document::from_json(
            r#"{"format": "privlift-mechanism", "version": 1, "id": "ps", "labels": ["a", "b"],
                "prior": [0.5, 0.5],
                "secret": {"labels": ["s0", "s1"], "p_sx": [[0.25, 0.25], [0.25, 0.25]]},
                "mechanism": {"kind": "per_secret", "p_y_given_sx": [[[0.9, 0.1], [0.8, 0.2]], [[0.1, 0.9], [0.0, 1.0]]]},
                "claims": {"ldp": 3.0}}"#,
        )
        .unwrap();
        let m = doc.verify(&Policy::default()).unwrap();
        assert!(!tables_built(&m), "verification built the alias tables");
        let eff = m.effective_channel().unwrap();
        assert_eq!((eff.rows(), eff.cols()), (4, 2));
        assert_eq!((eff.get(3, 0), eff.get(3, 1)), (0.0, 1.0));
        let mut rng = DeterministicRngForTesting::seed_from_u64(5);
        // Row s = 1, x = 1 holds all its mass on y = 1; row s = 0, x = 0 both outputs.
        assert!((0..200).all(|_| m.perturb_with_secret(1, 1, &mut rng).unwrap() == 1));
        assert!(tables_built(&m));
        let ys: Vec<usize> = (0..400).map(|_| m.perturb_with_secret(0, 0, &mut rng).unwrap()).collect();
        assert!(ys.contains(&0) && ys.contains(&1));
        assert_eq!(m.effective_channel().unwrap(), eff, "the tables realise the audited channel");
    }

    #[test]
    fn verification_audits_the_weights_and_the_first_draw_builds_the_tables() {
        let doc = Document::from_json(
            r#"{"format": "privlift-mechanism", "version": 1, "id": "three",
                "labels": ["a", "b", "c"], "prior": [0.5, 0.3, 0.2],
                "mechanism": {"kind": "matrix", "p_y_given_x": [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]},
                "claims": {"ldp_x": 1.8}}"#,
        )
        .unwrap();
        let m = doc.verify(&Policy::default()).unwrap();
        assert!(!tables_built(&m), "verification built the alias tables");
        // The receipt reads the audit's joint, not the tables.
        m.receipt(1).unwrap();
        assert!(!tables_built(&m));
        let before = m.clone();
        let mut rng = DeterministicRngForTesting::seed_from_u64(3);
        let ys: Vec<usize> = (0..200).map(|i| m.perturb(i % 3, &mut rng).unwrap()).collect();
        assert!(tables_built(&m) && !tables_built(&before));
        // The same draws as a mechanism whose tables were built in another order.
        let many = before.perturb_many(&[0, 1, 2].repeat(67)[..200], &mut DeterministicRngForTesting::seed_from_u64(3));
        assert_eq!(many.unwrap().iter().map(|&y| y as usize).collect::<Vec<_>>(), ys);
        assert_eq!(m.effective_channel().unwrap(), before.effective_channel().unwrap());
    }

    fn with_secret(claims: &str) -> Document {
        Document::from_json(&alloc::format!(
            r#"{{"format": "privlift-mechanism", "version": 1, "id": "s",
                "labels": ["a", "b", "c"], "prior": [0.5, 0.3, 0.2],
                "secret": {{"labels": ["s0", "s1"], "p_sx": [[0.4, 0.1, 0.1], [0.1, 0.2, 0.1]]}},
                "mechanism": {{"kind": "matrix", "p_y_given_x": [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]}},
                "claims": {claims}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_audit_wrt_the_secret_waits_for_its_first_reader_unless_a_check_reads_it() {
        let pending =
            |m: &VerifiedMechanism| matches!(&m.secret, Secret::Deferred { audit, .. } if audit.get().is_none());
        let m = with_secret(r#"{"ldp_x": 1.8}"#).verify(&Policy::default()).unwrap();
        assert!(pending(&m));
        // What the user's limits, the ledger and the receipt bounds read is the audit w.r.t. X.
        let _ = (m.leakage_x(), m.receipt_bounds(), m.lip_x_under_any_prior());
        assert!(pending(&m));
        let lip = m.leakage().lip;
        assert!(!pending(&m) && lip.is_finite());
        // A claim or a limit about S: audited during verification.
        let claimed = with_secret(r#"{"ldp_x": 1.8, "lip": 5.0}"#).verify(&Policy::default()).unwrap();
        let limited = with_secret(r#"{"ldp_x": 1.8}"#);
        let limited = limited
            .verify(&Policy { max_ldp_s: Some(Budget::new("max_ldp_s", 10.0).unwrap()), ..Policy::default() })
            .unwrap();
        assert!(matches!(claimed.secret, Secret::Audited(_)) && matches!(limited.secret, Secret::Audited(_)));
        assert_eq!(claimed.leakage().lip.to_bits(), lip.to_bits());
    }

    /// A source that gives `left` bytes, then fails.
    struct Failing {
        left: usize,
    }
    impl Randomness for Failing {
        fn next_word(&mut self) -> Result<u64> {
            self.fill_block(&mut [0; 8]).map(|()| 7)
        }
        fn fill_words(&mut self, out: &mut [u64]) -> Result<()> {
            out.iter_mut().try_for_each(|w| self.next_word().map(|v| *w = v))
        }
        fn fill_block(&mut self, out: &mut [u8]) -> Result<()> {
            self.left = self.left.checked_sub(out.len()).ok_or(Error::Rng { message: "exhausted".into() })?;
            out.fill(0x5a);
            Ok(())
        }
        fn draw<T>(&mut self, _: usize, _: impl FnOnce(&mut dyn crate::rng::CryptoRngCore) -> T) -> Result<T> {
            Err(Error::Rng { message: "exhausted".into() })
        }
    }

    #[test]
    fn a_batch_whose_source_fails_holds_no_input_and_an_invalid_one_is_left_alone() {
        let doc = Document::from_json(
            r#"{"format": "privlift-mechanism", "version": 1, "id": "krr",
                "labels": ["a", "b", "c"], "prior": [0.5, 0.3, 0.2],
                "mechanism": {"kind": "krr", "epsilon": 1.0}, "claims": {"ldp_x": 1.0}}"#,
        )
        .unwrap();
        let m = doc.verify(&Policy::default()).unwrap();
        // The first block of 64 KiB of words is drawn, the second fails.
        let mut xs = alloc::vec![2u32; 20_000];
        let e = m.perturb_in_place(&mut xs, &mut Failing { left: 65_536 }).unwrap_err();
        assert_eq!(e.code(), "rng");
        assert!(xs.iter().all(|&y| y == 0));
        let mut bad = [1u32, 2, 3];
        assert_eq!(m.perturb_in_place(&mut bad, &mut Failing { left: 1 << 20 }).unwrap_err().code(), "unknown_value");
        assert_eq!(bad, [1, 2, 3]);
    }

    #[test]
    fn the_largest_input_is_found_in_every_lane_and_the_remainder() {
        assert_eq!(largest(&[]), 0);
        for n in 1..12 {
            for at in 0..n {
                let mut xs = alloc::vec![3u32; n];
                xs[at] = 9;
                assert_eq!(largest(&xs), 9, "n = {n}, at {at}");
            }
        }
    }

    #[test]
    fn a_verified_mechanism_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<VerifiedMechanism>();
    }
}
