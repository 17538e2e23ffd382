//! Curator-side design times (feature `design`): closed forms at k = 2, 21, 256 and the
//! LPs at |X| = 4..64 (prior-aware RR for ε-LIP, BP-LIP) and |S| = 2..16 (linear
//! reduction, expected distance: on |x − y| its closed form, on a circle LP 12 for each
//! secret). Each figure includes the audit `publish` runs before a document is returned.
//! Run: `cargo bench -p privlift-design --bench design`.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use privlift::document::{Alphabet, Matrix};
use privlift::param::Epsilon;
use privlift_design::{linear, oue, rr, Source};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn dist(rng: &mut ChaCha8Rng, k: usize) -> Vec<f64> {
    let v: Vec<f64> = (0..k).map(|_| rng.random::<f64>() + 0.05).collect();
    let s: f64 = v.iter().sum();
    v.iter().map(|x| x / s).collect()
}

fn prior(k: usize, seed: u64) -> Source {
    Source::prior(Alphabet::indices("x", k).unwrap(), dist(&mut ChaCha8Rng::seed_from_u64(seed), k)).unwrap()
}

fn closed_forms(c: &mut Criterion) {
    let mut g = c.benchmark_group("design_closed_form");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for k in [2usize, 21, 256] {
        let src = prior(k, k as u64);
        g.bench_with_input(BenchmarkId::new("krr", k), &src, |b, s| {
            b.iter(|| rr::krr(black_box(s), Epsilon::positive("epsilon", 1.0).unwrap(), "b").unwrap())
        });
        g.bench_with_input(BenchmarkId::new("oue", k), &src, |b, s| {
            b.iter(|| oue::oue(black_box(s), Epsilon::positive("epsilon", 1.0).unwrap(), "b").unwrap())
        });
        // ε large enough that eq 19 is ε-LIP for this prior (its closed form path).
        let eps = (1.0 / src.p_x().iter().cloned().fold(1.0, f64::min)).ln() + 0.1;
        g.bench_with_input(BenchmarkId::new("rr_lip_eq19", k), &src, |b, s| {
            b.iter(|| rr::rr_lip(black_box(s), Epsilon::positive("epsilon", eps).unwrap(), "b").unwrap())
        });
    }
    g.finish();
}

fn lps(c: &mut Criterion) {
    let mut g = c.benchmark_group("design_lp");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for k in [4usize, 8, 16, 32, 64] {
        let src = prior(k, 100 + k as u64);
        // ε small enough that eq 19 fails, so the LP runs.
        g.bench_with_input(BenchmarkId::new("rr_lip_lp", k), &src, |b, s| {
            b.iter(|| rr::rr_lip(black_box(s), Epsilon::positive("epsilon", 0.3).unwrap(), "b").unwrap())
        });
        if k > 32 {
            continue; // BP-LIP with 3 priors at k = 64: ~12k variables, tens of seconds per solve
        }
        let mut rng = ChaCha8Rng::seed_from_u64(7 + k as u64);
        let priors: Vec<Vec<f64>> = (0..3).map(|_| dist(&mut rng, k)).collect();
        let labels = Alphabet::indices("x", k).unwrap();
        g.bench_with_input(BenchmarkId::new("rr_bp_lip_3_priors", k), &priors, |b, p| {
            b.iter(|| {
                rr::rr_bp_lip(labels.clone(), black_box(p), Epsilon::positive("epsilon", 1.0).unwrap(), None, "b")
                    .unwrap()
            })
        });
    }
    for (ns, nx) in [(2usize, 4usize), (4, 16), (8, 32), (16, 64)] {
        let mut rng = ChaCha8Rng::seed_from_u64((ns * 1000 + nx) as u64);
        let d = dist(&mut rng, ns * nx);
        let src = Source::joint(
            Alphabet::indices("s", ns).unwrap(),
            Alphabet::indices("x", nx).unwrap(),
            Matrix::from_flat(ns, nx, d),
        )
        .unwrap();
        let id = format!("S={ns},X={nx}");
        g.bench_with_input(BenchmarkId::new("linear_distance_lp12", &id), &src, |b, s| {
            b.iter(|| linear::distance(black_box(s), 0.5, None, "b").unwrap())
        });
        // min(|x − y|, |X| − |x − y|): a metric on no line, so each secret's LP (12) is solved.
        let circle = Matrix::from_flat(
            nx,
            nx,
            (0..nx * nx).map(|i| (i / nx).abs_diff(i % nx)).map(|a| a.min(nx - a) as f64).collect(),
        );
        g.bench_with_input(BenchmarkId::new("linear_distance_lp12_circle", &id), &src, |b, s| {
            b.iter(|| linear::distance(black_box(s), 0.5, Some(&circle), "b").unwrap())
        });
        g.bench_with_input(BenchmarkId::new("linear_tv", &id), &src, |b, s| {
            b.iter(|| linear::tv(black_box(s), 0.5, "b").unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, closed_forms, lps);
criterion_main!(benches);
