//! The secret's distribution from the MLE of P_X (`privlift_design::secret`): exact on
//! expected counts, 95 % delta-method intervals that cover in simulation, and honest
//! about what a rank-deficient channel or a joint without some input cannot identify.

mod common;

use privlift::document::{Alphabet, Document, Matrix};
use privlift::param::Epsilon;
use privlift_design::estimate::document_channel;
use privlift_design::lift::Notion;
use privlift_design::mle::estimate_mle;
use privlift_design::secret::estimate_secret;
use privlift_design::{rr, watchdog, Source};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use common::{draw, expected_counts, nats};

fn labels(k: usize) -> Alphabet {
    Alphabet::indices("labels", k).unwrap()
}

/// A joint from P(s) and the rows P(x|s).
fn joint(ps: &[f64], cond: &[&[f64]]) -> Source {
    let nx = cond[0].len();
    let p_sx = Matrix::from_flat(ps.len(), nx, (0..ps.len() * nx).map(|i| ps[i / nx] * cond[i / nx][i % nx]).collect());
    let secret = Alphabet::new("s", (0..ps.len()).map(|s| format!("s{s}")).collect()).unwrap();
    Source::joint(secret, labels(nx), p_sx).unwrap()
}

/// Zarrabian et al.'s Example 1: P(s) = (0.3, 0.7), P_X = (0.41, 0.24, 0.22, 0.13).
fn example1() -> Source {
    joint(&[0.3, 0.7], &[&[0.2, 0.1, 0.5, 0.2], &[0.5, 0.3, 0.1, 0.1]])
}

#[test]
fn expected_counts_give_back_the_secret_distribution() {
    let src = joint(
        &[0.2, 0.5, 0.3],
        &[&[0.1, 0.2, 0.3, 0.4, 0.0], &[0.5, 0.1, 0.1, 0.1, 0.2], &[0.05, 0.05, 0.3, 0.3, 0.3]],
    );
    let p_s = [0.2, 0.5, 0.3];
    let doc = rr::krr(&src, Epsilon::positive("epsilon", 1.0).unwrap(), "k").unwrap();
    let w = document_channel(&doc).unwrap();
    let m = estimate_mle(&w, &expected_counts(&w, &src.p_x(), 1e6), 100_000).unwrap();
    let s = estimate_secret(&doc, &m).unwrap().expect("the document declares a secret");
    assert_eq!(s.labels, ["s0", "s1", "s2"]);
    for (a, b) in s.estimate.iter().zip(&p_s) {
        assert!((a - b).abs() < 1e-9, "{:?}", s.estimate);
    }
    assert!(s.identified.iter().all(|&i| i));
    assert!(s.std_error.iter().all(|e| e.is_finite() && *e > 0.0), "{:?}", s.std_error);
    // The standard errors of a sum: P̂_S sums to 1 exactly, so Var(Σ_s P̂_S(s)) = 0.
    let k = m.estimate.len();
    let ones_cov: f64 = (0..k * k).map(|i| m.covariance[i]).sum();
    assert!(ones_cov.abs() < 1e-12);
}

#[test]
fn no_secret_no_estimate() {
    let doc = rr::krr(
        &Source::prior(labels(3), vec![0.2, 0.3, 0.5]).unwrap(),
        Epsilon::positive("epsilon", 1.0).unwrap(),
        "k",
    )
    .unwrap();
    let w = document_channel(&doc).unwrap();
    let m = estimate_mle(&w, &[10.0, 20.0, 30.0], 1000).unwrap();
    assert!(estimate_secret(&doc, &m).unwrap().is_none());
    // Nor for an estimate over another input alphabet.
    let with = rr::krr(&example1(), Epsilon::positive("epsilon", 1.0).unwrap(), "k").unwrap();
    assert!(estimate_secret(&with, &m).unwrap().is_none());
}

#[test]
fn ninety_five_percent_intervals_for_the_secret_cover_in_simulation() {
    // k-RR at ε = 1 on Example 1's joint, 2000 reports per trial, 1000 trials.
    let src = example1();
    let (p_x, p_s) = (src.p_x(), [0.3, 0.7]);
    let doc = rr::krr(&src, Epsilon::positive("epsilon", 1.0).unwrap(), "k").unwrap();
    let w = document_channel(&doc).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3031);
    let (trials, n) = (1000, 2000);
    let mut covered = [0usize; 2];
    for _ in 0..trials {
        let mut c = vec![0.0; w.cols()];
        for _ in 0..n {
            let x = draw(&mut rng, &p_x);
            c[draw(&mut rng, w.row(x))] += 1.0;
        }
        let s = estimate_secret(&doc, &estimate_mle(&w, &c, 100_000).unwrap()).unwrap().unwrap();
        for (i, hit) in covered.iter_mut().enumerate() {
            *hit += usize::from((s.estimate[i] - p_s[i]).abs() <= 1.959964 * s.std_error[i]);
        }
    }
    for (i, &c) in covered.iter().enumerate() {
        let rate = c as f64 / trials as f64;
        eprintln!("coverage of P_S(s{i}): {rate}");
        // The band for ≥ 500 trials (binomial sd at 95 % over 1000: 0.0069).
        assert!((0.93..=0.97).contains(&rate), "coverage of P_S(s{i}): {rate}");
    }
}

#[test]
fn a_merge_of_inputs_with_different_posteriors_leaves_the_secret_unidentified() {
    // The watchdog at ε = 0.75 merges inputs 1 and 2, whose P(s|x) differ (0.125 vs 0.68
    // for s0): how the merged mass splits between them moves P_S.
    let doc = watchdog::watchdog(&example1(), Notion::Lip { eps: nats(0.75) }, "w").unwrap();
    let w = document_channel(&doc).unwrap();
    let m = estimate_mle(&w, &expected_counts(&w, &example1().p_x(), 1e4), 100_000).unwrap();
    assert_eq!(m.unidentified.len(), 1);
    let s = estimate_secret(&doc, &m).unwrap().unwrap();
    assert_eq!(s.identified, [false, false]);
    // No standard error pretends to measure it: the reports give an interval, which holds
    // the truth (expected counts: the truth is a maximum-likelihood solution).
    assert!(s.std_error.iter().all(|e| e.is_nan()), "{:?}", s.std_error);
    for (i, p_s) in [0.3, 0.7].into_iter().enumerate() {
        let [lo, hi] = s.interval[i].expect("an interval where not identified");
        assert!(lo <= p_s + 1e-9 && p_s - 1e-9 <= hi && hi - lo > 0.01, "P_S(s{i}) = {p_s} in [{lo}, {hi}]");
    }
    // Merging inputs with the same posterior loses nothing about S.
    let same = joint(&[0.4, 0.6], &[&[0.5, 0.25, 0.25], &[0.2, 0.4, 0.4]]);
    let doc = Document::new(
        "m",
        labels(3),
        None,
        same.p_x(),
        same.secret(),
        privlift::document::MechanismKind::Merge { blocks: vec![0, 1, 1], inner: None },
        Default::default(),
    )
    .unwrap();
    let w = document_channel(&doc).unwrap();
    let m = estimate_mle(&w, &expected_counts(&w, &same.p_x(), 1e4), 100_000).unwrap();
    assert_eq!(m.unidentified.len(), 1);
    let s = estimate_secret(&doc, &m).unwrap().unwrap();
    assert_eq!(s.identified, [true, true]);
    assert_eq!(s.interval, [None, None]);
    assert!((s.estimate[0] - 0.4).abs() < 1e-9, "{:?}", s.estimate);
}

#[test]
fn mass_on_an_input_the_joint_rules_out_is_no_known_secret() {
    // P_X(3) = 0 in the joint; reports that put mass there (the data contradict the
    // declared joint) leave every P_S(s) unidentified, and x = 3 contributes nothing.
    let src = joint(&[0.5, 0.5], &[&[0.6, 0.3, 0.1, 0.0], &[0.2, 0.3, 0.5, 0.0]]);
    let doc = rr::krr(&src, Epsilon::positive("epsilon", 1.0).unwrap(), "k").unwrap();
    let w = document_channel(&doc).unwrap();
    let consistent = estimate_mle(&w, &expected_counts(&w, &src.p_x(), 1e4), 100_000).unwrap();
    let s = estimate_secret(&doc, &consistent).unwrap().unwrap();
    assert_eq!(s.identified, [true, true], "p̂_3 = {}", consistent.estimate[3]);
    let stray = estimate_mle(&w, &expected_counts(&w, &[0.3, 0.2, 0.2, 0.3], 1e4), 100_000).unwrap();
    let s = estimate_secret(&doc, &stray).unwrap().unwrap();
    assert_eq!(s.identified, [false, false]);
    assert!((s.estimate.iter().sum::<f64>() - 0.7).abs() < 1e-8, "{:?}", s.estimate);
    // Data drawn from the joint itself: the MLE of P_X(3) is > 0 in about half of the
    // samples (it sits on the boundary), significantly so in about 2.5 % of them.
    let mut rng = ChaCha8Rng::seed_from_u64(3032);
    let (trials, mut flagged) = (500, 0);
    for _ in 0..trials {
        let mut c = vec![0.0; 4];
        for _ in 0..1000 {
            let x = draw(&mut rng, &src.p_x());
            c[draw(&mut rng, w.row(x))] += 1.0;
        }
        let s = estimate_secret(&doc, &estimate_mle(&w, &c, 100_000).unwrap()).unwrap().unwrap();
        flagged += usize::from(!s.identified[0]);
    }
    eprintln!("P_X(3) = 0 flagged as present in {flagged}/{trials} samples");
    assert!(flagged <= trials / 20, "{flagged} of {trials} consistent samples flagged");
}
