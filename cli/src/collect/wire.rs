//! The body of `POST /v1/reports` and its checks: every report of a batch is checked
//! against the document version it names before any is stored, so a batch is stored
//! whole or not at all.
//!
//! The body is JSON objects only: `{"reports": [{"mechanism", "sha256", "output",
//! "report_id"}]}`. serde's derived structs also read an array of their fields in order
//! (`[[["grade", "…", "3", "…"]]]` was a batch), a form no client sends and no contract
//! names; [`Object`] refuses it (400 `json`), so that a batch has one spelling.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::catalogue::{Catalogue, Published, Unknown};
use super::failure::ApiError;
use super::store::{Report, Store};

/// Most reports in one batch.
pub const MAX_BATCH: usize = 10_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Batch {
    reports: Vec<Object<WireReport>>,
}

/// A `T` read from a JSON object only, never from an array of its fields.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Fields(PhantomData)).map(Object)
    }
}

/// One report as a client sends it (`Mechanism.report(y)` in the npm package).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireReport {
    mechanism: String,
    sha256: String,
    output: serde_json::Value,
    report_id: String,
}

/// serde_json's account of a body that is not a batch, without any text of the body: its
/// messages for a wrong value (`invalid type: string "65+", expected …`) or an unknown key
/// repeat what the client sent, which may be an output.
fn json_error(e: &serde_json::Error) -> String {
    let m = e.to_string();
    let m = m.rsplit_once(" at line ").map_or(m.as_str(), |(m, _)| m);
    let what = if m.starts_with("unknown field") {
        format!("an unknown field; expected {}", m.split_once(", expected ").map_or("none", |(_, x)| x))
    } else if let Some((_, expected)) = m.split_once(", expected ") {
        format!("a value of the wrong type or length; expected {expected}")
    } else if m.starts_with("invalid") {
        "an invalid value".to_string()
    } else {
        m.to_string()
    };
    format!("{what} (line {}, column {})", e.line(), e.column())
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses and checks a batch: `json` (400) for a body that is not a batch,
/// `empty_batch` (400), `batch_too_large` (413), `invalid_report` (400) for a malformed
/// id or hash, `unknown_mechanism` / `unknown_version` (404), `unknown_output` (400).
/// Errors name the report by its index, never its output.
pub fn parse_batch(body: &[u8], catalogue: &Catalogue, store: &mut dyn Store) -> Result<Vec<Report>, ApiError> {
    let Object(batch): Object<Batch> = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request("json", format!("not a batch of reports: {}", json_error(&e))))?;
    if batch.reports.is_empty() {
        return Err(ApiError::bad_request("empty_batch", "`reports` is empty".into()));
    }
    if batch.reports.len() > MAX_BATCH {
        return Err(ApiError::new(
            413,
            "batch_too_large",
            format!("{} reports in one batch; at most {MAX_BATCH}", batch.reports.len()),
        ));
    }
    let mut versions: HashMap<(String, String), Arc<Published>> = HashMap::new();
    let mut out = Vec::with_capacity(batch.reports.len());
    for (i, Object(r)) in batch.reports.into_iter().enumerate() {
        if !is_hex(&r.report_id, 32) {
            return Err(ApiError::bad_request(
                "invalid_report",
                format!("reports[{i}].report_id: expected 32 lower-case hex digits"),
            ));
        }
        if !is_hex(&r.sha256, 64) {
            return Err(ApiError::bad_request(
                "invalid_report",
                format!("reports[{i}].sha256: expected 64 lower-case hex digits"),
            ));
        }
        let key = (r.mechanism, r.sha256);
        let published = match versions.get(&key) {
            Some(p) => Arc::clone(p),
            None => {
                let found = catalogue.find(store, &key.0, &key.1).map_err(ApiError::storage)?;
                let p = found.map_err(|unknown| match unknown {
                    Unknown::Mechanism => ApiError::new(
                        404,
                        "unknown_mechanism",
                        format!(
                            "reports[{i}].mechanism: this collector has no mechanism {}",
                            privlift::error::Quoted(&key.0)
                        ),
                    ),
                    Unknown::Version => ApiError::new(
                        404,
                        "unknown_version",
                        format!(
                            "reports[{i}].sha256: no version of mechanism {} has this SHA-256",
                            privlift::error::Quoted(&key.0)
                        ),
                    ),
                })?;
                versions.insert(key, Arc::clone(&p));
                p
            }
        };
        let output = published.canonical_output(&r.output).map_err(|bad| {
            ApiError::bad_request(
                "unknown_output",
                format!("reports[{i}].output: {} {}", bad.0, privlift::error::Quoted(&published.id)),
            )
        })?;
        out.push(Report { report_id: r.report_id, version: published.version, output });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const DOCUMENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../www/mechanisms/age-krr.json");
    const LABELS: [&str; 6] = ["18-24", "25-34", "35-44", "45-54", "55-64", "65+"];

    /// Pieces a mutation splices in: JSON syntax, wrong types, huge and odd numbers, and
    /// strings that look like the fields' values.
    const PIECES: [&str; 16] = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "null",
        "true",
        "-1",
        "1e400",
        "18446744073709551616",
        "0.5",
        "\"\\ud800\"",
        "\"65+\"",
        "\"reports\"",
    ];

    /// Whatever bytes a client posts, the batch parser answers with a typed refusal (400,
    /// 404 or 413, never a panic) or a batch whose every report is checked; a refusal never
    /// repeats an output label. Seeded mutations of valid batches (flips, cuts, splices).
    /// A catalogue of [`DOCUMENT`] on a fresh SQLite file in a directory of its own (`tag`),
    /// and the document's SHA-256.
    fn fixture(tag: &str) -> (std::path::PathBuf, Box<dyn Store>, Catalogue, String) {
        let dir = std::env::temp_dir().join(format!("privlift-wire-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(DOCUMENT, dir.join("age-krr.json")).unwrap();
        let db = format!("sqlite:{}", dir.join("reports.db").display());
        let mut store = super::super::store::open(&db).unwrap();
        let catalogue = Catalogue::load(dir.to_str().unwrap(), store.as_mut()).unwrap();
        let sha = catalogue.current("age-krr-eps1").unwrap().sha256.clone();
        (dir, store, catalogue, sha)
    }

    /// A batch and its reports are JSON objects: the arrays of their fields that serde's
    /// derived structs also read are refused (400 `json`), at either level.
    #[test]
    fn a_batch_is_objects_not_arrays_of_fields() {
        let (dir, mut store, catalogue, sha) = fixture("arrays");
        let id = "0123456789abcdef0123456789abcdef";
        let object =
            format!(r#"{{"mechanism": "age-krr-eps1", "sha256": "{sha}", "output": "65+", "report_id": "{id}"}}"#);
        let array = format!(r#"["age-krr-eps1", "{sha}", "65+", "{id}"]"#);
        let accepted = parse_batch(format!(r#"{{"reports": [{object}]}}"#).as_bytes(), &catalogue, store.as_mut());
        assert_eq!(accepted.unwrap(), [Report { report_id: id.into(), version: 1, output: "65+".into() }]);
        for body in [format!("[[{array}]]"), format!(r#"{{"reports": [{array}]}}"#), format!("[[{object}]]")] {
            let e = parse_batch(body.as_bytes(), &catalogue, store.as_mut()).unwrap_err();
            assert_eq!((e.status, e.code), (400, "json"), "{body}: {}", e.message);
            assert!(e.message.contains("expected an object") && !e.message.contains("65+"), "{}", e.message);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn any_body_is_a_checked_batch_or_a_typed_refusal() {
        let (dir, mut store, catalogue, sha) = fixture("mutations");
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let (mut accepted, mut refused) = (0, 0);
        for round in 0..4000 {
            let n = rng.random_range(1..4);
            let reports: Vec<String> = (0..n)
                .map(|i| {
                    let output = match rng.random_range(0..3) {
                        0 => format!("\"{}\"", LABELS[rng.random_range(0..6)]),
                        1 => rng.random_range(0..6).to_string(),
                        _ => "\"secret-ish\"".to_string(),
                    };
                    format!(
                        r#"{{"mechanism": "age-krr-eps1", "sha256": "{sha}", "output": {output}, "report_id": "{:032x}"}}"#,
                        round * 8 + i
                    )
                })
                .collect();
            let mut body = format!(r#"{{"reports": [{}]}}"#, reports.join(", ")).into_bytes();
            for _ in 0..rng.random_range(0..4) {
                let at = rng.random_range(0..=body.len());
                match rng.random_range(0..4) {
                    0 if at < body.len() => body[at] ^= 1 << rng.random_range(0..8),
                    1 => body.truncate(at),
                    2 => {
                        let piece = PIECES[rng.random_range(0..PIECES.len())];
                        body.splice(at..at, piece.bytes());
                    }
                    _ if at < body.len() => {
                        body.remove(at);
                    }
                    _ => {}
                }
            }
            match parse_batch(&body, &catalogue, store.as_mut()) {
                Ok(batch) => {
                    accepted += 1;
                    assert!(!batch.is_empty() && batch.len() <= MAX_BATCH);
                    for r in &batch {
                        assert!(is_hex(&r.report_id, 32), "{}", String::from_utf8_lossy(&body));
                        assert!(LABELS.contains(&r.output.as_str()), "stored {:?}", r.output);
                    }
                }
                Err(e) => {
                    refused += 1;
                    assert!([400, 404, 413].contains(&e.status), "{} {}", e.status, e.message);
                    assert!(
                        !e.message.contains("secret-ish") && !LABELS.iter().any(|l| e.message.contains(l)),
                        "{}",
                        e.message
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
        // Both sides of the parser were exercised.
        assert!(accepted > 400 && refused > 400, "accepted {accepted}, refused {refused}");
    }
}
