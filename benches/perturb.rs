//! Native throughput of privlift's perturbation and verification, with baselines measured
//! in the same run (scripts/bench.sh runs them).
//!
//! Groups (criterion ids `group/function`):
//!
//! `single/k=K`, one report per iteration:
//! * `perturb_seeded`: `VerifiedMechanism::perturb` on `DeterministicRngForTesting`
//! * `perturb_os`: `VerifiedMechanism::perturb` on `rng::os_rng()` (pooled OS CSPRNG)
//! * `naive_scan_chacha`: baseline (i), a cumulative-sum threshold scan over the f64 row with
//!   a uniform from the same ChaCha12
//! * `os_reseed_per_call`: baseline (ii), `getrandom` 32 bytes → ChaCha12 seed → one draw, on
//!   every call
//!
//! `batch/k=K`, 10^5 reports per iteration:
//! * `perturb_many_seeded`: `perturb_many` on `DeterministicRngForTesting`
//! * `perturb_many_os`: `perturb_many` on `rng::os_rng()`
//! * `sampler_words_only`: `sample::ChannelSampler::sample_word` over pre-drawn words (the
//!   alias sampler alone: no RNG, no input checks)
//! * `getrandom_bulk_words`: `getrandom::fill` straight into the word buffer, then the same
//!   sampler (OS randomness without the pool's copy and zeroing)
//! * `naive_scan_chacha`: baseline (i) over the same inputs
//! * `os_getrandom_per_draw`: baseline (ii) in batch form, one `getrandom` call per report
//!
//! `verify/krr_S16/K`: `Document::verify` (alias tables + exact-channel audit) of a k-RR
//! channel under a random joint P_SX with 16 secrets, claim `ldp_x`.
//! `verify/krr_kind/K`, `verify/krr_matrix/K`: the same k-RR channel, S = X, as the
//! structured `krr` kind and as a dense matrix; `…_parse_verify` adds `Document::from_json`
//! of the JSON text (what a page does after the download).
//!
//! `open/olh`, one report of a word (1024 words of 5–7 bytes in turn) per iteration:
//! * `perturb_seeded`: `VerifiedOpen::perturb` of an `olh` document (ε = 1, g = 4) on
//!   `DeterministicRngForTesting`
//! * `krr4_perturb_seeded`: the baseline, `VerifiedMechanism::perturb` of a 4-symbol k-RR
//!   (the randomiser OLH runs after hashing) on the same generator
//! * `xxh32`: the hash of the word alone
//! * `parse_verify`: `OpenDocument::from_json` and `verify` of the document
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/mod.rs"]
mod common;

use common::{krr_doc, krr_matrix};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use privlift::open::{hash::xxh32, OpenDocument};
use privlift::rng::{os_rng, DeterministicRngForTesting};
use privlift::sample::ChannelSampler;
use privlift::{Document, Policy, VerifiedMechanism};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;
use serde_json::json;

const KS: [usize; 3] = [2, 21, 256];
const BATCH: usize = 100_000;
const EPS: f64 = 1.0;

/// k-RR under a random joint P_SX with `ns` secrets; prior = its column sums; claim ldp_x.
fn krr_secret_doc(k: usize, ns: usize, eps: f64, seed: u64) -> Document {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    let mut p: Vec<Vec<f64>> =
        (0..ns).map(|_| (0..k).map(|_| (rng.next_u32() as f64 + 1.0) / 4294967296.0).collect()).collect();
    let total: f64 = p.iter().flatten().sum();
    p.iter_mut().flatten().for_each(|v| *v /= total);
    // Column sums in the same order the validator uses (rows s = 0.., naive f64 sum).
    let mut prior = vec![0.0; k];
    for row in &p {
        for (a, v) in prior.iter_mut().zip(row) {
            *a += v;
        }
    }
    let doc = json!({
        "format": "privlift-mechanism",
        "version": 1,
        "id": format!("krr-{k}-s{ns}"),
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": prior,
        "secret": {"labels": (0..ns).map(|i| format!("s{i}")).collect::<Vec<_>>(), "p_sx": p},
        "mechanism": {"kind": "matrix", "p_y_given_x": krr_matrix(k, eps)},
        "claims": {"ldp_x": eps}
    });
    Document::from_json(&doc.to_string()).expect("valid k-RR document with secret")
}

fn mechanism(k: usize) -> VerifiedMechanism {
    Document::from_json(&krr_doc(k, EPS).to_string())
        .expect("valid k-RR document")
        .verify(&Policy::default())
        .expect("k-RR verifies")
}

fn inputs(k: usize, n: usize) -> Vec<u32> {
    let mut r = ChaCha12Rng::seed_from_u64(42);
    (0..n).map(|_| (r.next_u64() % k as u64) as u32).collect()
}

/// Baseline (i): the classic sampler: scan the row, accumulating f64 probabilities, until
/// the running sum exceeds a uniform in [0, 1).
#[inline]
fn naive_scan(row: &[f64], rng: &mut ChaCha12Rng) -> usize {
    let u = (rng.next_u64() >> 11) as f64 * (1.0 / 9007199254740992.0);
    let mut acc = 0.0;
    for (y, &p) in row.iter().enumerate() {
        acc += p;
        if u < acc {
            return y;
        }
    }
    row.len() - 1
}

fn single(c: &mut Criterion) {
    for k in KS {
        let m = mechanism(k);
        let rows = krr_matrix(k, EPS);
        let mut g = c.benchmark_group(format!("single/k={k}"));
        g.throughput(Throughput::Elements(1));
        let mut x = 0usize;
        let mut next_x = move || {
            x = (x + 7) % k;
            x
        };
        let mut seeded = DeterministicRngForTesting::seed_from_u64(1);
        g.bench_function("perturb_seeded", |b| b.iter(|| m.perturb(black_box(next_x()), &mut seeded).unwrap()));
        let mut os = os_rng();
        g.bench_function("perturb_os", |b| b.iter(|| m.perturb(black_box(next_x()), &mut os).unwrap()));
        let mut chacha = ChaCha12Rng::seed_from_u64(2);
        g.bench_function("naive_scan_chacha", |b| b.iter(|| naive_scan(&rows[black_box(next_x())], &mut chacha)));
        g.bench_function("os_reseed_per_call", |b| {
            b.iter(|| {
                let mut seed = [0u8; 32];
                getrandom::fill(&mut seed).unwrap();
                let mut r = ChaCha12Rng::from_seed(seed);
                m.perturb(black_box(next_x()), &mut r).unwrap()
            })
        });
        g.finish();
    }
}

fn batch(c: &mut Criterion) {
    for k in KS {
        let m = mechanism(k);
        let rows = krr_matrix(k, EPS);
        let xs = inputs(k, BATCH);
        let mut g = c.benchmark_group(format!("batch/k={k}"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let mut seeded = DeterministicRngForTesting::seed_from_u64(1);
        g.bench_function("perturb_many_seeded", |b| b.iter(|| m.perturb_many(black_box(&xs), &mut seeded).unwrap()));
        let mut os = os_rng();
        g.bench_function("perturb_many_os", |b| b.iter(|| m.perturb_many(black_box(&xs), &mut os).unwrap()));
        let mut words = vec![0u64; BATCH];
        getrandom::fill(bytemuck_words(&mut words)).unwrap();
        let sampler = ChannelSampler::new(k, k, &rows.concat()).unwrap();
        let words_to_outputs = |xs: &[u32], words: &[u64]| -> Vec<u32> {
            xs.iter().zip(words).map(|(&x, &r)| sampler.sample_word(x as usize, r) as u32).collect()
        };
        g.bench_function("sampler_words_only", |b| b.iter(|| words_to_outputs(black_box(&xs), black_box(&words))));
        g.bench_function("getrandom_bulk_words", |b| {
            b.iter(|| {
                getrandom::fill(bytemuck_words(&mut words)).unwrap();
                words_to_outputs(black_box(&xs), &words)
            })
        });
        let mut chacha = ChaCha12Rng::seed_from_u64(2);
        g.bench_function("naive_scan_chacha", |b| {
            b.iter(|| xs.iter().map(|&x| naive_scan(&rows[x as usize], &mut chacha) as u32).collect::<Vec<u32>>())
        });
        g.bench_function("os_getrandom_per_draw", |b| {
            b.iter(|| {
                xs.iter()
                    .map(|&x| {
                        let mut w = [0u8; 8];
                        getrandom::fill(&mut w).unwrap();
                        sampler.sample_word(x as usize, u64::from_le_bytes(w)) as u32
                    })
                    .collect::<Vec<u32>>()
            })
        });
        g.finish();
    }
}

/// A `&mut [u64]` viewed as bytes, so `getrandom` writes the words in place (no copy).
fn bytemuck_words(w: &mut [u64]) -> &mut [u8] {
    // SAFETY: u8 has alignment 1 and every byte pattern is a valid u64; the library itself
    // forbids unsafe, this is bench-only code.
    let (pre, mid, post) = unsafe { w.align_to_mut::<u8>() };
    debug_assert!(pre.is_empty() && post.is_empty());
    mid
}

/// The JSON text of a k-RR document with a uniform prior (S = X), its mechanism given by
/// `mechanism` (the dense `matrix` or the structured `krr` kind).
fn krr_text(k: usize, mechanism: serde_json::Value) -> String {
    json!({
        "format": "privlift-mechanism", "version": 1, "id": format!("krr-{k}"),
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": vec![1.0 / k as f64; k],
        "mechanism": mechanism,
        "claims": {"ldp_x": EPS, "lip": EPS}
    })
    .to_string()
}

fn verify(c: &mut Criterion) {
    let mut g = c.benchmark_group("verify");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1));
    for k in [256usize, 1024] {
        let doc = krr_secret_doc(k, 16, EPS, 9);
        g.bench_with_input(BenchmarkId::new("krr_S16", k), &doc, |b, d| {
            b.iter(|| d.verify(&Policy::default()).unwrap())
        });
    }
    // The same k-RR channel as a dense matrix and as the structured `krr` kind (S = X):
    // verify alone, and parse + verify from the JSON text (what a page does).
    for k in [1024usize, 4096] {
        let structured = krr_text(k, json!({"kind": "krr", "epsilon": EPS}));
        let doc = Document::from_json(&structured).unwrap();
        g.bench_with_input(BenchmarkId::new("krr_kind", k), &doc, |b, d| {
            b.iter(|| d.verify(&Policy::default()).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("krr_kind_parse_verify", k), &structured, |b, t| {
            b.iter(|| Document::from_json(t).unwrap().verify(&Policy::default()).unwrap())
        });
    }
    let dense = krr_text(1024, json!({"kind": "matrix", "p_y_given_x": krr_matrix(1024, EPS)}));
    let doc = Document::from_json(&dense).unwrap();
    g.bench_with_input(BenchmarkId::new("krr_matrix", 1024), &doc, |b, d| {
        b.iter(|| d.verify(&Policy::default()).unwrap())
    });
    g.bench_with_input(BenchmarkId::new("krr_matrix_parse_verify", 1024), &dense, |b, t| {
        b.iter(|| Document::from_json(t).unwrap().verify(&Policy::default()).unwrap())
    });
    g.finish();
}

fn open(c: &mut Criterion) {
    let text = r#"{"format": "privlift-mechanism", "version": 1, "id": "olh",
        "domain": {"kind": "strings", "max_bytes": 32},
        "mechanism": {"kind": "olh", "hash": "xxh32", "hash_version": 1, "epsilon": 1.0, "g": 4},
        "claims": {"ldp_x": 1.0}}"#;
    let m = OpenDocument::from_json(text).unwrap().verify(&Policy::default()).unwrap();
    let krr = mechanism(4);
    let words: Vec<String> = (0..1024).map(|i| format!("word{i}")).collect();
    let mut g = c.benchmark_group("open/olh");
    g.throughput(Throughput::Elements(1));
    let mut seeded = DeterministicRngForTesting::seed_from_u64(1);
    let mut i = 0usize;
    let mut next = move || {
        i = (i + 1) & 1023;
        i
    };
    g.bench_function("perturb_seeded", |b| b.iter(|| m.perturb(black_box(&words[next()]), &mut seeded).unwrap()));
    g.bench_function("krr4_perturb_seeded", |b| b.iter(|| krr.perturb(black_box(next() & 3), &mut seeded).unwrap()));
    g.bench_function("xxh32", |b| b.iter(|| xxh32(7, black_box(words[next()].as_bytes()))));
    g.bench_function("parse_verify", |b| {
        b.iter(|| OpenDocument::from_json(black_box(text)).unwrap().verify(&Policy::default()).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(15)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots();
    targets = single, batch, verify, open
}
criterion_main!(benches);
