//! `estimate::released_outputs` and `estimate::unary_releases`: the outputs a collector
//! accepts are exactly those an estimate can explain.

use privlift::document::Document;
use privlift::param::Probability;
use privlift_design::estimate::{document_channel, released_outputs, unary_releases};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// A random distribution over `n` values, with each entry zeroed with probability
/// `zeros` (at least one entry kept).
fn dist(rng: &mut ChaCha8Rng, n: usize, zeros: f64) -> Vec<f64> {
    let keep = rng.random_range(0..n);
    let mut v: Vec<f64> = (0..n)
        .map(|i| if i != keep && rng.random::<f64>() < zeros { 0.0 } else { rng.random::<f64>() + 0.05 })
        .collect();
    let t: f64 = v.iter().sum();
    v.iter_mut().for_each(|e| *e /= t);
    v
}

/// The mechanism member of a random document of `kind` over `nx` inputs, its zero
/// entries chosen so that some outputs are never released.
fn mechanism(rng: &mut ChaCha8Rng, kind: &str, nx: usize) -> Value {
    let ny = rng.random_range(1..6);
    match kind {
        "matrix" => {
            // Zero columns: rows over a random subset of the outputs.
            let dead: Vec<bool> = (0..ny).map(|_| rng.random::<f64>() < 0.3).collect();
            let rows: Vec<Vec<f64>> = (0..nx)
                .map(|_| {
                    let mut r = dist(rng, ny, 0.3);
                    if dead.iter().all(|&d| d) {
                        return r;
                    }
                    r.iter_mut().zip(&dead).for_each(|(e, &d)| *e = if d { 0.0 } else { *e + 0.01 });
                    let t: f64 = r.iter().sum();
                    r.iter().map(|e| e / t).collect()
                })
                .collect();
            json!({"kind": "matrix", "p_y_given_x": rows})
        }
        "krr" => {
            let keep = [0.0, 0.5, 1.0][rng.random_range(0..3)];
            json!({"kind": "krr", "keep": keep})
        }
        "rr_lip" => {
            let keep = [0.0, 0.3, 1.0][rng.random_range(0..3)];
            json!({"kind": "rr_lip", "keep": keep, "mixing": dist(rng, nx, 0.5)})
        }
        "sparse" => {
            let rows: Vec<Vec<(usize, f64)>> = (0..nx)
                .map(|_| dist(rng, ny, 0.6).into_iter().enumerate().filter(|(_, p)| *p > 0.0).collect())
                .collect();
            json!({"kind": "sparse", "outputs": ny, "rows": rows})
        }
        "merge" => {
            let nb = rng.random_range(1..=nx);
            let blocks: Vec<usize> = (0..nx).map(|x| if x < nb { x } else { rng.random_range(0..nb) }).collect();
            let inner = match rng.random_range(0..3) {
                0 => Value::Null,
                1 => mechanism(rng, "matrix", nb),
                _ => mechanism(rng, "rr_lip", nb),
            };
            if inner.is_null() {
                json!({"kind": "merge", "blocks": blocks})
            } else {
                json!({"kind": "merge", "blocks": blocks, "inner": inner})
            }
        }
        _ => unreachable!(),
    }
}

#[test]
fn released_outputs_are_the_nonzero_columns_of_the_estimators_channel() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut dead = 0;
    for kind in ["matrix", "krr", "rr_lip", "sparse", "merge", "per_secret"] {
        for _ in 0..60 {
            let nx = rng.random_range(1..7);
            let prior = dist(&mut rng, nx, 0.2);
            let mut doc = json!({"format": "privlift-mechanism", "version": 1, "id": "t",
                "labels": (0..nx).map(|x| format!("x{x}")).collect::<Vec<_>>(), "prior": prior});
            if kind == "per_secret" {
                // P(Y|S,X) with zeros, and a joint in which some (s, x) pairs have mass 0.
                let ny = rng.random_range(1..5);
                let ns = 2;
                let p: Vec<Vec<Vec<f64>>> =
                    (0..ns).map(|_| (0..nx).map(|_| dist(&mut rng, ny, 0.5)).collect()).collect();
                let split: Vec<f64> = (0..nx).map(|_| [0.0, 0.4, 1.0][rng.random_range(0..3)]).collect();
                let p_sx = vec![
                    prior.iter().zip(&split).map(|(p, f)| p * f).collect::<Vec<_>>(),
                    prior.iter().zip(&split).map(|(p, f)| p * (1.0 - f)).collect(),
                ];
                doc["secret"] = json!({"labels": ["s0", "s1"], "p_sx": p_sx});
                doc["mechanism"] = json!({"kind": "per_secret", "p_y_given_sx": p});
            } else {
                doc["mechanism"] = mechanism(&mut rng, kind, nx);
            }
            let doc = Document::from_json(&doc.to_string()).unwrap_or_else(|e| panic!("{kind}: {e}\n{doc}"));
            let w = document_channel(&doc).unwrap();
            let expected: Vec<bool> = (0..w.cols()).map(|y| (0..w.rows()).any(|x| w.get(x, y) != 0.0)).collect();
            dead += expected.iter().filter(|&&r| !r).count();
            assert_eq!(released_outputs(&doc).as_deref(), Some(&expected[..]), "{kind}: {doc:?}");
        }
    }
    // The instances do exercise outputs never released.
    assert!(dead > 50, "{dead} never-released outputs");
}

#[test]
fn a_unary_bit_vector_is_released_iff_some_input_gives_it_positive_probability() {
    let unary_releases = |q01, q10, bits: &[bool]| {
        let flip = |p| Probability::new("q", p).unwrap();
        unary_releases(flip(q01), flip(q10), bits)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let flips = [0.0, 0.25, 0.5, 1.0];
    for _ in 0..2000 {
        let (q01, q10) = (flips[rng.random_range(0..4)], flips[rng.random_range(0..4)]);
        let k = rng.random_range(1..6);
        let bits: Vec<bool> = (0..k).map(|_| rng.random::<bool>()).collect();
        // P(bits | x) as a product over the bits.
        let possible = (0..k).any(|x| {
            bits.iter().enumerate().all(|(i, &b)| {
                let one = if i == x { 1.0 - q10 } else { q01 };
                (if b { one } else { 1.0 - one }) > 0.0
            })
        });
        assert_eq!(unary_releases(q01, q10, &bits), possible, "q01 {q01} q10 {q10} bits {bits:?}");
    }
    // A proper encoding releases every vector.
    assert!(unary_releases(0.3, 0.4, &[true, true, false]));
    // OUE with q01 = 0 never sets two bits.
    assert!(!unary_releases(0.0, 0.5, &[true, true, false]));
}
