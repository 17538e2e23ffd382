//! What every published document must be, on the requests that used to break it: BP-LIP
//! RR with priors that disagree on their support, linear reduction with inputs of no or
//! of vanishing mass, and SRLIP's utility. Each request below is feasible (the output
//! that ignores X meets every budget), so each must give a document whose rows are
//! distributions, whose claims are finite and hold **exactly** (the audited figure, rounded
//! up, at most the claim) and whose utility figures are defined only where they mean
//! something. The reported requests are pinned as fixed instances, each beside a seeded
//! family of its kind.
#![allow(clippy::needless_range_loop)] // index loops mirror the maths

use privlift::document::{Alphabet, Document, Matrix, MechanismKind};
use privlift::param::Epsilon;
use privlift::Policy;
use privlift_design::srlip::{srlip, MultiJoint};
use privlift_design::utility::channel_utility;
use privlift_design::{linear, orr, rr, Source};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::{assert_rows_stochastic, joint, normalised};

/// Re-parses the published JSON, checks that every row of the mechanism is a
/// distribution and every claim against the library's audit with no tolerance,
/// and returns the re-parsed document.
fn claims_hold_exactly(doc: &Document, what: &str) -> Document {
    let doc = Document::from_json(&doc.to_json()).unwrap_or_else(|e| panic!("{what}: published JSON: {e}"));
    assert_rows_stochastic(&doc, what);
    let policy = Policy { max_verify_work: Some(f64::INFINITY), ..Policy::default() };
    let report = doc.check(&policy).unwrap();
    assert!(!report.claims.is_empty(), "{what}: no claim");
    for c in &report.claims {
        assert!(c.bound.is_finite(), "{what}: {} claimed as {}", c.notion, c.bound);
        assert!(c.actual <= c.bound, "{what}: {} audits at {} above its claim {}", c.notion, c.actual, c.bound);
    }
    doc
}

// ---------- BP-LIP RR ----------

/// By the modular property (Jiang et al. Lemma 2) a channel ε-LIP under every prior is
/// ε-LIP under their mean, the `lip` claim of the document: the priors [½, ½, 0] and
/// [⅓, ⅓, ⅓] at ε = 0.5 (the third input bounded only under the second prior) audited at
/// 0.5439 under the mean and were refused. Priors with zeros at random places, each
/// request feasible, all give documents.
#[test]
fn bp_lip_holds_under_the_mean_of_priors_that_disagree_on_their_support() {
    let third = 1.0 / 3.0;
    let priors = vec![vec![0.5, 0.5, 0.0], vec![third, third, 1.0 - 2.0 * third]];
    let doc = rr::rr_bp_lip(
        Alphabet::indices("x", 3).unwrap(),
        &priors,
        Epsilon::positive("epsilon", 0.5).unwrap(),
        None,
        "bp",
    )
    .unwrap();
    let doc = claims_hold_exactly(&doc, "bp-lip [½, ½, 0], [⅓, ⅓, ⅓]");
    assert_eq!(doc.claims().lip.map(|b| b.get()), Some(0.5));

    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut zero_somewhere = 0;
    for case in 0..120 {
        let k = rng.random_range(2..=5usize);
        let n = rng.random_range(2..=4usize);
        let priors: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let mut p: Vec<f64> = (0..k).map(|_| rng.random::<f64>() + 0.02).collect();
                // Zero up to k − 1 inputs of this prior.
                for _ in 0..rng.random_range(0..k) {
                    p[rng.random_range(0..k)] = 0.0;
                }
                if p.iter().all(|&v| v == 0.0) {
                    p[0] = 1.0;
                }
                normalised(p)
            })
            .collect();
        zero_somewhere += usize::from(priors.iter().any(|p| p.contains(&0.0)));
        let eps = 10f64.powf(rng.random_range(-1.3..0.7));
        let what = format!("case {case}: priors {priors:?} at ε = {eps}");
        let doc = rr::rr_bp_lip(
            Alphabet::indices("x", k).unwrap(),
            &priors,
            Epsilon::positive("epsilon", eps).unwrap(),
            None,
            "bp",
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let doc = claims_hold_exactly(&doc, &what);
        assert_eq!(doc.claims().lip.map(|b| b.get()), Some(eps), "{what}");
        assert_eq!(doc.claims().bp_lip.as_ref().map(|b| b.eps.get()), Some(eps), "{what}");
    }
    assert!(zero_somewhere >= 80, "{zero_somewhere} of 120 families had a zero");
}

// ---------- Linear reduction: inputs of no mass ----------

/// An input with P_X(x) = 0 appears in no P(y|s), so its row of the Markov channel is
/// free; eq 7's row released an output no other input produces (an unbounded LDP w.r.t.
/// X, published as a claim of ∞ and refused). Its row is P_X now, and the claimed LDP
/// w.r.t. X is that of the other rows. The transport LP (12) sent its residue (3e-17) to
/// an output of no mass under one secret: unbounded LDP and LIP w.r.t. S, where α = 1
/// gives P(y|s) = P_X(y) for every s, no leakage at all. (On |x − y| LP 12 is the
/// north-west plan now; the discrete metric still has it solved.)
#[test]
fn linear_designs_with_inputs_of_no_mass_claim_finite_bounds() {
    let src = joint(2, 3, vec![0.3, 0.2, 0.0, 0.1, 0.4, 0.0]);
    let doc = claims_hold_exactly(&linear::markov(&src, 0.5, "lm").unwrap(), "markov, P_X(2) = 0");
    let MechanismKind::PerSecret { markov: Some(w), .. } = doc.mechanism() else { panic!("not Markov") };
    assert_eq!(w.row(2), &src.p_x()[..]);
    // (1 − α + αp)/(αp) at the rarer input p = 0.4: the LDP of eq 7's rows alone.
    let ldp_x = doc.claims().ldp_x.expect("an LDP w.r.t. X is claimed").get();
    assert!((ldp_x - (0.7f64 / 0.2).ln()).abs() < 1e-12, "{ldp_x}");

    let src = joint(4, 10, LDP_INF.concat());
    for (doc, m) in [
        (linear::distance(&src, 1.0, None, "ld").unwrap(), "distance"),
        (linear::distance(&src, 1.0, Some(&discrete_metric(10)), "ld").unwrap(), "distance, LP 12"),
        (linear::tv(&src, 1.0, "ltv").unwrap(), "tv"),
        (linear::markov(&src, 1.0, "lm").unwrap(), "markov"),
    ] {
        let doc = claims_hold_exactly(&doc, m);
        let c = doc.claims();
        assert!(c.ldp.unwrap().get() <= 1e-12 && c.lip.unwrap().get() <= 1e-12, "{m} at α = 1: {c:?}");
    }

    let mut rng = ChaCha8Rng::seed_from_u64(47);
    for case in 0..60 {
        let (ns, nx) = (rng.random_range(2..=4usize), rng.random_range(3..=7usize));
        let mut v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>()).collect();
        for _ in 0..rng.random_range(1..=2usize) {
            let x = rng.random_range(0..nx);
            (0..ns).for_each(|s| v[s * nx + x] = 0.0);
        }
        let src = joint(ns, nx, v);
        let alpha = if case % 4 == 0 { 1.0 } else { rng.random_range(0.05..1.0) };
        let what = |m: &str| format!("case {case} {m}: |S| = {ns}, P_X = {:?}, α = {alpha}", src.p_x());
        let markov = linear::markov(&src, alpha, "lm").unwrap_or_else(|e| panic!("{}: {e}", what("markov")));
        let markov = claims_hold_exactly(&markov, &what("markov"));
        assert!(markov.claims().ldp_x.is_some(), "{}", what("markov"));
        let d = discrete_metric(nx);
        for (doc, m) in [
            (linear::tv(&src, alpha, "ltv"), "tv"),
            (linear::distance(&src, alpha, None, "ld"), "distance"),
            (linear::distance(&src, alpha, Some(&d), "ld"), "distance, LP 12"),
        ] {
            let doc = claims_hold_exactly(&doc.unwrap_or_else(|e| panic!("{}: {e}", what(m))), &what(m));
            let c = doc.claims();
            assert!(c.ldp.is_some() && c.lip.is_some(), "{}: {c:?}", what(m));
            if alpha == 1.0 {
                assert!(c.ldp.unwrap().get() <= 1e-12 && c.lip.unwrap().get() <= 1e-12, "{}: {c:?}", what(m));
            }
        }
    }
}

/// The discrete metric over `k` inputs (1 between any two): a metric on no line, so that
/// `linear::distance` solves its LP (12).
fn discrete_metric(k: usize) -> Matrix {
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { 0.0 } else { 1.0 }).collect())
}

/// Test data: the joint of the unbounded-LDP report (4 secrets, 10 inputs, five of no
/// mass), rows s.
const LDP_INF: [[f64; 10]; 4] = [
    [
        0.005165250859282622,
        0.0,
        0.009973390551018065,
        0.010648645029064338,
        0.0,
        0.01896990167597405,
        0.0,
        0.019705657239864196,
        0.0,
        0.01982293722629674,
    ],
    [
        0.031168345066331003,
        0.0,
        0.06235307849124966,
        0.06780043344872135,
        0.0,
        0.11878614017593307,
        0.0,
        0.11845406730100592,
        0.0,
        0.12468523037477093,
    ],
    [
        0.009219017265901411,
        0.0,
        0.01952406563073697,
        0.02072179552842658,
        0.0,
        0.03714203576467198,
        0.0,
        0.03454538197389647,
        0.0,
        0.03759561778157276,
    ],
    [
        0.013971034721840463,
        0.0,
        0.0279725691116596,
        0.027920972873502148,
        0.0,
        0.05622670914502046,
        0.0,
        0.050830731428124463,
        0.0,
        0.05679699133513464,
    ],
];

// ---------- Linear reduction: inputs of vanishing mass ----------

/// Checks eq 3 of Ding, Liu, Farokhi on the published blocks:
/// P(y|s) = (1 − α)P(x = y|s) + αP_X(y), to 1e-9 in units of P(·|s).
fn eq3_holds(doc: &Document, src: &Source, alpha: f64, what: &str) {
    let MechanismKind::PerSecret { p_y_given_sx, .. } = doc.mechanism() else { panic!("{what}: not per secret") };
    let (p_sx, p_x) = (src.p_sx(), src.p_x());
    let k = p_x.len();
    for (s, block) in p_y_given_sx.iter().enumerate() {
        let ps: f64 = p_sx.row(s).iter().sum();
        for y in 0..k {
            let got: f64 = (0..k).map(|x| p_sx.get(s, x) / ps * block.get(x, y)).sum();
            let want = (1.0 - alpha) * p_sx.get(s, y) / ps + alpha * p_x[y];
            assert!((got - want).abs() <= 1e-9, "{what}: P({y}|{s}) = {got}, eq 3 gives {want}");
        }
    }
}

/// An input of mass 1e-10 gives a row of the per-secret block whose off-diagonal entries
/// were transport flows divided by P(x|s) ≈ 2e-10: the solver's absolute error made the
/// row sum to 1.0417 (distance) and the north-west rule's rounding to 0.99999999386
/// (TV), and the documents were refused. The row gives away exactly
/// α(1 − P_X(x)/P(x|s)) now, split in the plan's proportions.
#[test]
fn linear_rows_are_distributions_at_vanishing_masses() {
    let src = joint(2, 3, vec![0.1, 1e-10, 0.4, 0.15, 1.2e-10, 0.35]);
    let lp_12 = claims_hold_exactly(&linear::distance(&src, 0.5, Some(&discrete_metric(3)), "ld").unwrap(), "LP 12");
    eq3_holds(&lp_12, &src, 0.5, "distance (LP 12), 1e-10");
    let doc = claims_hold_exactly(&linear::distance(&src, 0.5, None, "ld").unwrap(), "distance, 1e-10");
    eq3_holds(&doc, &src, 0.5, "distance, 1e-10");
    let MechanismKind::PerSecret { p_y_given_sx, .. } = doc.mechanism() else { unreachable!() };
    // s = 1, x = 1: P(x|s) = 2.4e-10 > P_X(x) = 2.2e-10 gives away α(1 − 2.2/2.4) = 1/24.
    let p_sx = src.p_sx();
    let (p_x, cond) = (src.p_x()[1], p_sx.get(1, 1) / p_sx.row(1).iter().sum::<f64>());
    assert!((1.0 - p_y_given_sx[1].get(1, 1) - 0.5 * (1.0 - p_x / cond)).abs() < 1e-13);
    assert!((p_y_given_sx[1].get(1, 1) - 23.0 / 24.0).abs() < 1e-6);

    let tiny = joint(
        2,
        3,
        vec![
            0.09924282110917192,
            7.634009932147556e-10,
            0.33518474308846596,
            0.1381295236387871,
            1.0212689747157843e-09,
            0.42744291037890497,
        ],
    );
    let doc = claims_hold_exactly(&linear::tv(&tiny, 0.118, "ltv").unwrap(), "tv, 1e-9");
    eq3_holds(&doc, &tiny, 0.118, "tv, 1e-9");

    let mut rng = ChaCha8Rng::seed_from_u64(53);
    for case in 0..80 {
        let (ns, nx) = (rng.random_range(2..=4usize), rng.random_range(3..=6usize));
        let mut v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>() + 0.02).collect();
        for _ in 0..rng.random_range(1..=2usize) {
            let x = rng.random_range(0..nx);
            (0..ns).for_each(|s| v[s * nx + x] *= 10f64.powf(rng.random_range(-12.0..-8.0)));
        }
        let src = joint(ns, nx, v);
        let alpha = rng.random_range(0.02..1.0);
        let what = |m: &str| format!("case {case} {m}: |S| = {ns}, P_X = {:?}, α = {alpha}", src.p_x());
        for (doc, m) in [
            (linear::tv(&src, alpha, "ltv"), "tv"),
            (linear::distance(&src, alpha, None, "ld"), "distance"),
            (linear::distance(&src, alpha, Some(&discrete_metric(nx)), "ld"), "distance, LP 12"),
            (linear::markov(&src, alpha, "lm"), "markov"),
        ] {
            let doc = claims_hold_exactly(&doc.unwrap_or_else(|e| panic!("{}: {e}", what(m))), &what(m));
            eq3_holds(&doc, &src, alpha, &what(m));
        }
    }
}

// ---------- Utility ----------

fn multi(ns: usize, sizes: &[usize], p: Vec<f64>) -> MultiJoint {
    let nx: usize = sizes.iter().product();
    let attrs = sizes.iter().enumerate().map(|(j, &a)| Alphabet::indices(&format!("a{j}"), a).unwrap()).collect();
    MultiJoint::new(Alphabet::indices("s", ns).unwrap(), attrs, Matrix::from_flat(ns, nx, normalised(p))).unwrap()
}

/// SRLIP's outputs are ORR or optimal-LDP posterior columns, not values of X: TV, the
/// MAE and the expected distortion are `null` (as for ORR on the same joint) and
/// P(Y ≠ X) is 1. They were computed as if Y = X (a TV of 0.638 and an MAE of 0.846 on
/// the first joint below). When every attribute falls back to k-RR, the output is a value
/// of X and TV is P(Y ≠ X) again.
#[test]
fn srlip_utilities_of_outputs_that_are_not_values_of_x_are_null() {
    let one = multi(
        4,
        &[3],
        vec![
            0.09981255890232649,
            0.06583610862807965,
            0.14437094803147027,
            4.7196755620911454e-08,
            0.11603601510761273,
            0.04176959782342046,
            0.16166715514276872,
            0.10668007017929468,
            0.052689681122103704,
            0.10898947656290613,
            0.019038504144877202,
            0.08310983715838435,
        ],
    );
    let two = multi(1, &[3, 2], vec![0.12368669996503456, 0.0, 0.21264275320658282, 0.0, 0.0, 0.6636705468283826]);
    let null = |d: &Document, f: &str| d.utility().unwrap()[f].is_null();
    for (joint, eps, what) in [(&one, 0.0992, "one attribute"), (&two, 0.1422, "3 × 2")] {
        let doc =
            claims_hold_exactly(&srlip(joint, Epsilon::positive("epsilon", eps).unwrap(), "srlip").unwrap(), what);
        for f in ["tv", "mae", "expected_distortion"] {
            assert!(null(&doc, f), "{what}: {f} = {}", doc.utility().unwrap()[f]);
        }
        assert_eq!(doc.utility().unwrap()["hamming"].as_f64(), Some(1.0), "{what}");
    }
    let orr = orr::orr_lip(&one.source().unwrap(), Epsilon::positive("epsilon", 0.0992).unwrap(), "orr").unwrap();
    assert!(null(&orr, "tv"));

    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let large = multi(2, &[5, 5, 5], (0..250).map(|_| rng.random::<f64>()).collect());
    let doc =
        claims_hold_exactly(&srlip(&large, Epsilon::positive("epsilon", 1.0).unwrap(), "large").unwrap(), "5 × 5 × 5");
    let u = doc.utility().unwrap();
    assert!(u["attributes"].as_array().unwrap().iter().all(|a| a["construction"].as_str() == Some("krr")), "{u}");
    let w = doc.mechanism().channel_matrix(125).unwrap();
    let p_x = large.source().unwrap().p_x();
    let stay: f64 = (0..125).map(|x| p_x[x] * w.get(x, x)).sum();
    assert!((u["tv"].as_f64().unwrap() - (1.0 - stay)).abs() < 1e-12, "{u}");
    assert_eq!(u["tv"], u["hamming"]);
}

/// 1 − Σ_x P(x)P(x|x) is never negative: the rounded sum exceeds 1 by an ulp on some
/// priors (a TV and P(Y ≠ X) of −2.2e-16 were printed).
#[test]
fn tv_and_hamming_are_never_negative() {
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let mut above_one = 0;
    for _ in 0..500 {
        let k = rng.random_range(2..=6usize);
        let p = normalised((0..k).map(|_| rng.random::<f64>()).collect());
        let identity = Matrix::diag(&vec![1.0; k]);
        above_one += usize::from(p.iter().sum::<f64>() > 1.0);
        let u = channel_utility(&p, &identity, None);
        assert!(u.tv.unwrap() >= 0.0 && u.hamming.unwrap() >= 0.0, "{p:?}: {u:?}");
        assert!(u.tv.unwrap() <= 1e-15, "{p:?}: {u:?}");
    }
    assert!(above_one >= 10, "{above_one} priors sum above 1");
}
