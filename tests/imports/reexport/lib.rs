//! A circle through a façade: `low/x.rs` names `crate::H`, which `lib.rs` re-exports
//! from `high.rs`, and `high.rs` names `low::X`.
pub mod high;
pub mod low;

pub use high::H;
