//! [`Json`]: a JSON value as the parts of a document that are not typed hold it: the
//! `mechanism` object until its `kind` is known, and the free-form `utility` figures.
//!
//! # Why not `serde_json::Value`
//! `Value`'s objects are `BTreeMap`s: the tree's insertion, search, clone and drop code
//! would be in each client module, for objects of a handful of keys. Here an
//! object is a vector of members sorted by key once it is read (a heap sort: half a
//! kilobyte of code, O(n log n)), searched by bisection, and a key given twice is refused
//! as it is read, by a set of sorted runs of the keys (`keys.rs`: O(log² n) comparisons a
//! key whatever the keys, so a hostile object of a million keys is not quadratic).
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
#[derive(Debug, Clone)]
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
    /// An array of numbers, or of arrays of numbers, held flat ([`Numbers`]): only the
    /// `mechanism` member's reader ([`read_mechanism`]) gives it.
    Numbers(alloc::boxed::Box<Numbers>),
}

/// An array of numbers (or an array of arrays of numbers) as the `mechanism` reader keeps
/// it: flat, 8 bytes a number (and a bit when it mixes integers with other numbers), where
/// a tree of [`Json`] takes 32 bytes a number
/// and an allocation an array. A number takes at least two bytes of text (`0,`), so the
/// numbers of a document take at most 4× its bytes.
#[derive(Debug, Clone, Default)]
pub struct Numbers {
    values: Vec<f64>,
    /// Whether the first element was written as an integer (kind `U64` when ≥ 0, else
    /// `I64`); the others are of its kind unless `mixed` says otherwise.
    integer: bool,
    /// Bit i: element i was written as an integer; empty while every element is of the
    /// first one's kind (a matrix of 0s and 1s needs no bit: 8 bytes a number).
    mixed: Vec<u64>,
    /// The integers f64 does not hold exactly (|v| > 2⁵³), by index, as written.
    exact: Vec<(usize, Num)>,
    /// For an array of arrays: where each inner array ends in `values`.
    ends: Option<Vec<usize>>,
}

impl Numbers {
    /// The numbers, as f64 (an integer converted), row after row for an array of arrays.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    /// The numbers, moved out.
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }
    /// The number of elements: numbers, or inner arrays.
    pub fn len(&self) -> usize {
        self.ends.as_ref().map_or(self.values.len(), Vec::len)
    }
    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// For an array of arrays, the range of inner array `i` in [`Numbers::values`].
    pub fn row(&self, i: usize) -> Option<core::ops::Range<usize>> {
        let ends = self.ends.as_ref()?;
        let end = *ends.get(i)?;
        Some(if i == 0 { 0 } else { ends[i - 1] }..end)
    }
    /// Whether this is an array of arrays.
    pub fn is_rows(&self) -> bool {
        self.ends.is_some()
    }
    /// Number `i` of [`Numbers::values`] as it was written.
    pub fn num(&self, i: usize) -> Num {
        if let Ok(k) = self.exact.binary_search_by_key(&i, |&(j, _)| j) {
            return self.exact[k].1;
        }
        let v = self.values[i];
        let integer = match self.mixed.get(i / 64) {
            Some(bits) => bits >> (i % 64) & 1 == 1,
            None => self.integer,
        };
        match integer {
            false => Num::F64(v),
            true if v < 0.0 => Num::I64(v as i64),
            true => Num::U64(v as u64),
        }
    }
    /// Appends a number, with room for at most `more` numbers after it (the text left
    /// can hold no more), so that the capacity never exceeds what the text can fill. The
    /// capacity grows by a quarter, not double: a channel refused part-way through (its
    /// cost priced row by row) holds at most 1.25× the numbers read, not 2×.
    fn push(&mut self, n: Num, more: usize) {
        let i = self.values.len();
        let v = match n {
            Num::U64(u) => u as f64,
            Num::I64(u) => u as f64,
            Num::F64(v) => v,
        };
        let integer = !matches!(n, Num::F64(_));
        if integer && libm::fabs(v) > 9_007_199_254_740_992.0 {
            self.exact.push((i, n));
        }
        if self.values.len() == self.values.capacity() {
            self.values.reserve_exact((i / 4).clamp(8, more.max(8)));
        }
        self.values.push(v);
        if i == 0 {
            self.integer = integer;
        } else if self.mixed.is_empty() && integer != self.integer {
            let all = if self.integer { u64::MAX } else { 0 };
            self.mixed = alloc::vec![all; i / 64 + 1];
        }
        if !self.mixed.is_empty() {
            if i / 64 == self.mixed.len() {
                self.mixed.push(0);
            }
            let bit = 1u64 << (i % 64);
            self.mixed[i / 64] = if integer { self.mixed[i / 64] | bit } else { self.mixed[i / 64] & !bit };
        }
    }
    /// The array as a tree of [`Json`] (the curator side: printing and comparing).
    pub fn to_json(&self) -> Json {
        let flat = |r: core::ops::Range<usize>| Json::Array(r.map(|i| Json::Number(self.num(i))).collect());
        match &self.ends {
            None => flat(0..self.values.len()),
            Some(ends) => Json::Array((0..ends.len()).filter_map(|i| self.row(i)).map(flat).collect()),
        }
    }
}

/// The members of a JSON object: keys unique, sorted in byte order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object {
    members: Vec<(String, Json)>,
}

impl Object {
    /// The object of `members`, whose keys are distinct (the callers build it from a `Value`'s
    /// map or from fixed names).
    pub(in crate::document) fn new(mut members: Vec<(String, Json)>) -> Self {
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

/// Values are equal as JSON: [`Json::Numbers`] equals the tree it stands for.
impl PartialEq for Json {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => a == b,
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (Json::Object(a), Json::Object(b)) => a == b,
            (Json::Numbers(a), b) => &a.to_json() == b,
            (a, Json::Numbers(b)) => a == &b.to_json(),
            _ => false,
        }
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
            Json::Numbers(n) => n.to_json().to_value(),
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
            Json::Numbers(n) => n.to_json().serialize(s),
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
        b'{' => read_object(r, usize::MAX, &mut |r, _| read_counted(r, left, max))?,
        _ => return Err(r.error_here("expected value")),
    })
}

/// An object of at most `max` members, each value read by `value`; a key given twice is
/// refused.
fn read_object(
    r: &mut Reader<'_>,
    max: usize,
    value: &mut dyn FnMut(&mut Reader<'_>, &str) -> Result<Json>,
) -> Result<Json> {
    let mut members: Vec<(String, Json)> = Vec::new();
    let mut keys = KeySet::default();
    r.object("a map", &mut |r, key| {
        if members.len() == max {
            return Err(r.error(&alloc::format!("more than {max} members in an object")));
        }
        if !keys.insert(&key, &|i| members[i].0.as_str()) {
            return Err(r.error(&alloc::format!("duplicate key {}", crate::error::Quoted(&key))));
        }
        let v = value(r, &key)?;
        members.push((key, v));
        Ok(())
    })?;
    heap_sort(&mut members);
    Ok(Json::Object(Object { members }))
}

/// Most elements of an array in the `mechanism` member: every array of a discrete kind
/// is indexed by an alphabet (rows, columns, inputs, blocks, groups, a sparse row's
/// outputs), so none is longer than [`crate::document::MAX_SYMBOLS`].
const MAX_MECHANISM_ARRAY: usize = crate::document::MAX_SYMBOLS;
/// Most members of an object in the `mechanism` member (its kinds name at most four).
const MAX_MECHANISM_MEMBERS: usize = 16;
/// Most numbers in the `mechanism` member: a per-secret mechanism's 2²⁴ entries and as
/// many in its Markov form, or a sparse channel's 2²⁴ pairs.
pub const MAX_MECHANISM_NUMBERS: usize = 1 << 25;

/// Reads the `mechanism` member: arrays of numbers, and arrays of arrays of numbers, are
/// read flat into [`Json::Numbers`] (a dense 4096 × 4096 channel is 134 MB, not a tree of
/// 540 MB and 16.8 million allocations); every array is refused as soon as it is longer than
/// an alphabet, every object past a few members, and the member past
/// [`MAX_MECHANISM_NUMBERS`] numbers, so what it holds is bounded by its declared sizes
/// before they are validated. A key given twice is refused, at every depth.
///
/// # Errors
/// `json` for a syntax error, a duplicate key, too many members, or an array that mixes
/// numbers with other values; `too_many_symbols` for an array or a member too long.
pub fn read_mechanism(r: &mut Reader<'_>) -> Result<Json> {
    read_mechanism_priced(r, &mut |_| Ok(()))
}

/// A dense channel's sizes as the `mechanism` reader has read them so far: the rows of a
/// `p_y_given_x` member (the mechanism's own, or its `inner` one), or of the current block
/// of a `p_y_given_sx` member, and the widest row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DenseSeen {
    /// Whether the channel is the mechanism's own (over the inputs X), not its `inner` one
    /// (over a merge's blocks).
    pub outer: bool,
    /// 0 for a channel P(Y|X); for `p_y_given_sx`, the blocks P(Y|X,s) begun so far, this
    /// one included.
    pub secrets: usize,
    /// The rows read so far.
    pub rows: usize,
    /// The longest row read so far (the outputs the channel declares).
    pub width: usize,
}

/// [`read_mechanism`], calling `price` after each row of a dense channel (`p_y_given_x`,
/// at the top of the member or in its `inner` object, and each block of `p_y_given_sx`)
/// with the sizes read so far: an error from `price` stops the reading there, before the
/// rest of the channel's numbers are read, so a document too costly to verify is refused
/// holding one row's numbers more than the budget allows.
///
/// # Errors
/// Those of [`read_mechanism`], and `price`'s.
pub fn read_mechanism_priced(r: &mut Reader<'_>, price: &mut dyn FnMut(DenseSeen) -> Result<()>) -> Result<Json> {
    let mut left = MAX_MECHANISM_NUMBERS;
    if r.peek_value()? != b'{' {
        return read_compact(r, &mut left);
    }
    read_object(r, MAX_MECHANISM_MEMBERS, &mut |r, key| match key {
        "p_y_given_x" if r.peek_value()? == b'[' => read_compact_array(r, &mut left, Some(&mut channel(true, price))),
        "p_y_given_sx" if r.peek_value()? == b'[' => {
            let mut blocks = |secrets: usize, rows: usize, width: usize| match secrets {
                0 => Ok(()),
                _ => price(DenseSeen { outer: true, secrets, rows, width }),
            };
            read_compact_array(r, &mut left, Some(&mut blocks))
        }
        "inner" if r.peek_value()? == b'{' => read_object(r, MAX_MECHANISM_MEMBERS, &mut |r, key| match key {
            "p_y_given_x" if r.peek_value()? == b'[' => {
                read_compact_array(r, &mut left, Some(&mut channel(false, price)))
            }
            _ => read_compact(r, &mut left),
        }),
        _ => read_compact(r, &mut left),
    })
}

/// What prices a channel's rows for [`read_compact_array`]: its rows where the array is two
/// deep (`p_y_given_sx`'s blocks, three deep, are priced by their own closure).
fn channel<'a>(
    outer: bool,
    price: &'a mut dyn FnMut(DenseSeen) -> Result<()>,
) -> impl FnMut(usize, usize, usize) -> Result<()> + 'a {
    move |secrets, rows, width| match secrets {
        0 => price(DenseSeen { outer, secrets, rows, width }),
        _ => Ok(()),
    }
}

fn too_many(found: usize, max: usize) -> crate::error::Error {
    crate::error::Error::TooManySymbols { field: "mechanism".into(), found, max }
}

fn read_compact(r: &mut Reader<'_>, left: &mut usize) -> Result<Json> {
    match r.peek_value()? {
        b'[' => read_compact_array(r, left, None),
        b'{' => read_object(r, MAX_MECHANISM_MEMBERS, &mut |r, _| read_compact(r, left)),
        _ => {
            let mut one = 1;
            let v = read_counted(r, &mut one, 1)?;
            if matches!(v, Json::Number(_)) {
                take_number(left)?;
            }
            Ok(v)
        }
    }
}

fn take_number(left: &mut usize) -> Result<()> {
    if *left == 0 {
        return Err(too_many(MAX_MECHANISM_NUMBERS + 1, MAX_MECHANISM_NUMBERS));
    }
    *left -= 1;
    Ok(())
}

/// How an array of the `mechanism` member is held, decided by its first element.
enum Shape {
    Empty,
    /// Arrays of numbers.
    Rows(Numbers),
    /// Anything else (objects, arrays of arrays of arrays), element by element.
    Tree(Vec<Json>),
}

/// An array of the `mechanism` member; `rows_read`, if given, is called after each row of
/// an array of arrays of numbers with 0, the rows and the widest row so far, and after
/// each row of an element of an array of such arrays (`p_y_given_sx`'s blocks) with the
/// elements begun so far, that element's rows and its widest row.
fn read_compact_array(
    r: &mut Reader<'_>,
    left: &mut usize,
    mut rows_read: Option<&mut dyn FnMut(usize, usize, usize) -> Result<()>>,
) -> Result<Json> {
    match r.peek_first() {
        Some(b'-' | b'0'..=b'9') => {
            let mut n = Numbers::default();
            let count = numbers_into(r, &mut n, left)?;
            if count > MAX_MECHANISM_ARRAY {
                return Err(too_many(count, MAX_MECHANISM_ARRAY));
            }
            return Ok(finish(n));
        }
        Some(b'[') => {}
        _ => return read_tree_array(r, left),
    }
    let mut shape = Shape::Empty;
    let mut count = 0usize;
    let mut widest = 0usize;
    r.array("a sequence", &mut |r| {
        count += 1;
        if count > MAX_MECHANISM_ARRAY {
            return r.skip();
        }
        if matches!(shape, Shape::Empty) {
            // An empty first row leaves the shape open: the rows are then read one by one,
            // each flat, at most an alphabet of them.
            shape = match r.peek_first() {
                Some(b'-' | b'0'..=b'9') => Shape::Rows(Numbers { ends: Some(Vec::new()), ..Numbers::default() }),
                _ => Shape::Tree(Vec::new()),
            };
        }
        match &mut shape {
            Shape::Rows(n) => {
                let width = numbers_into(r, n, left)?;
                if width > MAX_MECHANISM_ARRAY {
                    return Err(too_many(width, MAX_MECHANISM_ARRAY));
                }
                let end = n.values.len();
                n.ends.get_or_insert_with(Vec::new).push(end);
                widest = widest.max(width);
                match rows_read.as_mut() {
                    Some(price) => price(0, count, widest),
                    None => Ok(()),
                }
            }
            Shape::Tree(v) => {
                let block = count;
                v.push(match rows_read.as_mut() {
                    Some(price) if r.peek_value()? == b'[' => {
                        // Only the block's own rows: deeper arrays are no channel.
                        let mut rows = |deeper: usize, rows: usize, width: usize| match deeper {
                            0 => price(block, rows, width),
                            _ => Ok(()),
                        };
                        read_compact_array(r, left, Some(&mut rows))?
                    }
                    _ => read_compact(r, left)?,
                });
                Ok(())
            }
            Shape::Empty => Ok(()),
        }
    })?;
    if count > MAX_MECHANISM_ARRAY {
        return Err(too_many(count, MAX_MECHANISM_ARRAY));
    }
    Ok(match shape {
        Shape::Empty => Json::Array(Vec::new()),
        Shape::Rows(n) => finish(n),
        Shape::Tree(v) => Json::Array(v),
    })
}

/// An array whose first element is not a number nor an array: element by element.
fn read_tree_array(r: &mut Reader<'_>, left: &mut usize) -> Result<Json> {
    let mut out = Vec::new();
    r.bounded_array(MAX_MECHANISM_ARRAY, &|n| too_many(n, MAX_MECHANISM_ARRAY), &mut |r| {
        out.push(read_compact(r, left)?);
        Ok(())
    })?;
    Ok(Json::Array(out))
}

fn finish(mut n: Numbers) -> Json {
    n.values.shrink_to_fit();
    Json::Numbers(alloc::boxed::Box::new(n))
}

/// Reads an array of numbers into `n` (anything else is an error: the arrays of numbers
/// of a mechanism hold nothing else), keeping at most [`MAX_MECHANISM_ARRAY`] of them;
/// returns how many it had.
fn numbers_into(r: &mut Reader<'_>, n: &mut Numbers, left: &mut usize) -> Result<usize> {
    let mut count = 0usize;
    r.number_array(&mut |v, bytes_left| {
        count += 1;
        if count <= MAX_MECHANISM_ARRAY {
            take_number(left)?;
            n.push(v, bytes_left / 2 + 1);
        }
        Ok(())
    })?;
    Ok(count)
}
