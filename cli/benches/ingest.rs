//! Ingestion benchmark of `privlift collect` (issue 14): reports/s and the latency of a
//! batch of 1,000 reports posted by several keep-alive HTTP/1.1 clients, on a fresh SQLite
//! file and, when `PRIVLIFT_BENCH_POSTGRES` names a server this benchmark may create
//! databases on, on a fresh PostgreSQL database of that server, in the same run.
//!
//! `cargo bench -p privlift-cli --bench ingest` (the collector is the release binary,
//! `target/release/privlift`, or `PRIVLIFT_BIN`). Settings (environment):
//! - `PRIVLIFT_BENCH_POSTGRES`: admin URL, `postgres://USER@HOST:PORT/DB` (optional);
//! - `PRIVLIFT_BENCH_CLIENTS`: concurrent client threads (4);
//! - `PRIVLIFT_BENCH_BATCHES`: measured batches (1000, i.e. 1,000,000 reports, several
//!   seconds; the bodies, about 140 MB, are serialised before the clients start);
//! - `PRIVLIFT_BENCH_BATCH`: reports per batch (1000);
//! - `PRIVLIFT_BENCH_WARMUP`: warm-up batches per client (2);
//! - `PRIVLIFT_BENCH_COLLECTOR_THREADS`: comma-separated `--threads` values, `default`
//!   for none (`default,1`);
//! - `PRIVLIFT_BENCH_REPEAT`: runs of each configuration (1);
//! - `PRIVLIFT_BENCH_IDS`: `random` report ids, as clients draw them (the default), or
//!   `sequential` (`0, 1, 2, …`: appends to the primary key's B-tree, the flattering case).
//!
//! Every run checks that no report is lost: each measured batch answers 202 with all of
//! its reports accepted, a retry round re-posting 10 % of the batches answers all of them
//! as duplicates, and the database's count (`GET /v1/estimates/ID` → `n`) equals the
//! reports sent. Under `cargo test --all-targets` (no `--bench` argument) it does nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const DEFAULT_BIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/release/privlift");
const MECHANISM: &str = "grade";

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

struct Settings {
    bin: String,
    clients: usize,
    batches: usize,
    batch: usize,
    warmup: usize,
    collector_threads: Vec<Option<usize>>,
    repeat: usize,
    /// Report ids `0, 1, 2, …` instead of random-looking ones.
    sequential: bool,
}

/// A collector process, killed when dropped; its stderr is collected by a thread.
struct Collector {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Collector {
    fn start(bin: &str, db: &str, dir: &str, threads: Option<usize>) -> Collector {
        let mut cmd = Command::new(bin);
        cmd.args(["collect", "--db", db, "--dir", dir, "--port", "0"]);
        if let Some(t) = threads {
            cmd.args(["--threads", &t.to_string()]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (lines, err) = (Arc::clone(&stderr), child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let Some(addr) = line.strip_prefix("listening on http://") else {
            std::thread::sleep(Duration::from_millis(200));
            panic!("the collector did not start: {line:?}; stderr: {:?}", stderr.lock().unwrap());
        };
        Collector { addr: addr.trim().to_string(), child, stderr }
    }

    /// Bytes the collector wrote so far, (`wchar`, `write_bytes`) of `/proc/PID/io`:
    /// what it handed to the kernel and what reached the block device (Linux only).
    fn written(&self) -> Option<(u64, u64)> {
        let io = std::fs::read_to_string(format!("/proc/{}/io", self.child.id())).ok()?;
        let field =
            |name: &str| io.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")?.trim().parse::<u64>().ok());
        Some((field("wchar")?, field("write_bytes")?))
    }

    /// The worker threads the collector says it runs (`…, N threads` on stderr).
    fn threads(&self) -> String {
        for _ in 0..100 {
            if let Some(n) = self
                .stderr
                .lock()
                .unwrap()
                .iter()
                .find_map(|l| l.strip_suffix(" threads").and_then(|s| s.rsplit(' ').next()).map(str::to_string))
            {
                return n;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        "?".into()
    }
}

/// One persistent HTTP/1.1 connection (keep-alive), reopened when the server closes it.
struct Conn {
    addr: String,
    stream: Option<BufReader<TcpStream>>,
    reconnects: usize,
    /// The `ETag` of the last answer.
    etag: Option<String>,
}

impl Conn {
    fn new(addr: &str) -> Conn {
        Conn { addr: addr.to_string(), stream: None, reconnects: 0, etag: None }
    }

    fn request(&mut self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        // A kept-alive connection the server closed in between fails before any answer:
        // once more on a new connection (posting again is safe: report ids are idempotent).
        let fresh = self.stream.is_none();
        match self.try_request(method, path, body) {
            Ok(r) => r,
            Err(e) if !fresh => {
                self.stream = None;
                self.reconnects += 1;
                self.try_request(method, path, body).unwrap_or_else(|e2| panic!("{method} {path}: {e}, then {e2}"))
            }
            Err(e) => panic!("{method} {path}: {e}"),
        }
    }

    fn try_request(&mut self, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        if self.stream.is_none() {
            let s = TcpStream::connect(&self.addr)?;
            s.set_nodelay(true)?;
            s.set_read_timeout(Some(Duration::from_secs(60)))?;
            self.stream = Some(BufReader::with_capacity(64 * 1024, s));
        }
        let r = self.exchange(method, path, body);
        if r.is_err() {
            self.stream = None;
        }
        r
    }

    fn exchange(&mut self, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        let eof = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "connection closed");
        let reader = self.stream.as_mut().unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        {
            let w = reader.get_mut();
            w.write_all(head.as_bytes())?;
            w.write_all(body)?;
            w.flush()?;
        }
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(eof());
        }
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
        let (mut length, mut chunked, mut close) = (None, false, false);
        self.etag = None;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Err(eof());
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
                match k.as_str() {
                    "content-length" => length = v.parse::<usize>().ok(),
                    "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                    "connection" => close = v.eq_ignore_ascii_case("close"),
                    "etag" => self.etag = Some(v.to_string()),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        if chunked {
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 {
                    return Err(eof());
                }
                let n = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| std::io::Error::other(format!("bad chunk size {line:?}")))?;
                if n == 0 {
                    // Trailers, then an empty line.
                    loop {
                        line.clear();
                        if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                            break;
                        }
                    }
                    break;
                }
                let start = out.len();
                out.resize(start + n, 0);
                reader.read_exact(&mut out[start..])?;
                let mut crlf = [0; 2];
                reader.read_exact(&mut crlf)?;
            }
        } else if let Some(n) = length {
            out.resize(n, 0);
            reader.read_exact(&mut out)?;
        } else {
            reader.read_to_end(&mut out)?;
            close = true;
        }
        if close {
            self.stream = None;
        }
        Ok((status, out))
    }
}

/// SplitMix64's finaliser: a bijection of `u64` that looks random.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The report id of report `i` (32 hex digits): as clients draw them (uniformly random
/// 128-bit ids, so every insert lands on a random page of the primary key's B-tree), unique
/// because its low half is a bijection of `i`; or `i` itself when `sequential`.
fn report_id(i: u64, sequential: bool) -> String {
    if sequential {
        format!("{i:032x}")
    } else {
        format!("{:016x}{:016x}", mix(i ^ 0x5851_F42D_4C95_7F2D), mix(i))
    }
}

/// Pre-serialised bodies of `count` batches, reports `first..`.
fn bodies(sha: &str, labels: &[String], first: usize, count: usize, batch: usize, sequential: bool) -> Vec<Vec<u8>> {
    (0..count)
        .map(|b| {
            let reports: Vec<Value> = (0..batch)
                .map(|k| {
                    let i = (first + b * batch + k) as u64;
                    // Outputs spread over the labels (a multiplicative hash of the id).
                    let label = &labels[(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % labels.len()];
                    json!({"mechanism": MECHANISM, "sha256": sha, "output": label, "report_id": report_id(i, sequential)})
                })
                .collect();
            serde_json::to_vec(&json!({ "reports": reports })).unwrap()
        })
        .collect()
}

struct Phase {
    wall: Duration,
    latencies: Vec<Duration>,
    accepted: u64,
    duplicates: u64,
    bad: Vec<String>,
    reconnects: usize,
}

/// Posts `batches` (each client takes the next unposted one) over `conns`, all clients
/// starting together. Returns the wall time from the start to the last answer.
fn post_all(conns: &mut [Conn], batches: &[Vec<u8>]) -> Phase {
    let next = AtomicUsize::new(0);
    let barrier = Barrier::new(conns.len() + 1);
    let results = Mutex::new(Phase {
        wall: Duration::ZERO,
        latencies: Vec::with_capacity(batches.len()),
        accepted: 0,
        duplicates: 0,
        bad: Vec::new(),
        reconnects: 0,
    });
    let reconnects_before: usize = conns.iter().map(|c| c.reconnects).sum();
    let wall = std::thread::scope(|s| {
        for conn in conns.iter_mut() {
            let (next, barrier, results) = (&next, &barrier, &results);
            s.spawn(move || {
                let mut mine = Vec::new();
                let (mut accepted, mut duplicates, mut bad) = (0, 0, Vec::new());
                barrier.wait();
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    let Some(body) = batches.get(b) else { break };
                    let t = Instant::now();
                    let (status, answer) = conn.request("POST", "/v1/reports", body);
                    mine.push(t.elapsed());
                    let v: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
                    match (status, v["accepted"].as_u64(), v["duplicates"].as_u64()) {
                        (202, Some(a), Some(d)) => {
                            accepted += a;
                            duplicates += d;
                        }
                        _ => bad.push(format!("batch {b}: {status} {}", String::from_utf8_lossy(&answer))),
                    }
                }
                let mut r = results.lock().unwrap();
                r.latencies.extend(mine);
                r.accepted += accepted;
                r.duplicates += duplicates;
                r.bad.extend(bad);
            });
        }
        barrier.wait();
        let t = Instant::now();
        // The scope joins every client before returning.
        t
    })
    .elapsed();
    let mut r = results.into_inner().unwrap();
    r.wall = wall;
    r.reconnects = conns.iter().map(|c| c.reconnects).sum::<usize>() - reconnects_before;
    r.latencies.sort();
    r
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

struct Row {
    engine: String,
    collector_threads: String,
    clients: usize,
    rate: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
    retry_rate: f64,
    /// Bytes written per report in the measured phase: by the collector's system calls
    /// and to the block device.
    written: Option<(f64, f64)>,
    check: String,
}

/// The pre-serialised batches of a run (the same in every run: each has a fresh database).
struct Bodies {
    sha256: String,
    warmup: Vec<Vec<u8>>,
    measured: Vec<Vec<u8>>,
    /// Every 10th measured batch, posted again.
    retry: Vec<Vec<u8>>,
}

fn run_one(s: &Settings, engine: &str, db: &str, dir: &str, threads: Option<usize>, b: &Bodies) -> Row {
    let c = Collector::start(&s.bin, db, dir, threads);
    let mut probe = Conn::new(&c.addr);
    assert_eq!(sha256_of(&mut probe), b.sha256, "the collector's ETag is the document's SHA-256");
    let (warmup, measured, retry) = (&b.warmup, &b.measured, &b.retry);
    // Connections are opened one after another, each answered before the next (the HTTP
    // crate of the first measurements, tiny_http 0.12, could leave connections opened
    // together unserved; the collector's test `many_kept_alive_connections_are_all_served`
    // now covers that case).
    let mut conns: Vec<Conn> = (0..s.clients)
        .map(|_| {
            let mut conn = Conn::new(&c.addr);
            assert_eq!(conn.request("GET", &format!("/v1/mechanisms/{MECHANISM}"), b"").0, 200);
            conn
        })
        .collect();

    let w = post_all(&mut conns, warmup);
    let io_before = c.written();
    let main = post_all(&mut conns, measured);
    let io_after = c.written();
    let again = post_all(&mut conns, retry);

    let sent = ((warmup.len() + measured.len()) * s.batch) as u64;
    let (status, answer) = probe.request("GET", &format!("/v1/estimates/{MECHANISM}"), b"");
    let n = serde_json::from_slice::<Value>(&answer).ok().and_then(|v| v["n"].as_u64());
    let mut problems = Vec::new();
    problems.extend(w.bad.iter().chain(&main.bad).chain(&again.bad).take(3).cloned());
    if w.accepted + main.accepted != sent {
        problems.push(format!("accepted {} of {sent}", w.accepted + main.accepted));
    }
    if again.duplicates != (retry.len() * s.batch) as u64 || again.accepted != 0 {
        problems.push(format!(
            "retry round: {} accepted, {} duplicates of {}",
            again.accepted,
            again.duplicates,
            retry.len() * s.batch
        ));
    }
    if status != 200 || n != Some(sent) {
        problems.push(format!("database count {n:?} (status {status}), sent {sent}"));
    }
    let errors: Vec<String> = c
        .stderr
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("privlift: collect: ") && !l.contains(" threads"))
        .cloned()
        .collect();
    problems.extend(errors.into_iter().take(3));
    let check = if problems.is_empty() {
        format!("ok: n = {n} = sent", n = sent)
    } else {
        format!("FAILED: {}", problems.join("; "))
    };
    let reconnects = w.reconnects + main.reconnects + again.reconnects;
    let check = if reconnects > 0 { format!("{check} ({reconnects} reconnects)") } else { check };
    Row {
        engine: engine.to_string(),
        collector_threads: match threads {
            Some(t) => t.to_string(),
            None => format!("{} (default)", c.threads()),
        },
        clients: s.clients,
        rate: main.accepted as f64 / main.wall.as_secs_f64(),
        p50: percentile(&main.latencies, 50.0),
        p99: percentile(&main.latencies, 99.0),
        max: main.latencies.last().copied().unwrap_or_default(),
        retry_rate: again.duplicates as f64 / again.wall.as_secs_f64(),
        // PostgreSQL's writes are the server's, not the collector's.
        written: io_before.zip(io_after).filter(|_| engine == "SQLite").map(|((w0, b0), (w1, b1))| {
            let n = main.accepted.max(1) as f64;
            ((w1 - w0) as f64 / n, (b1 - b0) as f64 / n)
        }),
        check,
    }
}

/// The SHA-256 of the published document: its ETag.
fn sha256_of(conn: &mut Conn) -> String {
    let (status, _) = conn.request("GET", &format!("/v1/mechanisms/{MECHANISM}"), b"");
    assert_eq!(status, 200, "GET /v1/mechanisms/{MECHANISM}");
    conn.etag.take().expect("an ETag").trim_matches('"').to_string()
}

/// Creates an empty database on the server of `admin` and returns its name and URL.
fn fresh_postgres_database(admin: &str, n: usize) -> (String, String) {
    let name = format!("privlift_bench_{}_{n}", std::process::id());
    let mut client = postgres::Client::connect(admin, postgres::NoTls).expect("connect to PRIVLIFT_BENCH_POSTGRES");
    client.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
    let url = format!("{base}/{name}");
    (name, url)
}

fn drop_postgres_database(admin: &str, name: &str) {
    if let Ok(mut client) = postgres::Client::connect(admin, postgres::NoTls) {
        let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("ingest: run with `cargo bench -p privlift-cli --bench ingest`");
        return;
    }
    let bin = std::env::var("PRIVLIFT_BIN").unwrap_or_else(|_| DEFAULT_BIN.to_string());
    if !std::path::Path::new(&bin).exists() {
        eprintln!("ingest: no collector at {bin}: `cargo build --release -p privlift-cli`, or set PRIVLIFT_BIN");
        std::process::exit(1);
    }
    let collector_threads = std::env::var("PRIVLIFT_BENCH_COLLECTOR_THREADS")
        .unwrap_or_else(|_| "default,1".into())
        .split(',')
        .map(|t| match t.trim() {
            "default" => None,
            t => Some(t.parse().unwrap_or_else(|_| panic!("PRIVLIFT_BENCH_COLLECTOR_THREADS: {t:?}"))),
        })
        .collect();
    let s = Settings {
        bin,
        clients: env_usize("PRIVLIFT_BENCH_CLIENTS", 4).max(1),
        batches: env_usize("PRIVLIFT_BENCH_BATCHES", 1000).max(1),
        batch: env_usize("PRIVLIFT_BENCH_BATCH", 1000).max(1),
        warmup: env_usize("PRIVLIFT_BENCH_WARMUP", 2),
        collector_threads,
        repeat: env_usize("PRIVLIFT_BENCH_REPEAT", 1).max(1),
        sequential: match std::env::var("PRIVLIFT_BENCH_IDS").as_deref() {
            Err(_) | Ok("random") => false,
            Ok("sequential") => true,
            Ok(other) => panic!("PRIVLIFT_BENCH_IDS is `random` or `sequential`, not {other:?}"),
        },
    };
    let postgres = std::env::var("PRIVLIFT_BENCH_POSTGRES").ok().filter(|u| !u.is_empty());

    let tmp = std::env::temp_dir().join(format!("privlift-bench-ingest-{}", std::process::id()));
    let dir = tmp.join("mechanisms");
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(&s.bin)
        .args(["design", "krr", "--prior", &format!("{ROOT}/data/priors/grade.json"), "--epsilon", "1"])
        .args(["--id", MECHANISM])
        .output()
        .expect("run privlift design");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join(format!("{MECHANISM}.json")), &out.stdout).unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // A `krr` document names no `output_labels`: its outputs are its labels.
    let outputs = doc.get("output_labels").unwrap_or(&doc["labels"]);
    let labels: Vec<String> = outputs.as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
    let sha256: String = Sha256::digest(&out.stdout).iter().map(|b| format!("{b:02x}")).collect();
    let warmup = bodies(&sha256, &labels, 0, s.warmup * s.clients, s.batch, s.sequential);
    let measured = bodies(&sha256, &labels, s.warmup * s.clients * s.batch, s.batches, s.batch, s.sequential);
    let retry = measured.iter().step_by(10).cloned().collect();
    let bodies = Bodies { sha256, warmup, measured, retry };
    let dir = dir.to_str().unwrap().to_string();

    println!(
        "ingest: {} batches of {} reports (after {} warm-up batches per client), {} client threads, \
         {} report ids; retry round: every 10th batch again",
        s.batches,
        s.batch,
        s.warmup,
        s.clients,
        if s.sequential { "sequential" } else { "random" }
    );
    let mut rows = Vec::new();
    let mut n = 0;
    for _ in 0..s.repeat {
        for &threads in &s.collector_threads {
            let db = format!("sqlite:{}", tmp.join(format!("reports-{n}.db")).display());
            n += 1;
            let row = run_one(&s, "SQLite", &db, &dir, threads, &bodies);
            print_row(&row);
            rows.push(row);
            if let Some(admin) = &postgres {
                let (name, url) = fresh_postgres_database(admin, n);
                n += 1;
                let row = run_one(&s, "PostgreSQL", &url, &dir, threads, &bodies);
                drop_postgres_database(admin, &name);
                print_row(&row);
                rows.push(row);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);

    println!();
    println!(
        "| engine | collector threads | client threads | reports/s | p50 / p99 / max per batch of {} (ms) | \
         retry round (duplicates/s) | written per report: syscalls / disk | check |",
        s.batch
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.0} | {} / {} / {} | {:.0} | {} | {} |",
            r.engine,
            r.collector_threads,
            r.clients,
            r.rate,
            ms(r.p50),
            ms(r.p99),
            ms(r.max),
            r.retry_rate,
            written(r),
            r.check
        );
    }
    if postgres.is_some() {
        println!();
        for pair in rows.chunks(2) {
            if let [a, b] = pair {
                println!(
                    "PostgreSQL / SQLite, collector threads {}: reports/s {:.2}, p99 {:.2}",
                    a.collector_threads,
                    b.rate / a.rate,
                    b.p99.as_secs_f64() / a.p99.as_secs_f64()
                );
            }
        }
    }
    if rows.iter().any(|r| r.check.starts_with("FAILED")) {
        eprintln!("ingest: reports were lost or refused (see the check column)");
        std::process::exit(1);
    }
}

fn written(r: &Row) -> String {
    r.written.map_or("–".into(), |(w, b)| format!("{w:.0} / {b:.0} B"))
}

fn print_row(r: &Row) {
    println!(
        "{:<10} collector threads {:<12} {:>9.0} reports/s  p50 {} ms  p99 {} ms  max {} ms  retry {:.0}/s  \
         written/report {}  {}",
        r.engine,
        r.collector_threads,
        r.rate,
        ms(r.p50),
        ms(r.p99),
        ms(r.max),
        r.retry_rate,
        written(r),
        r.check
    );
}
