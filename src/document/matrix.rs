//! A dense row-major matrix of probabilities, validated once at construction.

use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::param::{check_distribution, check_entries, check_not_tiny, check_sum};

/// A dense row-major `rows × cols` matrix of `f64`, immutable. Cloning it is O(1) (the
/// entries are shared): the audit's joint of S = X reads the channel it was computed from
/// ([`crate::leakage::JointSY::diagonal`]) instead of a copy, 8 MB at k = 1024.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Arc<Vec<f64>>,
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
        Ok(Matrix { rows: rows.len(), cols, data: Arc::new(data) })
    }

    /// Builds a matrix from a flat row-major buffer.
    pub fn from_flat(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), rows * cols, "flat buffer has the wrong length");
        Matrix { rows, cols, data: Arc::new(data) }
    }

    /// The diagonal matrix diag(p): the joint P_SX of S = X under the prior `p`.
    pub fn diag(p: &[f64]) -> Self {
        let n = p.len();
        let mut d = alloc::vec![0.0; n * n];
        for (i, &v) in p.iter().enumerate() {
            d[i * n + i] = v;
        }
        Matrix { rows: n, cols: n, data: Arc::new(d) }
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
    /// summing to 1 within [`crate::param::SUM_TOLERANCE`].
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
