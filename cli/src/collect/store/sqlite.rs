//! SQLite, the embedded default (`--db sqlite:PATH`): a write-ahead log with
//! `synchronous = FULL`, so a committed batch survives a crash of the process and of the
//! machine; writers from several threads or processes take turns (`BEGIN IMMEDIATE`,
//! waiting up to [`BUSY_TIMEOUT`] for the lock).

use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{Report, Result, Store, Version};

/// How long a writer waits for another's transaction before failing with `storage`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    pub fn open(path: &str) -> Result<Self> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // journal_mode answers with the mode now in force.
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(super::StoreError(format!("sqlite: cannot use a write-ahead log on {path} (mode {mode})")));
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(&super::schema("INTEGER"))?;
        tx.commit()?;
        Ok(Sqlite { conn })
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
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO privlift_documents (mechanism, sha256, document) VALUES (?1, ?2, ?3) \
             ON CONFLICT (mechanism, sha256) DO NOTHING",
            params![mechanism, sha256, document],
        )?;
        tx.commit()?;
        self.version(mechanism, sha256)?
            .ok_or_else(|| super::StoreError("sqlite: a registered document version vanished".into()))
    }

    fn version(&mut self, mechanism: &str, sha256: &str) -> Result<Option<Version>> {
        self.select(
            "SELECT version, mechanism, sha256, document FROM privlift_documents WHERE mechanism = ?1 AND sha256 = ?2",
            params![mechanism, sha256],
        )
    }

    fn latest(&mut self, mechanism: &str) -> Result<Option<Version>> {
        self.select(
            "SELECT version, mechanism, sha256, document FROM privlift_documents WHERE mechanism = ?1 \
             ORDER BY version DESC LIMIT 1",
            params![mechanism],
        )
    }

    fn insert(&mut self, reports: &[Report]) -> Result<u64> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
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
        tx.commit()?;
        Ok(accepted)
    }

    fn counts(&mut self, version: i64) -> Result<Vec<(String, u64)>> {
        let mut stmt = self.conn.prepare_cached(&super::COUNT_SQL.replace("$1", "?1"))?;
        let rows = stmt.query_map(params![version], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
