//! Frequency estimation: the curator's unbiased estimate of the input histogram from the
//! counts of the reports.
//!
//! Counts are **mergeable**: the counts of two shards add up to the counts of their
//! union, so a curator counts reports with the engine they already run (SQL
//! `GROUP BY`, Spark, a stream processor) and hands privlift only the count vector.
//!
//! For a channel W (rows x, columns y), the report frequencies f = c/n satisfy
//! E\[f\] = Wᵀp, so p̂ = W⁻ᵀf is unbiased. With A = W⁻ᵀ and the multinomial covariance
//! Cov(f) = (diag(λ) − λλᵀ)/n (λ = Wᵀp, estimated by f),
//! Var(p̂_x) = (Σ_y A_xy² λ_y − (Σ_y A_xy λ_y)²)/n = (Σ_y A_xy² f_y − p̂_x²)/n.
//! For k-RR this is f_x(1 − f_x)/(n(d − o)²) with d, o the diagonal and off-diagonal
//! entries (Wang et al. 2017); for unary encoding each bit is its own binomial:
//! p̂_x = (f_x − q)/(p − q), Var = f_x(1 − f_x)/(n(p − q)²) with p = 1 − q10, q = q01.

use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

use privlift::document::{block_count, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
use privlift::param::{Epsilon, Probability};

/// An estimated histogram with per-entry standard errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Unbiased estimate of P_X (may leave \[0,1\] by sampling noise).
    pub estimate: Vec<f64>,
    /// Standard error of each entry.
    pub std_error: Vec<f64>,
    /// Number of reports.
    pub n: f64,
    /// Euclidean projection of `estimate` onto the probability simplex, when asked for
    /// (biased, but a valid distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projected: Option<Vec<f64>>,
}

/// Checks per-output counts (`len` of them, finite, ≥ 0, not all 0) and returns their sum.
pub(crate) fn check_counts(counts: &[f64], len: usize) -> Result<f64> {
    if counts.len() != len {
        return Err(Error::field("counts").dims(len, counts.len()));
    }
    for (i, &c) in counts.iter().enumerate() {
        if !c.is_finite() {
            return Err(Error::field(alloc::format!("counts[{i}]")).non_finite());
        }
        if c < 0.0 {
            return Err(Error::invalid(alloc::format!("counts[{i}]"), alloc::format!("a count must be ≥ 0, got {c}")));
        }
    }
    let n: f64 = counts.iter().sum();
    if n <= 0.0 {
        return Err(Error::invalid("counts", "no reports to estimate from"));
    }
    Ok(n)
}

/// [`estimate_unary`] refuses a bit whose two probabilities P(1 | x) and P(1 | not x) are
/// closer than this: the estimate divides by their difference, and one this small (a few
/// ulps of 1) is rounding of equal probabilities, not information.
const NO_INFORMATION: f64 = 1e-15;

/// [`inverse_transpose`] calls a channel singular when its best pivot falls below this:
/// the entries are probabilities, and an inverse through a smaller pivot has entries of
/// the order of 10¹², which amplify the counts' noise into an estimate of no use.
const SINGULAR_PIVOT: f64 = 1e-12;

/// Solves Wᵀ A = I by Gauss–Jordan elimination with partial pivoting; returns A = W⁻ᵀ.
fn inverse_transpose(w: &Matrix) -> Result<Vec<f64>> {
    let k = w.rows();
    if w.cols() != k {
        return Err(Error::invalid(
            "mechanism",
            alloc::format!("estimation needs a square invertible channel, this one is {k}×{}", w.cols()),
        ));
    }
    // Augmented [Wᵀ | I].
    let mut m = vec![0.0; k * 2 * k];
    for i in 0..k {
        for j in 0..k {
            m[i * 2 * k + j] = w.get(j, i);
        }
        m[i * 2 * k + k + i] = 1.0;
    }
    for col in 0..k {
        let piv =
            (col..k).max_by(|&a, &b| m[a * 2 * k + col].abs().total_cmp(&m[b * 2 * k + col].abs())).unwrap_or(col);
        let pv = m[piv * 2 * k + col];
        if pv.abs() < SINGULAR_PIVOT {
            return Err(Error::invalid(
                "mechanism",
                "the channel is not invertible (rank-deficient): P_X cannot be identified from its reports",
            ));
        }
        if piv != col {
            for j in 0..2 * k {
                m.swap(piv * 2 * k + j, col * 2 * k + j);
            }
        }
        for j in 0..2 * k {
            m[col * 2 * k + j] /= pv;
        }
        for r in 0..k {
            if r != col {
                let f = m[r * 2 * k + col];
                if f != 0.0 {
                    for j in 0..2 * k {
                        m[r * 2 * k + j] -= f * m[col * 2 * k + j];
                    }
                }
            }
        }
    }
    Ok((0..k * k).map(|i| m[(i / k) * 2 * k + k + i % k]).collect())
}

/// Unbiased estimate for any invertible square channel from per-output counts.
pub fn estimate_matrix(w: &Matrix, counts: &[f64]) -> Result<Estimate> {
    let n = check_counts(counts, w.cols())?;
    let a = inverse_transpose(w)?;
    let k = w.rows();
    let f: Vec<f64> = counts.iter().map(|c| c / n).collect();
    let mut est = vec![0.0; k];
    let mut se = vec![0.0; k];
    for x in 0..k {
        let row = &a[x * k..(x + 1) * k];
        est[x] = row.iter().zip(&f).map(|(a, f)| a * f).sum();
        let second: f64 = row.iter().zip(&f).map(|(a, f)| a * a * f).sum();
        se[x] = libm::sqrt(((second - est[x] * est[x]) / n).max(0.0));
    }
    Ok(Estimate { estimate: est, std_error: se, n, projected: None })
}

/// k-RR closed form: p̂_x = (f_x − o)/(d − o), Var = f_x(1 − f_x)/(n(d − o)²).
pub fn estimate_krr(k: usize, epsilon: Epsilon, counts: &[f64]) -> Result<Estimate> {
    let eps = epsilon.get();
    let n = check_counts(counts, k)?;
    let e = libm::exp(eps);
    let (d, o) = (e / (e + k as f64 - 1.0), 1.0 / (e + k as f64 - 1.0));
    let f: Vec<f64> = counts.iter().map(|c| c / n).collect();
    Ok(Estimate {
        estimate: f.iter().map(|f| (f - o) / (d - o)).collect(),
        std_error: f.iter().map(|f| libm::sqrt(f * (1.0 - f) / n) / (d - o)).collect(),
        n,
        projected: None,
    })
}

/// Unary encoding: `ones[x]` reports had bit x set, out of `n` reports.
pub fn estimate_unary(q01: Probability, q10: Probability, ones: &[f64], n: f64) -> Result<Estimate> {
    if !(n.is_finite() && n > 0.0) {
        return Err(Error::invalid("n", alloc::format!("must be > 0, got {n}")));
    }
    check_counts(ones, ones.len())?;
    if let Some((i, c)) = ones.iter().enumerate().find(|(_, &c)| c > n) {
        return Err(Error::invalid(alloc::format!("counts[{i}]"), alloc::format!("{c} ones out of {n} reports")));
    }
    let (p, q) = (1.0 - q10.get(), q01.get());
    if (p - q).abs() < NO_INFORMATION {
        return Err(Error::invalid("mechanism", "bits carry no information (q01 = 1 − q10)"));
    }
    let f: Vec<f64> = ones.iter().map(|c| c / n).collect();
    Ok(Estimate {
        estimate: f.iter().map(|f| (f - q) / (p - q)).collect(),
        std_error: f.iter().map(|f| libm::sqrt(f * (1.0 - f) / n) / (p - q).abs()).collect(),
        n,
        projected: None,
    })
}

/// The channel P(Y|X) counts are read through: the document's (dense), or for a
/// per-secret mechanism the induced channel (Ding, Liu, Farokhi eq 9).
///
/// # Errors
/// `invalid_argument` (`mechanism`) for unary encoding, whose reports are bit vectors.
pub fn document_channel(doc: &Document) -> Result<Matrix> {
    match doc.mechanism() {
        MechanismKind::PerSecret { p_y_given_sx, markov: None } => {
            Ok(privlift::leakage::induced_channel(&doc.p_sx(), p_y_given_sx))
        }
        kind => kind.channel_matrix(doc.input().len()).ok_or_else(|| {
            Error::invalid("mechanism", "unary encoding reports bit vectors: estimate it from its bit counts")
        }),
    }
}

/// Which outputs of [`document_channel`] some input releases (P(y|x) > 0 for some x):
/// the reports an estimate can explain. Counts of any other output make every estimator
/// refuse them ([`estimate_mle`](crate::mle::estimate_mle)'s "never releases"; a zero
/// column leaves W singular), so a collector refuses such a report instead of storing it.
///
/// Read from the structure, without the dense |X| × |Y| matrix, and from the same
/// floating-point entries: y is released iff its column of [`document_channel`] has a
/// non-zero entry (a test compares the two on every kind). `None` for unary encoding,
/// whose reports are bit vectors ([`unary_releases`]), and for a kind this estimator does
/// not know.
pub fn released_outputs(doc: &Document) -> Option<Vec<bool>> {
    match doc.mechanism() {
        MechanismKind::PerSecret { p_y_given_sx, markov: None } => {
            Some(nonzero_columns(&privlift::leakage::induced_channel(&doc.p_sx(), p_y_given_sx)))
        }
        kind => kind_released(kind, doc.input().len()),
    }
}

/// [`released_outputs`] of a kind over `nx` inputs (not a per-secret one).
fn kind_released(kind: &MechanismKind, nx: usize) -> Option<Vec<bool>> {
    match kind {
        MechanismKind::Matrix(w) | MechanismKind::PerSecret { markov: Some(w), .. } => Some(nonzero_columns(w)),
        MechanismKind::Krr { .. } | MechanismKind::RrLip { .. } => {
            // Column y of `channel_matrix`: (1 − κ)·m_y off the diagonal, (1 − κ)·m_y + κ
            // on it; a sum of two non-negative numbers is 0 only when both are.
            let (keep, mixing) = kind.mix(nx)?;
            let keep = keep.get();
            Some(mixing.iter().map(|&m| keep > 0.0 || (1.0 - keep) * m > 0.0).collect())
        }
        // Row x is Q's row b(x), and every block has an input: Q's columns.
        MechanismKind::Merge { blocks, inner } => match inner {
            Some(q) => kind_released(q, block_count(blocks)),
            None => Some(vec![true; block_count(blocks)]),
        },
        MechanismKind::Sparse(s) => {
            let mut out = vec![false; s.outputs()];
            for x in 0..s.inputs() {
                for &(y, p) in s.row(x) {
                    out[y as usize] |= p > 0.0;
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// The columns of `w` with a non-zero entry.
fn nonzero_columns(w: &Matrix) -> Vec<bool> {
    let mut out = vec![false; w.cols()];
    for x in 0..w.rows() {
        for (o, &p) in out.iter_mut().zip(w.row(x)) {
            *o |= p != 0.0;
        }
    }
    out
}

/// Whether unary encoding with flip probabilities `q01` (0 → 1) and `q10` (1 → 0)
/// releases the bit vector `bits` from some input x: bit x is 1 with probability
/// 1 − q10, every other bit with probability q01, independently. Only a degenerate
/// encoding (a flip probability of 0 or 1) has vectors it never releases.
pub fn unary_releases(q01: Probability, q10: Probability, bits: &[bool]) -> bool {
    let (q01, q10) = (q01.get(), q10.get());
    let other = |b: bool| if b { q01 > 0.0 } else { q01 < 1.0 };
    let own = |b: bool| if b { q10 < 1.0 } else { q10 > 0.0 };
    let blocked = bits.iter().filter(|&&b| !other(b)).count();
    bits.iter().any(|&b| own(b) && blocked == usize::from(!other(b)))
}

/// Estimates P_X from a document and counts (per output; for unary encoding, the
/// number of reports with each bit set, with `n` the number of reports).
pub fn estimate_document(doc: &Document, counts: &[f64], n: Option<f64>) -> Result<Estimate> {
    match doc.mechanism() {
        MechanismKind::Matrix(w) | MechanismKind::PerSecret { markov: Some(w), .. } => estimate_matrix(w, counts),
        MechanismKind::PerSecret { p_y_given_sx, markov: None } => {
            estimate_matrix(&privlift::leakage::induced_channel(&doc.p_sx(), p_y_given_sx), counts)
        }
        // The structured kinds: the channel they state, dense.
        MechanismKind::Krr { .. }
        | MechanismKind::RrLip { .. }
        | MechanismKind::Merge { .. }
        | MechanismKind::Sparse(_) => match doc.mechanism().channel_matrix(doc.input().len()) {
            Some(w) => estimate_matrix(&w, counts),
            None => Err(Error::UnsupportedMechanism { kind: doc.mechanism().tag().into() }),
        },
        MechanismKind::Unary { q01, q10 } => {
            let n = n.ok_or_else(|| {
                Error::invalid("n", "unary encoding needs the number of reports `n` besides the per-bit counts")
            })?;
            estimate_unary(*q01, *q10, counts, n)
        }
        // A kind added to the core after this estimator.
        _ => Err(Error::UnsupportedMechanism { kind: "an unknown mechanism kind".into() }),
    }
}

/// Euclidean projection onto the probability simplex (Duchi et al. 2008).
pub fn project_simplex(v: &[f64]) -> Vec<f64> {
    let mut u = v.to_vec();
    u.sort_by(|a, b| b.total_cmp(a));
    let (mut acc, mut theta) = (0.0, 0.0);
    for (j, &uj) in u.iter().enumerate() {
        acc += uj;
        let t = (acc - 1.0) / (j + 1) as f64;
        if uj - t > 0.0 {
            theta = t;
        }
    }
    v.iter().map(|x| (x - theta).max(0.0)).collect()
}

impl Estimate {
    /// Adds the simplex projection.
    pub fn with_projection(mut self) -> Self {
        self.projected = Some(project_simplex(&self.estimate));
        self
    }
}
