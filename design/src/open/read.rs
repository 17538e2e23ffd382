//! An open-domain document's parameters as the curator's estimators read them
//! ([`Params::from_document`]): the `mechanism` members and `domain.max_bytes`, each
//! checked against its range in the spec. (The clients' verification — claims, policy,
//! prior — is the core's; this reads only what the estimators need.)

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::hash::{NAME, VERSION};
use privlift::param::SUM_TOLERANCE;
use privlift::{Error, Result};
use serde_json::Value;

use super::{Params, MAX_BITS, MAX_BYTES, MAX_G, MAX_SKETCH};

/// The kinds' names in a document's `mechanism.kind`.
pub const OPEN_KINDS: [&str; 4] = ["olh", "hadamard", "hcms", "heavy_hitters"];

/// Whether a parsed document is of an open-domain kind.
pub fn is_open(doc: &Value) -> bool {
    doc.pointer("/mechanism/kind").and_then(Value::as_str).is_some_and(|k| OPEN_KINDS.contains(&k))
}

fn invalid(name: &str, reason: String) -> Error {
    Error::InvalidArgument { name: name.into(), reason }
}

fn integer(m: &Value, name: &str, lo: u64, hi: u64) -> Result<u64> {
    m.get(name)
        .and_then(Value::as_u64)
        .filter(|v| (lo..=hi).contains(v))
        .ok_or_else(|| invalid(name, alloc::format!("must be an integer from {lo} to {hi}")))
}

impl Params {
    /// The parameters of an open-domain document, and its `domain.max_bytes`.
    ///
    /// # Errors
    /// `unsupported_mechanism` for another kind or hash; `invalid_argument` naming the
    /// member out of its range.
    pub fn from_document(doc: &Value) -> Result<(Params, usize)> {
        let m = doc.get("mechanism").ok_or_else(|| invalid("mechanism", "missing".into()))?;
        let kind = m.get("kind").and_then(Value::as_str).unwrap_or_default();
        if !OPEN_KINDS.contains(&kind) {
            return Err(Error::UnsupportedMechanism { kind: kind.into() });
        }
        let hash = m.get("hash").and_then(Value::as_str);
        if hash != Some(NAME) || m.get("hash_version").and_then(Value::as_u64) != Some(VERSION) {
            return Err(Error::UnsupportedMechanism { kind: alloc::format!("{kind} with another hash") });
        }
        let max_bytes = doc
            .pointer("/domain/max_bytes")
            .and_then(Value::as_u64)
            .filter(|b| (1..=MAX_BYTES as u64).contains(b))
            .ok_or_else(|| invalid("max_bytes", alloc::format!("must be an integer from 1 to {MAX_BYTES}")))?
            as usize;
        let epsilon =
            m.get("epsilon").and_then(Value::as_f64).ok_or_else(|| invalid("epsilon", "must be a number".into()))?;
        privlift::param::Epsilon::new("epsilon", epsilon)?;
        let g = || integer(m, "g", 2, u64::from(MAX_G)).map(|g| g as u32);
        let params = match kind {
            "olh" => Params::Olh { epsilon, g: g()? },
            "hadamard" => Params::Hadamard {
                epsilon,
                bits: integer(m, "bits", 1, u64::from(MAX_BITS))? as u32,
                hash_seed: integer(m, "hash_seed", 0, u64::from(u32::MAX))? as u32,
            },
            "hcms" => {
                let k = integer(m, "k", 1, u64::from(MAX_SKETCH))? as u32;
                let cols = integer(m, "m", 2, u64::from(MAX_SKETCH))? as u32;
                if !cols.is_power_of_two() {
                    return Err(invalid("m", "must be a power of two".into()));
                }
                Params::Hcms { epsilon, k, m: cols }
            }
            _ => {
                let numbers = |name: &str| -> Result<Vec<f64>> {
                    m.get(name)
                        .and_then(Value::as_array)
                        .and_then(|a| a.iter().map(Value::as_f64).collect())
                        .ok_or_else(|| invalid(name, "must be an array of numbers".into()))
                };
                let bits = numbers("prefix_bits")?;
                let split = numbers("split")?;
                let whole = (8 * max_bytes) as f64;
                let increasing = bits.windows(2).all(|w| w[0] < w[1]);
                let integers = bits.iter().all(|b| b.fract() == 0.0 && *b >= 1.0 && *b <= whole);
                if bits.is_empty() || !increasing || !integers || bits.last() != Some(&whole) {
                    return Err(invalid("prefix_bits", "must increase, in whole bits, to 8 · max_bytes".into()));
                }
                let sum: f64 = split.iter().sum();
                if split.len() != bits.len()
                    || split.iter().any(|w| w.is_nan() || *w < 0.0)
                    || (sum - 1.0).abs() > SUM_TOLERANCE
                {
                    return Err(invalid("split", "must be one probability per round, adding up to 1".into()));
                }
                Params::HeavyHitters {
                    epsilon,
                    g: g()?,
                    prefix_bits: bits.iter().map(|&b| b as u32).collect(),
                    split,
                    max_bytes,
                }
            }
        };
        Ok((params, max_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open::designer::{design_open, OpenRequest};

    #[test]
    fn every_designed_document_reads_back() {
        for method in ["olh", "hadamard", "hcms", "heavy-hitters"] {
            let req = OpenRequest { method: method.into(), epsilon: 2.0, max_bytes: Some(4), prior: None, id: None };
            let doc: Value = serde_json::from_str(&design_open(&req).unwrap()).unwrap();
            assert!(is_open(&doc));
            let (params, max_bytes) = Params::from_document(&doc).unwrap();
            assert_eq!((params.kind(), max_bytes), (doc["mechanism"]["kind"].as_str().unwrap(), 4));
            assert_eq!(params.epsilon(), 2.0);
        }
    }

    #[test]
    fn out_of_range_members_are_typed_refusals() {
        let req = OpenRequest { method: "hcms".into(), epsilon: 1.0, max_bytes: None, prior: None, id: None };
        let doc: Value = serde_json::from_str(&design_open(&req).unwrap()).unwrap();
        for (pointer, value, code) in [
            ("/mechanism/m", Value::from(1000), "invalid_argument"),
            ("/mechanism/k", Value::from(0), "invalid_argument"),
            ("/mechanism/hash", Value::from("md5"), "unsupported_mechanism"),
            ("/mechanism/hash_version", Value::from(2), "unsupported_mechanism"),
            ("/domain/max_bytes", Value::from(5000), "invalid_argument"),
            ("/mechanism/epsilon", Value::from(-1), "invalid_argument"),
        ] {
            let mut bad = doc.clone();
            *bad.pointer_mut(pointer).unwrap() = value;
            assert_eq!(Params::from_document(&bad).unwrap_err().code(), code, "{pointer}");
        }
    }
}
