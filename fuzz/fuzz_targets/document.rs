//! Raw bytes → `Document::from_json` → audit / check / verify → perturb / receipt.
#![no_main]

use libfuzzer_sys::fuzz_target;
use privlift::{Document, Policy};

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else { return };
    let Ok(doc) = Document::from_json(text) else { return };
    // A few inputs derived from the bytes, on top of the fixed first/middle/last.
    let hint: Vec<u32> = data.chunks(97).map(|c| c.iter().map(|&b| b as u32).sum()).collect();
    common::exercise(&doc, &Policy::default(), &hint, &[], 2.0);
});
