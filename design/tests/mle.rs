//! Maximum-likelihood estimation by EM (`privlift_design::mle`): exact on expected counts,
//! honest about what a rank-deficient channel cannot identify, and with 95 % intervals
//! that cover the truth about 95 % of the time in simulation.

use privlift::document::{Document, Matrix};
use privlift_design::estimate::estimate_matrix;
use privlift_design::mle::estimate_mle;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn krr(k: usize, eps: f64) -> Matrix {
    let e = eps.exp();
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { e } else { 1.0 } / (e + k as f64 - 1.0)).collect())
}

fn expected_counts(w: &Matrix, p: &[f64], n: f64) -> Vec<f64> {
    (0..w.cols()).map(|y| n * (0..w.rows()).map(|x| p[x] * w.get(x, y)).sum::<f64>()).collect()
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
    assert!(m.std_error.iter().all(|s| s.is_finite()));
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
        let rate = c as f64 / trials as f64;
        assert!((0.93..=0.97).contains(&rate), "coverage of p[{x}]: {rate}");
    }
    // The MLE, on the simplex, is no worse in mean squared error than the inversion.
    assert!(mse[0] <= mse[1] * (1.0 + 1e-9), "MSE: mle {} vs unbiased {}", mse[0], mse[1]);
}
