//! Parsing within the verification budget: a client reads a document knowing what it will
//! spend verifying it (the policy's `maxVerifyWork`, or [`super::DEFAULT_MAX_VERIFY_WORK`]),
//! so a document too costly to verify is refused with the verification's own `too_costly`
//! while it is read, from the sizes it declares, instead of after its numbers are held.
//!
//! A dense channel is priced after each of its rows ([`Work::dense_at_least`] of its rows
//! so far, or of its `labels` when they came first, by its widest row, with the `bp_lip`
//! priors its claims name when they came first): a refused 4096 × 4096 identity whose
//! labels come first stops after its first row. Every other kind holds
//! no more than its text's numbers, and is priced by [`Work::of`] once validated, before
//! anything proportional to what it declares (an srr's `others` row once per input, a
//! unary channel's 2^|X| outputs) is built.

use crate::document::{reader, AnyDocument, ContinuousDocument, Document, DocumentJson};
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
        let wire = DocumentJson::read_priced(bytes, &mut |inputs, outputs, priors| {
            Work::dense_at_least(inputs, outputs, priors).check(WHAT, budget)
        })?;
        let doc = Document::from_wire(wire)?;
        Work::of(&doc).check(WHAT, budget)?;
        Ok(doc)
    }
}

/// [`crate::document::parse_any`] within `budget` work units: a discrete document by
/// [`Document::from_json_within`]; a continuous one (at most a few thousand numbers,
/// whose sampler's cost verification checks before building it) as `parse_any` reads it;
/// an open-domain one by [`crate::open::OpenDocument::from_json_within`].
///
/// # Errors
/// Those of `parse_any`, and `too_costly`.
pub fn parse_any_within(text: &str, budget: f64) -> Result<AnyDocument> {
    if reader::is_continuous(text.as_bytes()) {
        Ok(AnyDocument::Continuous(ContinuousDocument::from_json(text)?))
    } else if crate::open::is_open(text.as_bytes()) {
        Ok(AnyDocument::Open(crate::open::OpenDocument::from_json_within(text.as_bytes(), budget)?))
    } else {
        Ok(AnyDocument::Discrete(Document::from_json_within(text.as_bytes(), budget)?))
    }
}
