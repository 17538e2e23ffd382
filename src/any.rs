//! A document of any family, and which family a text is: above the families
//! ([`crate::document`]'s discrete and continuous documents, [`crate::open`]'s open-domain
//! ones) and their verification, so that none of them names another family's reader.
//!
//! The family is peeked from the text without building anything ([`peek_family`]): a
//! continuous `mechanism.kind` and no `labels` is continuous ([`is_continuous`]), an open
//! kind and no `labels` is open ([`is_open`]), anything else goes to the discrete reader,
//! which refuses a kind it does not know.

use crate::document::codec::reader::peek_family;
use crate::document::{ContinuousDocument, Document, CONTINUOUS_KINDS};
use crate::error::Result;
use crate::open::{is_open, OpenDocument, OPEN_KINDS};

/// A document of any family.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AnyDocument {
    /// A discrete document (`labels`; kinds `matrix`, `per_secret`, `unary`).
    Discrete(Document),
    /// A continuous document (`domain`; kinds `gaussian`, `laplace`, `sampling`).
    Continuous(ContinuousDocument),
    /// An open-domain document (`domain` of strings; kinds `olh`, `hadamard`, `hcms`,
    /// `heavy_hitters`).
    Open(OpenDocument),
}

impl AnyDocument {
    /// The document's family.
    pub fn family(&self) -> Family {
        match self {
            AnyDocument::Discrete(_) => Family::Discrete,
            AnyDocument::Continuous(_) => Family::Continuous,
            AnyDocument::Open(_) => Family::Open,
        }
    }
}

/// A family of documents: each has its reader, its verification and its client module,
/// and a document given to another family's entry point is named by its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Labels in, labels out: [`Document`].
    Discrete,
    /// A number on a bounded domain, released on a lattice: [`ContinuousDocument`].
    Continuous,
    /// A string of an open domain, hashed and randomised: [`OpenDocument`].
    Open,
}

impl Family {
    /// The family a `mechanism.kind` belongs to: continuous for [`CONTINUOUS_KINDS`], open
    /// for [`OPEN_KINDS`], else discrete (whose reader refuses a kind it does
    /// not know).
    pub fn of_kind(kind: &str) -> Family {
        if CONTINUOUS_KINDS.contains(&kind) {
            Family::Continuous
        } else if OPEN_KINDS.contains(&kind) {
            Family::Open
        } else {
            Family::Discrete
        }
    }

    /// `"discrete"`, `"continuous"` or `"open"`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Family::Discrete => "discrete",
            Family::Continuous => "continuous",
            Family::Open => "open",
        }
    }
}

/// Parses and validates a document of any family: a continuous one ([`is_continuous`],
/// on the kind and members peeked without building anything) gives
/// [`AnyDocument::Continuous`], an open-domain one ([`is_open`])
/// [`AnyDocument::Open`], anything else goes to [`Document::from_json`] unchanged.
/// The text is read once by the reader of its family: no JSON tree of the whole document
/// is built first.
///
/// # Errors
/// `json`, and every error of [`Document::from_json`] / [`ContinuousDocument::from_json`].
pub fn parse_any(text: &str) -> Result<AnyDocument> {
    if is_continuous(text.as_bytes()) {
        Ok(AnyDocument::Continuous(ContinuousDocument::from_json(text)?))
    } else if is_open(text.as_bytes()) {
        Ok(AnyDocument::Open(OpenDocument::from_json(text)?))
    } else {
        Ok(AnyDocument::Discrete(Document::from_json(text)?))
    }
}

/// Whether the JSON document `bytes` is continuous: a continuous `mechanism.kind` and no
/// `labels` member (a discrete document with such a kind stays on the discrete path,
/// which refuses it with `unsupported_mechanism`). The reading stops at `labels`, which
/// a discrete document gives before its mechanism.
pub fn is_continuous(bytes: &[u8]) -> bool {
    peek_family(bytes).is_some_and(|p| !p.labels && p.kind.is_some_and(|k| CONTINUOUS_KINDS.contains(&k.as_str())))
}

/// [`parse_any`] within `budget` work units: a discrete document by
/// [`Document::from_json_within`]; a continuous one (at most a few thousand numbers,
/// whose sampler's cost verification checks before building it) as `parse_any` reads it;
/// an open-domain one by [`OpenDocument::from_json_within`].
///
/// # Errors
/// Those of `parse_any`, and `too_costly`.
pub fn parse_any_within(text: &str, budget: f64) -> Result<AnyDocument> {
    if is_continuous(text.as_bytes()) {
        Ok(AnyDocument::Continuous(ContinuousDocument::from_json(text)?))
    } else if is_open(text.as_bytes()) {
        Ok(AnyDocument::Open(OpenDocument::from_json_within(text.as_bytes(), budget)?))
    } else {
        Ok(AnyDocument::Discrete(Document::from_json_within(text.as_bytes(), budget)?))
    }
}
