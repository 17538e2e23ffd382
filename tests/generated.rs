//! The JS wrapper's lists of the core's error codes and mechanism kinds are generated from
//! the Rust core, so each fact has one rule: this test writes them from
//! [`privlift::Error::CODES`], [`privlift::document::CONTINUOUS_KINDS`] and
//! [`MechanismKind::tag`] into the marked regions of `js/common.js` (the values the wrapper
//! uses), `js/privlift.d.ts` and `js/continuous.d.ts` (the types), and fails if the
//! checked-in text differs. `PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated`
//! rewrites the regions. The codes only the JS layer throws are JS's own
//! (`JS_ERROR_CODES` in js/common.js).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use privlift::document::{Matrix, MechanismKind, CONTINUOUS_KINDS};
use privlift::param::Probability;
use privlift::Error;

const COMMAND: &str = "PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated";

fn begin_marker() -> String {
    format!("// BEGIN GENERATED from the Rust core by `{COMMAND}`; do not edit.\n")
}
const END_MARKER: &str = "// END GENERATED\n";

/// The `kind` tag of every discrete mechanism, read from [`MechanismKind::tag`]. The enum is
/// `#[non_exhaustive]`, so a new variant cannot be found by a `match` here: add it to this
/// list (ARCHITECTURE.md, "a document field or a new mechanism kind").
fn discrete_kinds() -> Vec<&'static str> {
    [
        MechanismKind::Matrix(Matrix::diag(&[1.0])),
        MechanismKind::PerSecret { p_y_given_sx: Vec::new(), markov: None },
        MechanismKind::Unary { q01: Probability::new("q01", 0.0).unwrap(), q10: Probability::ONE },
        MechanismKind::Krr { epsilon: None, keep: Probability::ONE },
        MechanismKind::RrLip { keep: Probability::ONE, mixing: vec![1.0] },
        MechanismKind::Merge { blocks: vec![0], inner: None },
        MechanismKind::Sparse(privlift::document::Sparse::from_matrix(&Matrix::diag(&[1.0]))),
        MechanismKind::Sparse(
            privlift::document::Sparse::srr_from_matrix(
                &Matrix::diag(&[1.0]),
                privlift::document::Srr { low_risk: vec![0], groups: vec![] },
            )
            .unwrap(),
        ),
    ]
    .iter()
    .map(MechanismKind::tag)
    .collect()
}

fn quoted(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| format!("'{s}'")).collect()
}

/// `items` as the elements of a JS array literal, greedily filled into lines of at most
/// 100 columns (two-space indent).
fn js_elements(items: &[&str]) -> String {
    let mut out = String::new();
    let mut line = String::from(" ");
    for q in quoted(items) {
        if line.len() + 1 + q.len() + 1 > 100 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(&q);
        line.push(',');
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn ts_union_one_line(items: &[&str]) -> String {
    quoted(items).join(" | ")
}

fn ts_union_lines(items: &[&str]) -> String {
    let lines: Vec<String> = quoted(items).iter().map(|q| format!("  | {q}")).collect();
    lines.join("\n")
}

/// The region of js/common.js: the values js/*.js import.
fn common_js() -> String {
    format!(
        "/** The codes the Rust core throws (`privlift::Error::CODES`), in its order. */\n\
         export const CORE_ERROR_CODES = Object.freeze([\n{codes}]);\n\n\
         /** The `mechanism.kind` values of continuous documents (`privlift::document::CONTINUOUS_KINDS`). */\n\
         export const CONTINUOUS_KINDS = Object.freeze([{kinds}]);\n",
        codes = js_elements(Error::CODES),
        kinds = quoted(&CONTINUOUS_KINDS).join(", "),
    )
}

/// The region of js/privlift.d.ts.
fn privlift_d_ts() -> String {
    format!(
        "/** Codes thrown by the Rust core (`privlift::Error::CODES`). */\n\
         export type CoreErrorCode =\n{codes};\n\n\
         /** The `kind` tag of a discrete mechanism document (`privlift::document::MechanismKind::tag`). */\n\
         export type MechanismKind = {kinds};\n",
        codes = ts_union_lines(Error::CODES),
        kinds = ts_union_one_line(&discrete_kinds()),
    )
}

/// The region of js/continuous.d.ts.
fn continuous_d_ts() -> String {
    format!(
        "/** The `kind` tag of a continuous mechanism document (`privlift::document::CONTINUOUS_KINDS`). */\n\
         export type ContinuousKind = {kinds};\n",
        kinds = ts_union_one_line(&CONTINUOUS_KINDS),
    )
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `text` with the body of its one generated region replaced by `body`, or why it cannot be.
fn with_region(path: &Path, text: &str, body: &str) -> Result<String, String> {
    let begin = begin_marker();
    let name = path.display();
    let (Some(b), 1) = (text.find(&begin), text.matches(&begin).count()) else {
        return Err(format!("{name}: expected exactly one line `{}`", begin.trim_end()));
    };
    let from = b + begin.len();
    let Some(len) = text[from..].find(END_MARKER) else {
        return Err(format!("{name}: no `{}` after the BEGIN GENERATED line", END_MARKER.trim_end()));
    };
    Ok(format!("{}{body}{}", &text[..from], &text[from + len..]))
}

/// The first line where `a` and `b` differ, for the failure message.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (None, None) => break,
            (x, y) if x != y => {
                return format!("line {n}: checked in {:?}, generated {:?}", x.unwrap_or(""), y.unwrap_or(""));
            }
            _ => {}
        }
    }
    String::from("(no line differs; line endings?)")
}

#[test]
fn js_lists_are_generated_from_the_rust_core() {
    let bless = std::env::var_os("PRIVLIFT_BLESS_GENERATED").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (file, body) in [
        ("js/common.js", common_js()),
        ("js/privlift.d.ts", privlift_d_ts()),
        ("js/continuous.d.ts", continuous_d_ts()),
    ] {
        let path = root().join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let want = with_region(&path, &text, &body).unwrap_or_else(|e| panic!("{e}"));
        if want == text {
            continue;
        }
        if bless {
            std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else {
            stale.push(format!("  {file}: {}", first_difference(&text, &want)));
        }
    }
    assert!(
        stale.is_empty(),
        "the generated regions of these files differ from what the Rust core gives:\n{}\n\
         regenerate them with `{COMMAND}` (and never edit them by hand)",
        stale.join("\n")
    );
}

const DISCRETE: &str = r#""labels": ["a", "b"], "prior": [0.5, 0.5]"#;
const CONTINUOUS: &str = r#""domain": {"lo": 0, "hi": 1, "step": 1}, "prior": {"gaussian": {"mean": 0, "sd": 1}}"#;

/// The code a document of `mechanism.kind` = `kind` and the given `shape` (discrete or
/// continuous fields) is refused with: it is refused, as it misses the kind's fields.
fn refusal(kind: &str, shape: &str) -> &'static str {
    let doc = format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "k", {shape},
            "mechanism": {{"kind": "{kind}"}}, "claims": {{"ldp_x": 1}}}}"#
    );
    privlift::parse_any(&doc).expect_err("a mechanism without its fields is refused").code()
}

#[test]
fn the_generated_kinds_are_the_ones_the_parser_reads() {
    // Each listed kind reaches its own reader (which finds its fields missing); any other
    // kind is unsupported, so the lists are neither short nor long.
    for kind in discrete_kinds() {
        assert_ne!(refusal(kind, DISCRETE), "unsupported_mechanism", "{kind}");
    }
    for kind in CONTINUOUS_KINDS {
        assert_ne!(refusal(kind, CONTINUOUS), "unsupported_mechanism", "{kind}");
    }
    // A continuous kind with discrete fields stays on the discrete path, which refuses it.
    for kind in ["nope", "Matrix", "gauss", "", "KRR", "merged"].into_iter().chain(CONTINUOUS_KINDS) {
        assert_eq!(refusal(kind, DISCRETE), "unsupported_mechanism", "{kind}");
    }
    let continuous = |k: &str| CONTINUOUS_KINDS.contains(&k);
    assert!(!discrete_kinds().into_iter().any(continuous), "a kind is both discrete and continuous");
    let js = common_js();
    for code in Error::CODES {
        assert_eq!(js.matches(&format!("'{code}',")).count(), 1, "{code} once in the JS list");
    }
}

#[test]
fn a_region_is_replaced_or_refused() {
    let p = Path::new("x.js");
    let text = format!("a\n{}old\n{END_MARKER}b\n", begin_marker());
    assert_eq!(with_region(p, &text, "new\n").unwrap(), format!("a\n{}new\n{END_MARKER}b\n", begin_marker()));
    assert!(with_region(p, "a\nb\n", "new\n").unwrap_err().contains("exactly one"));
    assert!(with_region(p, &format!("{}old\n", begin_marker()), "new\n").unwrap_err().contains("END GENERATED"));
    let twice = format!("{0}{END_MARKER}{0}{END_MARKER}", begin_marker());
    assert!(with_region(p, &twice, "new\n").unwrap_err().contains("exactly one"));
    assert_eq!(first_difference("a\nb\n", "a\nc\n"), "line 2: checked in \"b\", generated \"c\"");
}
