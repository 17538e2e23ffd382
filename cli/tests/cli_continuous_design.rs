//! `privlift design` for the continuous lattice methods, and `privlift audit` /
//! `privlift receipt` on continuous documents.
//! Run with `cargo test -p privlift-cli --test cli_continuous_design`.

use privlift::document::ContinuousDocument;
use privlift::mechanism::ContinuousPolicy;
use serde_json::Value;

mod common;
use common::cli::{run, TempDir};

const GMM: &str = r#"{"gmm": {"weights": [0.3, 0.7], "means": [-2, 1.5], "sds": [0.5, 1]}}"#;

#[test]
fn every_method_prints_a_document_that_audits_within_its_claims() {
    let t = TempDir::new("cli-cdesign");
    let prior = t.write("prior.json", GMM);
    for (method, delta) in [
        ("gaussian-lip", Some("1e-5")),
        ("gaussian-lip-instance", Some("1e-4")),
        ("analytic-gaussian", Some("1e-5")),
        ("laplace-lip", None),
        ("laplace-ldp", None),
        ("sampling", Some("0.01")),
    ] {
        let mut args =
            vec!["design", method, "--prior", &prior, "--epsilon", "1", "--domain", "-5,5", "--step", "0.05"];
        if let Some(d) = delta {
            args.extend(["--delta", d]);
        }
        let out = run(&args);
        let v = out.json();
        assert_eq!(v["domain"]["step"], 0.05);
        let doc = ContinuousDocument::from_json(&out.stdout).unwrap();
        doc.verify(&ContinuousPolicy::default()).unwrap_or_else(|e| panic!("{method}: {e}"));
        let path = t.write(&format!("{method}.json"), &out.stdout);
        let a = run(&["audit", &path]).json();
        assert_eq!(a["claims_hold"], true, "{method}: {a}");
        assert_eq!(a["points"], 201);
        let claim = &v["claims"];
        let notion = if claim.get("lip").is_some() { "lip" } else { "ldp" };
        assert_eq!(a[notion]["eps"], 1.0);
        if let Some(d) = delta {
            let d: f64 = d.parse().unwrap();
            assert!(a[notion]["delta"].as_f64().unwrap() <= d, "{method}: {a}");
        }
        if method.starts_with("gaussian") || method == "analytic-gaussian" {
            assert_eq!(a["lip_pure_eps"], "inf");
        }
        // Receipt at a released value, at the user's own x.
        let r = run(&["receipt", &path, "--output", "0.5", "--x", "1.2"]).json();
        assert_eq!(r["output"], 0.5);
        let ur = r["user_ratio"].as_f64().unwrap();
        assert!(ur >= r["min_ratio"].as_f64().unwrap() && ur <= r["max_ratio"].as_f64().unwrap());
        assert_eq!(r["xs"].as_array().unwrap().len(), 201);
    }
}

#[test]
fn default_step_samples_and_a_lying_document() {
    let t = TempDir::new("cli-cdesign");
    // --samples: a GMM is fitted; default step (U − L)/1000.
    let samples: String = (0..400)
        .map(|i| {
            let u = (i as f64 + 0.5) / 400.0;
            let z = (u - 0.5) * 4.0; // a spread of values in [-2, 2]
            format!("{}\n", if i % 2 == 0 { 10.0 + z } else { 20.0 + 2.0 * z })
        })
        .collect();
    let s = t.write("s.csv", &format!("value\n{samples}"));
    let v = run(&["design", "laplace-lip", "--samples", &s, "--epsilon", "2", "--domain", "0,30"]).json();
    assert!(v["prior"]["gmm"].is_object(), "{v}");
    assert_eq!(v["domain"]["step"], 0.03);
    assert_eq!(v["utility"]["points"], 1001);

    // Shrinking the claim makes `audit` report it and `receipt` refuse it.
    let mut lie = v.clone();
    lie["claims"]["lip"]["eps"] = Value::from(1.0);
    let p = t.write("lie.json", &lie.to_string());
    let a = run(&["audit", &p]).json();
    assert_eq!(a["claims_hold"], false);
    run(&["receipt", &p, "--output", "15"]).fails("claim_violated", 1);
}

/// The Gaussian methods' default step gives a document a client verifies at its default
/// budget; 1001 points do not fit, and are refused unless the clients' budget is raised.
#[test]
fn gaussian_designs_fit_their_clients_default_budget() {
    let t = TempDir::new("cli-cdesign");
    let prior = t.write("prior-budget.json", GMM);
    let base = ["design", "gaussian-lip", "--prior", &prior, "--epsilon", "1", "--delta", "1e-5", "--domain", "-5,5"];
    let out = run(&base);
    let doc = ContinuousDocument::from_json(&out.stdout).unwrap();
    assert_eq!(out.json()["utility"]["points"], 401);
    doc.verify(&ContinuousPolicy::default()).unwrap();
    let mut fine = base.to_vec();
    fine.extend(["--step", "0.01"]);
    let refused = run(&fine);
    refused.fails("too_costly", 1);
    assert!(refused.stderr.contains("coarser step"), "{}", refused.stderr);
    fine.extend(["--max-verify-work", "inf"]);
    let raised = ContinuousDocument::from_json(&run(&fine).stdout).unwrap();
    let policy = ContinuousPolicy { max_verify_work: Some(f64::INFINITY), ..ContinuousPolicy::default() };
    raised.verify(&policy).unwrap();
    raised.verify(&ContinuousPolicy::default()).unwrap_err();
}

#[test]
fn malformed_calls_fail_with_named_codes() {
    let t = TempDir::new("cli-cdesign");
    let prior = t.write("prior2.json", GMM);
    let base = ["design", "gaussian-lip", "--prior", &prior, "--epsilon", "1", "--delta", "1e-5"];
    run(&base).fails("invalid_argument", 2); // no --domain
    let mut a = base.to_vec();
    a.extend(["--domain", "5"]);
    run(&a).fails("invalid_argument", 2);
    let mut a = base.to_vec();
    a.extend(["--domain", "5,-5"]);
    run(&a).fails("invalid_argument", 1);
    let mut a = base.to_vec();
    a.extend(["--domain", "0,1", "--step", "1e-5"]);
    run(&a).fails("too_many_symbols", 1);
    run(&["design", "laplace-ldp", "--prior", &prior, "--epsilon", "1", "--delta", "0.1", "--domain", "0,1"])
        .fails("invalid_argument", 2);
    run(&["design", "sampling", "--prior", &prior, "--epsilon", "1", "--domain", "0,1"]).fails("invalid_argument", 2);
    let bad = t.write("bad.json", r#"{"gaussian": {"mean": 0, "sd": -1}}"#);
    run(&["design", "sampling", "--prior", &bad, "--epsilon", "1", "--delta", "0.1", "--domain", "0,1"])
        .fails("invalid_argument", 1);
    let doc = t.write(
        "doc.json",
        r#"{"format": "privlift-mechanism", "version": 1, "id": "g",
            "domain": {"lo": 0, "hi": 1, "step": 0.1}, "prior": {"gaussian": {"mean": 0.5, "sd": 0.2}},
            "mechanism": {"kind": "gaussian", "sigma": 1.0}, "claims": {"lip": {"eps": 1, "delta": 0.5}}}"#,
    );
    run(&["receipt", &doc, "--output", "0.05"]).fails("unknown_output", 1);
    run(&["receipt", &doc, "--output", "0.5", "--x", "2"]).fails("unknown_value", 1);
    run(&["receipt", &doc, "--output", "abc"]).fails("invalid_argument", 2);
    let broken = t.write(
        "broken.json",
        r#"{"format": "privlift-mechanism", "version": 1, "id": "g",
            "domain": {"lo": 1, "hi": 0, "step": 0.1}, "prior": {"gaussian": {"mean": 0.5, "sd": 0.2}},
            "mechanism": {"kind": "laplace", "b": 1.0}}"#,
    );
    run(&["audit", &broken]).fails("invalid_argument", 1);
}
