//! The alias samplers: exact weights, every word's outcome, refused rows, and the u64
//! quantiser and the contiguous and lazy tables against their references.

use super::channel::*;
use super::quantise::*;
use super::*;

#[test]
fn weights_sum_to_two_pow_64_and_match_row() {
    let p = [0.1, 0.2, 0.3, 0.4, 0.0];
    let t = AliasTable::new(&p).unwrap();
    let w = t.weights();
    assert_eq!(w.iter().sum::<u128>(), 1u128 << 64);
    assert_eq!(w[4], 0);
    for (q, v) in p.iter().zip(t.probabilities()) {
        assert!((q - v).abs() <= 1e-15, "{q} vs {v}");
    }
}

#[test]
fn every_word_hits_the_exact_weight_on_a_small_grid() {
    // Count outcomes over a full stratified grid of words: column bits × 64 threshold points.
    let p = [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
    let t = AliasTable::new(&p).unwrap();
    assert_eq!(t.bits, 2);
    let mut c = [0u64; 3];
    for col in 0..4u64 {
        for j in 0..1024u64 {
            let r = (col << 62) | (j << 52);
            c[t.sample_word(r)] += 1;
        }
    }
    // Each outcome gets ~1/3 of the 4096 grid words (threshold granularity 2^-10).
    for v in c {
        assert!((v as i64 - 1365).abs() <= 2, "{c:?}");
    }
}

#[test]
fn tiny_probability_is_never_zeroed_and_zero_is_never_drawn() {
    let p = [1e-300, 1.0 - 1e-12, 1e-12, 0.0];
    let t = AliasTable::new(&p).unwrap();
    let w = t.weights();
    assert!(w[0] >= 1);
    assert_eq!(w[3], 0);
    for r in [0u64, u64::MAX, 1 << 63, (3u64 << 62) | 12345] {
        assert_ne!(t.sample_word(r), 3);
    }
}

#[test]
fn one_outcome_and_rejects_bad_rows() {
    let t = AliasTable::new(&[1.0]).unwrap();
    assert_eq!(t.sample_word(0), 0);
    assert_eq!(t.sample_word(u64::MAX), 0);
    assert!(AliasTable::new(&[]).is_err());
    assert!(AliasTable::new(&[0.0, 0.0]).is_err());
    assert!(AliasTable::new(&[f64::NAN, 1.0]).is_err());
    assert!(AliasTable::new(&[-0.1, 1.1]).is_err());
}

/// The table as the 128-bit Vose loop built it before the u64 path: the reference the
/// fast path must match bit for bit.
fn reference_table(p: &[f64], bits: u32) -> Vec<u64> {
    let cols = 1usize << bits;
    let cap: u128 = 1u128 << (64 - bits);
    let mut w = Vec::new();
    quantise_into(p, &mut w).unwrap();
    w.resize(cols, 0);
    let (mut t, mut alias) = (vec![0u128; cols], (0..cols).collect::<Vec<_>>());
    let mut small: Vec<usize> = (0..cols).filter(|&i| w[i] < cap).collect();
    let mut large: Vec<usize> = (0..cols).filter(|&i| w[i] >= cap).collect();
    while let (Some(&sm), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        t[sm] = w[sm];
        alias[sm] = l;
        w[l] -= cap - w[sm];
        if w[l] < cap {
            large.pop();
            small.push(l);
        }
    }
    for &i in &large {
        t[i] = 0;
        alias[i] = i;
    }
    (0..cols).map(|i| ((t[i] as u64) << bits) | alias[i] as u64).collect()
}

/// Rows of a random channel with zero entries and rows holding all the mass.
fn random_channel(seed: u64, nx: usize, ny: usize) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
    let mut data = Vec::with_capacity(nx * ny);
    for x in 0..nx {
        let mut row: Vec<f64> = (0..ny).map(|_| if rng.random_bool(0.3) { 0.0 } else { rng.random::<f64>() }).collect();
        if x % 5 == 0 || row.iter().all(|&v| v == 0.0) {
            row.iter_mut().for_each(|v| *v = 0.0);
            row[rng.random_range(0..ny)] = 1.0;
        }
        data.extend(row);
    }
    data
}

#[test]
fn quantised_rows_build_the_tables_each_row_builds_alone() {
    for (seed, nx, ny) in [(1, 1, 1), (2, 7, 3), (3, 20, 17), (4, 9, 64), (5, 3, 1), (6, 10, 2)] {
        let data = random_channel(seed, nx, ny);
        let (q, exact) = QuantisedChannel::with_channel(nx, ny, &data).unwrap();
        let tables = ChannelSampler::from_quantised(&q);
        let bits = width(ny).unwrap();
        for (x, row) in data.chunks_exact(ny).enumerate() {
            let mut alone = Vec::new();
            build_into(row, bits, &mut Scratch::default(), &mut alone).unwrap();
            assert_eq!(tables.entries[x << bits..(x + 1) << bits], alone[..], "seed {seed}, row {x}");
        }
        // The exact channel: from the weights in the quantising pass, from the weights
        // afterwards and read back from the tables, bit for bit.
        let bits_of = |v: &[f64]| v.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits_of(&exact), bits_of(&q.exact_channel()));
        assert_eq!(bits_of(&exact), bits_of(&tables.effective_channel()));
        // A row or an entry from the weights alone (what an audit reads), bit for bit.
        let mut row = vec![0.0; ny];
        for (x, want) in exact.chunks_exact(ny).enumerate() {
            q.exact_row(x, &mut row);
            assert_eq!(bits_of(&row), bits_of(want), "seed {seed}, row {x}");
            let entries: Vec<f64> = (0..ny).map(|y| q.exact_entry(x, y)).collect();
            assert_eq!(bits_of(&entries), bits_of(want), "seed {seed}, row {x}");
        }
        // Each output's extremes over the inputs, as the exact channel's columns have them.
        let column = |y: usize| exact.iter().skip(y).step_by(ny).copied();
        let top: Vec<f64> = (0..ny).map(|y| column(y).fold(0.0, f64::max)).collect();
        let bottom: Vec<f64> = (0..ny).map(|y| column(y).fold(f64::INFINITY, f64::min)).collect();
        assert!(q.output_extremes().is_none(), "the exact channel's columns hold them");
        let q = QuantisedChannel::new(nx, ny, &data).unwrap();
        let (hi, lo) = q.output_extremes().expect("gathered as the rows are quantised");
        assert_eq!((bits_of(hi), bits_of(lo)), (bits_of(&top), bits_of(&bottom)), "seed {seed}");
        assert_eq!(tables, ChannelSampler::new(nx, ny, &data).unwrap());
    }
}

#[test]
fn a_dense_sampler_builds_its_tables_at_the_first_draw_and_draws_as_the_eager_one() {
    let (nx, ny) = (12, 10);
    let data = random_channel(7, nx, ny);
    let lazy = DenseSampler::new(QuantisedChannel::new(nx, ny, &data).unwrap());
    assert!(!lazy.built());
    let copy = lazy.clone();
    let eager = ChannelSampler::new(nx, ny, &data).unwrap();
    let mut r = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..4000 {
        r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        assert_eq!(lazy.tables().sample_word(i % nx, r), eager.sample_word(i % nx, r));
    }
    assert!(lazy.built() && !copy.built());
    assert_eq!(lazy, copy);
}

#[test]
fn a_channel_of_the_wrong_size_is_refused() {
    for (nx, ny, len) in [(2, 3, 5), (2, 3, 7), (usize::MAX, 2, 4)] {
        let e = QuantisedChannel::new(nx, ny, &vec![0.5; len]).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    }
    assert!(QuantisedChannel::new(1, 0, &[]).is_err());
}

#[test]
fn the_u64_path_builds_the_128_bit_reference_table() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(5);
    let mut rows: Vec<Vec<f64>> = vec![
        vec![1.0],
        vec![1.0, 0.0, 0.0],
        vec![0.0, 3.0],
        vec![0.5, 0.5],
        vec![0.75, 0.25],
        vec![1.0 - 1e-16, 1e-16, 0.0],
        vec![1e-300, 1.0 - 1e-12, 1e-12, 0.0],
        vec![1.0, 1e-300, 1e-300],
        vec![0.25; 4],
        vec![1.0 / 3.0; 3],
        vec![f64::MIN_POSITIVE, 1.0],
    ];
    for _ in 0..400 {
        let k = rng.random_range(1..=70);
        let zeros = rng.random_range(0.0..0.6);
        let mut row: Vec<f64> = (0..k)
            .map(|_| if rng.random_bool(zeros) { 0.0 } else { rng.random::<f64>().powi(rng.random_range(1..8)) })
            .collect();
        if row.iter().all(|&v| v == 0.0) {
            row[0] = 1.0;
        }
        rows.push(row);
    }
    let mut s = Scratch::default();
    for row in &rows {
        let bits = width(row.len()).unwrap();
        let mut table = Vec::new();
        build_into(row, bits, &mut s, &mut table).unwrap();
        assert_eq!(table, reference_table(row, bits), "row {row:?}");
        // The weights read back from the table (u64, wrapping) are the quantised ones,
        // a weight of 2⁶⁴ included, and so are the effective channel's probabilities.
        let mut w = Vec::new();
        quantise_into(row, &mut w).unwrap();
        assert_eq!(table_weights(&table, bits, row.len()), w, "row {row:?}");
        let exact: Vec<f64> = w.iter().map(|&v| probability(v)).collect();
        let (q, channel) = QuantisedChannel::with_channel(1, row.len(), row).unwrap();
        let sampler = ChannelSampler::from_quantised(&q);
        assert_eq!(sampler.effective_channel(), exact);
        assert_eq!(
            channel.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            exact.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}
