//! Utility figures reported with every design (discrete-design issue, item 6).

use alloc::vec::Vec;
use serde::Serialize;

use privlift::document::Matrix;
use privlift::leakage::mutual_information_xy;

/// Utility of a channel P(Y|X) under a prior. `None` where a figure is undefined for
/// the mechanism (e.g. `tv` when Y and X have different alphabets).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Utility {
    /// I(X;Y) in nats.
    pub mi_xy: Option<f64>,
    /// I(X;Y)/H(X) (1 when H(X) = 0, since nothing can be lost).
    pub nmi: Option<f64>,
    /// Total variation D_TV(X,Y) = 1 − Σ_x P(x) P(y = x | x) (Ding, Liu, Farokhi Sec. III).
    pub tv: Option<f64>,
    /// P(Y ≠ X). For a square channel this equals `tv`; both are reported because the
    /// papers use both names.
    pub hamming: Option<f64>,
    /// E[d(X,Y)] under the distortion given to the designer, else |x − y| on indices.
    pub expected_distortion: Option<f64>,
    /// E|X − Y| on indices (mean absolute error).
    pub mae: Option<f64>,
}

/// H(X) in nats.
pub fn entropy(p: &[f64]) -> f64 {
    -p.iter().filter(|&&v| v > 0.0).map(|&v| v * libm::log(v)).sum::<f64>()
}

fn expectation(prior: &[f64], w: &Matrix, d: impl Fn(usize, usize) -> f64) -> f64 {
    let mut e = 0.0;
    for (x, &px) in prior.iter().enumerate() {
        for (y, &q) in w.row(x).iter().enumerate() {
            e += px * q * d(x, y);
        }
    }
    e
}

/// Utility of a channel (rows x) under `prior`, with an optional distortion d\[x\]\[y\].
pub fn channel_utility(prior: &[f64], w: &Matrix, distortion: Option<&Matrix>) -> Utility {
    let p_y = output_distribution(prior, w);
    let mi = mutual_information_xy(prior, w, &p_y);
    let h = entropy(prior);
    let square = w.rows() == w.cols();
    let stay: f64 = if square { prior.iter().enumerate().map(|(x, &p)| p * w.get(x, x)).sum() } else { 0.0 };
    let abs = |x: usize, y: usize| (x as f64 - y as f64).abs();
    let mae = expectation(prior, w, abs);
    Utility {
        mi_xy: Some(mi),
        nmi: Some(if h > 0.0 { (mi / h).min(1.0) } else { 1.0 }),
        // 1 − stay, never below 0: the rounded sum of P(x)P(x|x) can exceed 1 by an ulp.
        tv: square.then_some((1.0 - stay).max(0.0)),
        hamming: square.then_some((1.0 - stay).max(0.0)),
        expected_distortion: Some(match distortion {
            Some(d) => expectation(prior, w, |x, y| d.get(x, y)),
            None => mae,
        }),
        mae: Some(mae),
    }
}

/// P_Y(y) = Σ_x P(x) W(y|x) of the channel `w` (rows x) under `prior`.
pub(crate) fn output_distribution(prior: &[f64], w: &Matrix) -> Vec<f64> {
    let mut p_y = alloc::vec![0.0; w.cols()];
    for (x, &px) in prior.iter().enumerate() {
        for (o, &q) in p_y.iter_mut().zip(w.row(x)) {
            *o += px * q;
        }
    }
    p_y
}

/// Utility of a channel whose outputs are not all values of X: `outputs[y]` is the input
/// x that output y releases as itself (an SRR or merging design's low-risk symbol), or
/// `None` (a posterior column of ORR, a merged block `{a,b}`, an SRR group's output).
///
/// I(X;Y) and NMI are always defined, and so is `hamming` = P(Y ≠ X), an output that
/// is not a value of X never equalling X. `tv`, `mae` and `expected_distortion` compare
/// an output's value with x, so they are `null` unless every output is a value of X —
/// comparing by output index, as these designs once did, printed a TV of 0.473 for an
/// SRR whose P(Y ≠ X) is 1.
pub fn released_utility(prior: &[f64], w: &Matrix, outputs: &[Option<usize>]) -> Utility {
    let mut u = channel_utility(prior, w, None);
    // P(Y = X): the mass of the outputs that release their input x as itself.
    let hit: f64 =
        outputs.iter().take(w.cols()).enumerate().filter_map(|(y, o)| o.map(|x| prior[x] * w.get(x, y))).sum();
    u.hamming = Some((1.0 - hit).max(0.0));
    if outputs.len() == w.cols() && outputs.iter().all(Option::is_some) {
        let at = |y: usize| outputs[y].unwrap_or(0) as f64;
        let mae = expectation(prior, w, |x, y| (x as f64 - at(y)).abs());
        u.tv = u.hamming;
        u.mae = Some(mae);
        u.expected_distortion = Some(mae);
    } else {
        u.tv = None;
        u.mae = None;
        u.expected_distortion = None;
    }
    u
}

/// The utility object as JSON, `null` for undefined figures.
pub fn to_json(u: &Utility) -> serde_json::Value {
    serde_json::to_value(u).unwrap_or(serde_json::Value::Null)
}

/// Checks a distortion matrix d\[x\]\[y\]: `k × k`, finite, non-negative.
pub fn check_distortion(d: &Matrix, k: usize) -> crate::Result<()> {
    if d.rows() != k || d.cols() != k {
        return Err(crate::Error::field("distortion.d").dims(k, if d.rows() != k { d.rows() } else { d.cols() }));
    }
    for x in 0..k {
        privlift::document::matrix_check_entries(&alloc::format!("distortion.d[{x}]"), d.row(x))?;
    }
    Ok(())
}

/// The absolute slack [`is_metric`] allows in symmetry and the triangle inequality: a
/// distortion written in decimal (or computed, as |x − y|) may miss either by rounding.
pub const METRIC_SLACK: f64 = 1e-12;

/// Whether `d` is a metric on indices: zero exactly on the diagonal, symmetric, and
/// satisfying the triangle inequality (to [`METRIC_SLACK`]).
pub fn is_metric(d: &Matrix) -> bool {
    let k = d.rows();
    let mut ok = d.cols() == k;
    for x in 0..k {
        for y in 0..k {
            let v = d.get(x, y);
            ok &= if x == y { v == 0.0 } else { v > 0.0 && (v - d.get(y, x)).abs() <= METRIC_SLACK };
            for z in 0..k {
                ok &= v <= d.get(x, z) + d.get(z, y) + METRIC_SLACK;
            }
        }
    }
    ok
}

/// |x − y| on indices as a matrix.
pub fn absolute_distance(k: usize) -> Matrix {
    let v: Vec<f64> = (0..k * k).map(|i| ((i / k) as f64 - (i % k) as f64).abs()).collect();
    Matrix::from_flat(k, k, v)
}
