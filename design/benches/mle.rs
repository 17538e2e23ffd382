//! Maximum-likelihood estimation (issue 14: "< 50 ms for k = 256 with MLE" from 10⁹
//! counted reports): k-RR at ε = 1, k = 256, the integer expected counts of 10⁹ reports
//! from a Zipf(1.1) truth (693 EM steps before SQUAREM's step bound, 279 with it). The
//! whole `estimate_mle`, and the standard errors' phases on the information at p̂: the
//! projected information H = BᵀB (`linalg::gram`), its eigen-decomposition, and the
//! covariance UᵀU; EM is the rest. The cyclic Jacobi solver that `symmetric_eigen`
//! replaced is kept here as the yardstick, so the two solvers compare in one run.
//! The intervals of the inputs a channel does not identify (`identified::Solutions`, two
//! LPs per input) are timed on a merge of 64 inputs into 32 pairs (32 unidentified
//! directions, the budget `MAX_INTERVAL_DIRECTIONS`; every input unidentified), against
//! the whole `estimate_mle` on it, which computes them.
//! Run: `cargo bench -p privlift-design --bench mle`.
extern crate alloc;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use privlift::document::Matrix;
use privlift_design::identified::Solutions;
use privlift_design::mle::estimate_mle;

/// The crate's private dense algebra, compiled into this bench.
#[allow(dead_code, unused_imports)]
#[path = "../src/linalg.rs"]
mod linalg;

const K: usize = 256;

fn krr(k: usize, eps: f64) -> Matrix {
    let e = eps.exp();
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { e } else { 1.0 } / (e + k as f64 - 1.0)).collect())
}

fn fixture() -> (Matrix, Vec<f64>) {
    let w = krr(K, 1.0);
    let z: f64 = (1..=K).map(|x| (x as f64).powf(-1.1)).sum();
    let p: Vec<f64> = (1..=K).map(|x| (x as f64).powf(-1.1) / z).collect();
    let counts = (0..K).map(|y| (1e9 * (0..K).map(|x| p[x] * w.get(x, y)).sum::<f64>()).round()).collect();
    (w, counts)
}

/// B (one centred row √c_y/λ_y W_·y per output) at p̂, as `mle::information_covariance`
/// builds it.
fn information_rows(w: &Matrix, counts: &[f64], p: &[f64]) -> Vec<f64> {
    let mut b = Vec::with_capacity(K * K);
    for (y, &c) in counts.iter().enumerate() {
        let l: f64 = (0..K).map(|x| p[x] * w.get(x, y)).sum();
        let s = c.sqrt() / l;
        let row: Vec<f64> = (0..K).map(|x| s * w.get(x, y)).collect();
        let mean = row.iter().sum::<f64>() / K as f64;
        b.extend(row.iter().map(|v| v - mean));
    }
    b
}

/// The cyclic Jacobi solver `linalg::symmetric_eigen` was before (Golub & Van Loan,
/// Algorithm 8.5.1; sweeps until the off-diagonal part is below 1e-13 of the norm).
fn jacobi_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let norm = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..50 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum();
        if off.sqrt() <= 1e-13 * norm.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 || apq.abs() <= 1e-17 * (a[p * n + p].abs() + a[q * n + q].abs()) {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

fn mle(c: &mut Criterion) {
    let (w, counts) = fixture();
    let m = estimate_mle(&w, &counts, 200_000).unwrap();
    eprintln!("k = {K}: {} EM steps", m.iterations);
    let b = information_rows(&w, &counts, &m.estimate);
    let h = linalg::gram(&b, K, K);
    let (vals, vecs) = linalg::symmetric_eigen(&h, K);
    let u: Vec<f64> = (0..K)
        .filter(|&i| vals[i] > 1e-9 * vals[K - 1])
        .flat_map(|i| (0..K).map(move |a| (i, a)))
        .map(|(i, a)| vecs[a * K + i] / vals[i].sqrt())
        .collect();
    let mut g = c.benchmark_group("mle");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.bench_function("estimate_mle/256", |bch| bch.iter(|| estimate_mle(black_box(&w), &counts, 200_000).unwrap()));
    g.bench_function("information_gram/256", |bch| bch.iter(|| linalg::gram(black_box(&b), K, K)));
    g.bench_function("eigen_tridiagonal_ql/256", |bch| bch.iter(|| linalg::symmetric_eigen(black_box(&h), K)));
    g.bench_function("eigen_jacobi_before/256", |bch| bch.iter(|| jacobi_eigen(black_box(&h), K)));
    g.bench_function("covariance_gram/256", |bch| bch.iter(|| linalg::gram(black_box(&u), u.len() / K, K)));
    g.finish();
}

/// Inputs of the pairs fixture.
const PAIRED: usize = 2 * privlift_design::identified::MAX_INTERVAL_DIRECTIONS;

/// Inputs 2i and 2i + 1 share one output, released by k-RR at ε = 1 over the pairs; the
/// integer expected counts of 10⁶ reports from a Zipf(1.1) truth.
fn merged_pairs() -> (Matrix, Vec<f64>) {
    let (k, half) = (PAIRED, PAIRED / 2);
    let pairs = krr(half, 1.0);
    let w = Matrix::from_flat(k, half, (0..k * half).map(|i| pairs.get(i / half / 2, i % half)).collect());
    let z: f64 = (1..=k).map(|x| (x as f64).powf(-1.1)).sum();
    let p: Vec<f64> = (1..=k).map(|x| (x as f64).powf(-1.1) / z).collect();
    let counts = (0..half).map(|y| (1e6 * (0..k).map(|x| p[x] * w.get(x, y)).sum::<f64>()).round()).collect();
    (w, counts)
}

fn intervals(c: &mut Criterion) {
    let (w, counts) = merged_pairs();
    let m = estimate_mle(&w, &counts, 200_000).unwrap();
    eprintln!("merged pairs: {} unidentified directions, {} EM steps", m.unidentified.len(), m.iterations);
    let solutions = Solutions::new(&m.estimate, &m.unidentified);
    let mut g = c.benchmark_group("mle");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.bench_function("estimate_mle/merged-64", |bch| {
        bch.iter(|| estimate_mle(black_box(&w), &counts, 200_000).unwrap())
    });
    g.bench_function("intervals/merged-64", |bch| {
        bch.iter(|| {
            let mut e = vec![0.0; PAIRED];
            for x in 0..PAIRED {
                e[x] = 1.0;
                black_box(solutions.range(&e).unwrap());
                e[x] = 0.0;
            }
        })
    });
    g.finish();
}

criterion_group!(benches, mle, intervals);
criterion_main!(benches);
