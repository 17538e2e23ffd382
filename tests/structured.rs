//! The structured kinds (`krr`, `rr_lip`, `merge`, `sparse`): their grouped audit agrees
//! with the dense audit of the same exact channel on random instances, their samplers draw
//! from the audited probabilities, their receipts stay within the audited bounds, and a
//! hostile structured document gets a typed error.

mod common;

use privlift::document::Document;
use privlift::leakage::{audit_exact, Exact, Leakage};
use privlift::verify::Policy;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

fn distribution(rng: &mut ChaCha8Rng, k: usize, zeros: bool) -> Vec<f64> {
    let mut p: Vec<f64> =
        (0..k).map(|_| if zeros && rng.random_bool(0.2) { 0.0 } else { rng.random::<f64>() + 0.01 }).collect();
    if p.iter().all(|&v| v == 0.0) {
        p[0] = 1.0;
    }
    let s: f64 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= s);
    // Make the sum exactly representable as 1 within the document tolerance.
    p
}

fn sparse_rows(rng: &mut ChaCha8Rng, nx: usize, ny: usize) -> Vec<Vec<(usize, f64)>> {
    (0..nx)
        .map(|_| {
            let mut ys: Vec<usize> = (0..ny).filter(|_| rng.random_bool(0.4)).collect();
            if ys.is_empty() {
                ys.push(rng.random_range(0..ny));
            }
            let w = distribution(rng, ys.len(), false);
            ys.into_iter().zip(w).collect()
        })
        .collect()
}

/// A random structured mechanism over `nx` inputs.
fn mechanism(rng: &mut ChaCha8Rng, nx: usize, depth: usize) -> Value {
    match rng.random_range(0..if depth == 0 { 6 } else { 4 }) {
        0 => json!({"kind": "krr", "epsilon": rng.random_range(0.0..4.0)}),
        1 => json!({"kind": "rr_lip", "keep": rng.random::<f64>(), "mixing": distribution(rng, nx, true)}),
        2 => {
            let ny = rng.random_range(1..6);
            json!({"kind": "sparse", "outputs": ny, "rows": sparse_rows(rng, nx, ny)})
        }
        3 => json!({"kind": "krr", "keep": if rng.random_bool(0.2) { 1.0 } else { rng.random::<f64>() }}),
        5 => {
            // Subset random response: some inputs low-risk, the rest in groups, maybe some
            // left to `others`.
            let mut xs: Vec<usize> = (0..nx).collect();
            for i in (1..nx).rev() {
                xs.swap(i, rng.random_range(0..=i));
            }
            let low: Vec<usize> = xs.drain(..rng.random_range(0..=xs.len())).collect();
            let left_out = rng.random_range(0..=xs.len().min(1));
            let rest: Vec<usize> = xs.split_off(xs.len() - left_out);
            let mut groups = vec![];
            while !xs.is_empty() {
                let g: Vec<usize> = xs.drain(..rng.random_range(1..=xs.len())).collect();
                let r = rng.random_range(1..4);
                let rows: Vec<Vec<f64>> = g.iter().map(|_| distribution(rng, r, true)).collect();
                groups.push(json!({"inputs": g, "p_y_given_x": rows}));
            }
            let ny = low.len() + groups.iter().map(|g| g["p_y_given_x"][0].as_array().unwrap().len()).sum::<usize>();
            let mut m = json!({"kind": "srr", "low_risk": low, "groups": groups});
            if !rest.is_empty() {
                if ny == 0 {
                    return json!({"kind": "krr", "epsilon": 1.0});
                }
                m["others"] = json!(distribution(rng, ny, true));
            }
            m
        }
        _ => {
            let nb = rng.random_range(1..=nx);
            let mut blocks: Vec<usize> = (0..nx).map(|x| if x < nb { x } else { rng.random_range(0..nb) }).collect();
            // Shuffle so that blocks are not contiguous.
            for i in (1..nx).rev() {
                blocks.swap(i, rng.random_range(0..=i));
            }
            let mut m = json!({"kind": "merge", "blocks": blocks});
            if rng.random_bool(0.75) {
                m["inner"] = mechanism(rng, nb, 1);
            }
            m
        }
    }
}

/// A random document: with a random secret (sometimes), or, with `independent`, with a
/// binary secret independent of X (P(s,x) = P(x)/2, exact), so that its LIP w.r.t. S is
/// 0 whatever the channel and every instance verifies under the claim `lip: 1e-6`.
fn document_with(rng: &mut ChaCha8Rng, independent: bool) -> Value {
    let nx = rng.random_range(1..9);
    let prior = distribution(rng, nx, true);
    let mut d = json!({
        "format": "privlift-mechanism", "version": 1, "id": "random",
        "labels": (0..nx).map(|i| format!("x{i}")).collect::<Vec<_>>(),
        "prior": prior,
        "mechanism": mechanism(rng, nx, 0),
        "claims": {"lip": 1e300}
    });
    if independent {
        let half: Vec<f64> = prior.iter().map(|p| p / 2.0).collect();
        d["secret"] = json!({"p_sx": [half, half]});
        d["claims"] = json!({"lip": 1e-6});
    } else if rng.random_bool(0.4) {
        // A joint whose column sums are the prior: split each P(x) over the secrets.
        let ns = rng.random_range(1..4);
        let mut p_sx = vec![vec![0.0; nx]; ns];
        for x in 0..nx {
            let split = distribution(rng, ns, true);
            for s in 0..ns {
                p_sx[s][x] = prior[x] * split[s];
            }
        }
        d["secret"] = json!({"p_sx": p_sx});
    }
    d
}

fn document(rng: &mut ChaCha8Rng) -> Value {
    document_with(rng, false)
}

fn measures(l: &Leakage) -> [(&'static str, f64); 16] {
    [
        ("lip", l.lip),
        ("eps_l", l.alip.eps_l),
        ("eps_u", l.alip.eps_u),
        ("ldp", l.ldp),
        ("ldp_x", l.ldp_x),
        ("min_lift", l.min_lift),
        ("max_lift", l.max_lift),
        ("l1", l.l1_lift),
        ("chi2", l.chi2_lift),
        ("alpha", l.alpha_lift),
        ("l1_inverse", l.l1_lift_inverse),
        ("chi2_inverse", l.chi2_lift_inverse),
        ("alpha_inverse", l.alpha_lift_inverse),
        ("maximal_leakage", l.maximal_leakage),
        ("mi_sy", l.mi_sy),
        ("mi_xy", l.mi_xy),
    ]
}

/// Two conservative roundings of the same exact quantity: both ∞, or within the rounding
/// allowance of the two audits (each widens by γ(n) ≈ n·2⁻⁵³ with n ≤ 4|X| + 40 here).
fn agree(a: f64, b: f64) -> bool {
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn the_grouped_audit_is_the_dense_audit_of_the_same_channel() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0013);
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..600 {
        let v = document(&mut rng);
        let doc = Document::from_json(&v.to_string()).unwrap_or_else(|e| panic!("case {case}: {e}\n{v}"));
        let exact = doc.exact_channel().unwrap().expect("a categorical kind");
        let dense = Exact::Dense(exact.to_dense());
        *kinds.entry(doc.mechanism().tag()).or_insert(0) += 1;
        for joint in [None, doc.declared_joint()] {
            let compact = audit_exact(joint, doc.prior(), &exact, 2.0).unwrap();
            let full = audit_exact(joint, doc.prior(), &dense, 2.0).unwrap();
            for ((name, a), (_, b)) in measures(&compact).into_iter().zip(measures(&full)) {
                assert!(agree(a, b), "case {case} {name}: compact {a} vs dense {b}\n{v}");
            }
        }
    }
    // Every kind was drawn many times.
    for k in ["krr", "rr_lip", "sparse", "merge", "srr"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 60, "{k}: {kinds:?}");
    }
}

#[test]
fn receipts_of_structured_kinds_stay_within_their_bounds_and_match_the_dense_lifts() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    for case in 0..200 {
        let v = document_with(&mut rng, true);
        let doc = Document::from_json(&v.to_string()).unwrap();
        let m = doc.verify(&Policy::default()).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let w = m.effective_channel().unwrap();
        let prior = doc.prior();
        for y in 0..doc.output().len() {
            let py: f64 = (0..prior.len()).map(|x| prior[x] * w.get(x, y)).sum();
            let Ok(r) = m.receipt(y) else {
                assert!(py == 0.0, "case {case}: output {y} has P(y) = {py} but no receipt");
                continue;
            };
            assert!(common::lifts_within_bounds(&r), "case {case} y {y}");
            for e in &r.input.entries {
                let exact = if prior[e.index] > 0.0 { w.get(e.index, y) / py } else { 0.0 };
                assert!((e.lift - exact).abs() <= 1e-12 * exact.max(1.0), "case {case} y {y}: {} vs {exact}", e.lift);
            }
        }
    }
}

#[test]
fn a_krr_document_is_o_of_k_bytes_and_verifies_at_the_largest_alphabet() {
    let k = 4096;
    let v = json!({
        "format": "privlift-mechanism", "version": 1, "id": "krr-4096",
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": vec![1.0 / k as f64; k],
        "mechanism": {"kind": "krr", "epsilon": 2.0},
        "claims": {"ldp_x": 2.0}
    });
    let text = v.to_string();
    assert!(text.len() < 100_000, "{} bytes", text.len());
    let doc = Document::from_json(&text).unwrap();
    // The work estimate is linear in k: far below the budget that refuses a dense 4096².
    let work = privlift::verify::Work::of(&doc).0;
    assert!(work < 1e6, "{work}");
    let m = doc.verify(&Policy::default()).unwrap();
    let l = m.leakage_x();
    // k-RR at ε: LDP_X is ε, or below it by the keep the 32-bit draw rounds away (at most
    // g/2³², here a relative 3·10⁻⁵ of κ: the bias check of `KeepOrUniform` lets it
    // through at k = 4096 and ε = 2), up to the conservative rounding.
    assert!(l.ldp_x <= 2.0 + 1e-12 && l.ldp_x > 2.0 - 1e-4, "{}", l.ldp_x);
    // Under the uniform prior P(y) = 1/k: the lifts are k·P(y|x).
    let e = 2.0f64.exp();
    let max_lift = k as f64 * e / (e + k as f64 - 1.0);
    assert!(
        l.max_lift <= max_lift * (1.0 + 1e-12) && l.max_lift > max_lift * (1.0 - 1e-4),
        "{} vs {max_lift}",
        l.max_lift
    );
    let r = m.receipt(17).unwrap();
    assert_eq!(r.input.entries.len(), k);
    assert!(common::lifts_within_bounds(&r));
}

use common::counting::CountingRng as Counting;

#[test]
fn samplers_draw_the_audited_probabilities_with_randomness_independent_of_x() {
    let docs = [
        json!({"kind": "krr", "epsilon": 1.0}),
        json!({"kind": "rr_lip", "keep": 0.3, "mixing": [0.1, 0.0, 0.2, 0.3, 0.4]}),
        json!({"kind": "merge", "blocks": [0, 1, 0, 2, 1], "inner": {"kind": "krr", "keep": 0.5}}),
        json!({"kind": "merge", "blocks": [0, 1, 0, 2, 1]}),
        json!({"kind": "sparse", "outputs": 3, "rows": [[[0, 0.5], [2, 0.5]], [[1, 1.0]], [[0, 0.2], [1, 0.8]], [[2, 1.0]], [[0, 1.0]]]}),
    ];
    let n = 40_000usize;
    for (i, mech) in docs.iter().enumerate() {
        let v = json!({
            "format": "privlift-mechanism", "version": 1, "id": "s",
            "labels": ["a", "b", "c", "d", "e"], "prior": vec![0.2; 5],
            "secret": {"p_sx": [vec![0.1; 5], vec![0.1; 5]]},
            "mechanism": mech, "claims": {"lip": 1e-6}
        });
        let doc = Document::from_json(&v.to_string()).unwrap();
        let m = doc.verify(&Policy::default()).unwrap();
        let w = m.effective_channel().unwrap();
        // One word a draw, whatever the kind: 8 bytes, or 4 for the keep-or-uniform draws
        // of 32 bits (k-RR at ε = 1 over 5, κ = 1/2 over 3 blocks), in blocks of 64 KiB;
        // `Counting` counts ⌈bytes/8⌉ per block.
        let bytes = [4, 8, 4, 8, 8][i];
        let per_block = 65_536 / bytes;
        let words_for = |n: usize| -> usize {
            (0..n).step_by(per_block).map(|at| ((n - at).min(per_block) * bytes).div_ceil(8)).sum()
        };
        let mut words = None;
        for x in 0..5u32 {
            let mut rng = Counting(ChaCha8Rng::seed_from_u64(1000 + i as u64 * 10 + x as u64), 0);
            let out = m.perturb_many(&vec![x; n], &mut rng).unwrap();
            // The same number of words for every input.
            assert_eq!(*words.get_or_insert(rng.1), rng.1, "mechanism {i}, x {x}");
            assert_eq!(rng.1, words_for(n), "mechanism {i}, x {x}: one word per draw");
            // So around the batch's blocks too.
            for n in [1, 8191, 8192, 8193, 16_383, 16_384, 16_385] {
                let mut rng = Counting(ChaCha8Rng::seed_from_u64(7), 0);
                m.perturb_many(&vec![x; n], &mut rng).unwrap();
                assert_eq!(rng.1, words_for(n), "mechanism {i}, x {x}, {n} draws");
            }
            let mut counts = vec![0usize; w.cols()];
            out.iter().for_each(|&y| counts[y as usize] += 1);
            let (mut chi2, mut dof) = (0.0, 0usize);
            for (y, &c) in counts.iter().enumerate() {
                let p = w.get(x as usize, y);
                if p == 0.0 {
                    assert_eq!(c, 0, "mechanism {i}: x {x} drew impossible y {y}");
                } else {
                    let e = p * n as f64;
                    chi2 += (c as f64 - e).powi(2) / e;
                    dof += 1;
                }
            }
            if dof > 1 {
                use statrs::distribution::{ChiSquared, ContinuousCDF};
                let q = ChiSquared::new((dof - 1) as f64).unwrap().inverse_cdf(0.999);
                assert!(chi2 < q, "mechanism {i}, x {x}: χ² {chi2} ≥ {q}");
            }
        }
    }
}

#[test]
fn hostile_structured_documents_get_typed_errors() {
    let base = |mech: Value| {
        json!({
            "format": "privlift-mechanism", "version": 1, "id": "h",
            "labels": ["a", "b", "c"], "prior": [0.5, 0.25, 0.25],
            "mechanism": mech, "claims": {"lip": 1.0}
        })
        .to_string()
    };
    let cases = [
        (json!({"kind": "krr"}), "invalid_argument", "mechanism"),
        (json!({"kind": "krr", "epsilon": 1.0, "keep": 0.5}), "invalid_argument", "mechanism"),
        (json!({"kind": "krr", "epsilon": -1.0}), "invalid_argument", "mechanism.epsilon"),
        (json!({"kind": "krr", "epsilon": 701.0}), "invalid_argument", "mechanism.epsilon"),
        (json!({"kind": "krr", "keep": 1.5}), "invalid_argument", "mechanism.keep"),
        (json!({"kind": "krr", "keep": 1e-300}), "invalid_argument", "mechanism.keep"),
        (json!({"kind": "krr", "epsilon": 1.0, "extra": 1}), "json", "extra"),
        (json!({"kind": "rr_lip", "keep": 0.5, "mixing": [0.5, 0.5]}), "dimension_mismatch", "mechanism.mixing"),
        (json!({"kind": "rr_lip", "keep": 0.5, "mixing": [0.5, 0.5, 0.5]}), "not_normalized", "mechanism.mixing"),
        (
            json!({"kind": "rr_lip", "keep": 0.5, "mixing": [1.5, -0.5, 0.0]}),
            "negative_probability",
            "mechanism.mixing[1]",
        ),
        (json!({"kind": "merge", "blocks": [0, 1]}), "dimension_mismatch", "mechanism.blocks"),
        (json!({"kind": "merge", "blocks": [0, 2, 2]}), "invalid_argument", "block 1 has no input"),
        (json!({"kind": "merge", "blocks": [0, 5, 1]}), "invalid_argument", "mechanism.blocks"),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "merge", "blocks": [0, 0]}}),
            "invalid_argument",
            "mechanism.inner",
        ),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "unary", "q01": 0.1, "q10": 0.1}}),
            "invalid_argument",
            "mechanism.inner",
        ),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "matrix", "p_y_given_x": [[1.0]]}}),
            "dimension_mismatch",
            "mechanism.inner.p_y_given_x",
        ),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "krr", "keep": 2}}),
            "invalid_argument",
            "mechanism.inner.keep",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[[0, 1.0]], [[1, 1.0]]]}),
            "dimension_mismatch",
            "mechanism.rows",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[[0, 1.0]], [[2, 1.0]], [[1, 1.0]]]}),
            "invalid_argument",
            "mechanism.rows[1][0]",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[[1, 0.5], [0, 0.5]], [[1, 1.0]], [[1, 1.0]]]}),
            "invalid_argument",
            "mechanism.rows[0][1]",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[[0, 0.5], [0, 0.5]], [[1, 1.0]], [[1, 1.0]]]}),
            "invalid_argument",
            "mechanism.rows[0][1]",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[], [[1, 1.0]], [[1, 1.0]]]}),
            "empty_alphabet",
            "mechanism.rows[0]",
        ),
        (
            json!({"kind": "sparse", "outputs": 2, "rows": [[[0, 0.7]], [[1, 1.0]], [[1, 1.0]]]}),
            "not_normalized",
            "mechanism.rows[0]",
        ),
        (json!({"kind": "sparse", "outputs": 0, "rows": [[], [], []]}), "empty_alphabet", "mechanism.outputs"),
        (
            json!({"kind": "sparse", "outputs": 5000, "rows": [[[0, 1.0]], [[1, 1.0]], [[1, 1.0]]]}),
            "too_many_symbols",
            "mechanism.outputs",
        ),
    ];
    for (mech, code, needle) in cases {
        let e = Document::from_json(&base(mech.clone())).expect_err(&mech.to_string());
        assert_eq!(e.code(), code, "{mech}: {e}");
        assert!(e.to_string().contains(needle), "{mech}: {e} should name {needle}");
    }
    // A lying structured document is caught by its audit: k-RR at ε = 3 claiming LDP 1.
    let lie = json!({
        "format": "privlift-mechanism", "version": 1, "id": "lie",
        "labels": ["a", "b", "c"], "prior": [0.5, 0.25, 0.25],
        "mechanism": {"kind": "krr", "epsilon": 3.0}, "claims": {"ldp_x": 1.0}
    });
    let e = Document::from_json(&lie.to_string()).unwrap().verify(&Policy::default()).unwrap_err();
    assert_eq!(e.code(), "claim_violated", "{e}");
}

#[test]
fn structured_documents_round_trip_through_json() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..100 {
        let v = document(&mut rng);
        let doc = Document::from_json(&v.to_string()).unwrap();
        let again = Document::from_json(&doc.to_json()).unwrap();
        assert_eq!(doc, again);
    }
}

/// The structured kinds carry their parameters as the types of `privlift::param`, built
/// once by the reader: a k-RR's ε an `Epsilon` ([0, 700] nats, kept as the document gave
/// it), κ a `Probability` ([0, 1], none in (0, 2⁻⁹⁰⁰)); a number outside is refused there,
/// `invalid_argument` naming the field.
#[test]
fn structured_parameters_are_typed_by_the_reader() {
    use privlift::document::MechanismKind;
    use privlift::param::{Epsilon, Probability};
    let read = |mech: Value| {
        Document::from_json(
            &json!({
                "format": "privlift-mechanism", "version": 1, "id": "typed",
                "labels": ["a", "b", "c"], "prior": [0.5, 0.25, 0.25],
                "mechanism": mech, "claims": {"lip": 1.0}
            })
            .to_string(),
        )
    };
    let eps = |e| Epsilon::new("epsilon", e).unwrap();
    let keep = |k| Probability::new("keep", k).unwrap();
    let kind = |mech: Value| read(mech).unwrap().mechanism().clone();
    assert_eq!(
        kind(json!({"kind": "krr", "epsilon": 0.0})),
        MechanismKind::Krr { epsilon: Some(eps(0.0)), keep: keep(0.0) }
    );
    let e2 = libm::expm1(2.0);
    assert_eq!(
        kind(json!({"kind": "krr", "epsilon": 2.0})),
        MechanismKind::Krr { epsilon: Some(eps(2.0)), keep: keep(e2 / (e2 + 3.0)) }
    );
    assert_eq!(kind(json!({"kind": "krr", "keep": 1.0})), MechanismKind::Krr { epsilon: None, keep: Probability::ONE });
    assert_eq!(
        kind(json!({"kind": "rr_lip", "keep": 0.25, "mixing": [0.5, 0.25, 0.25]})),
        MechanismKind::RrLip { keep: keep(0.25), mixing: vec![0.5, 0.25, 0.25] }
    );
    let refused = [
        (json!({"kind": "krr", "epsilon": -1e-300}), "mechanism.epsilon"),
        (json!({"kind": "krr", "epsilon": 700.5}), "mechanism.epsilon"),
        (json!({"kind": "krr", "keep": -0.5}), "mechanism.keep"),
        (json!({"kind": "krr", "keep": 1.0000001}), "mechanism.keep"),
        (json!({"kind": "rr_lip", "keep": -0.1, "mixing": [0.5, 0.25, 0.25]}), "mechanism.keep"),
        (json!({"kind": "rr_lip", "keep": 1.5, "mixing": [0.5, 0.25, 0.25]}), "mechanism.keep"),
        (json!({"kind": "rr_lip", "keep": 1e-300, "mixing": [0.5, 0.25, 0.25]}), "mechanism.keep[0]"),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "rr_lip", "keep": 2, "mixing": [0.5, 0.5]}}),
            "mechanism.inner.keep",
        ),
        (
            json!({"kind": "merge", "blocks": [0, 0, 1], "inner": {"kind": "krr", "epsilon": -2}}),
            "mechanism.inner.epsilon",
        ),
    ];
    for (mech, field) in refused {
        let e = read(mech.clone()).expect_err(&mech.to_string());
        assert_eq!(e.code(), "invalid_argument", "{mech}: {e}");
        assert!(e.to_string().contains(&format!("`{field}`")), "{mech}: {e} should name {field}");
    }
}
