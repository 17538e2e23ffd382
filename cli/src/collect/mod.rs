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
//!   version (or the one named), by [`estimate_version`]. An open-domain document answers
//!   for candidates — `?candidate=V&candidate=W…` (each percent-encoded), or `POST
//!   /v1/estimates/ID` with `{"candidates": [...]}` — with `{"labels", "estimate",
//!   "std_error", "n", "method", "sha256"}`; a heavy-hitter document for
//!   `?heavy_hitters&top=K` (or `POST {"heavy_hitters": true, "top": K}`) with
//!   `{"values", "estimate", "std_error", "n", "sha256"}` ([`open_query`]).
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
mod population;
pub mod simulate;
mod store;
mod wire;

use std::sync::Arc;

use http::{HttpRequest, HttpResponse, Method as HttpMethod};
use privlift::document::MechanismKind;
use privlift::error::Quoted;
use privlift::open::OpenDocument;
use privlift::Error;
use privlift_design::lattice_estimate::estimate_lattice;

use crate::args;
use crate::error::CliError;
use crate::estimation::{count_json, estimate, Blame, Estimated, Method, MAX_EM_ITERATIONS};
use crate::open_estimate;
use catalogue::{lattice_labels, Catalogue, Parsed, Published};
use privlift_design::open::estimate::candidate_lines;
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
    /// `GET /v1/estimates/ID[?sha256=HEX]` (or `POST` with an open-domain query in the
    /// body), the id percent-decoded: a read.
    Estimate {
        id: String,
        query: String,
        body: Vec<u8>,
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
            Routed::Reports { body } | Routed::Estimate { body, .. } => body.len(),
            Routed::Answered(_) => 0,
        }
    }

    /// Does the database work and answers (no I/O but the store's).
    pub fn run(self, catalogue: &Catalogue, store: &mut dyn Store) -> HttpResponse {
        let answer = match self {
            Routed::Answered(r) => return r,
            Routed::Estimate { id, query, body } => get_estimate(&id, &query, &body, catalogue, store),
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
        (HttpMethod::Get | HttpMethod::Post, p) if p.starts_with("/v1/estimates/") => {
            let post = request.method == HttpMethod::Post;
            match (route_id(&p["/v1/estimates/".len()..]), request.body) {
                (Ok(id), Ok(body)) => {
                    Routed::Estimate { id, query: request.query, body: if post { body } else { Vec::new() } }
                }
                (Err(e), _) => answered(Err(e)),
                (Ok(_), Err(())) => {
                    answered(Err(ApiError::new(413, "body_too_large", format!("the body exceeds {MAX_BODY} bytes"))))
                }
            }
        }
        (_, "/v1/reports") => answered(Err(ApiError::new(405, "method_not_allowed", "use POST".into()))),
        (_, p) if p.starts_with("/v1/estimates/") => {
            answered(Err(ApiError::new(405, "method_not_allowed", "use GET or POST".into())))
        }
        (_, p) if p.starts_with("/v1/mechanisms/") => {
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
    body: &[u8],
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
    if let Parsed::Open(doc) = &published.doc {
        let q = open_query(query, body, doc.max_bytes()).map_err(|e| ApiError::bad_request(e.code(), e.to_string()))?;
        let counts = store.counts(published.version).map_err(ApiError::storage)?;
        let answer = answer_open(doc, &counts, q, &published.sha256).map_err(ApiError::from_library)?;
        return Ok((200, answer));
    }
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
            Parsed::Open(_) => return Err(Blame::Document(open_needs_a_query())),
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
            Parsed::Open(_) => return Err(Blame::Document(open_needs_a_query())),
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

/// The refusal of an open-domain document's estimate without a query.
fn open_needs_a_query() -> Error {
    Error::invalid(
        "candidates",
        "an open-domain document is estimated for a list of candidates, or (heavy hitters) for its top K",
    )
}

/// What an open-domain estimate is asked for.
#[derive(Debug, PartialEq)]
pub enum OpenQuery {
    Candidates(Vec<String>),
    HeavyHitters { top: usize },
}

/// The POST body of an open-domain estimate.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenBody {
    #[serde(default)]
    candidates: Option<Vec<String>>,
    #[serde(default)]
    heavy_hitters: bool,
    #[serde(default)]
    top: Option<u64>,
}

/// Heavy hitters asked for without `top`.
const DEFAULT_TOP: usize = 10;

/// Reads an open-domain estimate's query: `candidate=V` (repeated, percent-encoded) or
/// `heavy_hitters[&top=K]` in the query, or the same as a JSON body. Every candidate is
/// checked as a value of at most `max_bytes` (`invalid_argument`, never echoing it).
pub fn open_query(query: &str, body: &[u8], max_bytes: usize) -> Result<OpenQuery, Error> {
    let invalid = |name: &str, reason: &str| Error::invalid(name, reason);
    let (mut candidates, mut heavy, mut top) = (Vec::new(), false, None);
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "candidate" => candidates.push(
                crate::serve::percent_decode(v).ok_or_else(|| invalid("candidate", "not percent-encoded UTF-8"))?,
            ),
            "heavy_hitters" => heavy = true,
            "top" => top = Some(open_estimate::parse_top(v)?),
            _ => {}
        }
    }
    if !body.is_empty() {
        let b: OpenBody = serde_json::from_slice(body).map_err(|_| {
            invalid("body", "expected {\"candidates\": [...]} or {\"heavy_hitters\": true, \"top\": K}")
        })?;
        candidates.extend(b.candidates.unwrap_or_default());
        heavy |= b.heavy_hitters;
        if let Some(t) = b.top {
            top = Some(open_estimate::parse_top(&t.to_string())?);
        }
    }
    if heavy {
        if !candidates.is_empty() {
            return Err(invalid("candidates", "give candidates or heavy_hitters, not both"));
        }
        return Ok(OpenQuery::HeavyHitters { top: top.unwrap_or(DEFAULT_TOP) });
    }
    if candidates.is_empty() {
        return Err(open_needs_a_query());
    }
    if candidates.len() > open_estimate::MAX_CANDIDATES {
        return Err(invalid("candidates", "too many in one request"));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, c) in candidates.iter().enumerate() {
        privlift_design::open::check_value(c, max_bytes)
            .map_err(|e| Error::invalid(format!("candidates[{i}]"), e.to_string()))?;
        if !seen.insert(c.as_str()) {
            return Err(Error::invalid(format!("candidates[{i}]"), "a repeated candidate"));
        }
    }
    Ok(OpenQuery::Candidates(candidates))
}

/// The JSON answer of an open-domain estimate.
fn answer_open(doc: &OpenDocument, counts: &[(String, u64)], q: OpenQuery, sha256: &str) -> Result<String, Error> {
    let json = |r: Result<String, serde_json::Error>| r.map_err(|e| Error::Json { message: e.to_string() });
    match q {
        OpenQuery::Candidates(c) => {
            let mut f = open_estimate::candidate_frequencies(doc, counts, c)?;
            f.sha256 = Some(sha256.into());
            json(serde_json::to_string(&f))
        }
        OpenQuery::HeavyHitters { top } => {
            let mut h = open_estimate::top_values(doc, counts, top)?;
            h.sha256 = Some(sha256.into());
            json(serde_json::to_string(&h))
        }
    }
}
