//! The rows of a dense channel P(Y|X) as the audit reads them: a matrix's own, or the exact
//! probabilities of a sampler's quantised weights written one row at a time, so that a
//! verified dense mechanism holds its weights once, not beside an `nx × ny` f64 copy.

use alloc::vec::Vec;

use crate::document::Matrix;
use crate::sample::QuantisedChannel;

/// A dense channel read row by row.
pub(crate) trait ChannelRows {
    /// |X|.
    fn inputs(&self) -> usize;
    /// |Y|.
    fn outputs(&self) -> usize;
    /// Row `x`: the matrix's own, or written into `buf`.
    fn row_in<'a>(&'a self, x: usize, buf: &'a mut Vec<f64>) -> &'a [f64];
}

impl ChannelRows for Matrix {
    fn inputs(&self) -> usize {
        self.rows()
    }
    fn outputs(&self) -> usize {
        self.cols()
    }
    fn row_in<'a>(&'a self, x: usize, _: &'a mut Vec<f64>) -> &'a [f64] {
        self.row(x)
    }
}

impl ChannelRows for QuantisedChannel {
    fn inputs(&self) -> usize {
        QuantisedChannel::inputs(self)
    }
    fn outputs(&self) -> usize {
        QuantisedChannel::outputs(self)
    }
    fn row_in<'a>(&'a self, x: usize, buf: &'a mut Vec<f64>) -> &'a [f64] {
        buf.resize(QuantisedChannel::outputs(self), 0.0);
        self.exact_row(x, buf);
        buf
    }
}
