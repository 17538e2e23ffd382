//! A hostile curator against the client's check: the findings of the review that are not
//! documents alone (the corpus in `tests/adversarial/` holds those): curator-side inputs,
//! tolerances, error texts, and `privlift verify` as a client runs it.

mod common;

use common::cli::{run, TempDir};
use privlift::param::Budget;
use privlift::rng::DeterministicRngForTesting;
use privlift::verify::{within, within_delta, Policy, PolicyValue};
use privlift::Document;
use serde_json::{json, Value};

fn doc(v: Value) -> Document {
    Document::from_json(&v.to_string()).unwrap()
}

fn trivial_secret() -> Value {
    json!({"format": "privlift-mechanism", "version": 1, "id": "trivial", "labels": ["a", "b", "c"],
        "prior": [0.2, 0.3, 0.5], "secret": {"labels": ["all"], "p_sx": [[0.2, 0.3, 0.5]]},
        "mechanism": {"kind": "matrix", "p_y_given_x": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
        "claims": {"lip": 0, "ldp": 0, "alip": {"eps_l": 0, "eps_u": 0}}})
}

/// Finding 1: the user's limits read the X-audit; the S-limits are extra names; the
/// receipt shows every x's lift first.
#[test]
fn a_trivial_secret_defeats_no_user_limit() {
    let d = doc(trivial_secret());
    let zero = Some(Budget::new("limit", 0.0).unwrap());
    for p in [
        Policy { max_lip: zero, ..Policy::default() },
        Policy { max_ldp: zero, ..Policy::default() },
        Policy { max_eps_l: zero, ..Policy::default() },
        Policy { max_eps_u: zero, ..Policy::default() },
        Policy { max_ldp_x: zero, ..Policy::default() },
    ] {
        assert_eq!(d.verify(&p).unwrap_err().code(), "policy_violated", "{p:?}");
    }
    let s_only = Policy { max_lip_s: zero, max_ldp_s: zero, max_eps_l_s: zero, max_eps_u_s: zero, ..Policy::default() };
    let m = d.verify(&s_only).unwrap();
    assert!(m.leakage().lip < 1e-12, "nothing about the trivial secret leaks (up to rounding)");
    assert_eq!(m.leakage_x().lip, f64::INFINITY, "X is sent in the clear");
    let r = m.receipt(0).unwrap();
    let lifts: Vec<f64> = r.input.entries.iter().map(|e| e.lift).collect();
    assert!((lifts[0] - 5.0).abs() < 1e-12 && lifts[1..] == [0.0, 0.0], "y = a reveals x = a: lift 1/P(a) = 5");
    assert_eq!(r.secret.as_ref().unwrap().entries.len(), 1);
    assert!(r.input.max_lift_bound >= 5.0 && r.input.min_lift_bound == 0.0);
}

/// Finding 1: LIP_X ≥ LDP_X / 2 under any prior (the policy module's argument), on random
/// channels and priors, so a lying prior cannot hide a clear-text channel from maxLip.
#[test]
fn lip_x_is_at_least_half_ldp_x_under_every_prior() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
    for _ in 0..500 {
        let (nx, ny) = (rng.random_range(2..7), rng.random_range(2..7));
        let rows: Vec<Vec<f64>> = (0..nx)
            .map(|_| {
                let w: Vec<f64> = (0..ny).map(|_| rng.random::<f64>() + 1e-3).collect();
                let t: f64 = w.iter().sum();
                w.iter().map(|v| v / t).collect()
            })
            .collect();
        let mut p: Vec<f64> = (0..nx).map(|_| rng.random::<f64>().powi(8) + 1e-6).collect();
        let t: f64 = p.iter().sum();
        p.iter_mut().for_each(|v| *v /= t);
        let d = doc(json!({"format": "privlift-mechanism", "version": 1, "id": "r",
            "labels": (0..nx).map(|i| format!("x{i}")).collect::<Vec<_>>(), "prior": p,
            "mechanism": {"kind": "matrix", "p_y_given_x": rows}, "claims": {"ldp_x": 1e6}}));
        let v = d.check(&Policy::default()).unwrap();
        assert!(v.leakage_x.lip >= v.leakage_x.ldp_x / 2.0 * (1.0 - 1e-12), "{:?}", v.leakage_x);
    }
}

/// Finding 9: the curator-side perturbation refuses an (s, x) the joint calls impossible.
#[test]
fn perturb_with_secret_refuses_a_pair_of_joint_probability_zero() {
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "ps", "labels": ["a", "b"],
        "prior": [0.5, 0.5], "secret": {"labels": ["s0", "s1"], "p_sx": [[0.5, 0.0], [0.0, 0.5]]},
        "mechanism": {"kind": "per_secret", "p_y_given_sx": [[[0.75, 0.25], [1.0, 0.0]], [[0.5, 0.5], [0.25, 0.75]]]},
        "claims": {"ldp": 1.0986122886681098}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(2);
    assert!(m.perturb_with_secret(0, 0, &mut rng).is_ok());
    assert!(m.perturb_with_secret(1, 1, &mut rng).is_ok());
    // (s0, b) would use the unaudited row (1, 0), which no audit weighs; refused.
    let e = m.perturb_with_secret(0, 1, &mut rng).unwrap_err();
    assert_eq!(e.code(), "unknown_value");
    assert!(e.to_string().contains("probability 0"), "{e}");
    assert_eq!(m.perturb_with_secret(1, 0, &mut rng).unwrap_err().code(), "unknown_value");
}

/// Finding 5: the tolerance never overflows, and δ's tolerance is relative.
#[test]
fn tolerances_neither_overflow_nor_swallow_a_small_delta() {
    assert!(!within(f64::INFINITY, f64::MAX));
    assert!(!within(f64::NAN, 1.0));
    assert!(within(f64::MAX, f64::MAX));
    assert!(within(f64::INFINITY, f64::INFINITY), "an unset limit (+∞) admits anything");
    assert!(within(1e-12, 0.0), "a claim of 0 survives the audit's upward rounding");
    assert!(!within_delta(3e-13, 1e-300), "the absolute 1e-12 would have let this pass");
    assert!(within_delta(1e-300 * (1.0 + 1e-10), 1e-300));
    assert!(!within_delta(f64::NAN, 1.0));
}

/// Finding 7: no error contains the user's value, whatever the entry point.
#[test]
fn errors_never_contain_the_users_value() {
    let d = doc(common::krr_doc(3, 1.0));
    let m = d.verify(&Policy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
    for secret in ["my SSN 123-45-6789", "987654321", "zzz-private-zzz"] {
        let errors = [
            d.input_index(secret).unwrap_err(),
            m.perturb_label(secret, &mut rng).unwrap_err(),
            m.perturb(987_654_321, &mut rng).unwrap_err(),
            m.perturb_many(&[0, 987_654_321], &mut rng).unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.code(), "unknown_value");
            for needle in [secret, "123-45-6789", "987654321"] {
                assert!(!e.to_string().contains(needle), "{e}");
            }
        }
    }
    let lattice = privlift_design::continuous::Lattice::new(0.0, 100.0, 1.0).unwrap();
    let e = lattice.index_of(123456.789).unwrap_err();
    assert_eq!(e.code(), "unknown_value");
    assert!(!e.to_string().contains("123456"), "{e}");
}

/// Finding 6: duplicate keys are refused at every depth, top level, `mechanism`,
/// `utility`, and in whole texts read as a value (parse_any, policies).
#[test]
fn duplicate_keys_are_refused_everywhere() {
    let text = common::krr_doc(2, 1.0).to_string();
    for (from, to) in [
        ("\"kind\":\"matrix\"", "\"kind\":\"matrix\",\"kind\":\"matrix\""),
        ("\"claims\":{", "\"utility\":{\"nmi\":1,\"nmi\":2},\"claims\":{"),
        ("\"id\":", "\"id\":\"x\",\"id\":"),
    ] {
        assert!(text.contains(from), "{from}");
        let bad = text.replacen(from, to, 1);
        assert_eq!(Document::from_json(&bad).unwrap_err().code(), "json", "{bad}");
        assert_eq!(privlift::parse_any(&bad).unwrap_err().code(), "json", "{bad}");
    }
    assert_eq!(Policy::from_json(r#"{"maxLip": 1, "maxLip": 2}"#).unwrap_err().code(), "json");
}

/// One reader of policy objects, with the JS names: unknown keys, both spellings, types
/// and ranges are refused with the key named.
#[test]
fn policies_are_read_by_one_strict_reader() {
    let p = Policy::from_json(r#"{"maxLdpX": 1, "maxLipS": 0.5, "max_eps_u": 2, "maxVerifyWork": 1e9}"#).unwrap();
    assert_eq!(
        (p.max_ldp_x.map(Budget::get), p.max_lip_s.map(Budget::get), p.max_eps_u.map(Budget::get), p.max_verify_work),
        (Some(1.0), Some(0.5), Some(2.0), Some(1e9))
    );
    for (text, name) in [
        (r#"{"maxLDP": 1}"#, "maxLDP"),
        (r#"{"maxLip": 1, "max_lip": 1}"#, "maxLip"),
        (r#"{"maxLip": "1"}"#, "maxLip"),
        (r#"{"maxLip": -1}"#, "max_lip"),
        (r#"{"maxVerifyWork": 0}"#, "max_verify_work"),
    ] {
        let e = Policy::from_json(text).unwrap_err();
        assert_eq!(e.code(), "invalid_argument", "{text}");
        assert!(e.to_string().contains(name), "{text}: {e}");
    }
    let e = Policy::from_entries([("maxLip".to_string(), PolicyValue::Number(f64::NAN))]).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    // A limit is removed by leaving its key out, never by its value.
    let e = Policy::from_entries([("maxLip".to_string(), PolicyValue::Other("null"))]).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
}

/// Finding 10: `privlift audit` audits the sampler a client runs. An entry of 2⁻⁶³ is
/// 0 or 2⁻⁶⁴ in the alias table; the CLI's numbers are the client's, to the last bit.
#[test]
fn the_cli_audits_what_the_client_runs() {
    let tiny = (-63.0f64).exp2() * 1.4;
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "tiny", "labels": ["a", "b"],
        "prior": [0.5, 0.5], "mechanism": {"kind": "matrix", "p_y_given_x": [[1.0 - tiny, tiny], [0.5, 0.5]]},
        "claims": {"ldp_x": 100}});
    let m = doc(v.clone()).verify(&Policy::default()).unwrap();
    let t = TempDir::new("hostile");
    let out = run(&["audit", &t.write("tiny.json", &v.to_string())]).json();
    let l = m.leakage();
    for (k, want) in [("lip", l.lip), ("ldp_x", l.ldp_x), ("min_lift", l.min_lift), ("max_lift", l.max_lift)] {
        assert_eq!(out[k].as_f64(), Some(want), "{k}: CLI {} vs client {want}", out[k]);
    }
    assert_eq!(out["x"]["lip"].as_f64(), Some(m.leakage_x().lip));
}

/// `privlift verify`: one JSON object, exit 0 or 1, the same checks as the client.
#[test]
fn the_verify_command_prints_what_a_client_decides() {
    let t = TempDir::new("hostile");
    let d = t.write("triv.json", &trivial_secret().to_string());
    let ok = run(&["verify", &d]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let v: Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(v["verified"], true);
    assert_eq!(v["id"], "trivial");
    assert_eq!(v["checks"].as_array().unwrap().len(), 4, "lip, ldp, alip.eps_l, alip.eps_u");
    assert_eq!(v["receipt_bounds"]["min_lift"], 0.0);
    assert!(v["receipt_bounds"]["max_lift"].as_f64().unwrap() >= 5.0);
    assert!(ok.stdout.ends_with('\n') && ok.stdout.lines().count() == 1, "one JSON object on one line");

    let p = t.write("p.json", r#"{"maxLip": 1}"#);
    let refused = run(&["verify", &d, "--policy", &p]);
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.is_empty(), "{}", refused.stderr);
    let v: Value = serde_json::from_str(&refused.stdout).unwrap();
    assert_eq!(v["verified"], false);
    assert_eq!(v["error"]["code"], "policy_violated");
    assert!(v["error"]["message"].as_str().unwrap().contains("lip"), "{v}");

    let p = t.write("s.json", r#"{"maxLipS": 0, "maxLdpS": 0}"#);
    let v: Value = serde_json::from_str(&run(&["verify", &d, "--policy", &p]).stdout).unwrap();
    assert_eq!(v["verified"], true);
    let names: Vec<&str> = v["checks"].as_array().unwrap().iter().map(|c| c["notion"].as_str().unwrap()).collect();
    assert!(names.ends_with(&["max_ldp_s", "max_lip_s"]), "{names:?}");

    let bad = t.write("bad.json", "{\"format\": 1");
    let budget = t.write("tiny-budget.json", r#"{"maxVerifyWork": 1}"#);
    for (args, code) in [(vec!["verify", &bad], "json"), (vec!["verify", &d, "--policy", &budget], "too_costly")] {
        let out = run(&args);
        assert_eq!(out.code, 1);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["error"]["code"], code, "{}", out.stdout);
    }
    let missing = run(&["verify", "/nonexistent/doc.json"]);
    assert_eq!(missing.code, 1);
    assert_eq!(serde_json::from_str::<Value>(&missing.stdout).unwrap()["error"]["code"], "io");
    assert_eq!(run(&["verify"]).code, 2, "usage errors stay exit 2");
}

/// `privlift verify` on a continuous document reads the continuous policy shape.
#[test]
fn the_verify_command_reads_continuous_documents() {
    let t = TempDir::new("hostile");
    let g = include_str!("../../tests/adversarial/gaussian-honest-within-budget.json");
    let case: Value = serde_json::from_str(g).unwrap();
    let d = t.write("g.json", &case["document"].to_string());
    let v: Value = serde_json::from_str(&run(&["verify", &d]).stdout).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["receipt_bounds"]["max_lift"], "inf", "Gaussian noise has no pure bound");
    let p = t.write("p.json", r#"{"lip": {"eps": 1, "delta": 1e-9}}"#);
    let v: Value = serde_json::from_str(&run(&["verify", &d, "--policy", &p]).stdout).unwrap();
    assert_eq!(v["error"]["code"], "policy_violated", "{v}");
    let p = t.write("q.json", r#"{"maxLip": 1}"#);
    let v: Value = serde_json::from_str(&run(&["verify", &d, "--policy", &p]).stdout).unwrap();
    // The same code as the wasm build gives for the same policy object.
    assert_eq!(v["error"]["code"], "invalid_argument", "a discrete limit on a continuous document: {v}");
}

/// The prior is declared, not proved: `lip_x_under_any_prior` holds under every prior
/// (checked against the exact LIP_X under random priors) and never exceeds LDP_X.
#[test]
fn lip_under_any_prior_bounds_the_lip_of_every_prior() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    for _ in 0..200 {
        let k = rng.random_range(2..6);
        let rows: Vec<Vec<f64>> = (0..k)
            .map(|_| {
                let w: Vec<f64> = (0..k).map(|_| rng.random::<f64>() + 0.05).collect();
                let t: f64 = w.iter().sum();
                w.iter().map(|v| v / t).collect()
            })
            .collect();
        let random_prior = |rng: &mut rand_chacha::ChaCha8Rng| {
            let mut p: Vec<f64> = (0..k).map(|_| rng.random::<f64>().powi(4) + 1e-4).collect();
            let t: f64 = p.iter().sum();
            p.iter_mut().for_each(|v| *v /= t);
            p
        };
        let mk = |p: Vec<f64>| {
            doc(json!({"format": "privlift-mechanism", "version": 1, "id": "t",
                "labels": (0..k).map(|i| format!("x{i}")).collect::<Vec<_>>(), "prior": p,
                "mechanism": {"kind": "matrix", "p_y_given_x": rows}, "claims": {"ldp_x": 1e6}}))
        };
        let m = mk(random_prior(&mut rng)).verify(&Policy::default()).unwrap();
        let any = m.lip_x_under_any_prior();
        assert!(any <= m.leakage_x().ldp_x);
        for _ in 0..20 {
            let other = mk(random_prior(&mut rng)).check(&Policy::default()).unwrap();
            assert!(other.leakage_x.lip <= any * (1.0 + 1e-9) + 1e-12, "{} > {any}", other.leakage_x.lip);
        }
    }
}

/// Found by the property test: unary encoding with q01 = q10 = 0.9 (r = a(1)/a(0) = 1/81)
/// computed 1 + (r − 1) with catastrophic cancellation, and a receipt lift fell 4e-16
/// below its stated bound. The lifts are now ratios of sums of non-negative terms.
#[test]
fn unary_lifts_do_not_cancel_when_a_bit_flips_often() {
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "prop", "labels": ["x0", "x1"],
        "prior": [0.6666666666666665, 0.3333333333333333],
        "secret": {"labels": ["s0", "s1", "s2"], "p_sx": [[0.047619047619047616, 0.19047619047619047],
            [0.47619047619047616, 0.14285714285714285], [0.14285714285714285, 0.0]]},
        "mechanism": {"kind": "unary", "q01": 0.9, "q10": 0.9},
        "claims": {"ldp": 4.174387269895642, "ldp_x": 4.394449154672442, "lip": 3.320228319128493}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    for y in 0..4usize {
        let r = m.receipt_bits(&[y & 1 == 1, y & 2 == 2]).unwrap();
        assert!(common::lifts_within_bounds(&r), "{r:?}");
    }
}
