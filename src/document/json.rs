//! [`Json`]: a JSON value as the parts of a document that are not typed hold it: the
//! `mechanism` object until its `kind` is known, and the free-form `utility` figures.
//!
//! # Why not `serde_json::Value`
//! `Value`'s objects are `BTreeMap`s: the tree's insertion, search, clone and drop code was
//! ≈ 8 KB of each client module before gzip, for objects of a handful of keys. Here an
//! object is a vector of members sorted by key once it is read (a heap sort: half a
//! kilobyte of code, O(n log n)), searched by bisection, and a key given twice is refused
//! as it is read, by a set of sorted runs of the keys (`keys.rs`: O(log² n) comparisons a
//! key whatever the keys, so a hostile object of a million keys is not quadratic). The clients are 2.4 KB (discrete) and 2.2 KB (continuous)
//! smaller in gzip (BENCHMARKS.md).
//!
//! The order and the numbers are `Value`'s: members by key in byte order, an integer as
//! `u64` (≥ 0) or `i64` (< 0), any other number as a finite f64. So [`Json::to_value`] and
//! [`Json::from`] a `Value` turn one into the other, and the serde impls write and read
//! what `Value`'s do (duplicate keys refused at every depth). Rust callers that want
//! `Value`'s whole API (the curator side) convert with [`Json::to_value`]; the clients
//! never build a `Value`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::decimal::Num;
use super::keys::KeySet;
use super::reader::Reader;
use crate::error::Result;

/// A JSON value (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, of the kind the reader gives it ([`Num`]; a float is finite).
    Number(Num),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object.
    Object(Object),
}

/// The members of a JSON object: keys unique, sorted in byte order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object {
    members: Vec<(String, Json)>,
}

impl Object {
    /// The object of `members`, whose keys are distinct (the callers build it from a `Value`'s
    /// map or from fixed names).
    pub(super) fn new(mut members: Vec<(String, Json)>) -> Self {
        heap_sort(&mut members);
        Object { members }
    }

    /// The member `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.position(key).ok().map(|i| &self.members[i].1)
    }

    /// The member `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.position(key).ok().map(|i| &mut self.members[i].1)
    }

    fn position(&self, key: &str) -> core::result::Result<usize, usize> {
        self.members.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The members, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.members.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(k, _)| k.as_str())
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// Sorts members by key: a heap sort, O(n log n) with no allocation and little code (the
/// keys are distinct, so stability does not matter).
fn heap_sort(m: &mut [(String, Json)]) {
    fn sift(m: &mut [(String, Json)], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && m[child].0 < m[child + 1].0 {
                child += 1;
            }
            if m[root].0 >= m[child].0 {
                return;
            }
            m.swap(root, child);
            root = child;
        }
    }
    let n = m.len();
    for root in (0..n / 2).rev() {
        sift(m, root, n);
    }
    for end in (1..n).rev() {
        m.swap(0, end);
        sift(m, 0, end);
    }
}

/// What `Index` gives for a missing member (as `Value` does).
static NULL: Json = Json::Null;

impl Json {
    /// The member `key` of an object (`None` for another value or a missing key).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }
    /// The members of an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(m) => Some(m),
            _ => None,
        }
    }
    /// The elements of an array.
    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }
    /// A string's text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
    /// A boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// A number as f64 (an integer converted).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Json::Number(Num::U64(v)) => Some(v as f64),
            Json::Number(Num::I64(v)) => Some(v as f64),
            Json::Number(Num::F64(v)) => Some(v),
            _ => None,
        }
    }
    /// A non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Json::Number(Num::U64(v)) => Some(v),
            _ => None,
        }
    }
    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
    /// The value, leaving `null` in its place.
    pub fn take(&mut self) -> Json {
        core::mem::replace(self, Json::Null)
    }

    /// The value as a `serde_json::Value` (a non-finite float, which the reader never
    /// gives, becomes `null` as in `Value`).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(Num::U64(v)) => Value::from(*v),
            Json::Number(Num::I64(v)) => Value::from(*v),
            Json::Number(Num::F64(v)) => Value::from(*v),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.into(), v.to_value())).collect()),
        }
    }
}

impl From<serde_json::Value> for Json {
    fn from(v: serde_json::Value) -> Self {
        use serde_json::Value;
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Number(match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Num::U64(u),
                (None, Some(i)) => Num::I64(i),
                _ => Num::F64(n.as_f64().unwrap_or(f64::NAN)),
            }),
            Value::String(s) => Json::String(s),
            Value::Array(a) => Json::Array(a.into_iter().map(Json::from).collect()),
            Value::Object(m) => Json::Object(Object::new(m.into_iter().map(|(k, v)| (k, Json::from(v))).collect())),
        }
    }
}

impl core::ops::Index<&str> for Json {
    type Output = Json;
    /// The member `key` of an object, `null` when there is none (as `Value` indexes).
    fn index(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&NULL)
    }
}

/// The compact JSON text, as `Value` prints it.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

/// Written as `Value` writes itself (numbers by kind, objects as maps in key order), with
/// no `Value` built: the continuous client hands `utility` to JS this way.
impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(Num::U64(v)) => s.serialize_u64(*v),
            Json::Number(Num::I64(v)) => s.serialize_i64(*v),
            Json::Number(Num::F64(v)) => s.serialize_f64(*v),
            Json::String(v) => s.serialize_str(v),
            Json::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for e in a {
                    seq.serialize_element(e)?;
                }
                seq.end()
            }
            Json::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Read as a `Value` whose duplicate keys are refused at every depth
/// ([`super::strict::StrictValue`]): the derived readers of the wire types (Rust callers;
/// the clients use [`read`]).
impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        super::strict::StrictValue::deserialize(d).map(|v| Json::from(v.0))
    }
}

/// Reads any JSON value; a key given twice in an object is refused, at every depth.
///
/// # Errors
/// `json` for a syntax error or a duplicate key, with its position.
pub fn read(r: &mut Reader<'_>) -> Result<Json> {
    read_at_most(r, usize::MAX)
}

/// [`read`], refusing a value of more than `max` JSON values in all (every number,
/// string, literal, array and object counts one).
///
/// # Errors
/// Those of [`read`], and `json` at the first value past `max`.
pub fn read_at_most(r: &mut Reader<'_>, max: usize) -> Result<Json> {
    let mut left = max;
    read_counted(r, &mut left, max)
}

fn read_counted(r: &mut Reader<'_>, left: &mut usize, max: usize) -> Result<Json> {
    if *left == 0 {
        return Err(r.error_here(&alloc::format!("more than {max} JSON values in this member")));
    }
    *left -= 1;
    Ok(match r.peek_value()? {
        b'n' => {
            r.literal(b"null")?;
            Json::Null
        }
        b't' => {
            r.literal(b"true")?;
            Json::Bool(true)
        }
        b'f' => {
            r.literal(b"false")?;
            Json::Bool(false)
        }
        b'-' | b'0'..=b'9' => match r.number()? {
            Num::F64(v) if !v.is_finite() => return Err(r.error("a number that is not finite")),
            n => Json::Number(n),
        },
        b'"' => Json::String(r.string()?),
        b'[' => {
            let mut out = Vec::new();
            r.array("a sequence", &mut |r| {
                out.push(read_counted(r, left, max)?);
                Ok(())
            })?;
            Json::Array(out)
        }
        b'{' => {
            let mut members: Vec<(String, Json)> = Vec::new();
            let mut keys = KeySet::default();
            r.object("a map", &mut |r, key| {
                if !keys.insert(&key, &|i| members[i].0.as_str()) {
                    return Err(r.error(&alloc::format!("duplicate key {}", crate::error::Quoted(&key))));
                }
                let v = read_counted(r, left, max)?;
                members.push((key, v));
                Ok(())
            })?;
            heap_sort(&mut members);
            Json::Object(Object { members })
        }
        _ => return Err(r.error_here("expected value")),
    })
}
