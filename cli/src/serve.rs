//! `privlift serve`: a tiny static HTTP/1.1 file server for the browser demo and tests.
//!
//! GET and HEAD only, one thread per connection, one response per connection
//! (`Connection: close`), `Cache-Control: no-store`, a bounded request head, and no
//! path that leaves DIR: `..` segments (also percent-encoded) are refused with 403.
//! Symbolic links inside DIR are followed, as they are by most development servers.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::args;
use crate::CliError;

/// Largest request head (request line and headers) read before answering 431.
const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once; further ones are closed without an answer.
const MAX_CONNECTIONS: usize = 128;
const READ_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long, and how much, unread input is drained after a response.
const LINGER: Duration = Duration::from_secs(2);
const MAX_LINGER_BYTES: u64 = 256 * 1024;

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("serve", argv, &["dir", "port", "host"], &["public"])?;
    if a.help {
        return crate::help::print("serve");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}` (use `--dir DIR`)")));
    }
    let dir = a.value("dir").unwrap_or("www");
    let host = a.value("host").unwrap_or("127.0.0.1");
    let port: u16 = match a.value("port") {
        None => 8080,
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
            "refusing to serve on the non-loopback host {host:?}; add `--public` to expose DIR to the network"
        )));
    }
    let meta = std::fs::metadata(dir).map_err(|e| CliError::io(format!("cannot serve {dir}"), e))?;
    if !meta.is_dir() {
        return Err(CliError::io(
            format!("cannot serve {dir}"),
            io::Error::new(io::ErrorKind::InvalidInput, "not a directory"),
        ));
    }
    let listener =
        TcpListener::bind(&addrs[..]).map_err(|e| CliError::io(format!("cannot listen on {host}:{port}"), e))?;
    let local = listener.local_addr().map_err(|e| CliError::io("cannot read the bound address", e))?;
    crate::print_stdout(&format!("privlift: serving {dir} at http://{local}/\n"))?;

    let root = Arc::new(PathBuf::from(dir));
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        // A failed accept (e.g. out of file descriptors) concerns one client only.
        let Ok(stream) = stream else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            continue; // dropping closes it
        }
        let (root, guard) = (Arc::clone(&root), Arc::clone(&active));
        let spawned = std::thread::Builder::new().name("privlift-conn".into()).spawn(move || {
            handle(stream, &root);
            guard.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
}

/// An HTTP status with its reason phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16, pub &'static str);

const BAD_REQUEST: Status = Status(400, "Bad Request");
const FORBIDDEN: Status = Status(403, "Forbidden");
const NOT_FOUND: Status = Status(404, "Not Found");
const METHOD_NOT_ALLOWED: Status = Status(405, "Method Not Allowed");
const HEAD_TOO_LARGE: Status = Status(431, "Request Header Fields Too Large");
const VERSION_NOT_SUPPORTED: Status = Status(505, "HTTP Version Not Supported");

fn handle(mut stream: TcpStream, root: &Path) {
    // Errors here concern one client that went away or misbehaved; nothing to report.
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = respond(&mut stream, root);
    let _ = stream.flush();
    // Lingering close: send FIN, then drain what the client still sends (a body, an
    // oversized head) for a moment, so closing does not reset the connection before
    // the client has read the response.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(LINGER));
    let _ = io::copy(&mut (&stream).take(MAX_LINGER_BYTES), &mut io::sink());
}

fn respond(stream: &mut TcpStream, root: &Path) -> io::Result<()> {
    let head = match read_head(stream)? {
        Ok(h) => h,
        Err(status) => return send_error(stream, status, true),
    };
    let Some((method, target)) = parse_request_line(&head) else {
        return send_error(stream, BAD_REQUEST, true);
    };
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return send_error(stream, METHOD_NOT_ALLOWED, true),
    };
    if !head.starts_with(&format!("{method} {target} HTTP/1.")) {
        return send_error(stream, VERSION_NOT_SUPPORTED, head_only);
    }
    let rel = match url_path(target) {
        Ok(p) => p,
        Err(status) => return send_error(stream, status, head_only),
    };
    let mut path = root.join(&rel);
    if path.is_dir() {
        if !target_path(target).ends_with('/') {
            // Leading slashes collapsed: `//host/` would redirect to another site.
            let location = format!("/{}/", target_path(target).trim_start_matches('/'));
            let extra = format!("Location: {location}\r\n");
            return send(stream, Status(301, "Moved Permanently"), "text/plain; charset=utf-8", &extra, b"", head_only);
        }
        path.push("index.html");
    }
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(_) => return send_error(stream, NOT_FOUND, head_only),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return send_error(stream, NOT_FOUND, head_only);
    }
    write_head(stream, Status(200, "OK"), content_type(&path), meta.len(), "")?;
    if !head_only {
        io::copy(&mut file.take(meta.len()), stream)?;
    }
    Ok(())
}

/// Reads up to the blank line ending the request head; `Err(status)` when it is too
/// large or not text. I/O errors (timeouts, resets) end the connection silently.
fn read_head(stream: &mut TcpStream) -> io::Result<Result<String, Status>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = find_head_end(&buf) {
            buf.truncate(end);
            return Ok(String::from_utf8(buf).map_err(|_| BAD_REQUEST));
        }
        if buf.len() >= MAX_HEAD {
            return Ok(Err(HEAD_TOO_LARGE));
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = buf.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `METHOD TARGET HTTP/x.y` → (METHOD, TARGET).
fn parse_request_line(head: &str) -> Option<(&str, &str)> {
    let line = head.lines().next()?;
    let mut parts = line.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || method.is_empty() || !version.starts_with("HTTP/") {
        return None;
    }
    Some((method, target))
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
fn percent_decode(s: &str) -> Option<String> {
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

/// Content-Type by file extension.
pub fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "css" => "text/css",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ts" => "text/plain", // also .d.ts
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn write_head(w: &mut impl Write, status: Status, ctype: &str, len: u64, extra: &str) -> io::Result<()> {
    let Status(code, reason) = status;
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n{extra}\r\n"
    );
    w.write_all(head.as_bytes())
}

fn send(w: &mut impl Write, status: Status, ctype: &str, extra: &str, body: &[u8], head_only: bool) -> io::Result<()> {
    write_head(w, status, ctype, body.len() as u64, extra)?;
    if !head_only {
        w.write_all(body)?;
    }
    Ok(())
}

fn send_error(w: &mut impl Write, status: Status, head_only: bool) -> io::Result<()> {
    let body = format!("{} {}\n", status.0, status.1);
    let extra = if status == METHOD_NOT_ALLOWED { "Allow: GET, HEAD\r\n" } else { "" };
    send(w, status, "text/plain; charset=utf-8", extra, body.as_bytes(), head_only)
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
    fn request_lines() {
        assert_eq!(parse_request_line("GET / HTTP/1.1\r\nHost: x"), Some(("GET", "/")));
        assert_eq!(parse_request_line("GET /"), None);
        assert_eq!(parse_request_line("GET  / HTTP/1.1"), None);
        assert_eq!(parse_request_line("GET / HTTP/1.1 x"), None);
    }

    #[test]
    fn head_end() {
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody"), Some(20));
        assert_eq!(find_head_end(b"GET / HTTP/1.0\n\n"), Some(14));
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn content_types() {
        let ct = |p: &str| content_type(Path::new(p));
        assert_eq!(ct("index.html"), "text/html; charset=utf-8");
        assert_eq!(ct("a.js"), "text/javascript");
        assert_eq!(ct("a.mjs"), "text/javascript");
        assert_eq!(ct("pkg/privlift_bg.wasm"), "application/wasm");
        assert_eq!(ct("a.json"), "application/json");
        assert_eq!(ct("a.css"), "text/css");
        assert_eq!(ct("a.png"), "image/png");
        assert_eq!(ct("a.svg"), "image/svg+xml");
        assert_eq!(ct("privlift.d.ts"), "text/plain");
        assert_eq!(ct("a.ts"), "text/plain");
        assert_eq!(ct("LICENSE"), "application/octet-stream");
    }
}
