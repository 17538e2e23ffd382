//! PostgreSQL (`--db postgres://USER@HOST:PORT/DATABASE`): a batch is one statement
//! (`INSERT … SELECT * FROM UNNEST(…) ON CONFLICT DO NOTHING`, one round trip), committed
//! with the server's `synchronous_commit` (on by default: durable once acknowledged).
//!
//! Concurrent inserts of one report id by several collectors wait on each other's
//! transaction in the unique index, and exactly one of them stores it. A batch inserts its
//! reports in ascending report id (`unnest` reads an array out in order), so two batches
//! sharing ids wait on each other in one order and never deadlock; a statement the server
//! rolls back for a conflict all the same (a deadlock with another application's
//! transaction, a serialization failure under a stricter `default_transaction_isolation`)
//! runs again ([`retry`]).
//!
//! A lost connection (a server restarted, `pg_terminate_backend`) is replaced by a new one
//! at the next statement, no sooner than [`retry::Reconnect`] allows; until then
//! statements fail (`storage`, which clients retry). A read, or a write that may run
//! twice, is sent again once on the new connection; a batch whose connection was lost
//! while it ran is not: its commit may or may not have happened, so it is not
//! acknowledged, and the client's retry with the same report ids counts each once.

use std::time::Duration;

use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};

use super::model::{schema, Report, Result, Store, StoreError, Version, COUNT_SQL, PUBLISHED_SQL, PUBLISH_SQL};
use super::retry::{self, Reconnect};

/// Serialises the schema's creation among collectors starting together (`CREATE TABLE IF
/// NOT EXISTS` alone races in PostgreSQL's catalogue).
const SCHEMA_LOCK: i64 = 0x7072_6976_6c69_6674; // "privlift"
/// How long a connection attempt may take, unless the URL says (`connect_timeout=S`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

type PgResult<T> = std::result::Result<T, postgres::Error>;

pub struct Postgres {
    config: Config,
    /// `None` once the connection was lost, until the next attempt connects.
    client: Option<Client>,
    reconnect: Reconnect,
}

/// The server's own account of `e` (severity, SQLSTATE and message), else the client's
/// with its cause. Never the error's detail, which may quote a stored value.
pub fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("postgres: {} {}: {}", db.severity(), db.code().code(), db.message()),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("postgres: {e}: {cause}"),
            None => format!("postgres: {e}"),
        },
    }
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> Self {
        StoreError(describe(&e))
    }
}

/// Whether `e` ended its connection: the client saw it close, or the server said it is
/// going away (SQLSTATE class 08, or 57P01–57P03 for a shutdown or a terminated backend).
fn is_lost(e: &postgres::Error, client: &Client) -> bool {
    let going_away = |c: &SqlState| {
        c.code().starts_with("08")
            || [SqlState::ADMIN_SHUTDOWN, SqlState::CRASH_SHUTDOWN, SqlState::CANNOT_CONNECT_NOW].contains(c)
    };
    client.is_closed() || e.is_closed() || e.code().is_some_and(going_away)
}

impl Postgres {
    pub fn open(url: &str) -> Result<Self> {
        // TLS is left to the deployment (a local socket, a proxy or a tunnel): NoTls refuses
        // nothing, so `sslmode=require` in the URL is an error rather than a silent downgrade.
        if url.contains("sslmode=require") || url.contains("sslmode=verify") {
            return Err(StoreError("postgres: TLS is not built in; connect over a local socket or a tunnel".into()));
        }
        let mut config: Config = url.parse()?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let mut client = config.connect(NoTls)?;
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
        tx.batch_execute(&schema("BIGSERIAL"))?;
        tx.commit()?;
        Ok(Postgres { config, client: Some(client), reconnect: Reconnect::default() })
    }

    /// The connection, a new one if the last was lost (and an attempt is due).
    fn client(&mut self) -> Result<&mut Client> {
        let live = self.client.take().and_then(|mut c| {
            // Reads what the server sent since the last statement: a terminated backend or
            // a server shutting down says so and closes, seen here before a statement is
            // sent on the dead connection.
            let polled = c.notifications().iter().next();
            if c.is_closed() {
                let why = polled.err().map_or_else(|| "postgres: closed".into(), |e| describe(&e));
                eprintln!("privlift: the connection to the database was lost ({why}); connecting again");
                None
            } else {
                Some(c)
            }
        });
        let client = match live {
            Some(c) => c,
            None if !self.reconnect.due() => {
                return Err(StoreError("postgres: not connected to the database; connecting again shortly".into()))
            }
            None => match self.config.connect(NoTls) {
                Ok(c) => {
                    self.reconnect.succeeded();
                    c
                }
                Err(e) => {
                    self.reconnect.failed();
                    return Err(e.into());
                }
            },
        };
        Ok(self.client.insert(client))
    }

    /// Runs `op`: again after a pause while the server rolls it back for a conflict (at
    /// most [`retry::MAX_ATTEMPTS`] runs), and once more on a new connection when the
    /// connection was lost and `resend` (the statement may run twice: a read, or a write
    /// whose second run changes nothing).
    fn run<T>(&mut self, resend: bool, mut op: impl FnMut(&mut Client) -> PgResult<T>) -> Result<T> {
        let (mut attempt, mut resent) = (1, false);
        loop {
            let client = self.client()?;
            let e = match op(client) {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            if retry::is_conflict(&e) && attempt < retry::MAX_ATTEMPTS {
                eprintln!("privlift: {} (run {attempt} of {}; running it again)", describe(&e), retry::MAX_ATTEMPTS);
                std::thread::sleep(retry::pause(attempt));
                attempt += 1;
                continue;
            }
            if is_lost(&e, client) {
                self.client = None;
                if resend && !resent {
                    eprintln!("privlift: the connection to the database was lost ({}); connecting again", describe(&e));
                    resent = true;
                    continue;
                }
            }
            return Err(e.into());
        }
    }

    fn select(&mut self, sql: &str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> Result<Option<Version>> {
        let row = self.run(true, |c| c.query_opt(sql, params))?;
        Ok(row.map(|r| Version { version: r.get(0), mechanism: r.get(1), sha256: r.get(2), document: r.get(3) }))
    }
}

impl Store for Postgres {
    fn register(&mut self, mechanism: &str, sha256: &str, document: &str) -> Result<Version> {
        self.run(true, |c| {
            c.execute(
                "INSERT INTO privlift_documents (mechanism, sha256, document) VALUES ($1, $2, $3) \
                 ON CONFLICT (mechanism, sha256) DO NOTHING",
                &[&mechanism, &sha256, &document],
            )
        })?;
        self.version(mechanism, sha256)?
            .ok_or_else(|| StoreError("postgres: a registered document version vanished".into()))
    }

    fn version(&mut self, mechanism: &str, sha256: &str) -> Result<Option<Version>> {
        self.select(
            "SELECT version, mechanism, sha256, document FROM privlift_documents WHERE mechanism = $1 AND sha256 = $2",
            &[&mechanism, &sha256],
        )
    }

    fn publish(&mut self, mechanism: &str, version: i64) -> Result<()> {
        self.run(true, |c| c.execute(PUBLISH_SQL, &[&mechanism, &version]))?;
        Ok(())
    }

    fn published(&mut self, mechanism: &str) -> Result<Option<Version>> {
        self.select(PUBLISHED_SQL, &[&mechanism])
    }

    fn insert(&mut self, reports: &[Report]) -> Result<u64> {
        // The canonical order: every batch takes the unique index's entries in one order. A
        // stable sort: of one id twice in a batch, the first is stored, as on SQLite.
        let mut sorted: Vec<&Report> = reports.iter().collect();
        sorted.sort_by(|a, b| a.report_id.cmp(&b.report_id));
        let ids: Vec<&str> = sorted.iter().map(|r| r.report_id.as_str()).collect();
        let versions: Vec<i64> = sorted.iter().map(|r| r.version).collect();
        let outputs: Vec<&str> = sorted.iter().map(|r| r.output.as_str()).collect();
        // One statement is one transaction (autocommit): all of the batch or none of it.
        self.run(false, |c| {
            c.execute(
                "INSERT INTO privlift_reports (report_id, version, output) \
                 SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[]) ON CONFLICT (report_id) DO NOTHING",
                &[&ids, &versions, &outputs],
            )
        })
    }

    fn counts(&mut self, version: i64) -> Result<Vec<(String, u64)>> {
        let rows = self.run(true, |c| c.query(COUNT_SQL, &[&version]))?;
        Ok(rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64)).collect())
    }
}
