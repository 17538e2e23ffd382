//! `privlift audit` and `privlift receipt` on open-domain documents (issue 34): the audit
//! and the receipts the native library wrote into the golden vectors
//! (`tests/vectors/open-*.json`, which the wasm build and the npm `OpenMechanism.receipt`
//! replay bit for bit), and the typed refusals of a report of another kind or malformed.

mod common;

use common::cli::{run, TempDir};
use serde_json::{json, Value};

const VECTORS: [&str; 4] = ["open-olh-fruit", "open-hadamard", "open-hcms-listed", "open-heavy-hitters"];

/// The vector `name` and its document written to a file of `t`.
fn vector(t: &TempDir, name: &str) -> (Value, String) {
    let path = format!("{}/../tests/vectors/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let doc = t.json(&format!("{name}.json"), &v["document"]);
    (v, doc)
}

/// The library's own serialisation that the vector holds under `json`.
fn library(entry: &Value) -> Value {
    serde_json::from_str(entry["json"].as_str().unwrap()).unwrap()
}

#[test]
fn audit_prints_the_open_audit_of_every_vector() {
    let t = TempDir::new("open-audit");
    for name in VECTORS {
        let (v, doc) = vector(&t, name);
        let a = run(&["audit", &doc]).json();
        let lib = library(&v["audit"]["audit"]);
        let claims = library(&v["audit"]["verification"])["claims"].clone();
        assert_eq!(a["kind"], v["document"]["mechanism"]["kind"], "{name}");
        // S = X: LDP w.r.t. S is LDP w.r.t. X, and LIP/ALIP are the audit's w.r.t. X.
        assert_eq!((&a["ldp_x"], &a["ldp"], &a["lip"]), (&lib["ldp_x"], &lib["ldp_x"], &lib["lip"]), "{name}");
        assert_eq!(a["alip"], json!({"eps_l": lib["eps_l"], "eps_u": lib["eps_u"]}), "{name}");
        assert_eq!(a["claims"], claims, "{name}");
        assert_eq!(a["claims_hold"], json!(true), "{name}");
    }
}

#[test]
fn audit_reports_a_false_open_claim_without_refusing() {
    let t = TempDir::new("open-audit-false");
    let (mut v, _) = vector(&t, "open-olh-fruit");
    v["document"]["claims"]["ldp_x"] = json!(0.5);
    let doc = t.json("false.json", &v["document"]);
    let a = run(&["audit", &doc]).json();
    assert_eq!(a["claims_hold"], json!(false));
    assert_eq!(a["claims"][0]["notion"], "ldp_x");
    assert_eq!(a["claims"][0]["holds"], json!(false));
    run(&["audit", &doc, "--alpha-order", "3"]).fails("invalid_argument", 2);
}

#[test]
fn receipt_equals_the_library_receipt_of_every_vector_report() {
    let t = TempDir::new("open-receipt");
    for name in VECTORS {
        let (v, doc) = vector(&t, name);
        let receipts = v["receipts"].as_array().unwrap();
        assert!(!receipts.is_empty(), "{name}");
        for r in receipts {
            let want = library(r);
            // The canonical text the collector stores, and the report's JSON object.
            let text = r["report"].as_str().unwrap();
            assert_eq!(run(&["receipt", &doc, "--output", text]).json(), want, "{name} {text}");
            let object = want["report"].to_string();
            assert_eq!(run(&["receipt", &doc, "--output", &object]).json(), want, "{name} {object}");
        }
    }
}

#[test]
fn receipt_refuses_a_report_of_another_kind_or_malformed_naming_the_fault() {
    let t = TempDir::new("open-receipt-bad");
    let (_, olh) = vector(&t, "open-olh-fruit");
    let (_, hcms) = vector(&t, "open-hcms-listed");
    // An hcms report (three numbers) given to an olh document, and an olh one to hcms.
    let e = run(&["receipt", &olh, "--output", "34:418:1"]).fails("unknown_output", 1).to_string();
    assert!(e.contains("`olh`") && e.contains("2 fields"), "{e}");
    let e = run(&["receipt", &hcms, "--output", r#"{"seed": 1, "y": 0}"#]).fails("json", 1).to_string();
    assert!(e.contains("seed"), "{e}");
    // Out of range: the field is named.
    let e = run(&["receipt", &olh, "--output", "7:4"]).fails("unknown_output", 1).to_string();
    assert!(e.contains("`y`"), "{e}");
    // Malformed text: the rule is named, the text never echoed.
    for bad in ["apple-secret", "12:apple-secret", "", "1:2:"] {
        let e = run(&["receipt", &olh, "--output", bad]).fails("unknown_output", 1).to_string();
        assert!(e.contains("decimal numbers joined by `:`"), "{bad:?}: {e}");
        assert!(!e.contains("apple-secret"), "{e}");
    }
    let e = run(&["receipt", &olh, "--output", r#"{"seed": "apple-secret", "y": 0}"#]).fails("json", 1).to_string();
    assert!(!e.contains("apple-secret"), "{e}");
    // Flags of the other families.
    run(&["receipt", &olh, "--bits", "0101"]).fails("invalid_argument", 2);
    run(&["receipt", &olh, "--output", "1:0", "--x", "3"]).fails("invalid_argument", 2);
    run(&["receipt", &olh]).fails("invalid_argument", 2);
}
