//! Depends on the privlift core as a Rust user would, with `default-features = false`
//! (no_std + alloc): parse, verify and receipt without std. `scripts/test.sh` builds it
//! natively and for `wasm32-unknown-unknown`; it exists to keep that promise tested.
#![no_std]

extern crate alloc;

use privlift::{Document, Policy};

/// The largest lift the receipt of output `y` states for the user's values, if the
/// document verifies.
pub fn max_lift_bound(document: &str, y: usize) -> Option<f64> {
    let doc = Document::from_json(document).ok()?;
    let m = doc.verify(&Policy::default()).ok()?;
    Some(m.receipt(y).ok()?.input.max_lift_bound)
}
