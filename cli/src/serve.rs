//! `privlift serve`: a tiny static HTTP/1.1 file server for the browser demo and tests.
//!
//! GET and HEAD only, one thread per connection, one response per connection
//! (`Connection: close`), a request head bounded in size and in time (a deadline for the
//! whole head, as for the drain after the answer), and no path that leaves DIR: `..`
//! segments (also percent-encoded) are refused with 403. Symbolic links inside DIR are
//! followed, as they are by most development servers.
//!
//! Caching: every file has a strong `ETag` (its SHA-256) and `If-None-Match` is answered
//! with 304. Names with a content hash ([`is_hashed_name`]) are `immutable` for a year,
//! other files `no-cache` (revalidated on each use), errors and redirects `no-store`.
//!
//! Compression: text, JSON, SVG and wasm bodies of at least [`MIN_COMPRESS`] bytes are
//! sent with brotli or gzip when `Accept-Encoding` allows it ([`negotiate`]), with their
//! own ETag (suffix `-br`, `-gz`) and `Vary: Accept-Encoding`. Compressed bodies are kept
//! in memory ([`Cache`]), so a file is compressed once per content and coding.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use brotli::enc::BrotliEncoderParams;
use flate2::write::GzEncoder;
use flate2::Compression;
use sha2::{Digest, Sha256};

use crate::args;
use crate::CliError;

/// Largest request head (request line and headers) read before answering 431.
const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once; further ones are closed without an answer.
const MAX_CONNECTIONS: usize = 128;
/// The whole request head must arrive within this of the connection's opening (a deadline,
/// not a timeout per read: a head dribbled a line at a time is cut off too), else 408.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long in all, and how much, unread input is drained after a response.
const LINGER: Duration = Duration::from_secs(2);
const MAX_LINGER_BYTES: u64 = 256 * 1024;
/// Smaller bodies are sent as they are: compressing them saves next to nothing.
const MIN_COMPRESS: usize = 1024;
/// Largest file read into memory for its ETag and compression; larger ones are streamed
/// as they are, without either.
const MAX_BUFFERED: u64 = 64 * 1024 * 1024;
/// Total size of the compressed bodies kept by [`Cache`].
const MAX_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Brotli quality 9: on the 350 kB core wasm, 10× faster than 11 for 10% more bytes.
const BROTLI_QUALITY: i32 = 9;
const BROTLI_WINDOW_BITS: i32 = 22;
const GZIP_LEVEL: u32 = 9;
/// `Cache-Control` of a file whose name carries a content hash.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

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
            io::Error::new(io::ErrorKind::InvalidInput, "not a directory"),
        ));
    }
    let local = listener.local_addr().map_err(|e| CliError::io("cannot read the bound address", e))?;
    crate::print_stdout(&format!("privlift: serving {dir} at http://{local}/\n"))?;

    let site = Arc::new(Site { root: PathBuf::from(dir), cache: Mutex::default(), hashes: Mutex::default() });
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        // A failed accept (e.g. out of file descriptors) concerns one client only.
        let Ok(stream) = stream else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            continue; // dropping closes it
        }
        let (site, guard) = (Arc::clone(&site), Arc::clone(&active));
        let spawned = std::thread::Builder::new().name("privlift-conn".into()).spawn(move || {
            handle(stream, &site);
            guard.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
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

/// An HTTP status with its reason phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16, pub &'static str);

const OK: Status = Status(200, "OK");
const NOT_MODIFIED: Status = Status(304, "Not Modified");
const BAD_REQUEST: Status = Status(400, "Bad Request");
const FORBIDDEN: Status = Status(403, "Forbidden");
const NOT_FOUND: Status = Status(404, "Not Found");
const METHOD_NOT_ALLOWED: Status = Status(405, "Method Not Allowed");
const REQUEST_TIMEOUT: Status = Status(408, "Request Timeout");
const HEAD_TOO_LARGE: Status = Status(431, "Request Header Fields Too Large");
const VERSION_NOT_SUPPORTED: Status = Status(505, "HTTP Version Not Supported");

/// What every connection shares: the served directory, the compressed bodies, and the
/// content hash of each file as of its length and modification time.
struct Site {
    root: PathBuf,
    cache: Mutex<Cache>,
    hashes: Mutex<HashMap<PathBuf, Known>>,
}

/// A file's content hash, valid while its length, modification time, change time and
/// inode are unchanged. A request for a compressed body already cached is then answered
/// without reading (and hashing) the file again: 40–60 ms saved per request of a 23 MB
/// document.
///
/// Two rewrites defeat a key of length and modification time alone: one within the same
/// tick of a coarse clock (1 s on some filesystems, 2 s on FAT), and one whose tool sets
/// the old modification time back (`cp -p`, `rsync -t`, `tar x`). So the key also holds the
/// change time and the inode (Unix), which no tool sets back, and a hash is trusted only
/// when it was taken at least [`SETTLED`] after every time in its key ("racy" entries are
/// hashed again on each request, as git treats its index).
#[derive(Clone)]
struct Known {
    stamp: Stamp,
    hash: String,
}

/// How long after a file's last change its hash is trusted (two ticks of the coarsest clock).
const SETTLED: Duration = Duration::from_secs(3);

/// What identifies a file's content without reading it.
#[derive(Clone, PartialEq)]
struct Stamp {
    len: u64,
    modified: std::time::SystemTime,
    /// Change time (seconds, nanoseconds) and inode; zero off Unix.
    changed: (i64, i64),
    inode: u64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        #[cfg(unix)]
        let (changed, inode) = {
            use std::os::unix::fs::MetadataExt;
            ((meta.ctime(), meta.ctime_nsec()), meta.ino())
        };
        #[cfg(not(unix))]
        let (changed, inode) = ((0, 0), 0);
        Some(Stamp { len: meta.len(), modified: meta.modified().ok()?, changed, inode })
    }

    /// Whether `now` is at least [`SETTLED`] after the modification and change times.
    fn settled(&self, now: std::time::SystemTime) -> bool {
        let changed = std::time::UNIX_EPOCH
            + Duration::new(self.changed.0.max(0) as u64, self.changed.1.clamp(0, 999_999_999) as u32);
        [self.modified, changed].iter().all(|t| now.duration_since(*t).is_ok_and(|d| d >= SETTLED))
    }
}

impl Site {
    /// `body` (the file at `path`, of content hash `hash`) compressed with `enc`: from the
    /// cache, else compressed now and cached. `None` if compression failed.
    fn encoded(&self, path: &Path, hash: &str, enc: Encoding, body: &[u8]) -> Option<Arc<Vec<u8>>> {
        let hit = self.cache().get(path, hash, enc);
        if hit.is_some() {
            return hit;
        }
        // Compressed outside the lock: other connections are not held up meanwhile.
        let out = Arc::new(compress(enc, body).ok()?);
        self.cache().insert(path, hash, enc, Arc::clone(&out));
        Some(out)
    }

    /// The cache, also after a panic elsewhere (no code path leaves it inconsistent).
    fn cache(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The hash of `path` recorded for exactly this [`Stamp`].
    fn known_hash(&self, path: &Path, meta: &std::fs::Metadata) -> Option<String> {
        let stamp = Stamp::of(meta)?;
        let hashes = self.hashes.lock().unwrap_or_else(PoisonError::into_inner);
        hashes.get(path).filter(|k| k.stamp == stamp).map(|k| k.hash.clone())
    }

    /// Records the hash of the file `meta` describes, if it had settled when `meta` was
    /// taken (see [`Known`]); else forgets any hash of `path`.
    fn record_hash(&self, path: &Path, meta: &std::fs::Metadata, hash: &str) {
        let mut hashes = self.hashes.lock().unwrap_or_else(PoisonError::into_inner);
        match Stamp::of(meta).filter(|s| s.settled(std::time::SystemTime::now())) {
            Some(stamp) => hashes.insert(path.to_path_buf(), Known { stamp, hash: hash.to_string() }),
            None => hashes.remove(path),
        };
    }
}

/// Compressed bodies, at most [`MAX_CACHE_BYTES`] in all, the oldest dropped first. One
/// entry per (path, coding), valid only for the content hash it was made from: a file
/// that changed is compressed again and its new body replaces the old one.
#[derive(Default)]
struct Cache {
    /// (path, coding) → (content hash, compressed body).
    entries: HashMap<CacheKey, (String, Arc<Vec<u8>>)>,
    /// The keys of `entries`, oldest first.
    order: VecDeque<CacheKey>,
    bytes: usize,
}

type CacheKey = (PathBuf, Encoding);

impl Cache {
    fn get(&self, path: &Path, hash: &str, enc: Encoding) -> Option<Arc<Vec<u8>>> {
        let (h, body) = self.entries.get(&(path.to_path_buf(), enc))?;
        (h == hash).then(|| Arc::clone(body))
    }

    fn insert(&mut self, path: &Path, hash: &str, enc: Encoding, body: Arc<Vec<u8>>) {
        if body.len() > MAX_CACHE_BYTES {
            return;
        }
        let key = (path.to_path_buf(), enc);
        self.bytes += body.len();
        match self.entries.insert(key.clone(), (hash.to_string(), body)) {
            Some((_, old)) => self.bytes -= old.len(),
            None => self.order.push_back(key),
        }
        while self.bytes > MAX_CACHE_BYTES {
            let Some(oldest) = self.order.pop_front() else { break };
            if let Some((_, old)) = self.entries.remove(&oldest) {
                self.bytes -= old.len();
            }
        }
    }
}

fn handle(mut stream: TcpStream, site: &Site) {
    // Errors here concern one client that went away or misbehaved; nothing to report.
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = respond(&mut stream, site);
    let _ = stream.flush();
    // Lingering close: send FIN, then drain what the client still sends (a body, an
    // oversized head) for a moment, so closing does not reset the connection before
    // the client has read the response.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut drained = 0u64;
    let mut chunk = [0u8; 4096];
    let mut linger = Deadline::after(LINGER);
    while drained < MAX_LINGER_BYTES {
        match linger.read(&mut stream, &mut chunk) {
            Ok(n) if n > 0 => drained += n as u64,
            _ => break, // the client closed, an error, or the deadline passed
        }
    }
}

/// A time by which reads must be done, whatever the number of reads: each read waits at
/// most for what is left of it.
struct Deadline(std::time::Instant);

impl Deadline {
    fn after(d: Duration) -> Self {
        Deadline(std::time::Instant::now() + d)
    }

    /// One read, waiting at most until the deadline (`TimedOut` once it has passed; a
    /// read interrupted by a signal is tried again).
    fn read(&mut self, stream: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let left = self.0.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            stream.set_read_timeout(Some(left))?;
            match stream.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }
}

fn respond(stream: &mut TcpStream, site: &Site) -> io::Result<()> {
    let head = match read_head(stream, Deadline::after(HEAD_TIMEOUT))? {
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
    let mut path = site.root.join(&rel);
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
    let ctype = content_type(&path);
    let cache_control = if is_hashed_name(&path) { IMMUTABLE } else { "no-cache" };
    if meta.len() > MAX_BUFFERED {
        // Too large to hold in memory: streamed as it is, without ETag or compression.
        let fields =
            format!("Content-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: {cache_control}\r\n", meta.len());
        write_head(stream, OK, &fields)?;
        if !head_only {
            io::copy(&mut file.take(meta.len()), stream)?;
        }
        return Ok(());
    }
    let compressible = compressible(ctype);
    let coding = if compressible && meta.len() >= MIN_COMPRESS as u64 { negotiate(&head) } else { None };
    // A compressed body cached for the file as it is now: sent without reading the file.
    let cached = site.known_hash(&path, &meta).and_then(|hash| {
        let body = site.cache().get(&path, &hash, coding?)?;
        ((body.len() as u64) < meta.len()).then_some((hash, body))
    });
    let mut body = Vec::new();
    let (hash, encoded) = match cached {
        Some((hash, bytes)) => (hash, coding.map(|enc| (enc, bytes))),
        None => {
            body.reserve(meta.len() as usize); // at most MAX_BUFFERED
            file.take(meta.len()).read_to_end(&mut body)?;
            let hash = content_hash(&body);
            site.record_hash(&path, &meta, &hash);
            let encoded = coding
                .and_then(|enc| Some((enc, site.encoded(&path, &hash, enc, &body)?)))
                .filter(|(_, bytes)| bytes.len() < body.len());
            (hash, encoded)
        }
    };
    let (content, etag) = match &encoded {
        Some((enc, bytes)) => (&bytes[..], format!("\"{hash}{}\"", enc.etag_suffix())),
        None => (&body[..], format!("\"{hash}\"")),
    };

    let mut fields = format!("ETag: {etag}\r\nCache-Control: {cache_control}\r\n");
    if compressible {
        fields.push_str("Vary: Accept-Encoding\r\n");
    }
    if none_match(header_items(&head, "if-none-match"), &etag) {
        // A 304 has the 200's validators, no content.
        return write_head(stream, NOT_MODIFIED, &fields);
    }
    if let Some((enc, _)) = &encoded {
        fields.push_str(&format!("Content-Encoding: {}\r\n", enc.token()));
    }
    write_head(stream, OK, &format!("Content-Type: {ctype}\r\nContent-Length: {}\r\n{fields}", content.len()))?;
    if !head_only {
        stream.write_all(content)?;
    }
    Ok(())
}

/// Reads up to the blank line ending the request head; `Err(status)` when it is too
/// large, not text, or begun but not whole by `deadline` (408). Other I/O errors (resets,
/// nothing at all by the deadline) end the connection silently.
fn read_head(stream: &mut TcpStream, mut deadline: Deadline) -> io::Result<Result<String, Status>> {
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
        let n = match deadline.read(stream, &mut chunk) {
            Ok(n) => n,
            // A part of a head is answered; a connection that sent nothing is just closed.
            Err(e) if !buf.is_empty() && matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
                return Ok(Err(REQUEST_TIMEOUT));
            }
            Err(e) => return Err(e),
        };
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

/// The comma-separated items of every `name` field of a request head, trimmed, in order.
fn header_items<'a>(head: &'a str, name: &'static str) -> impl Iterator<Item = &'a str> {
    head.lines()
        .skip(1)
        .filter_map(move |line| line.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v))
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// Whether the items of a request's `If-None-Match` name `etag` (a strong validator, quoted)
/// or are `*`: the weak comparison of RFC 9110, 13.1.2, which `If-None-Match` uses, so
/// `W/"x"` names `"x"` too. The rule of `serve` and of the collector.
pub fn none_match<'a>(items: impl IntoIterator<Item = &'a str>, etag: &str) -> bool {
    items.into_iter().any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// A content coding this server applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Br,
    Gzip,
}

impl Encoding {
    /// Its `Content-Encoding` token.
    fn token(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Gzip => "gzip",
        }
    }

    /// What its ETag adds to the file's.
    fn etag_suffix(self) -> &'static str {
        match self {
            Encoding::Br => "-br",
            Encoding::Gzip => "-gz",
        }
    }
}

/// The coding to send under the request's `Accept-Encoding` (RFC 9110, 12.5.3); `None`
/// for identity. A coding's q-value is its own item's, else that of `*`, else 0 (not
/// acceptable), and so is identity's, which is also the fallback when nothing else is
/// acceptable. The highest q > 0 wins, brotli before gzip before identity on a tie.
pub fn negotiate(head: &str) -> Option<Encoding> {
    let (mut br, mut gzip, mut identity, mut star) = (None, None, None, None);
    for item in header_items(head, "accept-encoding") {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim();
        let Some(q) = qvalue(parts) else { continue }; // a malformed item counts for nothing
        match coding.to_ascii_lowercase().as_str() {
            "br" => br = Some(q),
            "gzip" | "x-gzip" => gzip = Some(q),
            "identity" => identity = Some(q),
            "*" => star = Some(q),
            _ => {}
        }
    }
    let (br, gzip) = (br.or(star).unwrap_or(0.0), gzip.or(star).unwrap_or(0.0));
    let identity = identity.or(star).unwrap_or(0.0);
    if br > 0.0 && br >= gzip && br >= identity {
        Some(Encoding::Br)
    } else if gzip > 0.0 && gzip >= identity {
        Some(Encoding::Gzip)
    } else {
        None
    }
}

/// The q-value among an `Accept-Encoding` item's parameters: 1 without one, `None` when
/// it is not a number in [0, 1]. Other parameters are ignored.
fn qvalue<'a>(params: impl Iterator<Item = &'a str>) -> Option<f32> {
    let mut q = 1.0;
    for param in params {
        if let Some((key, value)) = param.split_once('=') {
            if key.trim().eq_ignore_ascii_case("q") {
                q = value.trim().parse().ok().filter(|q| (0.0..=1.0).contains(q))?;
            }
        }
    }
    Some(q)
}

/// Whether bodies of this Content-Type are worth compressing: text, JSON, SVG and wasm.
fn compressible(ctype: &str) -> bool {
    ctype.starts_with("text/") || matches!(ctype, "application/json" | "application/wasm" | "image/svg+xml")
}

fn compress(enc: Encoding, body: &[u8]) -> io::Result<Vec<u8>> {
    match enc {
        Encoding::Br => {
            let params = BrotliEncoderParams {
                quality: BROTLI_QUALITY,
                lgwin: BROTLI_WINDOW_BITS,
                size_hint: body.len(),
                ..BrotliEncoderParams::default()
            };
            let mut out = Vec::new();
            brotli::BrotliCompress(&mut &body[..], &mut out, &params)?;
            Ok(out)
        }
        Encoding::Gzip => {
            let mut gz = GzEncoder::new(Vec::new(), Compression::new(GZIP_LEVEL));
            gz.write_all(body)?;
            gz.finish()
        }
    }
}

/// The strong validator of a file: the first 128 bits of its SHA-256, in hex.
fn content_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a file name carries a content hash, so that its content never changes: a
/// segment of its stem (the name before the last `.`; segments are separated by `.`, `-`
/// or `_`) made of at least 8 lower-case hex digits, among them both digits and letters
/// (`privlift_bg.3f2a9c1e.wasm`, `app-0c5e7d91.js`; not `data-20240101.json`, which
/// may be a date, nor `privlift.wasm`). Only the file name counts, not its directories.
pub fn is_hashed_name(path: &Path) -> bool {
    let (Some(stem), Some(_)) = (path.file_stem().and_then(|s| s.to_str()), path.extension()) else {
        return false;
    };
    stem.split(['.', '-', '_']).any(|seg| {
        seg.len() >= 8
            && seg.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            && seg.bytes().any(|b| b.is_ascii_digit())
            && seg.bytes().any(|b| b.is_ascii_alphabetic())
    })
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

/// Writes the status line, `fields` (header lines, each ending in CRLF) and the fields
/// of every response.
fn write_head(w: &mut impl Write, status: Status, fields: &str) -> io::Result<()> {
    let Status(code, reason) = status;
    let head =
        format!("HTTP/1.1 {code} {reason}\r\n{fields}X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n");
    w.write_all(head.as_bytes())
}

/// A response that no cache keeps (errors, redirects), with `extra` header lines.
fn send(w: &mut impl Write, status: Status, ctype: &str, extra: &str, body: &[u8], head_only: bool) -> io::Result<()> {
    let len = body.len();
    let fields = format!("Content-Type: {ctype}\r\nContent-Length: {len}\r\nCache-Control: no-store\r\n{extra}");
    write_head(w, status, &fields)?;
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

    #[test]
    fn accept_encoding() {
        let neg = |fields: &str| negotiate(&format!("GET / HTTP/1.1\r\n{fields}"));
        use Encoding::{Br, Gzip};
        assert_eq!(neg(""), None);
        assert_eq!(neg("Accept-Encoding: "), None);
        assert_eq!(neg("Accept-Encoding: gzip, deflate, br, zstd"), Some(Br));
        assert_eq!(neg("accept-encoding: GZIP"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: x-gzip"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: gzip\r\nAccept-Encoding: br"), Some(Br)); // fields combine
        assert_eq!(neg("Accept-Encoding: br;q=0.5, gzip"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: br;q=0.5, gzip;q=0.5"), Some(Br));
        assert_eq!(neg("Accept-Encoding: gzip;q=0.5"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: gzip;q=0, br;q=0"), None);
        assert_eq!(neg("Accept-Encoding: br ; Q=0 , gzip ; q=0.001"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: *"), Some(Br));
        assert_eq!(neg("Accept-Encoding: *;q=0"), None);
        assert_eq!(neg("Accept-Encoding: br;q=0, *"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: gzip, *;q=0"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: identity;q=1, gzip;q=0.5"), None);
        assert_eq!(neg("Accept-Encoding: identity;q=0, gzip;q=0.5"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: *;q=0.5, br;q=0.2"), Some(Gzip));
        assert_eq!(neg("Accept-Encoding: deflate, compress"), None);
        for bad in ["br;q=2", "br;q=-1", "br;q=nan", "br;q=", "br;q=1;q=x"] {
            assert_eq!(neg(&format!("Accept-Encoding: {bad}")), None, "{bad}");
        }
        assert_eq!(neg("Accept-Encoding: br;q=x, gzip"), Some(Gzip));
    }

    #[test]
    fn hashed_names() {
        let hashed = |p: &str| is_hashed_name(Path::new(p));
        assert!(hashed("pkg/privlift_bg.3f2a9c1e.wasm"));
        assert!(hashed("app-0c5e7d91aa.js"));
        assert!(hashed("chunk_1234abcd.min.js"));
        assert!(hashed("3f2a9c1e0b.json"));
        assert!(!hashed("pkg/privlift_bg.wasm"));
        assert!(!hashed("data-20240101.json")); // digits only: maybe a date
        assert!(!hashed("deadbeefcafe.css")); // letters only: a word
        assert!(!hashed("app.3f2a9c1.js")); // 7 digits
        assert!(!hashed("app.3F2A9C1E.js")); // upper case
        assert!(!hashed("app.3f2a9c1g.js"));
        assert!(!hashed("3f2a9c1e"));
        assert!(!hashed("x.3f2a9c1e")); // the hash is the extension
        assert!(!hashed("3f2a9c1e/app.js"));
    }

    #[test]
    fn header_lists() {
        let head = "GET / HTTP/1.1\r\nIf-None-Match: \"a\", W/\"b\"\r\nX: 1\r\nif-none-match:\"c\",,\r\n";
        assert_eq!(header_items(head, "if-none-match").collect::<Vec<_>>(), ["\"a\"", "W/\"b\"", "\"c\""]);
        assert_eq!(header_items("GET /if-none-match: x HTTP/1.1", "get /if-none-match").count(), 0);
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

    #[test]
    fn content_hashes() {
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 ...
        assert_eq!(content_hash(b"abc"), "ba7816bf8f01cfea414140de5dae2223");
        assert_ne!(content_hash(b"abd"), content_hash(b"abc"));
    }

    #[test]
    fn cache_is_bounded_and_follows_the_content() {
        let (a, b) = (Path::new("a.json"), Path::new("b.json"));
        let body = |n: usize| Arc::new(vec![0u8; n]);
        let mut c = Cache::default();
        c.insert(a, "h1", Encoding::Br, body(10));
        assert_eq!(c.get(a, "h1", Encoding::Br).map(|b| b.len()), Some(10));
        assert!(c.get(a, "h1", Encoding::Gzip).is_none());
        assert!(c.get(a, "h2", Encoding::Br).is_none()); // the file changed
        c.insert(a, "h2", Encoding::Br, body(20)); // replaces the old body
        assert!(c.get(a, "h1", Encoding::Br).is_none());
        assert_eq!((c.entries.len(), c.order.len(), c.bytes), (1, 1, 20));

        c.insert(b, "h", Encoding::Gzip, body(MAX_CACHE_BYTES - 20));
        assert_eq!(c.bytes, MAX_CACHE_BYTES);
        c.insert(b, "h", Encoding::Br, body(1)); // over the bound: the oldest goes
        assert!(c.get(a, "h2", Encoding::Br).is_none());
        assert!(c.get(b, "h", Encoding::Gzip).is_some() && c.get(b, "h", Encoding::Br).is_some());
        assert_eq!((c.entries.len(), c.order.len(), c.bytes), (2, 2, MAX_CACHE_BYTES - 19));
        c.insert(a, "h", Encoding::Br, body(MAX_CACHE_BYTES + 1)); // never kept
        assert_eq!(c.entries.len(), 2);
    }

    #[test]
    fn a_hash_is_trusted_only_once_its_file_has_settled() {
        let now = std::time::SystemTime::now();
        let stamp = |modified: std::time::SystemTime, changed_secs: i64| Stamp {
            len: 1,
            modified,
            changed: (changed_secs, 0),
            inode: 1,
        };
        let secs = |t: std::time::SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let old = now - Duration::from_secs(60);
        assert!(stamp(old, secs(old)).settled(now));
        // Modified or changed within the last tick of a coarse clock: not yet.
        assert!(!stamp(now - Duration::from_secs(1), secs(old)).settled(now));
        assert!(!stamp(old, secs(now)).settled(now));
        // A time in the future (a clock set back) is never settled.
        assert!(!stamp(now + Duration::from_secs(60), secs(old)).settled(now));
    }

    #[test]
    fn compression_round_trips() {
        let body: Vec<u8> = (0..5000u32).flat_map(|i| format!("{{\"x\": {}}},", i % 97).into_bytes()).collect();
        let br = compress(Encoding::Br, &body).unwrap();
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut out).unwrap();
        assert_eq!(out, body);
        let gz = compress(Encoding::Gzip, &body).unwrap();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).unwrap();
        assert_eq!(out, body);
        assert!(br.len() < body.len() / 10 && gz.len() < body.len() / 10, "{} {}", br.len(), gz.len());
    }
}
