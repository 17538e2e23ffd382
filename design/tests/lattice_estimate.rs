//! Estimation for lattice (continuous) mechanisms (`privlift_design::lattice_estimate`):
//! the unbiased mean and the EM histogram are exact on expected counts, the mean's 95 %
//! interval covers in simulation (driving the crate's exact samplers), and bad counts are
//! typed errors.

use privlift::param::Probability;
use privlift::sample::lattice::{Lattice, LatticeMechanism};
use privlift_design::lattice_estimate::estimate_lattice;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 11 points 0, 0.5, …, 5 with a skewed prior.
fn lattice() -> (Lattice, Vec<f64>) {
    let l = Lattice::new(0.0, 5.0, 0.5).unwrap();
    let w: Vec<f64> = (0..l.len()).map(|k| 1.0 + (k * 7 % 5) as f64 + if k == 9 { 6.0 } else { 0.0 }).collect();
    let s: f64 = w.iter().sum();
    (l, w.iter().map(|v| v / s).collect())
}

/// The sampling mechanism's release probability λ.
fn lambda(v: f64) -> Probability {
    Probability::new("lambda", v).unwrap()
}

fn true_mean(m: &LatticeMechanism) -> f64 {
    m.prior().iter().enumerate().map(|(k, p)| p * m.lattice().value(k as i64)).sum()
}

/// N·P(j) for j over a window wide enough that the mass outside is below 1e-12.
fn expected_counts(m: &LatticeMechanism, n: f64, reach: i64) -> Vec<(i64, f64)> {
    let counts: Vec<(i64, f64)> = (-reach..m.lattice().len() as i64 + reach).map(|j| (j, n * m.p_output(j))).collect();
    let mass: f64 = counts.iter().map(|c| c.1).sum::<f64>() / n;
    assert!((1.0 - mass).abs() < 1e-12, "missing mass {}", 1.0 - mass);
    counts
}

#[test]
fn expected_counts_give_back_the_mean_and_the_histogram() {
    let (l, p) = lattice();
    let sigma: Vec<f64> = (0..l.len()).map(|k| 0.3 + 0.04 * k as f64).collect();
    for (name, m) in [
        ("gaussian", LatticeMechanism::gaussian(l, p.clone(), &[0.7]).unwrap()),
        // One σ per point: the noise stays symmetric at every point, so E[Y] = E[X] still.
        ("gaussian per point", LatticeMechanism::gaussian(l, p.clone(), &sigma).unwrap()),
        ("laplace", LatticeMechanism::laplace(l, p.clone(), 0.5).unwrap()),
        ("sampling", LatticeMechanism::sampling(l, p.clone(), lambda(0.6)).unwrap()),
    ] {
        let e = estimate_lattice(&m, &expected_counts(&m, 1e6, 80), 200_000).unwrap();
        let mu = true_mean(&m);
        assert!((e.mean - mu).abs() <= 1e-9 * mu.abs(), "{name}: mean {} vs {mu}", e.mean);
        assert!(e.mean_std_error > 0.0 && e.mean_std_error < 0.01, "{name}: {}", e.mean_std_error);
        assert_eq!(e.values, (0..11).map(|k| 0.5 * k as f64).collect::<Vec<_>>());
        assert!((e.n - 1e6).abs() < 1e-6);
        let err = e.histogram.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        eprintln!("{name}: histogram error {err}");
        assert!(err < 1e-4, "{name}: histogram {:?} vs {p:?} ({err})", e.histogram);
        assert!((e.histogram.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(e.unidentified, 0, "{name}");
        assert!(e.std_error.iter().all(|s| s.is_finite()), "{name}: {:?}", e.std_error);
    }
}

#[test]
fn counts_are_summed_per_output_and_order_does_not_matter() {
    let (l, p) = lattice();
    let m = LatticeMechanism::laplace(l, p, 0.5).unwrap();
    let a = estimate_lattice(&m, &[(3, 10.0), (-2, 4.0), (12, 6.0), (3, 5.0), (7, 0.0)], 10_000).unwrap();
    let b = estimate_lattice(&m, &[(12, 6.0), (3, 15.0), (-2, 4.0)], 10_000).unwrap();
    assert_eq!((a.mean, a.mean_std_error, a.n), (b.mean, b.mean_std_error, b.n));
    assert_eq!(a.histogram, b.histogram);
    // The mean is ȳ itself: (15·1.5 + 4·(−1) + 6·6)/25.
    assert!((a.mean - (15.0 * 1.5 - 4.0 + 36.0) / 25.0).abs() < 1e-12);
    // A single output leaves most of the histogram unidentified, and says so.
    let one = estimate_lattice(&m, &[(4, 100.0)], 10_000).unwrap();
    assert!(one.unidentified > 0);
    assert!(one.mean_std_error == 0.0 && one.mean == 2.0);
}

/// `trials` seeded simulations of `n` releases each; the fraction whose 95 % interval
/// for the mean covers the true mean.
fn mean_coverage(m: &LatticeMechanism, seed: u64, trials: usize, n: usize) -> f64 {
    // A seeded ChaCha8 stream stands in for the device's CSPRNG (a simulation only).
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mu = true_mean(m);
    let mut hits = 0;
    for _ in 0..trials {
        let mut counts = Vec::with_capacity(n);
        for _ in 0..n {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let k = m
                .prior()
                .iter()
                .position(|&q| {
                    acc += q;
                    u < acc
                })
                .unwrap_or(m.prior().len() - 1);
            counts.push((m.sample_index(k, &mut rng).unwrap(), 1.0));
        }
        let e = estimate_lattice(m, &counts, 200).unwrap();
        hits += usize::from((e.mean - mu).abs() <= 1.959964 * e.mean_std_error);
    }
    hits as f64 / trials as f64
}

#[test]
fn the_mean_interval_covers_in_simulation() {
    let (l, p) = lattice();
    for (name, m, seed) in [
        ("gaussian σ = 1", LatticeMechanism::gaussian(l, p.clone(), &[1.0]).unwrap(), 4041),
        ("sampling λ = 0.4", LatticeMechanism::sampling(l, p.clone(), lambda(0.4)).unwrap(), 4042),
    ] {
        let rate = mean_coverage(&m, seed, 1000, 400);
        eprintln!("coverage of the mean, {name}: {rate}");
        // The band for ≥ 500 trials (binomial sd at 95 % over 1000: 0.0069).
        assert!((0.93..=0.97).contains(&rate), "{name}: coverage {rate}");
    }
}

#[test]
fn a_sampling_mechanism_that_never_releases_says_nothing_about_the_mean() {
    let (l, p) = lattice();
    let m = LatticeMechanism::sampling(l, p, lambda(0.0)).unwrap();
    let e = estimate_lattice(&m, &[(2, 10.0), (9, 30.0)], 1000).unwrap();
    assert!(e.mean.is_nan() && e.mean_std_error.is_nan());
    assert_eq!(e.unidentified, 10, "every direction: all rows are q");
}

#[test]
fn a_large_lattice_with_many_outputs_stays_bounded() {
    // 4096 points and 6000 distinct outputs: merged into 1023 groups; above 512 points
    // the standard errors are not computed (NaN) and the mean is still exact.
    let l = Lattice::new(0.0, 4095.0, 1.0).unwrap();
    let p = vec![1.0 / 4096.0; 4096];
    let m = LatticeMechanism::laplace(l, p, 300.0).unwrap();
    let counts: Vec<(i64, f64)> = (-1000i64..5000).map(|j| (j, 1.0 + j.rem_euclid(7) as f64)).collect();
    let e = estimate_lattice(&m, &counts, 6).unwrap();
    let n: f64 = counts.iter().map(|c| c.1).sum();
    let y_bar = counts.iter().map(|&(j, c)| c * j as f64).sum::<f64>() / n;
    assert!((e.mean - y_bar).abs() < 1e-9 * y_bar.abs());
    assert_eq!(e.histogram.len(), 4096);
    assert!((e.histogram.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(e.std_error.iter().all(|s| s.is_nan()));
}

#[test]
fn bad_counts_are_typed_errors() {
    let (l, p) = lattice();
    let m = LatticeMechanism::sampling(l, p.clone(), lambda(0.5)).unwrap();
    let code = |c: &[(i64, f64)]| estimate_lattice(&m, c, 100).unwrap_err().code();
    assert_eq!(code(&[]), "invalid_argument");
    assert_eq!(code(&[(1, 0.0), (2, 0.0)]), "invalid_argument");
    assert_eq!(code(&[(1, 3.0), (2, -1.0)]), "invalid_argument");
    assert_eq!(code(&[(1, f64::NAN)]), "non_finite");
    assert_eq!(code(&[(1, f64::INFINITY)]), "non_finite");
    assert_eq!(code(&[(1, f64::MAX), (2, f64::MAX)]), "invalid_argument");
    // The sampling mechanism only releases lattice points: index 11 is impossible.
    let e = estimate_lattice(&m, &[(1, 3.0), (11, 2.0)], 100).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("counts[1]") && e.to_string().contains("11"), "{e}");
    // Gaussian noise: 10⁴ steps away underflows to probability 0 from every point.
    let g = LatticeMechanism::gaussian(l, p, &[0.5]).unwrap();
    let e = estimate_lattice(&g, &[(0, 1.0), (3, 1.0), (10_000, 1.0)], 100).unwrap_err();
    assert!(e.code() == "invalid_argument" && e.to_string().contains("counts[2]"), "{e}");
    // A zero count at an impossible output is no report of it.
    assert!(estimate_lattice(&g, &[(3, 1.0), (10_000, 0.0)], 100).is_ok());
}

/// `Released` is exactly the set of outputs `estimate_lattice` accepts: every index in it
/// is estimated, the ones just outside it are refused as never released (Gaussian with one
/// and with several scales, Laplace, sampling with λ > 0 and with λ = 0 on a prior with
/// zeros).
#[test]
fn released_indices_are_those_the_estimate_accepts() {
    use privlift_design::lattice_estimate::Released;
    let (l, p) = lattice();
    let mut zeros = p.clone();
    zeros[3] = 0.0;
    zeros[7] = 0.0;
    let t: f64 = zeros.iter().sum();
    zeros.iter_mut().for_each(|v| *v /= t);
    let sigma: Vec<f64> = (0..l.len()).map(|k| 0.05 + 0.3 * (k % 3) as f64).collect();
    let cases = [
        ("gaussian", LatticeMechanism::gaussian(l, p.clone(), &[0.7]).unwrap()),
        ("gaussian per point", LatticeMechanism::gaussian(l, p.clone(), &sigma).unwrap()),
        ("laplace", LatticeMechanism::laplace(l, p.clone(), 0.5).unwrap()),
        ("sampling", LatticeMechanism::sampling(l, zeros.clone(), lambda(0.6)).unwrap()),
        ("sampling, λ = 0", LatticeMechanism::sampling(l, zeros, lambda(0.0)).unwrap()),
    ];
    for (name, m) in cases {
        let released = Released::new(&m);
        let accepted = |j: i64| estimate_lattice(&m, &[(0, 5.0), (j, 1.0)], 10).is_ok();
        let probe: Vec<i64> = match &released {
            Released::Interval(lo, hi) => {
                assert!(*lo < 0 && *hi >= l.len() as i64, "{name}: [{lo}, {hi}]");
                vec![*lo - 1, *lo, *lo + 1, 0, 5, *hi - 1, *hi, *hi + 1, i64::MIN / 4, i64::MAX / 4]
            }
            Released::Points(_) => (-3..l.len() as i64 + 3).collect(),
        };
        for j in probe {
            assert_eq!(released.contains(j), accepted(j), "{name}: j = {j}");
        }
    }
}
