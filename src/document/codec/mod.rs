//! The document's JSON codec: text in, the wire types and [`Json`] values out, and the
//! continuous document's pretty text back. One job — JSON, exactly as serde_json reads and
//! writes it — in a serde-free form the client modules can afford, refusing what a hostile
//! text declares as it reads it:
//!
//! * [`reader`]: the pull reader the wire types' readers (`document::wire`) and the
//!   family peeks ([`reader::peek_kind`], [`reader::peek_family`]) run on;
//! * [`decimal`]: a number's text to its kind and the f64 nearest to it (core's parser);
//! * [`json`]: [`Json`], the untyped parts of a document (`mechanism`, `utility`), its
//!   arrays of numbers held flat and refused past their alphabet as they are read;
//! * `keys`: repeated strings refused: an object's keys in O(log² n) comparisons a key,
//!   a list read whole in O(n log n) (`first_repeat`);
//! * [`strict`]: whole texts read as a `serde_json::Value` without duplicate keys (policies);
//! * `writer`: pretty JSON, byte for byte serde_json's.
//!
//! serde_json stays for the curator side and the derived `Deserialize` impls, and the tests
//! compare the two on every document (`tests/reader.rs`, `tests/decimal.rs`).

pub mod decimal;
pub mod json;
mod keys;
pub mod reader;
pub mod strict;
pub(super) mod writer;

pub use json::{Json, Object};
pub(crate) use keys::first_repeat;
