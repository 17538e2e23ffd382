//! What verifying a dense channel holds: its sampler's integer weights once; the audit
//! reads its exact channel from them a row at a time. An f64 copy beside the weights would
//! double what each verification of a 1024² channel allocates and frees (16 MiB), enough
//! for the allocator to return it to the system after each and fault it back in on the
//! next. Measured by a counting allocator (this test binary's own), as the peak of live
//! bytes.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/peak.rs"]
mod peak;
use peak::{live, peak_of};

use privlift::{Document, Policy};
use serde_json::json;

/// A k-RR channel at ε = 1 as a dense matrix under a joint with 16 secrets (the
/// `verify/krr_S16` benchmark's document), claiming `ldp_x`.
fn krr_with_secret(k: usize) -> Document {
    let e = 1f64.exp();
    let (diag, off) = (e / (e + k as f64 - 1.0), 1.0 / (e + k as f64 - 1.0));
    let rows: Vec<Vec<f64>> = (0..k).map(|x| (0..k).map(|y| if x == y { diag } else { off }).collect()).collect();
    // P(s, x): secret s = x mod 16, each input 1/k.
    let p_sx: Vec<Vec<f64>> =
        (0..16).map(|s| (0..k).map(|x| if x % 16 == s { 1.0 / k as f64 } else { 0.0 }).collect()).collect();
    let text = json!({
        "format": "privlift-mechanism", "version": 1, "id": "krr-s16",
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": vec![1.0 / k as f64; k],
        "secret": {"labels": (0..16).map(|s| format!("s{s}")).collect::<Vec<_>>(), "p_sx": p_sx},
        "mechanism": {"kind": "matrix", "p_y_given_x": rows},
        "claims": {"ldp_x": 1.0}
    });
    Document::from_json(&text.to_string()).expect("a valid document")
}

#[test]
fn verifying_a_dense_channel_holds_its_weights_once() {
    let k = 1024;
    let weights = k * k * 8;
    let doc = krr_with_secret(k);
    let base = live();
    let (m, peak) = peak_of(|| doc.verify(&Policy::default()).expect("k-RR verifies"));
    let held = live() - base;
    // The weights and what is proportional to one side (|X| + |Y| numbers, the labels…).
    let bound = weights + weights / 8;
    assert!(peak <= bound, "verify held {peak} bytes at once for {weights} bytes of weights");
    assert!(held <= bound, "the verified mechanism holds {held} bytes for {weights} bytes of weights");
    // The audit w.r.t. S, left to first use, and the receipts read the same weights: the
    // garbling by S cannot leak more than the channel (LDP w.r.t. S ≤ w.r.t. X), and every
    // lift of a receipt lies within the bounds the audit proved.
    assert!(m.leakage().ldp <= m.leakage_x().ldp_x, "{:?}", m.leakage());
    let r = m.receipt(0).expect("a receipt");
    for section in [&r.input, r.secret.as_ref().expect("a secret section")] {
        assert!(section.entries.iter().all(|e| (section.min_lift_bound..=section.max_lift_bound).contains(&e.lift)));
    }
}
