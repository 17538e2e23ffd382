//! `privlift collect --db URL --dir MECHANISMS_DIR [--port P] [--host H] [--public]
//! [--threads N]`: the curator's collector.
//!
//! Routes ([`routes`]; JSON in and out, errors are `{"code", "message"}`):
//! - `GET /v1/mechanisms/ID`: the published document, its SHA-256 as a strong `ETag`
//!   (`If-None-Match` naming it answers 304, by the weak comparison of
//!   [`crate::serve::none_match`]).
//! - `POST /v1/reports`: `{"reports": [{"mechanism", "sha256", "output", "report_id"}]}`
//!   → 202 `{"accepted": N, "duplicates": M}` once the batch is durable. Every report is
//!   checked against the document version it names before any is stored ([`wire`]): a
//!   batch is stored whole or not at all. A report id already stored (a retry, by any
//!   collector on the database) is a duplicate, counted once.
//! - `GET /v1/estimates/ID[?sha256=HEX]`: the estimate from the reports of the published
//!   version (or the one named), by [`estimate_version`]. An open-domain document answers
//!   for candidates — `?candidate=V&candidate=W…` (each percent-encoded), or `POST
//!   /v1/estimates/ID` with `{"candidates": [...]}` — with `{"labels", "estimate",
//!   "std_error", "n", "method", "sha256"}`; a heavy-hitter document for
//!   `?heavy_hitters&top=K` (or `POST {"heavy_hitters": true, "top": K}`) with
//!   `{"values", "estimate", "std_error", "n", "sha256"}`
//!   ([`open_query`](estimates::open_query)).
//!
//! ID is percent-decoded in both GET routes (400 `invalid_id` when it cannot be). A request
//! that needs the database waits for a worker in a bounded queue, else 503 `busy` ([`http`]).
//! A collector records the versions it publishes in the database ([`store::Store::publish`]),
//! so `estimate --db` estimates the version it does.
//!
//! The process is stateless: all state is in the database ([`store`]), so collectors scale
//! out behind a load balancer. Loopback unless `--public`; bodies of at most
//! [`MAX_BODY`](routes::MAX_BODY) bytes and batches of at most [`wire::MAX_BATCH`]
//! reports; SQL parameters only, never SQL text built from a request. Responses allow any
//! origin (CORS): reports carry no credentials, and a web app's collector is usually on
//! another origin.
//!
//! The commands are here; what they share sits below: the routes and their request and
//! response ([`routes`], [`message`]), the estimates ([`estimates`]), how a failure is
//! told ([`failure`]), the HTTP front ([`http`]) and the database ([`store`]).

mod catalogue;
mod estimates;
mod failure;
mod http;
mod message;
mod population;
mod routes;
pub mod simulate;
mod store;
mod wire;

use std::sync::Arc;

use privlift::error::Quoted;
use privlift::Error;

use crate::args;
use crate::error::CliError;
use crate::estimation::{Blame, Estimated, Method};
use crate::open_estimate;
use catalogue::{Catalogue, Parsed, Published};
use estimates::estimate_version;
use failure::storage_failure;
use privlift_design::open::estimate::candidate_lines;
use store::Store;

/// Worker threads, each with its own database connection, by default.
const DEFAULT_THREADS: usize = 8;
const MAX_THREADS: usize = 256;

/// `--db` names an engine this build knows (a usage error before any connection).
pub fn check_database_url(db: &str) -> Result<(), CliError> {
    if store::is_database_url(db) {
        Ok(())
    } else {
        Err(CliError::usage("`--db` is `sqlite:PATH` or `postgres://USER@HOST:PORT/DATABASE`"))
    }
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("collect", argv, &["db", "dir", "port", "host", "threads"], &["public"])?;
    if a.help {
        return crate::help::print("collect");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}`")));
    }
    let db = a
        .value("db")
        .ok_or_else(|| CliError::usage("`privlift collect` needs `--db sqlite:PATH` or `--db postgres://…`"))?;
    if !store::is_database_url(db) {
        return Err(CliError::usage("`--db` is `sqlite:PATH` or `postgres://USER@HOST:PORT/DATABASE`"));
    }
    let dir = a.value("dir").ok_or_else(|| CliError::usage("`privlift collect` needs `--dir MECHANISMS_DIR`"))?;
    let threads = match a.value("threads") {
        None => DEFAULT_THREADS,
        Some(t) => t.parse().ok().filter(|t| (1..=MAX_THREADS).contains(t)).ok_or_else(|| {
            CliError::usage(format!("`--threads` must be a number from 1 to {MAX_THREADS}, got {t:?}"))
        })?,
    };
    let listener = crate::serve::bind(&a, 8081, "the collector")?;
    let mut first = store::open(db).map_err(storage_failure)?;
    let catalogue = Arc::new(Catalogue::load(dir, first.as_mut())?);
    // What this collector serves is what `estimate --db` estimates by default, also when it
    // is an earlier version than another registered (a rollback).
    for p in catalogue.published() {
        first.publish(&p.id, p.version).map_err(storage_failure)?;
    }
    let mut stores = vec![first];
    for _ in 1..threads {
        stores.push(store::open(db).map_err(storage_failure)?);
    }
    let local = listener.local_addr().map_err(|e| CliError::io("cannot read the bound address", e))?;
    eprintln!("privlift: collect: {} mechanisms from {dir}, {threads} threads", catalogue.len());
    crate::out::print_stdout(&format!("listening on http://{local}\n"))?;
    http::serve(listener, stores, catalogue)
}

/// `privlift estimate --db URL --mechanism ID [--sha256 HEX]`: the estimate from a
/// collector's database, offline: by default of the published version, the one the
/// collector started last serves ([`Store::published`]), as `GET /v1/estimates/ID`.
pub fn estimate_from_db(
    db: &str,
    id: &str,
    sha256: Option<&str>,
    method: Option<Method>,
    project: bool,
) -> Result<Estimated, CliError> {
    let (mut store, published) = stored_version(db, id, sha256)?;
    let counts = store.counts(published.version).map_err(storage_failure)?;
    estimate_version(&published, &counts, method, project).map_err(|b| match b {
        Blame::Document(e) | Blame::Counts(e) => CliError::in_file(db, e),
    })
}

/// The version of `id` a collector's database holds: the published one, or the one
/// with this SHA-256.
fn stored_version(db: &str, id: &str, sha256: Option<&str>) -> Result<(Box<dyn Store>, Published), CliError> {
    check_database_url(db)?;
    let mut store = store::open(db).map_err(storage_failure)?;
    let version = match sha256 {
        Some(sha) => store.version(id, sha),
        None => store.published(id),
    }
    .map_err(storage_failure)?
    .ok_or_else(|| CliError::Lib {
        context: Some(db.into()),
        error: Error::invalid(
            "mechanism",
            format!(
                "no {} of mechanism {} in the database",
                if sha256.is_some() { "such version" } else { "version" },
                Quoted(id)
            ),
        ),
    })?;
    let published = Published::parse(version.document, version.version).map_err(|e| CliError::in_file(db, e))?;
    Ok((store, published))
}

/// `privlift estimate --db URL --mechanism ID --candidates C.txt`: the frequencies of
/// the candidates (one a line) from an open-domain document's stored reports.
pub fn candidates_from_db(
    db: &str,
    id: &str,
    sha256: Option<&str>,
    candidates_path: &str,
) -> Result<open_estimate::Frequencies, CliError> {
    let (mut store, published) = stored_version(db, id, sha256)?;
    let Parsed::Open(doc) = &published.doc else {
        return Err(CliError::usage("`--candidates` is for an open-domain document (olh, hadamard, hcms)"));
    };
    let text = crate::files::read(candidates_path)?;
    let candidates = candidate_lines(&text, doc.max_bytes()).map_err(|e| CliError::in_file(candidates_path, e))?;
    let counts = store.counts(published.version).map_err(storage_failure)?;
    let mut f = open_estimate::candidate_frequencies(doc, &counts, candidates).map_err(|e| CliError::in_file(db, e))?;
    f.sha256 = Some(published.sha256.clone());
    Ok(f)
}

/// `privlift heavy-hitters --db URL --mechanism ID --top K`.
pub fn heavy_hitters_from_db(
    db: &str,
    id: &str,
    sha256: Option<&str>,
    top: usize,
) -> Result<open_estimate::HeavyHitters, CliError> {
    let (mut store, published) = stored_version(db, id, sha256)?;
    let Parsed::Open(doc) = &published.doc else {
        return Err(CliError::usage("`privlift heavy-hitters` is for a `heavy_hitters` document"));
    };
    let counts = store.counts(published.version).map_err(storage_failure)?;
    let mut h = open_estimate::top_values(doc, &counts, top).map_err(|e| CliError::in_file(db, e))?;
    h.sha256 = Some(published.sha256.clone());
    Ok(h)
}
