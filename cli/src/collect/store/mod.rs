//! Where the collector keeps its state: the published document versions and the reports,
//! behind one small trait with two engines ([`sqlite`], the embedded default, and
//! [`postgres`]). The collector process holds no state of its own: a report id's
//! uniqueness is the database's primary key, so any number of collectors on one database
//! count a retried batch once.
//!
//! The schema ([`schema`](model::schema), the same on both engines; `privlift_` prefixes
//! keep it apart from an application's own tables): `privlift_documents (version,
//! mechanism, sha256, document)`, one row per published document version, `privlift_reports
//! (report_id PRIMARY KEY, version, output)`, one row per report, indexed by `(version,
//! output)`, and `privlift_published (mechanism PRIMARY KEY, version)`, the version of each
//! mechanism that the collector started last publishes ([`Store::publish`]), so that
//! `estimate --db` estimates the version the collectors estimate, also after a rollback to
//! an earlier one. Every statement is `CREATE … IF NOT EXISTS`: a database of an earlier
//! release gains the table it lacks when opened, and opening one again changes nothing.
//!
//! Counting is one `GROUP BY` in the database ([`COUNT_SQL`](model::COUNT_SQL)): the
//! reports of different versions of a document (different SHA-256) are never mixed.

mod model;
pub mod postgres;
mod retry;
pub mod sqlite;

pub use model::{Report, Result, Store, StoreError, Version};

/// Opens a connection to `url`: `sqlite:PATH` (created if missing) or
/// `postgres://…` / `postgresql://…` (libpq's URL form). Creates the schema if needed.
pub fn open(url: &str) -> Result<Box<dyn Store>> {
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        if path.is_empty() {
            return Err(StoreError("`sqlite:` needs a file path, as in `sqlite:reports.db`".into()));
        }
        Ok(Box::new(sqlite::Sqlite::open(path)?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Box::new(postgres::Postgres::open(url)?))
    } else {
        Err(StoreError("`--db` is `sqlite:PATH` or `postgres://USER@HOST:PORT/DATABASE`".into()))
    }
}

/// Whether `url` names a database engine [`open`] knows (checked before anything else).
pub fn is_database_url(url: &str) -> bool {
    url.starts_with("sqlite:") || url.starts_with("postgres://") || url.starts_with("postgresql://")
}
