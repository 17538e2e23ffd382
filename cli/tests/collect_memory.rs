//! The collector's memory for request bodies: bodies being read share one budget (beyond
//! it, 503 `busy` with `Retry-After`), and a body over the limit is answered 413 before
//! the connection closes. Loopback only, bounded in time.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::cli::TempDir;
use common::collector::{self, batch, mechanisms, post, sha256_of, Collector, GRADE};
use common::http::{exchange, vm_kib};
use serde_json::{json, Value};

/// The collector's largest body.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// A collector on a fresh SQLite database serving one mechanism, `grade`, and its SHA-256.
fn start(t: &TempDir) -> (Collector, String) {
    let dir = mechanisms(t, "m", &[&["krr", "--prior", GRADE, "--epsilon", "1", "--id", "grade"]]);
    let db = format!("sqlite:{}", t.0.join("reports.db").display());
    let c = collector::start(&db, &dir, &["--threads", "2"]);
    let sha = sha256_of(&c.addr, "grade");
    (c, sha)
}

fn post_head(len: usize) -> String {
    format!("POST /v1/reports HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {len}\r\n\r\n")
}

/// A valid batch of one report with id `id`.
fn one_report(sha: &str, id: u64) -> Value {
    batch("grade", sha, id, 1, |_| Value::from("3"))
}

/// What arrived on `s` within `wait` (the connection may stay open).
fn read_for(s: &mut TcpStream, wait: Duration) -> String {
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let (t0, mut got, mut buf) = (Instant::now(), Vec::new(), [0u8; 4096]);
    while t0.elapsed() < wait {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if !got.is_empty() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// 200 connections each send a 4 MiB body but its last byte. Before a global budget the
/// collector held every one of them (7.7 MB → 933 MB). Now the bodies being read share a
/// budget: the connections beyond it are answered at once 503 `busy` with `Retry-After`,
/// the collector's peak resident memory stays under 300 MB, and once the held bodies are
/// dropped their budget is free again.
#[test]
fn bodies_held_back_share_one_budget() {
    let t = TempDir::new("collect-memory");
    let (c, sha) = start(&t);
    let pid = c.child.id();
    let before = vm_kib(pid, "VmRSS");
    let body = vec![b' '; MAX_BODY - 1];
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut s = TcpStream::connect(&c.addr).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(post_head(MAX_BODY).as_bytes()).unwrap();
        // The collector may refuse the body at once and stop reading: what it read is enough.
        let _ = s.write_all(&body);
        held.push(s);
    }
    std::thread::sleep(Duration::from_millis(500));
    let (rss, peak) = (vm_kib(pid, "VmRSS"), vm_kib(pid, "VmHWM"));
    eprintln!("collector RSS: {before:?} KiB before, {rss:?} KiB with 200 bodies held back, peak {peak:?} KiB");
    if let Some(peak) = peak {
        assert!(peak <= 300 * 1000, "peak RSS {peak} KiB with 200 bodies of 4 MiB held back");
    }
    // Beyond the budget, a small valid batch is refused too, nothing of it stored.
    let r = post(&c.addr, &one_report(&sha, 1));
    assert_eq!(r.code(503), "busy");
    assert_eq!(r.header("retry-after"), Some("1"));

    let answers: Vec<String> = held.iter_mut().map(|s| read_for(s, Duration::from_millis(200))).collect();
    let busy = answers.iter().filter(|a| a.starts_with("HTTP/1.1 503 ")).count();
    for a in answers.iter().filter(|a| !a.is_empty()) {
        assert!(a.starts_with("HTTP/1.1 503 "), "{a}");
        assert!(a.to_ascii_lowercase().contains("retry-after: 1\r\n") && a.contains("\"busy\""), "{a}");
    }
    assert!(busy >= 100, "only {busy} of 200 held-back bodies were refused busy");

    // The held bodies dropped, their budget is free: a batch is stored again.
    drop(held);
    let t0 = Instant::now();
    loop {
        let r = post(&c.addr, &one_report(&sha, 2));
        if r.status == 202 {
            assert_eq!(r.json(), json!({"accepted": 1, "duplicates": 0}));
            break;
        }
        assert_eq!(r.code(503), "busy");
        assert!(t0.elapsed() < Duration::from_secs(10), "still busy 10 s after the bodies were dropped");
        std::thread::sleep(Duration::from_millis(100));
    }
    let n = exchange(&c.addr, b"GET /v1/estimates/grade HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    assert_eq!(n.json()["n"], Value::from(1)); // the refused batch was not stored
}

/// A client that sends its whole body before reading reads the 413, also for a body of
/// 20 MiB (the collector used to stop reading at 16 MiB and close: a broken pipe), with
/// or without a Content-Length.
#[test]
fn a_body_over_the_limit_is_answered_413() {
    let t = TempDir::new("collect-memory");
    let (c, sha) = start(&t);
    for len in [MAX_BODY + 1, 20 << 20] {
        let mut raw = post_head(len).into_bytes();
        raw.resize(raw.len() + len, b' ');
        let r = exchange(&c.addr, &raw).unwrap_or_else(|e| panic!("{len} bytes: {e}"));
        assert_eq!(r.code(413), "body_too_large", "{len} bytes");
    }
    // Chunked, 5 MiB in chunks of 64 KiB.
    let mut raw =
        b"POST /v1/reports HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..80 {
        raw.extend_from_slice(b"10000\r\n");
        raw.resize(raw.len() + 0x10000, b' ');
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(exchange(&c.addr, &raw).unwrap().code(413), "body_too_large");
    // And the collector still stores a batch.
    assert_eq!(post(&c.addr, &one_report(&sha, 7)).json(), json!({"accepted": 1, "duplicates": 0}));
}
