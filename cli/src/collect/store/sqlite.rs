//! SQLite, the embedded default (`--db sqlite:PATH`): a write-ahead log with
//! `synchronous = FULL`, so a committed batch survives a crash of the process and of the
//! machine; writers from several threads or processes take turns (`BEGIN IMMEDIATE`,
//! waiting up to [`BUSY_TIMEOUT`] for the lock).
//!
//! Writes go through one connection per database file and process ([`writer`]), shared
//! by that process's stores behind a mutex; each store reads on a connection of its own.
//! Writers take turns anyway, and the shared one (measured by `cli/benches/ingest.rs`):
//! - queues the threads of a collector on a mutex instead of SQLite's busy handler, which
//!   polls with sleeps of up to 100 ms: with 8 threads a batch waited up to 1–2 s;
//! - keeps its page cache ([`WRITER_CACHE_KIB`]) across batches: a connection's cache is
//!   dropped whenever another one has written, and a batch of random report ids dirties
//!   about one page of the primary key per report, more than the default 2 MB cache holds
//!   (it spilled them to the log before the commit);
//! - checkpoints the log every [`WAL_AUTOCHECKPOINT`] pages rather than 1000 (about every
//!   batch of 1000 random ids), so a page dirtied by several batches is copied into the
//!   database once.
//!
//! Other processes on the same file still meet through `BEGIN IMMEDIATE` and the busy
//! handler.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::model::{schema, Report, Result, Store, StoreError, Version, COUNT_SQL, PUBLISHED_SQL, PUBLISH_SQL};

/// How long a writer waits for another's transaction before failing with `storage`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// The page cache of the writing connection (the readers keep SQLite's 2 MB).
const WRITER_CACHE_KIB: i64 = 64 * 1024;
/// Log pages between automatic checkpoints (80 MB of 4 KiB pages; SQLite's default: 1000).
const WAL_AUTOCHECKPOINT: i64 = 20_000;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(format!("sqlite: {e}"))
    }
}

pub struct Sqlite {
    /// Reads.
    conn: Connection,
    /// Writes: shared by this process's stores on the same file.
    writer: Arc<Mutex<Connection>>,
}

/// Opens a connection with the log, durability and busy timeout of every connection.
fn connect(path: &str) -> Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // journal_mode answers with the mode now in force.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError(format!("sqlite: cannot use a write-ahead log on {path} (mode {mode})")));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// The writing connection of this process to the file at `path` (by its canonical path,
/// so two spellings of one file share it), opened by the first store on it and closed
/// with the last.
fn writer(path: &str) -> Result<Arc<Mutex<Connection>>> {
    static WRITERS: OnceLock<Mutex<HashMap<PathBuf, Weak<Mutex<Connection>>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.into());
    let mut writers = WRITERS.get_or_init(Mutex::default).lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(w) = writers.get(&key).and_then(Weak::upgrade) {
        return Ok(w);
    }
    let conn = connect(path)?;
    conn.pragma_update(None, "cache_size", -WRITER_CACHE_KIB)?;
    conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT)?;
    let w = Arc::new(Mutex::new(conn));
    writers.retain(|_, w| w.strong_count() > 0);
    writers.insert(key, Arc::downgrade(&w));
    Ok(w)
}

/// The shared statements' PostgreSQL placeholders (`$1`, `$2`, …) as SQLite's (`?1`, `?2`,
/// …); `$` appears in them nowhere else.
fn positional(sql: &str) -> String {
    sql.replace('$', "?")
}

/// The writing connection, for one transaction. A panic while it was held poisons
/// nothing: its transaction was rolled back when dropped.
fn lock(writer: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    writer.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sqlite {
    pub fn open(path: &str) -> Result<Self> {
        let conn = connect(path)?;
        let writer = writer(path)?;
        {
            let mut w = lock(&writer);
            let tx = w.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute_batch(&schema("INTEGER"))?;
            tx.commit()?;
        }
        Ok(Sqlite { conn, writer })
    }

    fn select(&self, sql: &str, params: impl rusqlite::Params) -> Result<Option<Version>> {
        Ok(self
            .conn
            .prepare_cached(sql)?
            .query_row(params, |r| {
                Ok(Version { version: r.get(0)?, mechanism: r.get(1)?, sha256: r.get(2)?, document: r.get(3)? })
            })
            .optional()?)
    }
}

impl Store for Sqlite {
    fn register(&mut self, mechanism: &str, sha256: &str, document: &str) -> Result<Version> {
        {
            let mut w = lock(&self.writer);
            let tx = w.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT INTO privlift_documents (mechanism, sha256, document) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (mechanism, sha256) DO NOTHING",
                params![mechanism, sha256, document],
            )?;
            tx.commit()?;
        }
        self.version(mechanism, sha256)?
            .ok_or_else(|| StoreError("sqlite: a registered document version vanished".into()))
    }

    fn version(&mut self, mechanism: &str, sha256: &str) -> Result<Option<Version>> {
        self.select(
            "SELECT version, mechanism, sha256, document FROM privlift_documents WHERE mechanism = ?1 AND sha256 = ?2",
            params![mechanism, sha256],
        )
    }

    fn publish(&mut self, mechanism: &str, version: i64) -> Result<()> {
        let mut w = lock(&self.writer);
        let tx = w.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(&positional(PUBLISH_SQL), params![mechanism, version])?;
        tx.commit()?;
        Ok(())
    }

    fn published(&mut self, mechanism: &str) -> Result<Option<Version>> {
        self.select(&positional(PUBLISHED_SQL), params![mechanism])
    }

    fn insert(&mut self, reports: &[Report]) -> Result<u64> {
        let mut w = lock(&self.writer);
        let tx = w.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut accepted = 0;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO privlift_reports (report_id, version, output) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (report_id) DO NOTHING",
            )?;
            for r in reports {
                accepted += insert.execute(params![r.report_id, r.version, r.output])? as u64;
            }
        }
        // Durable once this returns (the log is synced at the commit).
        tx.commit()?;
        Ok(accepted)
    }

    fn counts(&mut self, version: i64) -> Result<Vec<(String, u64)>> {
        let mut stmt = self.conn.prepare_cached(&positional(COUNT_SQL))?;
        let rows = stmt.query_map(params![version], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
