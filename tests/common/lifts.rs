//! The random lifts of the lift paper's property tests, shared by `design/tests/optimal.rs`
//! (Props 1, 3, 5) and `cli/tests/notions.rs` (the lift notions): one generator, so both
//! draw the same instances from a seed.
#![allow(dead_code)] // each includer reads its own fields

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Lifts l(s, y) and P(y) of a random mechanism on a random joint.
pub struct Lifts {
    /// P(s).
    pub p_s: Vec<f64>,
    /// P(y).
    pub p_y: Vec<f64>,
    /// l(s, y), indexed [y][s].
    pub l: Vec<Vec<f64>>,
}

/// A random joint P(s, x) (skewed by a random power) and a random channel with every
/// entry ≥ 0.02 before normalising, on 2–4 secrets, 2–5 inputs and 2–5 outputs.
pub fn random_lifts(rng: &mut ChaCha8Rng) -> Lifts {
    let (ns, nx, ny) = (rng.random_range(2..5), rng.random_range(2..6), rng.random_range(2..6));
    let skew = rng.random_range(1..4);
    let p: Vec<Vec<f64>> = (0..ns).map(|_| (0..nx).map(|_| rng.random::<f64>().powi(skew)).collect()).collect();
    let t: f64 = p.iter().flatten().sum();
    let p: Vec<Vec<f64>> = p.iter().map(|r| r.iter().map(|v| v / t).collect()).collect();
    let w: Vec<Vec<f64>> = (0..nx)
        .map(|_| {
            let r: Vec<f64> = (0..ny).map(|_| 0.02 + rng.random::<f64>().powi(skew)).collect();
            let t: f64 = r.iter().sum();
            r.iter().map(|v| v / t).collect()
        })
        .collect();
    let p_s: Vec<f64> = p.iter().map(|r| r.iter().sum()).collect();
    let p_sy: Vec<Vec<f64>> =
        (0..ny).map(|y| (0..ns).map(|s| (0..nx).map(|x| p[s][x] * w[x][y]).sum()).collect()).collect();
    let p_y: Vec<f64> = p_sy.iter().map(|r: &Vec<f64>| r.iter().sum()).collect();
    let l = (0..ny).map(|y| (0..ns).map(|s| p_sy[y][s] / (p_s[s] * p_y[y])).collect()).collect();
    Lifts { p_s, p_y, l }
}
