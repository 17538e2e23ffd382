//! What reading a document holds is bounded by its bytes, whatever it declares: a dense
//! channel is read flat (8 bytes a number, so at most 4× a text of one-digit entries, the
//! densest there is), an `srr` stores its `others` row once, and an array longer than
//! what it may declare is refused as it is read, without being kept. Measured by a
//! counting allocator (this test binary's own), as the peak of live bytes.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use privlift::Document;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::SeqCst) + by;
    PEAK.fetch_max(live, Ordering::SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The result of `f` and the most bytes it held live at once (beyond what was live before).
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst) - base)
}

/// A k × k identity channel claiming nothing (its entries one digit each).
fn identity(k: usize) -> String {
    let labels: Vec<String> = (0..k).map(|i| format!("\"v{i}\"")).collect();
    let prior = vec![format!("{}", 1.0 / k as f64); k];
    let mut text = format!(
        r#"{{"format":"privlift-mechanism","version":1,"id":"identity","labels":[{}],"prior":[{}],"mechanism":{{"kind":"matrix","p_y_given_x":["#,
        labels.join(","),
        prior.join(",")
    );
    for x in 0..k {
        text.push_str(if x == 0 { "[" } else { ",[" });
        for y in 0..k {
            text.push_str(if y > 0 { "," } else { "" });
            text.push(if x == y { '1' } else { '0' });
        }
        text.push(']');
    }
    text.push_str("]}}");
    text
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
    drop(doc);

    // An srr whose `others` row stands for 2047 inputs: stored once (before, copied per input).
    let text = corpus_document("structured-srr-others-shared.json");
    let (doc, peak) = peak_of(|| Document::from_json(&text));
    doc.expect("a valid document");
    assert!(peak <= 4 * text.len(), "srr: {peak} bytes for {} of text", text.len());

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
