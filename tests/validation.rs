//! One test per validation error kind, each asserting the stable error code and that
//! the message names the offending field.

mod common;

use privlift::{Document, Policy};
use serde_json::{json, Value};

fn err(doc: &Value) -> privlift::Error {
    Document::from_json(&doc.to_string()).expect_err("document must be rejected")
}

fn base() -> Value {
    common::krr_doc(3, 1.0)
}

#[test]
fn valid_document_parses() {
    let d = Document::from_json(&base().to_string()).unwrap();
    assert_eq!(d.input().len(), 3);
    assert_eq!(d.output().labels(), ["0", "1", "2"]);
    assert!(!d.has_secret());
}

#[test]
fn malformed_json() {
    let e = Document::from_json("{\"format\": ").unwrap_err();
    assert_eq!(e.code(), "json");
    let mut d = base();
    d.as_object_mut().unwrap().remove("prior");
    let e = err(&d);
    assert_eq!(e.code(), "json");
    assert!(e.to_string().contains("prior"), "{e}");
}

#[test]
fn unknown_field_and_unknown_claim_are_rejected() {
    let mut d = base();
    d["priors"] = json!([1.0]);
    assert_eq!(err(&d).code(), "json");
    let mut d = base();
    d["claims"]["dp"] = json!(1.0);
    assert_eq!(err(&d).code(), "json");
}

#[test]
fn wrong_format_version_kind() {
    let mut d = base();
    d["format"] = json!("something-else");
    assert_eq!(err(&d).code(), "unsupported_format");
    let mut d = base();
    d["version"] = json!(2);
    assert_eq!(err(&d).code(), "unsupported_version");
    let mut d = base();
    d["mechanism"]["kind"] = json!("quantum");
    let e = err(&d);
    assert_eq!(e.code(), "unsupported_mechanism");
    assert!(e.to_string().contains("quantum"));
}

#[test]
fn non_finite_entries() {
    // JSON text cannot spell NaN or infinity: an overflowing literal is a JSON error.
    let text = base().to_string().replacen("\"claims\":{", "\"claims\":{\"ldp\":1e999,", 1);
    let e = Document::from_json(&text).unwrap_err();
    assert!(matches!(e.code(), "json" | "non_finite"), "{e}");
    // Through the typed API (as from JS objects) a NaN is caught by validation.
    let mut w: privlift::document::DocumentJson = serde_json::from_value(base()).unwrap();
    w.prior[1] = f64::NAN;
    let e = Document::from_wire(w).unwrap_err();
    assert_eq!(e.code(), "non_finite");
    assert!(e.to_string().contains("prior[1]"), "{e}");
    let doc = Document::from_json(&base().to_string()).unwrap();
    let infinite = privlift::document::Claims { lip: Some(privlift::param::Budget::INFINITE), ..Default::default() };
    assert_eq!(doc.with_claims(infinite).unwrap_err().code(), "non_finite");
}

#[test]
fn non_finite_matrix_entry_names_the_cell() {
    // serde_json::Value cannot hold NaN: go through the typed matrix, as the JS layer does.
    let m = common::krr_matrix(3, 1.0);
    let rows = vec![m[0].clone(), vec![m[1][0], m[1][1], f64::NAN], m[2].clone()];
    let mm = privlift::document::Matrix::from_rows("mechanism.p_y_given_x", &rows, 3).unwrap();
    let e = mm.check_row_stochastic("mechanism.p_y_given_x").unwrap_err();
    assert_eq!(e.code(), "non_finite");
    assert!(e.to_string().contains("mechanism.p_y_given_x[1][2]"), "{e}");
}

#[test]
fn negative_probability() {
    let mut d = base();
    d["mechanism"]["p_y_given_x"][0] = json!([1.2, -0.1, -0.1]);
    let e = err(&d);
    assert_eq!(e.code(), "negative_probability");
    assert!(e.to_string().contains("p_y_given_x[0][1]"), "{e}");
    let mut d = base();
    d["prior"] = json!([1.5, -0.5, 0.0]);
    assert_eq!(err(&d).code(), "negative_probability");
}

#[test]
fn rows_not_summing_to_one() {
    let mut d = base();
    d["mechanism"]["p_y_given_x"][2] = json!([0.3, 0.3, 0.3]);
    let e = err(&d);
    assert_eq!(e.code(), "not_normalized");
    assert!(e.to_string().contains("p_y_given_x[2]"), "{e}");
    // Within 1e-9 is accepted, beyond is not.
    let mut d = base();
    d["prior"] = json!([0.5, 0.5, 2e-10]);
    assert!(Document::from_json(&d.to_string()).is_ok());
    d["prior"] = json!([0.5, 0.5, 2e-9]);
    assert_eq!(err(&d).code(), "not_normalized");
}

#[test]
fn dimension_mismatches() {
    let mut d = base();
    d["prior"] = json!([0.5, 0.5]);
    let e = err(&d);
    assert_eq!(e.code(), "dimension_mismatch");
    assert!(e.to_string().contains("prior"));
    let mut d = base();
    d["mechanism"]["p_y_given_x"][1] = json!([0.5, 0.5]);
    assert_eq!(err(&d).code(), "dimension_mismatch");
    let mut d = base();
    d["output_labels"] = json!(["a", "b"]);
    assert_eq!(err(&d).code(), "dimension_mismatch");
    let mut d = base();
    d["secret"] = json!({"p_sx": [[0.2, 0.3], [0.1, 0.4]]});
    assert_eq!(err(&d).code(), "dimension_mismatch");
}

#[test]
fn duplicate_labels() {
    let mut d = base();
    d["labels"] = json!(["a", "b", "a"]);
    let e = err(&d);
    assert_eq!(e.code(), "duplicate_label");
    assert!(e.to_string().contains("\"a\""));
    // A number and a string with the same spelling are the same label.
    let mut d = base();
    d["labels"] = json!([1, "1", 2]);
    assert_eq!(err(&d).code(), "duplicate_label");
}

#[test]
fn too_many_symbols() {
    let k = privlift::document::MAX_SYMBOLS + 1;
    let mut d = base();
    d["labels"] = json!((0..k).collect::<Vec<_>>());
    let e = err(&d);
    assert_eq!(e.code(), "too_many_symbols");
    assert!(e.to_string().contains("4096"));
    // A huge output alphabet is refused before anything is allocated for it.
    let mut d = base();
    let wide: Vec<f64> = vec![1.0 / k as f64; k];
    d["mechanism"]["p_y_given_x"] = json!([wide.clone(), wide.clone(), wide]);
    assert_eq!(err(&d).code(), "too_many_symbols");
}

/// A per-secret mechanism is priced by its |S|·|X|·|Y| entries before any block is read:
/// 4096 secrets · 3 inputs · 1366 outputs is 16,785,408 > 2²⁴, refused naming that count
/// and the entries' limit (not the alphabets' 4096).
#[test]
fn too_many_per_secret_entries() {
    use privlift::document::MAX_PER_SECRET_ENTRIES;
    let (ns, nx, ny) = (4096usize, 3usize, 1366usize);
    assert!(ns * nx * ny > MAX_PER_SECRET_ENTRIES);
    let mut d = base();
    let cell = 1.0 / (ns * nx) as f64;
    d["secret"] =
        json!({"labels": (0..ns).map(|s| format!("s{s}")).collect::<Vec<_>>(), "p_sx": vec![vec![cell; nx]; ns]});
    let mut blocks = vec![json!([]); ns];
    blocks[0] = json!([vec![0.0; ny]]);
    d["mechanism"] = json!({"kind": "per_secret", "p_y_given_sx": blocks});
    let e = err(&d);
    assert_eq!(e.code(), "too_many_symbols", "{e}");
    let text = e.to_string();
    assert!(text.contains("mechanism.p_y_given_sx"), "{text}");
    assert!(text.contains(&(ns * nx * ny).to_string()), "{text}");
    assert!(text.contains(&MAX_PER_SECRET_ENTRIES.to_string()), "{text}");
}

#[test]
fn empty_alphabet() {
    let mut d = base();
    d["labels"] = json!([]);
    assert_eq!(err(&d).code(), "empty_alphabet");
}

#[test]
fn prior_inconsistent_with_joint() {
    let mut d = base();
    d["secret"] = json!({"labels": ["lo", "hi"], "p_sx": [[0.3, 0.2, 0.0], [0.0, 0.2, 0.3]]});
    // Column sums are (0.3, 0.4, 0.3), the prior says uniform.
    let e = err(&d);
    assert_eq!(e.code(), "prior_mismatch");
    assert!(e.to_string().contains("prior"), "{e}");
    d["prior"] = json!([0.3, 0.4, 0.3]);
    let doc = Document::from_json(&d.to_string()).unwrap();
    assert!(doc.has_secret());
    assert_eq!(doc.secret().labels(), ["lo", "hi"]);
}

#[test]
fn negative_or_non_number_claims() {
    let mut d = base();
    d["claims"]["lip"] = json!(-1.0);
    assert_eq!(err(&d).code(), "invalid_argument");
}

#[test]
fn out_of_alphabet_values_and_outputs() {
    let doc = Document::from_json(&base().to_string()).unwrap();
    let m = doc.verify(&Policy::default()).unwrap();
    let mut rng = privlift::rng::DeterministicRngForTesting::seed_from_u64(1);
    assert_eq!(m.perturb(3, &mut rng).unwrap_err().code(), "unknown_value");
    assert_eq!(m.perturb_label("v9", &mut rng).unwrap_err().code(), "unknown_value");
    assert_eq!(m.perturb_many(&[0, 1, 7], &mut rng).unwrap_err().code(), "unknown_value");
    assert_eq!(m.receipt(3).unwrap_err().code(), "unknown_output");
    assert_eq!(m.receipt_label("nope").unwrap_err().code(), "unknown_output");
    // Labels and decimal indices both work.
    assert!(m.perturb_label("v2", &mut rng).is_ok());
    assert!(m.perturb_label("2", &mut rng).is_ok());
}

/// Fuzzer finding F5: a valid document survives `to_json` → `from_json` exactly, even
/// with sums at the edge of the 1e-9 tolerance (serde_json's `float_roundtrip`).
#[test]
fn documents_round_trip_exactly() {
    let mut d = base();
    d["prior"] = json!([0.5, 0.5, 1.0000000009999999 - 1.0]);
    let doc = Document::from_json(&d.to_string()).unwrap();
    let again = Document::from_json(&doc.to_json()).unwrap();
    assert_eq!(doc, again);
    assert_eq!(doc.prior(), again.prior());
}

/// Fuzzer finding F8: positive probabilities below 2⁻⁹⁰⁰ are refused, naming the entry
/// (the audit's rounding bounds do not hold in the subnormal range).
#[test]
fn probabilities_below_two_to_the_minus_900_are_refused() {
    let tiny = privlift::document::MIN_PROBABILITY;
    let mut d = base();
    d["prior"] = json!([1.0 - 1e-280, 1e-280, 0.0]);
    let e = err(&d);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("prior[1]"), "{e}");
    let mut d = base();
    d["mechanism"]["p_y_given_x"][2] = json!([1e-300, 0.5, 0.5]);
    let e = err(&d);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("p_y_given_x[2][0]"), "{e}");
    let mut d = base();
    d["secret"] = json!({"p_sx": [[0.5, 0.0, 5e-324], [0.0, 0.5, 0.0]]});
    d["prior"] = json!([0.5, 0.5, 5e-324]);
    let e = err(&d);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("prior[2]") || e.to_string().contains("secret.p_sx[0][2]"), "{e}");
    let d = json!({"format": "privlift-mechanism", "version": 1, "id": "u", "labels": ["a", "b"],
        "prior": [0.5, 0.5], "mechanism": {"kind": "unary", "q01": 1e-290, "q10": 0.5}, "claims": {"lip": 1.0}});
    let e = err(&d);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("mechanism.q01"), "{e}");
    // The threshold itself is accepted.
    let mut d = base();
    d["prior"] = json!([1.0 - tiny, tiny, 0.0]);
    Document::from_json(&d.to_string()).unwrap();
}

/// k-RR and RR-LIP release a value of X, so their outputs are the input labels: the
/// writer leaves `output_labels` out (it would only repeat `labels`), the reader takes
/// its absence or a copy of `labels`, and refuses other
/// labels, which would show a user a value that is not the one released. A matrix keeps it.
#[test]
fn output_labels_implied_by_the_kind_are_omitted_and_checked() {
    let labels = json!(["a", "b", "c"]);
    for mechanism in
        [json!({"kind": "krr", "epsilon": 1.0}), json!({"kind": "rr_lip", "keep": 0.5, "mixing": [0.2, 0.3, 0.5]})]
    {
        let d = json!({
            "format": "privlift-mechanism", "version": 1, "id": "k", "labels": labels,
            "prior": [0.2, 0.3, 0.5], "mechanism": mechanism, "claims": {"lip": 1.0},
        });
        let doc = Document::from_json(&d.to_string()).unwrap_or_else(|e| panic!("{mechanism}: {e}"));
        assert_eq!(doc.output().labels(), ["a", "b", "c"]);
        let text = doc.to_json();
        assert!(!text.contains("output_labels"), "{text}");
        assert_eq!(Document::from_json(&text).unwrap(), doc);
        let mut same = d.clone();
        same["output_labels"] = labels.clone();
        assert_eq!(Document::from_json(&same.to_string()).unwrap(), doc, "{mechanism}: present and equal");
        let mut other = d.clone();
        other["output_labels"] = json!(["c", "b", "a"]);
        let e = err(&other);
        assert_eq!(e.code(), "invalid_argument", "{mechanism}: {e}");
        assert!(e.to_string().contains("output_labels") && !e.to_string().contains("\"c\""), "{e}");
    }
    let mut m = base();
    m["output_labels"] = json!(["A", "B", "C"]);
    let doc = Document::from_json(&m.to_string()).unwrap();
    assert!(doc.to_json().contains("output_labels"), "a matrix's outputs are its own");
}
