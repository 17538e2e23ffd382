//! The exact sampler of a discrete document: what verification audits and what the
//! verified mechanism then runs (one value, built once).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::document::{Document, Matrix, MechanismKind};
use crate::error::{Error, Result};
use crate::leakage::{self, Exact, MixExact};
use crate::sample::{Categorical, DenseSampler, MixSampler, QuantisedChannel, SparseSampler, UnarySampler};

/// The most entries of a dense channel whose exact probabilities verification copies into an
/// f64 matrix (2 MiB). Up to there the copy stays in a core's cache, where the audit's passes
/// read it for less than they convert each row from the weights (a 256² channel with 16
/// secrets verified in 0.9× the time with the copy); past it each pass streams from memory
/// either way, and the copy would double what every verification allocates and frees (at
/// 1024², 16 MiB, which the allocator returned to the system after each and faulted back
/// in on the next).
const COPIED_CHANNEL_ENTRIES: usize = 1 << 18;

/// The exact sampler of a document, and the channel it realises.
///
/// `repr(u8)`: a tag byte, as [`Categorical`]'s, since every draw matches it.
#[derive(Debug, Clone)]
#[repr(u8)]
pub(crate) enum Runtime {
    /// Rows x: a categorical channel of any kind, or a per-secret mechanism that is Markov.
    Channel(Categorical),
    /// Rows s·|X| + x: a per-secret (non-Markov) mechanism, run by the curator; its tables
    /// built at the first draw, as a dense channel's (a design audits its document
    /// without drawing from it).
    PerSecret { sampler: DenseSampler, nx: usize },
    /// Unary encoding.
    Unary(UnarySampler),
}

/// The sampler of a categorical kind over `nx` inputs (`None` for the other kinds).
fn categorical(kind: &MechanismKind, nx: usize) -> Result<Option<Categorical>> {
    Ok(Some(match kind {
        MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } => {
            Categorical::Dense(DenseSampler::new(QuantisedChannel::new(m.rows(), m.cols(), m.as_slice())?))
        }
        MechanismKind::Krr { .. } | MechanismKind::RrLip { .. } => match kind.mix(nx) {
            Some((keep, mixing)) => Categorical::Mix(MixSampler::new(keep, &mixing)?),
            None => return Ok(None),
        },
        MechanismKind::Sparse(s) => {
            let rows: Vec<&[(u32, f64)]> = (0..s.inputs()).map(|x| s.row(x)).collect();
            Categorical::Sparse(SparseSampler::new(s.outputs(), &rows)?)
        }
        MechanismKind::Merge { blocks, inner } => {
            let nb = crate::document::block_count(blocks);
            let inner = match inner {
                None => Categorical::Mix(MixSampler::identity(nb)?),
                Some(i) => match categorical(i, nb)? {
                    Some(c) => c,
                    None => return Ok(None),
                },
            };
            Categorical::Merge { blocks: blocks.clone(), inner: Box::new(inner) }
        }
        MechanismKind::PerSecret { markov: None, .. } | MechanismKind::Unary { .. } => return Ok(None),
    }))
}

/// The exact channel a categorical sampler realises: each probability the exact rational
/// of its integer numerators, rounded once to f64.
pub(crate) fn exact(c: &Categorical) -> Exact {
    let ratio = crate::sample::alias::probability;
    match c {
        Categorical::Dense(s) => Exact::Quantised(s.shared()),
        Categorical::Mix(m) => {
            let (keep, w) = m.weights();
            Exact::Mix(MixExact {
                off: w.iter().map(|&w| ratio(w)).collect(),
                diag: w.iter().map(|&w| ratio(keep + w)).collect(),
            })
        }
        Categorical::Sparse(s) => Exact::Sparse {
            outputs: c.outputs(),
            rows: (0..c.inputs()).map(|x| s.row_weights(x).into_iter().map(|(y, w)| (y, ratio(w))).collect()).collect(),
        },
        Categorical::Merge { blocks, inner } => Exact::Merge { blocks: blocks.clone(), inner: Box::new(exact(inner)) },
    }
}

impl Runtime {
    pub(crate) fn build(doc: &Document) -> Result<Self> {
        let nx = doc.input().len();
        if let Some(c) = categorical(doc.mechanism(), nx)? {
            return Ok(Runtime::Channel(c));
        }
        Ok(match doc.mechanism() {
            MechanismKind::PerSecret { p_y_given_sx, .. } => {
                let (nx, ny) = (p_y_given_sx[0].rows(), p_y_given_sx[0].cols());
                let stacked: Vec<f64> = p_y_given_sx.iter().flat_map(|m| m.as_slice().iter().copied()).collect();
                let quantised = QuantisedChannel::new(stacked.len() / ny, ny, &stacked)?;
                Runtime::PerSecret { sampler: DenseSampler::new(quantised), nx }
            }
            MechanismKind::Unary { q01, q10 } => Runtime::Unary(UnarySampler::new(nx, *q01, *q10)?),
            // `categorical` covers every other kind.
            _ => return Err(Error::wrong_kind("internal: no sampler for this mechanism kind")),
        })
    }

    /// [`Runtime::build`] and [`Runtime::channels`] at once. A dense channel of at most
    /// [`COPIED_CHANNEL_ENTRIES`] gets its exact probabilities as an f64 matrix, written from
    /// the weights as each row is quantised ([`QuantisedChannel::with_channel`]); a larger one
    /// is read from its weights ([`Exact::Quantised`], shared, not copied). Its tables are
    /// built at the first draw ([`DenseSampler`]).
    pub(crate) fn build_with_channels(doc: &Document) -> Result<(Self, Channels)> {
        if let MechanismKind::Matrix(m) | MechanismKind::PerSecret { markov: Some(m), .. } = doc.mechanism() {
            if m.rows() * m.cols() <= COPIED_CHANNEL_ENTRIES {
                let (quantised, channel) = QuantisedChannel::with_channel(m.rows(), m.cols(), m.as_slice())?;
                let exact = Exact::Dense(Matrix::from_flat(m.rows(), m.cols(), channel));
                return Ok((Runtime::Channel(Categorical::Dense(DenseSampler::new(quantised))), Some((exact, None))));
            }
        }
        let runtime = Self::build(doc)?;
        let channels = runtime.channels(doc.declared_joint());
        Ok((runtime, channels))
    }

    /// The exact channel of a per-secret sampler's weights (what its tables draw from).
    pub(crate) fn effective(sampler: &DenseSampler) -> Matrix {
        let q = sampler.quantised();
        Matrix::from_flat(q.inputs(), q.outputs(), q.exact_channel())
    }

    fn per_secret_blocks(sampler: &DenseSampler, nx: usize) -> Vec<Matrix> {
        let eff = Self::effective(sampler);
        let ny = eff.cols();
        (0..eff.rows() / nx)
            .map(|s| Matrix::from_flat(nx, ny, eff.as_slice()[s * nx * ny..(s + 1) * nx * ny].to_vec()))
            .collect()
    }

    /// The exact channels the sampler realises: P(Y|X) (for a per-secret mechanism the
    /// induced channel of Ding, Liu, Farokhi eq 9, dense) and, for a per-secret one, its
    /// blocks P(Y|S=s,X). `None` for unary encoding (2^|X| outputs; audited in closed form).
    pub(crate) fn channels(&self, p_sx: Option<&Matrix>) -> Channels {
        match self {
            Runtime::Channel(c) => Some((exact(c), None)),
            Runtime::PerSecret { sampler, nx } => {
                let blocks = Self::per_secret_blocks(sampler, *nx);
                // A per-secret document always declares its joint (validation); without one
                // every P(x) is 0 and the induced rows are the per-secret rows' average.
                let zero = || Matrix::from_flat(blocks.len(), *nx, alloc::vec![0.0; blocks.len() * nx]);
                let induced = match p_sx {
                    Some(j) => leakage::induced_channel(j, &blocks),
                    None => leakage::induced_channel(&zero(), &blocks),
                };
                Some((Exact::Dense(induced), Some(blocks)))
            }
            Runtime::Unary(_) => None,
        }
    }
}

/// The exact channels a runtime realises ([`Runtime::channels`]), built once per verification.
pub(crate) type Channels = Option<(Exact, Option<Vec<Matrix>>)>;
