//! Reading the `mechanism` object by hand: its `kind` is known only once it is read, so it
//! arrives as a JSON value ([`Json`]), and these few readers take its fields with the rules
//! serde's derive would apply (`deny_unknown_fields`, required fields, numbers only) at a fraction
//! of the client module's code (one reader per shape, not one deserialiser per struct).

use alloc::vec::Vec;

use super::codec::{Json, Object};

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
                super::codec::reader::OneOf(allowed)
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
    match v {
        Json::Numbers(n) if !n.is_rows() => Ok(n.values().to_vec()),
        Json::Numbers(_) => Err(json(field, "expected a number")),
        v => array(field, v)?.iter().map(|e| number(field, e)).collect(),
    }
}

/// An array of non-negative integers that fit `usize`.
pub(super) fn indices(field: &str, v: &Json) -> Result<Vec<usize>> {
    match v {
        Json::Numbers(n) if !n.is_rows() => (0..n.len()).map(|i| index(field, &Json::Number(n.num(i)))).collect(),
        Json::Numbers(_) => Err(json(field, "expected a non-negative integer")),
        v => array(field, v)?.iter().map(|e| index(field, e)).collect(),
    }
}

/// An array of arrays of numbers, flat: the numbers row after row, and where each row
/// ends. Consumes `v`: the flat numbers of the reader ([`Json::Numbers`]) are moved, not
/// copied, so a dense channel is held once.
pub(super) fn rows(field: &str, v: Json) -> Result<Rows> {
    match v {
        Json::Numbers(n) if n.is_rows() => {
            let ends = (0..n.len()).filter_map(|i| n.row(i)).map(|r| r.end).collect();
            Ok(Rows { values: n.into_values(), ends })
        }
        Json::Array(a) => {
            let mut out = Rows { values: Vec::new(), ends: Vec::with_capacity(a.len()) };
            for r in a {
                match r {
                    Json::Numbers(n) if !n.is_rows() => out.values.extend(n.into_values()),
                    r => out.values.extend(numbers(field, &r)?),
                }
                out.ends.push(out.values.len());
            }
            Ok(out)
        }
        _ => Err(json(field, "expected an array")),
    }
}

/// Rows of numbers held flat (see [`rows`]).
pub(super) struct Rows {
    pub(super) values: Vec<f64>,
    /// Where each row ends in `values`.
    pub(super) ends: Vec<usize>,
}

impl Rows {
    /// The number of rows.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }
    /// The length of row `i`.
    pub(super) fn width(&self, i: usize) -> usize {
        self.ends[i] - if i == 0 { 0 } else { self.ends[i - 1] }
    }
}

/// The length of the first row of an array of arrays (0 when there is none).
pub(super) fn first_row_len(v: &Json) -> usize {
    match v {
        Json::Numbers(n) => n.row(0).map_or(0, |r| r.len()),
        Json::Array(a) => a.first().map_or(0, |r| match r {
            Json::Numbers(n) => n.len(),
            Json::Array(r) => r.len(),
            _ => 0,
        }),
        _ => 0,
    }
}

/// The member `key` of the object `v`, moved out of it (`Null` when absent).
pub(super) fn take(v: &mut Json, key: &str) -> Json {
    match v {
        Json::Object(m) => m.get_mut(key).map_or(Json::Null, Json::take),
        _ => Json::Null,
    }
}
