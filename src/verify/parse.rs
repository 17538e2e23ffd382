//! Parsing within the verification budget: a client reads a document knowing what it will
//! spend verifying it (the policy's `maxVerifyWork`, or [`super::DEFAULT_MAX_VERIFY_WORK`]),
//! so a document too costly to verify is refused with the verification's own `too_costly`
//! while it is read, from the sizes it declares, instead of after its numbers are held.
//!
//! A dense channel is priced after each of its rows ([`Work::dense_at_least`] of its rows
//! so far, or of its `labels` when they came first, by its widest row, with the `bp_lip`
//! priors its claims name when they came first): a refused 4096 × 4096 identity whose
//! labels come first stops after its first row. A per-secret mechanism's blocks
//! (`p_y_given_sx`) are priced so too, with the secrets declared so far
//! ([`Work::per_secret_at_least`]: the least of its Markov and non-Markov forms, since
//! `p_y_given_x` may come after them). Every other kind holds
//! no more than its text's numbers, and is priced by [`Work::of`] once validated, before
//! anything proportional to what it declares (an srr's `others` row once per input, a
//! unary channel's 2^|X| outputs) is built.

use crate::document::{Document, DocumentJson};
use crate::error::Result;

use super::Work;

/// What a refusal names, as verification does.
const WHAT: &str = "this document";

impl Document {
    /// Parses and validates the JSON document `bytes` (UTF-8), refusing it with
    /// `too_costly` as soon as what it declares costs more than `budget` work units to
    /// verify ([`super::work_budget`] of a policy's `max_verify_work`): what
    /// [`Document::verify`] would refuse at that budget is refused here, with the same
    /// limit and, once the whole document is read, the same work.
    ///
    /// # Errors
    /// Those of [`Document::from_json`], and `too_costly`.
    pub fn from_json_within(bytes: &[u8], budget: f64) -> Result<Document> {
        let wire = DocumentJson::read_priced(bytes, &mut |d| {
            let least = match d.secrets {
                0 => Work::dense_at_least(d.inputs, d.outputs, d.priors),
                ns => Work::per_secret_at_least(ns, d.inputs, d.outputs, d.priors),
            };
            least.check(WHAT, budget)
        })?;
        let doc = Document::from_wire(wire)?;
        Work::of(&doc).check(WHAT, budget)?;
        Ok(doc)
    }
}
