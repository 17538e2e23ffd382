//! Reading the `mechanism` object by hand: its `kind` is known only once it is read, so it
//! arrives as a JSON value, and these few readers take its fields with the rules serde's
//! derive would apply (`deny_unknown_fields`, required fields, numbers only) at a fraction
//! of the client module's code (one reader per shape, not one deserialiser per struct).

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

fn json(field: &str, what: impl core::fmt::Display) -> Error {
    Error::Json { message: alloc::format!("`{field}`: {what}") }
}

/// The object `v` (named `field`), refusing keys outside `allowed`.
pub(super) fn object<'a>(field: &str, v: &'a Value, allowed: &[&str]) -> Result<&'a Map<String, Value>> {
    let m = v.as_object().ok_or_else(|| json(field, "expected an object"))?;
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => {
            Err(json(field, alloc::format!("unknown field `{k}`, expected one of {}", super::reader::OneOf(allowed))))
        }
        None => Ok(m),
    }
}

/// The required member `key` of `m`.
pub(super) fn required<'a>(field: &str, m: &'a Map<String, Value>, key: &str) -> Result<&'a Value> {
    m.get(key).ok_or_else(|| json(field, alloc::format!("missing field `{key}`")))
}

/// A JSON number as f64 (validated by the caller: finite, in range).
pub(super) fn number(field: &str, v: &Value) -> Result<f64> {
    v.as_f64().ok_or_else(|| json(field, "expected a number"))
}

/// An optional number (absent or `null`: `None`).
pub(super) fn optional_number(field: &str, m: &Map<String, Value>, key: &str) -> Result<Option<f64>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => number(&alloc::format!("{field}.{key}"), v).map(Some),
    }
}

/// A non-negative integer that fits `usize`.
pub(super) fn index(field: &str, v: &Value) -> Result<usize> {
    v.as_u64().and_then(|u| usize::try_from(u).ok()).ok_or_else(|| json(field, "expected a non-negative integer"))
}

/// A JSON array.
pub(super) fn array<'a>(field: &str, v: &'a Value) -> Result<&'a [Value]> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| json(field, "expected an array"))
}

/// An array of numbers.
pub(super) fn numbers(field: &str, v: &Value) -> Result<Vec<f64>> {
    array(field, v)?.iter().map(|e| number(field, e)).collect()
}

/// An array of arrays of numbers (rows), consuming `v` row by row (a dense 1024 × 1024
/// channel's JSON tree is freed as its rows are read, not kept beside them).
pub(super) fn rows(field: &str, v: Value) -> Result<Vec<Vec<f64>>> {
    match v {
        Value::Array(a) => a.into_iter().map(|r| numbers(field, &r)).collect(),
        _ => Err(json(field, "expected an array")),
    }
}

/// The member `key` of the object `v`, moved out of it (`Null` when absent).
pub(super) fn take(v: &mut Value, key: &str) -> Value {
    v.get_mut(key).map(Value::take).unwrap_or(Value::Null)
}
