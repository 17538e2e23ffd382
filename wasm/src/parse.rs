//! Documents cross the boundary once, as UTF-8 bytes (`parseBytes`: a download, a file,
//! or the npm wrapper's `TextEncoder` output for a string) or as a `&str` (`parse`), and
//! are parsed once, here: serde_json reads the bytes into the core's wire types, which the
//! core then validates (`from_wire`). The text is never decoded to a JS string nor parsed
//! by `JSON.parse` first. Both entry points take the same path (a `&str` as its bytes),
//! so the wire types' deserialiser is compiled once.
//!
//! A document given to the wrong entry point (a continuous one to `parseMechanism`, a
//! discrete one to `parseContinuousMechanism`) fails its typed parse; only then is its
//! `mechanism.kind` read ([`peek_kind`]) to name the right entry point.

use alloc::string::{String, ToString};
use core::fmt;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use wasm_bindgen::JsValue;

use crate::{coded_error, js_error};
use privlift::error::Error;

/// Parses the JSON document `json` (UTF-8) into the wire type `W` and validates it with
/// `validate` (the core's `from_wire`). On failure, the error is:
/// * `json` "not valid UTF-8" when `json` is not UTF-8 (a successful typed parse has
///   decoded every string of the document and refuses any other non-ASCII byte, so it
///   never accepts invalid UTF-8);
/// * else `unsupported_mechanism` with the message `wrong_family` gives for the
///   document's `mechanism.kind` (a non-empty string), when it gives one;
/// * else the parse or validation error itself.
pub(crate) fn parse_document<W: DeserializeOwned, D>(
    json: &[u8],
    validate: impl FnOnce(W) -> privlift::Result<D>,
    wrong_family: impl FnOnce(&str) -> Option<String>,
) -> Result<D, JsValue> {
    let wire = serde_json::from_slice::<W>(json).map_err(|e| Error::Json { message: e.to_string() });
    wire.and_then(validate).map_err(|e| parse_error(json, e, wrong_family))
}

/// The error [`parse_document`] throws for `json`, whose parse or validation gave `e`.
fn parse_error(json: &[u8], e: Error, wrong_family: impl FnOnce(&str) -> Option<String>) -> JsValue {
    if let Err(bad) = core::str::from_utf8(json) {
        let message = alloc::format!("the document is not valid UTF-8 (byte {})", bad.valid_up_to());
        return js_error(Error::Json { message });
    }
    match peek_kind(json).filter(|k| !k.is_empty()).and_then(|k| wrong_family(&k)) {
        Some(message) => coded_error("unsupported_mechanism", &message),
        None => js_error(e),
    }
}

/// The `mechanism.kind` string of the JSON document `json`, read without building the
/// document: every other value is dropped as soon as it is read, so the large arrays are
/// never allocated. `None` when `json` is not JSON, or has no object `mechanism` with a
/// string `kind`. Of a key given twice, the last counts (as in `JSON.parse`).
pub(crate) fn peek_kind(json: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let kind = Peek::Document.deserialize(&mut de).ok()?;
    de.end().ok()?;
    kind
}

/// What [`peek_kind`] is reading. One visitor for every level, so that serde_json's
/// parser is instantiated once more, not once per level; serde's `IgnoredAny` would add a
/// second scanner besides (about 1 KB more in the gzipped client module).
#[derive(Clone, Copy, PartialEq)]
enum Peek {
    /// The document: its `mechanism` is read, the rest skipped.
    Document,
    /// `mechanism`: its `kind` is read, the rest skipped.
    Mechanism,
    /// `mechanism.kind`: kept if it is a string.
    Kind,
    /// Any other value: read and dropped.
    Skip,
}

impl<'de> DeserializeSeed<'de> for Peek {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Peek {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok((self == Peek::Kind).then(|| v.into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element_seed(Peek::Skip)?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            let next = match (self, key.as_str()) {
                (Peek::Document, "mechanism") => Peek::Mechanism,
                (Peek::Mechanism, "kind") => Peek::Kind,
                _ => Peek::Skip,
            };
            let value = map.next_value_seed(next)?;
            if next != Peek::Skip {
                found = value;
            }
        }
        Ok(found)
    }
}
