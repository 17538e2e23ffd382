//! The one replayer of the golden vectors (`tests/vectors/*.json`, see the README there),
//! included with `#[path]` by the native test `tests/vectors.rs` and by the wasm-bindgen
//! test `wasm/tests/vectors.rs`, so that both targets compute a vector by the same code.
//!
//! [`replay`] takes a vector's inputs (`document`, `policy`, `seed`, `inputs`, the outputs
//! whose receipts it holds) and computes everything else through the core's public API:
//! the seeded outputs, the audits and the receipts. It does no I/O, so it runs unchanged
//! on wasm32. [`same`] compares two vectors bit for bit.

use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};

use privlift::open::{OpenDocument, OpenReport};
use privlift::rng::DeterministicRngForTesting;
use privlift::{parse_any, AnyDocument, ContinuousDocument, ContinuousPolicy, Document, Policy};

/// The α-order the JS API's `Document.audit()` uses when given none (the core's default).
pub const JS_DEFAULT_ALPHA_ORDER: f64 = 2.0;

/// Receipts a vector gets when it names none: of the first distinct outputs (discrete), of
/// the first bit vectors (unary), of the first outputs (continuous, the first with its `x`).
const DEFAULT_RECEIPTS: usize = 3;
const DEFAULT_CONTINUOUS_RECEIPTS: usize = 2;

/// The fields a vector is made from; [`replay`] computes every other one.
pub const INPUT_FIELDS: [&str; 6] = ["name", "description", "document", "policy", "seed", "inputs"];

/// Seeds stay below 2^53 so that JavaScript reads them as exact numbers.
pub const MAX_SEED: u64 = 1 << 53;

/// The whole vector computed from `vector`'s inputs (its [`INPUT_FIELDS`] copied, its
/// receipts' requests kept): what the file must hold, bit for bit.
///
/// # Errors
/// A message naming what failed: a missing or malformed input, or a core error.
pub fn replay(vector: &Value) -> Result<Value, String> {
    let mut out = Map::new();
    for key in INPUT_FIELDS {
        if let Some(v) = vector.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let seed = vector.get("seed").and_then(Value::as_u64).ok_or("`seed` must be an integer ≥ 0")?;
    if seed >= MAX_SEED {
        return Err(format!("`seed` = {seed} is not below 2^53 (JavaScript would round it)"));
    }
    let inputs = vector.get("inputs").and_then(Value::as_array).ok_or("`inputs` must be an array")?;
    let document = vector.get("document").ok_or("`document` is missing")?;
    let text = serde_json::to_string(document).map_err(|e| e.to_string())?;
    let policy = match vector.get("policy") {
        None | Some(Value::Null) => None,
        Some(p) => Some(serde_json::to_string(p).map_err(|e| e.to_string())?),
    };
    let requests = vector.get("receipts").and_then(Value::as_array);
    let (outputs, audit, receipts) = match parse_any(&text).map_err(|e| format!("document: {e}"))? {
        AnyDocument::Discrete(doc) => discrete(&doc, policy.as_deref(), seed, inputs, requests)?,
        AnyDocument::Continuous(doc) => continuous(&doc, policy.as_deref(), seed, inputs, requests)?,
        AnyDocument::Open(doc) => open(&doc, policy.as_deref(), seed, inputs, requests)?,
    };
    out.insert("outputs".into(), Value::Array(outputs));
    out.insert("audit".into(), Value::Object(audit));
    out.insert("receipts".into(), Value::Array(receipts));
    Ok(Value::Object(out))
}

type Replayed = (Vec<Value>, Map<String, Value>, Vec<Value>);

fn discrete(
    doc: &Document,
    policy: Option<&str>,
    seed: u64,
    inputs: &[Value],
    requests: Option<&Vec<Value>>,
) -> Result<Replayed, String> {
    let policy = policy.map_or(Ok(Policy::default()), Policy::from_json).map_err(|e| format!("policy: {e}"))?;
    let mech = doc.verify(&policy).map_err(|e| format!("verify: {e}"))?;
    let xs = inputs
        .iter()
        .map(|x| x.as_u64().and_then(|x| u32::try_from(x).ok()))
        .collect::<Option<Vec<u32>>>()
        .ok_or("discrete `inputs` are input indices")?;
    let unary = doc.mechanism().tag() == "unary";

    let mut receipts = Vec::new();
    let outputs: Vec<Value> = if unary {
        // perturbBitsSeededForTesting(x, seed): one generator per call, so input i uses seed + i.
        let mut outputs = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            let mut rng = DeterministicRngForTesting::seed_from_u64(seed + i as u64);
            let bits = mech.perturb_bits(x as usize, &mut rng).map_err(|e| format!("perturb_bits: {e}"))?;
            outputs.push(Value::Array(bits.into_iter().map(|b| Value::from(u8::from(b))).collect()));
        }
        let asked: Vec<Value> = match requests {
            Some(r) => r
                .iter()
                .map(|r| r.get("bits").cloned().ok_or("a unary receipt names its `bits`"))
                .collect::<Result<_, _>>()?,
            None => outputs.iter().take(DEFAULT_RECEIPTS).cloned().collect(),
        };
        for bits in asked {
            let b = bits
                .as_array()
                .and_then(|b| {
                    b.iter().map(|v| v.as_u64().filter(|&v| v <= 1).map(|v| v == 1)).collect::<Option<Vec<bool>>>()
                })
                .ok_or("`bits` are 0s and 1s")?;
            let r = mech.receipt_bits(&b).map_err(|e| format!("receipt_bits: {e}"))?;
            receipts.push(with_request("bits", bits, &r)?);
        }
        outputs
    } else {
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        let ys = mech.perturb_many(&xs, &mut rng).map_err(|e| format!("perturb_many: {e}"))?;
        let asked: Vec<u64> = match requests {
            Some(r) => r
                .iter()
                .map(|r| r.get("output").and_then(Value::as_u64))
                .collect::<Option<_>>()
                .ok_or("a receipt names its `output` index")?,
            None => {
                let mut distinct: Vec<u64> = Vec::new();
                for &y in &ys {
                    if !distinct.contains(&u64::from(y)) && distinct.len() < DEFAULT_RECEIPTS {
                        distinct.push(y.into());
                    }
                }
                distinct
            }
        };
        for y in asked {
            let r = mech.receipt(y as usize).map_err(|e| format!("receipt({y}): {e}"))?;
            receipts.push(with_request("output", Value::from(y), &r)?);
        }
        ys.into_iter().map(Value::from).collect()
    };

    let mut audit = Map::new();
    let declared = doc.audit(JS_DEFAULT_ALPHA_ORDER).map_err(|e| format!("audit: {e}"))?;
    audit.insert("document_audit".into(), text_and_value(&declared)?);
    audit.insert("leakage".into(), text_and_value(mech.leakage())?);
    audit.insert("leakage_x".into(), text_and_value(mech.leakage_x())?);
    audit.insert("verification".into(), text_and_value(mech.verification())?);
    audit.insert("lip_under_any_prior".into(), exact_f64(mech.lip_x_under_any_prior()));
    let (lo, hi) = mech.receipt_bounds();
    audit.insert("receipt_bounds".into(), Value::Array(vec![exact_f64(lo), exact_f64(hi)]));
    Ok((outputs, audit, receipts))
}

fn continuous(
    doc: &ContinuousDocument,
    policy: Option<&str>,
    seed: u64,
    inputs: &[Value],
    requests: Option<&Vec<Value>>,
) -> Result<Replayed, String> {
    let policy = policy
        .map_or(Ok(ContinuousPolicy::default()), ContinuousPolicy::from_json)
        .map_err(|e| format!("policy: {e}"))?;
    let mech = doc.verify(&policy).map_err(|e| format!("verify: {e}"))?;
    let xs = inputs.iter().map(read_f64).collect::<Option<Vec<f64>>>().ok_or("continuous `inputs` are numbers")?;
    // perturbManySeededForTesting(xs, seed): one generator for the whole list.
    let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
    let ys = xs
        .iter()
        .map(|&x| mech.perturb(x, &mut rng))
        .collect::<Result<Vec<f64>, _>>()
        .map_err(|e| format!("perturb: {e}"))?;

    let asked: Vec<(f64, Option<f64>)> = match requests {
        Some(r) => r
            .iter()
            .map(|r| {
                Some((
                    read_f64(r.get("output")?)?,
                    match r.get("x") {
                        None => None,
                        Some(x) => Some(read_f64(x)?),
                    },
                ))
            })
            .collect::<Option<_>>()
            .ok_or("a continuous receipt names its `output` (and optionally `x`) as numbers")?,
        None => ys
            .iter()
            .zip(&xs)
            .take(DEFAULT_CONTINUOUS_RECEIPTS)
            .enumerate()
            .map(|(i, (&y, &x))| (y, (i == 0).then_some(x)))
            .collect(),
    };
    let mut receipts = Vec::new();
    for (y, x) in asked {
        let r = mech.receipt(y, x).map_err(|e| format!("receipt({y}, {x:?}): {e}"))?;
        let mut entry = text_and_value(&r)?;
        let Value::Object(m) = &mut entry else { unreachable!() };
        m.insert("output".into(), exact_f64(y));
        if let Some(x) = x {
            m.insert("x".into(), exact_f64(x));
        }
        receipts.push(entry);
    }

    let mut audit = Map::new();
    audit.insert("document_audit".into(), text_and_value(&doc.audit().map_err(|e| format!("audit: {e}"))?)?);
    audit.insert("audit".into(), text_and_value(mech.audit())?);
    audit.insert("verification".into(), text_and_value(mech.verification())?);
    audit.insert("lattice_prior".into(), Value::Array(doc.lattice_prior().iter().map(|&p| exact_f64(p)).collect()));
    Ok((ys.into_iter().map(exact_f64).collect(), audit, receipts))
}

/// An open-domain document: `inputs` are strings, the outputs their reports (one generator
/// for the whole list), the receipts those of the reports named by their canonical text
/// (`receipts: [{"report": "s:y"}, …]`; absent: of the first outputs).
fn open(
    doc: &OpenDocument,
    policy: Option<&str>,
    seed: u64,
    inputs: &[Value],
    requests: Option<&Vec<Value>>,
) -> Result<Replayed, String> {
    let policy = policy.map_or(Ok(Policy::default()), Policy::from_json).map_err(|e| format!("policy: {e}"))?;
    let mech = doc.verify(&policy).map_err(|e| format!("verify: {e}"))?;
    let xs = inputs.iter().map(Value::as_str).collect::<Option<Vec<&str>>>().ok_or("open `inputs` are strings")?;
    let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
    let reports = xs
        .iter()
        .map(|x| mech.perturb(x, &mut rng))
        .collect::<Result<Vec<OpenReport>, _>>()
        .map_err(|e| format!("perturb: {e}"))?;
    let asked: Vec<OpenReport> = match requests {
        Some(r) => r
            .iter()
            .map(|r| {
                let text = r.get("report").and_then(Value::as_str).ok_or("an open receipt names its `report`")?;
                OpenReport::parse(doc.mechanism(), text).map_err(|e| format!("report {text}: {e}"))
            })
            .collect::<Result<_, String>>()?,
        None => reports.iter().take(DEFAULT_RECEIPTS).copied().collect(),
    };
    let mut receipts = Vec::new();
    for report in asked {
        let r = mech.receipt(&report).map_err(|e| format!("receipt({}): {e}", report.canonical()))?;
        receipts.push(with_request("report", Value::String(report.canonical()), &r)?);
    }
    let mut audit = Map::new();
    audit.insert("audit".into(), text_and_value(&mech.audit())?);
    audit.insert("verification".into(), text_and_value(mech.verification())?);
    Ok((reports.iter().map(|r| Value::String(r.canonical())).collect(), audit, receipts))
}

/// `{request: value, "json": …, "value": …}` for a receipt.
fn with_request<T: Serialize>(request: &str, value: Value, receipt: &T) -> Result<Value, String> {
    let mut entry = text_and_value(receipt)?;
    let Value::Object(m) = &mut entry else { unreachable!() };
    m.insert(request.into(), value);
    Ok(entry)
}

/// `{"json": serde_json::to_string(v), "value": exact(v)}`: the serialisation the CLI and
/// `serde_json` users see (non-finite numbers become `null` there), and the exact value.
pub fn text_and_value<T: Serialize>(v: &T) -> Result<Value, String> {
    let json = serde_json::to_string(v).map_err(|e| e.to_string())?;
    let mut m = Map::new();
    m.insert("json".into(), Value::String(json));
    m.insert("value".into(), exact(v)?);
    Ok(Value::Object(m))
}

/// A finite `f64` as a JSON number (serde_json writes the shortest text that parses back
/// to the same bits), a non-finite one as `{"non_finite": "NaN" | "Infinity" | "-Infinity"}`.
pub fn exact_f64(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None => {
            let name = if x.is_nan() {
                "NaN"
            } else if x > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            };
            let mut m = Map::new();
            m.insert("non_finite".into(), Value::String(name.into()));
            Value::Object(m)
        }
    }
}

/// The `f64` of a number or of a `{"non_finite": …}` marker.
pub fn read_f64(v: &Value) -> Option<f64> {
    if let Some(x) = v.as_f64() {
        return Some(x);
    }
    match v.get("non_finite")?.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Compares two JSON values bit for bit: floats by `to_bits` (so `-0.0 ≠ 0.0`), integers
/// exactly, a float never equal to an integer, strings byte for byte, objects key by key.
///
/// # Errors
/// The path of the first difference and both values.
pub fn same(actual: &Value, expected: &Value, path: &str) -> Result<(), String> {
    let differ = || Err(format!("{path}: {} != {} (expected)", describe(actual), describe(expected)));
    match (actual, expected) {
        (Value::Number(a), Value::Number(b)) => {
            let equal = match (a.as_u64(), b.as_u64(), a.as_i64(), b.as_i64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ if a.is_f64() && b.is_f64() => a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits),
                _ => false,
            };
            if equal {
                Ok(())
            } else {
                differ()
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{path}: {} elements != {} (expected)", a.len(), b.len()));
            }
            a.iter().zip(b).enumerate().try_for_each(|(i, (a, b))| same(a, b, &format!("{path}[{i}]")))
        }
        (Value::Object(a), Value::Object(b)) => {
            if let Some(k) = a.keys().find(|k| !b.contains_key(*k)) {
                return Err(format!("{path}: unexpected key `{k}`"));
            }
            if let Some(k) = b.keys().find(|k| !a.contains_key(*k)) {
                return Err(format!("{path}: missing key `{k}`"));
            }
            b.iter().try_for_each(|(k, b)| same(&a[k], b, &format!("{path}.{k}")))
        }
        (a, b) if a == b => Ok(()),
        _ => differ(),
    }
}

fn describe(v: &Value) -> String {
    let mut s = match v {
        Value::Number(n) if n.is_f64() => format!("{n} (bits {:#018x})", n.as_f64().unwrap_or(f64::NAN).to_bits()),
        other => other.to_string(),
    };
    if s.len() > 200 {
        let cut = (0..=200).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// The exact value of `v`: serde's data model mapped to JSON as `serde_json` maps it,
/// except that a non-finite float is a `{"non_finite": …}` marker instead of `null`.
pub fn exact<T: Serialize + ?Sized>(v: &T) -> Result<Value, String> {
    v.serialize(Exact).map_err(|e| e.0)
}

#[derive(Debug)]
struct ExactError(String);

impl core::fmt::Display for ExactError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl ser::StdError for ExactError {}

impl ser::Error for ExactError {
    fn custom<T: core::fmt::Display>(msg: T) -> Self {
        ExactError(msg.to_string())
    }
}

type ExactResult = Result<Value, ExactError>;

struct Exact;

fn tagged(variant: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(variant.into(), v);
    Value::Object(m)
}

impl ser::Serializer for Exact {
    type Ok = Value;
    type Error = ExactError;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Object;
    type SerializeStruct = Object;
    type SerializeStructVariant = Object;

    fn serialize_bool(self, v: bool) -> ExactResult {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> ExactResult {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> ExactResult {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> ExactResult {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> ExactResult {
        Ok(Value::from(v))
    }
    fn serialize_u8(self, v: u8) -> ExactResult {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> ExactResult {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> ExactResult {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> ExactResult {
        Ok(Value::from(v))
    }
    fn serialize_f32(self, v: f32) -> ExactResult {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> ExactResult {
        Ok(exact_f64(v))
    }
    fn serialize_char(self, v: char) -> ExactResult {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> ExactResult {
        Ok(Value::String(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> ExactResult {
        Ok(Value::Array(v.iter().map(|&b| Value::from(b)).collect()))
    }
    fn serialize_none(self) -> ExactResult {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> ExactResult {
        v.serialize(self)
    }
    fn serialize_unit(self) -> ExactResult {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> ExactResult {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> ExactResult {
        Ok(Value::String(variant.into()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> ExactResult {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> ExactResult {
        Ok(tagged(variant, v.serialize(Exact)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, ExactError> {
        Ok(Seq { variant: None, items: Vec::with_capacity(len.unwrap_or(0)) })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, ExactError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, ExactError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, ExactError> {
        Ok(Seq { variant: Some(variant), items: Vec::with_capacity(len) })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Object, ExactError> {
        Ok(Object { variant: None, map: Map::new(), key: None })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object, ExactError> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Object, ExactError> {
        Ok(Object { variant: Some(variant), map: Map::new(), key: None })
    }
}

struct Seq {
    variant: Option<&'static str>,
    items: Vec<Value>,
}

impl Seq {
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ExactError> {
        self.items.push(v.serialize(Exact)?);
        Ok(())
    }
    fn finish(self) -> ExactResult {
        let array = Value::Array(self.items);
        Ok(match self.variant {
            Some(variant) => tagged(variant, array),
            None => array,
        })
    }
}

/// The serde sequence traits, each adding one element by its method (`serialize_element`
/// or `serialize_field`): all four are a [`Seq`].
macro_rules! seq_traits {
    ($($name:ident :: $method:ident),*) => {$(
        impl ser::$name for Seq {
            type Ok = Value;
            type Error = ExactError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ExactError> {
                self.push(v)
            }
            fn end(self) -> ExactResult {
                self.finish()
            }
        }
    )*};
}

seq_traits!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

struct Object {
    variant: Option<&'static str>,
    map: Map<String, Value>,
    key: Option<String>,
}

impl Object {
    fn insert<T: Serialize + ?Sized>(&mut self, key: String, v: &T) -> Result<(), ExactError> {
        self.map.insert(key, v.serialize(Exact)?);
        Ok(())
    }
    fn finish(self) -> ExactResult {
        let object = Value::Object(self.map);
        Ok(match self.variant {
            Some(variant) => tagged(variant, object),
            None => object,
        })
    }
}

impl ser::SerializeMap for Object {
    type Ok = Value;
    type Error = ExactError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ExactError> {
        // Keys as serde_json writes them: strings, and numbers in decimal.
        self.key = Some(match key.serialize(Exact)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            other => return Err(ExactError(format!("a map key must be a string or a number, got {other}"))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ExactError> {
        let key = self.key.take().ok_or_else(|| ExactError("a map value without its key".into()))?;
        self.insert(key, v)
    }
    fn end(self) -> ExactResult {
        self.finish()
    }
}

/// The serde struct traits, each adding one named field: both are an [`Object`].
macro_rules! struct_traits {
    ($($name:ident),*) => {$(
        impl ser::$name for Object {
            type Ok = Value;
            type Error = ExactError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), ExactError> {
                self.insert(key.into(), v)
            }
            fn end(self) -> ExactResult {
                self.finish()
            }
        }
    )*};
}

struct_traits!(SerializeStruct, SerializeStructVariant);
