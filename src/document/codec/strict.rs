//! JSON values that refuse duplicate keys at every depth.
//!
//! `serde_json::Value` keeps the last of two equal keys, so a document could show one
//! reader `"q01": 0.1` and another `"q01": 0.9`. The typed parts of a document refuse
//! duplicates by construction (serde's derive); the parts kept as JSON values until their
//! `kind` is known (`mechanism`) or kept as free-form data (`utility`) when serde reads them
//! ([`super::Json`]'s `Deserialize`), and whole texts read as a value first (policies),
//! go through here.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// A [`Value`] deserialised with duplicate keys refused.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> core::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> core::result::Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> core::result::Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> core::result::Result<Value, E> {
        serde_json::Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> core::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> core::result::Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> core::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> core::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> core::result::Result<Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> core::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> core::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(alloc::format!("duplicate key {}", crate::error::Quoted(&key))));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parses `text` as one JSON value, refusing duplicate keys anywhere. One leading
/// [`BYTE_ORDER_MARK`](super::reader::BYTE_ORDER_MARK) is read as nothing.
///
/// # Errors
/// `json`, naming the duplicate key or the syntax error.
pub fn from_str(text: &str) -> Result<Value> {
    let text = text.strip_prefix(super::reader::BYTE_ORDER_MARK).unwrap_or(text);
    serde_json::from_str::<StrictValue>(text).map(|v| v.0).map_err(Error::from_parser)
}
