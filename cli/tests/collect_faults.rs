//! `privlift collect` when its database misbehaves: batches sharing report ids in opposite
//! orders, transactions the server rolls back for a conflict, connections terminated, the
//! server restarted. The clients retry a batch until it is acknowledged, as the npm
//! package's `sendReports` does; in the end every acknowledged report is stored and each
//! report counts once.
//!
//! PostgreSQL runs as in `collect.rs` (`PRIVLIFT_TEST_POSTGRES`, required with
//! `PRIVLIFT_REQUIRE_POSTGRES=1`); the restart test starts a server of its own with
//! `scripts/postgres.sh`, since restarting the shared one would fail the tests beside it.

mod common;

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::cli::TempDir;
use common::collector::{
    batch, engines, fresh_postgres_database, get, grade_label, http, mechanisms, post, sha256_of, start, start_logging,
    Collector, GRADE,
};
use serde_json::Value;

/// Reports per batch.
const SIZE: u64 = 400;
/// How soon after its database is back a collector must acknowledge batches again.
const BACK_WITHIN: Duration = Duration::from_secs(5);

/// The PostgreSQL server to test on, if any (a failure if required and absent).
fn postgres_admin() -> Option<String> {
    let admin = std::env::var("PRIVLIFT_TEST_POSTGRES").ok();
    assert!(
        admin.is_some() || std::env::var("PRIVLIFT_REQUIRE_POSTGRES").as_deref() != Ok("1"),
        "PRIVLIFT_REQUIRE_POSTGRES=1 but PRIVLIFT_TEST_POSTGRES is not set"
    );
    admin
}

/// A fresh database on the PostgreSQL server to test on, and what a test needs around it.
struct Case {
    /// Holds the mechanisms directory: bind it, or the directory is removed at once.
    _t: TempDir,
    dir: String,
    db: String,
    /// The database's name.
    name: String,
    /// A connection to the server's administration database.
    admin: postgres::Client,
}

/// A [`Case`], if a PostgreSQL server is given.
fn postgres_case() -> Option<Case> {
    let admin = postgres_admin()?;
    let t = TempDir::new("faults");
    let dir = grade_dir(&t);
    let db = fresh_postgres_database(&admin);
    let name = db.rsplit('/').next().unwrap().to_string();
    let admin = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    Some(Case { _t: t, dir, db, name, admin })
}

fn grade_dir(t: &TempDir) -> String {
    mechanisms(t, "m", &[&["krr", "--prior", GRADE, "--epsilon", "1", "--id", "grade"]])
}

/// The reports `c` counts; a 503 `storage` (a worker still connecting again) is asked
/// again for up to [`BACK_WITHIN`].
fn stored(c: &Collector) -> u64 {
    let deadline = Instant::now() + BACK_WITHIN;
    loop {
        let r = get(&c.addr, "/v1/estimates/grade");
        if r.status == 200 || Instant::now() > deadline {
            return r.json()["n"].as_u64().unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&r.body)));
        }
        assert_eq!(r.code(503), "storage");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Posts `bodies` to `addr` at once (threads released together); their answers.
fn post_together(addr: &str, bodies: Vec<Value>) -> Vec<common::http::Response> {
    let barrier = Arc::new(Barrier::new(bodies.len()));
    let handles: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (addr, barrier) = (addr.to_string(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                post(&addr, &body)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// Posts `rounds` pairs of batches at once, each pair the same `SIZE` report ids (`reverse`:
/// the second in the opposite order); returns how many pairs had a batch refused, after
/// checking that each pair's acknowledged batches stored each id once.
fn pairs(c: &Collector, sha: &str, rounds: u64, reverse: bool) -> u64 {
    let mut failed = 0;
    for k in 0..rounds {
        let forward = batch("grade", sha, k * SIZE, SIZE, grade_label);
        let mut second = forward.clone();
        if reverse {
            second["reports"].as_array_mut().unwrap().reverse();
        }
        let answers = post_together(&c.addr, vec![forward, second]);
        if answers.iter().any(|r| r.status != 202) {
            failed += 1;
            continue;
        }
        let accepted: u64 = answers.iter().map(|r| r.json()["accepted"].as_u64().unwrap()).sum();
        assert_eq!(accepted, SIZE, "pair {k}");
    }
    failed
}

/// Two batches with the same ids in opposite orders, posted at once, 20 times: each is
/// acknowledged (on PostgreSQL they took the unique index's entries in opposite orders and
/// deadlocked, and one answered 503 `storage`), and each id counts once.
#[test]
fn batches_sharing_ids_in_opposite_orders_are_all_acknowledged() {
    let t = TempDir::new("faults");
    let dir = grade_dir(&t);
    for db in engines(&t) {
        let c = start(&db, &dir, &[]);
        let sha = sha256_of(&c.addr, "grade");
        let failed = pairs(&c, &sha, 20, true);
        eprintln!("{}: {failed} of 20 pairs had a batch refused", db.split(':').next().unwrap());
        assert_eq!(failed, 0, "{db}: {failed} of 20 pairs had a batch refused");
        assert_eq!(stored(&c), 20 * SIZE);
    }
}

/// Under `default_transaction_isolation = 'repeatable read'` PostgreSQL rolls back an
/// insert that meets a concurrent one's row (SQLSTATE 40001): the collector runs it again,
/// and logs the server's own error, not "db error".
#[test]
fn serialization_failures_are_retried_and_logged() {
    let Some(Case { _t: t, dir, db, name, mut admin }) = postgres_case() else { return };
    admin
        .batch_execute(&format!("ALTER DATABASE {name} SET default_transaction_isolation = 'repeatable read'"))
        .unwrap();
    let log = t.0.join("collect.log");
    let c = start_logging(&db, &dir, &[], Stdio::from(std::fs::File::create(&log).unwrap()));
    let sha = sha256_of(&c.addr, "grade");
    let failed = pairs(&c, &sha, 20, false);
    let log = std::fs::read_to_string(&log).unwrap();
    let retried = log.matches("ERROR 40001: could not serialize access").count();
    eprintln!("postgres: {failed} of 20 pairs had a batch refused; {retried} runs retried");
    assert_eq!(failed, 0, "{failed} of 20 pairs had a batch refused; log:\n{log}");
    assert!(retried > 0, "no serialization failure met: the test tests nothing; log:\n{log}");
    assert!(!log.contains("db error"), "{log}");
    assert_eq!(stored(&c), 20 * SIZE);
}

/// Clients posting batches of ids of their own, each batch until it is acknowledged (a
/// 503 or a failed connection is retried after 20 ms, with the same ids).
struct Posters {
    stop: Arc<AtomicBool>,
    /// When each acknowledgement came.
    acks: Arc<Mutex<Vec<Instant>>>,
    handles: Vec<JoinHandle<u64>>,
}

impl Posters {
    fn start(addr: &str, sha: &str, clients: u64) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let acks = Arc::new(Mutex::new(Vec::new()));
        let handles = (0..clients)
            .map(|p| {
                let (addr, sha, stop, acks) = (addr.to_string(), sha.to_string(), Arc::clone(&stop), Arc::clone(&acks));
                std::thread::spawn(move || {
                    let mut acked = 0;
                    while !stop.load(Ordering::SeqCst) {
                        let body = batch("grade", &sha, (p << 32) + acked * SIZE, SIZE, grade_label);
                        // The last batch too is sent until acknowledged, however long it takes.
                        let deadline = Instant::now() + Duration::from_secs(60);
                        loop {
                            match http(&addr, "POST", "/v1/reports", &[], body.to_string().as_bytes()) {
                                Ok(r) if r.status == 202 => {
                                    let j = r.json();
                                    let sum = j["accepted"].as_u64().unwrap() + j["duplicates"].as_u64().unwrap();
                                    assert_eq!(sum, SIZE);
                                    acks.lock().unwrap().push(Instant::now());
                                    break;
                                }
                                Ok(r) => assert_eq!(r.code(503), "storage"),
                                Err(_) => {}
                            }
                            assert!(Instant::now() < deadline, "a batch was never acknowledged");
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        acked += 1;
                    }
                    acked
                })
            })
            .collect();
        Posters { stop, acks, handles }
    }

    fn acknowledged(&self) -> usize {
        self.acks.lock().unwrap().len()
    }

    /// Waits (at most 30 s) until `n` more batches are acknowledged than now.
    fn wait_for_more(&self, n: usize) {
        let target = self.acknowledged() + n;
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.acknowledged() < target {
            assert!(Instant::now() < deadline, "no acknowledgement for 30 s");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Asserts that a batch is acknowledged within [`BACK_WITHIN`] of `t`, when `what`
    /// happened (waiting for one at most 30 s), and prints how soon.
    fn back_within_5_s(&self, t: Instant, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let back = loop {
            if let Some(a) = self.acks.lock().unwrap().iter().find(|a| **a > t) {
                break *a - t;
            }
            assert!(Instant::now() < deadline, "no acknowledgement within 30 s after {what}");
            std::thread::sleep(Duration::from_millis(5));
        };
        eprintln!("postgres: acknowledged again {back:?} after {what}");
        assert!(back < BACK_WITHIN, "acknowledged again only {back:?} after {what}");
    }

    /// Stops the clients once their batches in flight are acknowledged, and checks that
    /// `c` stores exactly the reports acknowledged: none lost, none counted twice.
    fn finish(self, c: &Collector) {
        self.stop.store(true, Ordering::SeqCst);
        let acknowledged = self.handles.into_iter().map(|h| h.join().unwrap()).sum::<u64>() * SIZE;
        assert_eq!(stored(c), acknowledged);
    }
}

/// `pg_terminate_backend` ends every connection of the collector to its database: the
/// next statements connect again, batches are acknowledged again within 5 s (each time;
/// before, every request answered 503 until the collector restarted), none lost, none
/// counted twice.
#[test]
fn terminated_connections_are_replaced() {
    let Some(Case { _t, dir, db, name, mut admin }) = postgres_case() else { return };
    let c = start(&db, &dir, &[]);
    let sha = sha256_of(&c.addr, "grade");
    let posters = Posters::start(&c.addr, &sha, 2);
    let backends = |admin: &mut postgres::Client| -> Vec<i32> {
        let sql = "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()";
        admin.query(sql, &[&name]).unwrap().iter().map(|r| r.get(0)).collect()
    };
    for _ in 0..3 {
        posters.wait_for_more(5);
        let pids = backends(&mut admin);
        assert!(!pids.is_empty());
        for pid in &pids {
            admin.execute("SELECT pg_terminate_backend($1)", &[pid]).unwrap();
        }
        // Until they are gone, a statement may still run on one of them.
        let deadline = Instant::now() + Duration::from_secs(10);
        while backends(&mut admin).iter().any(|p| pids.contains(p)) {
            assert!(Instant::now() < deadline, "terminated backends still there after 10 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        posters.back_within_5_s(Instant::now(), "the connections were terminated");
    }
    posters.finish(&c);
}

/// A batch whose connection is terminated while its statement runs (here: while it waits
/// for a row another transaction inserted) is not acknowledged: 503 `storage`, since the
/// collector cannot know whether it was committed. The client's retry with the same ids is
/// stored on a new connection, each report once.
#[test]
fn a_batch_whose_connection_dies_while_it_runs_is_not_acknowledged() {
    let Some(Case { _t, dir, db, name, mut admin }) = postgres_case() else { return };
    let c = start(&db, &dir, &["--threads", "1"]);
    let sha = sha256_of(&c.addr, "grade");
    let body = batch("grade", &sha, 0, SIZE, grade_label);
    // Another transaction holds the batch's last id, uncommitted.
    let mut holder = postgres::Client::connect(&db, postgres::NoTls).unwrap();
    let mut held = holder.transaction().unwrap();
    held.execute(
        "INSERT INTO privlift_reports (report_id, version, output) SELECT $1, max(version), '0' FROM privlift_documents",
        &[&format!("{:032x}", SIZE - 1)],
    )
    .unwrap();
    let poster = {
        let (addr, body) = (c.addr.clone(), body.clone());
        std::thread::spawn(move || post(&addr, &body))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let waiting: i32 = loop {
        let sql = "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'";
        if let Some(row) = admin.query_opt(sql, &[&name]).unwrap() {
            break row.get(0);
        }
        assert!(Instant::now() < deadline, "the batch never waited for the held row");
        std::thread::sleep(Duration::from_millis(5));
    };
    admin.execute("SELECT pg_terminate_backend($1)", &[&waiting]).unwrap();
    assert_eq!(poster.join().unwrap().code(503), "storage");
    held.rollback().unwrap();
    let r = post(&c.addr, &body);
    assert_eq!(r.status, 202, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["accepted"], SIZE);
    assert_eq!(stored(&c), SIZE);
}

/// A throw-away PostgreSQL server of this test's own (`scripts/postgres.sh`), removed
/// when dropped.
struct Server {
    url: String,
    dir: String,
}

const POSTGRES_SH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/postgres.sh");

fn postgres_sh(args: &[&str]) -> String {
    let out = Command::new("bash").arg(POSTGRES_SH).args(args).output().unwrap();
    assert!(out.status.success(), "postgres.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

impl Server {
    fn start() -> Self {
        let out = postgres_sh(&["start"]);
        let (url, dir) = out.trim().split_once(' ').unwrap();
        Server { url: url.to_string(), dir: dir.to_string() }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(POSTGRES_SH).args(["stop", &self.dir]).status();
    }
}

/// The database server stops (fast shutdown) and starts again, twice: while it is down
/// the collector answers 503 `storage` with a `Retry-After`, to posts and estimates alike;
/// within 5 s of its return batches are acknowledged again; none is lost or counted twice.
#[test]
fn a_restarted_server_is_used_again_within_5_s() {
    if postgres_admin().is_none() {
        return;
    }
    let server = Server::start();
    let t = TempDir::new("faults");
    let dir = grade_dir(&t);
    let c = start(&server.url, &dir, &[]);
    let sha = sha256_of(&c.addr, "grade");
    let posters = Posters::start(&c.addr, &sha, 2);
    for _ in 0..2 {
        posters.wait_for_more(5);
        postgres_sh(&["down", &server.dir]);
        let probe = post(&c.addr, &batch("grade", &sha, 1 << 40, 1, grade_label));
        assert_eq!(probe.code(503), "storage");
        assert_eq!(probe.header("Retry-After"), Some("1"));
        assert_eq!(get(&c.addr, "/v1/estimates/grade").code(503), "storage");
        postgres_sh(&["up", &server.dir]);
        posters.back_within_5_s(Instant::now(), "the server was back");
    }
    posters.finish(&c);
}
