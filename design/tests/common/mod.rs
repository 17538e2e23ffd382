//! Simulation helpers shared by the estimation tests (seeded generators, named so).
#![allow(dead_code)] // each test file uses its own subset

use privlift::document::Matrix;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// n · λ with λ = Wᵀp: the counts a channel's reports have in expectation.
pub fn expected_counts(w: &Matrix, p: &[f64], n: f64) -> Vec<f64> {
    (0..w.cols()).map(|y| n * (0..w.rows()).map(|x| p[x] * w.get(x, y)).sum::<f64>()).collect()
}

/// An index drawn from the distribution `p` by inversion.
pub fn draw(rng: &mut ChaCha8Rng, p: &[f64]) -> usize {
    let u: f64 = rng.random();
    let mut acc = 0.0;
    p.iter()
        .position(|&q| {
            acc += q;
            u < acc
        })
        .unwrap_or(p.len() - 1)
}
