//! Side-channel resistant LIP (Lopuhaä-Zwakenberg, privacy funnel, Def 3, Thm 3,
//! eqs 13–16): the exact audit against a brute-force evaluation of eq 12, the
//! per-attribute product protocol on random 3-attribute instances, the counterexamples to
//! Thm 3, the design, its input errors and the CLI.
//! Run with `cargo test -p privlift-cli --test srlip`.
#![allow(clippy::needless_range_loop)] // index loops mirror the maths

use privlift::document::{Alphabet, Matrix};
use privlift::leakage::audit_srlip;
use privlift::param::Epsilon;
use privlift::{Document, Policy};
use privlift_design::orr;
use privlift_design::request::JointFile;
use privlift_design::srlip::{
    attribute_channel, hypothesis_leakage, load_multi_joint, product, side_channel_ldp, srlip, MultiJoint,
};
use rand::{Rng, SeedableRng};

mod common;
use common::cli::TempDir;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

fn multi(ns: usize, sizes: &[usize], p: Vec<f64>) -> MultiJoint {
    let t: f64 = p.iter().sum();
    let nx: usize = sizes.iter().product();
    let attrs = sizes.iter().enumerate().map(|(j, &a)| Alphabet::indices(&format!("a{j}"), a).unwrap()).collect();
    let m = Matrix::from_flat(ns, nx, p.iter().map(|v| v / t).collect());
    MultiJoint::new(Alphabet::indices("s", ns).unwrap(), attrs, m).unwrap()
}

/// A joint with i.i.d. uniform entries, normalised (the papers' random instances).
fn random_multi(rng: &mut ChaCha8Rng, ns: usize, sizes: &[usize]) -> MultiJoint {
    let nx: usize = sizes.iter().product();
    multi(ns, sizes, (0..ns * nx).map(|_| rng.random::<f64>()).collect())
}

fn channel(rows: &[&[f64]]) -> Matrix {
    Matrix::from_flat(rows.len(), rows[0].len(), rows.iter().flat_map(|r| r.iter().copied()).collect())
}

/// Eq 12 by brute force, independently of the library's grouping: for every J (bit mask),
/// x^J, s and y, P(y|s,x^J) / P(y|x^J) from sums over the full tuples. Returns the worst
/// |ln ratio| of each J (∞ for a possible output impossible for one secret).
fn brute_force(joint: &MultiJoint, w: &Matrix) -> Vec<f64> {
    let sizes = joint.sizes();
    let (m, ns, nx, ny) = (sizes.len(), joint.p_sx().rows(), joint.p_sx().cols(), w.cols());
    let digits = |mut x: usize| {
        let mut d = vec![0; m];
        for j in (0..m).rev() {
            d[j] = x % sizes[j];
            x /= sizes[j];
        }
        d
    };
    let mut out = vec![0.0f64; 1 << m];
    for mask in 0..(1usize << m) {
        for x0 in 0..nx {
            // x^J = the J-digits of x0 (each x^J is visited several times; harmless).
            let d0 = digits(x0);
            let agrees = |x: usize| {
                let d = digits(x);
                (0..m).all(|j| mask & (1 << j) == 0 || d[j] == d0[j])
            };
            let cols: Vec<usize> = (0..nx).filter(|&x| agrees(x)).collect();
            let p_j: f64 = cols.iter().map(|&x| (0..ns).map(|s| joint.p_sx().get(s, x)).sum::<f64>()).sum();
            if p_j == 0.0 {
                continue;
            }
            for y in 0..ny {
                let p_y: f64 = cols.iter().map(|&x| joint.p_sx().col_sums()[x] * w.get(x, y)).sum::<f64>() / p_j;
                if p_y == 0.0 {
                    continue;
                }
                for s in 0..ns {
                    let p_s: f64 = cols.iter().map(|&x| joint.p_sx().get(s, x)).sum();
                    if p_s == 0.0 {
                        continue;
                    }
                    let p_ys: f64 = cols.iter().map(|&x| joint.p_sx().get(s, x) * w.get(x, y)).sum::<f64>() / p_s;
                    out[mask] = out[mask].max((p_ys / p_y).ln().abs());
                }
            }
        }
    }
    out
}

fn assert_close_upper(audited: f64, exact: f64, what: &str) {
    if exact.is_infinite() {
        assert_eq!(audited, f64::INFINITY, "{what}");
        return;
    }
    assert!(audited >= exact - 1e-12 && audited - exact <= 1e-9, "{what}: audited {audited}, brute force {exact}");
}

// ---------- The audit ----------

/// The library's SRLIP audit agrees with eq 12 evaluated by brute force, for every J, on
/// random joints and random channels (some with zeros, which make a ratio infinite).
#[test]
fn audit_matches_brute_force_for_every_subset() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for case in 0..12 {
        let sizes: &[usize] = [&[2, 3, 2][..], &[3, 2], &[2, 2, 2], &[2, 2, 3]][case % 4];
        let joint = random_multi(&mut rng, 2 + case % 2, sizes);
        let nx = joint.p_sx().cols();
        let ny = 2 + case % 3;
        let mut w: Vec<f64> = (0..nx * ny)
            .map(|_| if case % 5 == 4 && rng.random::<f64>() < 0.1 { 0.0 } else { rng.random::<f64>() })
            .collect();
        for x in 0..nx {
            let t: f64 = w[x * ny..(x + 1) * ny].iter().sum();
            w[x * ny..(x + 1) * ny].iter_mut().for_each(|v| *v /= t);
        }
        let w = Matrix::from_flat(nx, ny, w);
        let r = audit_srlip(joint.p_sx(), &w, sizes).unwrap();
        let exact = brute_force(&joint, &w);
        for mask in 0..exact.len() {
            assert_close_upper(r.by_subset[mask], exact[mask], &format!("case {case}, J = {mask:b}"));
        }
        assert_eq!(r.eps, r.by_subset.iter().copied().fold(0.0, f64::max));
        // J = ∅ is plain LIP (Lemma 2); J = everything leaks nothing (Y depends on X only).
        let lip = privlift::audit(joint.p_sx(), &w, 2.0).unwrap().lip;
        assert!((r.by_subset[0] - lip).abs() <= 1e-9, "case {case}: {} vs LIP {lip}", r.by_subset[0]);
        assert!(r.by_subset[exact.len() - 1] <= 1e-12, "case {case}");
    }
}

// ---------- The product protocol ----------

/// SRLIP: the product protocol audits within Σ εʲ for every J, x^J on random 3-attribute
/// cases. Each Qʲ is the optimal εʲ-LDP channel w.r.t. Tʲ = (S, X^{−j}) (random εʲ); the
/// exact audit of the product is within Σ_{j∉J} εʲ for every J (the corrected
/// composition of `design::srlip`), hence within Σ εʲ over every J and x^J.
#[test]
fn product_protocol_audits_within_the_budget_sum_on_random_3_attribute_cases() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut tightest = 0.0f64;
    for case in 0..24 {
        let sizes: &[usize] = [&[2, 3, 2][..], &[2, 2, 2], &[3, 2, 2], &[2, 2, 3]][case % 4];
        let joint = random_multi(&mut rng, 2 + case % 2, sizes);
        let eps: Vec<f64> = (0..3).map(|_| rng.random_range(0.1..1.5)).collect();
        let designs: Vec<_> = (0..3)
            .map(|j| attribute_channel(&joint, j, Epsilon::positive("epsilon", eps[j]).unwrap()).unwrap())
            .collect();
        for (j, d) in designs.iter().enumerate() {
            assert_eq!(d.construction, "optimal-ldp");
            let delta = side_channel_ldp(&joint, j, &d.channel).unwrap();
            assert!(delta <= eps[j] * (1.0 + 1e-9), "case {case}, attribute {j}: δ = {delta} > ε = {}", eps[j]);
        }
        let w = product(&designs.iter().map(|d| d.channel.clone()).collect::<Vec<_>>());
        let r = audit_srlip(joint.p_sx(), &w, sizes).unwrap();
        for mask in 0..8usize {
            let bound: f64 = (0..3).filter(|j| mask & (1 << j) == 0).map(|j| eps[j]).sum();
            assert!(
                r.by_subset[mask] <= bound * (1.0 + 1e-9) + 1e-12,
                "case {case}, J = {mask:03b}: {} > Σ_(j∉J) εʲ = {bound}",
                r.by_subset[mask]
            );
        }
        let total: f64 = eps.iter().sum();
        assert!(r.eps <= total * (1.0 + 1e-9), "case {case}: {} > {total}", r.eps);
        tightest = tightest.max(r.eps / total);
    }
    // The composition is sound but not tight: the worst instance uses this much of Σ εʲ.
    assert!(tightest > 0.1 && tightest < 1.0, "{tightest}");
}

// ---------- Thm 3 as printed ----------

/// X² = X¹ ∈ {0,1,2}, P(x¹|S=0) = (½, 0, ½), P(x¹|S=1) = (¼, ½, ¼), S uniform;
/// Q¹(0|x) = (δ, ½, 1−δ), Q²(0|x) = (1−δ, ½, δ).
fn thm3_instance(delta: f64) -> (MultiJoint, Matrix, Matrix) {
    let mut p = vec![0.0; 18];
    for (x, (a, b)) in [(0.25, 0.125), (0.0, 0.25), (0.25, 0.125)].into_iter().enumerate() {
        p[x * 3 + x] = a; // s = 0, (x¹, x²) = (x, x)
        p[9 + x * 3 + x] = b; // s = 1
    }
    let q1 = channel(&[&[delta, 1.0 - delta], &[0.5, 0.5], &[1.0 - delta, delta]]);
    let q2 = channel(&[&[1.0 - delta, delta], &[0.5, 0.5], &[delta, 1.0 - delta]]);
    (multi(2, &[3, 3], p), q1, q2)
}

/// Thm 3 is false: both channels meet its hypothesis (eqs 15–16) with εʲ = 0 — each Yʲ is
/// independent of S, alone and given the other attribute — but the product leaks: with
/// δ = 0 the output (0, 0) is impossible for S = 0 and has probability ⅛ for S = 1
/// (∞), with δ = 0.1 the lift of S = 0 at (0, 0) is 0.09/0.13 (0.368 nats, J = ∅).
/// The corrected condition (LDP w.r.t. (S, X^{−j})) does see the leak.
#[test]
fn thm3_counterexample_hypothesis_at_zero_yet_the_product_leaks() {
    let (joint, q1, q2) = thm3_instance(0.0);
    for (j, q) in [(0, &q1), (1, &q2)] {
        assert!(hypothesis_leakage(&joint, j, q).unwrap() <= 1e-12, "attribute {j}");
    }
    let r = audit_srlip(joint.p_sx(), &product(&[q1.clone(), q2.clone()]), &[3, 3]).unwrap();
    assert_eq!(r.eps, f64::INFINITY);
    assert_eq!(r.by_subset[0], f64::INFINITY, "not even LIP (J = ∅)");
    assert_eq!(side_channel_ldp(&joint, 0, &q1).unwrap(), f64::INFINITY);

    let (joint, q1, q2) = thm3_instance(0.1);
    let h = hypothesis_leakage(&joint, 0, &q1).unwrap() + hypothesis_leakage(&joint, 1, &q2).unwrap();
    assert!(h <= 1e-12, "{h}");
    let w = product(&[q1.clone(), q2.clone()]);
    let r = audit_srlip(joint.p_sx(), &w, &[3, 3]).unwrap();
    let exact = (0.13f64 / 0.09).ln();
    assert_close_upper(r.eps, exact, "δ = 0.1");
    assert_eq!(r.worst_subset, Vec::<usize>::new());
    assert_close_upper(brute_force(&joint, &w)[0], exact, "brute force");
    let corrected = side_channel_ldp(&joint, 0, &q1).unwrap() + side_channel_ldp(&joint, 1, &q2).unwrap();
    assert!((corrected - 2.0 * 9f64.ln()).abs() < 1e-9 && corrected >= r.eps, "{corrected}");
}

/// A full-support instance with rational numbers (found by a seeded random search over
/// binary S, X¹, X², Y¹, Y²): P(s, x¹, x²) = [[1, 5, 4, 1], [1, 1, 6, 1]]/20,
/// Q¹ = [[0.6, 0.4], [0.1, 0.9]], Q² = [[0.2, 0.8], [0.6, 0.4]]. The hypothesis of
/// Thm 3 holds with ε¹ + ε² = 0.5745 nats, the product audits at 0.6176 (J = ∅).
#[test]
fn thm3_fails_on_a_full_support_instance() {
    let joint = multi(2, &[2, 2], vec![1.0, 5.0, 4.0, 1.0, 1.0, 1.0, 6.0, 1.0]);
    let q1 = channel(&[&[0.6, 0.4], &[0.1, 0.9]]);
    let q2 = channel(&[&[0.2, 0.8], &[0.6, 0.4]]);
    let h = hypothesis_leakage(&joint, 0, &q1).unwrap() + hypothesis_leakage(&joint, 1, &q2).unwrap();
    let w = product(&[q1, q2]);
    let r = audit_srlip(joint.p_sx(), &w, &[2, 2]).unwrap();
    assert!((h - 0.5745).abs() < 1e-4, "{h}");
    assert!((r.eps - 0.6176).abs() < 1e-4, "{}", r.eps);
    assert!(r.eps > h * 1.07, "Thm 3 promises {h}, the product leaks {}", r.eps);
    assert_close_upper(r.eps, brute_force(&joint, &w).into_iter().fold(0.0, f64::max), "brute force");
}

// ---------- The design ----------

fn claims_hold(doc: &Document) -> privlift::verify::Verification {
    let doc = Document::from_json(&doc.to_json()).expect("published JSON re-parses");
    let v = doc.check(&Policy::default()).unwrap();
    assert!(v.claims_hold, "{:?}", v.claims);
    assert!(v.claims.iter().any(|c| c.notion == "srlip"), "{:?}", v.claims);
    doc.verify(&Policy::default()).expect("verifies");
    v
}

/// The design's documents verify (exact sampler, every J and x^J), calibration never
/// loses utility against the proven split, and SRLIP is stricter than LIP: ORR at the
/// same ε on the flattened X is ε-LIP but not ε-SRLIP on some instance.
#[test]
fn design_verifies_on_random_instances_and_calibration_only_helps() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut orr_violates = 0;
    for case in 0..8 {
        let sizes: &[usize] = [&[2, 3, 2][..], &[2, 2, 2]][case % 2];
        let joint = random_multi(&mut rng, 2, sizes);
        let eps = [0.5, 1.0, 2.0][case % 3];
        let start = std::time::Instant::now();
        let doc = srlip(&joint, Epsilon::positive("epsilon", eps).unwrap(), "srlip").unwrap();
        let took = start.elapsed();
        assert!(took.as_secs_f64() < 5.0, "{took:?}");
        claims_hold(&doc);
        let c = doc.claims().srlip.as_ref().unwrap();
        assert_eq!((c.eps.get(), c.attributes.as_slice()), (eps, sizes));
        assert_eq!(doc.claims().lip.map(|b| b.get()), Some(eps));
        let u = doc.utility().unwrap();
        assert!(u["calibration"].as_f64().unwrap() >= 1.0);
        // The proven split alone (c = 1).
        let split: Vec<Matrix> = (0..3)
            .map(|j| {
                attribute_channel(&joint, j, Epsilon::positive("epsilon", eps * (1.0 - 1e-9) / 3.0).unwrap())
                    .unwrap()
                    .channel
            })
            .collect();
        let w1 = product(&split);
        let u1 = privlift_design::utility::channel_utility(joint.p_sx().col_sums().as_slice(), &w1, None);
        assert!(u["mi_xy"].as_f64().unwrap() >= u1.mi_xy.unwrap() - 1e-12, "case {case}");
        assert!(u["nmi"].as_f64().unwrap() <= 1.0);
        // ORR on the flattened alphabet: ε-LIP, but side channels break it.
        let orr = orr::orr_lip(&joint.source().unwrap(), Epsilon::positive("epsilon", eps).unwrap(), "orr").unwrap();
        let w = orr.mechanism().channel_matrix(orr.input().len()).expect("ORR is a channel");
        if audit_srlip(joint.p_sx(), &w, sizes).unwrap().eps > eps * 1.01 {
            orr_violates += 1;
        }
    }
    assert!(orr_violates > 0, "ORR met SRLIP on every instance");
}

/// Publishing never fails on the budget's edge: across budgets from 0.05 to 4 nats and
/// sizes up to 3 × 3 × 2 the calibrated design always verifies on the exact sampler (a
/// design with an output of mass ~1e-15 once audited 1e-5 above its budget there).
/// Attributes too large to enumerate (5 × 5 × 5 with |S| = 2) fall back to RR.
#[test]
fn design_never_fails_at_the_edge_and_falls_back_to_rr_when_large() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for case in 0..28 {
        let sizes: &[usize] = [&[2, 3, 2][..], &[3, 3, 2], &[2, 2, 2, 2], &[3, 2]][case % 4];
        let joint = random_multi(&mut rng, 2 + case % 3, sizes);
        let eps = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0][case % 7];
        let doc = srlip(&joint, Epsilon::positive("epsilon", eps).unwrap(), "edge")
            .unwrap_or_else(|e| panic!("case {case}, ε = {eps}: {e}"));
        claims_hold(&doc);
    }
    let joint = random_multi(&mut rng, 2, &[5, 5, 5]);
    let start = std::time::Instant::now();
    let doc = srlip(&joint, Epsilon::positive("epsilon", 1.0).unwrap(), "large").unwrap();
    let took = start.elapsed();
    claims_hold(&doc);
    let attrs = doc.utility().unwrap()["attributes"].as_array().unwrap().clone();
    assert!(attrs.iter().all(|a| a["construction"].as_str() == Some("krr")), "{attrs:?}");
    assert!(took.as_secs_f64() < 10.0, "{took:?}");
}

/// One attribute: SRLIP is LIP and the design is ORR.
#[test]
fn one_attribute_is_orr() {
    let joint = multi(2, &[3], vec![0.3, 0.1, 0.1, 0.1, 0.1, 0.3]);
    let doc = srlip(&joint, Epsilon::positive("epsilon", 0.7).unwrap(), "one").unwrap();
    claims_hold(&doc);
    let orr = orr::orr_lip(&joint.source().unwrap(), Epsilon::positive("epsilon", 0.7).unwrap(), "orr").unwrap();
    let mi = |d: &Document| d.utility().unwrap()["mi_xy"].as_f64().unwrap();
    assert!((mi(&doc) - mi(&orr)).abs() < 1e-9, "{} vs {}", mi(&doc), mi(&orr));
}

// ---------- Input errors ----------

fn load(v: Value) -> privlift::Error {
    let f: JointFile = serde_json::from_value(v).unwrap();
    load_multi_joint(f).unwrap_err()
}

#[test]
fn bad_inputs_are_typed_errors() {
    let attrs = json!([{"labels": ["a", "b"]}, {"labels": ["x", "y", "z"]}]);
    let row = |v: f64| vec![v; 6];
    let ok = json!({"attributes": attrs, "p_sx": [row(1.0 / 12.0), row(1.0 / 12.0)]});
    let f: JointFile = serde_json::from_value(ok).unwrap();
    let joint = load_multi_joint(f).unwrap();
    assert_eq!(joint.labels().label(5), Some("b,z"));
    assert_eq!(joint.secret().labels(), ["0", "1"]);

    // Wrong sizes: a row of 5 for 2 × 3 tuples, a secret-label count off.
    let e = load(json!({"attributes": attrs, "p_sx": [row(1.0 / 12.0), vec![1.0 / 12.0; 5]]}));
    assert_eq!((e.code(), e.to_string().contains("p_sx[1]")), ("dimension_mismatch", true), "{e}");
    let e = load(json!({"attributes": attrs, "secret_labels": ["a"], "p_sx": [row(1.0 / 12.0), row(1.0 / 12.0)]}));
    assert_eq!(e.code(), "dimension_mismatch", "{e}");
    // Not normalised, negative, non-finite.
    let e = load(json!({"attributes": attrs, "p_sx": [row(0.1), row(0.1)]}));
    assert_eq!(e.code(), "not_normalized", "{e}");
    let mut r = row(1.0 / 12.0);
    r[0] = -0.1;
    assert_eq!(load(json!({"attributes": attrs, "p_sx": [r, row(1.0 / 12.0)]})).code(), "negative_probability");
    // Attribute lists: none, with `labels`, empty, duplicate, too many, too large.
    assert_eq!(load(json!({"labels": ["a"], "p_sx": [[1.0]]})).code(), "invalid_argument");
    let e = load(json!({"attributes": attrs, "labels": ["a"], "p_sx": [row(1.0 / 12.0), row(1.0 / 12.0)]}));
    assert_eq!(e.code(), "invalid_argument", "{e}");
    assert_eq!(load(json!({"attributes": [], "p_sx": [[1.0]]})).code(), "invalid_argument");
    let e = load(json!({"attributes": [{"labels": ["a"]}, {"labels": []}], "p_sx": [[1.0]]}));
    assert_eq!(e.code(), "empty_alphabet", "{e}");
    let e = load(json!({"attributes": [{"labels": ["a", "a"]}], "p_sx": [[0.5, 0.5]]}));
    assert_eq!(e.code(), "duplicate_label", "{e}");
    let seventeen = vec![json!({"labels": ["a"]}); 17];
    assert_eq!(load(json!({"attributes": seventeen, "p_sx": [[1.0]]})).code(), "invalid_argument");
    let big: Vec<String> = (0..65).map(|i| i.to_string()).collect();
    let e = load(json!({"attributes": [{"labels": big}, {"labels": big}], "p_sx": [[1.0]]}));
    assert_eq!(e.code(), "too_many_symbols", "65 × 65 tuples: {e}");

    // Budgets.
    for eps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            Epsilon::positive("epsilon", eps).and_then(|e| srlip(&joint, e, "x")).unwrap_err().code(),
            "invalid_argument",
            "{eps}"
        );
    }
    // Channels of the wrong size for the composition checks.
    let q = channel(&[&[1.0], &[1.0]]);
    assert_eq!(hypothesis_leakage(&joint, 1, &q).unwrap_err().code(), "dimension_mismatch");
    assert_eq!(side_channel_ldp(&joint, 2, &q).unwrap_err().code(), "invalid_argument");

    // A document whose claim names attributes that do not multiply to |X|, and one that
    // lies about its SRLIP.
    let skewed = multi(2, &[2, 3], (1..=12).map(f64::from).collect());
    let mut doc: Value =
        serde_json::from_str(&srlip(&skewed, Epsilon::positive("epsilon", 1.0).unwrap(), "d").unwrap().to_json())
            .unwrap();
    doc["claims"]["srlip"]["attributes"] = json!([2, 2]);
    let e = Document::from_json(&doc.to_string()).unwrap_err();
    assert_eq!(e.code(), "dimension_mismatch", "{e}");
    doc["claims"]["srlip"] = json!({"eps": 1e-3, "attributes": [2, 3]});
    let lying = Document::from_json(&doc.to_string()).unwrap();
    let e = lying.verify(&Policy::default()).unwrap_err();
    assert_eq!(e.code(), "claim_violated", "{e}");
    assert!(e.to_string().contains("srlip"), "{e}");
}

/// The request path (what the JS binding calls): `design("srlip", {joint, epsilon})`,
/// and a multi-attribute joint read by `load_joint` as a joint over the tuples.
#[test]
fn request_path_and_load_joint() {
    let joint: Value = serde_json::from_str(J_JSON).unwrap();
    let req: privlift_design::request::DesignRequest =
        serde_json::from_value(json!({"joint": joint, "epsilon": 0.5, "id": "req"})).unwrap();
    let doc = privlift_design::request::design("srlip", req).unwrap();
    claims_hold(&doc);
    assert_eq!(doc.id(), "req");
    assert!(privlift_design::request::METHODS.contains(&"srlip"));
    let req: privlift_design::request::DesignRequest = serde_json::from_value(json!({"epsilon": 0.5})).unwrap();
    assert_eq!(privlift_design::request::design("srlip", req).unwrap_err().code(), "invalid_argument");

    let f: JointFile = serde_json::from_value(joint.clone()).unwrap();
    let (secret, labels, p_sx) = privlift_design::request::load_joint(f, None).unwrap();
    assert_eq!((secret.len(), labels.len(), p_sx.cols()), (2, 12, 12));
    assert_eq!(labels.label(1), Some("young,low,M"));
    let f: JointFile = serde_json::from_value(joint).unwrap();
    assert_eq!(privlift_design::request::load_joint(f, Some(6)).unwrap_err().code(), "dimension_mismatch");
}

// ---------- CLI ----------

/// The J.json of docs/cli.md.
const J_JSON: &str = r#"{"secret_labels": ["healthy", "ill"],
 "attributes": [{"labels": ["young", "old"]}, {"labels": ["low", "mid", "high"]}, {"labels": ["F", "M"]}],
 "p_sx": [[0.09, 0.08, 0.07, 0.06, 0.04, 0.03, 0.07, 0.06, 0.04, 0.04, 0.03, 0.02],
          [0.01, 0.02, 0.03, 0.02, 0.05, 0.05, 0.02, 0.03, 0.04, 0.03, 0.04, 0.03]]}"#;

/// `privlift ARGS`: its exit code, stdout and stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let o = common::cli::run(args);
    (o.code, o.stdout, o.stderr)
}

#[test]
fn cli_designs_and_audits_srlip() {
    let dir = TempDir::new("srlip");
    let j = dir.write("j.json", J_JSON);
    let (code, out, err) = run(&["design", "srlip", "--joint", &j, "--epsilon", "1"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["id"], json!("srlip-eps1"));
    assert_eq!(doc["claims"], json!({"lip": 1.0, "srlip": {"eps": 1.0, "attributes": [2, 3, 2]}}));
    assert_eq!(doc["labels"][0], json!("young,low,F"));
    assert_eq!(doc["secret"]["labels"], json!(["healthy", "ill"]));
    let (mi, nmi) = (doc["utility"]["mi_xy"].as_f64().unwrap(), doc["utility"]["nmi"].as_f64().unwrap());
    assert!(mi > 0.0 && nmi > 0.0 && nmi <= 1.0, "{mi} {nmi}");

    let spec = dir.write("doc.json", &out);
    let (code, out, err) = run(&["audit", &spec]);
    assert_eq!(code, 0, "{err}");
    let a: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a["claims_hold"], json!(true));
    let eps = a["srlip"]["eps"].as_f64().unwrap();
    assert!(eps <= 1.0 + 1e-9 && eps > 0.5, "{eps}");
    assert_eq!(a["srlip"]["by_subset"].as_array().unwrap().len(), 8);
    let check = a["claims"].as_array().unwrap().iter().find(|c| c["notion"] == "srlip").unwrap();
    assert_eq!(check["actual"], a["srlip"]["eps"]);

    // A bare channel with a multi-attribute joint is audited for SRLIP too.
    let m = dir.write("m.json", &json!({"p_y_given_x": common::channel_rows(&doc)}).to_string());
    let (code, out, err) = run(&["audit", "--matrix", &m, "--joint", &j]);
    assert_eq!(code, 0, "{err}");
    let bare: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(bare["srlip"], a["srlip"]);

    // The same J.json is an ordinary joint over the tuples for the other methods.
    let (code, out, err) = run(&["design", "orr-lip", "--joint", &j, "--epsilon", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["labels"][11], json!("old,high,M"));

    // Usage and input errors.
    let (code, _, err) = run(&["design", "srlip", "--joint", &j]);
    assert!(code != 0 && err.contains("--epsilon"), "{err}");
    let (code, _, err) = run(&["design", "srlip", "--prior", &j, "--epsilon", "1"]);
    assert!(code != 0 && err.contains("--prior"), "{err}");
    let flat = dir.write("flat.json", r#"{"labels": ["a", "b"], "p_sx": [[0.5, 0.5]]}"#);
    let (code, _, err) = run(&["design", "srlip", "--joint", &flat, "--epsilon", "1"]);
    assert!(code == 1 && err.contains("error[invalid_argument]") && err.contains("attributes"), "{err}");
    let bad = dir.write("bad.json", &J_JSON.replace("0.09", "0.19"));
    let (code, _, err) = run(&["design", "srlip", "--joint", &bad, "--epsilon", "1"]);
    assert!(code == 1 && err.contains("error[not_normalized]"), "{err}");
}
