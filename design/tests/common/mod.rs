//! Helpers shared by the design tests: sources, the rows of a published mechanism, and
//! the estimation tests' simulation (seeded generators, named so).
#![allow(dead_code)] // each test file uses its own subset

use privlift::document::{Alphabet, Document, Matrix, MechanismKind};
use privlift::param::Epsilon;
use privlift_design::Source;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// ε in nats, as a notion's budget.
pub fn nats(e: f64) -> Epsilon {
    Epsilon::new("epsilon", e).expect("a budget in [0, 700] nats")
}

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

/// The joint over |S| = `ns` and |X| = `nx` with entries `v` (rows s), normalised.
pub fn joint(ns: usize, nx: usize, v: Vec<f64>) -> Source {
    let m = Matrix::from_flat(ns, nx, normalised(v));
    Source::joint(Alphabet::indices("s", ns).unwrap(), Alphabet::indices("x", nx).unwrap(), m).unwrap()
}

/// `v` divided by its sum.
pub fn normalised(v: Vec<f64>) -> Vec<f64> {
    let t: f64 = v.iter().sum();
    v.into_iter().map(|x| x / t).collect()
}

/// Asserts that every row of the document's mechanism (each per-secret block, or its
/// channel) is a distribution: non-negative entries summing to 1 within 1e-12.
pub fn assert_rows_stochastic(doc: &Document, what: &str) {
    let rows: Vec<Matrix> = match doc.mechanism() {
        MechanismKind::PerSecret { p_y_given_sx, .. } => p_y_given_sx.clone(),
        kind => kind.channel_matrix(doc.input().len()).into_iter().collect(),
    };
    for m in &rows {
        for x in 0..m.rows() {
            let s: f64 = m.row(x).iter().sum();
            assert!((s - 1.0).abs() <= 1e-12, "{what}: row {x} sums to {s}");
            assert!(m.row(x).iter().all(|&v| v >= 0.0), "{what}: row {x} has a negative entry");
        }
    }
}
