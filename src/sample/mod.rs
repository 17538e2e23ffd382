//! Exact samplers: [`alias`] for categorical channels, [`structured`] for the structured
//! kinds, [`unary`] for unary encoding, [`discrete`] and [`lattice`] for noise on ℤ.

pub mod alias;
pub mod discrete;
pub mod lattice;
pub mod structured;
pub mod unary;

pub use alias::{AliasTable, ChannelSampler, DenseSampler, QuantisedChannel};
pub use structured::{Categorical, MixSampler, SparseSampler};
pub use unary::UnarySampler;

use alloc::vec::Vec;

use crate::error::Result;
use crate::rng::Randomness;

/// Appends one draw `f(x, r)` per input x of `xs` to `out`, each from one uniform word r,
/// the words fetched 1024 at a time.
#[inline(always)]
pub(crate) fn draws<R: Randomness + ?Sized>(
    xs: &[u32],
    rng: &mut R,
    out: &mut Vec<u32>,
    f: impl Fn(usize, u64) -> usize,
) -> Result<()> {
    let mut buf = [0u64; 1024];
    for chunk in xs.chunks(1024) {
        let words = &mut buf[..chunk.len()];
        rng.fill_words(words)?;
        out.extend(chunk.iter().zip(words.iter()).map(|(&x, &r)| f(x as usize, r) as u32));
    }
    Ok(())
}
