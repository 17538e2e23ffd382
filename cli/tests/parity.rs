//! Same bytes, same verdict: every document of the hostile corpus (`tests/adversarial/`)
//! through the native library and through `privlift verify` (the document and the policy
//! written to files, as a user has them), each required to give the corpus's verdict and
//! error code. The wasm build and the npm wrapper read the same files against the same
//! expectations (`tests/js/adversarial.test.mjs`), so the three entry points agree.

mod common;

use common::cli::{run, TempDir};
use common::corpus::{corpus, document_text, policy_text, refusal_shown};
use privlift::any::is_continuous;
use privlift::verify::work_budget;
use privlift::{ContinuousDocument, ContinuousPolicy, Document, Policy};
use serde_json::Value;

/// The library's verdict: `None` verified, else the error's code and message. A discrete
/// document is read within its policy's budget, as a client reads it.
fn library(text: &str, policy: Option<&str>) -> Option<(String, String)> {
    let verdict: Result<(), privlift::Error> = (|| {
        if privlift::open::is_open(text.as_bytes()) {
            let policy = policy.map_or(Ok(Policy::default()), Policy::from_json)?;
            let budget = work_budget(policy.max_verify_work)?;
            privlift::open::OpenDocument::from_json_within(text.as_bytes(), budget)?.verify(&policy)?;
        } else if is_continuous(text.as_bytes()) {
            let policy = policy.map_or(Ok(ContinuousPolicy::default()), ContinuousPolicy::from_json)?;
            ContinuousDocument::from_json(text)?.verify(&policy)?;
        } else {
            let policy = policy.map_or(Ok(Policy::default()), Policy::from_json)?;
            Document::from_json_within(text.as_bytes(), work_budget(policy.max_verify_work)?)?.verify(&policy)?;
        }
        Ok(())
    })();
    verdict.err().map(|e| (e.code().to_string(), e.to_string()))
}

/// `privlift verify`'s verdict, from its exit code and its one line of JSON.
fn cli(t: &TempDir, name: &str, text: &str, policy: Option<&str>) -> Option<(String, String)> {
    let doc = t.write(name, text);
    let policy = policy.map(|p| t.write(&format!("policy-{name}"), p));
    let mut args = vec!["verify", doc.as_str()];
    if let Some(p) = &policy {
        args.extend(["--policy", p.as_str()]);
    }
    let out = run(&args);
    assert!(out.stderr.is_empty(), "{name}: stderr {}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{name}: {e}: {}", out.stdout));
    std::fs::remove_file(&doc).unwrap();
    match (out.code, &v["verified"]) {
        (0, Value::Bool(true)) => None,
        (1, Value::Bool(false)) => {
            let e = &v["error"];
            Some((e["code"].as_str().unwrap().to_string(), e["message"].as_str().unwrap().to_string()))
        }
        _ => panic!("{name}: exit {} with {}", out.code, out.stdout),
    }
}

#[test]
fn the_library_and_the_cli_give_the_corpus_verdict_on_every_document() {
    let t = TempDir::new("parity");
    let files = corpus();
    assert!(files.len() >= 60, "the corpus has {} documents", files.len());
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let text = document_text(&case);
        let policy = policy_text(&case);
        let expected = case["expect"]["error"].as_str();
        let ours = library(&text, policy.as_deref());
        let theirs = cli(&t, &name, &text, policy.as_deref());
        for (who, verdict) in [("library", &ours), ("privlift verify", &theirs)] {
            match verdict {
                Some((code, message)) => {
                    assert_eq!(Some(code.as_str()), expected, "{name}: {who} refused it: {message}");
                    refusal_shown(&name, message);
                }
                None => assert_eq!(expected, None, "{name}: {who} verified it"),
            }
        }
        // The CLI's message is the library's, character for character.
        assert_eq!(ours, theirs, "{name}");
    }
}

/// An error message on stderr stays one line, whatever key a document gives.
#[test]
fn a_forged_line_in_a_key_stays_on_the_error_line() {
    let t = TempDir::new("parity");
    let doc = t.write("forged.json", "{\"format\": \"privlift-mechanism\", \"x\\n\\u202eprivlift: verified OK\": 1}");
    let out = run(&["audit", &doc]);
    let stderr = out.fails("json", 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.trim_end_matches('\n').chars().any(privlift::error::hidden), "{stderr:?}");
    assert!(stderr.contains(r#""x\n\u{202e}privlift: verified OK""#), "{stderr}");
}
