//! The mechanism document: what a curator publishes and a client downloads.
//!
//! [`Document::from_json`] parses **and validates**; a [`Document`] value is therefore
//! always well formed (sizes agree, probabilities are distributions, labels are unique,
//! the prior is the marginal of the joint). Whether its *claims* hold is a separate
//! question answered by [`crate::verify`].

mod claims;
pub mod codec;
pub mod continuous;
mod discrete;
mod fields;
mod labels;
mod limits;
mod matrix;
mod prior;
mod sparse;
mod structured;
pub(crate) mod wire;

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;

pub use crate::param::{check_distribution, check_entries as matrix_check_entries, MIN_PROBABILITY, SUM_TOLERANCE};
pub use crate::sample::lattice::{lattice_index, Lattice, MAX_LATTICE_POINTS};
pub use claims::{AlphaLift, BpLip, Claims, Srlip, TwoSided};
pub use codec::{Json, Object};
pub use continuous::{
    ContinuousClaims, ContinuousDocument, ContinuousDocumentJson, ContinuousMechanism, DomainJson, EpsDelta, PriorJson,
    CONTINUOUS_KINDS,
};
pub(crate) use discrete::resolve;
pub use discrete::Document;
pub use labels::{Alphabet, LabelJson, Labels};
pub use limits::{check_attributes, MAX_PER_SECRET_ENTRIES, MAX_PRIORS, MAX_SRLIP_ATTRIBUTES, MAX_SYMBOLS};
pub use matrix::Matrix;
pub use prior::{ContinuousPrior, Gaussian, GaussianMixture, Histogram};
pub use sparse::{Sparse, Srr, MAX_SPARSE_ENTRIES};
pub use structured::krr_keep;
pub use wire::{check_header, DocumentJson, FORMAT, MAX_UTILITY_VALUES, VERSION};

use crate::error::{Error, Result};
use crate::param::{Epsilon, Probability};

/// How the released value is produced.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MechanismKind {
    /// A row-stochastic channel P(Y|X): rows x, columns y.
    Matrix(Matrix),
    /// A non-Markov mechanism P(Y|S,X) (one `|X| × |Y|` matrix per secret s), applied by a
    /// curator who sees S; `markov` is P(Y|X) when every `p_y_given_sx[s]` equals it.
    PerSecret {
        /// P(Y|S,X): one row-stochastic `|X| × |Y|` matrix per secret s (`p_y_given_sx`).
        p_y_given_sx: Vec<Matrix>,
        /// P(Y|X) when the document declared the mechanism Markov (`p_y_given_x`), else `None`.
        markov: Option<Matrix>,
    },
    /// Unary encoding with bit-flip probabilities `q01` (0→1) and `q10` (1→0).
    Unary {
        /// Probability that a 0 bit is reported as 1 (`q01`).
        q01: Probability,
        /// Probability that a 1 bit is reported as 0 (`q10`).
        q10: Probability,
    },
    /// k-ary randomised response over X (Y = X): P(y|x) = κ·[y = x] + (1 − κ)/|X|.
    Krr {
        /// The ε the document gave (κ was derived from it by [`krr_keep`]), if any.
        epsilon: Option<Epsilon>,
        /// κ, the probability of keeping x before the uniform mixing.
        keep: Probability,
    },
    /// Randomised response with a mixing distribution (Y = X):
    /// P(y|x) = κ·[y = x] + (1 − κ)·m_y (Jiang et al. eq 19 is κ = 1 − e^{−ε}, m = P_X).
    RrLip {
        /// κ.
        keep: Probability,
        /// m, a distribution over the |X| outputs.
        mixing: Vec<f64>,
    },
    /// A partition of X followed by a mechanism on the blocks: P(y|x) = Q(y | b(x)).
    Merge {
        /// The block b(x) of each input; every block 0..B−1 is non-empty.
        blocks: Vec<u32>,
        /// Q, over the B blocks (a `Matrix`, `Sparse`, `Krr` or `RrLip`); `None`: the block
        /// itself is released.
        inner: Option<Box<MechanismKind>>,
    },
    /// A channel P(Y|X) given by its non-zero entries.
    Sparse(Sparse),
}

impl MechanismKind {
    /// The JSON `kind` tag.
    pub fn tag(&self) -> &'static str {
        match self {
            MechanismKind::Matrix(_) => "matrix",
            MechanismKind::PerSecret { .. } => "per_secret",
            MechanismKind::Unary { .. } => "unary",
            MechanismKind::Krr { .. } => "krr",
            MechanismKind::RrLip { .. } => "rr_lip",
            MechanismKind::Merge { .. } => "merge",
            MechanismKind::Sparse(s) if s.srr().is_some() => "srr",
            MechanismKind::Sparse(_) => "sparse",
        }
    }

    /// The channel P(Y|X) as the document states it, dense (`nx` rows): for estimation,
    /// utility figures and tests. `None` for a mechanism that is not a channel (per-secret
    /// without a Markov form, unary encoding). Costs O(|X|·|Y|).
    pub fn channel_matrix(&self, nx: usize) -> Option<Matrix> {
        match self {
            MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => Some(m.clone()),
            MechanismKind::PerSecret { markov: None, .. } | MechanismKind::Unary { .. } => None,
            MechanismKind::Krr { .. } | MechanismKind::RrLip { .. } => {
                let (keep, mixing) = self.mix(nx)?;
                let mut w = alloc::vec![0.0; nx * nx];
                for x in 0..nx {
                    for y in 0..nx {
                        w[x * nx + y] = (1.0 - keep.get()) * mixing[y] + if x == y { keep.get() } else { 0.0 };
                    }
                }
                Some(Matrix::from_flat(nx, nx, w))
            }
            MechanismKind::Merge { blocks, inner } => {
                let nb = block_count(blocks);
                let q = match inner {
                    Some(i) => i.channel_matrix(nb)?,
                    None => Matrix::diag(&alloc::vec![1.0; nb]),
                };
                let ny = q.cols();
                let w = blocks.iter().flat_map(|&b| q.row(b as usize).iter().copied()).collect();
                Some(Matrix::from_flat(nx, ny, w))
            }
            MechanismKind::Sparse(s) => Some(s.to_matrix()),
        }
    }

    /// (κ, m) of a `Krr` (m uniform over `nx`) or `RrLip` mechanism.
    pub fn mix(&self, nx: usize) -> Option<(Probability, Cow<'_, [f64]>)> {
        match self {
            MechanismKind::Krr { keep, .. } => Some((*keep, Cow::Owned(alloc::vec![1.0 / nx as f64; nx]))),
            MechanismKind::RrLip { keep, mixing } => Some((*keep, Cow::Borrowed(mixing))),
            _ => None,
        }
    }
}

/// B, the number of blocks of a merge's `blocks` (b(x) for each input, 0..B−1).
pub fn block_count(blocks: &[u32]) -> usize {
    blocks.iter().max().map_or(0, |&b| b as usize + 1)
}

/// A `matrix` mechanism over `nx` inputs (`field` names the object).
fn parse_matrix(field: &str, mut v: Json, nx: usize) -> Result<MechanismKind> {
    let m = fields::object(field, &v, &["kind", "p_y_given_x"])?;
    fields::required(field, m, "p_y_given_x")?;
    let f = alloc::format!("{field}.p_y_given_x");
    Ok(MechanismKind::Matrix(channel(&f, fields::take(&mut v, "p_y_given_x"), nx)?))
}

/// A validated row-stochastic channel with `nx` rows, read from `v` (its numbers moved,
/// not copied).
fn channel(field: &str, v: Json, nx: usize) -> Result<Matrix> {
    let rows = fields::rows(field, v)?;
    if rows.len() != nx {
        return Err(Error::field(field).dims(nx, rows.len()));
    }
    let ny = if nx == 0 { 0 } else { rows.width(0) };
    if ny > MAX_SYMBOLS {
        return Err(Error::TooManySymbols { field: alloc::format!("{field}[0]"), found: ny, max: MAX_SYMBOLS });
    }
    if ny == 0 {
        return Err(Error::EmptyAlphabet { field: alloc::format!("{field}[0]") });
    }
    if let Some(i) = (0..nx).find(|&i| rows.width(i) != ny) {
        return Err(Error::field(alloc::format!("{field}[{i}]")).dims(ny, rows.width(i)));
    }
    let m = Matrix::from_flat(nx, ny, rows.values);
    m.check_row_stochastic(field)?;
    Ok(m)
}
