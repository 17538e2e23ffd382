//! Raw bytes → the reader's paths: `parse_any`'s family, peeked without building the
//! document, against the rule applied to the whole JSON value; and `DocumentJson::read`
//! (the mechanism's numbers held flat, every array bounded by what it may declare)
//! against serde's derive: equal when both read, and a refusal of ours only where the
//! reader is stricter (an array past its alphabet, a mechanism array mixing numbers with
//! other values, a mechanism object of too many members). And the reader that prices a
//! document as it reads it (`Document::from_json_within`, at a budget from the first byte)
//! against the whole document's cost: it accepts exactly what `from_json` accepts within
//! the budget, and refuses as `too_costly` only what costs more once read whole (its
//! price of a partly read channel is a lower bound of the whole one's). The same for an
//! open-domain document (`OpenDocument::from_json_within`, its sparse prior priced as it
//! is read), whose family is peeked as `open::is_open` and which reads back what it writes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use privlift::document::codec::strict;
use privlift::document::{continuous::is_continuous, Document, DocumentJson};
use privlift::open::{OpenDocument, OPEN_KINDS};
use privlift::verify::Work;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else { return };
    let _ = privlift::parse_any(text);
    if let Ok(v) = strict::from_str(text) {
        assert_eq!(privlift::any::is_continuous(data), is_continuous(&v), "the family of {text}");
    }
    match (DocumentJson::read(data), serde_json::from_str::<DocumentJson>(text)) {
        (Ok(ours), Ok(theirs)) => {
            assert_eq!(ours.mechanism, theirs.mechanism, "{text}");
            assert_eq!(ours.labels, theirs.labels, "{text}");
            let claims = |d: &DocumentJson| serde_json::to_value(d).map(|v| v["claims"].clone()).ok();
            assert_eq!(claims(&ours), claims(&theirs), "{text}");
            let bits = |p: &[f64]| p.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours.prior), bits(&theirs.prior), "{text}");
        }
        (Err(e), Ok(_)) => {
            assert!(matches!(e.code(), "too_many_symbols" | "invalid_argument" | "json"), "{text}: {e}");
        }
        _ => {}
    }
    // Budgets from 1 to 2³¹ work units, by the first byte.
    let budget = 2f64.powi(i32::from(data.first().copied().unwrap_or(0) % 32));
    let whole = Document::from_json(text);
    match (Document::from_json_within(data, budget), &whole) {
        (Ok(priced), Ok(doc)) => {
            assert!(Work::of(doc).0 <= budget, "{text}: accepted over its budget {budget}");
            assert_eq!(priced.to_json(), doc.to_json(), "{text}");
        }
        (Ok(_), Err(e)) => panic!("{text}: accepted within {budget}, refused whole: {e}"),
        (Err(e), Ok(doc)) => {
            assert_eq!(e.code(), "too_costly", "{text}: {e}");
            assert!(Work::of(doc).0 > budget, "{text}: refused within {budget}, costs {:?}", Work::of(doc));
        }
        (Err(_), Err(_)) => {}
    }
    open(text, data, budget);
});

/// The open family's peek against the whole value, and its priced reader against the
/// whole document's cost.
fn open(text: &str, data: &[u8], budget: f64) {
    if let Ok(v) = strict::from_str(text) {
        let kind = v.get("mechanism").and_then(|m| m.get("kind")).and_then(|k| k.as_str());
        let rule = kind.is_some_and(|k| OPEN_KINDS.contains(&k)) && v.get("labels").is_none();
        assert_eq!(privlift::open::is_open(data), rule, "the open family of {text}");
    }
    let work = |d: &OpenDocument| {
        let m = d.mechanism();
        Work::open(m.outputs(), d.prior().map_or(0, |p| p.values().len()), m.rounds()).0
    };
    let whole = OpenDocument::from_json(text);
    if let Ok(doc) = &whole {
        assert_eq!(OpenDocument::from_json(&doc.to_json()).as_ref(), Ok(doc), "{text}: reads back what it writes");
    }
    match (OpenDocument::from_json_within(data, budget), &whole) {
        (Ok(priced), Ok(doc)) => {
            assert!(work(doc) <= budget, "{text}: accepted over its budget {budget}");
            assert_eq!(&priced, doc, "{text}");
        }
        (Ok(_), Err(e)) => panic!("{text}: accepted within {budget}, refused whole: {e}"),
        (Err(e), Ok(doc)) => {
            assert_eq!(e.code(), "too_costly", "{text}: {e}");
            assert!(work(doc) > budget, "{text}: refused within {budget}, costs {}", work(doc));
        }
        (Err(_), Err(_)) => {}
    }
}
