//! For every document that verifies under a policy, every receipt's lifts lie within
//! the bounds it states and every limit about X holds on an independent X-audit (the
//! property of `tests/common/receipt_props.rs`, shared with the property test; CI replays
//! this target's check on `fuzz/seeds/receipt_bounds/` and on seeded random inputs).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/receipt_props.rs"]
mod receipt_props;

fuzz_target!(|data: &[u8]| {
    if let Some((doc, policy)) = receipt_props::document_and_policy(data) {
        receipt_props::check(&doc, &policy);
    }
});
