//! The open-domain estimators against populations of known frequencies: unbiasedness and
//! the 95 % coverage of their standard errors (fixed seeds; thresholds from the binomial
//! distribution of the number of intervals that cover), and PEM recovering the top values
//! of a Zipf population at a generous ε.
//!
//! The clients here follow the wire spec (the core's quantised keep-or-uniform sampler,
//! one 64-bit word per draw), so the estimators are tested against the channel that runs.

use privlift::open::hash::xxh32;
use privlift::open::OpenMechanism;
use privlift::param::{Epsilon, Probability};
use privlift::sample::structured::MixSampler;
use privlift_design::open::estimate::frequencies;
use privlift_design::open::pem::{heavy_hitters, prefix};
use privlift_design::open::Report;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{Binomial, DiscreteCDF};

/// The g-ary randomiser of ε as the core draws it.
fn krr(epsilon: f64, g: u32) -> MixSampler {
    let e = epsilon.exp();
    MixSampler::new(Probability::new("keep", (e - 1.0) / (e + f64::from(g) - 1.0)).unwrap(), &vec![1.0; g as usize])
        .unwrap()
}

/// ε as the documents carry it.
fn eps(epsilon: f64) -> Epsilon {
    Epsilon::new("epsilon", epsilon).unwrap()
}

/// One report of `value` under `mechanism` (the spec's client).
fn perturb(mechanism: &OpenMechanism, k: &MixSampler, value: &[u8], rng: &mut ChaCha8Rng) -> Report {
    match mechanism {
        OpenMechanism::Olh { g, .. } => {
            let seed = rng.next_u32();
            let v = xxh32(seed, value) % g;
            Report::Olh { seed, y: k.sample_word(v as usize, rng.next_u64()) as u32 }
        }
        OpenMechanism::Hadamard { bits, hash_seed, .. } => {
            let mask = if *bits == 32 { u32::MAX } else { (1 << bits) - 1 };
            let b = xxh32(*hash_seed, value) & mask;
            let j = rng.next_u32() & mask;
            let bit = (b & j).count_ones() & 1;
            Report::Hadamard { j, bit: k.sample_word(bit as usize, rng.next_u64()) == 1 }
        }
        OpenMechanism::Hcms { k: hashes, m, .. } => {
            let j = rng.random_range(0..*hashes);
            let c = xxh32(j, value) & (m - 1);
            let l = rng.random_range(0..*m);
            let bit = (c & l).count_ones() & 1;
            Report::Hcms { j, l, bit: k.sample_word(bit as usize, rng.next_u64()) == 1 }
        }
        OpenMechanism::HeavyHitters { g, prefix_bits, split, .. } => {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let round = split.iter().position(|w| {
                acc += w.get();
                u < acc
            });
            let round = round.unwrap_or(split.len() - 1);
            // The last round covers the whole value: ℓ_R = 8·max_bytes.
            let max_bytes = prefix_bits[prefix_bits.len() - 1] as usize / 8;
            let p = prefix(value, max_bytes, prefix_bits[round]);
            let seed = rng.next_u32();
            let v = xxh32(seed, &p) % g;
            Report::HeavyHitters { round: round as u32, seed, y: k.sample_word(v as usize, rng.next_u64()) as u32 }
        }
    }
}

/// A population with exact counts: value i has round(n·p_i) users (Zipf with exponent s).
fn zipf_counts(values: usize, n: usize, s: f64) -> Vec<usize> {
    let w: Vec<f64> = (1..=values).map(|i| (i as f64).powf(-s)).collect();
    let total: f64 = w.iter().sum();
    w.iter().map(|x| (x / total * n as f64).round() as usize).collect()
}

fn words(values: usize) -> Vec<String> {
    (0..values).map(|i| format!("w{i}")).collect()
}

/// Binomial(trials, 0.95)'s central 99.8 % range: the count of covering intervals of an
/// estimator whose standard errors are right falls outside it with probability 0.002.
fn coverage_range(trials: u64) -> (u64, u64) {
    let b = Binomial::new(0.95, trials).unwrap();
    (b.inverse_cdf(0.001), b.inverse_cdf(0.999))
}

/// Runs `reps` independent collections; returns (covered, trials, mean standardised error).
fn coverage(params: &OpenMechanism, users: usize, reps: u64, seed: u64) -> (u64, u64, f64) {
    let values = words(40);
    let counts = zipf_counts(values.len(), users, 1.1);
    let n: usize = counts.iter().sum();
    let k = krr(params.epsilon().get(), params.outputs());
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_bytes()).collect();
    let (mut covered, mut trials, mut z_sum) = (0, 0, 0.0);
    for rep in 0..reps {
        let mut rng = ChaCha8Rng::seed_from_u64(seed * 1000 + rep);
        let mut reports = Vec::with_capacity(n);
        for (v, &c) in values.iter().zip(&counts) {
            for _ in 0..c {
                reports.push(perturb(params, &k, v.as_bytes(), &mut rng));
            }
        }
        let f = frequencies(params, &reports, &refs).unwrap();
        assert_eq!(f.n, n as u64);
        for (i, &c) in counts.iter().enumerate() {
            let truth = c as f64 / n as f64;
            let z = (f.estimate[i] - truth) / f.std_error[i];
            z_sum += z;
            covered += u64::from(z.abs() <= 1.959_963_985);
            trials += 1;
        }
    }
    (covered, trials, z_sum / trials as f64)
}

fn check_coverage(params: OpenMechanism, users: usize, reps: u64, seed: u64) {
    let (covered, trials, mean_z) = coverage(&params, users, reps, seed);
    let (lo, hi) = coverage_range(trials);
    assert!((lo..=hi).contains(&covered), "{params:?}: {covered}/{trials} intervals cover, expected {lo}..={hi}");
    // Unbiased: the mean standardised error of `trials` estimates (sd ≈ 1/√trials each,
    // correlated within a collection only through Σ f̂ ≈ 1) is near 0.
    let bound = 4.0 / (trials as f64).sqrt() * (40f64).sqrt();
    assert!(mean_z.abs() < bound, "{params:?}: mean standardised error {mean_z}, bound {bound}");
}

#[test]
fn olh_is_unbiased_and_its_intervals_cover() {
    check_coverage(OpenMechanism::Olh { epsilon: eps(1.0), g: 4 }, 4000, 25, 1);
    check_coverage(OpenMechanism::Olh { epsilon: eps(2.0), g: 8 }, 4000, 25, 2);
}

#[test]
fn hadamard_is_unbiased_and_its_intervals_cover() {
    check_coverage(OpenMechanism::Hadamard { epsilon: eps(1.0), bits: 20, hash_seed: 7 }, 4000, 25, 3);
    // Past the dense transform: the sweep over the reports.
    check_coverage(OpenMechanism::Hadamard { epsilon: eps(2.0), bits: 32, hash_seed: 9 }, 4000, 25, 4);
}

#[test]
fn hcms_is_unbiased_and_its_intervals_cover() {
    check_coverage(OpenMechanism::Hcms { epsilon: eps(2.0), k: 256, m: 1024 }, 4000, 25, 5);
    check_coverage(OpenMechanism::Hcms { epsilon: eps(1.0), k: 16, m: 64 }, 4000, 25, 6);
}

/// A real property of the coverage check: intervals of half the width fail it.
#[test]
fn the_coverage_check_can_fail() {
    let (covered, trials, _) = coverage(&OpenMechanism::Olh { epsilon: eps(1.0), g: 4 }, 4000, 10, 7);
    let (lo, _) = coverage_range(trials);
    assert!(covered >= lo);
    // Half-width intervals cover about 68 %: far below the range.
    let params = OpenMechanism::Olh { epsilon: eps(1.0), g: 4 };
    let values = words(40);
    let counts = zipf_counts(40, 4000, 1.1);
    let k = krr(1.0, 4);
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_bytes()).collect();
    let mut half = 0;
    let mut total = 0;
    for rep in 0..10 {
        let mut rng = ChaCha8Rng::seed_from_u64(7000 + rep);
        let reports: Vec<Report> = values
            .iter()
            .zip(&counts)
            .flat_map(|(v, &c)| std::iter::repeat_n(v, c))
            .map(|v| perturb(&params, &k, v.as_bytes(), &mut rng))
            .collect();
        let f = frequencies(&params, &reports, &refs).unwrap();
        let n: usize = counts.iter().sum();
        for (i, &c) in counts.iter().enumerate() {
            half += u64::from(((f.estimate[i] - c as f64 / n as f64) / f.std_error[i]).abs() <= 0.98);
            total += 1;
        }
    }
    assert_eq!(total, trials);
    assert!(half < lo, "half-width intervals covered {half}/{total}");
}

#[test]
fn pem_recovers_the_top_of_a_zipf_population() {
    let max_bytes = 3;
    let params = OpenMechanism::HeavyHitters {
        epsilon: eps(4.0),
        g: 56,
        prefix_bits: vec![8, 16, 24],
        split: vec![Probability::new("split", 1.0 / 3.0).unwrap(); 3],
    };
    let values: Vec<String> = (0..60).map(|i| format!("{}{}", (b'a' + (i % 26) as u8) as char, i)).collect();
    let counts = zipf_counts(values.len(), 60_000, 1.1);
    let k = krr(4.0, 56);
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut reports = Vec::new();
    for (v, &c) in values.iter().zip(&counts) {
        for _ in 0..c {
            reports.push(perturb(&params, &k, v.as_bytes(), &mut rng));
        }
    }
    let top = heavy_hitters(&params, max_bytes, &reports, 5).unwrap();
    assert_eq!(top.n, reports.len() as u64);
    assert_eq!(top.values, values[..5], "found {:?}", top.values);
    for (i, v) in top.values.iter().enumerate() {
        let truth = counts[values.iter().position(|w| w == v).unwrap()] as f64 / reports.len() as f64;
        assert!((top.estimate[i] - truth).abs() < 4.0 * top.std_error[i], "{v}: {} vs {truth}", top.estimate[i]);
    }
}

/// The support count of `value`'s round-r prefix among the reports of the rounds `rounds`,
/// and how many reports those rounds hold.
fn prefix_support(
    reports: &[Report],
    rounds: &[u32],
    value: &[u8],
    max_bytes: usize,
    bits: &[u32],
    g: u32,
) -> (u64, u64) {
    let (mut count, mut n) = (0, 0);
    for r in reports {
        let Report::HeavyHitters { round, seed, y } = *r else { unreachable!() };
        if rounds.contains(&round) {
            n += 1;
            count += u64::from(xxh32(seed, &prefix(value, max_bytes, bits[round as usize])) % g == y);
        }
    }
    (count, n)
}

#[test]
fn pem_estimates_a_short_value_from_every_round_that_covers_its_padding() {
    // No value holds a NUL, so "a\0" (16 bits) and "a\0\0" (24 bits) are the value "a"
    // itself: rounds 1 and 2 both estimate its frequency, "bc" only round 2 ("bc\0").
    let (max_bytes, g, epsilon) = (3, 8, 2.0);
    let bits = vec![8, 16, 24];
    let params = OpenMechanism::HeavyHitters {
        epsilon: eps(epsilon),
        g,
        prefix_bits: bits.clone(),
        split: vec![Probability::new("split", 1.0 / 3.0).unwrap(); 3],
    };
    let k = krr(epsilon, g);
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let mut reports = Vec::new();
    for (v, c) in [("a", 15_000), ("bc", 9_000), ("def", 6_000)] {
        for _ in 0..c {
            reports.push(perturb(&params, &k, v.as_bytes(), &mut rng));
        }
    }
    let top = heavy_hitters(&params, max_bytes, &reports, 3).unwrap();
    let e = epsilon.exp();
    let kappa = (e - 1.0) / (e + f64::from(g) - 1.0);
    let (p, q) = (kappa + (1.0 - kappa) / f64::from(g), 1.0 / f64::from(g));
    for (value, rounds) in [("a", &[1, 2][..]), ("bc", &[2][..]), ("def", &[2][..])] {
        let i = top.values.iter().position(|v| v == value).unwrap_or_else(|| panic!("{value} not in {:?}", top.values));
        let (c, n) = prefix_support(&reports, rounds, value.as_bytes(), max_bytes, &bits, g);
        let (c, n) = (c as f64, n as f64);
        let f = (c / n - q) / (p - q);
        let fc = f.clamp(0.0, 1.0);
        let se = ((fc * p * (1.0 - p) + (1.0 - fc) * q * (1.0 - q)) / (n * (p - q) * (p - q))).sqrt();
        assert!((top.estimate[i] - f).abs() < 1e-9, "{value}: {} vs {f} from rounds {rounds:?}", top.estimate[i]);
        assert!((top.std_error[i] / se - 1.0).abs() < 1e-9, "{value}: {} vs {se}", top.std_error[i]);
    }
}

#[test]
fn pem_finds_most_of_the_top_ten_at_a_low_epsilon() {
    // The open-domain benchmark's population (Zipf 1.1 over the words "0" … "9999") at
    // ε = 1 and 10⁵ users: PEM as published (keep the top K each round, rank by the last
    // round's group alone) finds about a quarter of the top 10 (0.27 ± 0.02 over 20 seeds
    // in benches/open-domain); pooling the rounds that estimate a whole value, and keeping
    // only the open prefixes above their round's noise, finds most of them.
    let (max_bytes, epsilon, g) = (4, 1.0, 4);
    let params = OpenMechanism::HeavyHitters {
        epsilon: eps(epsilon),
        g,
        prefix_bits: vec![8, 16, 24, 32],
        split: vec![Probability::new("split", 0.25).unwrap(); 4],
    };
    let counts = zipf_counts(10_000, 100_000, 1.1);
    let k = krr(epsilon, g);
    for seed in 1..=3 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut reports = Vec::new();
        for (i, &c) in counts.iter().enumerate() {
            for _ in 0..c {
                reports.push(perturb(&params, &k, i.to_string().as_bytes(), &mut rng));
            }
        }
        let found = heavy_hitters(&params, max_bytes, &reports, 10).unwrap();
        let hits = (0..10).filter(|i| found.values.contains(&i.to_string())).count();
        assert!(hits >= 7, "seed {seed}: {hits} of the top 10 in {:?}", found.values);
    }
}

#[test]
fn pem_finds_the_demo_fruits_over_twelve_rounds() {
    // The demo's question (scripts/stage-site.sh: ε = 4, 12 bytes, one byte a round, so
    // each round's group holds a twelfth of the 20,000 users): the five most frequent
    // answers are found, in order, each within 4 standard errors of its frequency.
    let fruit: serde_json::Value = serde_json::from_str(include_str!("../../data/priors/fruit-answers.json")).unwrap();
    let values: Vec<String> = serde_json::from_value(fruit["values"].clone()).unwrap();
    let p: Vec<f64> = serde_json::from_value(fruit["p"].clone()).unwrap();
    let (max_bytes, epsilon, g) = (12, 4.0, 56);
    let params = OpenMechanism::HeavyHitters {
        epsilon: eps(epsilon),
        g,
        prefix_bits: (1..=12).map(|r| 8 * r).collect(),
        split: vec![Probability::new("split", 1.0 / 12.0).unwrap(); 12],
    };
    let k = krr(epsilon, g);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut reports = Vec::new();
    for (v, &pv) in values.iter().zip(&p) {
        for _ in 0..(pv * 20_000.0).round() as usize {
            reports.push(perturb(&params, &k, v.as_bytes(), &mut rng));
        }
    }
    let found = heavy_hitters(&params, max_bytes, &reports, 10).unwrap();
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    for (rank, &i) in order[..5].iter().enumerate() {
        assert_eq!(found.values[rank], values[i], "found {:?}", found.values);
        assert!((found.estimate[rank] - p[i]).abs() <= 4.0 * found.std_error[rank], "{}", values[i]);
    }
}
