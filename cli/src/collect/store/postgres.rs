//! PostgreSQL (`--db postgres://USER@HOST:PORT/DATABASE`): a batch is one statement
//! (`INSERT … SELECT * FROM UNNEST(…) ON CONFLICT DO NOTHING`, one round trip), committed
//! with the server's `synchronous_commit` (on by default: durable once acknowledged).
//! Concurrent inserts of one report id by several collectors wait on each other's
//! transaction in the unique index, and exactly one of them stores it.

use postgres::{Client, NoTls};

use super::{Report, Result, Store, StoreError, Version};

/// Serialises the schema's creation among collectors starting together (`CREATE TABLE IF
/// NOT EXISTS` alone races in PostgreSQL's catalogue).
const SCHEMA_LOCK: i64 = 0x7072_6976_6c69_6674; // "privlift"

pub struct Postgres {
    client: Client,
}

impl Postgres {
    pub fn open(url: &str) -> Result<Self> {
        // TLS is left to the deployment (a local socket, a proxy or a tunnel): NoTls refuses
        // nothing, so `sslmode=require` in the URL is an error rather than a silent downgrade.
        if url.contains("sslmode=require") || url.contains("sslmode=verify") {
            return Err(StoreError("postgres: TLS is not built in; connect over a local socket or a tunnel".into()));
        }
        let mut client = Client::connect(url, NoTls)?;
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
        tx.batch_execute(&super::schema("BIGSERIAL"))?;
        tx.commit()?;
        Ok(Postgres { client })
    }

    fn select(&mut self, sql: &str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> Result<Option<Version>> {
        Ok(self.client.query_opt(sql, params)?.map(|r| Version {
            version: r.get(0),
            mechanism: r.get(1),
            sha256: r.get(2),
            document: r.get(3),
        }))
    }
}

impl Store for Postgres {
    fn register(&mut self, mechanism: &str, sha256: &str, document: &str) -> Result<Version> {
        self.client.execute(
            "INSERT INTO privlift_documents (mechanism, sha256, document) VALUES ($1, $2, $3) \
             ON CONFLICT (mechanism, sha256) DO NOTHING",
            &[&mechanism, &sha256, &document],
        )?;
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
        self.client.execute(super::PUBLISH_SQL, &[&mechanism, &version])?;
        Ok(())
    }

    fn published(&mut self, mechanism: &str) -> Result<Option<Version>> {
        self.select(super::PUBLISHED_SQL, &[&mechanism])
    }

    fn insert(&mut self, reports: &[Report]) -> Result<u64> {
        let ids: Vec<&str> = reports.iter().map(|r| r.report_id.as_str()).collect();
        let versions: Vec<i64> = reports.iter().map(|r| r.version).collect();
        let outputs: Vec<&str> = reports.iter().map(|r| r.output.as_str()).collect();
        // One statement is one transaction (autocommit): all of the batch or none of it.
        Ok(self.client.execute(
            "INSERT INTO privlift_reports (report_id, version, output) \
             SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[]) ON CONFLICT (report_id) DO NOTHING",
            &[&ids, &versions, &outputs],
        )?)
    }

    fn counts(&mut self, version: i64) -> Result<Vec<(String, u64)>> {
        let rows = self.client.query(super::COUNT_SQL, &[&version])?;
        Ok(rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64)).collect())
    }
}
