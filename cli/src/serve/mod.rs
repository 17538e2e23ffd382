//! `privlift serve`: a small static HTTP/1.1 file server for the browser demo and tests,
//! on the collector's connection handling ([`crate::http`]: hyper on tokio, a task per
//! connection, kept alive, a request head bounded in size and in time, a lingering close).
//!
//! GET and HEAD only; no path leaves DIR: `..` segments (also percent-encoded) are refused
//! with 403, and so is a symbolic link that leads out of DIR (links inside DIR are
//! followed). A request head begun but not whole within 10 s is answered 408.
//!
//! Files are streamed a chunk at a time ([`site::FileBody`]), so a slow reader holds a
//! chunk, not the file. File system work and compression run on tokio's blocking threads.
//!
//! Caching: every file of at most 64 MiB has a strong `ETag` (its SHA-256) and
//! `If-None-Match` is answered with 304. Names with a content hash ([`naming::is_hashed_name`])
//! are `immutable` for a year, other files `no-cache` (revalidated on each use), errors and
//! redirects `no-store`.
//!
//! Compression: text, JSON, SVG and wasm bodies of 1 KiB to 64 MiB are sent with brotli
//! or gzip when `Accept-Encoding` allows it ([`encoding::negotiate`]), with their own ETag
//! (suffix `-br`, `-gz`) and `Vary: Accept-Encoding`. Compressed bodies are kept in memory
//! ([`encoding::Cache`], which any of them fits), so a file is compressed once per content
//! and coding, read a chunk at a time; one compression runs at a time, and a request that
//! finds it busy gets the file as it is. A body whose compression would not shrink it or
//! would pass half the cache is sent as it is, and so are larger files.

mod encoding;
mod naming;
mod site;
mod status;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Request, Response};

use crate::args;
use crate::error::CliError;
use crate::http::{full, Body, Limits};
use site::{FileBody, Prepared, Site, Source};
use status::{Status, BAD_REQUEST, FORBIDDEN, INTERNAL_ERROR, METHOD_NOT_ALLOWED};

/// The server's connections: a slow head is answered 408; after the last answer the
/// connection is drained for at most 2 s and 256 KiB.
const LIMITS: Limits = Limits {
    slow_head: Some(
        b"HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 20\r\n\
Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n408 Request Timeout\n",
    ),
    linger: Duration::from_secs(2),
    linger_bytes: 256 * 1024,
};

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("serve", argv, &["dir", "port", "host"], &["public"])?;
    if a.help {
        return crate::help::print("serve");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}` (use `--dir DIR`)")));
    }
    let dir = a.value("dir").unwrap_or("www");
    // Usage errors (the host, the port) before the directory's I/O errors.
    let listener = bind(&a, 8080, "DIR")?;
    let meta = std::fs::metadata(dir).map_err(|e| CliError::io(format!("cannot serve {dir}"), e))?;
    if !meta.is_dir() {
        return Err(CliError::io(
            format!("cannot serve {dir}"),
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a directory"),
        ));
    }
    let site = Arc::new(Site::new(Path::new(dir)).map_err(|e| CliError::io(format!("cannot serve {dir}"), e))?);
    let local = listener.local_addr().map_err(|e| CliError::io("cannot read the bound address", e))?;
    crate::out::print_stdout(&format!("privlift: serving {dir} at http://{local}/\n"))?;
    crate::http::serve(listener, LIMITS, move |r| respond(r, Arc::clone(&site)))
}

/// The listening socket of `--host H` (default loopback) and `--port P`: a host that is
/// not loopback needs `--public` (`what` names what it would expose).
pub fn bind(a: &args::Args, default_port: u16, what: &str) -> Result<TcpListener, CliError> {
    let host = a.value("host").unwrap_or("127.0.0.1");
    let port: u16 = match a.value("port") {
        None => default_port,
        Some(p) => {
            p.parse().map_err(|_| CliError::usage(format!("`--port` must be a number from 0 to 65535, got {p:?}")))?
        }
    };
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| CliError::usage(format!("cannot resolve `--host` {host:?}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(CliError::usage(format!("`--host` {host:?} resolves to no address")));
    }
    if !a.switch("public") && addrs.iter().any(|s| !s.ip().is_loopback()) {
        return Err(CliError::usage(format!(
            "refusing to serve on the non-loopback host {host:?}; add `--public` to expose {what} to the network"
        )));
    }
    TcpListener::bind(&addrs[..]).map_err(|e| CliError::io(format!("cannot listen on {host}:{port}"), e))
}

/// Answers one request.
async fn respond(request: Request<Incoming>, site: Arc<Site>) -> Response<Body> {
    let head_only = match *request.method() {
        hyper::Method::GET => false,
        hyper::Method::HEAD => true,
        _ => return error(METHOD_NOT_ALLOWED, false),
    };
    let uri = request.uri();
    // Origin form only (`/path?query`): an absolute URL names another server's path.
    let target = match (uri.scheme(), uri.path_and_query()) {
        (None, Some(target)) => target.as_str(),
        _ => return error(BAD_REQUEST, head_only),
    };
    let rel = match url_path(target) {
        Ok(p) => p,
        Err(status) => return error(status, head_only),
    };
    let path = target_path(target).to_string();
    let headers = request.headers();
    let coding = encoding::negotiate(header_items(headers, header::ACCEPT_ENCODING));
    let if_none_match: Vec<String> = header_items(headers, header::IF_NONE_MATCH).map(str::to_string).collect();
    let slash = path.ends_with('/');
    let prepared = tokio::task::spawn_blocking(move || site.prepare(&rel, slash, coding)).await;
    let reply = match prepared {
        Ok(Ok(Prepared::File(reply))) => reply,
        Ok(Ok(Prepared::Redirect)) => {
            // Leading slashes collapsed: `//host/` would redirect to another site.
            let location = format!("/{}/", path.trim_start_matches('/'));
            return with(plain(Status(301, "Moved Permanently"), Bytes::new(), head_only), header::LOCATION, &location);
        }
        Ok(Ok(Prepared::Refused(status))) => return error(status, head_only),
        // An I/O error reading a file that was there, or a failed task: the server's fault.
        Ok(Err(_)) | Err(_) => return error(INTERNAL_ERROR, head_only),
    };
    let mut r = Response::new(full(Bytes::new()));
    if let Some(etag) = &reply.etag {
        r = with(r, header::ETAG, etag);
    }
    r = with(r, header::CACHE_CONTROL, reply.cache_control);
    if reply.vary {
        r = with(r, header::VARY, "Accept-Encoding");
    }
    r = with(r, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if reply.etag.as_deref().is_some_and(|etag| none_match(if_none_match.iter().map(String::as_str), etag)) {
        // A 304 has the 200's validators, no content.
        *r.status_mut() = hyper::StatusCode::NOT_MODIFIED;
        return r;
    }
    r = with(r, header::CONTENT_TYPE, reply.ctype);
    r = with(r, header::CONTENT_LENGTH, &reply.len.to_string());
    if let Some(enc) = reply.encoding {
        r = with(r, header::CONTENT_ENCODING, enc.token());
    }
    if !head_only {
        *r.body_mut() = match reply.body {
            Source::Memory(bytes) => full(bytes),
            Source::File(file) => FileBody::new(file, reply.len).boxed_unsync(),
        };
    }
    r
}

/// `r` with the field `name: value` (a value that is not a valid field is left out).
fn with(mut r: Response<Body>, name: HeaderName, value: &str) -> Response<Body> {
    if let Ok(v) = HeaderValue::from_str(value) {
        r.headers_mut().append(name, v);
    }
    r
}

/// A response that no cache keeps (errors, redirects).
fn plain(status: Status, body: Bytes, head_only: bool) -> Response<Body> {
    let len = body.len().to_string();
    let mut r = Response::new(if head_only { full(Bytes::new()) } else { full(body) });
    *r.status_mut() = hyper::StatusCode::from_u16(status.0).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let r = with(r, header::CONTENT_TYPE, "text/plain; charset=utf-8");
    let r = with(r, header::CONTENT_LENGTH, &len);
    let r = with(r, header::CACHE_CONTROL, "no-store");
    with(r, header::X_CONTENT_TYPE_OPTIONS, "nosniff")
}

fn error(status: Status, head_only: bool) -> Response<Body> {
    let r = plain(status, Bytes::from(format!("{} {}\n", status.0, status.1)), head_only);
    if status == METHOD_NOT_ALLOWED {
        return with(r, header::ALLOW, "GET, HEAD");
    }
    r
}

/// The comma-separated items of every `name` field, trimmed, in order (a field that is
/// not text counts for nothing).
fn header_items(headers: &hyper::HeaderMap, name: HeaderName) -> impl Iterator<Item = &str> {
    headers
        .get_all(name)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// The path part of a request target (no query, no fragment).
fn target_path(target: &str) -> &str {
    target.split(['?', '#']).next().unwrap_or("")
}

/// Maps a request target to a path relative to the served directory.
/// 400 for a malformed target, 403 for one that tries to leave the directory.
pub fn url_path(target: &str) -> Result<PathBuf, Status> {
    let raw = target_path(target);
    if !raw.starts_with('/') {
        return Err(BAD_REQUEST);
    }
    let decoded = percent_decode(raw).ok_or(BAD_REQUEST)?;
    let mut rel = PathBuf::new();
    for seg in decoded.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err(FORBIDDEN),
            s if s.contains(['\\', '\0', ':']) => return Err(FORBIDDEN),
            s => rel.push(s),
        }
    }
    Ok(rel)
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether the items of a request's `If-None-Match` name `etag` (a strong validator, quoted)
/// or are `*`: the weak comparison of RFC 9110, 13.1.2, which `If-None-Match` uses, so
/// `W/"x"` names `"x"` too. The rule of `serve` and of the collector.
pub fn none_match<'a>(items: impl IntoIterator<Item = &'a str>, etag: &str) -> bool {
    items.into_iter().any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        assert_eq!(url_path("/"), Ok(PathBuf::new()));
        assert_eq!(url_path("/a/b.js?x=1#f"), Ok(PathBuf::from("a/b.js")));
        assert_eq!(url_path("/a%20b.txt"), Ok(PathBuf::from("a b.txt")));
        assert_eq!(url_path("/./a//b"), Ok(PathBuf::from("a/b")));
        assert_eq!(url_path("/../etc/passwd"), Err(FORBIDDEN));
        assert_eq!(url_path("/a/%2e%2e/%2E%2E/x"), Err(FORBIDDEN));
        assert_eq!(url_path("/a/..%2f..%2fx"), Err(FORBIDDEN));
        assert_eq!(url_path("/a%5c..%5cx"), Err(FORBIDDEN));
        assert_eq!(url_path("/C:/x"), Err(FORBIDDEN));
        assert_eq!(url_path("/%00"), Err(FORBIDDEN));
        assert_eq!(url_path("/%zz"), Err(BAD_REQUEST));
        assert_eq!(url_path("/%2"), Err(BAD_REQUEST));
        assert_eq!(url_path("/%ff"), Err(BAD_REQUEST));
        assert_eq!(url_path("http://host/x"), Err(BAD_REQUEST));
        assert_eq!(url_path("*"), Err(BAD_REQUEST));
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let etag = "\"ab\"";
        assert!(none_match(["\"ab\""], etag));
        assert!(none_match(["W/\"ab\""], etag));
        assert!(none_match(["\"x\"", "W/\"ab\""], etag));
        assert!(none_match(["*"], etag));
        assert!(!none_match(["\"ab-br\"", "W/\"x\"", "ab", "w/\"ab\""], etag));
        assert!(!none_match([], etag));
    }
}
