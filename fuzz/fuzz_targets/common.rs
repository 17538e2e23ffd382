//! Properties shared by the fuzz targets.
//!
//! For any document that parses and any policy:
//! * `audit`, `check`, `verify` never panic (errors are fine);
//! * `verify` succeeds exactly when `check` reports ≥ 1 claim, all claims holding and the
//!   policy holding (same prepared sampler, so the two must agree);
//! * after a successful `verify`: every sampled output is `< |Y|` and has positive
//!   probability in the audited (effective) channel; out-of-range inputs are refused;
//!   the receipt of every sampled output exists; and every receipt lift of a secret with
//!   positive prior lies in its section's `[min_lift_bound, max_lift_bound]`, exactly.
//!   (A secret with prior 0 has lift 0 by the documented convention; it is checked to be
//!   exactly 0 and is not compared with the bounds.)
//! * `to_json` of a valid document parses again.

#![allow(dead_code)]

use privlift::rng::DeterministicRngForTesting;
use privlift::{Document, Policy, VerifiedMechanism};
use rand::{CryptoRng, RngCore};

/// The open-domain properties (and the check/verify agreement every target asserts).
#[path = "../../tests/common/open_props.rs"]
pub mod open_props;
pub use open_props::verify_agrees;

pub const REL: f64 = 1e-9;

/// Runs every property on `doc`. `xs_hint` and `words` add fuzzer-chosen inputs and
/// random words on top of the fixed ones.
pub fn exercise(doc: &Document, policy: &Policy, xs_hint: &[u32], words: &[u64], alpha: f64) {
    // PRIVLIFT_FUZZ_PRINT=1: show the input (to report a reproducer as a plain document).
    if std::env::var_os("PRIVLIFT_FUZZ_PRINT").is_some() {
        eprintln!("document: {}\npolicy: {policy:?}\nalpha: {alpha}", serde_json::to_string(&doc.to_wire()).unwrap());
    }
    // Audit of the declared channel at the default order and at a fuzzer-chosen order.
    let _ = doc.audit(2.0);
    let _ = doc.audit(alpha);

    let reparsed = Document::from_json(&doc.to_json());
    assert!(reparsed.is_ok(), "to_json output does not re-parse: {:?}", reparsed.err());

    let check = doc.check(policy);
    let verified = doc.verify(policy);
    verify_agrees(&check, &verified, |v| !v.claims.is_empty() && v.claims_hold && v.policy_holds);
    if let Ok(m) = verified {
        exercise_verified(doc, &m, xs_hint, words);
    }
}

/// An RNG that replays fuzzer-chosen words (then a fixed odd-step counter), so that edge
/// words such as 0 and u64::MAX reach the samplers through the public API.
pub struct WordRng {
    words: Vec<u64>,
    i: usize,
}

impl WordRng {
    pub fn new(words: Vec<u64>) -> Self {
        WordRng { words, i: 0 }
    }
}

impl RngCore for WordRng {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        let w = match self.words.get(self.i) {
            Some(&w) => w,
            None => (self.i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        };
        self.i += 1;
        w
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for c in dst.chunks_mut(8) {
            let w = self.next_u64().to_le_bytes();
            c.copy_from_slice(&w[..c.len()]);
        }
    }
}
impl CryptoRng for WordRng {}

fn exercise_verified(doc: &Document, m: &VerifiedMechanism, xs_hint: &[u32], words: &[u64]) {
    let nx = doc.input().len();
    let ny = doc.output().len();
    let ns = doc.secret().len();

    // Claims hold on the audited leakage (with the verifier's own tolerance).
    let l = m.leakage();
    let c = doc.claims();
    let get = |b: Option<privlift::param::Budget>| b.map(privlift::param::Budget::get);
    for (name, claim, actual) in [
        ("ldp", get(c.ldp), l.ldp),
        ("ldp_x", get(c.ldp_x), l.ldp_x),
        ("lip", get(c.lip), l.lip),
        ("alip.eps_l", get(c.alip.map(|a| a.eps_l)), l.alip.eps_l),
        ("alip.eps_u", get(c.alip.map(|a| a.eps_u)), l.alip.eps_u),
    ] {
        if let Some(b) = claim {
            assert!(privlift::verify::within(actual, b), "{name}: verified but audited {actual} > claimed {b}");
        }
    }

    let mut xs: Vec<usize> = vec![0, nx / 2, nx - 1];
    xs.extend(xs_hint.iter().take(8).map(|&x| x as usize % nx));
    // Inputs of prior 0 are refused by the runtime (they get no LIP protection, F7).
    let prior = doc.prior();
    for &x in &xs {
        if prior[x] == 0.0 && doc.mechanism().tag() != "unary" {
            let mut r = DeterministicRngForTesting::seed_from_u64(1);
            assert!(m.perturb_with_secret(0, x, &mut r).is_err(), "an input of prior 0 was perturbed");
        }
    }
    xs.retain(|&x| prior[x] > 0.0);
    if xs.is_empty() {
        return;
    }
    let mut rng = DeterministicRngForTesting::seed_from_u64(xs_hint.first().copied().unwrap_or(7) as u64);
    let mut edge: Vec<u64> = vec![0, u64::MAX, 1 << 63, (1 << 63) - 1, 0x5555_5555_5555_5555, 1];
    edge.extend(words.iter().take(16));

    if doc.mechanism().tag() == "unary" {
        // Unary encoding: bit vectors and their receipts.
        assert!(m.perturb(0, &mut rng).is_err(), "perturb accepted on unary encoding");
        let mut wr = WordRng::new(edge);
        for &x in &xs {
            for bits in [m.perturb_bits(x, &mut rng), m.perturb_bits(x, &mut wr)] {
                let bits = bits.expect("perturb_bits of a valid input");
                assert_eq!(bits.len(), nx);
                let r = m.receipt_bits(&bits);
                assert!(r.is_ok(), "no receipt for sampled bits {bits:?}: {:?}", r.err());
                check_receipt(doc, &r.unwrap());
            }
        }
        assert!(m.perturb_bits(nx, &mut rng).is_err(), "out-of-range input accepted");
        return;
    }

    let eff = m.effective_channel().expect("effective channel of a categorical mechanism");
    let per_secret = matches!(doc.mechanism(), privlift::document::MechanismKind::PerSecret { markov: None, .. });
    if per_secret {
        assert_eq!((eff.rows(), eff.cols()), (ns * nx, ny));
    } else {
        assert_eq!((eff.rows(), eff.cols()), (nx, ny));
    }
    // (s, x) pairs: a secret of positive joint probability with x (fuzzer-chosen among them
    // for per-secret mechanisms). A pair of joint probability 0 is refused (finding 9).
    let p_sx = doc.p_sx();
    let pairs: Vec<(usize, usize)> = xs
        .iter()
        .enumerate()
        .filter_map(|(i, &x)| {
            let support: Vec<usize> = (0..ns).filter(|&s| p_sx.get(s, x) > 0.0).collect();
            let pick =
                if per_secret { (i + xs_hint.get(1).copied().unwrap_or(0) as usize) % support.len().max(1) } else { 0 };
            support.get(pick).map(|&s| (s, x))
        })
        .collect();
    for &x in &xs {
        if let Some(s) = (0..ns).find(|&s| p_sx.get(s, x) == 0.0) {
            assert!(m.perturb_with_secret(s, x, &mut rng).is_err(), "a pair of joint probability 0 was perturbed");
        }
    }
    let row = |s: usize, x: usize| if per_secret { s * nx + x } else { x };

    let mut outputs = Vec::new();
    let mut wr = WordRng::new(edge.clone());
    for &(s, x) in &pairs {
        for i in 0..6 {
            let y =
                if i % 2 == 0 { m.perturb_with_secret(s, x, &mut rng) } else { m.perturb_with_secret(s, x, &mut wr) }
                    .expect("perturb_with_secret of a valid (s, x)");
            assert!(y < ny, "perturb({s}, {x}) = {y} ≥ |Y| = {ny}");
            assert!(eff.get(row(s, x), y) > 0.0, "perturb({s}, {x}) = {y}, an output of probability 0");
            outputs.push(y);
            if !per_secret {
                let y2 = m.perturb(x, &mut wr).expect("perturb of a valid input");
                assert!(y2 < ny && eff.get(x, y2) > 0.0, "perturb({x}) = {y2}");
                outputs.push(y2);
            }
        }
    }
    assert!(m.perturb_with_secret(0, nx, &mut rng).is_err(), "out-of-range input accepted");
    assert!(m.perturb_with_secret(ns, 0, &mut rng).is_err(), "out-of-range secret accepted");
    if !per_secret {
        assert!(m.perturb(nx, &mut rng).is_err(), "out-of-range input accepted");
        let xw: Vec<u32> = (0..edge.len()).map(|i| xs[i % xs.len()] as u32).collect();
        for r in [m.perturb_many(&xw, &mut rng), m.perturb_many(&xw, &mut WordRng::new(edge.clone()))] {
            let many = r.expect("perturb_many");
            assert_eq!(many.len(), xw.len());
            for (&x, &y) in xw.iter().zip(&many) {
                assert!((y as usize) < ny && eff.get(x as usize, y as usize) > 0.0, "batch sample x={x} y={y}");
                outputs.push(y as usize);
            }
        }
        let mut bad = xw.clone();
        bad.push(nx as u32);
        assert!(m.perturb_many(&bad, &mut rng).is_err(), "perturb_many accepted an out-of-range input");
    }

    // Receipts: every sampled output must have one; every output either has one or is
    // refused as never released.
    outputs.sort_unstable();
    outputs.dedup();
    for &y in &outputs {
        let r = m.receipt(y);
        assert!(r.is_ok(), "no receipt for sampled output {y}: {:?}", r.err());
    }
    for y in 0..ny.min(256) {
        match m.receipt(y) {
            Ok(r) => check_receipt(doc, &r),
            Err(e) => assert_eq!(e.code(), "unknown_output", "receipt({y}): {e}"),
        }
    }
    assert!(m.receipt(ny).is_err());
}

/// Every row of every section lies within the bounds its section states, exactly (the
/// bounds are the audit's, for the rows' own computation; a row of prior 0 has lift 0).
fn check_receipt(_doc: &Document, r: &privlift::Receipt) {
    for section in std::iter::once(&r.input).chain(r.secret.as_ref()) {
        for e in &section.entries {
            if e.prior > 0.0 {
                assert!(
                    e.lift <= section.max_lift_bound && e.lift >= section.min_lift_bound,
                    "receipt y={:?} ({}) row {} ({}): lift {:e} outside [{:e}, {:e}]",
                    r.output_index,
                    r.output,
                    e.index,
                    e.label,
                    e.lift,
                    section.min_lift_bound,
                    section.max_lift_bound,
                );
            } else {
                assert_eq!(e.lift, 0.0, "a row with prior 0 has lift {}", e.lift);
            }
        }
    }
}
