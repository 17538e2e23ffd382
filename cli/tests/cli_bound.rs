//! Integration tests of `privlift bound`: each kind prints one JSON object whose numbers
//! equal the library's, and every malformed call fails with a named code.
//! Run with `cargo test -p privlift-cli --test cli_bound`.

extern crate alloc;

use privlift::accounting;
use privlift::accounting as real;
use privlift::document::Matrix;
use privlift::param::{Budget, Delta, Epsilon, Probability};
use privlift::Result;
// The library's functions over plain numbers, validated into their types as the CLI does.
#[path = "../../src/accounting/shims.rs"]
#[allow(dead_code)]
mod shims;
use serde_json::{json, Value};

mod common;
use common::cli::{run, Out, TempDir};

/// `privlift bound` prints one JSON object and a newline.
trait OneObject {
    fn json_line(&self) -> Value;
}

impl OneObject for Out {
    fn json_line(&self) -> Value {
        assert!(self.stdout.ends_with("}\n"), "one JSON object and a newline: {}", self.stdout);
        self.json()
    }
}

/// Asserts `out` prints exactly the fields `want`, in that order.
fn assert_fields(out: &Out, v: &Value, want: &[&str]) {
    let mut got: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = want.to_vec();
    got.sort_unstable();
    sorted.sort_unstable();
    assert_eq!(got, sorted);
    let pos: Vec<usize> = want.iter().map(|k| out.stdout.find(&format!("\"{k}\":")).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "field order: {}", out.stdout);
}

/// Equal up to serde_json's float parsing (which may be one ulp off without its
/// `float_roundtrip` feature).
fn assert_close(got: f64, want: f64) {
    assert!((got - want).abs() <= 4.0 * f64::EPSILON * want.abs(), "{got} vs {want}");
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn rr(p: f64) -> Vec<Vec<f64>> {
    vec![vec![p, 1.0 - p], vec![1.0 - p, p]]
}

fn matrix(rows: &[Vec<f64>]) -> Matrix {
    Matrix::from_rows("m", rows, rows[0].len()).unwrap()
}

fn lip(prior: &[f64], rows: &[Vec<f64>]) -> f64 {
    let n = prior.len();
    let mut d = vec![0.0; n * n];
    for i in 0..n {
        d[i * n + i] = prior[i];
    }
    privlift::audit(&Matrix::from_flat(n, n, d), &matrix(rows), 2.0).unwrap().lip
}

#[test]
fn scalar_bounds_match_the_library() {
    let out = run(&["bound", "lip-to-ldp", "--epsilon", "1", "--pmin", "0.6"]);
    let v = out.json_line();
    assert_fields(&out, &v, &["bound"]);
    assert_close(num(&v["bound"]), shims::lip_to_ldp(1.0, 0.6).unwrap());
    let out = run(&["bound", "ldp-to-lip", "--epsilon=2", "--pmin=0.25"]);
    let v = out.json_line();
    assert_fields(&out, &v, &["bound"]);
    assert_close(num(&v["bound"]), shims::ldp_to_lip(2.0, 0.25).unwrap());
    // ε = inf is a valid (unbounded) budget and prints as "inf".
    let v = run(&["bound", "lip-to-ldp", "--epsilon", "inf", "--pmin", "0.5"]).json_line();
    assert_eq!(v["bound"], json!("inf"));
}

#[test]
fn lip_to_ldp_exact_prints_the_optimum_of_eq9() {
    let dir = TempDir::new("cli-bound");
    let p = dir.json("p.json", &json!({"labels": ["a", "b"], "p": [0.1, 0.9]}));
    let out = run(&["bound", "lip-to-ldp-exact", "--prior", &p, "--epsilon", "1"]);
    let v = out.json_line();
    assert_fields(&out, &v, &["ldp"]);
    let ldp = num(&v["ldp"]);
    assert_close(ldp, shims::lip_to_ldp_exact(&[0.1, 0.9], 1.0).unwrap());
    assert!(ldp < 1.25 && ldp > 1.2, "{ldp}"); // well below Prop 1's 2
                                               // A prior with a zero: unbounded.
    let z = dir.json("z.json", &json!({"p": [0.0, 0.5, 0.5]}));
    assert_eq!(run(&["bound", "lip-to-ldp-exact", "--prior", &z, "--epsilon", "1"]).json_line()["ldp"], json!("inf"));
}

#[test]
fn compose_prints_each_release_the_bound_and_the_exact_leakage() {
    let dir = TempDir::new("cli-bound");
    let p = dir.json("p.json", &json!({"p": [0.5, 0.5]}));
    let m1 = dir.json("m1.json", &json!({"p_y_given_x": rr(0.75)}));
    let m2 = dir.json("m2.json", &json!({"p_y_given_x": [[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]]}));
    let out = run(&["bound", "compose", "--prior", &p, "--matrix", &m1, "--matrix", &m2]);
    let v = out.json_line();
    assert_fields(&out, &v, &["eps_k", "bound", "exact"]);
    let eps: Vec<f64> = v["eps_k"].as_array().unwrap().iter().map(num).collect();
    let want = [lip(&[0.5, 0.5], &rr(0.75)), lip(&[0.5, 0.5], &[vec![0.6, 0.3, 0.1], vec![0.2, 0.3, 0.5]])];
    for (g, w) in eps.iter().zip(want) {
        assert_close(*g, w);
    }
    assert_close(num(&v["bound"]), shims::compose_lip(&eps, 0.5).unwrap());
    let exact = num(&v["exact"]);
    assert!(exact <= num(&v["bound"]) && exact > eps[0].max(eps[1]), "{v}");
    // Same release twice: Thm 4 is exact for binary RR under a uniform prior (ln 5).
    let v = run(&["bound", "compose", "--matrix", &m1, "--prior", &p, "--matrix", &m1]).json_line();
    assert!((num(&v["exact"]) - 5.0f64.ln()).abs() < 1e-12 && (num(&v["bound"]) - 5.0f64.ln()).abs() < 1e-12);
}

#[test]
fn compose_refuses_an_unaffordable_joint_release() {
    let dir = TempDir::new("cli-bound");
    let p = dir.json("p.json", &json!({"p": [0.5, 0.5]}));
    let wide = dir.json("w.json", &json!({"p_y_given_x": vec![vec![1.0 / 400.0; 400]; 2]}));
    let err = run(&["bound", "compose", "--prior", &p, "--matrix", &wide, "--matrix", &wide])
        .fails("invalid_argument", 1)
        .to_string();
    assert!(err.contains("100000") && err.contains("not affordable"), "{err}");
}

#[test]
fn transfer_prints_lemma3_eq12_and_cor7() {
    let dir = TempDir::new("cli-bound");
    let (p1v, p2v) = ([0.5, 0.5], [0.4, 0.6]);
    let p1 = dir.json("p1.json", &json!({"p": p1v}));
    let p2 = dir.json("p2.json", &json!({"p": p2v}));
    let m = dir.json("m.json", &json!({"p_y_given_x": rr(0.75)}));
    let eps = lip(&p1v, &rr(0.75));
    let e = format!("{eps:.17}");
    let out = run(&["bound", "transfer", "--p1", &p1, "--p2", &p2, "--matrix", &m, "--epsilon", &e]);
    let v = out.json_line();
    assert_fields(&out, &v, &["eta", "lip_p1", "lip_p2", "eq12_bound", "cor7_eta"]);
    let eta = accounting::transfer_eta(&p1v, &p2v).unwrap();
    assert_close(num(&v["eta"]), eta);
    assert_close(num(&v["lip_p1"]), eps);
    assert_close(num(&v["lip_p2"]), lip(&p2v, &rr(0.75)));
    assert_close(num(&v["eq12_bound"]), shims::transfer_lip_bound(e.parse().unwrap(), eta, 0.5).unwrap());
    assert!(num(&v["lip_p2"]) <= num(&v["eq12_bound"]));
    assert!(v["cor7_eta"].is_null());
    let with_samples = ["--epsilon", "1", "--samples", "1000", "--beta", "0.05"];
    let mut args = vec!["bound", "transfer", "--p1", &p1, "--p2", &p2, "--matrix", &m];
    args.extend(with_samples);
    let v = run(&args).json_line();
    assert_close(num(&v["cor7_eta"]), shims::empirical_prior_eta(1000, 0.05, 2, 0.4).unwrap());
}

#[test]
fn transfer_refuses_an_epsilon_the_mechanism_does_not_meet() {
    let dir = TempDir::new("cli-bound");
    let p1 = dir.json("p1.json", &json!({"p": [0.5, 0.5]}));
    let m = dir.json("m.json", &json!({"p_y_given_x": rr(0.75)}));
    let err = run(&["bound", "transfer", "--p1", &p1, "--p2", &p1, "--matrix", &m, "--epsilon", "0.1"])
        .fails("claim_violated", 1)
        .to_string();
    assert!(err.contains("lip under p1"), "{err}");
}

#[test]
fn malformed_calls_fail_with_named_codes() {
    let dir = TempDir::new("cli-bound");
    let p = dir.json("p.json", &json!({"p": [0.5, 0.5]}));
    let p3 = dir.json("p3.json", &json!({"p": [0.2, 0.3, 0.5]}));
    let bad = dir.json("bad.json", &json!({"p": [0.5, 0.6]}));
    let m = dir.json("m.json", &json!({"p_y_given_x": rr(0.75)}));
    // `bound transfer` of P1 = P2 = p through m, then `tail`.
    let transfer = |tail: &[&'static str]| {
        let head: [&str; 8] = ["bound", "transfer", "--p1", &p, "--p2", &p, "--matrix", &m];
        [&head[..], tail].concat()
    };
    // Usage errors (exit 2).
    for args in [
        vec!["bound"],
        vec!["bound", "nope"],
        vec!["bound", "lip-to-ldp", "--epsilon", "1"],
        vec!["bound", "lip-to-ldp", "--epsilon", "x", "--pmin", "0.5"],
        vec!["bound", "lip-to-ldp", "--epsilon", "1", "--pmin", "0.5", "extra"],
        vec!["bound", "ldp-to-lip", "--epsilon", "1", "--pmin", "0.5", "--prior", &p],
        vec!["bound", "lip-to-ldp-exact", "--epsilon", "1"],
        vec!["bound", "compose", "--prior", &p],
        vec!["bound", "compose", "--prior", &p, "--matrix"],
        transfer(&["--epsilon", "1", "--samples", "10"]),
        transfer(&["--epsilon", "1", "--samples", "1.5", "--beta", "0.1"]),
    ] {
        let out = run(&args);
        out.fails("invalid_argument", 2);
    }
    // Out-of-range values are the library's invalid_argument (exit 1).
    for args in [
        vec!["bound", "lip-to-ldp", "--epsilon", "-1", "--pmin", "0.5"],
        vec!["bound", "lip-to-ldp", "--epsilon", "nan", "--pmin", "0.5"],
        vec!["bound", "lip-to-ldp", "--epsilon", "1", "--pmin", "0"],
        vec!["bound", "ldp-to-lip", "--epsilon", "1", "--pmin", "1.5"],
        vec!["bound", "lip-to-ldp-exact", "--prior", &p, "--epsilon", "-0.5"],
        transfer(&["--epsilon", "1", "--samples", "10", "--beta", "1"]),
        transfer(&["--epsilon", "-1"]),
    ] {
        run(&args).fails("invalid_argument", 1);
    }
    // File content errors name the file.
    let err =
        run(&["bound", "lip-to-ldp-exact", "--prior", &bad, "--epsilon", "1"]).fails("not_normalized", 1).to_string();
    assert!(err.contains("bad.json"), "{err}");
    run(&["bound", "compose", "--prior", &p3, "--matrix", &m]).fails("dimension_mismatch", 1);
    run(&["bound", "transfer", "--p1", &p, "--p2", &p3, "--matrix", &m, "--epsilon", "1"])
        .fails("dimension_mismatch", 1);
    run(&["bound", "compose", "--prior", &p, "--matrix", "/nonexistent/m.json"]).fails("io", 1);
}

#[test]
fn help_lists_the_bound_kinds() {
    let out = run(&["bound", "--help"]);
    assert_eq!(out.code, 0);
    for kind in ["lip-to-ldp", "ldp-to-lip", "lip-to-ldp-exact", "compose", "transfer"] {
        assert!(out.stdout.contains(&format!("privlift bound {kind}")), "{kind}");
    }
    assert!(run(&["bound", "compose", "--help"]).stdout.contains("privlift bound compose"));
}
