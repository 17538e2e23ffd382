//! Raw bytes `DOC \0 VALUE \0 REPORT` → an open-domain document verified, VALUE perturbed
//! with fuzzer-chosen random words, REPORT validated as the collector validates one, and
//! every receipt within the audit's bounds: the properties of
//! `tests/common/open_props.rs`, shared with `tests/properties.rs`, which replays this
//! target's seeds on stable in CI.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

use common::{open_props, WordRng};

fuzz_target!(|data: &[u8]| {
    let words: Vec<u64> = data.chunks(8).map(|c| c.iter().fold(0u64, |w, &b| w << 8 | u64::from(b))).collect();
    open_props::check(data, &mut WordRng::new(words));
});
