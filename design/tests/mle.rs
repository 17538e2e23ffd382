//! Maximum-likelihood estimation by EM (`privlift_design::mle`): exact on expected counts,
//! honest about what a rank-deficient channel cannot identify, and with 95 % intervals
//! that cover the truth about 95 % of the time in simulation.

mod common;

use privlift::document::{Document, Matrix};
use privlift::param::{Epsilon, Probability};
use privlift_design::estimate::{document_channel, estimate_matrix, estimate_unary};
use privlift_design::lift::Notion;
use privlift_design::mle::estimate_mle;
use privlift_design::{rr, Source};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, Normal};

use common::{draw, expected_counts, nats};

fn krr(k: usize, eps: f64) -> Matrix {
    let e = eps.exp();
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { e } else { 1.0 } / (e + k as f64 - 1.0)).collect())
}

#[test]
fn expected_counts_give_back_the_truth_and_the_inversion_errors() {
    let w = krr(5, 1.0);
    let p = [0.1, 0.2, 0.3, 0.25, 0.15];
    let c = expected_counts(&w, &p, 1e6);
    let m = estimate_mle(&w, &c, 100_000).unwrap();
    for (a, b) in m.estimate.iter().zip(&p) {
        assert!((a - b).abs() < 1e-8, "{:?}", m.estimate);
    }
    assert!(m.unidentified.is_empty());
    // Interior truth, invertible channel: the information's standard errors are the
    // inversion's (the same asymptotic covariance) up to the simplex constraint.
    let u = estimate_matrix(&w, &c).unwrap();
    for (a, b) in m.std_error.iter().zip(&u.std_error) {
        assert!((a / b - 1.0).abs() < 0.05, "mle {a} vs unbiased {b}");
    }
}

#[test]
fn a_merge_reports_the_direction_it_cannot_identify() {
    // The watchdog's shape: inputs 0 and 1 merged into one output, 2 and 3 released.
    let doc = Document::from_json(
        r#"{"format": "privlift-mechanism", "version": 1, "id": "w", "labels": ["a", "b", "c", "d"],
            "prior": [0.25, 0.25, 0.25, 0.25], "mechanism": {"kind": "merge", "blocks": [0, 0, 1, 2],
            "inner": {"kind": "krr", "epsilon": 2}}, "claims": {"ldp_x": 2}}"#,
    )
    .unwrap();
    let w = doc.mechanism().channel_matrix(4).unwrap();
    assert!(estimate_matrix(&w, &[1.0, 1.0, 1.0]).is_err(), "not invertible");
    let p = [0.1, 0.3, 0.4, 0.2];
    let m = estimate_mle(&w, &expected_counts(&w, &p, 1e6), 100_000).unwrap();
    // What is identified is estimated: the merged mass, and the released inputs.
    assert!((m.estimate[0] + m.estimate[1] - 0.4).abs() < 1e-8, "{:?}", m.estimate);
    assert!((m.estimate[2] - 0.4).abs() < 1e-8 && (m.estimate[3] - 0.2).abs() < 1e-8);
    // And what is not is said: one direction, ±(1, −1, 0, 0)/√2.
    assert_eq!(m.unidentified.len(), 1, "{:?}", m.unidentified);
    let v = &m.unidentified[0];
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert!(
        (v[0].abs() - s).abs() < 1e-9 && (v[0] + v[1]).abs() < 1e-9 && v[2].abs() < 1e-9 && v[3].abs() < 1e-9,
        "{v:?}"
    );
    // Per input: the released ones are estimates with errors; the merged ones are the
    // interval [0, 0.4] (any split of the merged mass), with no error that pretends.
    assert_eq!(m.identified, [false, false, true, true]);
    assert!(m.std_error[..2].iter().all(|s| s.is_nan()) && m.std_error[2..].iter().all(|s| s.is_finite()));
    for x in 0..2 {
        let [lo, hi] = m.interval[x].expect("an interval");
        assert!(lo.abs() < 1e-9 && (hi - 0.4).abs() < 1e-8, "[{lo}, {hi}]");
    }
    assert_eq!(m.interval[2..], [None, None]);
}

/// One plain EM step from `p`.
fn em_step(w: &Matrix, counts: &[f64], p: &[f64]) -> Vec<f64> {
    let n: f64 = counts.iter().sum();
    let lambda: Vec<f64> = (0..w.cols()).map(|y| (0..w.rows()).map(|x| p[x] * w.get(x, y)).sum()).collect();
    (0..w.rows())
        .map(|x| {
            p[x] * (0..w.cols())
                .filter(|&y| counts[y] > 0.0)
                .map(|y| w.get(x, y) * counts[y] / n / lambda[y])
                .sum::<f64>()
        })
        .collect()
}

#[test]
fn the_accelerated_estimate_is_a_fixed_point_of_em_on_the_boundary_too() {
    // The log-likelihood is concave in p: a fixed point of EM on the simplex is the MLE.
    // Counts that put the MLE on the boundary (an output seen less than the mixing alone
    // explains), a large k-RR and a sparse LP-like channel.
    let cases: Vec<(Matrix, Vec<f64>)> = vec![
        (krr(4, 0.5), vec![100.0, 100.0, 100.0, 40.0]),
        (krr(64, 1.0), (0..64).map(|y| 1000.0 + (y * y % 97) as f64 * 50.0).collect()),
        (Matrix::from_flat(3, 3, vec![0.7, 0.3, 0.0, 0.0, 0.6, 0.4, 0.2, 0.0, 0.8]), vec![10.0, 500.0, 3.0]),
    ];
    for (w, c) in cases {
        let m = estimate_mle(&w, &c, 100_000).unwrap();
        assert!(m.iterations < 100_000, "converged: {}", m.iterations);
        let next = em_step(&w, &c, &m.estimate);
        let moved = next.iter().zip(&m.estimate).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(moved < 1e-9, "one more EM step moves it by {moved}");
        assert!(m.estimate.iter().all(|&v| v >= 0.0) && (m.estimate.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn impossible_and_malformed_counts_are_typed_errors() {
    let w = Matrix::from_flat(2, 3, vec![0.5, 0.5, 0.0, 0.2, 0.8, 0.0]);
    let e = estimate_mle(&w, &[1.0, 2.0, 3.0], 1000).unwrap_err();
    assert_eq!((e.code(), e.to_string().contains("counts[2]")), ("invalid_argument", true), "{e}");
    assert_eq!(estimate_mle(&w, &[1.0, 2.0], 1000).unwrap_err().code(), "dimension_mismatch");
    assert_eq!(estimate_mle(&w, &[0.0, 0.0, 0.0], 1000).unwrap_err().code(), "invalid_argument");
    assert_eq!(estimate_mle(&w, &[-1.0, 2.0, 0.0], 1000).unwrap_err().code(), "invalid_argument");
    assert_eq!(estimate_mle(&w, &[f64::NAN, 2.0, 0.0], 1000).unwrap_err().code(), "non_finite");
}

/// Draws n reports of `w` from `p` and counts them.
fn simulate(rng: &mut ChaCha8Rng, w: &Matrix, p: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; w.cols()];
    let pick = |rng: &mut ChaCha8Rng, row: &[f64]| {
        let u: f64 = rng.random();
        let mut acc = 0.0;
        for (i, &v) in row.iter().enumerate() {
            acc += v;
            if u < acc {
                return i;
            }
        }
        row.len() - 1
    };
    for _ in 0..n {
        let x = pick(rng, p);
        c[pick(rng, w.row(x))] += 1.0;
    }
    c
}

#[test]
fn ninety_five_percent_intervals_cover_the_truth_in_simulation() {
    // k-RR at ε = 1 over 4 values, 3000 reports, 1000 trials (a simulation: a seeded
    // generator, named so). The issue's band for ≥ 500 trials: 93–97 %.
    let (w, p) = (krr(4, 1.0), [0.1, 0.2, 0.3, 0.4]);
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let trials = 1000;
    let mut covered = [0usize; 4];
    let mut mse = [0.0f64; 2];
    for _ in 0..trials {
        let c = simulate(&mut rng, &w, &p, 3000);
        let m = estimate_mle(&w, &c, 100_000).unwrap();
        let u = estimate_matrix(&w, &c).unwrap();
        for x in 0..4 {
            covered[x] += usize::from((m.estimate[x] - p[x]).abs() <= 1.959964 * m.std_error[x]);
            mse[0] += (m.estimate[x] - p[x]).powi(2);
            mse[1] += (u.estimate[x] - p[x]).powi(2);
        }
    }
    for (x, &c) in covered.iter().enumerate() {
        assert_coverage(&format!("k-RR p[{x}]"), c, trials);
    }
    // The MLE, on the simplex, is no worse in mean squared error than the inversion.
    assert!(mse[0] <= mse[1] * (1.0 + 1e-9), "MSE: mle {} vs unbiased {}", mse[0], mse[1]);
}

// ---------- Covariance, and coverage beyond k-RR ----------

/// Whether |estimate − truth| ≤ z·SE for the 95 % normal interval.
fn covers(estimate: f64, truth: f64, se: f64) -> bool {
    (estimate - truth).abs() <= 1.959964 * se
}

/// The issue's band for 95 % intervals over ≥ 500 trials: 93–97 %. Over T = 1000
/// trials a true 95 % rate leaves it with probability ≈ 2·Φ(−0.02/0.0069) ≈ 0.4 %.
fn assert_coverage(what: &str, hits: usize, trials: usize) {
    let rate = hits as f64 / trials as f64;
    eprintln!("coverage of {what}: {rate}");
    assert!((0.93..=0.97).contains(&rate), "coverage of {what}: {rate} over {trials} trials");
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// aᵀ C a, C row-major.
fn quadratic(c: &[f64], a: &[f64]) -> f64 {
    let k = a.len();
    (0..k).map(|i| a[i] * dot(&c[i * k..(i + 1) * k], a)).sum()
}

fn labels(k: usize) -> privlift::document::Alphabet {
    privlift::document::Alphabet::indices("labels", k).unwrap()
}

#[test]
fn the_covariance_is_the_standard_errors_squared_and_supported_on_the_identified_directions() {
    let doc = privlift_design::watchdog::watchdog(&example1(), Notion::Lip { eps: nats(0.75) }, "w").unwrap();
    let w = document_channel(&doc).unwrap();
    for (w, p) in [(krr(5, 1.0), vec![0.1, 0.2, 0.3, 0.25, 0.15]), (w, vec![0.41, 0.24, 0.22, 0.13])] {
        let k = p.len();
        let m = estimate_mle(&w, &expected_counts(&w, &p, 1e4), 100_000).unwrap();
        assert_eq!(m.covariance.len(), k * k);
        for x in 0..k {
            let se = if m.identified[x] { m.covariance[x * k + x].sqrt() } else { f64::NAN };
            assert_eq!(m.std_error[x].to_bits(), se.to_bits(), "x = {x}");
            for y in 0..k {
                assert!((m.covariance[x * k + y] - m.covariance[y * k + x]).abs() < 1e-15, "symmetric");
            }
        }
        // C 1 = 0 (p̂ stays on the simplex) and C v = 0 for every unidentified v.
        let ones = vec![1.0; k];
        for v in m.unidentified.iter().chain([&ones]) {
            for x in 0..k {
                assert!(dot(&m.covariance[x * k..(x + 1) * k], v).abs() < 1e-12, "C v ≠ 0");
            }
        }
    }
    // Not serialised (an |X|² payload for the CLI's JSON).
    let m = estimate_mle(&krr(3, 1.0), &[10.0, 20.0, 30.0], 1000).unwrap();
    assert!(serde_json::to_value(&m).unwrap().get("covariance").is_none());
}

#[test]
fn oue_intervals_cover_the_truth_in_simulation() {
    // Optimised unary encoding (q01 = 1/(e^ε + 1), q10 = 1/2) at ε = 1 over 4 values,
    // 2000 reports per trial, the unbiased per-bit estimator; 1000 trials.
    let (q01, q10) = privlift_design::oue::oue_params(Epsilon::positive("epsilon", 1.0).unwrap());
    let p = [0.1, 0.2, 0.3, 0.4];
    let mut rng = ChaCha8Rng::seed_from_u64(2027);
    let (trials, n) = (1000, 2000);
    let mut covered = [0usize; 4];
    for _ in 0..trials {
        let mut ones = [0.0; 4];
        for _ in 0..n {
            let x = draw(&mut rng, &p);
            for (j, o) in ones.iter_mut().enumerate() {
                let one = if j == x { 1.0 - q10 } else { q01 };
                *o += f64::from(u8::from(rng.random::<f64>() < one));
            }
        }
        let flip = |p| Probability::new("q", p).unwrap();
        let e = estimate_unary(flip(q01), flip(q10), &ones, n as f64).unwrap();
        for x in 0..4 {
            covered[x] += usize::from(covers(e.estimate[x], p[x], e.std_error[x]));
        }
    }
    for (x, &c) in covered.iter().enumerate() {
        assert_coverage(&format!("OUE p[{x}]"), c, trials);
    }
}

#[test]
fn a_rank_deficient_rr_lip_design_covers_what_it_identifies() {
    // The LP optimum of ε-LIP RR for a skewed prior (eq 19 is not ε-LIP here: P(0) <
    // 1/(1 + e)): output 0 is never used and inputs 0, 1 share one row, so only
    // P(0) + P(1), P(2), P(3) are identified.
    let p = vec![0.05, 0.15, 0.3, 0.5];
    let doc =
        rr::rr_lip(&Source::prior(labels(4), p.clone()).unwrap(), Epsilon::positive("epsilon", 1.0).unwrap(), "r")
            .unwrap();
    let w = document_channel(&doc).unwrap();
    assert!(estimate_matrix(&w, &[1.0; 4]).is_err(), "not invertible");
    let exact = estimate_mle(&w, &expected_counts(&w, &p, 1e6), 100_000).unwrap();
    assert_eq!(exact.unidentified.len(), 1, "{:?}", exact.unidentified);
    let v = &exact.unidentified[0];
    assert!((v[0] + v[1]).abs() < 1e-9 && v[2].abs() < 1e-9 && v[3].abs() < 1e-9, "{v:?}");
    let functionals: [Vec<f64>; 3] = [vec![1.0, 1.0, 0.0, 0.0], vec![0.0, 0.0, 1.0, 0.0], vec![0.0, 0.0, 0.0, 1.0]];
    let mut rng = ChaCha8Rng::seed_from_u64(2028);
    let (trials, n) = (1000, 2000);
    let mut covered = [0usize; 3];
    for _ in 0..trials {
        let c = simulate(&mut rng, &w, &p, n);
        let m = estimate_mle(&w, &c, 100_000).unwrap();
        assert_eq!(m.unidentified.len(), 1);
        for (hit, a) in covered.iter_mut().zip(&functionals) {
            *hit += usize::from(covers(dot(a, &m.estimate), dot(a, &p), quadratic(&m.covariance, a).sqrt()));
        }
    }
    for (a, &c) in functionals.iter().zip(&covered) {
        assert_coverage(&format!("rr-lip {a:?}·p"), c, trials);
    }
}

/// Zarrabian et al.'s Example 1 joint (the one `design.rs` reproduces).
fn example1() -> Source {
    let cond = [[0.2, 0.1, 0.5, 0.2], [0.5, 0.3, 0.1, 0.1]];
    let ps = [0.3, 0.7];
    let p_sx = Matrix::from_flat(2, 4, (0..8).map(|i| ps[i / 4] * cond[i / 4][i % 4]).collect());
    Source::joint(privlift::document::Alphabet::indices("s", 2).unwrap(), labels(4), p_sx).unwrap()
}

#[test]
fn watchdog_designs_cover_their_block_masses_and_name_the_within_block_directions() {
    let p = example1().p_x();
    // ε = 0.75 merges {1, 2}; ε = 0.5 merges {0, 1, 2}.
    for (eps, blocks, seed) in
        [(0.75, vec![vec![0], vec![1, 2], vec![3]], 2029), (0.5, vec![vec![0, 1, 2], vec![3]], 2030)]
    {
        let doc = privlift_design::watchdog::watchdog(&example1(), Notion::Lip { eps: nats(eps) }, "w").unwrap();
        let w = document_channel(&doc).unwrap();
        assert_eq!(w.cols(), blocks.len(), "ε = {eps}");
        let within: usize = blocks.iter().map(|b| b.len() - 1).sum();
        let masks: Vec<Vec<f64>> =
            blocks.iter().map(|b| (0..4).map(|x| f64::from(u8::from(b.contains(&x)))).collect()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (trials, n) = (1000, 1000);
        let mut covered = vec![0usize; blocks.len()];
        for _ in 0..trials {
            let c = simulate(&mut rng, &w, &p, n);
            let m = estimate_mle(&w, &c, 100_000).unwrap();
            // `unidentified` spans exactly the within-block directions: as many as their
            // dimension, each summing to 0 over every block (orthonormal, so independent).
            assert_eq!(m.unidentified.len(), within, "ε = {eps}");
            for v in &m.unidentified {
                for mask in &masks {
                    assert!(dot(mask, v).abs() < 1e-9, "{v:?} moves a block mass");
                }
            }
            for (hit, a) in covered.iter_mut().zip(&masks) {
                *hit += usize::from(covers(dot(a, &m.estimate), dot(a, &p), quadratic(&m.covariance, a).sqrt()));
            }
        }
        for (b, &c) in blocks.iter().zip(&covered) {
            assert_coverage(&format!("watchdog ε = {eps} block {b:?}"), c, trials);
        }
    }
}

#[test]
fn the_mle_is_no_worse_than_inversion_on_an_invertible_lp_design() {
    // ε-LIP RR at ε = 1.5 for a skewed prior: eq 19 fails (P(0) < 1/(1 + e^1.5)), the LP
    // optimum is a full-rank 4 × 4 channel. For a square invertible channel the likelihood
    // is maximised at λ = f, so the MLE *is* the inversion whenever that lies in the
    // simplex (checked per trial); the two differ only where the inversion leaves it. With
    // 200 reports per trial that happens often enough to matter: total squared error
    // over 500 trials, no slack (k-RR is pinned in the coverage test above; with 2000
    // reports the ratio is 1.0000 to four digits on every seed tried).
    let p = vec![0.1, 0.15, 0.25, 0.5];
    let doc =
        rr::rr_lip(&Source::prior(labels(4), p.clone()).unwrap(), Epsilon::positive("epsilon", 1.5).unwrap(), "r")
            .unwrap();
    assert_eq!(doc.mechanism().tag(), "matrix", "the LP design");
    let w = document_channel(&doc).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2031);
    let (mut mse, mut inside) = ([0.0f64; 2], 0);
    for _ in 0..500 {
        let c = simulate(&mut rng, &w, &p, 200);
        let m = estimate_mle(&w, &c, 100_000).unwrap();
        let u = estimate_matrix(&w, &c).unwrap();
        assert!(m.unidentified.is_empty());
        if u.estimate.iter().all(|&v| v > 1e-3) {
            inside += 1;
            for (a, b) in m.estimate.iter().zip(&u.estimate) {
                assert!((a - b).abs() < 1e-8, "inside the simplex: mle {:?} vs inversion {:?}", m.estimate, u.estimate);
            }
        }
        for (x, &px) in p.iter().enumerate() {
            mse[0] += (m.estimate[x] - px).powi(2);
            mse[1] += (u.estimate[x] - px).powi(2);
        }
    }
    eprintln!("invertible rr-lip LP: squared error mle {} vs inversion {} ({inside}/500 inside)", mse[0], mse[1]);
    assert!(inside < 500, "some trials leave the simplex");
    assert!(mse[0] <= mse[1], "MSE: mle {} vs unbiased {}", mse[0], mse[1]);
}

/// The issue's finding: an ε-LIP RR LP design over 5 values for a skewed prior (ε = 1.5),
/// whose channel never uses output 0 and so cannot identify every input: with 20,000
/// reports P_X(1) = 0.1507 came back 0.0896 ± 0.0029 (z = −21).
fn rank_deficient_rr_lip() -> (Vec<f64>, Matrix) {
    let p = vec![0.05, 0.15, 0.2, 0.25, 0.35];
    let doc =
        rr::rr_lip(&Source::prior(labels(5), p.clone()).unwrap(), Epsilon::positive("epsilon", 1.5).unwrap(), "r")
            .unwrap();
    let w = document_channel(&doc).unwrap();
    assert!(estimate_matrix(&w, &[1.0; 5]).is_err(), "not invertible");
    (p, w)
}

#[test]
fn each_input_is_an_estimate_where_identified_and_an_interval_where_not() {
    let (p, w) = rank_deficient_rr_lip();
    // Expected counts: the truth is one of the maximum-likelihood solutions, so it lies in
    // every interval, and so does the point EM returns.
    let exact = estimate_mle(&w, &expected_counts(&w, &p, 1e6), 100_000).unwrap();
    assert!(!exact.unidentified.is_empty());
    assert!(exact.identified.contains(&false) && exact.identified.contains(&true), "{:?}", exact.identified);
    for (x, (&px, &est)) in p.iter().zip(&exact.estimate).enumerate() {
        match exact.interval[x] {
            None => assert!((est - px).abs() < 1e-8, "x = {x}: {:?}", exact.estimate),
            Some([lo, hi]) => {
                assert!(lo - 1e-9 <= px && px <= hi + 1e-9 && hi - lo > 0.01, "x = {x}: {px} in [{lo}, {hi}]");
                assert!(lo - 1e-9 <= est && est <= hi + 1e-9);
            }
        }
    }
    // Sampled counts, fixed seeds. An identified input's z is within the normal quantile
    // of a 1 % family-wise level (Bonferroni over every check). An unidentified one's
    // truth lies in its interval up to the same quantile of its sampling margin: with
    // every truth inside the simplex, π + Δ is a maximum-likelihood solution, where Δ is
    // p̂ − π along the identified directions, whose covariance is `covariance` (so Δ_x
    // has standard deviation √C_xx).
    let (seeds, n) = (20u64, 5000);
    let z = Normal::standard().inverse_cdf(1.0 - 0.01 / (2.0 * (5 * seeds) as f64));
    for seed in 0..seeds {
        let mut rng = ChaCha8Rng::seed_from_u64(4000 + seed);
        let m = estimate_mle(&w, &simulate(&mut rng, &w, &p, n), 100_000).unwrap();
        assert_eq!(m.identified, exact.identified, "seed {seed}: the channel decides, not the sample");
        for (x, &px) in p.iter().enumerate() {
            if m.identified[x] {
                let z_x = (m.estimate[x] - px) / m.std_error[x];
                assert!(z_x.abs() <= z && m.interval[x].is_none(), "seed {seed}, x = {x}: z = {z_x}");
            } else {
                assert!(m.std_error[x].is_nan(), "seed {seed}, x = {x}: no error pretends");
                let [lo, hi] = m.interval[x].unwrap();
                let margin = z * m.covariance[x * 5 + x].sqrt();
                assert!(
                    lo - margin <= px && px <= hi + margin,
                    "seed {seed}, x = {x}: {px} in [{lo}, {hi}] ± {margin}"
                );
            }
        }
    }
}

#[test]
fn intervals_are_not_computed_above_their_direction_budget() {
    use privlift_design::identified::MAX_INTERVAL_DIRECTIONS;
    // Pairs of inputs sharing one output: one unidentified direction per pair.
    for pairs in [MAX_INTERVAL_DIRECTIONS, MAX_INTERVAL_DIRECTIONS + 1] {
        let inner = krr(pairs, 1.0);
        let w = Matrix::from_flat(
            2 * pairs,
            pairs,
            (0..2 * pairs * pairs).map(|i| inner.get(i / pairs / 2, i % pairs)).collect(),
        );
        let p = vec![1.0 / (2 * pairs) as f64; 2 * pairs];
        let m = estimate_mle(&w, &expected_counts(&w, &p, 1e6), 100_000).unwrap();
        assert_eq!(m.unidentified.len(), pairs);
        assert!(m.identified.iter().all(|&i| !i) && m.std_error.iter().all(|s| s.is_nan()));
        let computed = m.interval.iter().filter(|i| i.is_some()).count();
        assert_eq!(computed, if pairs <= MAX_INTERVAL_DIRECTIONS { 2 * pairs } else { 0 }, "{pairs} pairs");
    }
}
