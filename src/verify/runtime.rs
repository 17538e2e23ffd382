//! The exact sampler of a discrete document: what verification audits and what the
//! verified mechanism then runs (one value, built once).

use alloc::vec::Vec;

use crate::document::{Document, Matrix, MechanismKind};
use crate::error::Result;
use crate::leakage;
use crate::sample::{ChannelSampler, UnarySampler};

/// The exact sampler of a document, and the channel it realises.
#[derive(Debug, Clone)]
pub(crate) enum Runtime {
    /// Rows x: a matrix mechanism, or a per-secret one that is Markov.
    Channel(ChannelSampler),
    /// Rows s·|X| + x: a per-secret (non-Markov) mechanism, run by the curator.
    PerSecret { sampler: ChannelSampler, nx: usize },
    /// Unary encoding.
    Unary(UnarySampler),
}

impl Runtime {
    pub(crate) fn build(doc: &Document) -> Result<Self> {
        Ok(match doc.mechanism() {
            MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => {
                Runtime::Channel(ChannelSampler::new(m.rows(), m.cols(), m.as_slice())?)
            }
            MechanismKind::PerSecret { p_y_given_sx, markov: None } => {
                let (nx, ny) = (p_y_given_sx[0].rows(), p_y_given_sx[0].cols());
                let stacked: Vec<f64> = p_y_given_sx.iter().flat_map(|m| m.as_slice().iter().copied()).collect();
                Runtime::PerSecret { sampler: ChannelSampler::new(stacked.len() / ny, ny, &stacked)?, nx }
            }
            MechanismKind::Unary { q01, q10 } => Runtime::Unary(UnarySampler::new(doc.input().len(), *q01, *q10)?),
        })
    }

    pub(crate) fn effective(sampler: &ChannelSampler) -> Matrix {
        Matrix::from_flat(sampler.inputs(), sampler.outputs(), sampler.effective_channel())
    }

    fn per_secret_blocks(sampler: &ChannelSampler, nx: usize) -> Vec<Matrix> {
        let eff = Self::effective(sampler);
        let ny = eff.cols();
        (0..eff.rows() / nx)
            .map(|s| Matrix::from_flat(nx, ny, eff.as_slice()[s * nx * ny..(s + 1) * nx * ny].to_vec()))
            .collect()
    }

    /// The exact channels the sampler realises: P(Y|X) (for a per-secret mechanism the
    /// induced channel of Ding, Liu, Farokhi eq 9) and, for a per-secret one, its blocks
    /// P(Y|S=s,X). `None` for unary encoding (2^|X| outputs; audited in closed form).
    pub(crate) fn channels(&self, p_sx: &Matrix) -> Channels {
        match self {
            Runtime::Channel(s) => Some((Self::effective(s), None)),
            Runtime::PerSecret { sampler, nx } => {
                let blocks = Self::per_secret_blocks(sampler, *nx);
                Some((leakage::induced_channel(p_sx, &blocks), Some(blocks)))
            }
            Runtime::Unary(_) => None,
        }
    }
}

/// The exact channels a runtime realises ([`Runtime::channels`]), built once per verification.
pub(crate) type Channels = Option<(Matrix, Option<Vec<Matrix>>)>;
