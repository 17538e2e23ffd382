//! What the collector stores, in the terms both engines share: a [`Report`], a
//! registered document [`Version`], the schema and the SQL both speak, the
//! [`StoreError`] of a failed statement and the [`Store`] trait each engine implements.

use std::fmt;

/// One report as stored: already checked against its document version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// 32 lower-case hex digits.
    pub report_id: String,
    /// `privlift_documents.version` of the document the client verified.
    pub version: i64,
    /// The canonical output (a label, a bit string, or a lattice value).
    pub output: String,
}

/// A registered document version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub version: i64,
    pub mechanism: String,
    pub sha256: String,
    pub document: String,
}

/// The schema, in the SQL both engines speak; `serial` is the engine's auto-numbered
/// primary key type.
pub fn schema(serial: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS privlift_documents (
  version   {serial} PRIMARY KEY,
  mechanism TEXT NOT NULL,
  sha256    TEXT NOT NULL,
  document  TEXT NOT NULL,
  UNIQUE (mechanism, sha256));
CREATE TABLE IF NOT EXISTS privlift_reports (
  report_id TEXT PRIMARY KEY,
  version   BIGINT NOT NULL REFERENCES privlift_documents (version),
  output    TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS privlift_reports_count ON privlift_reports (version, output);
CREATE TABLE IF NOT EXISTS privlift_published (
  mechanism TEXT PRIMARY KEY,
  version   BIGINT NOT NULL REFERENCES privlift_documents (version));"
    )
}

/// Marks a registered version as its mechanism's published one (the engines' upsert).
pub const PUBLISH_SQL: &str = "INSERT INTO privlift_published (mechanism, version) VALUES ($1, $2) \
     ON CONFLICT (mechanism) DO UPDATE SET version = excluded.version";

/// The published version of a mechanism, else (no collector has published it yet, as in a
/// database of an earlier release) the most recently registered one.
pub const PUBLISHED_SQL: &str = "SELECT d.version, d.mechanism, d.sha256, d.document FROM privlift_documents d \
     LEFT JOIN privlift_published p ON p.mechanism = d.mechanism AND p.version = d.version \
     WHERE d.mechanism = $1 ORDER BY (p.version IS NOT NULL) DESC, d.version DESC LIMIT 1";

/// The counts of one document version: `SELECT output, COUNT(*) … GROUP BY output`.
pub const COUNT_SQL: &str = "SELECT output, COUNT(*) FROM privlift_reports WHERE version = $1 GROUP BY output";

/// A failure of the database (connection, constraint, I/O). Its text is for the
/// operator's log; clients get a generic `storage` error.
#[derive(Debug)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// One connection to the collector's database. Each collector thread owns one.
pub trait Store: Send {
    /// Registers a document version (idempotent, safe against concurrent registration
    /// by other collectors) and returns it with its version number.
    fn register(&mut self, mechanism: &str, sha256: &str, document: &str) -> Result<Version>;
    /// A registered version of `mechanism` with this SHA-256.
    fn version(&mut self, mechanism: &str, sha256: &str) -> Result<Option<Version>>;
    /// Marks `version` (registered) as the published version of `mechanism`: the one a
    /// collector serves and estimates by default. The last collector started wins.
    fn publish(&mut self, mechanism: &str, version: i64) -> Result<()>;
    /// The published version of `mechanism` ([`PUBLISHED_SQL`]): the one the collector
    /// started last publishes, else the most recently registered one.
    fn published(&mut self, mechanism: &str) -> Result<Option<Version>>;
    /// Stores a batch in one transaction; reports whose id is already stored (by this
    /// or any other collector, or earlier in the batch) are skipped. Returns how many
    /// were new; once it returns, the batch is durable. If it fails, nothing is stored,
    /// or (a connection lost during the commit) the whole batch may be: either way it is
    /// not acknowledged, and its retry with the same ids counts each once.
    fn insert(&mut self, reports: &[Report]) -> Result<u64>;
    /// Reports per output of one version ([`COUNT_SQL`]).
    fn counts(&mut self, version: i64) -> Result<Vec<(String, u64)>>;
}
