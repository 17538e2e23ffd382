//! Shared builders for integration tests.
#![allow(dead_code)]

use serde_json::{json, Value};

pub mod counting;
pub mod receipt_props;

/// k-ary randomised response at ε (Jiang et al. V-A (d)): e^ε/(e^ε+k−1) on the diagonal.
pub fn krr_matrix(k: usize, eps: f64) -> Vec<Vec<f64>> {
    let e = eps.exp();
    let d = e / (e + k as f64 - 1.0);
    let o = 1.0 / (e + k as f64 - 1.0);
    (0..k).map(|x| (0..k).map(|y| if x == y { d } else { o }).collect()).collect()
}

/// A valid k-RR document with uniform prior claiming ε-LDP w.r.t. X.
pub fn krr_doc(k: usize, eps: f64) -> Value {
    json!({
        "format": "privlift-mechanism",
        "version": 1,
        "id": format!("krr-{k}"),
        "labels": (0..k).map(|i| format!("v{i}")).collect::<Vec<_>>(),
        "prior": vec![1.0 / k as f64; k],
        "mechanism": {"kind": "matrix", "p_y_given_x": krr_matrix(k, eps)},
        "claims": {"ldp_x": eps, "lip": eps}
    })
}

/// Every row of every section of `r` lies within that section's stated bounds (a row of
/// prior 0, which no user can enter and no audit weighs, has lift exactly 0 by convention).
pub fn lifts_within_bounds(r: &privlift::Receipt) -> bool {
    std::iter::once(&r.input).chain(r.secret.as_ref()).all(|s| {
        s.entries.iter().all(|e| {
            if e.prior == 0.0 {
                e.lift == 0.0
            } else {
                e.lift >= s.min_lift_bound && e.lift <= s.max_lift_bound
            }
        })
    })
}
