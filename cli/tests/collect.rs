//! `privlift collect`: the routes, whole-batch refusal, versions, durability across
//! `kill -9`, and several collectors on one database, on SQLite and on PostgreSQL.
//!
//! PostgreSQL runs when `PRIVLIFT_TEST_POSTGRES` names a server this test may create
//! databases on (`scripts/test.sh` starts a throw-away one); with
//! `PRIVLIFT_REQUIRE_POSTGRES=1` its absence is a failure, not a skip.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::cli::{run, TempDir};
use common::collector::{
    batch, designed, engines, get, grade_label, http, mechanisms, post, sha256_of, simulate, sqlite, start, GRADE,
    KRR_GRADE,
};
use common::http::Response;
use serde_json::{json, Value};

const AGE_RETIRED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/priors/age-retired.json");
/// `design` arguments of a Laplace lattice mechanism over salaries (id `salary`).
const SALARY: &[&str] = &[
    "laplace-lip",
    "--samples",
    concat!(env!("CARGO_MANIFEST_DIR"), "/../data/priors/salary-samples.csv"),
    "--epsilon",
    "1",
    "--domain",
    "15000,240000",
    "--step",
    "1000",
    "--id",
    "salary",
];

#[test]
fn documents_reports_and_estimates() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    for db in engines(&t) {
        let c = start(&db, &dir, &[]);
        // The document, with its SHA-256 as a strong ETag.
        let r = get(&c.addr, "/v1/mechanisms/grade");
        assert_eq!(r.status, 200);
        let text = std::fs::read_to_string(format!("{dir}/grade.json")).unwrap();
        assert_eq!(r.body, text.as_bytes());
        let sha = sha256_of(&c.addr, "grade");
        assert_eq!(sha.len(), 64);
        let etag = format!("\"{sha}\"");
        let r = http(&c.addr, "GET", "/v1/mechanisms/grade", &[("If-None-Match", &etag)], b"").unwrap();
        assert_eq!(r.status, 304);
        assert!(r.body.is_empty());
        // If-None-Match compares weakly (RFC 9110, 13.1.2), as `privlift serve` does.
        for (tags, status) in [
            (format!("W/{etag}"), 304),
            (format!("\"{}\", W/{etag}", "0".repeat(64)), 304),
            ("*".to_string(), 304),
            (format!("W/\"{}\"", "0".repeat(64)), 200),
        ] {
            let r = http(&c.addr, "GET", "/v1/mechanisms/grade", &[("If-None-Match", &tags)], b"").unwrap();
            assert_eq!(r.status, status, "{tags}");
            assert_eq!(r.header("ETag"), Some(etag.as_str()), "{tags}");
        }
        assert_eq!(get(&c.addr, "/v1/mechanisms/nope").code(404), "unknown_mechanism");

        // No reports yet.
        let e = get(&c.addr, "/v1/estimates/grade").json();
        assert_eq!(e["n"], 0);
        assert!(e["estimate"].is_null());

        // Labels and indices; a retry of the same ids is all duplicates.
        let b = batch("grade", &sha, 0, 600, grade_label);
        let r = post(&c.addr, &b).expect(202);
        assert_eq!(r.json(), json!({"accepted": 600, "duplicates": 0}));
        assert_eq!(r.header("Access-Control-Allow-Origin"), Some("*"));
        assert_eq!(post(&c.addr, &b).json(), json!({"accepted": 0, "duplicates": 600}));
        let by_index = batch("grade", &sha, 600, 400, |i| Value::from((i * 7) % 21));
        // Overlapping ids inside a batch and with the stored ones count once.
        let mut overlapping = by_index.clone();
        let again = b["reports"][0].clone();
        overlapping["reports"].as_array_mut().unwrap().extend([again, by_index["reports"][0].clone()]);
        assert_eq!(post(&c.addr, &overlapping).json(), json!({"accepted": 400, "duplicates": 2}));

        // The estimate is the CLI's on the same counts.
        let e = get(&c.addr, "/v1/estimates/grade").json();
        assert_eq!(e["n"], 1000);
        assert_eq!(e["method"], "mle");
        assert_eq!(e["sha256"], Value::from(sha.clone()));
        let mut counts = vec![0u64; 21];
        for i in 0..1000u64 {
            counts[((i * 7) % 21) as usize] += 1;
        }
        let c_path = t.write("counts.json", &json!({ "counts": counts }).to_string());
        let mut offline = run(&["estimate", "--spec", &format!("{dir}/grade.json"), "--counts", &c_path]).json();
        offline["sha256"] = Value::from(sha.clone());
        assert_eq!(e, offline);
        // And `estimate --db` reads the same from the database, offline.
        assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade"]).json(), e);
        let unbiased = run(&["estimate", "--db", &db, "--mechanism", "grade", "--method", "unbiased"]).json();
        assert_eq!(unbiased["method"], "unbiased");
        run(&["estimate", "--db", &db, "--mechanism", "nope"]).fails("invalid_argument", 1);

        // CORS preflight.
        let r = http(&c.addr, "OPTIONS", "/v1/reports", &[("Origin", "http://example.com")], b"").unwrap();
        assert_eq!(r.status, 204);
        assert_eq!(r.header("Access-Control-Allow-Origin"), Some("*"));
        assert!(r.header("Access-Control-Allow-Headers").unwrap().contains("content-type"));
        assert_eq!(get(&c.addr, "/v1/reports").code(405), "method_not_allowed");
        assert_eq!(get(&c.addr, "/nope").code(404), "not_found");
    }
}

#[test]
fn a_bad_report_refuses_its_whole_batch() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    for db in engines(&t) {
        let c = start(&db, &dir, &[]);
        let sha = sha256_of(&c.addr, "grade");
        let good =
            |i: u64| json!({"mechanism": "grade", "sha256": sha, "output": "3", "report_id": format!("{i:032x}")});
        let cases: Vec<(Value, u16, &str)> = vec![
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": "21", "report_id": format!("{:032x}", 2)}]}),
                400,
                "unknown_output",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": 21, "report_id": format!("{:032x}", 2)}]}),
                400,
                "unknown_output",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": [1], "report_id": format!("{:032x}", 2)}]}),
                400,
                "unknown_output",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "nope", "sha256": sha, "output": "3", "report_id": format!("{:032x}", 2)}]}),
                404,
                "unknown_mechanism",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": "0".repeat(64), "output": "3", "report_id": format!("{:032x}", 2)}]}),
                404,
                "unknown_version",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": "3", "report_id": "XYZ"}]}),
                400,
                "invalid_report",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha.to_uppercase(), "output": "3", "report_id": format!("{:032x}", 2)}]}),
                400,
                "invalid_report",
            ),
            (
                json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": "3", "report_id": format!("{:032x}", 2), "x": 1}]}),
                400,
                "json",
            ),
            (json!({"reports": [good(1), {"mechanism": "grade", "sha256": sha, "output": "3"}]}), 400, "json"),
            (json!({"reports": []}), 400, "empty_batch"),
            (json!([good(1)]), 400, "json"),
        ];
        for (body, status, code) in cases {
            assert_eq!(post(&c.addr, &body).code(status), code, "{body}");
        }
        let r = http(&c.addr, "POST", "/v1/reports", &[], b"{\"reports\": [").unwrap();
        assert_eq!(r.code(400), "json");
        let big = batch("grade", &sha, 0, 10_001, grade_label);
        assert_eq!(post(&c.addr, &big).code(413), "batch_too_large");
        let huge = vec![b' '; 4 * 1024 * 1024 + 1];
        assert_eq!(http(&c.addr, "POST", "/v1/reports", &[], &huge).unwrap().code(413), "body_too_large");
        // The error never repeats the output it refused.
        let r = post(
            &c.addr,
            &json!({"reports": [{"mechanism": "grade", "sha256": sha, "output": "secret-ish", "report_id": format!("{:032x}", 9)}]}),
        );
        assert!(!String::from_utf8_lossy(&r.body).contains("secret-ish"));
        // Nothing of any refused batch was stored.
        assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"], 0);
        assert_eq!(post(&c.addr, &json!({"reports": [good(1)]})).json(), json!({"accepted": 1, "duplicates": 0}));
    }
}

#[test]
fn versions_are_counted_apart_and_old_ones_still_accepted() {
    let t = TempDir::new("collect");
    let v1 = mechanisms(&t, "v1", &[KRR_GRADE]);
    let v2 = mechanisms(&t, "v2", &[&["krr", "--prior", GRADE, "--epsilon", "2", "--id", "grade"]]);
    for db in engines(&t) {
        let c = start(&db, &v1, &[]);
        let sha1 = sha256_of(&c.addr, "grade");
        assert_eq!(post(&c.addr, &batch("grade", &sha1, 0, 100, grade_label)).status, 202);
        drop(c);
        let c = start(&db, &v2, &[]);
        let sha2 = sha256_of(&c.addr, "grade");
        assert_ne!(sha1, sha2);
        // A client still holding version 1 is counted with version 1.
        assert_eq!(post(&c.addr, &batch("grade", &sha1, 100, 50, grade_label)).json()["accepted"], 50);
        assert_eq!(post(&c.addr, &batch("grade", &sha2, 150, 30, grade_label)).json()["accepted"], 30);
        assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"], 30);
        let old = get(&c.addr, &format!("/v1/estimates/grade?sha256={sha1}")).json();
        assert_eq!((old["n"].clone(), old["sha256"].clone()), (json!(150), json!(sha1)));
        assert_eq!(
            get(&c.addr, &format!("/v1/estimates/grade?sha256={}", "a".repeat(64))).code(404),
            "unknown_version"
        );
        // Offline: the published version, or the one named.
        assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade"]).json()["n"], 30);
        assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade", "--sha256", &sha1]).json()["n"], 150);
        // A rollback, v1 published again: `estimate --db` estimates it as the collector
        // does, not the latest registered version (v2).
        drop(c);
        let c = start(&db, &v1, &[]);
        let online = get(&c.addr, "/v1/estimates/grade").json();
        assert_eq!((online["n"].clone(), online["sha256"].clone()), (json!(150), json!(sha1)));
        assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade"]).json(), online);
    }
}

#[test]
fn unary_continuous_and_secret_documents() {
    let (t, dir) = designed(
        "collect",
        &[
            &["oue", "--prior", GRADE, "--epsilon", "1", "--id", "grade-oue"],
            &["krr", "--joint", AGE_RETIRED, "--epsilon", "1", "--id", "age"],
            SALARY,
        ],
    );
    for db in engines(&t) {
        let c = start(&db, &dir, &[]);
        // Unary: one bit per input label.
        let sha = sha256_of(&c.addr, "grade-oue");
        let bits = |i: u64| {
            Value::from((0..21).map(|j| if (i + j).is_multiple_of(5) { '1' } else { '0' }).collect::<String>())
        };
        assert_eq!(post(&c.addr, &batch("grade-oue", &sha, 0, 200, bits)).json()["accepted"], 200);
        let wrong = batch("grade-oue", &sha, 500, 1, |_| Value::from("0101"));
        assert_eq!(post(&c.addr, &wrong).code(400), "unknown_output");
        let e = get(&c.addr, "/v1/estimates/grade-oue").json();
        assert_eq!((e["n"].clone(), e["method"].clone()), (json!(200), json!("unbiased")));
        assert_eq!(e["estimate"].as_array().unwrap().len(), 21);

        // A declared secret: P_S too.
        let sha = sha256_of(&c.addr, "age");
        let labels = ["18-24", "25-34", "35-44", "45-54", "55-64", "65+"];
        assert_eq!(
            post(&c.addr, &batch("age", &sha, 1000, 300, |i| Value::from(labels[(i % 6) as usize]))).status,
            202
        );
        let e = get(&c.addr, "/v1/estimates/age").json();
        assert_eq!(e["secret"]["labels"], json!(["working", "retired"]));
        let ps: f64 = e["secret"]["estimate"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
        assert!((ps - 1.0).abs() < 1e-9, "{e}");

        // Continuous: lattice values; the mean and the histogram.
        let sha = sha256_of(&c.addr, "salary");
        let values = |i: u64| Value::from(40_000.0 + 1000.0 * ((i % 41) as f64) - 20_000.0);
        assert_eq!(post(&c.addr, &batch("salary", &sha, 2000, 400, values)).json()["accepted"], 400);
        let off_lattice = batch("salary", &sha, 3000, 1, |_| Value::from(40_500.5));
        assert_eq!(post(&c.addr, &off_lattice).code(400), "unknown_output");
        let e = get(&c.addr, "/v1/estimates/salary").json();
        assert_eq!(e["n"], 400);
        let mean: f64 = (2000..2400u64).map(|i| 20_000.0 + 1000.0 * ((i % 41) as f64)).sum::<f64>() / 400.0;
        assert!((e["mean"].as_f64().unwrap() - mean).abs() < 1e-6 * mean, "{e}");
        assert!(e["mean_std_error"].as_f64().unwrap() > 0.0);
        let hist: f64 = e["estimate"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
        assert!((hist - 1.0).abs() < 1e-9);
        assert_eq!(e["labels"].as_array().unwrap().len(), e["estimate"].as_array().unwrap().len());
    }
}

/// A report of an output no input can produce (a zero column, a degenerate unary
/// encoding's impossible bits, a lattice value beyond the noise's reach) is refused
/// with `unknown_output` and never stored, so the version's estimate stays possible.
#[test]
fn outputs_the_mechanism_never_releases_are_refused() {
    let t = TempDir::new("collect");
    let dir = t.0.join("m");
    std::fs::create_dir_all(&dir).unwrap();
    let doc = |id: &str, mechanism: Value| {
        json!({"format": "privlift-mechanism", "version": 1, "id": id, "labels": ["a", "b", "c"],
               "prior": [0.5, 0.3, 0.2], "mechanism": mechanism, "claims": {}})
    };
    let matrix =
        doc("zero", json!({"kind": "matrix", "p_y_given_x": [[0.6, 0.4, 0.0], [0.3, 0.7, 0.0], [0.5, 0.5, 0.0]]}));
    let unary = doc("oue0", json!({"kind": "unary", "q01": 0.0, "q10": 0.5}));
    std::fs::write(dir.join("zero.json"), matrix.to_string()).unwrap();
    std::fs::write(dir.join("oue0.json"), unary.to_string()).unwrap();
    let salary = run(&[&["design"], SALARY].concat());
    assert_eq!(salary.code, 0, "{}", salary.stderr);
    std::fs::write(dir.join("salary.json"), &salary.stdout).unwrap();
    let dir = dir.to_str().unwrap();
    for db in engines(&t) {
        let c = start(&db, dir, &[]);
        let cases: [(&str, Value, Value); 4] = [
            ("zero", json!("2"), json!("1")),
            ("zero", json!(2), json!(0)),
            // q01 = 0: only the input's own bit can be set.
            ("oue0", json!("110"), json!("010")),
            // Far beyond the Laplace noise's reach (and far from the domain).
            ("salary", json!(1e12), json!(10_000.0)),
        ];
        for (i, (id, never, fine)) in cases.into_iter().enumerate() {
            let sha = sha256_of(&c.addr, id);
            let i = i as u64 * 10;
            let bad = batch(id, &sha, i, 2, |j| if j == i { fine.clone() } else { never.clone() });
            let r = post(&c.addr, &bad);
            assert_eq!(r.code(400), "unknown_output", "{id}: {never}");
            assert!(
                String::from_utf8_lossy(&r.body).contains("never releases"),
                "{id}: {}",
                String::from_utf8_lossy(&r.body)
            );
            assert_eq!(post(&c.addr, &batch(id, &sha, i, 1, |_| fine.clone())).json()["accepted"], 1, "{id}");
            let e = get(&c.addr, &format!("/v1/estimates/{id}"));
            assert_eq!(e.status, 200, "{id}: {}", String::from_utf8_lossy(&e.body));
        }
        let e = get(&c.addr, "/v1/estimates/zero").json();
        assert_eq!(e["n"], 2);
    }
}

/// Posts batches of `size` with ids from `first` until the collector stops answering;
/// returns the batches it acknowledged, counting them in `acked` as they come.
fn stream(addr: &str, sha: &str, first: u64, size: u64, acked: &AtomicUsize) -> Vec<u64> {
    let mut out = Vec::new();
    for k in 0.. {
        let b = batch("grade", sha, first + k * size, size, grade_label);
        match http(addr, "POST", "/v1/reports", &[], b.to_string().as_bytes()) {
            Ok(r) if r.status == 202 => {
                out.push(k);
                acked.fetch_add(1, Ordering::SeqCst);
            }
            _ => break,
        }
    }
    out
}

#[test]
fn acknowledged_reports_survive_kill_9_and_count_once() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    for db in engines(&t) {
        let mut c = start(&db, &dir, &[]);
        let sha = sha256_of(&c.addr, "grade");
        let size = 250u64;
        let acked_so_far = std::sync::Arc::new(AtomicUsize::new(0));
        let poster = {
            let (addr, sha, acked) = (c.addr.clone(), sha.clone(), std::sync::Arc::clone(&acked_so_far));
            std::thread::spawn(move || stream(&addr, &sha, 0, size, &acked))
        };
        // Killed in the middle of the stream, whatever the machine's speed.
        while acked_so_far.load(Ordering::SeqCst) < 20 {
            std::thread::sleep(Duration::from_millis(5));
        }
        c.child.kill().unwrap(); // SIGKILL: no chance to flush anything
        c.child.wait().unwrap();
        let acked = poster.join().unwrap();
        assert!(acked.len() >= 20, "killed after {} batches", acked.len());
        assert_eq!(acked, (0..acked.len() as u64).collect::<Vec<_>>(), "batches are acknowledged in order");

        let c = start(&db, &dir, &[]);
        let stored = get(&c.addr, "/v1/estimates/grade").json()["n"].as_u64().unwrap();
        // Every acknowledged batch is there; at most the one in flight besides.
        let acked_reports = acked.len() as u64 * size;
        assert!(
            stored == acked_reports || stored == acked_reports + size,
            "stored {stored}, acknowledged {acked_reports}"
        );
        // The client retries everything it sent (acknowledged or not): each id counts once.
        let sent = acked.len() as u64 + 1;
        let mut accepted = 0;
        for k in 0..sent {
            let r = post(&c.addr, &batch("grade", &sha, k * size, size, grade_label)).json();
            assert_eq!(r["accepted"].as_u64().unwrap() + r["duplicates"].as_u64().unwrap(), size);
            accepted += r["accepted"].as_u64().unwrap();
        }
        assert_eq!(stored + accepted, sent * size);
        assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"].as_u64().unwrap(), sent * size);
    }
}

#[test]
fn two_collectors_on_one_database_count_a_retried_batch_once() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    for db in engines(&t) {
        let (a, b) = (start(&db, &dir, &[]), start(&db, &dir, &[]));
        let sha = sha256_of(&a.addr, "grade");
        assert_eq!(sha, sha256_of(&b.addr, "grade"));
        let rounds = 20u64;
        let size = 300u64;
        let mut accepted = 0;
        for k in 0..rounds {
            let body = batch("grade", &sha, k * size, size, grade_label);
            // The same batch to both collectors at once, as a load balancer's retry would.
            let handles: Vec<_> = [a.addr.clone(), b.addr.clone()]
                .into_iter()
                .map(|addr| {
                    let body = body.clone();
                    std::thread::spawn(move || post(&addr, &body).json())
                })
                .collect();
            for h in handles {
                let r = h.join().unwrap();
                assert_eq!(r["accepted"].as_u64().unwrap() + r["duplicates"].as_u64().unwrap(), size);
                accepted += r["accepted"].as_u64().unwrap();
            }
        }
        assert_eq!(accepted, rounds * size);
        for c in [&a, &b] {
            assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"].as_u64().unwrap(), rounds * size);
        }
    }
}

#[test]
fn command_line_errors() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    let db = sqlite(&t, "r.db");
    run(&["collect", "--dir", &dir]).fails("invalid_argument", 2);
    run(&["collect", "--db", "mysql://x", "--dir", &dir]).fails("invalid_argument", 2);
    run(&["collect", "--db", &db]).fails("invalid_argument", 2);
    run(&["collect", "--db", &db, "--dir", &dir, "--host", "0.0.0.0", "--port", "0"]).fails("invalid_argument", 2);
    run(&["collect", "--db", &db, "--dir", &dir, "--threads", "0"]).fails("invalid_argument", 2);
    run(&["collect", "--db", &db, "--dir", t.0.join("none").to_str().unwrap()]).fails("io", 1);
    // Two documents with one id.
    let twice = t.0.join("twice");
    std::fs::create_dir_all(&twice).unwrap();
    let doc = std::fs::read_to_string(format!("{dir}/grade.json")).unwrap();
    std::fs::write(twice.join("a.json"), &doc).unwrap();
    std::fs::write(twice.join("b.json"), doc.replace("\"id\"", "\"description\": \"copy\", \"id\"")).unwrap();
    run(&["collect", "--db", &db, "--dir", twice.to_str().unwrap(), "--port", "0"]).fails("invalid_argument", 1);
    run(&["estimate", "--db", &db, "--mechanism", "grade", "--spec", "x.json"]).fails("invalid_argument", 2);
    run(&["estimate", "--mechanism", "grade", "--spec", "x.json", "--counts", "c.json"]).fails("invalid_argument", 2);
}

#[test]
fn simulate_seeds_a_population_once() {
    let (t, dir) = designed(
        "collect",
        &[
            &["krr", "--prior", GRADE, "--epsilon", "2", "--id", "grade"],
            &["krr", "--joint", AGE_RETIRED, "--epsilon", "1", "--id", "age"],
        ],
    );
    let db = sqlite(&t, "sim.db");
    let args = ["--users", "5000", "--seed", "7"];
    let (first, _) = simulate(&t, &db, &dir, &args);
    assert!(first.stderr.contains("10000 new reports"), "{}", first.stderr);
    // The same seed gives the same report ids: nothing is stored twice.
    let (again, truth) = simulate(&t, &db, &dir, &args);
    assert!(again.stderr.contains(" 0 new reports"));
    for id in ["grade", "age"] {
        let e = run(&["estimate", "--db", &db, "--mechanism", id]).json();
        assert_eq!(e["n"], 5000);
        assert_eq!(truth[id]["sha256"], e["sha256"]);
        let p: Vec<f64> = truth[id]["p"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    // The curator learns the secret's distribution: within 4 standard errors of the truth.
    let e = run(&["estimate", "--db", &db, "--mechanism", "age"]).json();
    for s in 0..2 {
        let (est, se) = (e["secret"]["estimate"][s].as_f64().unwrap(), e["secret"]["std_error"][s].as_f64().unwrap());
        let want = truth["age"]["secret"]["p"][s].as_f64().unwrap();
        assert!((est - want).abs() < 4.0 * se, "P_S[{s}] = {est} ± {se}, truth {want}");
    }
    run(&["simulate", "--db", &db, "--dir", &dir, "--users", "0"]).fails("invalid_argument", 2);
}

#[test]
fn an_input_the_channel_cannot_identify_is_an_interval_not_a_point() {
    // The issue's finding: an ε-LIP RR LP design over 5 values that never uses one output.
    // Before, P_X(b) = 0.1507 came back as 0.0896 ± 0.0029 (z = −21) and P_X(a) = 0.0526
    // as 0.1459 ± 0.0015 (z = 64); now each input gives what the reports determine.
    let t = TempDir::new("collect");
    let prior = t.write("prior.json", r#"{"labels": ["a", "b", "c", "d", "e"], "p": [0.05, 0.15, 0.2, 0.25, 0.35]}"#);
    let dir = mechanisms(&t, "m", &[&["rr-lip", "--prior", &prior, "--epsilon", "1.5", "--id", "r5"]]);
    let db = sqlite(&t, "sim.db");
    let (_, truth) = simulate(&t, &db, &dir, &["--users", "20000", "--seed", "1"]);
    let e = run(&["estimate", "--db", &db, "--mechanism", "r5"]).json();
    assert_eq!(e["identified"], json!([false, false, true, true, false]), "{e}");
    // 5 checks at a 1 % family-wise level: |z| ≤ Φ⁻¹(1 − 0.001).
    let z = 3.090232;
    for x in 0..5 {
        let want = truth["r5"]["p"][x].as_f64().unwrap();
        let est = e["estimate"][x].as_f64().unwrap();
        if e["identified"][x] == json!(true) {
            let se = e["std_error"][x].as_f64().unwrap();
            assert!((est - want).abs() <= z * se && e["interval"][x].is_null(), "x = {x}: {est} ± {se}, truth {want}");
        } else {
            assert!(e["std_error"][x].is_null(), "x = {x}: no standard error pretends: {e}");
            let (lo, hi) = (e["interval"][x][0].as_f64().unwrap(), e["interval"][x][1].as_f64().unwrap());
            assert!(lo <= est && est <= hi && lo <= want && want <= hi, "x = {x}: {want} in [{lo}, {hi}] ({est})");
        }
    }
    // The estimates route answers the same.
    let c = start(&db, &dir, &[]);
    assert_eq!(get(&c.addr, "/v1/estimates/r5").json(), e);
}

/// A mechanism id that needs percent-encoding in a URL (as `encodeURIComponent` encodes
/// it) is reachable on both GET routes; a malformed escape is 400 `invalid_id`.
#[test]
fn ids_are_percent_decoded_in_paths() {
    let t = TempDir::new("collect");
    let id = "âge krr 2024";
    let dir = mechanisms(&t, "m", &[&["krr", "--prior", GRADE, "--epsilon", "1", "--id", id]]);
    let c = start(&engines(&t)[0], &dir, &[]);
    let encoded = "%C3%A2ge%20krr%202024";
    let r = get(&c.addr, &format!("/v1/mechanisms/{encoded}")).expect(200);
    assert_eq!(r.json()["id"], id);
    let sha = r.header("ETag").unwrap().trim_matches('"').to_string();
    assert_eq!(post(&c.addr, &batch(id, &sha, 0, 30, grade_label)).json()["accepted"], 30);
    let e = get(&c.addr, &format!("/v1/estimates/{encoded}?sha256={sha}")).json();
    assert_eq!((e["n"].clone(), e["sha256"].clone()), (json!(30), json!(sha)));
    assert_eq!(get(&c.addr, &format!("/v1/estimates/{encoded}")).json()["n"], 30);
    // Lower-case escapes, and an escaped character that needs none.
    assert_eq!(get(&c.addr, "/v1/mechanisms/%c3%a2ge%20kr%72%202024").status, 200);
    for bad in ["%zz", "%C3", "%ff", "x%2", "%"] {
        assert_eq!(get(&c.addr, &format!("/v1/mechanisms/{bad}")).code(400), "invalid_id", "{bad}");
        assert_eq!(get(&c.addr, &format!("/v1/estimates/{bad}")).code(400), "invalid_id", "{bad}");
    }
    assert_eq!(get(&c.addr, "/v1/mechanisms/%C3%A2ge").code(404), "unknown_mechanism");
}

/// A database of an earlier release (without `privlift_published`) is estimated as before,
/// by its latest registered version, until a collector opens it and records the version it
/// publishes (here the earlier one).
#[test]
fn a_database_of_an_earlier_release_gains_the_published_version() {
    let t = TempDir::new("collect");
    let v1 = mechanisms(&t, "v1", &[KRR_GRADE]);
    let v2 = mechanisms(&t, "v2", &[&["krr", "--prior", GRADE, "--epsilon", "2", "--id", "grade"]]);
    // Two versions registered by an earlier release, v2 last.
    let path = t.0.join("earlier.db");
    let doc = |dir: &str| std::fs::read_to_string(format!("{dir}/grade.json")).unwrap();
    let sha = |text: &str| -> String {
        use sha2::Digest;
        sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    };
    let (doc1, doc2) = (doc(&v1), doc(&v2));
    let (sha1, sha2) = (sha(&doc1), sha(&doc2));
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE privlift_documents (version INTEGER PRIMARY KEY, mechanism TEXT NOT NULL, \
             sha256 TEXT NOT NULL, document TEXT NOT NULL, UNIQUE (mechanism, sha256));
             CREATE TABLE privlift_reports (report_id TEXT PRIMARY KEY, \
             version BIGINT NOT NULL REFERENCES privlift_documents (version), output TEXT NOT NULL);
             CREATE INDEX privlift_reports_count ON privlift_reports (version, output);",
        )
        .unwrap();
        for (text, sha) in [(&doc1, &sha1), (&doc2, &sha2)] {
            conn.execute(
                "INSERT INTO privlift_documents (mechanism, sha256, document) VALUES ('grade', ?1, ?2)",
                rusqlite::params![sha, text],
            )
            .unwrap();
        }
        conn.execute("INSERT INTO privlift_reports VALUES ('00000000000000000000000000000001', 1, '3')", []).unwrap();
    }
    let db = format!("sqlite:{}", path.display());
    // Opening it adds the table (twice: nothing changes); no version is published yet.
    for _ in 0..2 {
        assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade"]).json()["sha256"], json!(sha2));
    }
    let c = start(&db, &v1, &[]);
    let online = get(&c.addr, "/v1/estimates/grade").json();
    assert_eq!((online["n"].clone(), online["sha256"].clone()), (json!(1), json!(sha1)));
    assert_eq!(run(&["estimate", "--db", &db, "--mechanism", "grade"]).json(), online);
}

/// Ids a client sent are quoted in every answer that names them (control and bidi
/// characters escaped, at most 64 characters shown, `privlift::error::Quoted`): a forged
/// line stays on its line, and a 3 MiB mechanism id is not sent back.
#[test]
fn ids_in_answers_are_quoted_and_bounded() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    let c = start(&engines(&t)[0], &dir, &[]);
    let shown = |r: &Response, what: &str| {
        let m = r.json()["message"].as_str().unwrap().to_string();
        assert!(!m.chars().any(privlift::error::hidden), "{what}: {m:?}");
        assert!(r.body.len() < 1024, "{what}: an answer of {} bytes", r.body.len());
    };
    let forged = "x\n\u{202e}privlift: accepted";
    let huge = "k".repeat(3 << 20);
    let sha = "0".repeat(64);
    for id in [forged, huge.as_str()] {
        let r = post(&c.addr, &batch(id, &sha, 0, 1, grade_label));
        assert_eq!(r.code(404), "unknown_mechanism");
        shown(&r, "a report's mechanism");
    }
    let r = post(&c.addr, &batch("grade", &sha, 0, 1, grade_label));
    assert_eq!(r.code(404), "unknown_version");
    shown(&r, "a report's version");
    let long = "k".repeat(4000);
    for path in [
        "/v1/mechanisms/x%0A%E2%80%AEprivlift%20ok".to_string(),
        "/v1/estimates/x%0A%E2%80%AEprivlift%20ok".to_string(),
        format!("/v1/mechanisms/{long}"),
        format!("/v1/estimates/{long}"),
        format!("/v1/estimates/{long}?sha256={sha}"),
    ] {
        let r = get(&c.addr, &path);
        let code = r.code(404);
        assert!(code == "unknown_mechanism" || code == "unknown_version", "{code}");
        shown(&r, &path[..30]);
    }
}
