//! Documents cross the boundary once, as UTF-8 bytes (`parseBytes`: a download, a file,
//! or the npm wrapper's `TextEncoder` output for a string) or as a `&str` (`parse`), and
//! are parsed once, here, into the core's wire types by its serde-free readers
//! (`DocumentJson::read`, `ContinuousDocumentJson::read`: far smaller in the client than
//! serde_json's deserializer and the derived visitors), which the core then validates
//! (`from_wire`). The text is never decoded to a JS string nor parsed by `JSON.parse`
//! first. Both entry points take the same path (a `&str` as its bytes), so each reader is
//! compiled once.
//!
//! A discrete document is read within the verification budget of the policy it is given
//! (`Document::from_json_within`): one that verifying would refuse as `too_costly` is
//! refused as it is read, from the sizes it declares, not after its numbers are held.
//!
//! A document given to the wrong entry point (a continuous one to `parseMechanism`, a
//! discrete one to `parseContinuousMechanism`) fails its typed parse; only then is its
//! `mechanism.kind` read ([`peek_kind`]) to name the entry point of its [`Family`].

use wasm_bindgen::JsValue;

use crate::error::{coded_error, js_error};
use privlift::any::Family;
use privlift::error::Error;

/// Where the JS API reads a document of `family` (named to a caller who gave one to
/// another family's entry point).
fn entry_point(family: Family) -> &'static str {
    match family {
        Family::Discrete | Family::Open => "parseMechanism from 'privlift'",
        Family::Continuous => "parseContinuousMechanism / fetchContinuousMechanism from 'privlift/continuous'",
    }
}

/// The indefinite article before `word` in a message ("an open document").
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Reads the JSON document `json` (UTF-8) of `family` with `read`: the core's serde-free
/// reader of that family's wire type and its validation (`Document::from_json_within`,
/// `ContinuousDocumentJson::read` and `from_wire`).
/// On failure, the error is:
/// * `too_costly` when the sizes it declares cost more than the budget: refused as read,
///   so neither the rest of its bytes nor its kind is read for the error (a dense 1024²
///   RR, 23 MB: refused in 51 ms in Node when they were, 5.5 ms now);
/// * else `json` "not valid UTF-8" when `json` is not UTF-8 (a successful typed parse has
///   decoded every string of the document and refuses any other non-ASCII byte, so it
///   never accepts invalid UTF-8);
/// * else `unsupported_mechanism` naming the entry point of the document's family, when
///   its `mechanism.kind` (a non-empty string) is of another family ([`Family::of_kind`]);
/// * else the parse or validation error itself.
pub(crate) fn read_document<D>(
    json: &[u8],
    family: Family,
    read: impl FnOnce(&[u8]) -> privlift::Result<D>,
) -> Result<D, JsValue> {
    read(json).map_err(|e| parse_error(json, e, family))
}

/// The error [`read_document`] throws for `json`, whose parse or validation as a document
/// of `family` gave `e`.
fn parse_error(json: &[u8], e: Error, family: Family) -> JsValue {
    if matches!(e, Error::TooCostly { .. }) {
        return js_error(e);
    }
    if let Err(bad) = core::str::from_utf8(json) {
        let message = alloc::format!("the document is not valid UTF-8 (byte {})", bad.valid_up_to());
        return js_error(Error::Json { message });
    }
    match peek_kind(json).filter(|k| !k.is_empty()).map(|k| (Family::of_kind(&k), k)) {
        Some((other, kind)) if other != family => {
            let message = alloc::format!(
                "mechanism kind '{kind}' is {} {} document: use {}",
                article(other.name()),
                other.name(),
                entry_point(other)
            );
            coded_error("unsupported_mechanism", &message)
        }
        _ => js_error(e),
    }
}

pub(crate) use privlift::document::codec::reader::peek_kind;
