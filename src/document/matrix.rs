//! A dense row-major matrix of probabilities, validated once at construction.

use alloc::vec::Vec;

use crate::error::{Error, Result};

/// Row sums must be 1 within this absolute tolerance.
pub const SUM_TOLERANCE: f64 = 1e-9;

/// Smallest positive probability a document may contain: 2⁻⁹⁰⁰ (≈ 1.18e-271).
///
/// The audit's rounding analysis ([`crate::numeric`]) bounds *relative* errors, which
/// hold only while no product falls below `f64::MIN_POSITIVE` (≈ 2.2e-308, 2⁻¹⁰²²): a
/// subnormal result carries an absolute error of up to 2⁻¹⁰⁷⁵ instead, i.e. a relative
/// error of up to 100 % (fuzzer finding F8). With every positive P(s,x) ≥ 2⁻⁹⁰⁰ and the
/// sampler's channel entries 0 or ≥ 2⁻⁶⁴, every P(s,x)·P(y|x) a receipt computes is
/// normal; any other underflow in the audit (products of two small declared entries,
/// P(s)·P(y)) is reported as infinite leakage ([`crate::leakage::JointSY`]). Entries in
/// (0, 2⁻⁹⁰⁰) are refused with `invalid_argument` naming the entry.
pub const MIN_PROBABILITY: f64 = 1.1830521861667747e-271;

/// A dense row-major `rows × cols` matrix of `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// Builds a matrix from rows, checking that every row has `cols` entries.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] naming `field[i]` for the first ragged row.
    pub fn from_rows(field: &str, rows: &[Vec<f64>], cols: usize) -> Result<Self> {
        let mut data = Vec::with_capacity(rows.len().saturating_mul(cols));
        for (i, r) in rows.iter().enumerate() {
            if r.len() != cols {
                return Err(Error::field(alloc::format!("{field}[{i}]")).dims(cols, r.len()));
            }
            data.extend_from_slice(r);
        }
        Ok(Matrix { rows: rows.len(), cols, data })
    }

    /// Builds a matrix from a flat row-major buffer.
    pub fn from_flat(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), rows * cols, "flat buffer has the wrong length");
        Matrix { rows, cols, data }
    }

    /// The diagonal matrix diag(p): the joint P_SX of S = X under the prior `p`.
    pub fn diag(p: &[f64]) -> Self {
        let n = p.len();
        let mut d = alloc::vec![0.0; n * n];
        for (i, &v) in p.iter().enumerate() {
            d[i * n + i] = v;
        }
        Matrix { rows: n, cols: n, data: d }
    }

    /// Whether the matrix is square with every off-diagonal entry 0 (a joint of S = X).
    pub fn is_diagonal(&self) -> bool {
        self.rows == self.cols && self.data.iter().enumerate().all(|(k, &v)| v == 0.0 || k / self.cols == k % self.cols)
    }

    /// Number of non-zero entries.
    pub fn nonzeros(&self) -> usize {
        self.data.iter().filter(|&&v| v != 0.0).count()
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Row `i` as a slice.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }
    /// All entries, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }
    /// Rows as owned vectors (for serialisation).
    pub fn to_rows(&self) -> Vec<Vec<f64>> {
        (0..self.rows).map(|i| self.row(i).to_vec()).collect()
    }
    /// Column sums.
    pub fn col_sums(&self) -> Vec<f64> {
        let mut s = alloc::vec![0.0; self.cols];
        for i in 0..self.rows {
            for (acc, v) in s.iter_mut().zip(self.row(i)) {
                *acc += v;
            }
        }
        s
    }

    /// Checks that every row is a probability distribution: finite, non-negative,
    /// summing to 1 within [`SUM_TOLERANCE`].
    pub fn check_row_stochastic(&self, field: &str) -> Result<()> {
        for i in 0..self.rows {
            check_distribution(&alloc::format!("{field}[{i}]"), self.row(i))?;
        }
        Ok(())
    }

    /// Checks that all entries together form one probability distribution (a joint).
    pub fn check_joint(&self, field: &str) -> Result<()> {
        for i in 0..self.rows {
            check_entries(&alloc::format!("{field}[{i}]"), self.row(i))?;
            check_not_tiny(&alloc::format!("{field}[{i}]"), self.row(i))?;
        }
        check_sum(field, &self.data)
    }
}

/// Finite and non-negative entries, naming the first offending index.
pub fn check_entries(field: &str, p: &[f64]) -> Result<()> {
    for (j, &v) in p.iter().enumerate() {
        if !v.is_finite() {
            return Err(Error::field(alloc::format!("{field}[{j}]")).non_finite());
        }
        if v < 0.0 {
            return Err(Error::field(alloc::format!("{field}[{j}]")).negative(v));
        }
    }
    Ok(())
}

/// No probability in (0, [`MIN_PROBABILITY`]), naming the first offending index.
pub fn check_not_tiny(field: &str, p: &[f64]) -> Result<()> {
    match p.iter().position(|&v| v > 0.0 && v < MIN_PROBABILITY) {
        None => Ok(()),
        Some(j) => Err(tiny(&alloc::format!("{field}[{j}]"), p[j])),
    }
}

/// The `invalid_argument` error for a positive probability below [`MIN_PROBABILITY`].
pub(crate) fn tiny(name: &str, v: f64) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        reason: alloc::format!(
            "{v:e} is below the smallest supported positive probability 2^-900 (≈ 1.18e-271), where \
             floating-point rounding is no longer bounded; use 0 or a larger value"
        ),
    }
}

fn check_sum(field: &str, p: &[f64]) -> Result<()> {
    let sum = crate::numeric::sum(p);
    // A NaN sum fails: entries of 1e300 and f64::MAX overflow the
    // compensated sum to ∞ − ∞ = NaN, and `NaN > tolerance` is false (fuzzer finding F9:
    // such a prior verified, and its receipts had NaN lifts).
    if sum.is_nan() || (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(Error::field(field).not_normalized(sum));
    }
    Ok(())
}

/// A probability vector: finite, non-negative, no entry in (0, [`MIN_PROBABILITY`]),
/// summing to 1 within [`SUM_TOLERANCE`].
pub fn check_distribution(field: &str, p: &[f64]) -> Result<()> {
    check_entries(field, p)?;
    check_not_tiny(field, p)?;
    check_sum(field, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_probability_is_two_to_the_minus_900() {
        assert_eq!(MIN_PROBABILITY, libm::pow(2.0, -900.0));
        // Its product with the smallest sampler probability 2⁻⁶⁴ is still normal.
        assert!(MIN_PROBABILITY * libm::pow(2.0, -64.0) >= f64::MIN_POSITIVE);
    }
}
