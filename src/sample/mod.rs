//! Exact samplers. See [`alias`] for the categorical sampler the runtime uses.

pub mod alias;

pub use alias::{AliasTable, ChannelSampler};
