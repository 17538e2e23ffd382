//! The CLI of the lift-based and lift-inverse notions (`tests/notions.rs` checks the
//! designs themselves): `privlift design watchdog|subset-merging --notion l1|chi2|alpha`
//! and `privlift audit` of what it prints, and the flags' errors.

mod common;

use common::cli::{run, TempDir};
use serde_json::{json, Value};

const JOINT: &str = r#"{"secret_labels": ["pass", "fail"], "labels": ["A", "B", "C", "D"],
    "p_sx": [[0.2, 0.15, 0.1, 0.05], [0.05, 0.1, 0.1, 0.25]]}"#;

/// `privlift design watchdog|subset-merging --notion l1|chi2|alpha` prints a document
/// with `mi_xy`, `nmi`, `groups`, `low_risk` and the notion's claim, and `privlift
/// audit` on it reports both sides of the claim holding.
#[test]
fn design_and_audit() {
    let d = TempDir::new("notions");
    let j = d.write("j.json", JOINT);
    let cases: &[(&str, &[&str], Value)] = &[
        ("watchdog", &["--notion", "l1", "--epsilon", "0.5"], json!({"l1": {"eps_l": 0.5, "eps_u": 0.5}})),
        (
            "subset-merging",
            &["--notion", "chi2", "--eps-l", "0.6", "--eps-u", "0.3"],
            json!({"chi2": {"eps_l": 0.6, "eps_u": 0.3}}),
        ),
        (
            "subset-merging",
            &["--notion", "alpha", "--alpha-order", "10", "--epsilon", "0.4"],
            json!({"alpha": {"order": 10.0, "eps_l": 0.4, "eps_u": 0.4}}),
        ),
    ];
    for (i, (method, flags, claims)) in cases.iter().enumerate() {
        let mut argv = vec!["design", method, "--joint", &j];
        argv.extend_from_slice(flags);
        let out = run(&argv);
        assert_eq!(out.code, 0, "{argv:?}: {}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(&doc["claims"], claims);
        let u = &doc["utility"];
        for f in ["mi_xy", "nmi", "groups", "low_risk"] {
            assert!(!u[f].is_null(), "{argv:?}: no {f} in {u}");
        }
        assert_eq!(u["low_risk"], json!([1, 2]), "{argv:?}");
        assert_eq!(u["groups"], json!([[0, 3]]), "{argv:?}");
        let path = d.write(&format!("d{i}.json"), &out.stdout);
        let out = run(&["audit", &path]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let a: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(a["claims_hold"], json!(true), "{a:#}");
        let names: Vec<&str> = a["claims"].as_array().unwrap().iter().map(|c| c["notion"].as_str().unwrap()).collect();
        let n = claims.as_object().unwrap().keys().next().unwrap();
        assert_eq!(names, [format!("{n}.eps_l"), format!("{n}.eps_u")]);
    }
}

/// Bad `--alpha-order` combinations exit 1 with `invalid_argument`; a non-number is a
/// usage error (exit 2); an infeasible budget exits 1 with `infeasible`. Nothing is
/// printed on stdout.
#[test]
fn flag_errors() {
    let d = TempDir::new("notions");
    let j = d.write("j.json", JOINT);
    let cases: &[(&[&str], i32, &str)] = &[
        (&["--notion", "l1", "--epsilon", "1", "--alpha-order", "2"], 1, "error[invalid_argument]"),
        (&["--notion", "alpha", "--epsilon", "1"], 1, "error[invalid_argument]"),
        (&["--notion", "alpha", "--epsilon", "1", "--alpha-order", "1"], 1, "error[invalid_argument]"),
        (&["--notion", "alpha", "--epsilon", "1", "--alpha-order", "two"], 2, "--alpha-order"),
        (&["--notion", "l1", "--eps-l", "0.7", "--eps-u", "0.5"], 1, "error[infeasible]"),
    ];
    for (flags, exit, msg) in cases {
        let mut argv = vec!["design", "watchdog", "--joint", &j];
        argv.extend_from_slice(flags);
        let out = run(&argv);
        assert_eq!(out.code, *exit, "{argv:?}: {}", out.stderr);
        assert!(out.stderr.contains(msg), "{argv:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
}
