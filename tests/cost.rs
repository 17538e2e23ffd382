//! The cost model's boundaries for the kinds whose work a term of its own counts: for each,
//! a document just under the default budget verifies and one just over is refused with
//! `too_costly` before anything is built. Each pair straddles the boundary only with its
//! term: without it the second document is accepted too. (The seconds these documents
//! take in the wasm client are measured by `benches/wasm/cost.mjs`, never asserted here.)

use privlift::document::{ContinuousDocument, Document};
use privlift::mechanism::continuous::ContinuousPolicy;
use privlift::verify::{Policy, Work, DEFAULT_MAX_VERIFY_WORK};

fn list(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(",")
}

/// A discrete document over `nx` inputs (uniform prior, `lip` 50) with `mechanism`,
/// more `claims` and optional extra members (`, "secret": …`).
fn discrete(nx: usize, mechanism: &str, claims: &str, extra: &str) -> Document {
    let labels = list((0..nx).map(|i| format!("\"v{i}\"")));
    let prior = list((0..nx).map(|_| format!("{}", 1.0 / nx as f64)));
    let text = format!(
        r#"{{"format":"privlift-mechanism","version":1,"id":"cost","labels":[{labels}],"prior":[{prior}],
        "claims":{{"lip":50{claims}}},"mechanism":{mechanism}{extra}}}"#
    );
    Document::from_json(&text).unwrap()
}

/// Randomised response over `k` values as a dense matrix.
fn rr(k: usize) -> String {
    let e = std::f64::consts::E;
    let (p, q) = (e / (e + k as f64 - 1.0), 1.0 / (e + k as f64 - 1.0));
    let rows = list((0..k).map(|x| format!("[{}]", list((0..k).map(|y| format!("{}", if x == y { p } else { q }))))));
    format!(r#"{{"kind":"matrix","p_y_given_x":[{rows}]}}"#)
}

fn assert_boundary(under: &Document, over: &Document) {
    let (wu, wo) = (Work::of(under).0, Work::of(over).0);
    assert!(wu <= DEFAULT_MAX_VERIFY_WORK && wo > DEFAULT_MAX_VERIFY_WORK, "{wu} {wo}");
    under.verify(&Policy::default()).unwrap();
    assert_eq!(over.verify(&Policy::default()).unwrap_err().code(), "too_costly");
}

#[test]
fn an_alpha_order_other_than_the_default_counts_its_pow_pass() {
    let alpha = r#","alpha":{"order":3,"eps_l":50,"eps_u":50}"#;
    assert_boundary(&discrete(500, &rr(500), alpha, ""), &discrete(560, &rr(560), alpha, ""));
    // The same channel at the default order is far inside the budget.
    let two = r#","alpha":{"order":2,"eps_l":50,"eps_u":50}"#;
    assert!(Work::of(&discrete(560, &rr(560), two, "")).0 < DEFAULT_MAX_VERIFY_WORK / 4.0);
}

#[test]
fn an_srlip_claim_counts_its_groups() {
    // One attribute of |X| values: 1 + |X| groups, each a pass over |S|·|Y|.
    let srlip = |k: usize| format!(r#","srlip":{{"eps":50,"attributes":[{k}]}}"#);
    assert_boundary(&discrete(280, &rr(280), &srlip(280), ""), &discrete(320, &rr(320), &srlip(320), ""));
}

#[test]
fn an_enumerated_unary_audit_counts_its_explicit_channel() {
    // |X| = 14 (2¹⁴ outputs enumerated) with `ns` secrets, s = x mod ns.
    let doc = |ns: usize| {
        let labels = list((0..ns).map(|s| format!("\"s{s}\"")));
        let rows = list((0..ns).map(|s| {
            format!("[{}]", list((0..14).map(|x| (if x % ns == s { "0.0714285714285714" } else { "0" }).into())))
        }));
        let secret = format!(r#","secret":{{"labels":[{labels}],"p_sx":[{rows}]}}"#);
        let text = format!(
            r#"{{"format":"privlift-mechanism","version":1,"id":"u","labels":[{}],"prior":[{}],"claims":{{"lip":50}},
            "mechanism":{{"kind":"unary","q01":0.25,"q10":0.5}}{secret}}}"#,
            list((0..14).map(|i| format!("\"v{i}\""))),
            list((0..14).map(|_| "0.0714285714285714".into()))
        );
        Document::from_json(&text).unwrap()
    };
    assert_boundary(&doc(16), &doc(40));
}

#[test]
fn a_bp_lip_claim_counts_each_prior() {
    let priors = |n: usize| {
        let p = list((0..n).map(|i| {
            format!("[{}]", list((0..512).map(|x| format!("{}", if x % 2 == i % 2 { 1.5 } else { 0.5 } / 512.0))))
        }));
        format!(r#","bp_lip":{{"eps":50,"priors":[{p}]}}"#)
    };
    assert_boundary(&discrete(512, &rr(512), &priors(64), ""), &discrete(512, &rr(512), &priors(74), ""));
}

/// A Gaussian document on `n` points of `[lo, hi]` with `sigma` (value units, one or one
/// per point), a wide prior and a claim any such noise meets.
fn gaussian(lo: f64, hi: f64, n: usize, sigma: &str) -> ContinuousDocument {
    let step = (hi - lo) / (n as f64 - 1.0);
    let text = format!(
        r#"{{"format":"privlift-mechanism","version":1,"id":"g","domain":{{"lo":{lo},"hi":{hi},"step":{step}}},
        "prior":{{"gmm":{{"weights":[1],"means":[{}],"sds":[{}]}}}},
        "mechanism":{{"kind":"gaussian","sigma":{sigma}}},"claims":{{"lip":{{"eps":1,"delta":0.99}}}}}}"#,
        (lo + hi) / 2.0,
        hi - lo
    );
    ContinuousDocument::from_json(&text).unwrap()
}

fn assert_continuous_boundary(under: &ContinuousDocument, over: &ContinuousDocument) {
    let policy = ContinuousPolicy::default();
    let (wu, wo) = (under.verify_work(&policy).unwrap().0, over.verify_work(&policy).unwrap().0);
    assert!(wu <= DEFAULT_MAX_VERIFY_WORK && wo > DEFAULT_MAX_VERIFY_WORK, "{wu} {wo}");
    under.verify(&policy).unwrap();
    assert_eq!(over.verify(&policy).unwrap_err().code(), "too_costly");
}

#[test]
fn a_gaussian_lip_delta_counts_points_times_its_table() {
    // The salary domain with the σ `gaussian-lip` gives at ε 1, δ 1e-5 (3× the width).
    let doc = |n| gaussian(15000.0, 240000.0, n, "685168.9");
    assert_continuous_boundary(&doc(491), &doc(541));
}

#[test]
fn gaussian_noise_tables_count_every_exp() {
    // Two points: the tables alone (σ in lattice steps).
    assert_continuous_boundary(&gaussian(0.0, 1.0, 2, "26000"), &gaussian(0.0, 1.0, 2, "31000"));
}

#[test]
fn one_sigma_per_point_counts_every_pair_of_points() {
    // 128 points (the most whose LDP δ is audited pairwise), two σ alternating.
    let doc = |s: f64| {
        let sigma = list((0..128).map(|k| format!("{}", if k % 2 == 0 { s } else { 1.1 * s })));
        gaussian(0.0, 127.0, 128, &format!("[{sigma}]"))
    };
    assert_continuous_boundary(&doc(180.0), &doc(220.0));
}
