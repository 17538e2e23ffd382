//! The open-domain contract of the CLI (issue 34): `design olh|hadamard|hcms|heavy-hitters`,
//! the collector taking their reports and answering candidates and heavy hitters,
//! `estimate --candidates`, `heavy-hitters` and `simulate --population`, on SQLite (and
//! PostgreSQL when `PRIVLIFT_TEST_POSTGRES` names a server).

mod common;

use common::cli::{run, TempDir};
use common::collector::{batch, designed, engines, get, http, post, sha256_of, simulate, sqlite, start, GRADE};
use privlift::open::hash::xxh32;
use serde_json::{json, Value};

const FRUIT: [&str; 5] = ["apple", "banana", "cherry", "kiwi", "mango"];

#[test]
fn design_prints_each_open_kind_and_refuses_bad_flags() {
    let t = TempDir::new("open-design");
    for (method, kind) in [("olh", "olh"), ("hadamard", "hadamard"), ("hcms", "hcms")] {
        let doc = run(&["design", method, "--epsilon", "2", "--domain", "strings", "--id", "x"]).json();
        assert_eq!(doc["mechanism"]["kind"], kind);
        assert_eq!(doc["domain"], json!({"kind": "strings", "max_bytes": 32}));
        assert_eq!(
            (doc["mechanism"]["hash"].as_str(), doc["mechanism"]["hash_version"].as_u64()),
            (Some("xxh32"), Some(1))
        );
        // The claim is the audit: ε within rounding, or below it by the keep a 32-bit draw
        // rounds away (privlift::sample::keep_or_uniform).
        let claim = doc["claims"]["ldp_x"].as_f64().unwrap();
        assert!((2.0 * (1.0 - 1e-4)..=2.0 * (1.0 + 1e-9)).contains(&claim), "{method}: {claim}");
    }
    let olh = run(&["design", "olh", "--epsilon", "1", "--domain", "strings"]).json();
    assert_eq!((olh["mechanism"]["g"].as_u64(), olh["id"].as_str()), (Some(4), Some("olh-eps1")));
    let hh = run(&["design", "heavy-hitters", "--epsilon", "2", "--max-bytes", "4"]).json();
    assert_eq!(hh["mechanism"]["prefix_bits"], json!([8, 16, 24, 32]));
    assert_eq!(hh["mechanism"]["split"], json!([0.25, 0.25, 0.25, 0.25]));
    // A prior whose p sums to < 1: the rest is every unlisted value.
    let prior = t.write("p.json", r#"{"values": ["apple", "banana"], "p": [0.3, 0.2]}"#);
    let doc = run(&["design", "olh", "--epsilon", "1", "--domain", "strings", "--prior", &prior]).json();
    assert_eq!(doc["prior"], json!({"values": ["apple", "banana"], "p": [0.3, 0.2]}));
    // Refusals: usage (2) for flags, invalid_argument (1) naming the file for a bad prior.
    run(&["design", "olh", "--epsilon", "1"]).fails("invalid_argument", 2);
    run(&["design", "heavy-hitters", "--epsilon", "1"]).fails("invalid_argument", 2);
    run(&["design", "heavy-hitters", "--epsilon", "1", "--max-bytes", "4", "--prior", &prior])
        .fails("invalid_argument", 2);
    run(&["design", "olh", "--epsilon", "1", "--domain", "ints"]).fails("invalid_argument", 2);
    let over = t.write("over.json", r#"{"values": ["secret-a", "b"], "p": [0.7, 0.4]}"#);
    let e = run(&["design", "olh", "--epsilon", "1", "--domain", "strings", "--prior", &over])
        .fails("invalid_argument", 1)
        .to_string();
    assert!(e.contains("over.json") && !e.contains("secret-a"), "{e}");
    let long = t.write("long.json", r#"{"values": ["secret-long"], "p": [0.5]}"#);
    let e = run(&["design", "hcms", "--epsilon", "1", "--domain", "strings", "--max-bytes", "4", "--prior", &long])
        .fails("invalid_argument", 1)
        .to_string();
    assert!(e.contains("values[0]") && !e.contains("secret-long"), "{e}");
    run(&["design", "olh", "--epsilon", "0", "--domain", "strings"]).fails("invalid_argument", 1);
}

/// `n` OLH reports of a population where value i of FRUIT has weight 5 − i, each the
/// true bucket (a report of ε large enough that the randomiser keeps it).
fn olh_reports(g: u32, n: u64) -> impl Fn(u64) -> Value {
    move |i| {
        let weights = [5u64, 4, 3, 2, 1];
        let mut k = i % 15;
        let v = weights
            .iter()
            .position(|&w| {
                if k < w {
                    true
                } else {
                    k -= w;
                    false
                }
            })
            .unwrap();
        let seed = (i.wrapping_mul(2_654_435_761) % (1 << 32)) as u32 ^ (n as u32);
        json!({"seed": seed, "y": xxh32(seed, FRUIT[v].as_bytes()) % g})
    }
}

/// The top-level members of the JSON object `text` are exactly `keys`, in this order.
fn in_order(text: &str, keys: &[&str]) {
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v.as_object().unwrap().len(), keys.len(), "{text}");
    let at: Vec<usize> = keys.iter().map(|k| text.find(&format!("\n  \"{k}\": ")).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn the_collector_takes_open_reports_and_answers_candidates_and_heavy_hitters() {
    let (t, dir) = designed(
        "open-collect",
        &[
            &["olh", "--epsilon", "6", "--domain", "strings", "--max-bytes", "8", "--id", "fruit"],
            &["heavy-hitters", "--epsilon", "6", "--max-bytes", "2", "--id", "hh"],
        ],
    );
    let g = 404; // round(e^6) + 1
    for db in engines(&t) {
        let c = start(&db, &dir, &[]);
        let sha = sha256_of(&c.addr, "fruit");
        post(&c.addr, &batch("fruit", &sha, 0, 3000, olh_reports(g, 3000))).expect(202);
        // Refusals name the field, never the value; the batch is refused whole.
        for (output, field) in [
            (json!({"seed": 1, "y": g}), "`y`"),
            (json!({"seed": 4_294_967_296u64, "y": 1}), "unsigned 32-bit"),
            (json!({"seed": 1}), "`y`"),
            (json!({"seed": 1, "y": 1, "z": 7}), "unknown field"),
            (json!("apple"), "object"),
        ] {
            let r = post(&c.addr, &batch("fruit", &sha, 10_000, 1, |_| output.clone()));
            assert_eq!(r.status, 400, "{output}: {}", String::from_utf8_lossy(&r.body));
            let body = r.json();
            assert_eq!(body["code"], "unknown_output");
            assert!(body["message"].as_str().unwrap().contains(field), "{body}");
            let message = body["message"].as_str().unwrap();
            assert!(!message.contains("apple") && !message.contains("4294967296"), "{body}");
        }
        // Candidates in the query (percent-encoded) and in a POST body.
        let r = get(&c.addr, "/v1/estimates/fruit?candidate=apple&candidate=kiwi&candidate=ban%61na").expect(200);
        let e = r.json();
        assert_eq!(e["labels"], json!(["apple", "kiwi", "banana"]));
        assert_eq!(
            (e["n"].as_u64(), e["method"].as_str(), e["sha256"].as_str()),
            (Some(3000), Some("olh"), Some(&*sha))
        );
        let est: Vec<f64> = serde_json::from_value(e["estimate"].clone()).unwrap();
        // Reports that always keep the bucket (κ ≈ 1/2 at this g) overstate by 1/(p − q):
        // the order is what they fix.
        assert!(est[0] > est[2] && est[2] > est[1] && est[1] > 0.0, "{est:?}");
        let body = json!({"candidates": FRUIT}).to_string();
        let r = http(&c.addr, "POST", "/v1/estimates/fruit", &[("Content-Type", "application/json")], body.as_bytes())
            .unwrap()
            .expect(200);
        assert_eq!(r.json()["labels"], json!(FRUIT));
        // A candidate longer than max_bytes, or no candidate at all: a typed refusal.
        let r = get(&c.addr, "/v1/estimates/fruit?candidate=watermelon");
        assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("invalid_argument")));
        assert!(!String::from_utf8_lossy(&r.body).contains("watermelon"));
        get(&c.addr, "/v1/estimates/fruit").expect(400);
        // The CLI, offline, from the same database.
        let cands = t.write("c.txt", "apple\nbanana\ncherry\n");
        let o = run(&["estimate", "--db", &db, "--mechanism", "fruit", "--candidates", &cands]);
        let out = o.json();
        in_order(&o.stdout, &["labels", "estimate", "std_error", "n", "method", "sha256"]);
        assert_eq!(out["labels"], json!(["apple", "banana", "cherry"]));
        let bad = t.write("bad.txt", "apple\nwatermelon\n");
        let e = run(&["estimate", "--db", &db, "--mechanism", "fruit", "--candidates", &bad])
            .fails("invalid_argument", 1)
            .to_string();
        assert!(e.contains("line 2") && !e.contains("watermelon"), "{e}");
        // Heavy hitters: every round's users report the true bucket of their prefix.
        let hh = sha256_of(&c.addr, "hh");
        let hg = 404;
        let reports = batch("hh", &hh, 20_000, 3000, |i| {
            let value: &[u8] = [&b"ab"[..], b"ab", b"ok", b"z", b"z", b"z"][(i % 6) as usize];
            let round = (i / 6 % 2) as u32;
            let prefix = &[value, &[0, 0]].concat()[..round as usize + 1];
            let seed = (i.wrapping_mul(40_503) % (1 << 32)) as u32;
            json!({"round": round, "seed": seed, "y": xxh32(seed, prefix) % hg})
        });
        assert_eq!(post(&c.addr, &reports).status, 202);
        let r = get(&c.addr, "/v1/estimates/hh?heavy_hitters&top=2").expect(200);
        let h = r.json();
        assert_eq!(h["values"], json!(["z", "ab"]), "{h}");
        let o = run(&["heavy-hitters", "--db", &db, "--mechanism", "hh", "--top", "2"]);
        let out = o.json();
        in_order(&o.stdout, &["values", "estimate", "std_error", "n", "sha256"]);
        assert_eq!(out["values"], h["values"]);
        assert_eq!(out["n"].as_u64(), Some(3000));
        run(&["heavy-hitters", "--db", &db, "--mechanism", "hh", "--top", "0"]).fails("invalid_argument", 2);
        run(&["heavy-hitters", "--db", &db, "--mechanism", "fruit", "--top", "2"]).fails("invalid_argument", 1);
    }
}

/// `simulate --population` for every kind: the open kinds (no prior), a discrete and a
/// continuous document, each user drawing from POP.json instead of the prior; then the
/// estimates recover the population, and a bad population is a typed refusal.
#[test]
fn simulate_draws_every_kind_from_the_population() {
    let (t, dir) = designed(
        "open-simulate",
        &[
            &["olh", "--epsilon", "4", "--domain", "strings", "--max-bytes", "8", "--id", "olh"],
            &["hadamard", "--epsilon", "4", "--domain", "strings", "--max-bytes", "8", "--id", "had"],
            &["hcms", "--epsilon", "4", "--domain", "strings", "--max-bytes", "8", "--id", "hcms"],
            &["heavy-hitters", "--epsilon", "4", "--max-bytes", "2", "--id", "hh"],
            &["krr", "--prior", GRADE, "--epsilon", "4", "--id", "grade"],
        ],
    );
    let fruit = json!({"values": ["apple", "banana", "kiwi"], "p": [0.6, 0.3, 0.1]});
    let pop = json!({
        "olh": fruit, "had": fruit, "hcms": fruit,
        "hh": {"values": ["ab", "z", "ok"], "p": [0.5, 0.3, 0.2]},
        "grade": {"values": ["0", "1"], "p": [0.25, 0.75]},
    });
    let pop_path = t.write("pop.json", &pop.to_string());
    for db in engines(&t) {
        let (_, truth) = simulate(&t, &db, &dir, &["--users", "4000", "--seed", "3", "--population", &pop_path]);
        assert_eq!(truth["olh"]["values"], json!(["apple", "banana", "kiwi"]));
        let cands = t.write("c.txt", "apple\nbanana\nkiwi\nmango\n");
        for id in ["olh", "had", "hcms"] {
            let e = run(&["estimate", "--db", &db, "--mechanism", id, "--candidates", &cands]).json();
            assert_eq!(e["n"].as_u64(), Some(4000), "{id}");
            let (est, se): (Vec<f64>, Vec<f64>) = (
                serde_json::from_value(e["estimate"].clone()).unwrap(),
                serde_json::from_value(e["std_error"].clone()).unwrap(),
            );
            let p: Vec<f64> = serde_json::from_value(truth[id]["p"].clone()).unwrap();
            for (i, truth) in p.iter().chain([0.0].iter()).enumerate() {
                assert!((est[i] - truth).abs() < 4.5 * se[i], "{id} candidate {i}: {} ± {} vs {truth}", est[i], se[i]);
            }
        }
        let hh = run(&["heavy-hitters", "--db", &db, "--mechanism", "hh", "--top", "2"]).json();
        assert_eq!(hh["values"], json!(["ab", "z"]));
        // The discrete document's users drew from the population, not its prior.
        let g: Vec<f64> = serde_json::from_value(truth["grade"]["p"].clone()).unwrap();
        assert!((g[0] - 0.25).abs() < 0.03 && (g[1] - 0.75).abs() < 0.03 && g[2..].iter().all(|&p| p == 0.0), "{g:?}");
    }
    // Typed refusals, never echoing a value.
    let db = sqlite(&t, "bad.db");
    for (bad, what) in [
        (json!({"olh": {"values": ["apple"], "p": [0.5]}}), "add up to 1"),
        (json!({"olh": {"values": ["watermelon-secret"], "p": [1.0]}}), "values[0]"),
        (json!({"grade": {"values": ["not-a-grade"], "p": [1.0]}}), "values[0]"),
        (json!({"nope": {"values": ["a"], "p": [1.0]}}), "no published mechanism"),
    ] {
        let path = t.write("bad.json", &bad.to_string());
        let o = run(&["simulate", "--db", &db, "--dir", &dir, "--users", "10", "--population", &path]);
        let e = o.fails("invalid_argument", 1);
        assert!(e.contains(what) && !e.contains("secret") && !e.contains("not-a-grade"), "{e}");
    }
}
