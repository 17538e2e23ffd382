//! Golden vectors, natively: every `tests/vectors/*.json` (see its README) is replayed
//! through the core's public API (parse, verify, seeded outputs, audits, receipts) and must
//! equal the file bit for bit: floats by `to_bits`, the `serde_json` text of every audit and
//! receipt byte for byte. The same files are replayed in wasm32 (`wasm/tests/vectors.rs`:
//! Node, headless Chromium and Firefox) and through the npm package
//! (`tests/js/vectors.test.mjs`).
//!
//! `PRIVLIFT_BLESS_VECTORS=1 cargo test --test vectors` rewrites the files from their inputs
//! (`name`, `description`, `document`, `policy`, `seed`, `inputs`, and the outputs their
//! receipts are for) instead of checking them. A changed vector is a breaking change.
#![cfg(not(target_arch = "wasm32"))]

#[path = "vectors/replay.rs"]
mod replay;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

fn vector_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/vectors exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn blessing() -> bool {
    std::env::var("PRIVLIFT_BLESS_VECTORS").is_ok_and(|v| v == "1")
}

/// The file text of a vector: pretty JSON, keys in sorted order, one final newline.
fn file_text(v: &Value) -> String {
    let mut text = serde_json::to_string_pretty(v).expect("a JSON value serialises");
    text.push('\n');
    text
}

#[test]
fn every_vector_replays_bit_for_bit() {
    let files = vector_files();
    assert!(files.len() >= 8, "expected at least 8 vectors in tests/vectors, found {}", files.len());
    let bless = blessing();
    let mut failures = Vec::new();
    for path in &files {
        let name = name_of(path);
        let stored = read(path);
        let replayed = match replay::replay(&stored) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if bless {
            let text = file_text(&replayed);
            std::fs::write(path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            eprintln!("blessed {name} ({} bytes)", text.len());
        } else if let Err(e) = replay::same(&replayed, &stored, "$") {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed (a changed vector is a breaking change; \
         PRIVLIFT_BLESS_VECTORS=1 rewrites them):\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// A vector holds real data: its `name` is its file name, it perturbs something, it has
/// receipts, and its `json` texts and exact `value`s say the same thing.
#[test]
fn vectors_are_well_formed_and_self_consistent() {
    if blessing() {
        return; // the files are being rewritten
    }
    for path in vector_files() {
        let name = name_of(path.as_path());
        let v = read(&path);
        assert_eq!(v["name"].as_str().map(|n| format!("{n}.json")).as_deref(), Some(name.as_str()), "{name}: name");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        for key in ["document", "seed", "inputs", "outputs", "audit", "receipts"] {
            assert!(keys.contains(&key), "{name}: no `{key}`");
        }
        for key in &keys {
            assert!(
                replay::INPUT_FIELDS.contains(key) || ["outputs", "audit", "receipts"].contains(key),
                "{name}: unknown field `{key}`"
            );
        }
        let inputs = v["inputs"].as_array().unwrap();
        assert!(!inputs.is_empty(), "{name}: no inputs");
        assert_eq!(v["outputs"].as_array().map(Vec::len), Some(inputs.len()), "{name}: one output per input");
        assert!(!v["receipts"].as_array().unwrap().is_empty(), "{name}: no receipts");
        assert!(v["seed"].as_u64().is_some_and(|s| s < replay::MAX_SEED), "{name}: seed");
        let mut pairs = 0;
        check_pairs(&v, &name, &mut pairs);
        assert!(pairs >= 4, "{name}: only {pairs} json/value pairs");
    }
}

/// Every `{"json", "value"}` pair: the text parses to the value with its non-finite
/// markers read as `null` (what serde_json writes for them).
fn check_pairs(v: &Value, name: &str, pairs: &mut usize) {
    match v {
        Value::Object(m) => {
            if let (Some(Value::String(json)), Some(value)) = (m.get("json"), m.get("value")) {
                let parsed: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{name}: json: {e}"));
                replay::same(&parsed, &nulled(value), name).unwrap_or_else(|e| panic!("json vs value: {e}"));
                *pairs += 1;
            }
            m.values().for_each(|v| check_pairs(v, name, pairs));
        }
        Value::Array(a) => a.iter().for_each(|v| check_pairs(v, name, pairs)),
        _ => {}
    }
}

/// `v` with every `{"non_finite": …}` marker replaced by `null`: what `serde_json` writes
/// for it (used to check that a vector's `json` and `value` agree).
fn nulled(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("non_finite") => Value::Null,
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), nulled(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(nulled).collect()),
        other => other.clone(),
    }
}

/// The wasm32 replay embeds the files one by one (`include_str!`, no file system there):
/// it must name every vector, so that no vector is replayed natively only.
#[test]
fn the_wasm_replay_embeds_every_vector() {
    if blessing() {
        return;
    }
    let wasm = Path::new(env!("CARGO_MANIFEST_DIR")).join("wasm/tests/vectors.rs");
    let source = std::fs::read_to_string(&wasm).expect("wasm/tests/vectors.rs exists");
    for path in vector_files() {
        let include = format!("include_str!(\"../../tests/vectors/{}\")", name_of(&path));
        assert!(source.contains(&include), "wasm/tests/vectors.rs does not embed {}", name_of(&path));
    }
}

/// The comparison itself can fail: a changed last bit, a changed output, a `-0.0`, an
/// extra key and a changed receipt text are all differences.
#[test]
fn the_comparison_sees_one_bit() {
    if blessing() {
        return;
    }
    let stored = vector_files()
        .iter()
        .map(|p| read(p))
        .find(|v| v["audit"].get("leakage").is_some())
        .expect("a discrete vector");
    assert!(replay::same(&stored, &stored, "$").is_ok());
    let mut v = stored.clone();
    let lip = &mut v["audit"]["leakage"]["value"]["lip"];
    let x = lip.as_f64().expect("a finite lip");
    *lip = replay::exact_f64(f64::from_bits(x.to_bits() + 1));
    assert!(replay::same(&v, &stored, "$").is_err());

    let mut v = stored.clone();
    let first = &mut v["outputs"][0];
    *first = Value::from(first.as_u64().unwrap_or(0) + 1);
    assert!(replay::same(&v, &stored, "$").is_err());

    assert!(replay::same(&replay::exact_f64(-0.0), &replay::exact_f64(0.0), "$").is_err());
    assert!(replay::same(&Value::from(1u64), &replay::exact_f64(1.0), "$").is_err());
    assert!(replay::same(&replay::exact_f64(f64::INFINITY), &replay::exact_f64(f64::NAN), "$").is_err());

    let mut v = stored.clone();
    v["audit"]["extra"] = Value::Null;
    assert!(replay::same(&v, &stored, "$").is_err());

    let mut v = stored.clone();
    let json = &mut v["receipts"][0]["json"];
    *json = Value::String(json.as_str().unwrap().replacen(',', ", ", 1));
    assert!(replay::same(&v, &stored, "$").is_err());
}

/// `exact` keeps what serde_json's text loses: infinities and NaN.
#[test]
fn exact_values_keep_non_finite_floats() {
    let v = replay::exact(&(f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -0.0f64, Some(1.5f64), None::<f64>)).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"non_finite":"Infinity"},{"non_finite":"-Infinity"},{"non_finite":"NaN"},-0.0,1.5,null]"#
    );
    let back: Vec<f64> = v.as_array().unwrap()[..5].iter().map(|x| replay::read_f64(x).unwrap()).collect();
    assert_eq!(back[0], f64::INFINITY);
    assert!(back[2].is_nan());
    assert_eq!(back[3].to_bits(), (-0.0f64).to_bits());
}

/// Blessing is idempotent: replaying a replayed vector gives the same file text.
#[test]
fn replaying_twice_gives_the_same_text() {
    if blessing() {
        return;
    }
    for path in vector_files() {
        let once = replay::replay(&read(&path)).unwrap_or_else(|e| panic!("{}: {e}", name_of(&path)));
        let reread: Value = serde_json::from_str(&file_text(&once)).unwrap();
        let twice = replay::replay(&reread).unwrap();
        assert_eq!(file_text(&twice), file_text(&once), "{}", name_of(&path));
    }
}
