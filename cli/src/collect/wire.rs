//! The body of `POST /v1/reports` and its checks: every report of a batch is checked
//! against the document version it names before any is stored, so a batch is stored
//! whole or not at all.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;

use super::catalogue::{Catalogue, Published, Unknown};
use super::store::{Report, Store};
use super::ApiError;

/// Most reports in one batch.
pub const MAX_BATCH: usize = 10_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Batch {
    reports: Vec<WireReport>,
}

/// One report as a client sends it (`Mechanism.report(y)` in the npm package).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireReport {
    mechanism: String,
    sha256: String,
    output: serde_json::Value,
    report_id: String,
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses and checks a batch: `json` (400) for a body that is not a batch,
/// `empty_batch` (400), `batch_too_large` (413), `invalid_report` (400) for a malformed
/// id or hash, `unknown_mechanism` / `unknown_version` (404), `unknown_output` (400).
/// Errors name the report by its index, never its output.
pub fn parse_batch(body: &[u8], catalogue: &Catalogue, store: &mut dyn Store) -> Result<Vec<Report>, ApiError> {
    let batch: Batch = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request("json", format!("not a batch of reports: {e}")))?;
    if batch.reports.is_empty() {
        return Err(ApiError::bad_request("empty_batch", "`reports` is empty".into()));
    }
    if batch.reports.len() > MAX_BATCH {
        return Err(ApiError::new(
            413,
            "batch_too_large",
            format!("{} reports in one batch; at most {MAX_BATCH}", batch.reports.len()),
        ));
    }
    let mut versions: HashMap<(String, String), Arc<Published>> = HashMap::new();
    let mut out = Vec::with_capacity(batch.reports.len());
    for (i, r) in batch.reports.into_iter().enumerate() {
        if !is_hex(&r.report_id, 32) {
            return Err(ApiError::bad_request(
                "invalid_report",
                format!("reports[{i}].report_id: expected 32 lower-case hex digits"),
            ));
        }
        if !is_hex(&r.sha256, 64) {
            return Err(ApiError::bad_request(
                "invalid_report",
                format!("reports[{i}].sha256: expected 64 lower-case hex digits"),
            ));
        }
        let key = (r.mechanism, r.sha256);
        let published = match versions.get(&key) {
            Some(p) => Arc::clone(p),
            None => {
                let found = catalogue.find(store, &key.0, &key.1).map_err(ApiError::storage)?;
                let p = found.map_err(|unknown| match unknown {
                    Unknown::Mechanism => ApiError::new(
                        404,
                        "unknown_mechanism",
                        format!("reports[{i}].mechanism: this collector has no mechanism {:?}", key.0),
                    ),
                    Unknown::Version => ApiError::new(
                        404,
                        "unknown_version",
                        format!("reports[{i}].sha256: no version of mechanism {:?} has this SHA-256", key.0),
                    ),
                })?;
                versions.insert(key, Arc::clone(&p));
                p
            }
        };
        let output = published.canonical_output(&r.output).map_err(|bad| {
            ApiError::bad_request("unknown_output", format!("reports[{i}].output: {} {:?}", bad.0, published.id))
        })?;
        out.push(Report { report_id: r.report_id, version: published.version, output });
    }
    Ok(out)
}
