//! The collector's HTTP front under load (`privlift collect`, on SQLite): many
//! kept-alive connections at once, a full queue answered 503 `busy` while reads are
//! served, and a slow request head closed without an answer.

mod common;

use std::io::{BufRead, BufReader};
use std::time::Duration;

use common::collector::{batch, designed, engines, get, grade_label, post, sha256_of, start, KRR_GRADE};
use common::http::{dribble_head, Response};
use serde_json::json;

/// Reads one HTTP/1.1 response off a kept-alive connection: its status and body.
fn read_kept_alive(r: &mut BufReader<std::net::TcpStream>) -> std::io::Result<(u16, Vec<u8>)> {
    use std::io::Read;
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut length = 0usize;
    loop {
        line.clear();
        r.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body)?;
    Ok((status, body))
}

/// Many clients that keep their connections open at once are all served, twice each on
/// the same connection, by a collector with 2 worker threads. (The HTTP crate used before
/// kept a thread per open connection: with 50 clients connecting at once, 26 waited until
/// another connection closed.)
#[test]
fn many_kept_alive_connections_are_all_served() {
    use std::io::Write;
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    let c = start(&engines(&t)[0], &dir, &["--threads", "2"]);
    let text = std::fs::read_to_string(format!("{dir}/grade.json")).unwrap();
    let mut clients: Vec<_> = (0..64)
        .map(|_| {
            let s = std::net::TcpStream::connect(&c.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            BufReader::new(s)
        })
        .collect();
    for round in 0..2 {
        for client in &mut clients {
            client.get_mut().write_all(b"GET /v1/mechanisms/grade HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        }
        for (i, client) in clients.iter_mut().enumerate() {
            let (status, body) = read_kept_alive(client).unwrap_or_else(|e| panic!("client {i}, round {round}: {e}"));
            assert_eq!((status, body.as_slice()), (200, text.as_bytes()), "client {i}, round {round}");
        }
    }
}

/// Sends `raw` on a new connection and leaves the answer unread.
fn send_only(addr: &str, raw: &[u8]) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(raw).unwrap();
    s
}

/// Reads the answer a [`send_only`] request got (`Connection: close`: until the server
/// closes).
fn answer_of(mut s: std::net::TcpStream) -> Response {
    use std::io::Read;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = std::str::from_utf8(&buf[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    Response { status, headers, body: buf[end + 4..].to_vec() }
}

/// A POST of `body` that closes the connection after its answer.
fn raw_post(body: &[u8]) -> Vec<u8> {
    let mut raw = format!(
        "POST /v1/reports HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(body);
    raw
}

/// While the database is held (its only worker stuck in a batch), batches queue up to the
/// queue's bounds, 256 batches or 64 MiB, and the others are answered at once 503 `busy`
/// with `Retry-After` (the queue used to grow without bound: 170 MB of bodies, and a GET
/// behind them for 13 s). Meanwhile a document is served at once, and an estimate waits
/// for one batch, not for the queue. Every batch is acknowledged 202 or refused 503; the
/// acknowledged are all stored, the refused not at all.
#[test]
fn a_full_queue_answers_busy_and_reads_do_not_wait_behind_it() {
    use std::time::Instant;
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    let db = engines(&t).swap_remove(0);
    let c = start(&db, &dir, &["--threads", "1"]);
    let sha = sha256_of(&c.addr, "grade");
    let report = |i: u64| batch("grade", &sha, i, 1, grade_label).to_string();

    let lock = rusqlite::Connection::open(db.strip_prefix("sqlite:").unwrap()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap(); // the collector's writes now wait
    let held = Instant::now();
    // 21 bodies of 4,000,000 bytes (one report, padded with spaces): the worker takes one,
    // the queue 16 (64,000,000 bytes), and at least 4 are refused.
    let mut pending = Vec::new();
    for i in 0..21u64 {
        let mut body = report(i).into_bytes();
        body.resize(4_000_000, b' ');
        pending.push((i, send_only(&c.addr, &raw_post(&body))));
    }
    // 300 small batches: at most 256 - 16 more are queued.
    for i in 100..400u64 {
        pending.push((i, send_only(&c.addr, &raw_post(report(i).as_bytes()))));
    }
    // A document needs no worker: served at once.
    let before = Instant::now();
    assert_eq!(get(&c.addr, "/v1/mechanisms/grade").status, 200);
    assert!(before.elapsed() < Duration::from_secs(2), "{:?}", before.elapsed());
    // An estimate waits in a queue of its own; the worker takes it right after its batch.
    let estimate = {
        let addr = c.addr.clone();
        std::thread::spawn(move || get(&addr, "/v1/estimates/grade").json())
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(held.elapsed() < Duration::from_secs(9), "the lock was held {:?}", held.elapsed());
    lock.execute_batch("ROLLBACK").unwrap();

    let (mut acknowledged, mut refused) = (Vec::new(), Vec::new());
    for (i, s) in pending {
        let r = answer_of(s);
        match r.status {
            202 => {
                assert_eq!(r.json(), json!({"accepted": 1, "duplicates": 0}));
                acknowledged.push(i);
            }
            503 => {
                assert_eq!(r.json()["code"], "busy");
                assert_eq!(r.header("Retry-After"), Some("1"));
                assert_eq!(r.header("Access-Control-Allow-Origin"), Some("*"));
                refused.push(i);
            }
            s => panic!("batch {i}: {s} {}", String::from_utf8_lossy(&r.body)),
        }
    }
    let big_refused = refused.iter().filter(|&&i| i < 21).count();
    assert!((4..=5).contains(&big_refused), "refused {refused:?}");
    assert!(refused.len() >= 4 + 59, "refused {}", refused.len());
    let e = estimate.join().unwrap();
    assert!(e["n"].as_u64().unwrap() <= 1, "the estimate waited for {} batches", e["n"]);
    // What was acknowledged is stored; what was refused is not (sent again: all new).
    assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"], json!(acknowledged.len()));
    for &i in &refused {
        assert_eq!(post(&c.addr, &batch("grade", &sha, i, 1, grade_label)).json()["accepted"], 1, "batch {i}");
    }
    assert_eq!(get(&c.addr, "/v1/estimates/grade").json()["n"], json!(acknowledged.len() + refused.len()));
}

/// The head of a request has 10 s from the connection's opening: a slow one is closed
/// without an answer, as docs/cli.md says (the body has 30 s, else 408).
#[test]
fn a_slow_request_head_is_closed_without_an_answer() {
    let (t, dir) = designed("collect", &[KRR_GRADE]);
    let c = start(&engines(&t)[0], &dir, &[]);
    let (got, end, elapsed) = dribble_head(&c.addr, b"GET /v1/mechanisms/grade HTTP/1.1\r\nHost: localhost\r\n");
    assert!(end.is_some(), "still open after {elapsed:?}"); // closed (a FIN, or a reset)
    assert!(elapsed >= Duration::from_secs(9) && elapsed < Duration::from_secs(14), "{elapsed:?}");
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
}
