//! The hostile-document corpus (`tests/adversarial/`, see its README) as its runners read
//! it: the library's (`tests/adversarial.rs`), and `privlift verify`'s with the library's
//! beside it (`cli/tests/parity.rs`); the wasm runner (`tests/js/adversarial.test.mjs`)
//! reads the same files by the same rules.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// Every case of the corpus, by file name.
pub fn corpus() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir =
        here.ancestors().map(|p| p.join("tests/adversarial")).find(|d| d.is_dir()).expect("tests/adversarial exists");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/adversarial is readable")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A K × K identity claiming `ldp_x = 0`, with P priors in a `bp_lip` claim (README).
pub fn generated(spec: &Value) -> String {
    let k = spec["identity"].as_u64().expect("generate.identity") as usize;
    let priors = spec["bp_lip_priors"].as_u64().unwrap_or(0) as usize;
    let mut rows = String::with_capacity(2 * k * k + 4 * k);
    rows.push('[');
    for x in 0..k {
        rows.push_str(if x == 0 { "[" } else { ",[" });
        for y in 0..k {
            rows.push_str(match (y == 0, x == y) {
                (true, true) => "1",
                (true, false) => "0",
                (false, true) => ",1",
                (false, false) => ",0",
            });
        }
        rows.push(']');
    }
    rows.push(']');
    let labels: Vec<String> = (0..k).map(|i| format!("v{i}")).collect();
    let mut claims = json!({"ldp_x": 0.0});
    if priors > 0 {
        // Priors tilted towards one value each: all distinct, all full-support.
        let ps: Vec<Vec<f64>> = (0..priors)
            .map(|j| {
                let mut p = vec![1.0 / (2 * k) as f64; k];
                p[j % k] += 0.5;
                p
            })
            .collect();
        claims = json!({"bp_lip": {"eps": 0.0, "priors": ps}});
    }
    let head = json!({"format": "privlift-mechanism", "version": 1, "id": format!("identity-{k}"),
        "labels": labels, "prior": vec![1.0 / k as f64; k], "claims": claims});
    let mut text = serde_json::to_string(&head).unwrap();
    text.pop();
    text.push_str(&format!(",\"mechanism\":{{\"kind\":\"matrix\",\"p_y_given_x\":{rows}}}}}"));
    text
}

pub fn document_text(case: &Value) -> String {
    if let Some(t) = case["document_text"].as_str() {
        t.to_string()
    } else if case["generate"].is_object() {
        generated(&case["generate"])
    } else {
        serde_json::to_string(&case["document"]).unwrap()
    }
}

pub fn policy_text(case: &Value) -> Option<String> {
    case.get("policy").map(|p| serde_json::to_string(p).unwrap())
}

/// Most characters a refusal's message has: the longest message names a field, quotes at
/// most 64 characters of someone else's text (each at most 10 characters escaped) and says
/// what was expected.
pub const MAX_MESSAGE_CHARS: usize = 1200;

/// A refusal's message is safe to print: no control, bidi or invisible formatting
/// character as it came (each is escaped, `privlift::error::hidden`), and bounded, whatever
/// the document or policy held.
pub fn refusal_shown(name: &str, message: &str) {
    assert!(!message.chars().any(privlift::error::hidden), "{name}: a raw control or bidi character in {message:?}");
    let n = message.chars().count();
    assert!(n <= MAX_MESSAGE_CHARS, "{name}: a message of {n} characters");
}
