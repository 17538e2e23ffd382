//! The core's wasm SIMD kernels (`src/sample/simd.rs`) inside every JS engine: the client
//! module is built with `simd128` (scripts/build-wasm.sh), and so is this test build
//! (scripts/test-wasm.sh), so that the kernels the module runs are the ones tested here,
//! against the scalar definitions the native tests check word by word.
#![cfg(target_arch = "wasm32")]

use privlift::param::Probability;
use privlift::rng::{CryptoRngCore, DeterministicRngForTesting, Randomness};
use privlift::sample::KeepOrUniform;
use privlift::{Document, Policy};
use wasm_bindgen_test::wasm_bindgen_test;

/// A source that hands out the given bytes in order (a batch's words, little-endian).
struct Bytes {
    bytes: Vec<u8>,
    at: usize,
}

impl Bytes {
    fn take(&mut self, n: usize) -> &[u8] {
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        out
    }
}

impl Randomness for Bytes {
    fn next_word(&mut self) -> privlift::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8).try_into().unwrap()))
    }
    fn fill_words(&mut self, out: &mut [u64]) -> privlift::Result<()> {
        for w in out {
            *w = self.next_word()?;
        }
        Ok(())
    }
    fn fill_block(&mut self, out: &mut [u8]) -> privlift::Result<()> {
        out.copy_from_slice(self.take(out.len()));
        Ok(())
    }
    fn draw<T>(&mut self, _reserve: usize, _draw: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> privlift::Result<T> {
        unreachable!("the keep-or-uniform sampler draws a fixed word a report")
    }
}

#[wasm_bindgen_test]
fn the_test_build_has_wasm_simd() {
    // Otherwise this file would test the scalar loops the native tests already cover.
    // (A run-time check: a build without the flag still compiles, and fails here.)
    let simd128 = core::hint::black_box(cfg!(target_feature = "simd128"));
    assert!(simd128, "build the wasm tests with -C target-feature=+simd128");
}

#[wasm_bindgen_test]
fn the_simd_32_bit_draw_is_the_scalar_draw_word_for_word() {
    // Every 32-bit instance over g from 1 to 2³² − 1 (κ = 0 with g a power of 2 is the draw
    // that never keeps: F = 2³²; powers of 2 from 2¹ to 2³¹ take the kernel's shifts, the
    // others its products), each over random words and the buckets' edge words, with
    // batches below the kernel's sixteen inputs an iteration, of every remainder mod 4 above
    // it, and across the 16,384-word blocks of a batch.
    let mut rng = DeterministicRngForTesting::seed_from_u64(128);
    let mut instances = 0;
    for g in [1usize, 2, 3, 7, 21, 256, 1000, 4096, 65_537, 1 << 31, (1 << 31) + 11, u32::MAX as usize] {
        for keep in [0.0, 0.25, 0.5, (1f64.exp() - 1.0) / (1f64.exp() + g as f64 - 1.0), 0.9] {
            let s = KeepOrUniform::new(Probability::new("keep", keep).unwrap(), g).unwrap();
            if s.word_bytes() != 4 {
                continue;
            }
            instances += 1;
            for n in (0..=9).chain([16, 33, 46, 63, 2 * 16_384 + 7]) {
                let mut random = vec![0u8; 4 * n];
                rng.fill_block(&mut random).unwrap();
                let mut words: Vec<u32> =
                    random.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
                // Words at the buckets' lower edges L_y = ⌈y·2³²/g⌉ and beside them.
                let edges = [1, g as u64 / 2, g as u64 - 1].map(|y| (y << 32).div_ceil(g as u64));
                let special =
                    edges.iter().flat_map(|&l| [l.saturating_sub(1), l, l + 1]).chain([0, 1, u32::MAX.into()]);
                for (w, e) in words.iter_mut().zip(special) {
                    *w = e.min(u32::MAX.into()) as u32;
                }
                let xs: Vec<u32> = (0..n).map(|i| (i as u64 * 7919 % g as u64) as u32).collect();
                let mut ys = xs.clone();
                let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                s.sample_in_place(&mut ys, &mut Bytes { bytes, at: 0 }).unwrap();
                for i in 0..n {
                    let want = s.sample_word(xs[i] as usize, words[i].into()) as u32;
                    assert_eq!(ys[i], want, "g = {g}, κ = {keep}, n = {n}, i = {i}, word {:#x}", words[i]);
                }
            }
        }
    }
    assert!(instances >= 20, "only {instances} instances draw 32 bits");
}

#[wasm_bindgen_test]
fn the_simd_largest_input_check_refuses_an_input_in_every_lane_and_the_remainder() {
    // k-RR over 3 values: 3 is out of range wherever it stands, 2 (the largest valid) is
    // drawn, in batches of 1 to 13 (below the kernel's 64 inputs an iteration) and of one or
    // two iterations and a remainder.
    let doc = Document::from_json(
        r#"{"format": "privlift-mechanism", "version": 1, "id": "krr3", "labels": ["a", "b", "c"],
            "prior": [0.2, 0.3, 0.5], "mechanism": {"kind": "krr", "epsilon": 1.0}, "claims": {"ldp_x": 1.0}}"#,
    )
    .unwrap();
    let mech = doc.verify(&Policy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(3);
    for n in (1..=13).chain([64, 67, 130]) {
        for at in 0..n {
            let mut xs = vec![0u32; n];
            xs[at] = 3;
            let err = mech.perturb_in_place(&mut xs, &mut rng).unwrap_err();
            assert_eq!(err.code(), "unknown_value", "n = {n}, at {at}");
            xs[at] = 2;
            mech.perturb_in_place(&mut xs, &mut rng).unwrap();
        }
    }
}
