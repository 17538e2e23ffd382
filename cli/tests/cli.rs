//! Integration tests of the `privlift` command-line tool.
//! Run with `cargo test -p privlift-cli --test cli`.

use std::io::Read;
use std::path::Path;

use privlift::document::Matrix;
use serde_json::Value;

mod common;
use common::cli::{run, TempDir};
use common::http::{dribble_head, exchange, Response, Running};

const KRR3: &str = r#"[[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]"#;
const LN2: f64 = std::f64::consts::LN_2;

fn doc(claims: &str) -> String {
    format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "krr3",
            "labels": ["a", "b", "c"], "prior": [0.2, 0.5, 0.3],
            "mechanism": {{"kind": "matrix", "p_y_given_x": {KRR3}}},
            "claims": {claims}}}"#
    )
}

const FIELDS: [&str; 16] = [
    "lip",
    "alip",
    "ldp",
    "ldp_x",
    "mi_sy",
    "mi_xy",
    "maximal_leakage",
    "min_lift",
    "max_lift",
    "l1_lift",
    "chi2_lift",
    "alpha_lift",
    "l1_lift_inverse",
    "chi2_lift_inverse",
    "alpha_lift_inverse",
    "alpha_order",
];

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    k.sort();
    k
}

/// Compares every number of the CLI output with the library's `Leakage` (as JSON),
/// up to the last bit or two of the decimal round trip.
fn assert_same_numbers(cli: &Value, lib: &Value, path: &str) {
    match (cli, lib) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, vb) in b {
                let va = a.get(k).unwrap_or_else(|| panic!("missing {path}.{k}"));
                assert_same_numbers(va, vb, &format!("{path}.{k}"));
            }
        }
        (Value::String(s), Value::Null) => assert_eq!(s, "inf", "{path}"),
        (a, b) => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-15 * y.abs().max(1e-300), "{path}: {x} vs {y}");
        }
    }
}

fn lib_audit(p_sx: &[Vec<f64>], channel: &[Vec<f64>], alpha: f64) -> Value {
    let j = Matrix::from_rows("p_sx", p_sx, channel.len()).unwrap();
    let m = Matrix::from_rows("m", channel, channel[0].len()).unwrap();
    serde_json::to_value(privlift::audit(&j, &m, alpha).unwrap()).unwrap()
}

fn krr3() -> Vec<Vec<f64>> {
    serde_json::from_str(KRR3).unwrap()
}

#[test]
fn audit_document_with_true_claims() {
    let t = TempDir::new("cli");
    let f = t.write("doc.json", &doc(r#"{"ldp_x": 0.6931471805599453, "ldp": 0.6931471805599453}"#));
    let v = run(&["audit", &f]).json();
    let mut want = FIELDS.to_vec();
    want.extend(["claims_hold", "claims", "x"]);
    assert_eq!(keys(&v), sorted(&want));
    assert_eq!(keys(&v["alip"]), ["eps_l", "eps_u"]);
    // A document's audit also shows the user's own value X (here S = X: the same numbers).
    assert_eq!(keys(&v["x"]), ["alip", "lip", "max_lift", "mi", "min_lift"]);
    assert_eq!(v["x"]["lip"], v["lip"]);
    assert_eq!(v["claims_hold"], true);
    let claims = v["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0]["notion"], "ldp");
    assert_eq!(claims[1]["notion"], "ldp_x");
    assert!(claims.iter().all(|c| c["holds"] == true));
    assert!((v["ldp_x"].as_f64().unwrap() - LN2).abs() < 1e-12);
    assert_eq!(v["alpha_order"], 2.0);
    // The same numbers as the library for the declared joint diag(prior).
    let diag = vec![vec![0.2, 0.0, 0.0], vec![0.0, 0.5, 0.0], vec![0.0, 0.0, 0.3]];
    assert_same_numbers(&v, &lib_audit(&diag, &krr3(), 2.0), "");
}

#[test]
fn audit_reports_a_lying_document_without_refusing() {
    let t = TempDir::new("cli");
    let f = t.write("lie.json", &doc(r#"{"ldp_x": 0.1, "lip": 5.0}"#));
    let out = run(&["audit", &f]);
    let v = out.json();
    assert_eq!(out.code, 0);
    assert_eq!(v["claims_hold"], false);
    let c = &v["claims"];
    assert_eq!(c[0]["notion"], "ldp_x");
    assert_eq!(c[0]["bound"], 0.1);
    assert_eq!(c[0]["holds"], false);
    assert_eq!(c[1]["notion"], "lip");
    assert_eq!(c[1]["holds"], true);
}

#[test]
fn audit_document_without_claims_has_no_claim_fields() {
    let t = TempDir::new("cli");
    let f = t.write("noclaims.json", &doc("{}"));
    let mut want = FIELDS.to_vec();
    want.push("x");
    assert_eq!(keys(&run(&["audit", &f]).json()), sorted(&want));
}

#[test]
fn audit_matrix_with_prior_matches_library() {
    let t = TempDir::new("cli");
    let m = t.write("m.json", &format!(r#"{{"p_y_given_x": {KRR3}}}"#));
    let p = t.write("p.json", r#"{"labels": ["a", "b", 3], "p": [0.2, 0.5, 0.3]}"#);
    let v = run(&["audit", "--matrix", &m, "--prior", &p]).json();
    assert_eq!(keys(&v), sorted(&FIELDS));
    let diag = vec![vec![0.2, 0.0, 0.0], vec![0.0, 0.5, 0.0], vec![0.0, 0.0, 0.3]];
    let lib = lib_audit(&diag, &krr3(), 2.0);
    // The output names exactly the library's fields.
    assert_eq!(keys(&v), keys(&lib));
    assert_same_numbers(&v, &lib, "");
    // Labels are optional, and `--opt=value` works too.
    let p2 = t.write("p2.json", r#"{"p": [0.2, 0.5, 0.3]}"#);
    let v2 = run(&["audit", &format!("--matrix={m}"), &format!("--prior={p2}")]).json();
    assert_eq!(v, v2);
}

#[test]
fn audit_matrix_with_joint_matches_library() {
    let t = TempDir::new("cli");
    let m = t.write("m.json", &format!(r#"{{"p_y_given_x": {KRR3}}}"#));
    let joint = r#"[[0.2, 0.5, 0.0], [0.0, 0.0, 0.3]]"#;
    let j = t.write(
        "j.json",
        &format!(r#"{{"secret_labels": ["pass", "fail"], "labels": ["A", "B", "C"], "p_sx": {joint}}}"#),
    );
    let v = run(&["audit", "--matrix", &m, "--joint", &j, "--alpha-order", "3"]).json();
    assert_eq!(keys(&v), sorted(&FIELDS));
    let p_sx: Vec<Vec<f64>> = serde_json::from_str(joint).unwrap();
    assert_same_numbers(&v, &lib_audit(&p_sx, &krr3(), 3.0), "");
    assert_eq!(v["alpha_order"], 3.0);
    // S → X → Y: LDP w.r.t. S never exceeds LDP w.r.t. X.
    assert!(v["ldp"].as_f64().unwrap() <= v["ldp_x"].as_f64().unwrap() + 1e-12);
}

#[test]
fn audit_prints_infinity_as_a_string() {
    let t = TempDir::new("cli");
    let m = t.write("m.json", r#"{"p_y_given_x": [[1.0, 0.0], [0.5, 0.5]]}"#);
    let p = t.write("p.json", r#"{"p": [0.5, 0.5]}"#);
    let out = run(&["audit", "--matrix", &m, "--prior", &p]);
    let v = out.json();
    for k in ["lip", "ldp", "ldp_x"] {
        assert_eq!(v[k], "inf", "{k}");
    }
    assert_eq!(v["alip"]["eps_l"], "inf");
    assert_eq!(v["min_lift"], 0.0);
    assert!(v["max_lift"].is_f64());
    assert!(!out.stdout.contains("null"), "{}", out.stdout);
    let diag = vec![vec![0.5, 0.0], vec![0.0, 0.5]];
    assert_same_numbers(&v, &lib_audit(&diag, &[vec![1.0, 0.0], vec![0.5, 0.5]], 2.0), "");
}

#[test]
fn audit_bp_lip_claim_on_the_declared_channel() {
    let t = TempDir::new("cli");
    // KRR3 at ε = ln 2: LIP under any prior is at most ln 2.
    let ok = t.write(
        "bp.json",
        &doc(r#"{"bp_lip": {"eps": 0.6931471805599453, "priors": [[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]]}}"#),
    );
    let v = run(&["audit", &ok]).json();
    assert_eq!(v["claims_hold"], true, "{v}");
    assert_eq!(v["claims"][0]["notion"], "bp_lip");
    let lie = t.write("bp-lie.json", &doc(r#"{"bp_lip": {"eps": 0.1, "priors": [[0.2, 0.5, 0.3]]}}"#));
    let out = run(&["audit", &lie]);
    assert_eq!(out.json()["claims_hold"], false);
}

#[test]
fn audit_unary_document() {
    let t = TempDir::new("cli");
    let unary = |n: usize| {
        let labels: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
        let prior = vec![format!("{}", 1.0 / n as f64); n];
        format!(
            r#"{{"format": "privlift-mechanism", "version": 1, "id": "ue", "labels": [{}], "prior": [{}],
                "mechanism": {{"kind": "unary", "q01": 0.25, "q10": 0.5}}}}"#,
            labels.join(","),
            prior.join(",")
        )
    };
    let v = run(&["audit", &t.write("ue3.json", &unary(4))]).json();
    let mut want = FIELDS.to_vec();
    want.push("x");
    assert_eq!(keys(&v), sorted(&want));
    assert!(v["ldp_x"].as_f64().unwrap() > 0.0, "{v}");
    // Beyond the enumeration limit some averages are not computed: printed as "nan".
    let out = run(&["audit", &t.write("ue32.json", &unary(32))]);
    let v = out.json();
    assert!(v["lip"].is_f64(), "{v}");
    for (k, x) in v.as_object().unwrap() {
        assert!(x.is_f64() || x == "nan" || x.is_object(), "{k}: {x}");
    }
    assert!(!out.stdout.contains("null"));
}

#[test]
fn alpha_order_option() {
    let t = TempDir::new("cli");
    let f = t.write("doc.json", &doc("{}"));
    let diag = vec![vec![0.2, 0.0, 0.0], vec![0.0, 0.5, 0.0], vec![0.0, 0.0, 0.3]];
    for (arg, a) in [("0.5", 0.5), ("3", 3.0), ("10", 10.0)] {
        let v = run(&["audit", &f, "--alpha-order", arg]).json();
        assert_eq!(v["alpha_order"], a);
        assert_same_numbers(&v, &lib_audit(&diag, &krr3(), a), "");
    }
    let a2 = run(&["audit", &f]).json()["alpha_lift"].clone();
    let a3 = run(&["audit", &f, "--alpha-order=3"]).json()["alpha_lift"].clone();
    assert_ne!(a2, a3);
    run(&["audit", &f, "--alpha-order", "1"]).fails("invalid_argument", 1);
    run(&["audit", &f, "--alpha-order", "-2"]).fails("invalid_argument", 1);
    run(&["audit", &f, "--alpha-order", "two"]).fails("invalid_argument", 2);
    run(&["audit", &f, "--alpha-order"]).fails("invalid_argument", 2);
}

#[test]
fn bad_matrix_prior_and_joint_files() {
    let t = TempDir::new("cli");
    let good_m = t.write("good_m.json", r#"{"p_y_given_x": [[0.75, 0.25], [0.25, 0.75]]}"#);
    let good_p = t.write("good_p.json", r#"{"p": [0.5, 0.5]}"#);
    let wide = format!(r#"{{"p_y_given_x": [[{}]]}}"#, vec!["0"; 4097].join(","));
    let many = format!(
        r#"{{"labels": [{}], "p": [0.5, 0.5]}}"#,
        (0..4097).map(|i| format!("\"{i}\"")).collect::<Vec<_>>().join(",")
    );
    // (matrix file content or None for the good one, prior/joint flag, its content, code)
    let cases: &[(Option<&str>, &str, &str, &str)] = &[
        (Some("{"), "--prior", "", "json"),
        (Some(r#"{"p_y_given_x": [[1.0]], "extra": 1}"#), "--prior", "", "json"),
        (Some(r#"{"p_y_given_x": [[1e999, 0]]}"#), "--prior", "", "json"),
        (Some(r#"{"p_y_given_x": [[1.5, -0.5], [0.5, 0.5]]}"#), "--prior", "", "negative_probability"),
        (Some(r#"{"p_y_given_x": [[0.5, 0.4], [0.5, 0.5]]}"#), "--prior", "", "not_normalized"),
        (Some(r#"{"p_y_given_x": [[1.0, 0.0], [1.0]]}"#), "--prior", "", "dimension_mismatch"),
        (Some(r#"{"p_y_given_x": []}"#), "--prior", "", "empty_alphabet"),
        (Some(&wide), "--prior", "", "too_many_symbols"),
        (None, "--prior", r#"{"p": [0.5, 0.6]}"#, "not_normalized"),
        (None, "--prior", r#"{"p": [0.5, -0.5, 1.0]}"#, "negative_probability"),
        (None, "--prior", r#"{"p": [0.2, 0.3, 0.5]}"#, "dimension_mismatch"),
        (None, "--prior", r#"{"labels": ["a"], "p": [0.5, 0.5]}"#, "dimension_mismatch"),
        (None, "--prior", r#"{"labels": ["a", "a"], "p": [0.5, 0.5]}"#, "duplicate_label"),
        (None, "--prior", &many, "too_many_symbols"),
        (None, "--prior", r#"{"prior": [0.5, 0.5]}"#, "json"),
        (None, "--joint", r#"{"p_sx": [[0.5, 0.4]]}"#, "not_normalized"),
        (None, "--joint", r#"{"p_sx": [[0.5, 0.25, 0.25]]}"#, "dimension_mismatch"),
        (None, "--joint", r#"{"p_sx": [[0.5], [0.5]]}"#, "dimension_mismatch"),
        (None, "--joint", r#"{"p_sx": [[1.5, -0.5]]}"#, "negative_probability"),
        (None, "--joint", r#"{"secret_labels": ["s", "s"], "p_sx": [[0.5, 0], [0, 0.5]]}"#, "duplicate_label"),
        (None, "--joint", r#"{"labels": ["x"], "p_sx": [[0.5, 0.5]]}"#, "dimension_mismatch"),
        (None, "--joint", r#"{"p_sx": []}"#, "empty_alphabet"),
    ];
    for (i, &(m, flag, other, code)) in cases.iter().enumerate() {
        let m = match m {
            Some(text) => t.write(&format!("m{i}.json"), text),
            None => good_m.clone(),
        };
        let o = if other.is_empty() { good_p.clone() } else { t.write(&format!("o{i}.json"), other) };
        let out = run(&["audit", "--matrix", &m, flag, &o]);
        out.fails(code, 1);
        // The message names the file at fault.
        let culprit = if other.is_empty() { &m } else { &o };
        assert!(out.stderr.contains(culprit.as_str()), "case {i}: {}", out.stderr);
    }
}

#[test]
fn bad_documents() {
    let t = TempDir::new("cli");
    let cases: &[(&str, &str)] = &[
        ("not json", "json"),
        (
            r#"{"format": "x", "version": 1, "id": "x", "labels": ["a"], "prior": [1], "mechanism": {"kind": "matrix", "p_y_given_x": [[1]]}}"#,
            "unsupported_format",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 9, "id": "x", "labels": ["a"], "prior": [1], "mechanism": {"kind": "matrix", "p_y_given_x": [[1]]}}"#,
            "unsupported_version",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a"], "prior": [1], "mechanism": {"kind": "laplace"}}"#,
            "unsupported_mechanism",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a", "b"], "prior": [1.5, -0.5], "mechanism": {"kind": "matrix", "p_y_given_x": [[1], [1]]}}"#,
            "negative_probability",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a", "a"], "prior": [0.5, 0.5], "mechanism": {"kind": "matrix", "p_y_given_x": [[1], [1]]}}"#,
            "duplicate_label",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a", "b"], "prior": [0.5, 0.5], "secret": {"p_sx": [[0.6, 0.4]]}, "mechanism": {"kind": "matrix", "p_y_given_x": [[1], [1]]}}"#,
            "prior_mismatch",
        ),
        (
            r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a"], "prior": [1], "mechanism": {"kind": "matrix", "p_y_given_x": [[1]]}, "claims": {"ldp": -1}}"#,
            "invalid_argument",
        ),
    ];
    for (i, &(text, code)) in cases.iter().enumerate() {
        let f = t.write(&format!("d{i}.json"), text);
        let out = run(&["audit", &f]);
        out.fails(code, 1);
        assert!(out.stderr.contains(&f), "case {i}: {}", out.stderr);
    }
    // A missing file is `io` and names the path.
    let missing = t.0.join("missing.json");
    let missing = missing.to_str().unwrap();
    let out = run(&["audit", missing]);
    out.fails("io", 1);
    assert!(out.stderr.contains(missing), "{}", out.stderr);
    // Bytes that are not UTF-8 are not JSON.
    let bin = t.0.join("bin.json");
    std::fs::write(&bin, [0xff, 0xfe, b'{']).unwrap();
    run(&["audit", bin.to_str().unwrap()]).fails("json", 1);
}

#[test]
fn usage_errors() {
    let t = TempDir::new("cli");
    let d = t.write("doc.json", &doc("{}"));
    let m = t.write("m.json", &format!(r#"{{"p_y_given_x": {KRR3}}}"#));
    let p = t.write("p.json", r#"{"p": [0.2, 0.5, 0.3]}"#);
    let cases: &[(&[&str], &str)] = &[
        (&[], "no command"),
        (&["frobnicate"], "`frobnicate`"),
        (&["--frobnicate"], "`--frobnicate`"),
        (&["audit"], "DOC.json"),
        (&["audit", &d, "--bogus"], "`--bogus`"),
        (&["audit", &d, "-x"], "`-x`"),
        (&["audit", &d, "extra.json"], "`extra.json`"),
        (&["audit", &d, "--matrix", &m], "not both"),
        (&["audit", &d, "--prior", &p], "--matrix"),
        (&["audit", "--matrix", &m], "--prior"),
        (&["audit", "--matrix", &m, "--prior", &p, "--joint", &p], "not both"),
        (&["audit", "--matrix", &m, "--matrix", &m, "--prior", &p], "twice"),
        (&["serve", "--nope"], "`--nope`"),
        (&["serve", "--port", "70000"], "--port"),
        (&["serve", "--host", "0.0.0.0", "--port", "0"], "--public"),
    ];
    for (args, needle) in cases {
        let out = run(args);
        out.fails("invalid_argument", 2);
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn help_and_version() {
    for args in [&["--help"][..], &["help"], &["-h"]] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}");
        assert!(out.stdout.contains("privlift audit DOC.json"), "{args:?}");
        assert!(out.stdout.contains("privlift serve"), "{args:?}");
        // One name for a mechanism document in every command's usage: DOC.json.
        assert!(!out.stdout.contains("SPEC"), "{args:?}");
    }
    // A command's help is its own part of the help text: its usage and paragraph only.
    for (args, own, other) in [
        (&["audit", "--help"][..], "privlift audit DOC.json", "privlift serve"),
        (&["help", "audit"], "privlift audit DOC.json", "privlift serve"),
        (&["serve", "-h"], "privlift serve", "privlift audit"),
        (&["verify", "--help"], "privlift verify DOC.json", "privlift audit"),
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}");
        assert!(out.stdout.contains(own) && !out.stdout.contains(other), "{args:?}: {}", out.stdout);
        assert!(out.stdout.contains("Exit codes"), "{args:?}");
    }
    let out = run(&["--version"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout.trim(), format!("privlift {}", env!("CARGO_PKG_VERSION")));
}

/// One raw request, on a connection of its own: `Connection: close` is added after the
/// request line (the server keeps a connection alive unless asked not to).
fn request(addr: &str, raw: &str) -> Response {
    let raw = match raw.split_once("\r\n") {
        Some((line, rest)) => format!("{line}\r\nConnection: close\r\n{rest}"),
        None => raw.to_string(),
    };
    exchange(addr, raw.as_bytes()).unwrap()
}

fn get(addr: &str, path: &str) -> Response {
    request(addr, &format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"))
}

fn start_server(dir: &Path) -> (Running, String) {
    let server = common::http::start_server(
        &["serve", "--dir", dir.to_str().unwrap(), "--port", "0"],
        &format!("privlift: serving {} at ", dir.display()),
    );
    assert!(server.addr.starts_with("127.0.0.1:"), "{}", server.addr);
    let addr = server.addr.clone();
    (server, addr)
}

#[test]
fn serve_static_files() {
    let t = TempDir::new("cli");
    let www = t.0.join("www");
    std::fs::create_dir_all(www.join("pkg")).unwrap();
    std::fs::write(www.join("index.html"), "<!doctype html><p>hi</p>").unwrap();
    let wasm = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    std::fs::write(www.join("pkg/privlift_bg.wasm"), wasm).unwrap();
    std::fs::write(www.join("pkg/privlift.js"), "export {};").unwrap();
    std::fs::write(www.join("pkg/privlift.d.ts"), "export {};").unwrap();
    std::fs::write(t.0.join("secret.txt"), "outside").unwrap();

    let (_server, addr) = start_server(&www);
    assert!(addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"), "{addr}");

    let r = get(&addr, "/");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"<!doctype html><p>hi</p>");
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(r.header("connection"), Some("close"));

    let r = get(&addr, "/pkg/privlift_bg.wasm?v=1");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, wasm);
    assert_eq!(r.header("content-type"), Some("application/wasm"));
    assert_eq!(r.header("content-length"), Some("8"));
    assert_eq!(get(&addr, "/pkg/privlift.js").header("content-type"), Some("text/javascript"));
    assert_eq!(get(&addr, "/pkg/privlift.d.ts").header("content-type"), Some("text/plain"));

    let r = request(&addr, "HEAD /pkg/privlift_bg.wasm HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!((r.status, r.header("content-length")), (200, Some("8")));
    assert!(r.body.is_empty());

    assert_eq!(get(&addr, "/nope.js").status, 404);
    let r = get(&addr, "/pkg");
    assert_eq!((r.status, r.header("location")), (301, Some("/pkg/")));
    assert_eq!(get(&addr, "/pkg/").status, 404); // no index.html there

    for bad in ["/../secret.txt", "/pkg/../../secret.txt", "/%2e%2e/secret.txt", "/pkg/..%2f..%2fsecret.txt"] {
        let r = get(&addr, bad);
        assert_eq!(r.status, 403, "{bad}");
        assert!(!String::from_utf8_lossy(&r.body).contains("outside"), "{bad}");
    }
    assert_eq!(get(&addr, "/%zz").status, 400);
    assert_eq!(get(&addr, "relative").status, 400);
    assert_eq!(request(&addr, "garbage\r\n\r\n").status, 400);
    let r = request(&addr, "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    assert_eq!(request(&addr, "GET / HTTP/2.0\r\n\r\n").status, 400); // HTTP/1.x only
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
    assert_eq!(request(&addr, &huge).status, 431);
    // Still serving after all that.
    assert_eq!(get(&addr, "/").status, 200);
}

#[test]
fn serve_refuses_a_missing_dir() {
    let t = TempDir::new("cli");
    let missing = t.0.join("no-such-dir");
    let out = run(&["serve", "--dir", missing.to_str().unwrap(), "--port", "0"]);
    out.fails("io", 1);
    assert!(out.stderr.contains("no-such-dir"), "{}", out.stderr);
}

/// GET `path` with extra header lines `fields` (each ending in CRLF).
fn get_with(addr: &str, path: &str, fields: &str) -> Response {
    request(addr, &format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{fields}\r\n"))
}

/// The body of `r` decoded by its Content-Encoding.
fn decoded(r: &Response) -> Vec<u8> {
    let mut out = Vec::new();
    match r.header("content-encoding") {
        None => out.clone_from(&r.body),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&r.body[..]).read_to_end(&mut out).unwrap();
        }
        Some("br") => brotli::BrotliDecompress(&mut &r.body[..], &mut out).unwrap(),
        Some(other) => panic!("unexpected Content-Encoding {other}"),
    }
    out
}

/// A JSON document of about `n` bytes, compressible like a mechanism document.
fn json_of_size(n: usize) -> String {
    let cells: Vec<String> = (0..n / 8).map(|i| format!("{:.4}", (i % 17) as f64 / 17.0)).collect();
    format!("[{}]", cells.join(","))
}

#[test]
fn serve_compresses_by_accept_encoding() {
    let t = TempDir::new("cli");
    let json = json_of_size(20_000);
    let js = "export const x = 1;\n".repeat(100);
    let mut wasm = vec![0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    wasm.extend((0..4000u32).map(|i| (i % 7) as u8));
    let png = vec![7u8; 4000]; // compressible bytes, but not a compressible type
    t.write("doc.json", &json);
    t.write("small.json", r#"{"a": 1}"#);
    t.write("app.js", &js);
    std::fs::write(t.0.join("m.wasm"), &wasm).unwrap();
    std::fs::write(t.0.join("a.png"), &png).unwrap();
    let (_server, addr) = start_server(&t.0);

    for (path, bytes) in [("/doc.json", json.as_bytes()), ("/m.wasm", &wasm[..]), ("/app.js", js.as_bytes())] {
        for (accept, coding) in [
            ("gzip", Some("gzip")),
            ("br", Some("br")),
            ("gzip, deflate, br, zstd", Some("br")),
            ("br;q=0.5, gzip", Some("gzip")),
            ("gzip;q=0, br;q=0", None),
            ("*", Some("br")),
            ("br;q=0, *", Some("gzip")),
            ("*;q=0", None),
            ("identity", None),
            ("", None),
        ] {
            let r = get_with(&addr, path, &format!("Accept-Encoding: {accept}\r\n"));
            let what = format!("{path} with {accept:?}");
            assert_eq!(r.status, 200, "{what}");
            assert_eq!(r.header("content-encoding"), coding, "{what}");
            assert_eq!(r.header("vary"), Some("Accept-Encoding"), "{what}");
            assert_eq!(r.header("content-length"), Some(r.body.len().to_string().as_str()), "{what}");
            assert_eq!(decoded(&r), bytes, "{what}");
            if coding.is_some() {
                assert!(r.body.len() < bytes.len() / 2, "{what}: {} bytes", r.body.len());
            }
        }
        // No Accept-Encoding at all: identity.
        let r = get(&addr, path);
        assert_eq!((r.header("content-encoding"), r.body.as_slice()), (None, bytes), "{path}");
    }
    let r = get_with(&addr, "/doc.json", "Accept-Encoding: gzip\r\n");
    assert_eq!(r.header("content-type"), Some("application/json"));

    // Small bodies and other types are sent as they are.
    let r = get_with(&addr, "/small.json", "Accept-Encoding: br, gzip\r\n");
    assert_eq!((r.header("content-encoding"), r.body.as_slice()), (None, br#"{"a": 1}"#.as_slice()));
    let r = get_with(&addr, "/a.png", "Accept-Encoding: br, gzip\r\n");
    assert_eq!((r.header("content-encoding"), r.header("vary"), &r.body), (None, None, &png));

    // HEAD: the headers of the GET, no body.
    for accept in ["br", "gzip", "identity"] {
        let fields = format!("Accept-Encoding: {accept}\r\n");
        let g = get_with(&addr, "/doc.json", &fields);
        let h = request(&addr, &format!("HEAD /doc.json HTTP/1.1\r\nHost: x\r\n{fields}\r\n"));
        let fields = |r: &Response| -> Vec<(String, String)> {
            r.headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("date")).cloned().collect()
        };
        assert_eq!((h.status, fields(&h)), (200, fields(&g)), "{accept}");
        assert!(h.body.is_empty(), "{accept}");
    }
}

#[test]
fn serve_etags_and_revalidation() {
    let t = TempDir::new("cli");
    t.write("doc.json", &json_of_size(5_000));
    let (_server, addr) = start_server(&t.0);
    let etag = |accept: &str| get_with(&addr, "/doc.json", accept).header("etag").unwrap().to_string();

    let plain = etag("");
    let hex = plain.trim_matches('"');
    assert!(plain.starts_with('"') && plain.ends_with('"') && hex.len() == 32, "{plain}");
    assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{plain}");
    let (br, gz) = (etag("Accept-Encoding: br\r\n"), etag("Accept-Encoding: gzip\r\n"));
    assert_eq!((br.as_str(), gz.as_str()), (format!("\"{hex}-br\"").as_str(), format!("\"{hex}-gz\"").as_str()));
    assert_eq!(etag(""), plain, "stable across requests");

    // A matching If-None-Match, for each representation: 304, its validators, no body.
    for (accept, tag) in [("", &plain), ("Accept-Encoding: br\r\n", &br), ("Accept-Encoding: gzip\r\n", &gz)] {
        for inm in [tag.to_string(), format!("W/{tag}"), format!("\"other\", {tag}"), "*".to_string()] {
            let fields = format!("{accept}If-None-Match: {inm}\r\n");
            let r = get_with(&addr, "/doc.json", &fields);
            assert_eq!(r.status, 304, "{fields:?}");
            assert!(r.body.is_empty(), "{fields:?}");
            assert_eq!(r.header("etag"), Some(tag.as_str()), "{fields:?}");
            assert_eq!(r.header("cache-control"), Some("no-cache"), "{fields:?}");
            assert_eq!(r.header("vary"), Some("Accept-Encoding"), "{fields:?}");
            assert_eq!((r.header("content-encoding"), r.header("content-length")), (None, None), "{fields:?}");
            let h = request(&addr, &format!("HEAD /doc.json HTTP/1.1\r\n{fields}\r\n"));
            assert_eq!((h.status, h.header("etag")), (304, Some(tag.as_str())), "HEAD {fields:?}");
        }
    }
    // Another representation's ETag does not match.
    let r = get_with(&addr, "/doc.json", &format!("Accept-Encoding: br\r\nIf-None-Match: {plain}, {gz}\r\n"));
    assert_eq!((r.status, r.header("etag")), (200, Some(br.as_str())));

    // New content: new ETags, and the old ones no longer match.
    let changed = json_of_size(6_000);
    t.write("doc.json", &changed);
    assert_ne!(etag(""), plain);
    for (accept, old) in [("", &plain), ("Accept-Encoding: br\r\n", &br), ("Accept-Encoding: gzip\r\n", &gz)] {
        let r = get_with(&addr, "/doc.json", &format!("{accept}If-None-Match: {old}\r\n"));
        assert_eq!(r.status, 200, "{accept:?}");
        assert_ne!(r.header("etag"), Some(old.as_str()), "{accept:?}");
        assert_eq!(decoded(&r), changed.as_bytes(), "{accept:?}: the compressed body follows the file");
    }

    // Same length, new content (the server remembers a file's hash by length and
    // modification time, and sends a cached compressed body without reading the file).
    let br_now = etag("Accept-Encoding: br\r\n");
    let same_length = changed.replacen('1', "2", 1);
    assert_eq!(same_length.len(), changed.len());
    assert_ne!(same_length, changed);
    t.write("doc.json", &same_length);
    let r = get_with(&addr, "/doc.json", "Accept-Encoding: br\r\n");
    assert_ne!(r.header("etag"), Some(br_now.as_str()));
    assert_eq!(decoded(&r), same_length.as_bytes(), "not the cached body of the old content");

    // Same length, new content, and the old modification time set back (as `cp -p`,
    // `rsync -t` or `tar x` do): the change time tells them apart.
    let old_time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    let write_dated = |text: &str| {
        let path = t.write("doc.json", text);
        std::fs::File::options().write(true).open(path).unwrap().set_modified(old_time).unwrap();
    };
    let first = same_length.replacen('2', "3", 1);
    write_dated(&first);
    let r = get_with(&addr, "/doc.json", "Accept-Encoding: br\r\n");
    assert_eq!(decoded(&r), first.as_bytes());
    let second = first.replacen('3', "4", 1);
    assert_eq!(second.len(), first.len());
    write_dated(&second);
    let r = get_with(&addr, "/doc.json", "Accept-Encoding: br\r\n");
    assert!(decoded(&r) == second.as_bytes(), "the old body after a rewrite that kept length and modification time");
}

#[test]
fn serve_cache_control() {
    let t = TempDir::new("cli");
    std::fs::create_dir_all(t.0.join("pkg")).unwrap();
    for name in ["pkg/privlift_bg.3f2a9c1e.wasm", "pkg/app-0c5e7d91aa.js", "pkg/privlift_bg.wasm", "data-1234.json"] {
        t.write(name, "x");
    }
    let (_server, addr) = start_server(&t.0);
    let cache = |path: &str| get(&addr, path).header("cache-control").map(str::to_string);
    let immutable = Some("public, max-age=31536000, immutable".to_string());
    assert_eq!(cache("/pkg/privlift_bg.3f2a9c1e.wasm"), immutable);
    assert_eq!(cache("/pkg/app-0c5e7d91aa.js"), immutable);
    assert_eq!(cache("/pkg/privlift_bg.wasm").as_deref(), Some("no-cache"));
    assert_eq!(cache("/data-1234.json").as_deref(), Some("no-cache"));
    let r = request(&addr, "HEAD /pkg/privlift_bg.3f2a9c1e.wasm HTTP/1.1\r\n\r\n");
    assert_eq!(r.header("cache-control").map(str::to_string), immutable);
    // Errors and redirects are never kept.
    assert_eq!(cache("/missing.3f2a9c1e.wasm").as_deref(), Some("no-store"));
    assert_eq!(cache("/pkg").as_deref(), Some("no-store"));
}

/// The request head has 10 s in all, not 10 s per read: a head dribbled one line a
/// second is answered 408 and closed at 10 s (it used to be read on for as long as the
/// lines kept coming, holding one of the server's 128 connections).
#[test]
fn serve_gives_a_request_head_ten_seconds_in_all() {
    use std::time::Duration;
    let t = TempDir::new("cli");
    std::fs::write(t.0.join("index.html"), "<p>hi</p>").unwrap();
    let (_server, addr) = start_server(&t.0);
    let (got, end, elapsed) = dribble_head(&addr, b"GET / HTTP/1.1\r\n");
    let text = String::from_utf8_lossy(&got);
    assert!(end.is_some(), "still open after {elapsed:?}; received {text:?}");
    assert!(text.starts_with("HTTP/1.1 408 "), "after {elapsed:?} ({end:?}): {text:?}");
    assert!(elapsed >= Duration::from_secs(9) && elapsed < Duration::from_secs(14), "{elapsed:?}");
}

/// After its answer the server drains what the client still sends for 2 s in all (it
/// used to wait 2 s per read, so a byte every second kept the connection for up to
/// 256 KiB × 2 s), then closes: the client's writes then fail.
#[test]
fn serve_drains_after_the_answer_for_two_seconds_in_all() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let t = TempDir::new("cli");
    std::fs::write(t.0.join("index.html"), "<p>hi</p>").unwrap();
    let (_server, addr) = start_server(&t.0);
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap(); // the server's FIN ends the answer
    assert!(answer.starts_with(b"HTTP/1.1 200 "), "{}", String::from_utf8_lossy(&answer));
    let t0 = Instant::now();
    let failed = loop {
        if t0.elapsed() > Duration::from_secs(8) {
            break None;
        }
        if s.write_all(b"x").is_err() {
            break Some(t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let failed = failed.expect("the server still read what was sent 8 s after its answer");
    assert!(failed < Duration::from_secs(5), "{failed:?}");
}
