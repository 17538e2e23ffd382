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
