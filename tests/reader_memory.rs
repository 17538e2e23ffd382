//! What reading a document holds is bounded by its bytes, whatever it declares: a dense
//! channel is read flat (8 bytes a number, so at most 4× a text of one-digit entries, the
//! densest there is), an `srr` stores its `others` row once, and an array longer than
//! what it may declare is refused as it is read, without being kept. Measured by a
//! counting allocator (this test binary's own), as the peak of live bytes.
#![cfg(not(target_arch = "wasm32"))]

use privlift::document::Alphabet;
use privlift::verify::{Work, DEFAULT_MAX_VERIFY_WORK};
use privlift::{Document, Error};

#[path = "common/peak.rs"]
mod peak;
use peak::{live, peak_of};

/// A k × k identity channel claiming nothing (its entries one digit each).
fn identity(k: usize) -> String {
    identity_ordered(k, true)
}

/// [`identity`], its `labels` and `prior` before the mechanism or (as a hostile curator may
/// write it) after.
fn identity_ordered(k: usize, labels_first: bool) -> String {
    let alphabet = alphabet(k);
    let (before, after) = if labels_first { (alphabet.as_str(), "") } else { ("", alphabet.as_str()) };
    let mut text = format!(
        r#"{{"format":"privlift-mechanism","version":1,"id":"identity",{before}{comma}"mechanism":{{"kind":"matrix","p_y_given_x":"#,
        comma = if labels_first { "," } else { "" },
    );
    identity_rows(&mut text, k);
    text.push('}');
    if !labels_first {
        text.push(',');
        text.push_str(after);
    }
    text.push('}');
    text
}

/// `"labels"` and a uniform `"prior"` over `k` inputs.
fn alphabet(k: usize) -> String {
    let labels: Vec<String> = (0..k).map(|i| format!("\"v{i}\"")).collect();
    let prior = vec![format!("{}", 1.0 / k as f64); k];
    format!(r#""labels":[{}],"prior":[{}]"#, labels.join(","), prior.join(","))
}

/// The rows of a k × k identity, one digit an entry.
fn identity_rows(text: &mut String, k: usize) {
    text.push('[');
    for x in 0..k {
        text.push_str(if x == 0 { "[" } else { ",[" });
        for y in 0..k {
            text.push_str(if y > 0 { "," } else { "" });
            text.push(if x == y { '1' } else { '0' });
        }
        text.push(']');
    }
    text.push(']');
}

/// A per-secret mechanism of one secret whose block is a k × k identity, its labels and
/// secret first, and its Markov form (the same identity) after the block when `markov`.
fn per_secret_identity(k: usize, markov: bool) -> String {
    let p_sx = vec![format!("{}", 1.0 / k as f64); k].join(",");
    let mut text = String::from(r#"{"format":"privlift-mechanism","version":1,"id":"per-secret","#);
    text.push_str(&alphabet(k));
    text.push_str(&format!(r#","secret":{{"p_sx":[[{p_sx}]]}},"mechanism":{{"kind":"per_secret","p_y_given_sx":["#));
    identity_rows(&mut text, k);
    text.push(']');
    if markov {
        text.push_str(r#","p_y_given_x":"#);
        identity_rows(&mut text, k);
    }
    text.push_str("}}");
    text
}

/// The work and limit of a `too_costly` refusal.
fn too_costly(e: &Error) -> (f64, f64) {
    match e {
        Error::TooCostly { work, limit, .. } => (*work, *limit),
        other => panic!("expected too_costly, got {other}"),
    }
}

fn corpus_document(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adversarial").join(name);
    let case: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::to_string(&case["document"]).unwrap()
}

/// One test, so that no other test's allocations run between the counts.
#[test]
fn reading_a_document_holds_at_most_four_times_its_bytes() {
    // The densest document there is: 4096 × 4096 one-digit entries (33.6 MB). Before, a
    // tree of ~32 bytes a number and then a copy: more than 20× its bytes.
    let text = identity(4096);
    let (doc, peak) = peak_of(|| Document::from_json(&text));
    let doc = doc.expect("a valid document");
    assert_eq!(doc.output().len(), 4096);
    assert!(peak <= 4 * text.len(), "dense 4096²: {peak} bytes for {} of text", text.len());
    let work = Work::of(&doc).0;
    drop(doc);

    // Within the default budget, which refuses it, it is refused after its first row: its
    // labels came first and declared 4096 inputs, the row 4096 outputs. The work and the
    // limit are verification's. Before, the whole channel was read first (134 MB).
    let (e, peak) = peak_of(|| Document::from_json_within(text.as_bytes(), DEFAULT_MAX_VERIFY_WORK).unwrap_err());
    assert_eq!(too_costly(&e), (work, DEFAULT_MAX_VERIFY_WORK), "{e}");
    assert!(peak < 1_000_000, "dense 4096² refused holding {peak} bytes");
    // Its labels after its mechanism, it is refused once its rows so far cost too much.
    let late = identity_ordered(4096, false);
    let (e, peak) = peak_of(|| Document::from_json_within(late.as_bytes(), DEFAULT_MAX_VERIFY_WORK).unwrap_err());
    let (late_work, _) = too_costly(&e);
    assert!(late_work > DEFAULT_MAX_VERIFY_WORK && late_work <= work, "{e}");
    assert!(peak <= 3 * late.len(), "dense 4096², labels last: refused holding {peak} bytes for {}", late.len());
    // A budget that accepts it reads it whole, as `from_json` does.
    let doc = Document::from_json_within(late.as_bytes(), 2.0 * work).expect("within a budget above its work");
    assert_eq!(doc.input().len(), 4096);
    drop(doc);

    // A per-secret mechanism's blocks are priced as they are read, as a dense channel is:
    // one secret over a 4096 × 4096 identity is refused after the first row of its block
    // (before, the block was read whole: 134 MB), Markov form or not.
    for markov in [true, false] {
        let text = per_secret_identity(4096, markov);
        let (e, peak) = peak_of(|| Document::from_json_within(text.as_bytes(), DEFAULT_MAX_VERIFY_WORK).unwrap_err());
        let least = Work::per_secret_at_least(1, 4096, 4096, 0).0;
        assert_eq!(too_costly(&e), (least, DEFAULT_MAX_VERIFY_WORK), "markov {markov}: {e}");
        assert!(peak < 1_000_000, "per-secret 4096², markov {markov}: refused holding {peak} bytes");
    }
    // The least is a lower bound of the whole document's work.
    let small = per_secret_identity(64, true);
    let doc = Document::from_json(&small).expect("a valid per-secret document");
    assert!(Work::per_secret_at_least(1, 64, 64, 0) <= Work::of(&doc));
    let e = Document::from_json_within(small.as_bytes(), 1.0).unwrap_err();
    assert!(too_costly(&e).0 <= Work::of(&doc).0, "{e}");
    drop(doc);

    // An alphabet holds its labels' text and 4 bytes a label (where it ends), not a
    // `String` each (24 bytes and an allocation: 117,690 bytes for these).
    let labels: Vec<String> = (0..4096).map(|i| format!("v{i}")).collect();
    let text_bytes: usize = labels.iter().map(String::len).sum();
    let base = live();
    let alphabet = Alphabet::new("labels", labels.clone()).expect("unique labels");
    let held = live() - base;
    assert_eq!(alphabet.position("v4095"), Some(4095));
    assert!(held <= text_bytes + 4 * 4096 + 256, "4096 labels of {text_bytes} bytes held in {held} bytes");
    drop(alphabet);

    // An srr whose `others` row stands for 2047 inputs: stored once (before, copied per
    // input), and its labels held as one text.
    let text = corpus_document("structured-srr-others-shared.json");
    let (doc, peak) = peak_of(|| Document::from_json(&text));
    doc.expect("a valid document");
    // Its 4096 short labels in one text: 2.0× its bytes (before, a `String` each: 2.9×).
    assert!(2 * peak <= 5 * text.len(), "srr: {peak} bytes for {} of text", text.len());

    // Arrays longer than they may be are refused as they are read, not kept: a million
    // labels, a prior of a million, a channel row of a million entries.
    let million = |item: &str| vec![item; 1_000_000].join(",");
    for (what, text) in [
        ("labels", format!(r#"{{"labels":[{}]}}"#, million("\"a\""))),
        ("prior", format!(r#"{{"prior":[{}]}}"#, million("0"))),
        ("mechanism", format!(r#"{{"mechanism":{{"kind":"matrix","p_y_given_x":[[{}]]}}}}"#, million("0"))),
        ("mechanism", format!(r#"{{"mechanism":{{"kind":"sparse","rows":[[{}]]}}}}"#, million("[0,1]"))),
    ] {
        let (e, peak) = peak_of(|| Document::from_json(&text).unwrap_err());
        assert_eq!(e.code(), "too_many_symbols", "{what}: {e}");
        assert!(e.to_string().contains("1000000"), "{what}: the count is the array's: {e}");
        assert!(peak < 200_000, "{what}: {peak} bytes held for a refused array of {} bytes", text.len());
    }
}
