//! Exact samplers: [`alias`] for categorical channels, [`unary`] for unary encoding.

pub mod alias;
pub mod discrete;
pub mod lattice;
pub mod unary;

pub use alias::{AliasTable, ChannelSampler};
pub use unary::UnarySampler;
