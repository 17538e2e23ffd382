//! Running `privlift collect` from integration tests: its databases (a fresh SQLite file,
//! and a fresh PostgreSQL database when `PRIVLIFT_TEST_POSTGRES` names a server), the
//! process, and its routes.

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

use super::cli::{run, Out, TempDir};
use super::http::{exchange, start_server_logging, Response};

pub const GRADE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/priors/grade.json");
/// `design` arguments of the k-RR document most collector tests publish (id `grade`, ε = 1).
pub const KRR_GRADE: &[&str] = &["krr", "--prior", GRADE, "--epsilon", "1", "--id", "grade"];

/// The databases to test on: a fresh SQLite file, and a fresh PostgreSQL database when a
/// server is given.
pub fn engines(t: &TempDir) -> Vec<String> {
    let mut out = vec![sqlite(t, "reports.db")];
    match std::env::var("PRIVLIFT_TEST_POSTGRES") {
        Ok(admin) => out.push(fresh_postgres_database(&admin)),
        Err(_) => assert!(
            std::env::var("PRIVLIFT_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "PRIVLIFT_REQUIRE_POSTGRES=1 but PRIVLIFT_TEST_POSTGRES is not set"
        ),
    }
    out
}

/// The URL of the SQLite database `name` in `t`.
pub fn sqlite(t: &TempDir, name: &str) -> String {
    format!("sqlite:{}", t.0.join(name).display())
}

/// Creates an empty database on the server of `admin` (a `postgres://…/DB` URL) and
/// returns its URL.
pub fn fresh_postgres_database(admin: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let name = format!("privlift_test_{}_{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst));
    let mut client = postgres::Client::connect(admin, postgres::NoTls).expect("connect to PRIVLIFT_TEST_POSTGRES");
    client.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
    format!("{base}/{name}")
}

/// A collector process, killed (SIGKILL) when dropped.
pub use super::http::Running as Collector;

/// Starts a collector on `db` with the documents of `dir` (4 worker threads unless `extra`
/// says), once it listens.
pub fn start(db: &str, dir: &str, extra: &[&str]) -> Collector {
    start_logging(db, dir, extra, Stdio::null())
}

/// [`start`], its standard error to `stderr`.
pub fn start_logging(db: &str, dir: &str, extra: &[&str], stderr: Stdio) -> Collector {
    let threads: &[&str] = if extra.contains(&"--threads") { &[] } else { &["--threads", "4"] };
    let args = [&["collect", "--db", db, "--dir", dir, "--port", "0"], threads, extra].concat();
    start_server_logging(&args, "listening on ", stderr)
}

pub fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> std::io::Result<Response> {
    let mut raw = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    raw.push_str("\r\n");
    let mut raw = raw.into_bytes();
    raw.extend_from_slice(body);
    exchange(addr, &raw)
}

pub fn post(addr: &str, body: &Value) -> Response {
    http(addr, "POST", "/v1/reports", &[("Content-Type", "application/json")], body.to_string().as_bytes()).unwrap()
}

pub fn get(addr: &str, path: &str) -> Response {
    http(addr, "GET", path, &[], b"").unwrap()
}

/// A mechanisms directory with the documents of `designs` (CLI arguments after `design`).
pub fn mechanisms(t: &TempDir, name: &str, designs: &[&[&str]]) -> String {
    let dir = t.0.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for args in designs {
        let out = run(&[&["design"], *args].concat());
        assert_eq!(out.code, 0, "{}", out.stderr);
        let id = serde_json::from_str::<Value>(&out.stdout).unwrap()["id"].as_str().unwrap().to_string();
        std::fs::write(dir.join(format!("{id}.json")), &out.stdout).unwrap();
    }
    dir.to_str().unwrap().to_string()
}

/// A collector test's set-up: a temporary directory (`tag`) holding the mechanisms
/// directory `m` of `designs`; returns both.
pub fn designed(tag: &str, designs: &[&[&str]]) -> (TempDir, String) {
    let t = TempDir::new(tag);
    let dir = mechanisms(&t, "m", designs);
    (t, dir)
}

/// Runs `privlift simulate --db DB --dir DIR ARGS --truth T` (T a file in `t`), asserts
/// that it succeeds, and returns the run and the truth it wrote.
pub fn simulate(t: &TempDir, db: &str, dir: &str, args: &[&str]) -> (Out, Value) {
    let path = t.0.join("truth.json");
    let o = run(&[&["simulate", "--db", db, "--dir", dir], args, &["--truth", path.to_str().unwrap()]].concat());
    assert_eq!(o.code, 0, "{}", o.stderr);
    let truth = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (o, truth)
}

pub fn sha256_of(addr: &str, id: &str) -> String {
    let r = get(addr, &format!("/v1/mechanisms/{id}"));
    assert_eq!(r.status, 200);
    r.header("ETag").unwrap().trim_matches('"').to_string()
}

/// `n` reports of `mechanism` with ids `first..first + n` and outputs from `output(i)`.
pub fn batch(mechanism: &str, sha: &str, first: u64, n: u64, output: impl Fn(u64) -> Value) -> Value {
    let reports: Vec<Value> = (first..first + n)
        .map(|i| json!({"mechanism": mechanism, "sha256": sha, "output": output(i), "report_id": format!("{i:032x}")}))
        .collect();
    json!({ "reports": reports })
}

pub fn grade_label(i: u64) -> Value {
    Value::from(((i * 7) % 21).to_string())
}
