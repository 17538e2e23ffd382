//! Open-domain estimation (issue 34's goal: 10⁴ candidates from 10⁶ reports): OLH support
//! counting of 1,000 candidates from 10⁵ reports (10⁸ candidate × report steps, a
//! hundredth of the goal's), as `frequencies` runs it (Lemire's remainder, the candidates
//! split over the cores), beside the yardstick in the same run: the same count on one
//! thread with the `%` operator. Hadamard and HCMS from 10⁶ reports, whose transform
//! makes each candidate one look-up per row.
//! Run: `cargo bench -p privlift-design --bench open`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use privlift::open::hash::xxh32;
use privlift::open::OpenMechanism;
use privlift::param::Epsilon;
use privlift_design::open::estimate::frequencies;
use privlift_design::open::Report;

fn words(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

/// A deterministic stream of words (SplitMix64).
fn stream(n: usize, mut state: u64) -> impl Iterator<Item = u32> {
    (0..n).map(move |_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    })
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("open");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    let cands = words(1000);
    let refs: Vec<&[u8]> = cands.iter().map(|c| c.as_bytes()).collect();
    let g = 4u32;
    let olh: Vec<Report> =
        stream(100_000, 1).zip(stream(100_000, 2)).map(|(s, y)| Report::Olh { seed: s, y: y % g }).collect();
    let eps = Epsilon::new("epsilon", 1.0).unwrap();
    let params = OpenMechanism::Olh { epsilon: eps, g };
    group.bench_function("olh 1e3 x 1e5", |b| b.iter(|| frequencies(&params, black_box(&olh), &refs).unwrap()));
    group.bench_function("olh 1e3 x 1e5, one thread, % (yardstick)", |b| {
        b.iter(|| {
            refs.iter()
                .map(|x| {
                    olh.iter().filter(|r| matches!(r, Report::Olh { seed, y } if xxh32(*seed, x) % g == *y)).count()
                })
                .collect::<Vec<_>>()
        })
    });
    let cands = words(10_000);
    let refs: Vec<&[u8]> = cands.iter().map(|c| c.as_bytes()).collect();
    let had: Vec<Report> = stream(1_000_000, 3)
        .zip(stream(1_000_000, 4))
        .map(|(j, b)| Report::Hadamard { j: j & 0xf_ffff, bit: b & 1 == 1 })
        .collect();
    let params = OpenMechanism::Hadamard { epsilon: eps, bits: 20, hash_seed: 0 };
    group.bench_function("hadamard 1e4 x 1e6", |b| b.iter(|| frequencies(&params, black_box(&had), &refs).unwrap()));
    let hcms: Vec<Report> = stream(1_000_000, 5)
        .zip(stream(1_000_000, 6))
        .map(|(j, l)| Report::Hcms { j: j % 2048, l: l & 1023, bit: l >> 31 == 1 })
        .collect();
    let params = OpenMechanism::Hcms { epsilon: eps, k: 2048, m: 1024 };
    group.bench_function("hcms 1e4 x 1e6", |b| b.iter(|| frequencies(&params, black_box(&hcms), &refs).unwrap()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
