//! Lift-based curator designs (feature `design`): AORR at |X| = 17, |S| = 5 (the lift
//! paper's setting) at εl = εu = 1 and 0.25, optimal ε-LIP at |X| = 5, |S| = 2 (the
//! privacy-funnel paper's setting), the vertex enumeration alone (pivoting and by
//! supports), the watchdog, subset merging and SRR. Each design figure includes the
//! audit `publish` runs. Goals (native): AORR < 2 ms at εl = εu = 1, < 20 ms at 0.25;
//! ORR |X| = 5, |S| = 2 < 0.1 ms. Run: `cargo bench --features design --bench optimal`.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use privlift::design::lift::{JointView, Notion};
use privlift::design::vertex::LiftPolytope;
use privlift::design::{orr, srr, watchdog, Source};
use privlift::spec::{Alphabet, Matrix};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A joint with i.i.d. uniform entries, normalised (the papers' random instances).
fn joint(ns: usize, nx: usize, seed: u64) -> Source {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>()).collect();
    let t: f64 = v.iter().sum();
    let m = Matrix::from_flat(ns, nx, v.iter().map(|x| x / t).collect());
    Source::joint(Alphabet::indices("s", ns).unwrap(), Alphabet::indices("x", nx).unwrap(), m).unwrap()
}

fn optimal(c: &mut Criterion) {
    let mut g = c.benchmark_group("optimal");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let big = joint(5, 17, 7);
    for eps in [1.0, 0.25] {
        let n = Notion::Alip { eps_l: eps, eps_u: eps };
        g.bench_with_input(BenchmarkId::new("aorr_17x5", eps), &big, |b, s| {
            b.iter(|| orr::optimal(black_box(s), n, "b").unwrap())
        });
        let view = JointView::new(&big.p_sx());
        let all: Vec<usize> = (0..17).collect();
        let poly = LiftPolytope::new(&view, &all, -eps, eps).unwrap();
        g.bench_with_input(BenchmarkId::new("vertices_pivoting_17x5", eps), &poly, |b, p| {
            b.iter(|| p.vertices().unwrap())
        });
        g.bench_with_input(BenchmarkId::new("vertices_by_support_17x5", eps), &poly, |b, p| {
            b.iter(|| p.vertices_by_support().unwrap())
        });
        g.bench_with_input(BenchmarkId::new("srr_17x5", eps), &big, |b, s| {
            b.iter(|| srr::srr(black_box(s), n, "b").unwrap())
        });
        g.bench_with_input(BenchmarkId::new("subset_merging_17x5", eps), &big, |b, s| {
            b.iter(|| watchdog::subset_merging(black_box(s), n, "b"))
        });
    }
    let small = joint(2, 5, 11);
    for eps in [0.5, 1.0, 2.0] {
        g.bench_with_input(BenchmarkId::new("orr_lip_5x2", eps), &small, |b, s| {
            b.iter(|| orr::orr_lip(black_box(s), eps, "b").unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, optimal);
criterion_main!(benches);
