//! The receipt-and-policy property (`tests/common/receipt_props.rs`) on seeded random
//! documents, and the fuzz targets `receipt_bounds` and `open` (`tests/common/open_props.rs`)
//! replayed on their committed seeds: in CI the fuzz targets' own checks run on stable,
//! every time.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::receipt_props::{check, document_and_policy};
use rand::{Rng, SeedableRng};

#[test]
fn every_verified_receipt_is_within_its_bounds_and_every_limit_holds_on_x() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
    let (mut tried, mut verified) = (0, 0);
    for _ in 0..20000 {
        let bytes: Vec<u8> = (0..160).map(|_| rng.random()).collect();
        let Some((doc, policy)) = document_and_policy(&bytes) else { continue };
        tried += 1;
        if privlift::Document::from_json(&doc.to_string()).is_ok_and(|d| d.verify(&policy).is_ok()) {
            verified += 1;
        }
        check(&doc, &policy);
    }
    // The generator must exercise both sides: accepted documents and refusals.
    assert!(tried > 15000, "{tried} documents built");
    assert!(verified > 2500 && verified < tried - 1500, "{verified} of {tried} verified");
}

#[test]
fn the_fuzz_target_holds_on_its_seeds_and_regressions() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut n = 0;
    for dir in ["seeds/receipt_bounds", "regressions/receipt_bounds"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries {
            let bytes = std::fs::read(e.unwrap().path()).unwrap();
            if let Some((doc, policy)) = document_and_policy(&bytes) {
                check(&doc, &policy);
            }
            n += 1;
        }
    }
    assert!(n >= 8, "only {n} seeds for the receipt_bounds fuzz target");
}

#[test]
fn the_open_fuzz_target_holds_on_its_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/open");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        common::open_props::check(&bytes, &mut privlift::rng::DeterministicRngForTesting::seed_from_u64(n));
        n += 1;
    }
    assert!(n >= 8, "only {n} seeds for the open fuzz target");
}
