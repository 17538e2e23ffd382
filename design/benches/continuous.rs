//! Continuous data (`privlift_design::continuous`, `privlift::sample::discrete`): calibration,
//! GMM fitting and exact lattice noise, natively.
//!
//! * `calibrate_at/gaussian`, `calibrate_at/gmm3`: Cor 10's σ_N(x) for one x by
//!   bisection (goal: under 20 µs), under a Gaussian and a 3-component mixture prior.
//! * `fit_gmm/n=100000`: EM with BIC over K = 1..4 on 10^5 samples of a 2-component mixture.
//! * `noise/…`: 10^5 exact discrete Laplace / Gaussian draws per iteration, on the
//!   seeded ChaCha12 and on the pooled OS CSPRNG; the baseline `float_laplace_chacha` is
//!   the naive (leaky, Mironov 2012) inverse-CDF float Laplace on the same ChaCha12.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use privlift::param::{Delta, Epsilon};
use privlift::rng::{os_rng, DeterministicRngForTesting, Randomness};
use privlift::sample::discrete::{DiscreteGaussian, DiscreteLaplace};
use privlift_design::continuous::{calibrate_at, fit_gmm, Gaussian, GaussianMixture};
use rand::RngCore;

const DRAWS: usize = 100_000;

fn unit(rng: &mut DeterministicRngForTesting) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

fn calibration(c: &mut Criterion) {
    let mut g = c.benchmark_group("calibrate_at");
    g.measurement_time(Duration::from_secs(3));
    let single: GaussianMixture = Gaussian::new(60_000.0, 15_000.0).unwrap().into();
    let comps = [(30_000.0, 8_000.0), (60_000.0, 12_000.0), (120_000.0, 30_000.0)];
    let gs: Vec<Gaussian> = comps.iter().map(|&(m, s)| Gaussian::new(m, s).unwrap()).collect();
    let gmm3 = GaussianMixture::new(&[0.3, 0.5, 0.2], &gs).unwrap();
    let xs = [25_000.0, 52_000.0, 80_000.0, 150_000.0];
    let (eps, delta) = (Epsilon::new("epsilon", 1.0).unwrap(), Delta::new("delta", 1e-5).unwrap());
    for (name, prior) in [("gaussian", &single), ("gmm3", &gmm3)] {
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(calibrate_at(eps, delta, xs[i], prior).unwrap())
            })
        });
    }
    g.finish();
}

fn gmm(c: &mut Criterion) {
    let mut rng = DeterministicRngForTesting::seed_from_u64(3);
    let samples: Vec<f64> = (0..100_000)
        .map(|i| {
            let (m, s) = if i % 3 == 0 { (35_000.0, 6_000.0) } else { (70_000.0, 15_000.0) };
            let (a, b) = (unit(&mut rng), unit(&mut rng));
            m + s * (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
        })
        .collect();
    let mut g = c.benchmark_group("fit_gmm");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("n=100000", |b| b.iter(|| black_box(fit_gmm(&samples, 4).unwrap())));
    g.finish();
}

fn noise(c: &mut Criterion) {
    let mut g = c.benchmark_group("noise");
    g.throughput(Throughput::Elements(DRAWS as u64)).measurement_time(Duration::from_secs(3));
    // Scales in lattice steps, as a salary mechanism with step 100 and b or σ of 10^4 has.
    let lap = DiscreteLaplace::with_scale_at_least(100.0).unwrap();
    let gau = DiscreteGaussian::with_variance_at_least(100.0 * 100.0).unwrap();
    let mut seeded = DeterministicRngForTesting::seed_from_u64(1);
    let mut os = os_rng();
    g.bench_function("discrete_laplace_seeded", |b| {
        b.iter(|| (0..DRAWS).fold(0i64, |a, _| a.wrapping_add(lap.sample(&mut seeded))))
    });
    g.bench_function("discrete_laplace_os", |b| {
        b.iter(|| (0..DRAWS).fold(0i64, |a, _| a.wrapping_add(os.draw(1024, |r| lap.sample(r)).unwrap())))
    });
    g.bench_function("discrete_gaussian_seeded", |b| {
        b.iter(|| (0..DRAWS).fold(0i64, |a, _| a.wrapping_add(gau.sample(&mut seeded))))
    });
    g.bench_function("discrete_gaussian_os", |b| {
        b.iter(|| (0..DRAWS).fold(0i64, |a, _| a.wrapping_add(os.draw(1024, |r| gau.sample(r)).unwrap())))
    });
    g.bench_function("float_laplace_chacha", |b| {
        b.iter(|| {
            (0..DRAWS).fold(0.0f64, |a, _| {
                let u = unit(&mut seeded) - 0.5;
                a + -100.0 * u.signum() * (1.0 - 2.0 * u.abs()).ln()
            })
        })
    });
    g.finish();
}

criterion_group!(benches, calibration, gmm, noise);
criterion_main!(benches);
