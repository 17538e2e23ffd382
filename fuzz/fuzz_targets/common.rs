//! Properties shared by the fuzz targets.
//!
//! For any document that parses and any policy:
//! * `audit`, `check`, `verify` never panic (errors are fine);
//! * `verify` succeeds exactly when `check` reports ≥ 1 claim, all claims holding and the
//!   policy holding (same prepared sampler, so the two must agree);
//! * after a successful `verify`: every sampled output is `< |Y|` and has positive
//!   probability in the audited (effective) channel; out-of-range inputs are refused;
//!   the receipt of every sampled output exists; and every receipt lift of a secret with
//!   positive prior lies in `[min_lift_bound·(1−1e-9), max_lift_bound·(1+1e-9)]`.
//!   (A secret with prior 0 has lift 0 by the documented convention; it is checked to be
//!   exactly 0 and is not compared with the bounds.)
//! * `to_json` of a valid document parses again.

#![allow(dead_code)]

use privlift::rng::DeterministicRngForTesting;
use privlift::{Document, Policy, VerifiedMechanism};

pub const REL: f64 = 1e-9;

/// Runs every property on `doc`. `xs_hint` and `words` add fuzzer-chosen inputs and
/// random words on top of the fixed ones.
pub fn exercise(doc: &Document, policy: &Policy, xs_hint: &[u32], words: &[u64], alpha: f64) {
    // Audit of the declared channel at the default order and at a fuzzer-chosen order.
    let _ = doc.audit(2.0);
    let _ = doc.audit(alpha);

    let reparsed = Document::from_json(&doc.to_json());
    assert!(reparsed.is_ok(), "to_json output does not re-parse: {:?}", reparsed.err());

    let check = doc.check(policy);
    let verified = doc.verify(policy);
    match (&check, &verified) {
        (Err(e1), Err(e2)) => assert_eq!(e1, e2, "check and verify fail differently"),
        (Err(e), Ok(_)) => panic!("check failed ({e}) but verify succeeded"),
        (Ok(v), r) => {
            let should = !v.claims.is_empty() && v.claims_hold && v.policy_holds;
            assert_eq!(should, r.is_ok(), "check says {should}, verify says {:?}", r.as_ref().err());
        }
    }
    if let Ok(m) = verified {
        exercise_verified(doc, &m, xs_hint, words);
    }
}

fn exercise_verified(doc: &Document, m: &VerifiedMechanism, xs_hint: &[u32], words: &[u64]) {
    let nx = doc.input().len();
    let ny = doc.output().len();
    let eff = m.effective_channel();
    assert_eq!((eff.rows(), eff.cols()), (nx, ny));

    // Claims hold on the audited leakage (with the verifier's own tolerance).
    let l = m.leakage();
    let c = doc.claims();
    for (name, claim, actual) in [
        ("ldp", c.ldp, l.ldp),
        ("ldp_x", c.ldp_x, l.ldp_x),
        ("lip", c.lip, l.lip),
        ("alip.eps_l", c.alip.map(|a| a.eps_l), l.alip.eps_l),
        ("alip.eps_u", c.alip.map(|a| a.eps_u), l.alip.eps_u),
    ] {
        if let Some(b) = claim {
            assert!(privlift::verify::within(actual, b), "{name}: verified but audited {actual} > claimed {b}");
        }
    }

    let mut xs: Vec<usize> = vec![0, nx / 2, nx - 1];
    xs.extend(xs_hint.iter().take(8).map(|&x| x as usize % nx));
    let mut rng = DeterministicRngForTesting::seed_from_u64(xs_hint.first().copied().unwrap_or(7) as u64);
    let mut outputs = Vec::new();
    for &x in &xs {
        for _ in 0..4 {
            let y = m.perturb(x, &mut rng).expect("perturb of a valid input");
            assert!(y < ny, "perturb({x}) = {y} ≥ |Y| = {ny}");
            assert!(eff.get(x, y) > 0.0, "perturb({x}) = {y}, an output of probability 0");
            outputs.push(y);
        }
    }
    assert!(m.perturb(nx, &mut rng).is_err(), "out-of-range input accepted");

    // Fixed and fuzzer-chosen words through the exact sampler.
    let mut ws: Vec<u64> = vec![0, u64::MAX, 1 << 63, (1 << 63) - 1, 0x5555_5555_5555_5555];
    ws.extend(words.iter().take(16));
    let xw: Vec<u32> = (0..ws.len()).map(|i| xs[i % xs.len()] as u32).collect();
    let mut out = Vec::new();
    m.perturb_with_words(&xw, &ws, &mut out).expect("perturb_with_words");
    for (&x, &y) in xw.iter().zip(&out) {
        assert!((y as usize) < ny && eff.get(x as usize, y as usize) > 0.0, "word sample x={x} y={y}");
        outputs.push(y as usize);
    }
    let many = m.perturb_many(&xw, &mut rng).expect("perturb_many");
    assert_eq!(many.len(), xw.len());
    for (&x, &y) in xw.iter().zip(&many) {
        assert!((y as usize) < ny && eff.get(x as usize, y as usize) > 0.0, "batch sample x={x} y={y}");
    }

    // Receipts: every sampled output must have one; every output either has one or is
    // refused as never released.
    outputs.sort_unstable();
    outputs.dedup();
    for &y in &outputs {
        let r = m.receipt(y);
        assert!(r.is_ok(), "no receipt for sampled output {y}: {:?}", r.err());
    }
    for y in 0..ny.min(256) {
        match m.receipt(y) {
            Ok(r) => check_receipt(&r),
            Err(e) => assert_eq!(e.code(), "unknown_output", "receipt({y}): {e}"),
        }
    }
    assert!(m.receipt(ny).is_err());
}

fn check_receipt(r: &privlift::Receipt) {
    let hi = r.max_lift_bound * (1.0 + REL);
    let lo = r.min_lift_bound * (1.0 - REL);
    for e in &r.entries {
        if e.prior > 0.0 {
            assert!(
                e.lift <= hi && e.lift >= lo,
                "receipt y={} secret {}: lift {:e} outside [{:e}, {:e}] (eps_l {}, eps_u {}, audited {} / {})",
                r.output_index, e.secret_index, e.lift, r.min_lift_bound, r.max_lift_bound,
                r.eps_l, r.eps_u, r.audited_eps_l, r.audited_eps_u
            );
        } else {
            assert_eq!(e.lift, 0.0, "secret with prior 0 has lift {}", e.lift);
        }
    }
}
