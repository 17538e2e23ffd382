//! `privlift collect --db URL --dir MECHANISMS_DIR [--port P] [--host H] [--public]
//! [--threads N]`: the curator's collector.
//!
//! Routes (JSON in and out; errors are `{"code", "message"}`):
//! - `GET /v1/mechanisms/ID`: the published document, its SHA-256 as a strong `ETag`
//!   (`If-None-Match` naming it answers 304, by the weak comparison of
//!   [`crate::serve::none_match`]).
//! - `POST /v1/reports`: `{"reports": [{"mechanism", "sha256", "output", "report_id"}]}`
//!   → 202 `{"accepted": N, "duplicates": M}` once the batch is durable. Every report is
//!   checked against the document version it names before any is stored ([`wire`]): a
//!   batch is stored whole or not at all. A report id already stored (a retry, by any
//!   collector on the database) is a duplicate, counted once.
//! - `GET /v1/estimates/ID[?sha256=HEX]`: the estimate from the reports of the published
//!   version (or the one named), by [`estimate_version`].
//!
//! ID is percent-decoded in both GET routes (400 `invalid_id` when it cannot be). A request
//! that needs the database waits for a worker in a bounded queue, else 503 `busy` ([`http`]).
//! A collector records the versions it publishes in the database ([`store::Store::publish`]),
//! so `estimate --db` estimates the version it does.
//!
//! The process is stateless: all state is in the database ([`store`]), so collectors scale
//! out behind a load balancer. Loopback unless `--public`; bodies of at most
//! [`MAX_BODY`] bytes and batches of at most [`wire::MAX_BATCH`] reports; SQL parameters
//! only, never SQL text built from a request. Responses allow any origin (CORS): reports
//! carry no credentials, and a web app's collector is usually on another origin.

mod catalogue;
mod http;
pub mod simulate;
mod store;
mod wire;

use std::sync::Arc;

use http::{HttpRequest, HttpResponse, Method as HttpMethod};
use privlift::document::MechanismKind;
use privlift::error::Quoted;
use privlift::Error;
use privlift_design::lattice_estimate::estimate_lattice;

use crate::args;
use crate::error::CliError;
use crate::estimation::{count_json, estimate, Blame, Estimated, Method, MAX_EM_ITERATIONS};
use catalogue::{lattice_labels, Catalogue, Parsed, Published};
use store::{Store, StoreError};

/// Largest request body read (a batch of 10,000 reports is about 1.5 MB).
pub const MAX_BODY: usize = 4 * 1024 * 1024;
/// Worker threads, each with its own database connection, by default.
const DEFAULT_THREADS: usize = 8;
const MAX_THREADS: usize = 256;
/// The `Retry-After` of a 503 `storage`, in seconds: about when a lost database connection
/// is tried again.
const STORAGE_RETRY_AFTER_SECS: u32 = 1;

/// An HTTP error answer: status and a JSON `{"code", "message"}` body.
#[derive(Debug)]
pub struct ApiError {
    status: u16,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: u16, code: &'static str, message: String) -> Self {
        ApiError { status, code, message }
    }
    fn bad_request(code: &'static str, message: String) -> Self {
        Self::new(400, code, message)
    }
    /// A database failure: logged in full (the database's own message), answered 503 with
    /// a `Retry-After` (clients retry with the same ids).
    fn storage(e: StoreError) -> Self {
        eprintln!("privlift: collect: {e}");
        Self::new(503, "storage", "the collector's database failed; retry later".into())
    }
    fn from_library(e: Error) -> Self {
        Self::new(422, e.code(), e.to_string())
    }
}

/// `--db` names an engine this build knows (a usage error before any connection).
pub fn check_database_url(db: &str) -> Result<(), CliError> {
    if store::is_database_url(db) {
        Ok(())
    } else {
        Err(CliError::usage("`--db` is `sqlite:PATH` or `postgres://USER@HOST:PORT/DATABASE`"))
    }
}

/// A database failure of a command (code `io`).
pub fn storage_failure(e: StoreError) -> CliError {
    CliError::Lib { context: Some("database".into()), error: Error::Io { message: e.0 } }
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

fn json_response(status: u16, body: String) -> HttpResponse {
    HttpResponse::new(status, body.into_bytes())
        .header("Content-Type", "application/json")
        .header("Cache-Control", "no-store")
}

fn error_response(e: &ApiError) -> HttpResponse {
    let r = json_response(e.status, serde_json::json!({"code": e.code, "message": e.message}).to_string())
        .header("Access-Control-Allow-Origin", "*");
    if e.code == "storage" {
        r.header("Retry-After", STORAGE_RETRY_AFTER_SECS.to_string())
    } else {
        r
    }
}

/// A request once routed: answered already, when it needed no database (a document, a
/// preflight, a refusal), or the database work it needs, for a worker thread.
pub enum Routed {
    Answered(HttpResponse),
    /// `GET /v1/estimates/ID[?sha256=HEX]`, the id percent-decoded: a read.
    Estimate {
        id: String,
        query: String,
    },
    /// `POST /v1/reports` with a body of at most [`MAX_BODY`] bytes: a write.
    Reports {
        body: Vec<u8>,
    },
}

impl Routed {
    /// Whether it writes to the database.
    pub fn is_write(&self) -> bool {
        matches!(self, Routed::Reports { .. })
    }

    /// The bytes of the body it holds (a batch's; 0 for the others).
    pub fn bytes(&self) -> usize {
        match self {
            Routed::Reports { body } => body.len(),
            Routed::Answered(_) | Routed::Estimate { .. } => 0,
        }
    }

    /// Does the database work and answers (no I/O but the store's).
    pub fn run(self, catalogue: &Catalogue, store: &mut dyn Store) -> HttpResponse {
        let answer = match self {
            Routed::Answered(r) => return r,
            Routed::Estimate { id, query } => get_estimate(&id, &query, catalogue, store),
            Routed::Reports { body } => post_reports(&body, catalogue, store),
        };
        match answer {
            Ok((status, body)) => cors(json_response(status, body)),
            Err(e) => error_response(&e),
        }
    }
}

fn cors(r: HttpResponse) -> HttpResponse {
    r.header("Access-Control-Allow-Origin", "*")
}

/// The id in a route's last segment, percent-decoded (a client builds the URL with
/// `encodeURIComponent`); 400 `invalid_id` for a malformed escape or bytes that are not UTF-8.
fn route_id(segment: &str) -> Result<String, ApiError> {
    crate::serve::percent_decode(segment)
        .ok_or_else(|| ApiError::bad_request("invalid_id", "the id in the path is not percent-encoded UTF-8".into()))
}

/// Routes one request; answers at once what needs no database.
pub fn route(request: HttpRequest, catalogue: &Catalogue) -> Routed {
    let answered = |r: Result<HttpResponse, ApiError>| Routed::Answered(r.unwrap_or_else(|e| error_response(&e)));
    let path = request.path.as_str();
    match (request.method, path) {
        (HttpMethod::Options, _) if path.starts_with("/v1/") => Routed::Answered(
            cors(HttpResponse::new(204, Vec::new()))
                .header("Access-Control-Allow-Methods", "GET, POST")
                .header("Access-Control-Allow-Headers", "content-type, if-none-match")
                .header("Access-Control-Max-Age", "86400"),
        ),
        (HttpMethod::Get | HttpMethod::Head, p) if p.starts_with("/v1/mechanisms/") => {
            answered(route_id(&p["/v1/mechanisms/".len()..]).and_then(|id| {
                let doc = catalogue
                    .current(&id)
                    .ok_or_else(|| ApiError::new(404, "unknown_mechanism", format!("no mechanism {}", Quoted(&id))))?;
                let etag = format!("\"{}\"", doc.sha256);
                let r = if crate::serve::none_match(request.if_none_match.iter().map(String::as_str), &etag) {
                    HttpResponse::new(304, Vec::new())
                } else {
                    HttpResponse::new(200, doc.text.clone().into_bytes()).header("Content-Type", "application/json")
                };
                Ok(cors(r.header("ETag", etag).header("Cache-Control", "no-cache")))
            }))
        }
        (HttpMethod::Post, "/v1/reports") => match request.body {
            Ok(body) => Routed::Reports { body },
            Err(()) => {
                answered(Err(ApiError::new(413, "body_too_large", format!("the body exceeds {MAX_BODY} bytes"))))
            }
        },
        (HttpMethod::Get, p) if p.starts_with("/v1/estimates/") => match route_id(&p["/v1/estimates/".len()..]) {
            Ok(id) => Routed::Estimate { id, query: request.query },
            Err(e) => answered(Err(e)),
        },
        (_, "/v1/reports") => answered(Err(ApiError::new(405, "method_not_allowed", "use POST".into()))),
        (_, p) if p.starts_with("/v1/mechanisms/") || p.starts_with("/v1/estimates/") => {
            answered(Err(ApiError::new(405, "method_not_allowed", "use GET".into())))
        }
        _ => answered(Err(ApiError::new(404, "not_found", "no such route".into()))),
    }
}

fn post_reports(body: &[u8], catalogue: &Catalogue, store: &mut dyn Store) -> Result<(u16, String), ApiError> {
    let reports = wire::parse_batch(body, catalogue, store)?;
    let accepted = store.insert(&reports).map_err(ApiError::storage)?;
    Ok((202, serde_json::json!({"accepted": accepted, "duplicates": reports.len() as u64 - accepted}).to_string()))
}

fn get_estimate(
    id: &str,
    query: &str,
    catalogue: &Catalogue,
    store: &mut dyn Store,
) -> Result<(u16, String), ApiError> {
    let sha = query.split('&').find_map(|kv| kv.strip_prefix("sha256="));
    let published = match (sha, catalogue.current(id)) {
        (None, Some(p)) => Arc::clone(p),
        (None, None) => return Err(ApiError::new(404, "unknown_mechanism", format!("no mechanism {}", Quoted(id)))),
        (Some(sha), _) => catalogue.find(store, id, sha).map_err(ApiError::storage)?.map_err(|_| {
            ApiError::new(404, "unknown_version", format!("no version of {} has this SHA-256", Quoted(id)))
        })?,
    };
    let mut counts = store.counts(published.version).map_err(ApiError::storage)?;
    counts.sort_unstable();
    // The same counts give the same estimate: a page reloaded without new reports costs
    // one GROUP BY, not another EM (which takes up to a second for a wide lattice).
    if let Some(body) = catalogue.cached_estimate(published.version, &counts) {
        return Ok((200, body));
    }
    let e = estimate_version(&published, &counts, None, false).map_err(|b| match b {
        Blame::Document(e) | Blame::Counts(e) => ApiError::from_library(e),
    })?;
    let body = serde_json::to_string(&e).map_err(|e| ApiError::from_library(Error::Json { message: e.to_string() }))?;
    catalogue.cache_estimate(published.version, counts, body.clone());
    Ok((200, body))
}

/// The estimate from a document version's stored counts (`output`, reports): the fields
/// of `privlift estimate` plus `sha256`. No reports yet: `n` is 0 and the estimate, its
/// errors and the method are `null`.
pub fn estimate_version(
    p: &Published,
    counts: &[(String, u64)],
    method: Option<Method>,
    project: bool,
) -> Result<Estimated, Blame> {
    let n: u64 = counts.iter().map(|(_, c)| c).sum();
    let stored = |what: &str| Blame::Counts(Error::Io { message: format!("a stored output is not {what}") });
    let mut e = if n == 0 {
        let labels = match &p.doc {
            Parsed::Discrete(d) => d.input().labels().to_vec(),
            Parsed::Continuous { doc, .. } => lattice_labels(doc.lattice()),
        };
        Estimated {
            estimate: None,
            std_error: None,
            n: count_json(0.0),
            labels,
            method: None,
            unidentified: None,
            identified: None,
            interval: None,
            projected: None,
            secret: None,
            mean: None,
            mean_std_error: None,
            sha256: None,
        }
    } else {
        match &p.doc {
            Parsed::Discrete(d) if matches!(d.mechanism(), MechanismKind::Unary { .. }) => {
                let mut ones = vec![0.0; d.input().len()];
                for (bits, c) in counts {
                    if bits.len() != ones.len() {
                        return Err(stored("a bit string of this encoding"));
                    }
                    for (o, b) in ones.iter_mut().zip(bits.bytes()) {
                        *o += if b == b'1' { *c as f64 } else { 0.0 };
                    }
                }
                estimate(d, &ones, Some(n as f64), method, project)?
            }
            Parsed::Discrete(d) => {
                let mut v = vec![0.0; d.output().len()];
                for (label, c) in counts {
                    v[d.output().position(label).ok_or_else(|| stored("an output label"))?] += *c as f64;
                }
                estimate(d, &v, None, method, project)?
            }
            Parsed::Continuous { sampler: m, .. } => {
                if method == Some(Method::Unbiased) {
                    return Err(Blame::Document(Error::invalid(
                        "method",
                        "a continuous document's histogram is estimated by maximum likelihood only",
                    )));
                }
                let mut pairs = Vec::with_capacity(counts.len());
                for (value, c) in counts {
                    let y: f64 = value.parse().map_err(|_| stored("a number"))?;
                    let j = m.lattice().output_index(y).map_err(|_| stored("a lattice value"))?;
                    pairs.push((j, *c as f64));
                }
                let l = estimate_lattice(m, &pairs, MAX_EM_ITERATIONS).map_err(Blame::Counts)?;
                let computed = !l.identified.is_empty();
                Estimated {
                    estimate: Some(l.histogram),
                    std_error: Some(l.std_error),
                    n: count_json(l.n),
                    labels: lattice_labels(m.lattice()),
                    method: Some("mle"),
                    unidentified: None,
                    identified: computed.then_some(l.identified),
                    interval: computed.then_some(l.interval),
                    projected: None,
                    secret: None,
                    mean: Some(l.mean),
                    mean_std_error: Some(l.mean_std_error),
                    sha256: None,
                }
            }
        }
    };
    e.sha256 = Some(p.sha256.clone());
    Ok(e)
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
    let counts = store.counts(published.version).map_err(storage_failure)?;
    estimate_version(&published, &counts, method, project).map_err(|b| match b {
        Blame::Document(e) | Blame::Counts(e) => CliError::in_file(db, e),
    })
}
