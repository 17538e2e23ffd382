//! The rows of a dense channel P(Y|X) as the audit reads them: a matrix's own, or the exact
//! probabilities of a sampler's quantised weights computed as they are read, so that a
//! verified dense mechanism holds its weights once, not beside an `nx × ny` f64 copy.

use alloc::vec::Vec;

use crate::document::Matrix;
use crate::sample::QuantisedChannel;

/// A row of a dense channel as the audit's kernels read it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Row<'a> {
    /// The entries themselves.
    Entries(&'a [f64]),
    /// A sampler's weights below 2⁶⁴: each entry is [`exact_of`](crate::sample::exact_of) of its weight (W/2⁶⁴
    /// rounded once), computed in the kernel's own loop as it is read, the value
    /// [`QuantisedChannel::exact_row`] writes, bit for bit.
    Weights(&'a [u64]),
}

/// `kernel` (a generic function of the row's entries, as an iterator) applied to `row`:
/// each form gets its own copy of the loop, with no intermediate buffer.
macro_rules! over_row {
    ($row:expr, |$entries:ident| $kernel:expr) => {
        match $row {
            $crate::leakage::rows::Row::Entries(r) => {
                let $entries = r.iter().copied();
                $kernel
            }
            $crate::leakage::rows::Row::Weights(w) => {
                let $entries = w.iter().map(|&w| $crate::sample::exact_of(w));
                $kernel
            }
        }
    };
}
pub(crate) use over_row;

/// A dense channel read row by row.
pub(crate) trait ChannelRows {
    /// |X|.
    fn inputs(&self) -> usize;
    /// |Y|.
    fn outputs(&self) -> usize;
    /// Row `x`: the matrix's own, the sampler's weights, or written into `buf`.
    fn row_in<'a>(&'a self, x: usize, buf: &'a mut Vec<f64>) -> Row<'a>;
}

impl ChannelRows for Matrix {
    fn inputs(&self) -> usize {
        self.rows()
    }
    fn outputs(&self) -> usize {
        self.cols()
    }
    fn row_in<'a>(&'a self, x: usize, _: &'a mut Vec<f64>) -> Row<'a> {
        Row::Entries(self.row(x))
    }
}

impl ChannelRows for QuantisedChannel {
    fn inputs(&self) -> usize {
        QuantisedChannel::inputs(self)
    }
    fn outputs(&self) -> usize {
        QuantisedChannel::outputs(self)
    }
    /// The weights; a row holding all its mass in one outcome is written into `buf`.
    fn row_in<'a>(&'a self, x: usize, buf: &'a mut Vec<f64>) -> Row<'a> {
        match self.weights_row(x) {
            Some(w) => Row::Weights(w),
            None => {
                buf.resize(QuantisedChannel::outputs(self), 0.0);
                self.exact_row(x, buf);
                Row::Entries(buf)
            }
        }
    }
}
