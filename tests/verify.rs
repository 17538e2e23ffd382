//! Verification: claims, policy, the prior-free LDP cap, receipts, and the guarantee
//! that the sampler which runs is the one that was audited.

mod common;

use privlift::param::Budget;
use privlift::rng::DeterministicRngForTesting;
use privlift::verify::within;
use privlift::{Document, Policy, PolicyValue};
use serde_json::json;

fn doc(v: serde_json::Value) -> Document {
    Document::from_json(&v.to_string()).unwrap()
}

#[test]
fn honest_krr_verifies_and_its_leakage_is_eps() {
    for k in [2usize, 5, 21, 256] {
        for eps in [0.1, 1.0, 3.0] {
            let d = doc(common::krr_doc(k, eps));
            let m = d.verify(&Policy::default()).unwrap();
            let l = m.leakage();
            assert!(within(l.ldp_x, eps) && l.ldp_x >= eps * (1.0 - 1e-12), "k={k} {}", l.ldp_x);
            assert!(l.lip <= l.ldp_x);
        }
    }
}

#[test]
fn lying_document_is_refused_with_claim_violated() {
    let mut v = common::krr_doc(4, 1.0);
    v["claims"] = json!({"ldp_x": 0.9});
    let e = doc(v.clone()).verify(&Policy::default()).unwrap_err();
    assert_eq!(e.code(), "claim_violated");
    assert!(e.to_string().contains("ldp_x"));
    // The non-throwing check reports the same.
    let report = doc(v).check(&Policy::default()).unwrap();
    assert!(!report.claims_hold);
    // Lying about ALIP only on one side is caught too.
    let mut v = common::krr_doc(4, 1.0);
    v["claims"] = json!({"alip": {"eps_l": 5.0, "eps_u": 0.1}});
    assert_eq!(doc(v).verify(&Policy::default()).unwrap_err().code(), "claim_violated");
}

#[test]
fn a_document_without_claims_is_not_usable() {
    let mut v = common::krr_doc(3, 1.0);
    v["claims"] = json!({});
    assert_eq!(doc(v).verify(&Policy::default()).unwrap_err().code(), "no_claims");
}

#[test]
fn policy_limits_are_enforced() {
    let d = doc(common::krr_doc(3, 2.0));
    let strict = Policy { max_ldp_x: Some(nats(1.0)), ..Policy::default() };
    let e = d.verify(&strict).unwrap_err();
    assert_eq!(e.code(), "policy_violated");
    assert!(e.to_string().contains("ldp_x"), "{e}");
    let lenient = Policy { max_ldp_x: Some(nats(2.0)), max_lip: Some(nats(2.0)), ..Policy::default() };
    assert!(d.verify(&lenient).is_ok());
    // A limit is a `Budget`: a negative or NaN one is refused where a policy is read.
    for bad in [-1.0, f64::NAN] {
        let e = Policy::from_entries([("maxLip".to_string(), PolicyValue::Number(bad))]).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
    }
}

/// A limit of `v` nats.
fn nats(v: f64) -> Budget {
    Budget::new("limit", v).unwrap()
}

/// A curator can make the LIP claim true by lying about the prior (here: claiming the
/// rare value is common). LIP under the declared prior then looks fine, but the
/// prior-free LDP cap still refuses the mechanism.
#[test]
fn prior_free_ldp_cap_defeats_a_lie_about_the_prior() {
    // Channel that exposes x = 2 almost surely (it maps to output 2 w.p. 0.9; the others
    // rarely do), a real LDP of ln(0.9/0.01) ≈ 4.5.
    let w = vec![vec![0.98, 0.01, 0.01], vec![0.01, 0.98, 0.01], vec![0.05, 0.05, 0.9]];
    let mk = |prior: Vec<f64>, lip: f64| {
        json!({"format": "privlift-mechanism", "version": 1, "id": "sneaky",
               "labels": ["a","b","c"], "prior": prior,
               "mechanism": {"kind": "matrix", "p_y_given_x": w},
               "claims": {"lip": lip}})
    };
    // Under the (false) prior the LIP audit is what it is; make the claim exactly that.
    let lying_prior = vec![0.05, 0.05, 0.9];
    let audited = doc(mk(lying_prior.clone(), 100.0)).audit(2.0).unwrap().lip;
    let d = doc(mk(lying_prior, audited));
    assert!(d.verify(&Policy { max_lip: Some(nats(audited)), ..Policy::default() }).is_ok());
    let cap = Policy { max_lip: Some(nats(audited)), max_ldp_x: Some(nats(2.0)), ..Policy::default() };
    let e = d.verify(&cap).unwrap_err();
    assert_eq!(e.code(), "policy_violated");
    assert!(e.to_string().contains("ldp_x"));
}

#[test]
fn receipt_lifts_are_posterior_over_prior_and_within_bounds() {
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "grades-by-pass",
        "labels": ["A","B","C","D"], "prior": [0.1, 0.4, 0.3, 0.2],
        "secret": {"labels": ["pass","fail"], "p_sx": [[0.1, 0.4, 0.2, 0.0], [0.0, 0.0, 0.1, 0.2]]},
        "mechanism": {"kind": "matrix", "p_y_given_x": common::krr_matrix(4, 1.2)},
        "claims": {"ldp_x": 1.2, "alip": {"eps_l": 1.0, "eps_u": 0.8}}});
    let d = doc(v);
    let m = d.verify(&Policy::default()).unwrap();
    let w = m.effective_channel().unwrap();
    for y in 0..4 {
        let r = m.receipt(y).unwrap();
        assert_eq!(r.output_index, Some(y));
        // The user's own values first (all four), then the secret's section.
        assert_eq!(r.input.entries.len(), 4);
        let sec = r.secret.as_ref().expect("a document with a secret has an S section");
        assert_eq!(sec.entries.len(), 2);
        // Bounds are the audit's, never the claims': within the claims here.
        assert_eq!((sec.min_lift_bound, sec.max_lift_bound), (m.leakage().min_lift, m.leakage().max_lift));
        assert_eq!((r.input.min_lift_bound, r.input.max_lift_bound), (m.leakage_x().min_lift, m.leakage_x().max_lift));
        assert!(sec.max_lift_bound <= 0.8f64.exp() * (1.0 + 1e-8));
        assert!(sec.min_lift_bound >= (-1.0f64).exp() * (1.0 - 1e-8));
        let py: f64 = (0..4).map(|x| d.prior()[x] * w.get(x, y)).sum();
        for e in &sec.entries {
            let joint = d.p_sx();
            let pxs = joint.row(e.index);
            let psy: f64 = (0..4).map(|x| pxs[x] * w.get(x, y)).sum();
            assert!((e.posterior - psy / py).abs() < 1e-14);
            assert!((e.lift - e.posterior / e.prior).abs() < 1e-12);
        }
        for e in &r.input.entries {
            assert!((e.lift - w.get(e.index, y) / py).abs() < 1e-12, "lift of x = P(y|x)/P(y)");
        }
        assert!(common::lifts_within_bounds(&r), "{r:?}");
        let total: f64 = sec.entries.iter().map(|e| e.posterior).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
    let mut rng = DeterministicRngForTesting::seed_from_u64(3);
    let y = m.perturb_label("C", &mut rng).unwrap();
    let by_label = m.receipt_label(&y.to_string()).unwrap();
    assert_eq!(by_label, m.receipt(y).unwrap());
}

#[test]
fn the_audited_sampler_is_within_the_stated_deviation_of_the_document() {
    let d = doc(common::krr_doc(256, 1.0));
    let m = d.verify(&Policy::default()).unwrap();
    let privlift::document::MechanismKind::Matrix(declared) = d.mechanism() else { unreachable!() };
    let eff = m.effective_channel().unwrap();
    let k = 256.0;
    for (p, q) in declared.as_slice().iter().zip(eff.as_slice()) {
        // |W/2^64 − p| ≤ 2^-52 p + 2^-64 + (k+1)·2^-52 (largest entry) + row-sum error.
        assert!((p - q).abs() <= (k + 2.0) * f64::EPSILON + 1e-15, "{p} vs {q}");
    }
    // The verified leakage (of the sampler) and the declared audit agree to 1e-12.
    let a = d.audit(2.0).unwrap();
    assert!((a.ldp_x - m.leakage().ldp_x).abs() < 1e-12);
    assert!((a.lip - m.leakage().lip).abs() < 1e-12);
}

#[test]
fn seeded_perturbation_is_reproducible_and_seed_dependent() {
    let m = doc(common::krr_doc(21, 1.0)).verify(&Policy::default()).unwrap();
    let xs: Vec<u32> = (0..1000).map(|i| i % 21).collect();
    let a = m.perturb_many(&xs, &mut DeterministicRngForTesting::seed_from_u64(5)).unwrap();
    let b = m.perturb_many(&xs, &mut DeterministicRngForTesting::seed_from_u64(5)).unwrap();
    let c = m.perturb_many(&xs, &mut DeterministicRngForTesting::seed_from_u64(6)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// Regressions found by the fuzzer (fuzz/): receipt bounds must hold for every verified
/// document, including ones whose claims sit exactly at the tolerance, non-Markov
/// per-secret mechanisms claiming `ldp_x`, and degenerate unary encodings.
#[test]
fn receipt_bounds_hold_at_the_tolerance_edge_and_for_per_secret_and_degenerate_unary() {
    // A claim just below the audited leakage but within the verifier's tolerance.
    let eps = 3.0;
    let e = f64::exp(eps);
    let w = vec![vec![e / (e + 1.0), 1.0 / (e + 1.0)], vec![1.0 / (e + 1.0), e / (e + 1.0)]];
    // Binary RR under a uniform prior: max lift 2e/(e+1), min lift 2/(e+1), exactly.
    let eps_u = (2.0 * e / (e + 1.0)).ln();
    let eps_l = ((e + 1.0) / 2.0).ln();
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "edge", "labels": ["a", "b"],
        "prior": [0.5, 0.5], "mechanism": {"kind": "matrix", "p_y_given_x": w},
        "claims": {"alip": {"eps_l": eps_l * (1.0 + 1e-12), "eps_u": eps_u * (1.0 - 5e-10)}}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    let r0 = m.receipt(0).unwrap();
    assert!(
        r0.input.entries.iter().any(|x| x.lift > (eps_u * (1.0 - 5e-10)).exp()),
        "the claim is below the true max lift"
    );
    for y in 0..2 {
        let r = m.receipt(y).unwrap();
        assert!(common::lifts_within_bounds(&r), "{r:?}");
    }
    // A non-Markov mechanism whose channel to X is private but which reveals S: ldp_x must
    // not be used to bound the lift of S.
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "ps", "labels": ["a", "b"],
        "prior": [0.5, 0.5],
        "secret": {"labels": ["s0", "s1"], "p_sx": [[0.25, 0.25], [0.25, 0.25]]},
        "mechanism": {"kind": "per_secret", "p_y_given_sx": [[[0.9, 0.1], [0.9, 0.1]], [[0.1, 0.9], [0.1, 0.9]]]},
        "claims": {"ldp_x": 0.01, "ldp": 2.2}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    let r = m.receipt(0).unwrap();
    assert!(common::lifts_within_bounds(&r), "{r:?}");
    assert!(r.secret.as_ref().unwrap().max_lift_bound > 1.5, "the S bound comes from the S audit, not ldp_x");
    // Unary encoding with q01 = 0: impossible bit vectors are refused, possible ones have
    // finite lifts within the bounds.
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "u", "labels": ["a"],
        "prior": [1.0], "mechanism": {"kind": "unary", "q01": 0.0, "q10": 0.3}, "claims": {"lip": 0.0}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    for bits in [[true], [false]] {
        let r = m.receipt_bits(&bits).unwrap();
        assert!(r.input.entries.iter().all(|x| x.lift.is_finite()) && common::lifts_within_bounds(&r));
    }
}

/// Fuzzer finding F7: an input the prior calls impossible is refused, not perturbed (its
/// output could identify it exactly and has no receipt).
#[test]
fn inputs_with_prior_zero_are_refused() {
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "z", "labels": ["a", "b", "c"],
        "prior": [1.0, 0.0, 0.0], "mechanism": {"kind": "matrix", "p_y_given_x": [[1.0, 0.0], [1.0, 0.0], [0.5, 0.5]]},
        "claims": {"lip": 0.0}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
    assert!(m.perturb(0, &mut rng).is_ok());
    let e = m.perturb(2, &mut rng).unwrap_err();
    assert_eq!(e.code(), "unknown_value");
    assert!(e.to_string().contains("probability 0"), "{e}");
    assert!(!e.to_string().contains("\"c\""), "the error names the user's value: {e}");
    assert_eq!(m.perturb_many(&[0, 0, 2], &mut rng).unwrap_err().code(), "unknown_value");
}

/// Fuzzer finding F2 (`fuzz/regressions/document/unary-receipt-unnormalized-prior.json`):
/// a unary receipt uses the same joint as the audit, including a prior that sums to
/// 1 ± `SUM_TOLERANCE`, so its lifts stay within the claimed bounds.
#[test]
fn unary_receipts_allow_for_the_prior_sum_slack() {
    let json = include_str!("../fuzz/regressions/document/unary-receipt-unnormalized-prior.json");
    let m = Document::from_json(json).unwrap().verify(&Policy::default()).unwrap();
    for bits in [[true], [false]] {
        let r = m.receipt_bits(&bits).unwrap();
        assert!(common::lifts_within_bounds(&r), "{r:?}");
    }
    // |X| = 3, both signs of the slack, every bit vector.
    for scale in [1.0 - 9.9e-10, 1.0 + 9.9e-10] {
        let v = json!({"format": "privlift-mechanism", "version": 1, "id": "u3", "labels": ["a", "b", "c"],
            "prior": [0.2 * scale, 0.3 * scale, 0.5 * scale],
            "mechanism": {"kind": "unary", "q01": 0.5411764705882353, "q10": 0.9411764705882353}, "claims": {}});
        let d = doc(v.clone());
        let audited = d.audit(2.0).unwrap().alip;
        let mut v = v;
        v["claims"] = json!({"alip": {"eps_l": audited.eps_l, "eps_u": audited.eps_u}});
        let m = doc(v).verify(&Policy::default()).unwrap();
        for y in 0..8usize {
            let bits = [y & 1 == 1, y & 2 == 2, y & 4 == 4];
            let r = m.receipt_bits(&bits).unwrap();
            assert!(common::lifts_within_bounds(&r), "scale {scale} {bits:?}: {r:?}");
        }
    }
}

/// Fuzzer finding F8 (`fuzz/regressions/document/subnormal-joint-receipt-lift.json`):
/// a joint entry of 6.7e-303 made P(s,y) subnormal, where the relative rounding bound
/// fails (receipt lift 0.998 against an audited 1 ± 2e-15). Such entries are refused.
#[test]
fn subnormal_probabilities_are_refused() {
    let json = include_str!("../fuzz/regressions/document/subnormal-joint-receipt-lift.json");
    let e = Document::from_json(json).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("2^-900"), "{e}");
    // 2⁻⁹⁰⁰ itself is accepted, and its receipts are exact: |X| = 1, so every lift is 1.
    let tiny = privlift::document::MIN_PROBABILITY;
    let v = json!({"format": "privlift-mechanism", "version": 1, "id": "t", "labels": ["x0"],
        "prior": [1.0], "secret": {"labels": ["s0", "s1", "s2"], "p_sx": [[tiny], [0.5], [0.5]]},
        "mechanism": {"kind": "matrix", "p_y_given_x": [[0.5, 1e-30, 0.5]]}, "claims": {"ldp_x": 1e-12}});
    let m = doc(v).verify(&Policy::default()).unwrap();
    for y in 0..3 {
        let r = m.receipt(y).unwrap();
        assert!(r.all_entries().all(|x| (x.lift - 1.0).abs() < 1e-14), "{r:?}");
    }
}

/// A document with a declared secret whose claims read nothing of the audit w.r.t. S: a
/// random full-support joint P_SX and the mechanism `mechanism`, claim `ldp_x` only.
fn secret_doc(seed: u64, k: usize, ns: usize, mechanism: serde_json::Value) -> Document {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
    let mut p: Vec<Vec<f64>> = (0..ns).map(|_| (0..k).map(|_| rng.random::<f64>() + 0.01).collect()).collect();
    let total: f64 = p.iter().flatten().sum();
    p.iter_mut().flatten().for_each(|v| *v /= total);
    let mut prior = vec![0.0; k];
    for row in &p {
        for (a, v) in prior.iter_mut().zip(row) {
            *a += v;
        }
    }
    doc(json!({
        "format": "privlift-mechanism", "version": 1, "id": format!("secret-{seed}"),
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": prior,
        "secret": {"labels": (0..ns).map(|i| format!("s{i}")).collect::<Vec<_>>(), "p_sx": p},
        "mechanism": mechanism,
        "claims": {"ldp_x": 50.0}
    }))
}

/// When no claim and no limit reads the audit w.r.t. S, `verify` leaves it to first use
/// (the joint P_SY is a third of a dense verification). What is read afterwards — the
/// leakage w.r.t. S, the report, every receipt — is the eager verification's, bit for bit:
/// a policy with a limit on S (at ∞, so it holds) makes `verify` compute it at once.
#[test]
fn a_deferred_audit_wrt_the_secret_is_the_eager_one_bit_for_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(41);
    let eager = Policy { max_lip_s: Some(Budget::INFINITE), ..Policy::default() };
    let mut docs = Vec::new();
    for seed in 0..12u64 {
        let (k, ns) = (rng.random_range(2..9), rng.random_range(1..6));
        let rows: Vec<Vec<f64>> = (0..k)
            .map(|_| {
                let r: Vec<f64> = (0..k).map(|_| rng.random::<f64>() + 0.05).collect();
                let t: f64 = r.iter().sum();
                r.into_iter().map(|v| v / t).collect()
            })
            .collect();
        let mechanism = match seed % 3 {
            0 => json!({"kind": "matrix", "p_y_given_x": rows}),
            1 => json!({"kind": "krr", "epsilon": rng.random_range(0.1..3.0)}),
            _ => {
                json!({"kind": "sparse", "outputs": k, "rows": rows.iter().map(|r| r.iter().enumerate().map(|(y, &p)| json!([y, p])).collect::<Vec<_>>()).collect::<Vec<_>>()})
            }
        };
        docs.push(secret_doc(seed, k, ns, mechanism));
    }
    let bits = |v: &dyn core::fmt::Debug| format!("{v:?}");
    for d in &docs {
        let (lazy, now) = (d.verify(&Policy::default()).unwrap(), d.verify(&eager).unwrap());
        assert_eq!(bits(lazy.leakage_x()), bits(now.leakage_x()));
        assert_eq!(bits(lazy.leakage()), bits(now.leakage()), "{}", d.id());
        assert_eq!(bits(&lazy.verification().claims), bits(&now.verification().claims));
        assert_eq!(bits(lazy.leakage()), bits(&d.check(&Policy::default()).unwrap().leakage));
        for y in 0..d.output().len() {
            assert_eq!(bits(&lazy.receipt(y).unwrap()), bits(&now.receipt(y).unwrap()), "{} y = {y}", d.id());
        }
    }
}
