//! The open kinds' batch path (`VerifiedOpen::perturb_joined`, `perturb_joined_into`)
//! against the per-report path (`VerifiedOpen::perturb`): the same reports under the same
//! seeded generator for every kind, across block boundaries and split calls; the same
//! randomness consumed whatever the values; refusals that name the value's index, never
//! its text, before any draw; a failing source leaves no report; the golden vectors of
//! the open kinds reproduced through the batch.
#![cfg(not(target_arch = "wasm32"))]

use privlift::error::{Error, Result};
use privlift::open::{words, OpenDocument, OpenReport, VerifiedOpen, BLOCK};
use privlift::rng::{CryptoRngCore, DeterministicRngForTesting, Randomness};
use privlift::verify::Policy;
use serde_json::Value;

fn doc(mechanism: &str, max_bytes: usize) -> VerifiedOpen {
    let text = format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "batch",
        "domain": {{"kind": "strings", "max_bytes": {max_bytes}}},
        "mechanism": {{"hash": "xxh32", "hash_version": 1, "epsilon": 2.0, {mechanism}}},
        "claims": {{"ldp_x": 2.1}}}}"#
    );
    OpenDocument::from_json(&text).unwrap().verify(&Policy::default()).unwrap()
}

/// One document of every kind (g, rows and columns not powers of two where allowed).
fn every_kind() -> Vec<(&'static str, VerifiedOpen)> {
    vec![
        ("olh", doc(r#""kind": "olh", "g": 7"#, 64)),
        ("hadamard", doc(r#""kind": "hadamard", "bits": 12, "hash_seed": 99"#, 64)),
        ("hadamard32", doc(r#""kind": "hadamard", "bits": 32, "hash_seed": 1"#, 64)),
        ("hcms", doc(r#""kind": "hcms", "k": 1000, "m": 256"#, 64)),
        (
            "heavy_hitters",
            doc(
                r#""kind": "heavy_hitters", "g": 5, "prefix_bits": [3, 16, 61, 512], "split": [0.1, 0.2, 0.3, 0.4]"#,
                64,
            ),
        ),
    ]
}

/// Words, the empty string, multi-byte characters, URLs of exactly 64 bytes.
fn values(n: usize) -> Vec<String> {
    let fixed = ["apple", "", "kiwi", "é", "日本語", "🍐 pear", "banana"];
    (0..n)
        .map(|i| match i % 9 {
            7 => format!("https://example.org/{:044}", i),
            8 => format!("word-{}", i.wrapping_mul(2654435761) % 10_007),
            k => fixed[k].to_owned(),
        })
        .collect()
}

fn joined(vs: &[String]) -> Vec<u8> {
    vs.join("\0").into_bytes()
}

/// The batch's columns as reports, row by row.
fn rows(m: &VerifiedOpen, cols: &[u32], n: usize) -> Vec<OpenReport> {
    let width = m.report_width();
    assert_eq!(cols.len(), width * n);
    (0..n)
        .map(|i| {
            let parts: Vec<u64> = (0..width).map(|f| u64::from(cols[f * n + i])).collect();
            OpenReport::from_parts(m.document().mechanism(), &parts).unwrap()
        })
        .collect()
}

fn per_report(m: &VerifiedOpen, vs: &[String], seed: u64) -> Vec<OpenReport> {
    let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
    vs.iter().map(|v| m.perturb(v, &mut rng).unwrap()).collect()
}

#[test]
fn the_batch_is_the_per_report_path_report_for_report() {
    let n = 2 * BLOCK + 17;
    let vs = values(n);
    let text = joined(&vs);
    for (name, m) in every_kind() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(34);
        let cols = m.perturb_joined(&text, n, &mut rng).unwrap();
        let batch = rows(&m, &cols, n);
        let single = per_report(&m, &vs, 34);
        let first = batch.iter().zip(&single).position(|(a, b)| a != b);
        assert_eq!(first, None, "{name}: the batch differs from perturb at report {first:?}");
        // The generator is where the per-report path left it: the same words were read.
        let mut after = DeterministicRngForTesting::seed_from_u64(34);
        let mut skip = vec![0u64; n * words(m.document().mechanism())];
        after.fill_words(&mut skip).unwrap();
        assert_eq!(rng.next_word().unwrap(), after.next_word().unwrap(), "{name}");
    }
}

#[test]
fn consecutive_ranges_draw_what_one_call_does() {
    let n = BLOCK + 40;
    let vs = values(n);
    let text = joined(&vs);
    for (name, m) in every_kind() {
        let whole = m.perturb_joined(&text, n, &mut DeterministicRngForTesting::seed_from_u64(5)).unwrap();
        let values = m.joined_values(&text, n).unwrap();
        let width = m.report_width();
        let mut rng = DeterministicRngForTesting::seed_from_u64(5);
        let mut parts = Vec::new();
        for (first, count) in [(0, 3), (3, BLOCK), (BLOCK + 3, 37)] {
            let mut out = vec![0u32; width * count];
            m.perturb_joined_into(&values, first, &mut rng, &mut out).unwrap();
            parts.extend(rows(&m, &out, count));
        }
        assert_eq!(parts, rows(&m, &whole, n), "{name}");
    }
}

/// Counts the words drawn.
struct Counting {
    inner: DeterministicRngForTesting,
    words: usize,
    calls: usize,
}

impl Randomness for Counting {
    fn next_word(&mut self) -> Result<u64> {
        self.words += 1;
        self.calls += 1;
        self.inner.next_word()
    }
    fn fill_words(&mut self, out: &mut [u64]) -> Result<()> {
        self.words += out.len();
        self.calls += 1;
        self.inner.fill_words(out)
    }
    fn fill_block(&mut self, out: &mut [u8]) -> Result<()> {
        assert_eq!(out.len() % 8, 0);
        self.words += out.len() / 8;
        self.calls += 1;
        self.inner.fill_block(out)
    }
    fn draw<T>(&mut self, _: usize, _: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> Result<T> {
        panic!("an open kind draws a fixed number of words, never by rejection")
    }
}

#[test]
fn randomness_consumed_does_not_depend_on_the_values() {
    let n = 1000;
    let short = vec![String::new(); n];
    let long = vec!["x".repeat(64); n];
    let mixed = values(n);
    for (name, m) in every_kind() {
        let per = words(m.document().mechanism());
        let mut seen = Vec::new();
        for vs in [&short, &long, &mixed] {
            let mut rng = Counting { inner: DeterministicRngForTesting::seed_from_u64(1), words: 0, calls: 0 };
            m.perturb_joined(&joined(vs), n, &mut rng).unwrap();
            seen.push((rng.words, rng.calls));
        }
        assert_eq!(seen, vec![(n * per, 1); 3], "{name}");
    }
}

fn refusal(m: &VerifiedOpen, text: &[u8], n: usize) -> Error {
    let mut rng = Counting { inner: DeterministicRngForTesting::seed_from_u64(1), words: 0, calls: 0 };
    let e = m.perturb_joined(text, n, &mut rng).unwrap_err();
    assert_eq!(rng.words, 0, "a refused batch draws nothing");
    e
}

#[test]
fn a_refusal_names_the_index_and_never_the_value() {
    let (_, m) = every_kind().remove(0);
    let mut vs = values(20);
    vs[13] = "secret-".repeat(10); // 70 bytes > 64
    let e = refusal(&m, &joined(&vs), 20);
    assert_eq!(e.code(), "invalid_argument");
    let text = e.to_string();
    assert!(text.contains("values[13]") && text.contains("64"), "{text}");
    assert!(!text.contains("secret"), "echoes the value: {text}");

    // Not UTF-8 (a lone continuation byte, then a truncated sequence): the first named.
    let mut bytes = joined(&values(20));
    let at = bytes.iter().enumerate().filter(|&(_, &b)| b == 0).nth(4).unwrap().0 + 1;
    bytes.insert(at, 0x80);
    let e = refusal(&m, &bytes, 20);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("values[5]"), "{e}");
    let mut bytes = joined(&values(3));
    bytes.push(0xE6);
    assert!(refusal(&m, &bytes, 3).to_string().contains("values[2]"));

    // A value with a U+0000 in it is two values: the count no longer matches.
    let mut vs = values(5);
    vs[2] = "a\0b".into();
    let e = refusal(&m, &joined(&vs), 5);
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("`values`") && e.to_string().contains("U+0000"), "{e}");
    assert_eq!(refusal(&m, b"a", 0).code(), "invalid_argument");
    assert_eq!(refusal(&m, b"a\0b", 3).code(), "invalid_argument");

    // Empty batches and empty values are values like any other.
    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
    assert!(m.perturb_joined(b"", 0, &mut rng).unwrap().is_empty());
    assert_eq!(m.perturb_joined(b"", 1, &mut rng).unwrap().len(), 2);
    assert_eq!(m.perturb_joined(b"\0", 2, &mut rng).unwrap().len(), 4);
}

#[test]
fn a_range_outside_the_values_is_refused() {
    let (_, m) = every_kind().remove(3);
    let text = joined(&values(10));
    let values = m.joined_values(&text, 10).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
    for (first, len) in [(8, 9), (0, 31), (usize::MAX, 3)] {
        let e = m.perturb_joined_into(&values, first, &mut rng, &mut vec![7; len]).unwrap_err();
        assert_eq!(e.code(), "invalid_argument", "{first} {len}");
    }
}

/// Fails once `left` words are drawn.
struct Failing {
    left: usize,
}

impl Randomness for Failing {
    fn next_word(&mut self) -> Result<u64> {
        self.fill_words(&mut [0]).map(|()| 7)
    }
    fn fill_words(&mut self, out: &mut [u64]) -> Result<()> {
        self.left = self.left.checked_sub(out.len()).ok_or(Error::Rng { message: "exhausted".into() })?;
        out.fill(0x5a5a_5a5a_5a5a_5a5a);
        Ok(())
    }
    fn fill_block(&mut self, _: &mut [u8]) -> Result<()> {
        Err(Error::Rng { message: "exhausted".into() })
    }
    fn draw<T>(&mut self, _: usize, _: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> Result<T> {
        Err(Error::Rng { message: "exhausted".into() })
    }
}

#[test]
fn a_failing_source_leaves_no_report() {
    let n = 3 * BLOCK;
    let text = joined(&values(n));
    for (name, m) in every_kind() {
        let values = m.joined_values(&text, n).unwrap();
        let mut out = vec![1u32; n * m.report_width()];
        let left = BLOCK * words(m.document().mechanism());
        let e = m.perturb_joined_into(&values, 0, &mut Failing { left }, &mut out).unwrap_err();
        assert_eq!(e.code(), "rng", "{name}");
        assert!(out.iter().all(|&x| x == 0), "{name}: a report of the first block survived");
        assert_eq!(m.perturb_joined(&text, n, &mut Failing { left }).unwrap_err().code(), "rng");
    }
}

#[test]
fn the_open_vectors_replay_through_the_batch() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.file_name().unwrap().to_string_lossy().starts_with("open-") {
            continue;
        }
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let d = OpenDocument::from_json(&v["document"].to_string()).unwrap();
        let policy = match &v["policy"] {
            Value::Null => Policy::default(),
            p => Policy::from_json(&p.to_string()).unwrap(),
        };
        let m = d.verify(&policy).unwrap();
        let inputs: Vec<String> = v["inputs"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().into()).collect();
        let seed = v["seed"].as_u64().unwrap();
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        let cols = m.perturb_joined(&joined(&inputs), inputs.len(), &mut rng).unwrap();
        let got: Vec<String> = rows(&m, &cols, inputs.len()).iter().map(OpenReport::canonical).collect();
        let want: Vec<&str> = v["outputs"].as_array().unwrap().iter().map(|y| y.as_str().unwrap()).collect();
        assert_eq!(got, want, "{}", path.display());
        seen += 1;
    }
    assert!(seen >= 4, "expected the four open vectors, found {seen}");
}
