//! Integration tests of `privlift design` and `privlift estimate`.
//! Run with `cargo test -p privlift-cli --test cli_design`.

use privlift::Document;
use privlift_design::estimate::estimate_document;
use serde_json::{json, Value};

mod common;
use common::cli::{run, TempDir};

/// The standard inputs: P.json, J.json, PS.json, D.json.
fn inputs(dir: &TempDir) -> Inputs {
    Inputs {
        prior: dir.write("p.json", r#"{"labels": ["a", "b", "c"], "p": [0.2, 0.5, 0.3]}"#),
        joint: dir.write(
            "j.json",
            r#"{"secret_labels": ["pass", "fail"], "labels": ["A", "B", "C"],
                "p_sx": [[0.2, 0.5, 0.0], [0.0, 0.0, 0.3]]}"#,
        ),
        priors: dir
            .write("ps.json", r#"{"labels": ["lo", "mid", "hi"], "priors": [[0.2, 0.5, 0.3], [0.3, 0.4, 0.3]]}"#),
        distortion: dir.write("d.json", r#"{"d": [[0, 1, 4], [1, 0, 1], [4, 1, 0]]}"#),
    }
}

struct Inputs {
    prior: String,
    joint: String,
    priors: String,
    distortion: String,
}

const UTILITY: [&str; 5] = ["mi_xy", "nmi", "tv", "hamming", "expected_distortion"];

/// Designs with `args`, writes the document to `name` in `dir`, audits it with the CLI
/// and asserts every claim holds. Returns the document and its path.
fn design_and_audit(dir: &TempDir, name: &str, args: &[&str]) -> (Value, String) {
    let mut argv = vec!["design"];
    argv.extend_from_slice(args);
    let out = run(&argv);
    let doc = out.json();
    assert!(out.stdout.ends_with("}\n"), "pretty JSON with a final newline");
    // The document is valid as published.
    let parsed = Document::from_json(&out.stdout).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(parsed.id(), doc["id"].as_str().unwrap());
    let path = dir.write(name, &out.stdout);
    let audit = run(&["audit", &path]).json();
    assert_eq!(audit["claims_hold"], json!(true), "{name}: {audit:#}");
    assert!(!audit["claims"].as_array().unwrap().is_empty(), "{name}: no claims");
    let u = doc["utility"].as_object().unwrap_or_else(|| panic!("{name}: no utility"));
    for f in UTILITY {
        assert!(u.contains_key(f), "{name}: utility lacks {f}: {u:?}");
    }
    (doc, path)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Every utility figure is a number in a sane range (mi_xy, nmi, tv, hamming ≥ 0; nmi,
/// tv, hamming ≤ 1).
fn assert_utility_defined(name: &str, doc: &Value) {
    let u = &doc["utility"];
    for f in UTILITY {
        let v = num(&u[f]);
        assert!(v >= 0.0, "{name}: {f} = {v}");
        if matches!(f, "nmi" | "tv" | "hamming") {
            assert!(v <= 1.0, "{name}: {f} = {v}");
        }
    }
}

#[test]
fn every_method_designs_a_document_whose_claims_hold() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let cases: [(&str, Vec<&str>); 8] = [
        ("krr", vec!["--prior", &i.prior, "--epsilon", "1"]),
        ("oue", vec!["--joint", &i.joint, "--epsilon", "1"]),
        ("rr-lip", vec!["--prior", &i.prior, "--epsilon", "0.5"]),
        ("rr-lip-interval", vec!["--a", "0.3", "--b", "0.5", "--epsilon", "1"]),
        ("rr-bp-lip", vec!["--priors", &i.priors, "--epsilon", "1", "--distortion", &i.distortion]),
        ("linear-markov", vec!["--joint", &i.joint, "--alpha", "0.5"]),
        ("linear-tv", vec!["--joint", &i.joint, "--alpha", "0.5"]),
        ("linear-distance", vec!["--joint", &i.joint, "--alpha", "0.5", "--distortion", &i.distortion]),
    ];
    for (method, flags) in &cases {
        let mut args = vec![*method];
        args.extend(flags.iter().copied());
        let (doc, _) = design_and_audit(&dir, &format!("{method}.json"), &args);
        let eps = flags.iter().position(|f| *f == "--epsilon").map(|p| flags[p + 1].parse::<f64>().unwrap());
        let eps = eps.map(|e| privlift::param::Epsilon::new("epsilon", e).unwrap());
        assert_eq!(doc["id"], json!(privlift_design::default_id(method, eps)), "{method}");
        let kind = doc["mechanism"]["kind"].as_str().unwrap();
        match *method {
            "oue" => {
                assert_eq!(kind, "unary");
                // A bit-vector report has no TV/Hamming/distortion; MI is exact (|X| = 3).
                for f in ["tv", "hamming", "expected_distortion"] {
                    assert!(doc["utility"][f].is_null(), "oue {f}: {}", doc["utility"][f]);
                }
                assert!(num(&doc["utility"]["mi_xy"]) > 0.0);
                assert!(num(&doc["utility"]["nmi"]) <= 1.0);
                let claim = num(&doc["claims"]["ldp_x"]);
                assert!((1.0..=1.0 + 1e-12).contains(&claim), "oue claims {claim}");
                assert!(doc["secret"].is_object(), "the joint's secret is declared");
            }
            m => {
                assert_utility_defined(m, &doc);
                // The most compact kind that states the channel exactly.
                let expected: &[&str] = match m {
                    _ if m.starts_with("linear-") => &["per_secret"],
                    "krr" => &["krr"],
                    "rr-lip" => &["rr_lip", "sparse", "matrix"],
                    "watchdog" | "subset-merging" => &["merge"],
                    m if m.starts_with("orr-") || m == "srr" => &["srr", "sparse", "matrix"],
                    _ => &["sparse", "matrix"],
                };
                assert!(expected.contains(&kind), "{m}: {kind}");
                if let Some(rows) = doc["mechanism"]["p_y_given_x"].as_array() {
                    let cells: Vec<f64> = rows.iter().flat_map(|r| r.as_array().unwrap().iter().map(num)).collect();
                    let nonzero = cells.iter().filter(|&&v| v != 0.0).count();
                    assert!(5 * nonzero > 2 * cells.len(), "{m}: a matrix with {nonzero}/{} non-zeros", cells.len());
                }
            }
        }
        match *method {
            "krr" => {
                // The claim is the audited figure when that is a few ulps above ε (the
                // audit rounds up; a claim below it could be below the exact leakage).
                let claim = num(&doc["claims"]["ldp_x"]);
                assert!((1.0..=1.0 + 1e-12).contains(&claim), "krr claims {claim}");
                assert_eq!(doc["labels"], json!(["a", "b", "c"]));
            }
            "rr-lip" => assert_eq!(doc["claims"]["lip"], json!(0.5)),
            "rr-lip-interval" => {
                assert_eq!(doc["claims"]["bp_lip"]["priors"], json!([[0.7, 0.3], [0.5, 0.5]]));
                assert_eq!(doc["labels"], json!(["0", "1"]));
            }
            "rr-bp-lip" => {
                assert_eq!(doc["claims"]["bp_lip"]["eps"], json!(1.0));
                assert_eq!(doc["labels"], json!(["lo", "mid", "hi"]));
            }
            m if m.starts_with("linear-") => {
                assert_eq!(doc["secret"]["labels"], json!(["pass", "fail"]));
                assert!(doc["claims"]["lip"].is_number() && doc["claims"]["ldp"].is_number(), "{m}");
            }
            _ => {}
        }
    }
    // The distortion reaches the design: with d = [[0,1,4],[1,0,1],[4,1,0]] the expected
    // distortion differs from the mean absolute error on indices.
    let with_d =
        run(&["design", "linear-distance", "--joint", &i.joint, "--alpha", "0.5", "--distortion", &i.distortion])
            .json();
    let without = run(&["design", "linear-distance", "--joint", &i.joint, "--alpha", "0.5"]).json();
    assert_eq!(num(&without["utility"]["expected_distortion"]), num(&without["utility"]["mae"]));
    assert_ne!(num(&with_d["utility"]["expected_distortion"]), num(&with_d["utility"]["mae"]));
}

#[test]
fn design_options_id_labels_and_inline_values() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let doc = run(&["design", "krr", "--joint", &i.joint, "--epsilon=0.7", "--id", "grades-v2"]).json();
    assert_eq!(doc["id"], json!("grades-v2"));
    assert!(doc["claims"]["ldp"].is_number(), "a joint adds the audited LDP w.r.t. S");
    // rr-lip-interval takes only the labels of --prior.
    let p2 = dir.write("p2.json", r#"{"labels": ["no", "yes"], "p": [0.9, 0.1]}"#);
    let doc = run(&["design", "rr-lip-interval", "--a", "0.3", "--b", "0.5", "--epsilon", "1", "--prior", &p2]).json();
    assert_eq!(doc["labels"], json!(["no", "yes"]));
    assert_eq!(doc["prior"], json!([0.6, 0.4]), "the declared prior is the interval's midpoint");
    // A prior without labels gets indices.
    let p3 = dir.write("p3.json", r#"{"p": [0.25, 0.75]}"#);
    let doc = run(&["design", "krr", "--prior", &p3, "--epsilon", "1"]).json();
    assert_eq!(doc["labels"], json!(["0", "1"]));
    // --help anywhere prints the usage, which lists every method.
    let help = run(&["design", "krr", "--help"]);
    assert_eq!(help.code, 0);
    for m in ["krr", "oue", "rr-lip", "rr-lip-interval", "rr-bp-lip", "linear-markov", "linear-tv", "linear-distance"] {
        assert!(help.stdout.contains(m), "help lacks {m}");
    }
    // `estimate` has its own help now (per-command help).
    assert!(run(&["estimate", "--help"]).stdout.contains("privlift estimate --doc DOC.json"));
    for f in ["PS.json", "D.json", "C.json"] {
        assert!(help.stdout.contains(f), "help lacks {f}");
    }
}

#[test]
fn design_usage_errors_name_the_flag_and_the_method() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let cases: &[(&[&str], &[&str])] = &[
        (&["design", "krr", "--prior", &i.prior], &["--epsilon", "krr"]),
        (&["design", "oue", "--epsilon", "1"], &["--prior", "--joint", "oue"]),
        (&["design", "rr-lip", "--prior", &i.prior, "--joint", &i.joint, "--epsilon", "1"], &["not both"]),
        (&["design", "linear-tv", "--prior", &i.prior, "--alpha", "0.5"], &["--joint", "linear-tv"]),
        (&["design", "linear-markov", "--joint", &i.joint], &["--alpha", "linear-markov"]),
        (&["design", "rr-lip-interval", "--a", "0.1", "--epsilon", "1"], &["--b", "rr-lip-interval"]),
        (&["design", "rr-bp-lip", "--epsilon", "1"], &["--priors", "rr-bp-lip"]),
        (&["design", "krr", "--prior", &i.prior, "--epsilon", "1", "--alpha", "0.5"], &["--alpha", "krr"]),
        (&["design", "krr", "--prior", &i.prior, "--epsilon", "1", "--distortion", &i.distortion], &["--distortion"]),
        (
            &["design", "linear-tv", "--joint", &i.joint, "--alpha", "0.5", "--distortion", &i.distortion],
            &["linear-tv"],
        ),
        (&["design", "rr-lip-interval", "--a", "0", "--b", "1", "--epsilon", "1", "--joint", &i.joint], &["--joint"]),
        (&["design", "nope", "--epsilon", "1"], &["nope", "linear-distance"]),
        (&["design"], &["METHOD"]),
        (&["design", "krr", "extra", "--prior", &i.prior, "--epsilon", "1"], &["extra"]),
        (&["design", "krr", "--prior", &i.prior, "--epsilon", "one"], &["--epsilon", "\"one\""]),
        (&["design", "krr", "--prior", &i.prior, "--epsilon"], &["--epsilon", "needs a value"]),
        (&["design", "krr", "--bogus", "1"], &["--bogus"]),
        (&["estimate", "--spec", &i.prior], &["--counts"]),
        (&["estimate", "--doc", &i.prior], &["--counts"]),
        (&["estimate", "--counts", &i.prior], &["--doc DOC.json"]),
        (&["estimate", "--doc", &i.prior, "--spec", &i.prior, "--counts", &i.prior], &["--spec", "--doc"]),
        (&["estimate", "--db", "sqlite:x.db", "--mechanism", "m", "--doc", &i.prior], &["--doc"]),
    ];
    for (argv, needles) in cases {
        let out = run(argv);
        let err = out.fails("invalid_argument", 2);
        for n in *needles {
            assert!(err.contains(n), "{argv:?}: {err:?} lacks {n:?}");
        }
    }
}

#[test]
fn design_input_errors_exit_1_with_the_library_code() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let unnormalised = dir.write("bad.json", r#"{"labels": ["a", "b", "c"], "p": [0.2, 0.5, 0.4]}"#);
    let duplicate = dir.write("dup.json", r#"{"labels": ["a", "a"], "p": [0.5, 0.5]}"#);
    let ragged = dir.write("ps-ragged.json", r#"{"priors": [[0.5, 0.5], [0.2, 0.3, 0.5]]}"#);
    let negative_d = dir.write("d-neg.json", r#"{"d": [[0, -1, 1], [1, 0, 1], [1, 1, 0]]}"#);
    let d2 = dir.write("d2.json", r#"{"d": [[0, 1], [1, 0]]}"#);
    let cases: &[(&[&str], &str, &[&str])] = &[
        (&["design", "krr", "--prior", &i.prior, "--epsilon", "-1"], "invalid_argument", &["epsilon"]),
        (&["design", "oue", "--prior", &i.prior, "--epsilon", "0"], "invalid_argument", &["epsilon"]),
        (&["design", "krr", "--prior", &unnormalised, "--epsilon", "1"], "not_normalized", &["bad.json", "`p`"]),
        (&["design", "rr-lip", "--prior", &duplicate, "--epsilon", "1"], "duplicate_label", &["dup.json"]),
        (&["design", "linear-tv", "--joint", &i.joint, "--alpha", "1.5"], "invalid_argument", &["alpha"]),
        (&["design", "rr-lip-interval", "--a", "0.6", "--b", "0.2", "--epsilon", "1"], "invalid_argument", &["a, b"]),
        (
            &["design", "rr-lip-interval", "--a", "0.2", "--b", "0.6", "--epsilon", "1", "--prior", &i.prior],
            "dimension_mismatch",
            &["p.json"],
        ),
        (&["design", "rr-bp-lip", "--priors", &ragged, "--epsilon", "1"], "dimension_mismatch", &["priors[1]"]),
        (
            &["design", "rr-bp-lip", "--priors", &i.priors, "--epsilon", "1", "--distortion", &negative_d],
            "negative_probability",
            &["d-neg.json"],
        ),
        (
            &["design", "linear-distance", "--joint", &i.joint, "--alpha", "0.5", "--distortion", &d2],
            "dimension_mismatch",
            &["d2.json"],
        ),
        (&["design", "krr", "--prior", &i.joint, "--epsilon", "1"], "json", &["j.json"]),
        (&["design", "krr", "--prior", "/nonexistent/p.json", "--epsilon", "1"], "io", &["/nonexistent/p.json"]),
    ];
    for (argv, code, needles) in cases {
        let out = run(argv);
        let err = out.fails(code, 1);
        for n in *needles {
            assert!(err.contains(n), "{argv:?}: {err:?} lacks {n:?}");
        }
    }
}

/// Runs `privlift estimate ARGS` (the unbiased method unless ARGS name one) and returns
/// its JSON output (asserting success).
fn estimate_json(args: &[&str]) -> Value {
    let mut argv = vec!["estimate"];
    argv.extend_from_slice(args);
    if !args.contains(&"--method") {
        argv.extend(["--method", "unbiased"]);
    }
    run(&argv).json()
}

/// Equal to a few ulps: the CLI prints shortest round-trip decimals, but serde_json
/// (without `float_roundtrip`) may read them back one ulp off.
fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

#[test]
fn estimate_matches_the_library_and_counts_merge() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let (_, spec) = design_and_audit(&dir, "krr.json", &["krr", "--prior", &i.prior, "--epsilon", "1"]);
    let doc = Document::from_json(&std::fs::read_to_string(&spec).unwrap()).unwrap();

    let counts = [310.0, 480.0, 210.0];
    let c = dir.write("c.json", r#"{"counts": [310, 480, 210]}"#);
    let text = run(&["estimate", "--spec", &spec, "--counts", &c, "--method", "unbiased"]).stdout;
    let at: Vec<usize> = ["\"estimate\"", "\"std_error\"", "\"n\"", "\"labels\""]
        .iter()
        .map(|k| text.find(k).unwrap_or_else(|| panic!("{k} missing: {text}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "contract order: {text}");
    assert!(!text.contains("projected"), "{text}");
    let out: Value = serde_json::from_str(&text).unwrap();
    // `--doc` and its other name `--spec` read the same document.
    assert_eq!(run(&["estimate", "--doc", &spec, "--counts", &c, "--method", "unbiased"]).stdout, text);
    let want = estimate_document(&doc, &counts, None).unwrap();
    assert_close(&floats(&out["estimate"]), &want.estimate);
    assert_close(&floats(&out["std_error"]), &want.std_error);
    assert_eq!(out["n"], json!(1000));
    assert_eq!(out["labels"], json!(["a", "b", "c"]));

    // Keyed by output label (any order, a missing label is 0) = the same vector.
    let by_label = dir.write("cl.json", r#"{"counts": {"c": 210, "a": 310, "b": 480}}"#);
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &by_label]), out);
    let sparse = dir.write("cs.json", r#"{"counts": {"b": 480, "a": 310}}"#);
    let zero = dir.write("cz.json", r#"{"counts": [310, 480, 0]}"#);
    assert_eq!(
        estimate_json(&["--spec", &spec, "--counts", &sparse]),
        estimate_json(&["--spec", &spec, "--counts", &zero])
    );

    // Mergeable: 1000 reports (310 a, 480 b, 210 c, interleaved) in two shards of
    // different sizes; each shard is counted on its own (`GROUP BY report`), the two
    // count objects are added, and the estimate is that of all reports.
    let reports: Vec<&str> = (0..1000)
        .map(|r| {
            if r % 100 < 31 {
                "a"
            } else if r % 100 < 79 {
                "b"
            } else {
                "c"
            }
        })
        .collect();
    let count = |shard: &[&str]| {
        let mut m = serde_json::Map::new();
        for r in shard {
            let c = m.entry(r.to_string()).or_insert(json!(0));
            *c = json!(c.as_u64().unwrap() + 1);
        }
        m
    };
    let (c1, c2) = (count(&reports[..377]), count(&reports[377..]));
    let mut merged = c1.clone();
    for (label, c) in &c2 {
        let e = merged.entry(label.clone()).or_insert(json!(0));
        *e = json!(e.as_u64().unwrap() + c.as_u64().unwrap());
    }
    assert_eq!(merged, count(&reports), "counts of the union");
    let m = dir.write("cm.json", &json!({ "counts": merged }).to_string());
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &m]), out);
    let shard = dir.write("c1.json", &json!({ "counts": c1 }).to_string());
    assert_ne!(estimate_json(&["--spec", &spec, "--counts", &shard])["n"], json!(1000));
    // The CLI sums the shards itself: `--counts` once per shard, in any format.
    let shard2 = dir.write("c2.json", &json!({ "counts": [c2["a"], c2["b"], c2["c"]] }).to_string());
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &shard, "--counts", &shard2]), out);
    // `n` in every shard (then summed) or in none.
    let (n1, n2) = (reports[..377].len(), reports[377..].len());
    let s1n = dir.write("c1n.json", &json!({ "counts": c1, "n": n1 }).to_string());
    let s2n = dir.write("c2n.json", &json!({ "counts": c2, "n": n2 }).to_string());
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &s1n, "--counts", &s2n]), out);
    let mixed = run(&["estimate", "--spec", &spec, "--counts", &s1n, "--counts", &shard2]);
    mixed.fails("invalid_argument", 1);
    assert!(mixed.stderr.contains("c2.json"), "names the shard: {}", mixed.stderr);

    // --project adds a distribution; the estimate itself is unchanged.
    let skewed = dir.write("ck.json", r#"{"counts": [600, 400, 0]}"#);
    let p = estimate_json(&["--spec", &spec, "--counts", &skewed, "--project"]);
    let raw = floats(&p["estimate"]);
    assert!(raw.iter().any(|&v| v < 0.0), "the unbiased estimate leaves the simplex: {raw:?}");
    let proj = floats(&p["projected"]);
    assert_eq!(proj.len(), 3);
    assert!(proj.iter().all(|&v| v >= 0.0), "{proj:?}");
    assert!((proj.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{proj:?}");
    let want = estimate_document(&doc, &[600.0, 400.0, 0.0], None).unwrap().with_projection();
    assert_close(&proj, want.projected.as_deref().unwrap());

    // n, if given for a matrix mechanism, must be the number of reports.
    let n_ok = dir.write("cn.json", r#"{"counts": [310, 480, 210], "n": 1000}"#);
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &n_ok]), out);
    let n_bad = dir.write("cnb.json", r#"{"counts": [310, 480, 210], "n": 999}"#);
    run(&["estimate", "--spec", &spec, "--counts", &n_bad]).fails("invalid_argument", 1);
}

#[test]
fn estimate_by_maximum_likelihood_is_the_default_and_reports_what_it_cannot_identify() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let (_, spec) = design_and_audit(&dir, "krr.json", &["krr", "--prior", &i.prior, "--epsilon", "1"]);
    let doc = Document::from_json(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    let c = dir.write("c.json", r#"{"counts": [310, 480, 210]}"#);
    let out = run(&["estimate", "--spec", &spec, "--counts", &c]).json();
    assert_eq!(out["method"], json!("mle"));
    let w = privlift_design::estimate::document_channel(&doc).unwrap();
    let want = privlift_design::mle::estimate_mle(&w, &[310.0, 480.0, 210.0], 200_000).unwrap();
    assert_close(&floats(&out["estimate"]), &want.estimate);
    assert_close(&floats(&out["std_error"]), &want.std_error);
    assert_eq!(out["unidentified"], json!([]));
    assert_eq!((&out["identified"], &out["interval"]), (&json!([true, true, true]), &json!([null, null, null])));
    assert!((floats(&out["estimate"]).iter().sum::<f64>() - 1.0).abs() < 1e-12, "a distribution");
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &c, "--method", "mle"]), out);
    let unbiased = estimate_json(&["--spec", &spec, "--counts", &c]);
    assert_eq!(unbiased["method"], json!("unbiased"));
    assert!(unbiased.get("unidentified").is_none());
    assert_eq!(unbiased["identified"], json!([true, true, true]), "the inversion needs every input identified");

    // A watchdog design is rank-deficient: the inversion refuses it, MLE estimates it and
    // names the direction it cannot identify.
    let (_, wd) = design_and_audit(&dir, "wd.json", &["watchdog", "--joint", &i.joint, "--epsilon", "0.5"]);
    let wdoc = Document::from_json(&std::fs::read_to_string(&wd).unwrap()).unwrap();
    let ny = wdoc.output().len();
    let counts: Vec<u64> = (0..ny as u64).map(|y| 100 + 37 * y).collect();
    let cw = dir.write("cw.json", &json!({ "counts": counts }).to_string());
    assert!(ny < wdoc.input().len(), "the watchdog merges inputs");
    {
        run(&["estimate", "--spec", &wd, "--counts", &cw, "--method", "unbiased"]).fails("invalid_argument", 1);
        let m = run(&["estimate", "--spec", &wd, "--counts", &cw]).json();
        let dirs = m["unidentified"].as_array().unwrap();
        assert_eq!(dirs.len(), wdoc.input().len() - ny, "{m}");
        for d in dirs {
            assert!(floats(d).iter().sum::<f64>().abs() < 1e-9, "a direction on the simplex: {d}");
        }
        // Each merged input is an interval holding its estimate, with no standard error.
        let merged: Vec<usize> =
            (0..wdoc.input().len()).filter(|&x| dirs.iter().any(|d| d[x].as_f64().unwrap().abs() > 1e-9)).collect();
        for x in 0..wdoc.input().len() {
            let est = m["estimate"][x].as_f64().unwrap();
            if merged.contains(&x) {
                assert_eq!((&m["identified"][x], &m["std_error"][x]), (&json!(false), &Value::Null), "{m}");
                let [lo, hi] = [0, 1].map(|i| m["interval"][x][i].as_f64().unwrap());
                assert!(lo <= est && est <= hi && lo < hi, "{est} in [{lo}, {hi}]");
            } else {
                assert_eq!((&m["identified"][x], &m["interval"][x]), (&json!(true), &Value::Null), "{m}");
            }
        }
    }
    run(&["estimate", "--spec", &spec, "--counts", &c, "--method", "median"]).fails("invalid_argument", 2);
}

#[test]
fn estimate_errors() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let spec = dir.write("krr.json", &run(&["design", "krr", "--prior", &i.prior, "--epsilon", "1"]).stdout);
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"counts": {"a": 1, "zz": 2}}"#, "unknown_output", "\"zz\""),
        (r#"{"counts": {"a": 1, "a": 2}}"#, "duplicate_label", "\"a\""),
        (r#"{"counts": [1, 2]}"#, "dimension_mismatch", "counts"),
        (r#"{"counts": [1, -2, 3]}"#, "invalid_argument", "counts[1]"),
        (r#"{"counts": [0, 0, 0]}"#, "invalid_argument", "no reports"),
        (r#"{"counts": "many"}"#, "json", "array of counts"),
        (r#"{"counts": [1, 2, 3], "weights": 1}"#, "json", "weights"),
        (r#"{"n": 3}"#, "json", "counts"),
    ];
    for (text, code, needle) in cases {
        let c = dir.write("c.json", text);
        let out = run(&["estimate", "--spec", &spec, "--counts", &c]);
        let err = out.fails(code, 1);
        assert!(err.contains(needle) && err.contains("c.json"), "{text}: {err}");
    }
    // An invalid document is refused with its validation code, naming the spec.
    let bad = dir.write("bad-doc.json", r#"{"format": "privlift-mechanism", "version": 2}"#);
    let c = dir.write("c.json", r#"{"counts": [1, 2, 3]}"#);
    let err = run(&["estimate", "--spec", &bad, "--counts", &c]).fails("json", 1).to_string();
    assert!(err.contains("bad-doc.json"), "{err}");
}

#[test]
fn estimate_unary_needs_n() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let (_, spec) = design_and_audit(&dir, "oue.json", &["oue", "--prior", &i.prior, "--epsilon", "1"]);
    let doc = Document::from_json(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    let ones = [420.0, 560.0, 380.0];
    let no_n = dir.write("c.json", r#"{"counts": [420, 560, 380]}"#);
    let err = run(&["estimate", "--spec", &spec, "--counts", &no_n]).fails("invalid_argument", 1).to_string();
    assert!(err.contains("`n`"), "{err}");
    run(&["estimate", "--spec", &spec, "--counts", &no_n, "--method", "mle"]).fails("invalid_argument", 2);
    let with_n = dir.write("cn.json", r#"{"counts": [420, 560, 380], "n": 1000}"#);
    let out = estimate_json(&["--spec", &spec, "--counts", &with_n, "--project"]);
    let want = estimate_document(&doc, &ones, Some(1000.0)).unwrap().with_projection();
    assert_close(&floats(&out["estimate"]), &want.estimate);
    assert_close(&floats(&out["std_error"]), &want.std_error);
    assert_close(&floats(&out["projected"]), want.projected.as_deref().unwrap());
    assert_eq!(out["n"], json!(1000));
    // Per-bit counts may be keyed by label too (the output alphabet of a unary
    // encoding is its input alphabet).
    let keyed = dir.write("ck.json", r#"{"counts": {"b": 560, "a": 420, "c": 380}, "n": 1000}"#);
    assert_eq!(estimate_json(&["--spec", &spec, "--counts", &keyed, "--project"]), out);
    // More ones than reports is refused.
    let too_many = dir.write("ct.json", r#"{"counts": [420, 560, 380], "n": 500}"#);
    run(&["estimate", "--spec", &spec, "--counts", &too_many]).fails("invalid_argument", 1);
}

#[test]
fn estimate_of_a_non_markov_design_uses_the_induced_channel() {
    let dir = TempDir::new("cli-design");
    let i = inputs(&dir);
    let (_, spec) = design_and_audit(&dir, "tv.json", &["linear-tv", "--joint", &i.joint, "--alpha", "0.5"]);
    let doc = Document::from_json(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    let c = dir.write("c.json", r#"{"counts": {"A": 300, "B": 500, "C": 200}}"#);
    let out = estimate_json(&["--spec", &spec, "--counts", &c]);
    let want = estimate_document(&doc, &[300.0, 500.0, 200.0], None).unwrap();
    assert_close(&floats(&out["estimate"]), &want.estimate);
    assert_eq!(out["labels"], json!(["A", "B", "C"]));
}

/// A joint with |S| = 2, |X| = 4 where x0 and x3 are high-risk at ε = 0.5 (their own
/// lifts break it) and x1, x2 are not.
const LIFT_JOINT: &str = r#"{"secret_labels": ["pass", "fail"], "labels": ["A", "B", "C", "D"],
    "p_sx": [[0.2, 0.15, 0.1, 0.05], [0.05, 0.1, 0.1, 0.25]]}"#;

/// The partition printed by the watchdog family: `low_risk` and the `groups` cover every
/// input exactly once, and each group is one output.
fn assert_partition(name: &str, doc: &Value, nx: u64) {
    let u = &doc["utility"];
    let low: Vec<u64> = u["low_risk"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no low_risk"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let groups = u["groups"].as_array().unwrap_or_else(|| panic!("{name}: no groups"));
    let mut all: Vec<u64> =
        groups.iter().flat_map(|g| g.as_array().unwrap().iter().map(|v| v.as_u64().unwrap())).collect();
    all.extend(&low);
    all.sort_unstable();
    assert_eq!(all, (0..nx).collect::<Vec<_>>(), "{name}: {u}");
}

#[test]
fn lift_methods_design_documents_whose_claims_hold() {
    let dir = TempDir::new("cli-design");
    let j = dir.write("lj.json", LIFT_JOINT);
    let i = inputs(&dir);
    let cases: &[(&str, &[&str], Value)] = &[
        ("orr-lip", &["--epsilon", "0.5"], json!({"lip": 0.5})),
        ("orr-alip", &["--eps-l", "0.7", "--eps-u", "0.4"], json!({"alip": {"eps_l": 0.7, "eps_u": 0.4}})),
        ("orr-ldp", &["--epsilon", "1"], json!({"ldp": 1.0})),
        ("watchdog", &["--epsilon", "0.5"], json!({"lip": 0.5})),
        ("watchdog", &["--notion", "ldp", "--epsilon", "1"], json!({"ldp": 1.0})),
        ("watchdog", &["--eps-l", "0.7", "--eps-u", "0.4"], json!({"alip": {"eps_l": 0.7, "eps_u": 0.4}})),
        ("subset-merging", &["--notion", "lip", "--epsilon", "0.5"], json!({"lip": 0.5})),
        ("subset-merging", &["--notion", "ldp", "--epsilon", "1"], json!({"ldp": 1.0})),
        (
            "subset-merging",
            &["--notion", "alip", "--eps-l", "0.7", "--eps-u", "0.4"],
            json!({"alip": {"eps_l": 0.7, "eps_u": 0.4}}),
        ),
        ("srr", &["--epsilon", "0.5"], json!({"lip": 0.5})),
        ("srr", &["--eps-l", "0.7", "--eps-u", "0.4"], json!({"alip": {"eps_l": 0.7, "eps_u": 0.4}})),
    ];
    let mut mi = std::collections::BTreeMap::new();
    for (k, (method, flags, claims)) in cases.iter().enumerate() {
        let mut args = vec![*method, "--joint", &j];
        args.extend_from_slice(flags);
        let name = format!("{method} {flags:?}");
        let (doc, _) = design_and_audit(&dir, &format!("lift{k}.json"), &args);
        let (m, n) = (num(&doc["utility"]["mi_xy"]), num(&doc["utility"]["nmi"]));
        assert!(m > 0.0 && n > 0.0 && n <= 1.0, "{name}: mi_xy {m}, nmi {n}");
        assert_eq!(&doc["claims"], claims, "{name}");
        assert_eq!(doc["secret"]["labels"], json!(["pass", "fail"]), "{name}");
        if !method.starts_with("orr-") {
            assert_partition(&name, &doc, 4);
        }
        mi.insert(format!("{method}{}", flags.join(" ")), num(&doc["utility"]["mi_xy"]));
    }
    // Default ids, and the ordering ORR ≥ SRR ≥ subset merging ≥ watchdog at ε = 0.5.
    let doc = run(&["design", "orr-alip", "--joint", &j, "--eps-l", "0.7", "--eps-u", "0.4"]).json();
    assert_eq!(doc["id"], json!("orr-alip-eps0.7-0.4"));
    let doc = run(&["design", "subset-merging", "--joint", &j, "--notion", "ldp", "--epsilon", "1"]).json();
    assert_eq!(doc["id"], json!("subset-merging-ldp-eps1"));
    let m = |k: &str| mi[k];
    assert!(m("orr-lip--epsilon 0.5") >= m("srr--epsilon 0.5") - 1e-12);
    assert!(m("srr--epsilon 0.5") >= m("subset-merging--notion lip --epsilon 0.5") - 1e-12);
    assert!(m("subset-merging--notion lip --epsilon 0.5") >= m("watchdog--epsilon 0.5") - 1e-12);
    assert!(m("orr-ldp--epsilon 1") >= m("subset-merging--notion ldp --epsilon 1") - 1e-12);
    // A prior (S = X) works too.
    design_and_audit(&dir, "orr-prior.json", &["orr-lip", "--prior", &i.prior, "--epsilon", "1"]);
    // On a larger alphabet the vertex methods say what they do on stderr (small ones
    // are quiet).
    assert!(run(&["design", "orr-lip", "--joint", &j, "--epsilon", "0.5"]).stderr.is_empty());
    let p12 = dir.write("p12.json", &json!({ "p": vec![1.0 / 12.0; 12] }).to_string());
    let out = run(&["design", "orr-lip", "--prior", &p12, "--epsilon", "2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("vertex enumeration") && out.stderr.contains("vertices"), "{}", out.stderr);
}

#[test]
fn lift_method_errors() {
    let dir = TempDir::new("cli-design");
    let j = dir.write("lj.json", LIFT_JOINT);
    // Usage errors (exit 2): a missing required budget of the fixed-notion methods.
    for (argv, needles) in [
        (vec!["design", "orr-lip", "--joint", &j], vec!["--epsilon", "orr-lip"]),
        (vec!["design", "orr-alip", "--joint", &j, "--eps-l", "1"], vec!["--eps-u", "orr-alip"]),
        (vec!["design", "orr-lip", "--joint", &j, "--epsilon", "1", "--notion", "ldp"], vec!["--notion"]),
        (vec!["design", "srr", "--epsilon", "1"], vec!["--prior", "--joint"]),
    ] {
        let out = run(&argv);
        let err = out.fails("invalid_argument", 2);
        for n in needles {
            assert!(err.contains(n), "{argv:?}: {err}");
        }
    }
    // Library errors (exit 1): budgets that do not fit the notion, unknown notions.
    for (argv, needles) in [
        (vec!["design", "watchdog", "--joint", &j, "--notion", "alip", "--epsilon", "1"], vec!["eps_l"]),
        (vec!["design", "watchdog", "--joint", &j, "--notion", "ldp", "--eps-l", "1", "--eps-u", "1"], vec!["epsilon"]),
        (vec!["design", "watchdog", "--joint", &j, "--notion", "nope", "--epsilon", "1"], vec!["nope", "ldp"]),
        (vec!["design", "subset-merging", "--joint", &j], vec!["epsilon"]),
        (vec!["design", "srr", "--joint", &j, "--notion", "ldp", "--epsilon", "1"], vec!["ldp"]),
        (vec!["design", "orr-lip", "--joint", &j, "--epsilon", "-1"], vec!["epsilon"]),
    ] {
        let out = run(&argv);
        let err = out.fails("invalid_argument", 1);
        for n in needles {
            assert!(err.contains(n), "{argv:?}: {err}");
        }
    }
    // No private watchdog: `infeasible`.
    let bad = dir.write("nw.json", r#"{"p_sx": [[0.05, 0.05, 0.45], [0.0, 0.0, 0.45]]}"#);
    run(&["design", "watchdog", "--joint", &bad, "--epsilon", "0.5"]).fails("infeasible", 1);
    // A size that would take too long is refused at once, pointing to SRR.
    let n = 40;
    let p = dir.write("big.json", &json!({ "p": vec![1.0 / n as f64; n] }).to_string());
    let t = std::time::Instant::now();
    let out = run(&["design", "orr-lip", "--prior", &p, "--epsilon", "0.1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let err = out.stderr.lines().find(|l| l.contains("error[")).unwrap_or_default().to_string();
    assert!(err.starts_with("privlift: error[invalid_argument]") && err.contains("srr"), "{err}");
    assert!(t.elapsed().as_secs() < 20, "refusal took {:?}", t.elapsed());
}

/// `rr-lip --objective`: the paper's P(Y = X) (default) releases the likelier value
/// whatever X is on P = (0.9, 0.1) at ε = 1, and says so on stderr and in the document;
/// `mi` finds an informative ε-LIP channel; `distortion` takes D.json; other methods and
/// other values are usage errors.
#[test]
fn rr_lip_objective_and_the_degenerate_warning() {
    let dir = TempDir::new("cli-design");
    let skewed = dir.write("skewed.json", r#"{"labels": ["yes", "no"], "p": [0.9, 0.1]}"#);
    let d = dir.write("d2.json", r#"{"d": [[0, 1], [3, 0]]}"#);
    let hit = run(&["design", "rr-lip", "--prior", &skewed, "--epsilon", "1"]);
    assert!(hit.stderr.contains("warning") && hit.stderr.contains("releases nothing about X"), "{}", hit.stderr);
    let doc = hit.json();
    assert_eq!(doc["utility"]["ignores_input"], json!(true));
    assert!(doc["description"].as_str().is_some_and(|t| t.contains("does not depend on the input")), "{doc}");
    let mi = run(&["design", "rr-lip", "--prior", &skewed, "--epsilon", "1", "--objective", "mi"]);
    assert!(!mi.stderr.contains("warning"), "{}", mi.stderr);
    let doc = mi.json();
    assert!(num(&doc["utility"]["mi_xy"]) > 0.01 && doc["utility"].get("ignores_input").is_none(), "{doc}");
    assert!(doc["utility"]["tv"].is_null(), "ORR outputs are not values of X: {doc}");
    assert_eq!(doc["claims"]["lip"], json!(1.0));
    let dist = run(&[
        "design",
        "rr-lip",
        "--prior",
        &skewed,
        "--epsilon",
        "2",
        "--objective",
        "distortion",
        "--distortion",
        &d,
    ]);
    assert!(dist.json()["utility"]["expected_distortion"].is_number(), "{}", dist.stderr);
    run(&["design", "rr-lip", "--prior", &skewed, "--epsilon", "1", "--objective", "best"])
        .fails("invalid_argument", 1);
    run(&["design", "krr", "--prior", &skewed, "--epsilon", "1", "--objective", "mi"]).fails("invalid_argument", 2);
}

/// A joint of |S| = 5 secrets and |X| = 40 inputs (fixed seed, entries bounded away from 0):
/// its AORR polytope at ε = 1 has tens of thousands of bases, and past the default cap
/// for small ε.
fn joint_5x40(dir: &TempDir) -> String {
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 + 0.01
    };
    let rows: Vec<Vec<f64>> = (0..5).map(|_| (0..40).map(|_| next()).collect()).collect();
    let total: f64 = rows.iter().flatten().sum();
    let p_sx: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().map(|v| v / total).collect()).collect();
    dir.write("j40.json", &json!({ "p_sx": p_sx }).to_string())
}

/// Runs `privlift ARGS > dir/doc.json` on a pseudo-terminal (`script`, util-linux, on every
/// Debian system) and returns what the terminal showed (stderr) and the file (stdout). The
/// terminal is an xterm whatever runs the tests: with `TERM` unset or `dumb` (a CI runner's
/// usual environment) no progress bar is drawn.
fn run_on_terminal(dir: &TempDir, args: &str) -> (String, String) {
    let out = dir.0.join("doc.json");
    let log = dir.0.join("tty.log");
    let command = format!("{} {args} > {}", common::cli::BIN, out.to_str().unwrap());
    let status = std::process::Command::new("script")
        .args(["-qec", &command, log.to_str().unwrap()])
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("`script` (util-linux) runs");
    let tty = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{args}: {tty}");
    (tty, std::fs::read_to_string(&out).unwrap())
}

/// On a terminal the vertex search draws a progress bar on stderr (bases visited against
/// the cap, vertices found); in a pipe it does not (the test above: two plain lines).
#[test]
fn vertex_search_draws_a_progress_bar_on_a_terminal() {
    let dir = TempDir::new("cli-design");
    let j = joint_5x40(&dir);
    let (tty, out) = run_on_terminal(&dir, &format!("design orr-alip --joint {j} --eps-l 1 --eps-u 1"));
    assert!(tty.contains("vertex search 1:") && tty.contains("bases (the cap)"), "{tty}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert!(doc["claims"]["alip"].is_object(), "{doc}");
    // Not on a pipe.
    let piped = run(&["design", "orr-alip", "--joint", &j, "--eps-l", "1", "--eps-u", "1"]);
    assert!(!piped.stderr.contains("bases (the cap)"), "{}", piped.stderr);
}

/// AORR just past the default cap: refused at once, the refusal naming `--exact`; with
/// `--exact` the exact design, whose claims the library's audit confirms, with the
/// estimate of the work and the progress on stderr only (stdout is the document alone).
#[test]
fn exact_lifts_the_vertex_search_caps() {
    let dir = TempDir::new("cli-design");
    let j = joint_5x40(&dir);
    let args = ["design", "orr-alip", "--joint", &j, "--eps-l", EXACT_EPS, "--eps-u", EXACT_EPS];
    let out = run(&args);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let err = out.stderr.lines().find(|l| l.contains("error[")).unwrap_or_default();
    assert!(err.starts_with("privlift: error[invalid_argument]"), "{err}");
    assert!(err.contains("bases") && err.contains("`--exact`") && err.contains("srr"), "{err}");

    let (tty, text) = run_on_terminal(&dir, &format!("{} --exact", args.join(" ")));
    assert!(tty.contains("--exact: no cap on the vertex search") && tty.contains("flops per basis"), "{tty}");
    assert!(tty.contains("exact vertex search 1:") && tty.contains("bases ("), "{tty}");
    assert!(!tty.contains("(the cap)"), "{tty}");
    // stdout is the document and nothing else: it parses strictly and audits.
    Document::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let audit = run(&["audit", &dir.write("exact.json", &text)]).json();
    assert_eq!(audit["claims_hold"], json!(true), "{audit:#}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["claims"]["alip"], json!({"eps_l": 0.5, "eps_u": 0.5}), "{v}");

    // Only the vertex methods of ORR and AORR take it.
    let out = run(&["design", "srr", "--joint", &j, "--epsilon", "1", "--exact"]);
    let err = out.fails("invalid_argument", 2);
    assert!(err.contains("--exact") && err.contains("orr-alip"), "{err}");
}

/// ε of [`exact_lifts_the_vertex_search_caps`]: its AORR polytope on [`joint_5x40`] has
/// 130,379 bases, 8 % past the default cap (120,772 at |S| = 5, |X| = 40; ε = 0.55 has
/// 95,424): about a second in a test build.
const EXACT_EPS: &str = "0.5";
