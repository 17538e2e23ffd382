//! Lift-based curator designs (feature `design`): AORR at |X| = 17, |S| = 5 (the lift
//! paper's setting) at εl = εu = 1 and 0.25, optimal ε-LIP and ε-LDP at |X| = 5,
//! |S| = 2 (the privacy-funnel paper's setting), the vertex enumeration alone (pivoting
//! and by supports), LP (22) by column generation against microlp over the same
//! vertices (before/after in one run), the watchdog, subset merging, SRR at |X| = 17
//! and at |X| = 200, |S| = 15, and exact AORR at |S| = 5 for |X| = 32 and 64 (larger
//! |X|: `examples/aorr_scaling.rs`). Each design figure includes the audit `publish`
//! runs. Goals (native): AORR < 2 ms at εl = εu = 1, < 20 ms at 0.25; ORR |X| = 5,
//! |S| = 2 < 0.1 ms; optimal LDP there < 1 s; SRR 200 × 15 < 1 s.
//! Run: `cargo bench -p privlift-design --bench optimal -- [filter]`.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use privlift::document::{Alphabet, Matrix};
use privlift::param::Epsilon;
use privlift_design::lift::{JointView, Notion};
use privlift_design::orr::{optimal_response_with, response_sparse, Method};
use privlift_design::vertex::{LiftPolytope, Limits};
use privlift_design::{optimal_ldp, orr, srr, watchdog, Source};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ε in nats, as a notion's budget.
fn nats(e: f64) -> Epsilon {
    Epsilon::new("epsilon", e).expect("a budget in [0, 700] nats")
}

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
        let n = Notion::Alip { eps_l: nats(eps), eps_u: nats(eps) };
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
        for (name, method) in [("lp22_colgen_17x5", Method::ColumnGeneration), ("lp22_microlp_17x5", Method::FullLp)] {
            g.bench_with_input(BenchmarkId::new(name, eps), &view, |b, v| {
                b.iter(|| optimal_response_with(black_box(v), &all, -eps, eps, method).unwrap())
            });
        }
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
            b.iter(|| orr::orr_lip(black_box(s), Epsilon::positive("epsilon", eps).unwrap(), "b").unwrap())
        });
        g.bench_with_input(BenchmarkId::new("optimal_ldp_5x2", eps), &small, |b, s| {
            b.iter(|| optimal_ldp::optimal_ldp(black_box(s), Epsilon::positive("epsilon", eps).unwrap(), "b").unwrap())
        });
    }
    // At εl = εu = 0.25 a group of this joint's partition has more vertices than the
    // default cap and SRR refuses it (`invalid_argument`); 1 and 2 are benchmarked.
    let wide = joint(15, 200, 13);
    for eps in [1.0, 2.0] {
        let n = Notion::Alip { eps_l: nats(eps), eps_u: nats(eps) };
        g.bench_with_input(BenchmarkId::new("srr_200x15", eps), &wide, |b, s| {
            b.iter(|| srr::srr(black_box(s), n, "b").unwrap())
        });
    }
    g.finish();
}

/// Exact AORR (every vertex priced) at |S| = 5 as |X| grows, εl = εu = 1.
fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("aorr_exact");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let limits = Limits { max_bases: 50_000_000, max_vertices: 20_000_000 };
    for nx in [32usize, 64] {
        let src = joint(5, nx, nx as u64);
        let view = JointView::new(&src.p_sx());
        let all: Vec<usize> = (0..nx).collect();
        let poly = LiftPolytope::new(&view, &all, -1.0, 1.0).unwrap();
        g.bench_with_input(BenchmarkId::new("5xN", nx), &poly, |b, p| {
            b.iter(|| response_sparse(&view, &all, black_box(p), limits).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, optimal, scaling);
criterion_main!(benches);
