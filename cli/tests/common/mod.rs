//! Shared builders for the CLI's integration tests: the core's (`tests/common/`) and the
//! helpers that run the `privlift` binary (`cli.rs`), talk to its servers (`http.rs`) and
//! run its collector (`collector.rs`).
#![allow(dead_code, unused_imports)]

#[path = "../../../tests/common/mod.rs"]
mod shared;

pub mod cli;
pub mod collector;
pub mod http;
pub use shared::*;
