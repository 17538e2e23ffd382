//! Open domains: values that are UTF-8 strings of at most a stated number of bytes, not
//! members of a listed alphabet. The kinds here (local hashing, Hadamard response, the
//! Hadamard count-mean sketch, prefix-extension heavy hitters) map a value through a
//! specified hash ([`hash`]) onto a small alphabet and randomise that with the quantised
//! keep-or-uniform sampler every `krr` document runs.
//!
//! * [`value`]: the one rule for a value, and heavy-hitter prefixes;
//! * [`OpenDocument`] (`document.rs`, its JSON in `wire.rs`): the document, read within
//!   the verification budget;
//! * `channel.rs`: the randomiser and the proof that the hash cannot help the curator;
//! * `lift.rs`: lifts under a sparse prior, the worst cases proved;
//! * [`OpenDocument::verify`] (`verify.rs`) → [`VerifiedOpen`]: perturb (`perturb.rs`),
//!   reports ([`OpenReport`]) and receipts ([`OpenReceipt`]).
//!
//! Sources: OLH, Wang, Blocki, Li, Jha, "Locally Differentially Private Protocols for
//! Frequency Estimation" (USENIX Security 2017); Hadamard response, Acharya, Sun, Zhang,
//! "Hadamard Response" (AISTATS 2019); HCMS, Apple's Differential Privacy Team,
//! "Learning with Privacy at Scale" (2017); PEM, Wang, Li, Jha, "Locally Differentially
//! Private Heavy Hitter Identification" (arXiv 1708.06674).

mod channel;
mod document;
pub mod hash;
mod lift;
mod perturb;
mod perturb_batch;
mod receipt;
mod report;
pub mod value;
mod verify;
mod wire;

pub use document::{
    OpenClaims, OpenDocument, OpenMechanism, SparsePrior, MAX_G, MAX_HADAMARD_BITS, MAX_HCMS, OPEN_KINDS,
};
pub use perturb::words;
pub use perturb_batch::{JoinedValues, BLOCK};
pub use receipt::{OpenReceipt, OpenReceiptEntry};
pub use report::{report_fields, OpenReport};
pub use verify::{OpenAudit, OpenVerification, VerifiedOpen};

/// Whether the JSON document `bytes` is an open-domain one: an open `mechanism.kind` and
/// no `labels` member (read as [`crate::document::codec::reader::peek_family`] reads, nothing
/// built).
pub fn is_open(bytes: &[u8]) -> bool {
    crate::document::codec::reader::peek_family(bytes)
        .is_some_and(|p| !p.labels && p.kind.is_some_and(|k| OPEN_KINDS.contains(&k.as_str())))
}

#[cfg(test)]
mod tests;
