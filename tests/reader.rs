//! `DocumentJson::read` (the serde-free reader the client uses) against serde_json with the
//! derived `Deserialize`, on every document of the tests and on seeded mutations of them:
//! the same documents are read, to the same values (floats bit for bit, as serde_json prints
//! them), and the same ones are refused. The one difference the reader documents: serde_json
//! also reads a struct from an array of its fields; the reader refuses it.

use privlift::document::{ContinuousDocumentJson, DocumentJson};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// Every JSON document of the test corpora (mechanism documents and near misses).
fn corpus() -> Vec<(String, Vec<u8>)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut out = Vec::new();
    for dir in ["tests/adversarial", "fuzz/seeds/document", "www/mechanisms"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    // The golden vectors carry their documents inside.
    for entry in std::fs::read_dir(format!("{root}/tests/vectors")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            if let Some(doc) = v.get("document") {
                out.push((path.display().to_string(), serde_json::to_vec_pretty(doc).unwrap()));
            }
        }
    }
    assert!(out.len() > 60, "{} documents", out.len());
    out
}

/// A struct of the wire format given as an array, which serde_json accepts and the reader
/// refuses.
fn struct_as_array(text: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(text) else { return false };
    let claims = v.get("claims");
    v.is_array()
        || v.get("secret").is_some_and(Value::is_array)
        || claims.is_some_and(Value::is_array)
        || ["alip", "l1", "chi2", "bp_lip", "alpha", "srlip"]
            .iter()
            .any(|k| claims.and_then(|c| c.get(k)).is_some_and(Value::is_array))
}

/// The same for a continuous document: its structs, and the prior's variant.
fn continuous_struct_as_array(text: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(text) else { return false };
    let claims = v.get("claims");
    let prior = v.get("prior").and_then(Value::as_object);
    v.is_array()
        || ["domain", "claims"].iter().any(|k| v.get(k).is_some_and(Value::is_array))
        || prior.is_some_and(|p| p.values().any(Value::is_array))
        || ["lip", "ldp"].iter().any(|k| claims.and_then(|c| c.get(k)).is_some_and(Value::is_array))
}

/// Reads `text` as `T` both ways: the same value, or both refuse (or only ours, for a struct
/// given as an array: `array_struct`). Whether ours read it.
fn compare_as<T: serde::Serialize + serde::de::DeserializeOwned>(
    name: &str,
    text: &[u8],
    read: fn(&[u8]) -> privlift::Result<T>,
    array_struct: fn(&[u8]) -> bool,
) -> bool {
    let ours = read(text).map(|d| serde_json::to_string(&d).unwrap());
    let theirs = serde_json::from_slice::<T>(text).map(|d| serde_json::to_string(&d).unwrap());
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}"),
        (Err(_), Err(_)) => {}
        (Err(_), Ok(_)) if array_struct(text) => {}
        _ => panic!("{name}: ours {ours:?}, serde_json {theirs:?}\n{}", String::from_utf8_lossy(text)),
    }
    ours.is_ok()
}

/// Whether ours read `text` as a discrete and as a continuous document.
fn compare(name: &str, text: &[u8]) -> (bool, bool) {
    (
        compare_as(name, text, DocumentJson::read, struct_as_array),
        compare_as(&format!("{name} (continuous)"), text, ContinuousDocumentJson::read, continuous_struct_as_array),
    )
}

#[test]
fn reads_what_serde_reads_and_refuses_what_it_refuses() {
    const PIECES: [&str; 14] =
        ["{", "}", "[", "]", ",", ":", "\"", "null", "-0", "1e400", "\"x\": 1", "\\u00e9", "0.5", "\"claims\": {}"];
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (mut read, mut refused, mut continuous) = (0, 0, 0);
    for (name, text) in corpus() {
        let (ok, c) = compare(&name, &text);
        read += usize::from(ok);
        continuous += usize::from(c);
        for _ in 0..300 {
            let mut t = text.clone();
            for _ in 0..rng.random_range(1..3) {
                let at = rng.random_range(0..=t.len());
                match rng.random_range(0..4) {
                    0 => t.truncate(at),
                    1 => t.splice(at..at, PIECES[rng.random_range(0..PIECES.len())].bytes()).for_each(drop),
                    2 if at < t.len() => {
                        t.remove(at);
                    }
                    _ if at < t.len() => t[at] = b"0123456789.-e\" ,:[]{}n"[rng.random_range(0..22)],
                    _ => {}
                }
            }
            let (ok, c) = compare(&name, &t);
            continuous += usize::from(c);
            if ok {
                read += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(
        read > 500 && refused > 5000 && continuous > 100,
        "read {read}, refused {refused}, continuous {continuous}"
    );
}

#[test]
fn errors_say_what_and_where() {
    for (text, message) in [
        (r#"{"format": "privlift-mechanism", "x": 1}"#, r#"unknown field "x", expected one of"#),
        (r#"{"id": "a", "id": "b"}"#, r#"duplicate field "id" at line 1 column"#),
        (r#"{"format": "privlift-mechanism"}"#, "missing field `version` at line 1"),
        (r#"{"version": 1.0}"#, "invalid type: floating point `1`, expected u64 at line 1 column 15"),
        (r#"{"version": -1}"#, "invalid value: integer `-1`, expected u64"),
        (r#"{"mechanism": {"kind": "matrix", "kind": "krr"}}"#, r#"duplicate key "kind" at line 1 column 40"#),
        (r#"{"utility": [{"a": 1}, {"b": {"c": 1, "c": 2}}]}"#, r#"duplicate key "c" at line 1 column 42"#),
        (r#"{"prior": [0.5, 0.5,]}"#, "trailing comma at line 1 column 21"),
        ("[1] x", "invalid type: sequence, expected struct DocumentJson"),
    ] {
        let e = DocumentJson::read(text.as_bytes()).unwrap_err();
        assert_eq!(e.code(), "json");
        assert!(e.to_string().contains(message), "{text}: {e}");
    }
    let deep = format!("{{\"mechanism\": {}", "[".repeat(200));
    assert!(DocumentJson::read(deep.as_bytes()).unwrap_err().to_string().contains("recursion limit exceeded"));
}

/// The informational `utility` member holds at most `MAX_UTILITY_VALUES` JSON values (its
/// tree is ~32 bytes a value, for as little as two bytes of text), and a verified
/// mechanism shares its document's member instead of copying it.
#[test]
fn the_utility_member_is_bounded_and_shared() {
    use privlift::document::{Document, MAX_UTILITY_VALUES};
    let doc = |values: usize| {
        // The object, its array, and the array's zeros.
        let zeros = vec!["0"; values - 2].join(",");
        format!(
            r#"{{"format": "privlift-mechanism", "version": 1, "id": "u", "labels": ["a", "b"], "prior": [0.5, 0.5],
                "mechanism": {{"kind": "krr", "epsilon": 1}}, "claims": {{"ldp_x": 1}}, "utility": {{"z": [{zeros}]}}}}"#
        )
    };
    let d = Document::from_json(&doc(MAX_UTILITY_VALUES)).unwrap();
    let m = d.verify(&privlift::Policy::default()).unwrap();
    assert!(
        core::ptr::eq(d.utility().unwrap(), m.document().utility().unwrap()),
        "a verified mechanism copied utility"
    );
    let e = Document::from_json(&doc(MAX_UTILITY_VALUES + 1)).unwrap_err();
    assert_eq!(e.code(), "json");
    assert!(e.to_string().contains(&format!("more than {MAX_UTILITY_VALUES} JSON values")), "{e}");
}

/// The JSON values of `mechanism` and `utility` (`privlift::document::Json`) hold objects
/// as `serde_json::Value` does: members in key order whatever the document's order, so a
/// document's round trip through `to_json` gives an equal document; and a key repeated
/// after thousands of others is still refused (the check is O(1) per key, not a scan).
#[test]
fn json_values_are_serde_json_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut keys: Vec<String> = (0..3000).map(|i| format!("k{i}")).collect();
    for i in (1..keys.len()).rev() {
        keys.swap(i, rng.random_range(0..=i));
    }
    let members: Vec<String> = keys.iter().enumerate().map(|(i, k)| format!("\"{k}\": [{i}, -{i}, {i}.5]")).collect();
    let utility = format!("{{{}, \"nested\": {{\"z\": null, \"a\": true, \"m\": \"x\"}}}}", members.join(", "));
    let text = format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "u", "labels": ["a", "b"], "prior": [0.5, 0.5],
            "mechanism": {{"q10": 0.25, "kind": "unary", "q01": 0.25}}, "utility": {utility}}}"#
    );
    let w = DocumentJson::read(text.as_bytes()).unwrap();
    let expected: Value = serde_json::from_str(&utility).unwrap();
    assert_eq!(w.utility.as_ref().unwrap().to_value(), expected);
    assert_eq!(serde_json::to_string(&w.utility).unwrap(), serde_json::to_string(&expected).unwrap());
    let doc = privlift::Document::from_json(&text).unwrap();
    assert_eq!(privlift::Document::from_json(&doc.to_json()).unwrap(), doc);
    assert_eq!(doc.utility().unwrap()["nested"]["m"].as_str(), Some("x"));
    assert_eq!(doc.utility().unwrap()["k7"].as_array().map(Vec::len), Some(3));

    let repeated = text.replacen("\"nested\"", &format!("\"{}\"", keys[0]), 1);
    let e = DocumentJson::read(repeated.as_bytes()).unwrap_err().to_string();
    assert!(e.contains(&format!("duplicate key \"{}\" at line 2 column", keys[0])), "{e}");
}

/// Numbers as documents write them (and as they do not): random digits, decimal points,
/// signs and exponents, read by both readers to the same f64, bit for bit.
#[test]
fn numbers_round_as_serde_json_rounds_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(754);
    let mut numbers = Vec::new();
    for _ in 0..20_000 {
        let digits: String =
            (0..rng.random_range(1..24)).map(|_| char::from(b'0' + rng.random_range(0..10u8))).collect();
        let digits = digits.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        let point = rng.random_range(0..=digits.len());
        let mut n = String::new();
        if rng.random_bool(0.3) {
            n.push('-');
        }
        if point == 0 || point == digits.len() {
            n.push_str(digits);
            n.push_str(".5");
        } else {
            n.push_str(&digits[..point]);
            n.push('.');
            n.push_str(&digits[point..]);
        }
        if rng.random_bool(0.5) {
            n.push_str(&format!("e{}", rng.random_range(-40..40)));
        }
        numbers.push(n);
    }
    // In rows of at most 4096 (an array indexed by an alphabet is refused past it).
    let rows: Vec<String> = numbers.chunks(4000).map(|c| format!("[{}]", c.join(", "))).collect();
    let text = format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "n", "labels": ["a"], "prior": [1], "mechanism": {{}}, "claims": {{"bp_lip": {{"eps": 0, "priors": [{}]}}}}}}"#,
        rows.join(", ")
    );
    // The numbers as the wire record holds them (serde_json keeps an f64 exactly).
    let priors = |d: DocumentJson| -> Vec<f64> {
        let v = serde_json::to_value(&d).unwrap();
        v["claims"]["bp_lip"]["priors"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap().clone())
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let ours = priors(DocumentJson::read(text.as_bytes()).unwrap());
    let theirs = priors(serde_json::from_str::<DocumentJson>(&text).unwrap());
    assert_eq!(ours.len(), numbers.len());
    for ((a, b), n) in ours.iter().zip(&theirs).zip(&numbers) {
        assert_eq!(a.to_bits(), b.to_bits(), "{n}");
    }
}
