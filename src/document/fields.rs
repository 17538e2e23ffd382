//! Reading the `mechanism` object by hand: its `kind` is known only once it is read, so it
//! arrives as a JSON value ([`Json`]), and these few readers take its fields with the rules
//! serde's derive would apply (`deny_unknown_fields`, required fields, numbers only) at a fraction
//! of the client module's code (one reader per shape, not one deserialiser per struct).

use alloc::vec::Vec;

use super::json::{Json, Object};

use crate::error::{Error, Result};

fn json(field: &str, what: impl core::fmt::Display) -> Error {
    Error::Json { message: alloc::format!("`{field}`: {what}") }
}

/// The object `v` (named `field`), refusing keys outside `allowed`.
pub(super) fn object<'a>(field: &str, v: &'a Json, allowed: &[&str]) -> Result<&'a Object> {
    let m = v.as_object().ok_or_else(|| json(field, "expected an object"))?;
    match m.keys().find(|k| !allowed.contains(k)) {
        Some(k) => Err(json(
            field,
            alloc::format!(
                "unknown field {}, expected one of {}",
                crate::error::Quoted(k),
                super::reader::OneOf(allowed)
            ),
        )),
        None => Ok(m),
    }
}

/// The required member `key` of `m`.
pub(super) fn required<'a>(field: &str, m: &'a Object, key: &str) -> Result<&'a Json> {
    m.get(key).ok_or_else(|| json(field, alloc::format!("missing field `{key}`")))
}

/// A JSON number as f64 (validated by the caller: finite, in range).
pub(super) fn number(field: &str, v: &Json) -> Result<f64> {
    v.as_f64().ok_or_else(|| json(field, "expected a number"))
}

/// An optional number (absent or `null`: `None`).
pub(super) fn optional_number(field: &str, m: &Object, key: &str) -> Result<Option<f64>> {
    match m.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => number(&alloc::format!("{field}.{key}"), v).map(Some),
    }
}

/// A non-negative integer (one that fits `u64`), as a `usize`; beyond `usize::MAX`
/// (2³² − 1 on wasm32) it saturates, a size or index no alphabet reaches, so that the
/// range check refuses it with the same code on every target.
pub(super) fn index(field: &str, v: &Json) -> Result<usize> {
    v.as_u64().map(crate::numeric::saturating_usize).ok_or_else(|| json(field, "expected a non-negative integer"))
}

/// A JSON array.
pub(super) fn array<'a>(field: &str, v: &'a Json) -> Result<&'a [Json]> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| json(field, "expected an array"))
}

/// An array of numbers.
pub(super) fn numbers(field: &str, v: &Json) -> Result<Vec<f64>> {
    array(field, v)?.iter().map(|e| number(field, e)).collect()
}

/// An array of arrays of numbers (rows), consuming `v` row by row (a dense 1024 × 1024
/// channel's JSON tree is freed as its rows are read, not kept beside them).
pub(super) fn rows(field: &str, v: Json) -> Result<Vec<Vec<f64>>> {
    match v {
        Json::Array(a) => a.into_iter().map(|r| numbers(field, &r)).collect(),
        _ => Err(json(field, "expected an array")),
    }
}

/// The member `key` of the object `v`, moved out of it (`Null` when absent).
pub(super) fn take(v: &mut Json, key: &str) -> Json {
    match v {
        Json::Object(m) => m.get_mut(key).map_or(Json::Null, Json::take),
        _ => Json::Null,
    }
}
