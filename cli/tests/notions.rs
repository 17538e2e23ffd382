//! The lift-based and lift-inverse notions of Zarrabian, Ding, Sadeghi Sec. VI
//! (ℓ1, χ², α-lift: eqs 27–33) enforced by the watchdog (complete merging) and subset
//! merging (Algorithm 1): every design audits within its claim, on a hand-computed joint
//! and on random joints, with the measures recomputed here from the published channel;
//! infeasible budgets are errors; the claims `l1`, `chi2`, `alpha` are checked by
//! verification (at the claim's own α); the budget and `alpha_order` parsing; and the
//! relations of Sec. VI between these measures and LIP/ALIP (Props 4 and 6, and the
//! "relaxation" of Sec. VI-B at symmetric budgets — Props 3 and 5 are checked, and their
//! failures pinned, in `tests/optimal.rs`, `lift_paper_props_1_3_5`); and the CLI.
//! Run with `cargo test -p privlift-cli --test notions`.
#![allow(clippy::needless_range_loop)] // index loops mirror the maths

use privlift::document::{Alphabet, Document, Matrix};
use privlift::param::Epsilon;
use privlift::{Error, Policy};
use privlift_design::lift::{JointView, MergedLifts, Notion};
use privlift_design::request::{self, DesignRequest};
use privlift_design::watchdog::{self, Partition};
use privlift_design::Source;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
#[path = "../../tests/common/lifts.rs"]
mod lifts;
use lifts::{random_lifts, Lifts};
use serde_json::{json, Value};

/// ε in nats, as a notion's budget.
fn nats(e: f64) -> Epsilon {
    Epsilon::new("epsilon", e).expect("a budget in [0, 700] nats")
}

// ---------- Helpers: joints, and the measures recomputed from a published document ----------

/// A joint with i.i.d. entries u^skew, normalised (skew 1: the paper's random instances;
/// larger skews give sharper posteriors and more high-risk symbols).
fn joint(rng: &mut ChaCha8Rng, ns: usize, nx: usize, skew: i32) -> Source {
    let v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>().powi(skew)).collect();
    joint_from(ns, nx, v)
}

fn joint_from(ns: usize, nx: usize, v: Vec<f64>) -> Source {
    let t: f64 = v.iter().sum();
    let m = Matrix::from_flat(ns, nx, v.iter().map(|x| x / t).collect());
    Source::joint(Alphabet::indices("s", ns).unwrap(), Alphabet::indices("x", nx).unwrap(), m).unwrap()
}

/// Per output y with P(y) > 0: the lifts (P(s), l(s,y)) of the secrets with P(s) > 0,
/// computed naively from the document's JSON (joint and channel).
fn output_lifts(doc: &Value) -> Vec<Vec<(f64, f64)>> {
    let rows = |v: &Value| -> Vec<Vec<f64>> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(|e| e.as_f64().unwrap()).collect())
            .collect()
    };
    let p_sx = rows(&doc["secret"]["p_sx"]);
    let w = common::channel_rows(doc);
    let (ns, nx, ny) = (p_sx.len(), w.len(), w[0].len());
    let p_s: Vec<f64> = p_sx.iter().map(|r| r.iter().sum()).collect();
    let mut out = Vec::new();
    for y in 0..ny {
        let p_sy: Vec<f64> = (0..ns).map(|s| (0..nx).map(|x| p_sx[s][x] * w[x][y]).sum()).collect();
        let p_y: f64 = p_sy.iter().sum();
        if p_y <= 0.0 {
            continue;
        }
        out.push((0..ns).filter(|&s| p_s[s] > 0.0).map(|s| (p_s[s], p_sy[s] / (p_s[s] * p_y))).collect());
    }
    out
}

/// (lift-inverse, lift-based) measure of one output for `notion` (eqs 27–32), naively.
fn measures(notion: &Notion, lifts: &[(f64, f64)]) -> (f64, f64) {
    let avg = |f: &dyn Fn(f64) -> f64| -> f64 { lifts.iter().map(|&(p, l)| p * f(l)).sum() };
    match *notion {
        Notion::L1 { .. } => (avg(&|l| (1.0 / l - 1.0).abs()), avg(&|l| (l - 1.0).abs())),
        Notion::Chi2 { .. } => (avg(&|l| (1.0 / l - 1.0).powi(2)), avg(&|l| (l - 1.0).powi(2))),
        Notion::AlphaLift { order: a, .. } => {
            // Scaled by the largest term so that large orders do not overflow.
            let mean = |f: &dyn Fn(f64) -> f64| {
                let m = lifts.iter().map(|&(_, l)| f(l)).fold(0.0f64, f64::max);
                m * avg(&|l| (f(l) / m).powf(a)).powf(1.0 / a)
            };
            (mean(&|l| 1.0 / l), mean(&|l| l))
        }
        _ => unreachable!("not a lift-measure notion"),
    }
}

/// The Sec. VI-B bounds (lift-inverse, lift-based) of a lift-measure notion.
fn bounds(notion: &Notion) -> (f64, f64) {
    match *notion {
        Notion::L1 { eps_l, eps_u } => (eps_l.get().exp_m1(), eps_u.get().exp_m1()),
        Notion::Chi2 { eps_l, eps_u } => (eps_l.get().exp_m1().powi(2), eps_u.get().exp_m1().powi(2)),
        Notion::AlphaLift { eps_l, eps_u, .. } => (eps_l.get().exp(), eps_u.get().exp()),
        _ => unreachable!("not a lift-measure notion"),
    }
}

fn meets(notion: &Notion, lifts: &[(f64, f64)]) -> bool {
    let ((mi, mb), (bi, bb)) = (measures(notion, lifts), bounds(notion));
    mi <= bi * (1.0 + 1e-9) + 1e-12 && mb <= bb * (1.0 + 1e-9) + 1e-12
}

/// The lifts of input set `set` merged into one output, naively from the joint.
fn set_lifts(src: &Source, set: &[usize]) -> Vec<(f64, f64)> {
    let m = src.p_sx();
    let p: f64 = set.iter().map(|&x| (0..m.rows()).map(|s| m.get(s, x)).sum::<f64>()).sum();
    (0..m.rows())
        .map(|s| (m.row(s).iter().sum::<f64>(), set.iter().map(|&x| m.get(s, x)).sum::<f64>()))
        .filter(|&(ps, _)| ps > 0.0)
        .map(|(ps, j)| (ps, j / (ps * p)))
        .collect()
}

/// The claim a design for `notion` must make, as JSON.
fn claim(notion: &Notion) -> Value {
    match *notion {
        Notion::L1 { eps_l, eps_u } => json!({"l1": {"eps_l": eps_l.get(), "eps_u": eps_u.get()}}),
        Notion::Chi2 { eps_l, eps_u } => json!({"chi2": {"eps_l": eps_l.get(), "eps_u": eps_u.get()}}),
        Notion::AlphaLift { order, eps_l, eps_u } => {
            json!({"alpha": {"order": order, "eps_l": eps_l.get(), "eps_u": eps_u.get()}})
        }
        _ => unreachable!(),
    }
}

/// Checks a published design for `notion`: it re-parses; it claims exactly the notion's
/// budget; the library's verification confirms it (two checks, εl and εu); every
/// output, recomputed here, meets the Sec. VI-B bounds; the partition covers X, its
/// low-risk symbols meet the notion alone and its high-risk ones do not; and the
/// utility carries `mi_xy` and `nmi`. Returns the partition.
fn check_design(src: &Source, notion: &Notion, doc: &Document) -> Partition {
    let text = doc.to_json();
    let parsed = Document::from_json(&text).expect("published JSON re-parses");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["claims"], claim(notion));
    let report = parsed.check(&Policy::default()).unwrap();
    assert!(report.claims_hold, "{:?}", report.claims);
    let names: Vec<&str> = report.claims.iter().map(|c| c.notion.as_str()).collect();
    let n = notion.name();
    assert_eq!(names, [format!("{n}.eps_l"), format!("{n}.eps_u")]);
    parsed.verify(&Policy::default()).expect("verifies");
    for lifts in output_lifts(&v) {
        assert!(meets(notion, &lifts), "{notion:?}: an output breaks the bound: {:?}", measures(notion, &lifts));
    }
    let u = &v["utility"];
    assert!(u["mi_xy"].as_f64().unwrap() >= 0.0 && u["nmi"].as_f64().unwrap() >= 0.0, "{u}");
    let ints =
        |v: &Value| -> Vec<usize> { v.as_array().unwrap().iter().map(|e| e.as_u64().unwrap() as usize).collect() };
    let low = ints(&u["low_risk"]);
    let groups: Vec<Vec<usize>> = u["groups"].as_array().unwrap().iter().map(ints).collect();
    let mut all: Vec<usize> = groups.iter().flatten().copied().chain(low.iter().copied()).collect();
    all.sort_unstable();
    assert_eq!(all, (0..src.labels().len()).collect::<Vec<_>>());
    let px = src.p_x();
    for &x in &low {
        assert!(px[x] == 0.0 || meets(notion, &set_lifts(src, &[x])), "low-risk {x} breaks {notion:?}");
    }
    for &x in groups.iter().flatten() {
        assert!(!meets(notion, &set_lifts(src, &[x])), "high-risk {x} meets {notion:?} alone");
    }
    Partition { low_risk: low, groups }
}

fn nmi(doc: &Document) -> f64 {
    doc.utility().unwrap()["nmi"].as_f64().unwrap()
}

/// The notions exercised, at budgets (εl, εu).
fn notions(eps_l: f64, eps_u: f64) -> [Notion; 4] {
    [
        Notion::L1 { eps_l: nats(eps_l), eps_u: nats(eps_u) },
        Notion::Chi2 { eps_l: nats(eps_l), eps_u: nats(eps_u) },
        Notion::AlphaLift { order: 2.0, eps_l: nats(eps_l), eps_u: nats(eps_u) },
        Notion::AlphaLift { order: 10.0, eps_l: nats(eps_l), eps_u: nats(eps_u) },
    ]
}

// ---------- A hand-computed joint ----------

/// |S| = 2 with P(s) = (½, ½), |X| = 4 with posteriors P(s0|x) = 0.8, 0.6, 0.5, 1/6,
/// so the lifts are (1.6, 0.4), (1.2, 0.8), (1, 1), (1/3, 5/3).
///
/// By hand, ℓ1 (eqs 27, 30): x0 has Λ_ℓ1 = ½·0.6 + ½·0.6 = 0.6 and
/// Ψ_ℓ1 = ½(1 − 1/1.6) + ½(1/0.4 − 1) = 0.9375; x1 0.2 and 0.2083; x2 0 and 0; x3 2/3
/// and 1.2. So at ε = 0.5 (bounds e^{0.5} − 1 =
/// 0.6487) X_H = {x0, x3}; merged they have P(s0|y) = 0.25/0.55, lifts (0.909, 1.091),
/// Λ_ℓ1 = 0.0909, Ψ_ℓ1 = 0.0917: private, so the watchdog releases x1, x2 and {x0, x3}.
/// At (εl, εu) = (0.7, 0.5): x0 is ℓ1-private (ln 1.9375 = 0.661 ≤ 0.7, ln 1.6 = 0.47 ≤
/// 0.5) although it is not (0.7, 0.5)-ALIP (−ln 0.4 = 0.92); x3 is not (ln 2.2 = 0.789):
/// X_H = {x3} alone, so **no watchdog exists** (`infeasible`).
#[test]
fn hand_computed_joint() {
    let src = joint_from(2, 4, vec![0.2, 0.15, 0.1, 0.05, 0.05, 0.1, 0.1, 0.25]);
    let view = JointView::new(&src.p_sx());
    let n = Notion::L1 { eps_l: nats(0.5), eps_u: nats(0.5) };
    let m0 = view.merged(&[0]).unwrap();
    let (ei, eu) = n.measure_eps(&m0).unwrap();
    assert!((ei - 1.9375f64.ln()).abs() < 1e-12 && (eu - 1.6f64.ln()).abs() < 1e-12, "{ei} {eu}");
    let m03 = view.merged(&[0, 3]).unwrap();
    let (ei, eu) = n.measure_eps(&m03).unwrap();
    let (l0, l1): (f64, f64) = (0.25 / 0.55 / 0.5, 0.3 / 0.55 / 0.5);
    let want_i: f64 = 0.5 * (1.0 / l0 - 1.0) + 0.5 * (1.0 - 1.0 / l1);
    let want_u: f64 = 0.5 * (1.0 - l0) + 0.5 * (l1 - 1.0);
    assert!((want_u - 0.0909).abs() < 1e-4 && (want_i - 0.0917).abs() < 1e-4);
    assert!((ei - want_i.ln_1p()).abs() < 1e-12 && (eu - want_u.ln_1p()).abs() < 1e-12);
    for doc in [watchdog::watchdog(&src, n, "cm").unwrap(), watchdog::subset_merging(&src, n, "sm").unwrap()] {
        let p = check_design(&src, &n, &doc);
        assert_eq!(p, Partition { low_risk: vec![1, 2], groups: vec![vec![0, 3]] });
    }
    // The same joint under (0.5, 0.5)-ALIP: x0 and x3 high-risk too (−ln 0.4 > 0.5).
    let (low, high) = watchdog::split(&view, &Notion::Alip { eps_l: nats(0.5), eps_u: nats(0.5) });
    assert_eq!((low, high), (vec![1, 2], vec![0, 3]));

    let asym = Notion::L1 { eps_l: nats(0.7), eps_u: nats(0.5) };
    assert_eq!(watchdog::split(&view, &asym), (vec![0, 1, 2], vec![3]));
    assert!(!Notion::Alip { eps_l: nats(0.7), eps_u: nats(0.5) }.admits(&m0));
    for r in [watchdog::watchdog(&src, asym, "cm"), watchdog::subset_merging(&src, asym, "sm")] {
        assert!(matches!(r, Err(Error::Infeasible { .. })), "{r:?}");
    }
    // Through the request layer: the same error, not a document.
    let req = |notion: &str, extra: Value| -> Result<Document, Error> {
        let mut v = json!({"joint": {"p_sx": [[0.2, 0.15, 0.1, 0.05], [0.05, 0.1, 0.1, 0.25]]}, "notion": notion});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        request::design("subset-merging", serde_json::from_value::<DesignRequest>(v).unwrap())
    };
    let e = req("l1", json!({"eps_l": 0.7, "eps_u": 0.5})).unwrap_err();
    assert_eq!(e.code(), "infeasible", "{e}");
    assert!(e.to_string().contains("l1"), "{e}");
    let doc = req("alpha", json!({"epsilon": 0.5, "alpha_order": 3})).unwrap();
    assert_eq!(doc.id(), "subset-merging-alpha3-eps0.5");
    check_design(&src, &Notion::AlphaLift { order: 3.0, eps_l: nats(0.5), eps_u: nats(0.5) }, &doc);
}

// ---------- Random joints ----------

/// Every design (watchdog and subset merging × ℓ1, χ², α = 2, α = 10 × symmetric and
/// asymmetric budgets) on random joints either audits within its claim
/// ([`check_design`]) or fails with `infeasible` — and then the merged X_H, recomputed
/// here, really breaks the notion, and both methods agree. Subset merging never has
/// lower utility than complete merging (eq 13: it refines X_H).
#[test]
fn designs_audit_within_their_claims_on_random_joints() {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let budgets = [(0.5, 0.5), (1.0, 1.0), (0.35, 0.65), (1.3, 0.7), (0.2, 1.5), (2.0, 2.0)];
    let (mut ok, mut infeasible, mut groups) = (0usize, 0usize, 0usize);
    for i in 0..24 {
        let (ns, nx) = if i % 3 == 0 { (5, 17) } else { (rng.random_range(2..5), rng.random_range(2..9)) };
        let src = joint(&mut rng, ns, nx, 1 + i % 3);
        for &(el, eu) in &budgets {
            for n in notions(el, eu) {
                let cm = watchdog::watchdog(&src, n, "cm");
                let sm = watchdog::subset_merging(&src, n, "sm");
                match (cm, sm) {
                    (Ok(cm), Ok(sm)) => {
                        let (pc, ps) = (check_design(&src, &n, &cm), check_design(&src, &n, &sm));
                        assert_eq!(pc.low_risk, ps.low_risk);
                        assert!(pc.groups.len() <= 1 && ps.groups.len() >= pc.groups.len());
                        assert!(nmi(&sm) >= nmi(&cm) - 1e-12, "{} < {}", nmi(&sm), nmi(&cm));
                        ok += 1;
                        groups += ps.groups.len();
                    }
                    (Err(Error::Infeasible { .. }), Err(Error::Infeasible { .. })) => {
                        let view = JointView::new(&src.p_sx());
                        let (_, high) = watchdog::split(&view, &n);
                        assert!(!high.is_empty());
                        assert!(!meets(&n, &set_lifts(&src, &high)), "merged X_H meets {n:?}");
                        infeasible += 1;
                    }
                    other => panic!("inconsistent outcome for {n:?}: {other:?}"),
                }
            }
        }
    }
    eprintln!("{ok} designs audited ({groups} subset-merging groups), {infeasible} infeasible");
    assert!(ok >= 400 && infeasible >= 5 && groups >= 200, "{ok} {infeasible} {groups}");
}

// ---------- The risk metric of Algorithm 1 ----------

/// Our ω = max{ε̂u/εu, ε̂l/εl} against the printed ω = Ψ_α + Λ_α (Sec. VI-B).
///
/// With P(s) = (0.9, 0.1) and (εl, εu) = (2, 0.3) at α = 2: A with lifts (1.1, 0.1) has
/// Λ_2 = 1.044, Ψ_2 = 3.28 (ln 1.19 ≤ 2: private); B with lifts (2/3, 4) has
/// Λ_2 = 1.414 (ln 0.347 > 0.3: not private), Ψ_2 = 1.425. The printed sum ranks A
/// (4.32) riskier than B (2.84): it adds a measure bounded by e^{εl} = 7.4 to one bounded
/// by e^{εu} = 1.35. Ours ranks B first (1.16 against 0.6) and is ≤ 1 exactly for the
/// private one. On random joints both orderings give private partitions; the mean NMI
/// is printed and ours is not worse by more than 0.02.
#[test]
fn risk_metric() {
    let n = Notion::AlphaLift { order: 2.0, eps_l: nats(2.0), eps_u: nats(0.3) };
    let m = |l0: f64, l1: f64| MergedLifts { terms: vec![(0.9, l0), (0.1, l1)], lambda: l0.max(l1), psi: l0.min(l1) };
    let (a, b) = (m(1.1, 0.1), m(2.0 / 3.0, 4.0));
    for x in [&a, &b] {
        let s: f64 = x.terms.iter().map(|&(p, l)| p * l).sum();
        assert!((s - 1.0).abs() < 1e-12, "Σ P(s) l(s,y) = 1");
    }
    assert!(n.admits(&a) && !n.admits(&b));
    assert!(n.paper_measure_risk(&a) > n.paper_measure_risk(&b));
    assert!(n.risk_of(&b) > 1.0 && n.risk_of(&a) <= 1.0);
    assert!((n.paper_measure_risk(&a) - 4.32).abs() < 0.01 && (n.risk_of(&b) - 1.16).abs() < 0.01);

    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for n in notions(1.3, 0.7) {
        let (mut ours, mut paper, mut count) = (0.0, 0.0, 0usize);
        for _ in 0..20 {
            let src = joint(&mut rng, 5, 17, 1);
            let view = JointView::new(&src.p_sx());
            let (Ok(x), Ok(y)) = (
                watchdog::subset_merging_partition(&view, &n),
                watchdog::subset_merging_partition_by(&view, &n, |m| n.paper_measure_risk(m)),
            ) else {
                continue;
            };
            for p in [&x, &y] {
                for g in &p.groups {
                    assert!(n.admits(&view.merged(g).unwrap()));
                }
            }
            ours += merged_nmi(&view, &x);
            paper += merged_nmi(&view, &y);
            count += 1;
        }
        assert!(count >= 15, "{count}");
        let (ours, paper) = (ours / count as f64, paper / count as f64);
        eprintln!("{} at (1.3, 0.7): NMI {ours:.3} with our risk, {paper:.3} with the printed sum", n.name());
        assert!(ours >= paper - 0.02, "{n:?}: {ours} vs {paper}");
    }
}

/// NMI of a merging partition by eq 13.
fn merged_nmi(view: &JointView, p: &Partition) -> f64 {
    let h: f64 = view.p_x.iter().filter(|&&v| v > 0.0).map(|&v| -v * v.ln()).sum();
    let loss: f64 = p
        .groups
        .iter()
        .map(|g| {
            let pg: f64 = g.iter().map(|&x| view.p_x[x]).sum();
            g.iter().map(|&x| view.p_x[x]).filter(|&v| v > 0.0).map(|v| -v * (v / pg).ln()).sum::<f64>()
        })
        .sum();
    (h - loss) / h
}

/// Large orders do not overflow: Ψ_α with inverse lifts (4, 4/7) at α = 2000 is
/// 4·0.5^{1/2000} ≈ 3.9986 (unscaled, 4^2000 = ∞), close to 1/Ψ = 4 as α → ∞; and the
/// subset-merging design at α = 1000 audits within its claim, with X_L that of ALIP at the
/// same budgets or larger.
#[test]
fn large_orders() {
    let terms = [(0.5, 0.25), (0.5, 1.75)];
    let v = privlift::leakage::alpha_lift(&terms, 2000.0, 0.0, true);
    let want = 4.0 * 0.5f64.powf(1.0 / 2000.0);
    assert!(v >= want && v - want < 1e-12, "{v} vs {want}");
    let small = privlift::leakage::alpha_lift(&terms, 3.0, 0.0, false);
    let direct = (0.5 * 0.25f64.powi(3) + 0.5 * 1.75f64.powi(3)).cbrt();
    assert!(small >= direct && small - direct < 1e-13, "{small} vs {direct}");

    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let n = Notion::AlphaLift { order: 1000.0, eps_l: nats(1.0), eps_u: nats(1.0) };
    let mut designed = 0;
    for _ in 0..10 {
        let src = joint(&mut rng, 5, 17, 2);
        let view = JointView::new(&src.p_sx());
        let lows = watchdog::split(&view, &Notion::Alip { eps_l: nats(1.0), eps_u: nats(1.0) }).0;
        assert!(lows.iter().all(|x| watchdog::split(&view, &n).0.contains(x)));
        if let Ok(doc) = watchdog::subset_merging(&src, n, "a") {
            check_design(&src, &n, &doc);
            designed += 1;
        }
    }
    assert!(designed >= 5, "{designed}");
}

// ---------- Claims and their verification ----------

fn designed(notion: Notion) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let src = joint(&mut rng, 3, 6, 2);
    let doc = watchdog::subset_merging(&src, notion, "d").unwrap();
    serde_json::from_str(&doc.to_json()).unwrap()
}

/// A claim tighter than the audited measure is refused by `verify` with
/// `claim_violated` naming the side (`l1.eps_u`, `chi2.eps_l`, …), and reported (not
/// refused) by `check`; the α claim is checked at its own order, whatever order the
/// audit prints; a malformed claim is `invalid_argument` at parse; an unknown claim is
/// still `json`.
#[test]
fn claims_are_verified() {
    for (n, side) in [
        (Notion::L1 { eps_l: nats(1.0), eps_u: nats(1.0) }, "eps_u"),
        (Notion::Chi2 { eps_l: nats(1.0), eps_u: nats(1.0) }, "eps_l"),
        (Notion::AlphaLift { order: 2.0, eps_l: nats(1.0), eps_u: nats(1.0) }, "eps_u"),
    ] {
        let mut v = designed(n);
        let name = n.name();
        let doc = Document::from_json(&v.to_string()).unwrap();
        let report = doc.check(&Policy::default()).unwrap();
        let actual = report.claims.iter().find(|c| c.notion == format!("{name}.{side}")).unwrap().actual;
        assert!(actual > 0.01 && actual <= 1.0, "{actual}");
        v["claims"][name][side] = json!(actual * 0.9);
        let doc = Document::from_json(&v.to_string()).unwrap();
        let report = doc.check(&Policy::default()).unwrap();
        assert!(!report.claims_hold);
        match doc.verify(&Policy::default()) {
            Err(Error::ClaimViolated { notion, claimed, actual: a }) => {
                assert_eq!(notion, format!("{name}.{side}"));
                assert!(claimed < a && (a - actual).abs() < 1e-9);
            }
            other => panic!("expected claim_violated, got {other:?}"),
        }
    }

    // The α claim at order 10 between ln Λ_2 and ln Λ_10: true at 2, false at 10.
    let mut v = designed(Notion::AlphaLift { order: 10.0, eps_l: nats(1.0), eps_u: nats(1.0) });
    let doc = Document::from_json(&v.to_string()).unwrap();
    let at = |k: f64| doc.audit(k).unwrap();
    let (a2, a10) = (at(2.0).alpha_lift.ln(), at(10.0).alpha_lift.ln());
    assert!(a2 < a10, "the α-lift grows with α: {a2} {a10}");
    v["claims"]["alpha"]["eps_u"] = json!((a2 + a10) / 2.0);
    let doc = Document::from_json(&v.to_string()).unwrap();
    for k in [2.0, 10.0, 50.0] {
        let r = doc.check_at(&Policy::default(), k).unwrap();
        assert!(!r.claims_hold, "audited at α = {k}: {:?}", r.claims);
    }
    assert!(matches!(doc.verify(&Policy::default()), Err(Error::ClaimViolated { .. })));
    v["claims"]["alpha"]["order"] = json!(2.0);
    let doc = Document::from_json(&v.to_string()).unwrap();
    assert!(doc.check_at(&Policy::default(), 10.0).unwrap().claims_hold);
    doc.verify(&Policy::default()).unwrap();

    for (claims, field) in [
        (json!({"alpha": {"order": 1.0, "eps_l": 1.0, "eps_u": 1.0}}), "claims.alpha.order"),
        (json!({"alpha": {"order": 0.5, "eps_l": 1.0, "eps_u": 1.0}}), "claims.alpha.order"),
        (json!({"l1": {"eps_l": -1.0, "eps_u": 1.0}}), "claims.l1.eps_l"),
        (json!({"chi2": {"eps_l": 1.0, "eps_u": -0.5}}), "claims.chi2.eps_u"),
    ] {
        v["claims"] = claims;
        match Document::from_json(&v.to_string()) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, field),
            other => panic!("{field}: expected invalid_argument, got {other:?}"),
        }
    }
    for claims in [json!({"alpha": {"eps_l": 1.0, "eps_u": 1.0}}), json!({"l2": {"eps_l": 1.0, "eps_u": 1.0}})] {
        v["claims"] = claims;
        let e = Document::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.code(), "json", "{e}");
    }
}

// ---------- Budget and alpha_order parsing ----------

fn request(method: &str, fields: Value) -> Result<Document, Error> {
    let mut v = json!({"joint": {"p_sx": [[0.2, 0.15, 0.1, 0.05], [0.05, 0.1, 0.1, 0.25]]}});
    v.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    request::design(method, serde_json::from_value::<DesignRequest>(v).unwrap())
}

/// `alpha_order` belongs to `alpha` only and `alpha` needs one, finite and > 1; the
/// lift-measure notions take `epsilon` or `eps_l` and `eps_u`, not both; SRR and the
/// `orr-*` methods refuse them. Each is `invalid_argument` naming the field.
#[test]
fn budget_and_alpha_order_errors() {
    let cases: &[(&str, Value, &str)] = &[
        ("watchdog", json!({"notion": "l1", "epsilon": 1, "alpha_order": 2}), "alpha_order"),
        ("watchdog", json!({"notion": "lip", "epsilon": 1, "alpha_order": 2}), "alpha_order"),
        ("watchdog", json!({"epsilon": 1, "alpha_order": 2}), "alpha_order"),
        ("subset-merging", json!({"notion": "alpha", "epsilon": 1}), "alpha_order"),
        ("subset-merging", json!({"notion": "alpha", "epsilon": 1, "alpha_order": 1}), "alpha_order"),
        ("subset-merging", json!({"notion": "alpha", "epsilon": 1, "alpha_order": 0.5}), "alpha_order"),
        ("subset-merging", json!({"notion": "alpha", "epsilon": 1, "alpha_order": -3}), "alpha_order"),
        ("watchdog", json!({"notion": "chi2", "epsilon": 1, "eps_l": 1, "eps_u": 1}), "epsilon"),
        ("watchdog", json!({"notion": "chi2", "eps_l": 1}), "eps_u"),
        ("watchdog", json!({"notion": "l1"}), "epsilon"),
        ("watchdog", json!({"notion": "l1", "epsilon": 0}), "eps_l"),
        ("watchdog", json!({"notion": "l1", "eps_l": 1, "eps_u": -1}), "eps_u"),
        ("srr", json!({"notion": "l1", "epsilon": 1}), "notion"),
        ("srr", json!({"notion": "alpha", "epsilon": 1, "alpha_order": 2}), "notion"),
        ("orr-lip", json!({"notion": "chi2", "epsilon": 1}), "notion"),
        ("watchdog", json!({"notion": "l2", "epsilon": 1}), "notion"),
    ];
    for (method, fields, field) in cases {
        match request(method, fields.clone()) {
            Err(Error::InvalidArgument { name, reason }) => {
                assert!(name.contains(field), "{method} {fields}: `{name}` ({reason}), expected `{field}`")
            }
            other => panic!("{method} {fields}: expected invalid_argument, got {other:?}"),
        }
    }
    let e = request("watchdog", json!({"notion": "l2", "epsilon": 1})).unwrap_err().to_string();
    assert!(e.contains("l1") && e.contains("chi2") && e.contains("alpha"), "{e}");
    // Symmetric `epsilon` is (ε, ε).
    let a = request("watchdog", json!({"notion": "chi2", "epsilon": 0.6})).unwrap();
    let b = request("watchdog", json!({"notion": "chi2", "eps_l": 0.6, "eps_u": 0.6})).unwrap();
    assert_eq!(a.claims(), b.claims());
    assert_eq!(a.id(), "watchdog-chi2-eps0.6");
    assert_eq!(b.id(), "watchdog-chi2-eps0.6-0.6");
}

// ---------- Sec. VI: the measures against LIP / ALIP ----------

/// Props 4 and 6 and the Sec. VI-B "relaxation" on 20,000 random mechanisms. All hold
/// (0 violations); the library relies on none of them — every claim is audited
/// directly — and the docs state only these.
///
/// * Prop 4 (a bound on a lift-based measure bounds the max-lift): with s_ȳ the secret
///   of the largest lift, 4.1 Λ ≤ max Λ_ℓ1 / P(s_ȳ) + 1, 4.2 Λ ≤ √(max Λ_χ² / P(s_ȳ)) + 1,
///   4.3 Λ ≤ max Λ_α / P(s_ȳ)^{1/α} — each since the measure has the term of s_ȳ.
/// * Prop 6 (lift-inverse ↔ min-lift), with s_y the secret of the smallest lift:
///   6.1 Ψ ≥ P/(max Ψ_ℓ1 + P), 6.2 Ψ ≥ √P/(√max Ψ_χ² + √P), 6.3 Ψ ≥ P^{1/α}/max Ψ_α.
/// * Sec. VI-B calls ℓ1/χ²/α privacy at (εl, εu) "relaxations" of (εl, εu)-ALIP. For α
///   it holds (Props 3.3, 5.3). For ℓ1/χ² it fails at asymmetric budgets (Props 3.1,
///   3.2, 5.1, 5.2 fail: pinned in `tests/optimal.rs`), but **holds at symmetric ones**:
///   if every lift is in [e^{−ε}, e^{ε}] with Σ_s P(s) l = 1, then Λ_ℓ1 ≤ 2 tanh(ε/2)
///   and Λ_χ² ≤ (e^ε − 1)(1 − e^{−ε}) (the two-point extremes), both ≤ the VI-B bounds
///   e^ε − 1 and (e^ε − 1)², and |1/l − 1| ≤ e^ε − 1 pointwise. So ε-LIP ⇒ ℓ1-, χ²- and
///   α-privacy at (ε, ε); checked here at ε = LIP of the instance, with the sharper
///   bounds.
/// * α-lift grows with α towards Λ (power means): Λ_2 ≤ Λ_10 ≤ Λ_100 ≤ Λ, and likewise
///   Ψ_α ≤ 1/Ψ; so α-privacy weakens as α decreases (Fig. 8's ordering).
#[test]
fn lift_paper_props_4_6_and_relaxation() {
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let names = [
        "4.1",
        "4.2",
        "4.3 a=2",
        "4.3 a=10",
        "6.1",
        "6.2",
        "6.3 a=2",
        "6.3 a=10",
        "LIP => l1",
        "LIP => l1-inv",
        "LIP => chi2",
        "LIP => chi2-inv",
        "LIP => alpha",
        "alpha monotone",
    ];
    let mut fails = [0usize; 14];
    let tol = 1e-9;
    for _ in 0..20_000 {
        let Lifts { p_s, l, .. } = random_lifts(&mut rng);
        let ny = l.len();
        let avg = |y: usize, f: &dyn Fn(f64) -> f64| -> f64 { p_s.iter().zip(&l[y]).map(|(p, &v)| p * f(v)).sum() };
        let maxy = |f: &dyn Fn(usize) -> f64| -> f64 { (0..ny).map(f).fold(0.0f64, f64::max) };
        let pow = |y: usize, a: f64| avg(y, &|v| v.powf(a)).powf(1.0 / a);
        let powi = |y: usize, a: f64| avg(y, &|v| v.powf(-a)).powf(1.0 / a);
        // ȳ, s_ȳ: the largest lift; y̲, s_y̲: the smallest.
        let (mut big, mut small) = ((0, 0, 0.0f64), (0, 0, f64::INFINITY));
        for y in 0..ny {
            for (s, &v) in l[y].iter().enumerate() {
                if v > big.2 {
                    big = (y, s, v);
                }
                if v < small.2 {
                    small = (y, s, v);
                }
            }
        }
        let (pb, ps) = (p_s[big.1], p_s[small.1]);
        let (lam, psi) = (big.2, small.2);
        let (l1, l1i) = (maxy(&|y| avg(y, &|v| (v - 1.0).abs())), maxy(&|y| avg(y, &|v| (1.0 / v - 1.0).abs())));
        let (c2, c2i) = (maxy(&|y| avg(y, &|v| (v - 1.0).powi(2))), maxy(&|y| avg(y, &|v| (1.0 / v - 1.0).powi(2))));
        let eps = lam.ln().max(-psi.ln());
        let (e, t) = (eps.exp_m1(), (eps / 2.0).tanh());
        let checks = [
            lam <= l1 / pb + 1.0 + tol,
            lam <= (c2 / pb).sqrt() + 1.0 + tol,
            lam <= maxy(&|y| pow(y, 2.0)) / pb.powf(0.5) * (1.0 + tol),
            lam <= maxy(&|y| pow(y, 10.0)) / pb.powf(0.1) * (1.0 + tol),
            psi >= ps / (l1i + ps) * (1.0 - tol),
            psi >= ps.sqrt() / (c2i.sqrt() + ps.sqrt()) * (1.0 - tol),
            psi >= ps.powf(0.5) / maxy(&|y| powi(y, 2.0)) * (1.0 - tol),
            psi >= ps.powf(0.1) / maxy(&|y| powi(y, 10.0)) * (1.0 - tol),
            l1 <= 2.0 * t + tol && 2.0 * t <= e + tol,
            l1i <= e + tol,
            c2 <= e * (-(-eps).exp_m1()) + tol && e * (-(-eps).exp_m1()) <= e * e + tol,
            c2i <= e * e + tol,
            maxy(&|y| pow(y, 2.0).max(powi(y, 2.0))) <= eps.exp() * (1.0 + tol),
            (0..ny).all(|y| {
                let (a, b, c) = (pow(y, 2.0), pow(y, 10.0), pow(y, 100.0));
                let (ai, bi, ci) = (powi(y, 2.0), powi(y, 10.0), powi(y, 100.0));
                let lmax = l[y].iter().fold(0.0f64, |m, &v| m.max(v));
                let imax = l[y].iter().fold(0.0f64, |m, &v| m.max(1.0 / v));
                a <= b * (1.0 + tol)
                    && b <= c * (1.0 + tol)
                    && c <= lmax * (1.0 + tol)
                    && ai <= bi * (1.0 + tol)
                    && bi <= ci * (1.0 + tol)
                    && ci <= imax * (1.0 + tol)
            }),
        ];
        for (f, ok) in fails.iter_mut().zip(checks) {
            *f += usize::from(!ok);
        }
    }
    for (n, f) in names.iter().zip(&fails) {
        eprintln!("{n}: violated on {f} of 20000");
    }
    assert_eq!(fails, [0; 14], "{names:?}");
}

/// Sec. VI-B's utility claims on the paper's setup (|S| = 5, |X| = 17, εl = εu = 1,
/// subset merging):
///
/// * per joint, X_L under (1, 1)-ALIP ⊆ X_L under each lift-measure notion at the same
///   budgets (the symmetric relaxation above; α: Props 3.3/5.3), and X_L shrinks as α
///   grows (α = 2 ⊇ 10 ⊇ 100);
/// * **but a larger X_L is not a feasible watchdog.** On some joints the ALIP watchdog
///   exists while the ℓ1 (or χ², α) one does not: X_H is smaller under the relaxed
///   notion, and merging the smaller X_H leaks more than merging the larger one did. The
///   ALIP design's channel is then itself ℓ1-private (checked): a private mechanism
///   exists, but the watchdog rule of eq 33 ("X_L: the symbols private alone") misses
///   it. We keep the paper's mechanism and report `infeasible`; the counts are pinned.
/// * on average over the joints where every notion has a watchdog, ℓ1, χ² and α-lift
///   privacy give higher NMI than ALIP (Figs. 7a, 8a), α = 2 the highest of the α's.
///   (Subset merging is greedy, so these orderings are not per-joint facts.)
#[test]
fn relaxations_keep_more_symbols_and_utility() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let e = 1.0;
    let ns = [
        Notion::Alip { eps_l: nats(e), eps_u: nats(e) },
        Notion::L1 { eps_l: nats(e), eps_u: nats(e) },
        Notion::Chi2 { eps_l: nats(e), eps_u: nats(e) },
        Notion::AlphaLift { order: 2.0, eps_l: nats(e), eps_u: nats(e) },
        Notion::AlphaLift { order: 10.0, eps_l: nats(e), eps_u: nats(e) },
        Notion::AlphaLift { order: 100.0, eps_l: nats(e), eps_u: nats(e) },
    ];
    let (mut sums, mut all, mut missed) = ([0.0; 6], 0usize, [0usize; 6]);
    for _ in 0..40 {
        let src = joint(&mut rng, 5, 17, 1);
        let view = JointView::new(&src.p_sx());
        let lows: Vec<Vec<usize>> = ns.iter().map(|n| watchdog::split(&view, n).0).collect();
        let subset = |a: &[usize], b: &[usize]| a.iter().all(|x| b.contains(x));
        for i in 1..6 {
            assert!(subset(&lows[0], &lows[i]), "{:?}: {:?} ⊄ {:?}", ns[i], lows[0], lows[i]);
        }
        assert!(subset(&lows[5], &lows[4]) && subset(&lows[4], &lows[3]));
        let docs: Vec<Result<Document, Error>> = ns.iter().map(|n| watchdog::subset_merging(&src, *n, "sm")).collect();
        let Ok(alip) = &docs[0] else { continue };
        let alip: Value = serde_json::from_str(&alip.to_json()).unwrap();
        for i in 1..6 {
            if let Err(e) = &docs[i] {
                assert!(matches!(e, Error::Infeasible { .. }), "{e}");
                missed[i] += 1;
                for lifts in output_lifts(&alip) {
                    assert!(meets(&ns[i], &lifts), "the ALIP design is not {:?}", ns[i]);
                }
            }
        }
        if docs.iter().all(Result::is_ok) {
            all += 1;
            for (s, d) in sums.iter_mut().zip(&docs) {
                *s += nmi(d.as_ref().unwrap());
            }
        }
    }
    let sums = sums.map(|s| s / all as f64);
    eprintln!(
        "NMI at εl = εu = 1 over {all} joints: ALIP {:.3}, ℓ1 {:.3}, χ² {:.3}, α = 2 {:.3}, α = 10 {:.3}, α = 100 {:.3}; \
         ALIP feasible but not: {missed:?}",
        sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]
    );
    assert!(all >= 20, "{all}");
    // Pinned: 5 of these joints have no ℓ1 watchdog, 1 none for χ², 1 none for α = 2.
    assert_eq!(missed, [0, 5, 1, 1, 0, 0], "the watchdog gap changed");
    for i in 1..6 {
        assert!(sums[i] > sums[0], "{:?}: {} vs ALIP {}", ns[i], sums[i], sums[0]);
    }
    assert!(sums[3] >= sums[4] && sums[3] >= sums[5]);
}

/// Fig. 7a's asymmetric curves: with εl = λε, εu = (1 − λ)ε, moving budget to the
/// lift-inverse side (λ = 0.65 against 0.5) "enhances utility significantly for ε > 1,
/// but worsens utility for ε < 1" (Sec. VI-B). Reproduced for ℓ1 and χ² on the paper's
/// setup (|S| = 5, |X| = 17, subset merging), averaging over the joints where both
/// budgets have a watchdog: at ε = 0.5 λ = 0.65 is worse (ℓ1 0.704 against 0.762), at
/// ε = 4 better (0.993 against 0.990). At ε = 4 about half of the 30 joints lack a
/// watchdog under one of the two budgets (the gap of
/// [`relaxed_notion_without_a_watchdog`]: a small X_H is hard to make private by merging).
#[test]
fn fig7_lift_inverse_budget_split() {
    for n in
        [|l, u| Notion::L1 { eps_l: nats(l), eps_u: nats(u) }, |l, u| Notion::Chi2 { eps_l: nats(l), eps_u: nats(u) }]
    {
        for (eps, better) in [(0.5, false), (4.0, true)] {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let (sym, asym) = (n(eps / 2.0, eps / 2.0), n(0.65 * eps, 0.35 * eps));
            let (mut a, mut b, mut both, mut missing) = (0.0, 0.0, 0usize, 0usize);
            for _ in 0..30 {
                let src = joint(&mut rng, 5, 17, 1);
                match (watchdog::subset_merging(&src, sym, "a"), watchdog::subset_merging(&src, asym, "b")) {
                    (Ok(x), Ok(y)) => {
                        a += nmi(&x);
                        b += nmi(&y);
                        both += 1;
                    }
                    _ => missing += 1,
                }
            }
            let (a, b) = (a / both as f64, b / both as f64);
            eprintln!(
                "{} at ε = {eps}: NMI λ = 0.5 {a:.3}, λ = 0.65 {b:.3} ({both} joints, {missing} without a watchdog)",
                sym.name()
            );
            assert!(both >= 10, "{both}");
            assert_eq!(b > a, better, "{sym:?}: λ = 0.65 gives {b}, λ = 0.5 {a}");
        }
    }
}

/// The watchdog gap of [`relaxations_keep_more_symbols_and_utility`] on a joint small
/// enough to check by hand: P_SX = [[1, 9, 6], [5, 15, 3]]/39 at εl = εu = 0.5, so
/// P(s) = (16, 23)/39 and the lifts are x0 (0.406, 1.413), x1 (0.914, 1.060),
/// x2 (1.625, 0.565).
///
/// * (0.5, 0.5)-ALIP: x0 and x2 are high-risk (Ψ < e^{−0.5} = 0.607); merged,
///   P(s0|y) = 7/15, lifts (1.138, 0.904): private. The watchdog is x1, {x0, x2}.
/// * ℓ1 at (0.5, 0.5), bounds e^{0.5} − 1 = 0.649: x0 has Λ_ℓ1 = 0.487, Ψ_ℓ1 = 0.772
///   (high-risk); x2 has 0.513 and 0.611 (low-risk, released alone). X_H = {x0} alone is
///   not private: **no ℓ1 watchdog**, although the ALIP watchdog's channel is ℓ1-private
///   (its outputs are checked here).
#[test]
fn relaxed_notion_without_a_watchdog() {
    let src = joint_from(2, 3, vec![1.0, 9.0, 6.0, 5.0, 15.0, 3.0]);
    let view = JointView::new(&src.p_sx());
    let (alip, l1) =
        (Notion::Alip { eps_l: nats(0.5), eps_u: nats(0.5) }, Notion::L1 { eps_l: nats(0.5), eps_u: nats(0.5) });
    let (i0, u0) = measures(&l1, &set_lifts(&src, &[0]));
    let (i2, u2) = measures(&l1, &set_lifts(&src, &[2]));
    assert!((u0 - 0.487).abs() < 1e-3 && (i0 - 0.772).abs() < 1e-3, "{u0} {i0}");
    assert!((u2 - 0.513).abs() < 1e-3 && (i2 - 0.611).abs() < 1e-3, "{u2} {i2}");
    assert_eq!(watchdog::split(&view, &alip), (vec![1], vec![0, 2]));
    assert_eq!(watchdog::split(&view, &l1), (vec![1, 2], vec![0]));
    let doc = watchdog::watchdog(&src, alip, "a").unwrap();
    let v: Value = serde_json::from_str(&doc.to_json()).unwrap();
    assert_eq!((&v["utility"]["low_risk"], &v["utility"]["groups"]), (&json!([1]), &json!([[0, 2]])));
    for lifts in output_lifts(&v) {
        assert!(meets(&l1, &lifts));
    }
    for r in [watchdog::watchdog(&src, l1, "b"), watchdog::subset_merging(&src, l1, "c")] {
        assert!(matches!(r, Err(Error::Infeasible { .. })), "{r:?}");
    }
}
