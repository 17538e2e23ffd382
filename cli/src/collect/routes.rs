//! The collector's routes: a request, once read whole, answered at once when it needs no
//! database (a document, a preflight, a refusal), else [`Routed`] work for a worker
//! thread, which stores a batch ([`super::wire`]) or answers an estimate
//! ([`super::estimates`]).

use std::sync::Arc;

use privlift::error::Quoted;
use privlift::Error;

use super::catalogue::{Catalogue, Parsed};
use super::estimates::{answer_open, estimate_version, open_query};
use super::failure::ApiError;
use super::message::{HttpRequest, HttpResponse, Method as HttpMethod};
use super::store::Store;
use super::wire;
use crate::estimation::Blame;

/// Largest request body read (a batch of 10,000 reports is about 1.5 MB).
pub const MAX_BODY: usize = 4 * 1024 * 1024;
/// The `Retry-After` of a 503 `storage`, in seconds: about when a lost database connection
/// is tried again.
const STORAGE_RETRY_AFTER_SECS: u32 = 1;

fn json_response(status: u16, body: String) -> HttpResponse {
    HttpResponse::new(status, body.into_bytes())
        .header("Content-Type", "application/json")
        .header("Cache-Control", "no-store")
}

pub fn error_response(e: &ApiError) -> HttpResponse {
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
