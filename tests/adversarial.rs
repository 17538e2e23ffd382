//! The hostile-document corpus (`tests/adversarial/`, see its README), natively: each
//! document is refused with its expected code, or verified and then held to the receipt and
//! policy properties. The same files run in the wasm build (`tests/js/adversarial.test.mjs`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::Path;

use common::corpus::{corpus, document_text, policy_text, refusal_shown};
use privlift::document::Matrix;
use privlift::open::{OpenDocument, VerifiedOpen};
use privlift::rng::DeterministicRngForTesting;
use privlift::verify::within;
use privlift::{parse_any, AnyDocument, ContinuousPolicy, Document, Policy, VerifiedMechanism};
use serde_json::Value;

/// Receipts of every output (or of drawn bit vectors) lie within their bounds, with the
/// X rows always there and the S rows exactly when the document declares a secret.
fn receipt_properties(name: &str, doc: &Document, m: &VerifiedMechanism) {
    let nx = doc.input().len();
    let mut receipts = Vec::new();
    if doc.mechanism().tag() == "unary" {
        let mut rng = DeterministicRngForTesting::seed_from_u64(11);
        for x in (0..nx).filter(|&x| doc.prior()[x] > 0.0).take(8) {
            let bits = m.perturb_bits(x, &mut rng).unwrap();
            receipts.push(m.receipt_bits(&bits).unwrap());
        }
    } else {
        for y in 0..doc.output().len().min(256) {
            match m.receipt(y) {
                Ok(r) => receipts.push(r),
                Err(e) => assert_eq!(e.code(), "unknown_output", "{name}: receipt({y}): {e}"),
            }
        }
    }
    assert!(!receipts.is_empty(), "{name}: no receipt to check");
    let (lo, hi) = m.receipt_bounds();
    for r in &receipts {
        assert!(common::lifts_within_bounds(r), "{name}: a lift outside its bounds: {r:?}");
        assert_eq!(r.input.entries.len(), nx, "{name}: one X row per input value");
        assert_eq!(r.secret.is_some(), doc.has_secret(), "{name}: the S section iff S is declared");
        assert_eq!((r.input.min_lift_bound, r.input.max_lift_bound), (lo, hi), "{name}: receipt_bounds");
    }
}

/// Every X-limit of the policy holds on an audit of the exact channel with S = X done
/// here, apart from verification (for channels; unary and per-secret read the X-audit).
fn policy_properties(name: &str, doc: &Document, m: &VerifiedMechanism, policy: &Policy) {
    let independent = match m.effective_channel() {
        Ok(w) if doc.mechanism().tag() == "matrix" => privlift::audit(&Matrix::diag(doc.prior()), &w, 2.0).unwrap(),
        _ => m.leakage_x().clone(),
    };
    for (limit, actual) in [
        (policy.max_ldp_x, independent.ldp_x),
        (policy.max_ldp, independent.ldp_x),
        (policy.max_lip, independent.lip),
        (policy.max_eps_l, independent.alip.eps_l),
        (policy.max_eps_u, independent.alip.eps_u),
    ] {
        if let Some(b) = limit {
            assert!(within(actual, b.get()), "{name}: an X-limit {b:?} does not hold: audited {actual}");
        }
    }
}

/// An accepted open document: every lift of a receipt within the audited εl, εu; a
/// refused input refused without being echoed.
fn open_properties(name: &str, doc: &OpenDocument, m: &VerifiedOpen, case: &Value) -> Result<(), privlift::Error> {
    let a = m.audit();
    let mut rng = DeterministicRngForTesting::seed_from_u64(3);
    for v in ["", "apple", "a longer value"].iter().filter(|v| v.len() <= doc.max_bytes()) {
        let r = m.receipt(&m.perturb(v, &mut rng)?)?;
        let within = |lo: f64, hi: f64| lo >= (-a.eps_l).exp() * (1.0 - 1e-12) && hi <= a.eps_u.exp() * (1.0 + 1e-12);
        let unlisted = (r.unlisted_min_lift, r.unlisted_max_lift);
        assert!(within(unlisted.0, unlisted.1) || (r.other_mass == 0.0 && unlisted == (0.0, 0.0)), "{name}: {r:?}");
        assert!(r.listed.iter().all(|e| within(e.min_lift, e.max_lift)), "{name}: {r:?}");
    }
    if let Some(refused) = case["expect"]["refused_inputs"].as_array() {
        for v in refused {
            let v = v.as_str().unwrap();
            let e = m.perturb(v, &mut rng).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{name}");
            assert!(!e.to_string().contains(v), "{name}: the error names the value: {e}");
        }
    }
    Ok(())
}

fn run_case(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(case["about"].is_string(), "{name}: every case says what it attacks");
    let text = document_text(&case);
    let policy = policy_text(&case);
    let outcome: Result<(), privlift::Error> = (|| match parse_any(&text)? {
        AnyDocument::Discrete(doc) => {
            let p = policy.as_deref().map_or(Ok(Policy::default()), Policy::from_json)?;
            let m = doc.verify(&p)?;
            receipt_properties(&name, &doc, &m);
            policy_properties(&name, &doc, &m, &p);
            if let Some(refused) = case["expect"]["refused_inputs"].as_array() {
                for v in refused {
                    let v = v.as_str().unwrap();
                    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
                    let e = m.perturb_label(v, &mut rng).unwrap_err();
                    assert_eq!(e.code(), "unknown_value", "{name}: {v}");
                    assert!(!e.to_string().contains(v), "{name}: the error names the value: {e}");
                }
            }
            Ok(())
        }
        AnyDocument::Continuous(doc) => {
            let p = policy.as_deref().map_or(Ok(ContinuousPolicy::default()), ContinuousPolicy::from_json)?;
            let m = doc.verify(&p)?;
            let e = m.audit().lip_pure_eps;
            let mut rng = DeterministicRngForTesting::seed_from_u64(5);
            let lattice = *doc.lattice();
            for k in [0, lattice.len() / 2, lattice.len() - 1] {
                let y = m.perturb(lattice.value(k as i64), &mut rng)?;
                let r = m.receipt(y, None)?;
                assert!(r.min_ratio >= (-e).exp() * (1.0 - 1e-12) && r.max_ratio <= e.exp() * (1.0 + 1e-12), "{name}");
            }
            Ok(())
        }
        AnyDocument::Open(doc) => {
            let p = policy.as_deref().map_or(Ok(Policy::default()), Policy::from_json)?;
            let m = doc.verify(&p)?;
            open_properties(&name, &doc, &m, &case)
        }
    })();
    match (case["expect"].get("error").and_then(Value::as_str), outcome) {
        (Some(code), Err(e)) => {
            assert_eq!(e.code(), code, "{name}: refused with {e}");
            refusal_shown(&name, &e.to_string());
        }
        (Some(code), Ok(())) => panic!("{name}: accepted, but the corpus expects `{code}`"),
        (None, Ok(())) => assert_eq!(case["expect"]["verified"], true, "{name}: expect says neither"),
        (None, Err(e)) => panic!("{name}: refused ({}: {e}) but expected to verify", e.code()),
    }
}

#[test]
fn every_hostile_document_is_refused_or_verified_as_the_corpus_says() {
    let files = corpus();
    assert!(files.len() >= 40, "the corpus has {} documents", files.len());
    for f in &files {
        run_case(f);
    }
}

/// Per-document timings, to keep the corpus fast (`--ignored --nocapture`).
#[test]
#[ignore]
fn corpus_timings() {
    for f in corpus() {
        let t = std::time::Instant::now();
        run_case(&f);
        println!("{:>8.3} s  {}", t.elapsed().as_secs_f64(), f.file_name().unwrap().to_string_lossy());
    }
}
