//! The hostile-document corpus (`tests/adversarial/`, see its README), natively: each
//! document is refused with its expected code, or verified and then held to the receipt and
//! policy properties. The same files run in the wasm build (`tests/js/adversarial.test.mjs`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::{Path, PathBuf};

use privlift::document::Matrix;
use privlift::rng::DeterministicRngForTesting;
use privlift::verify::within;
use privlift::{parse_any, AnyDocument, ContinuousPolicy, Document, Policy, VerifiedMechanism};
use serde_json::{json, Value};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adversarial");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/adversarial exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A K × K identity claiming `ldp_x = 0`, with P priors in a `bp_lip` claim (README).
fn generated(spec: &Value) -> String {
    let k = spec["identity"].as_u64().expect("generate.identity") as usize;
    let priors = spec["bp_lip_priors"].as_u64().unwrap_or(0) as usize;
    let mut rows = String::with_capacity(2 * k * k + 4 * k);
    rows.push('[');
    for x in 0..k {
        rows.push_str(if x == 0 { "[" } else { ",[" });
        for y in 0..k {
            rows.push_str(match (y == 0, x == y) {
                (true, true) => "1",
                (true, false) => "0",
                (false, true) => ",1",
                (false, false) => ",0",
            });
        }
        rows.push(']');
    }
    rows.push(']');
    let labels: Vec<String> = (0..k).map(|i| format!("v{i}")).collect();
    let mut claims = json!({"ldp_x": 0.0});
    if priors > 0 {
        // Priors tilted towards one value each: all distinct, all full-support.
        let ps: Vec<Vec<f64>> = (0..priors)
            .map(|j| {
                let mut p = vec![1.0 / (2 * k) as f64; k];
                p[j % k] += 0.5;
                p
            })
            .collect();
        claims = json!({"bp_lip": {"eps": 0.0, "priors": ps}});
    }
    let head = json!({"format": "privlift-mechanism", "version": 1, "id": format!("identity-{k}"),
        "labels": labels, "prior": vec![1.0 / k as f64; k], "claims": claims});
    let mut text = serde_json::to_string(&head).unwrap();
    text.pop();
    text.push_str(&format!(",\"mechanism\":{{\"kind\":\"matrix\",\"p_y_given_x\":{rows}}}}}"));
    text
}

fn document_text(case: &Value) -> String {
    if let Some(t) = case["document_text"].as_str() {
        t.to_string()
    } else if case["generate"].is_object() {
        generated(&case["generate"])
    } else {
        serde_json::to_string(&case["document"]).unwrap()
    }
}

fn policy_text(case: &Value) -> Option<String> {
    case.get("policy").map(|p| serde_json::to_string(p).unwrap())
}

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
            assert!(within(actual, b), "{name}: an X-limit {b} does not hold: audited {actual}");
        }
    }
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
    })();
    match (case["expect"].get("error").and_then(Value::as_str), outcome) {
        (Some(code), Err(e)) => assert_eq!(e.code(), code, "{name}: refused with {e}"),
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
