//! What `privlift serve` knows of the served directory: where a request leads
//! ([`Site::prepare`], which never leaves DIR, also through a symbolic link), each file's
//! content hash as of its [`Stamp`], and the compressed bodies ([`Cache`]); and the
//! streamed body of a file ([`FileBody`]), read a chunk at a time as the client takes it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use hyper::body::{Bytes, Frame, SizeHint};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, ReadBuf};

use super::encoding::{compress, compressible, Cache, Coded, Encoding, MIN_COMPRESS};
use super::naming::{content_type, is_hashed_name};
use super::status::{Status, FORBIDDEN, NOT_FOUND};

/// Largest file hashed for its ETag; larger ones are sent without one.
const MAX_HASHED: u64 = 64 * 1024 * 1024;
/// Bytes of a file read at a time, for its hash and for the client.
const CHUNK: usize = 64 * 1024;
/// `Cache-Control` of a file whose name carries a content hash.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// How long after a file's last change its hash is trusted (two ticks of the coarsest clock).
const SETTLED: Duration = Duration::from_secs(3);

/// What every connection shares: the served directory, the compressed bodies, and the
/// content hash of each file as of its length and modification time.
pub struct Site {
    /// DIR with its symbolic links resolved: every file served is inside it.
    root: PathBuf,
    cache: Mutex<Cache>,
    hashes: Mutex<HashMap<PathBuf, Known>>,
    /// Held while a body is compressed: one at a time, so that compressing holds one
    /// compressed body (at most [`MAX_COMPRESSED`](super::encoding::MAX_COMPRESSED)) in
    /// memory, however many clients ask at once.
    compressor: Mutex<()>,
}

/// Where a request leads.
pub enum Prepared {
    /// A directory named without its final `/`: to be named with one.
    Redirect,
    /// An error.
    Refused(Status),
    /// A file, and how to send it.
    File(Reply),
}

/// A file's response: its fields, and its body from memory (a compressed body) or from
/// the file.
pub struct Reply {
    pub ctype: &'static str,
    pub cache_control: &'static str,
    /// Whether it has `Vary: Accept-Encoding`.
    pub vary: bool,
    /// The strong ETag, quoted; none for files over [`MAX_HASHED`].
    pub etag: Option<String>,
    pub encoding: Option<Encoding>,
    pub len: u64,
    pub body: Source,
}

pub enum Source {
    Memory(Bytes),
    /// The file, positioned at its start.
    File(File),
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
    /// The site of the directory `root` (an error when it cannot be resolved).
    pub fn new(root: &Path) -> io::Result<Site> {
        Ok(Site {
            root: root.canonicalize()?,
            cache: Mutex::default(),
            hashes: Mutex::default(),
            compressor: Mutex::new(()),
        })
    }

    /// Where the request for `rel` (a path inside DIR; `slash`: the request's path ended
    /// in `/`) leads, given the coding the request prefers. Blocking: file system calls,
    /// and at most one compression at a time (a request that finds the compressor busy
    /// gets the file as it is rather than waiting).
    pub fn prepare(&self, rel: &Path, slash: bool, coding: Option<Encoding>) -> io::Result<Prepared> {
        let mut path = self.root.join(rel);
        if path.is_dir() {
            if !slash {
                return Ok(Prepared::Redirect);
            }
            path.push("index.html");
        }
        // The name asked for gives the type and the caching; the file it resolves to, with
        // symbolic links followed, must be inside DIR.
        let ctype = content_type(&path);
        let cache_control = if is_hashed_name(&path) { IMMUTABLE } else { "no-cache" };
        let Ok(path) = path.canonicalize() else { return Ok(Prepared::Refused(NOT_FOUND)) };
        if !path.starts_with(&self.root) {
            return Ok(Prepared::Refused(FORBIDDEN));
        }
        let Ok(mut file) = File::open(&path) else { return Ok(Prepared::Refused(NOT_FOUND)) };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(Prepared::Refused(NOT_FOUND));
        }
        let vary = compressible(ctype);
        let reply = |etag: Option<String>, encoding: Option<Encoding>, len: u64, body: Source| Reply {
            ctype,
            cache_control,
            vary,
            etag,
            encoding,
            len,
            body,
        };
        let len = meta.len();
        if len > MAX_HASHED {
            return Ok(Prepared::File(reply(None, None, len, Source::File(file))));
        }
        let coding = coding.filter(|_| vary && len >= MIN_COMPRESS);
        let known = self.known_hash(&path, &meta);
        let tag =
            |hash: &str, enc: Option<Encoding>| Some(format!("\"{hash}{}\"", enc.map_or("", |e| e.etag_suffix())));
        if let Some(enc) = coding {
            if let Some((hash, coded)) = self.coded(&path, &meta, &mut file, enc, known.as_deref())? {
                return match coded {
                    Coded::Compressed(body) => {
                        Ok(Prepared::File(reply(tag(&hash, coding), coding, body.len() as u64, Source::Memory(body))))
                    }
                    Coded::AsIs => {
                        file.rewind()?;
                        Ok(Prepared::File(reply(tag(&hash, None), None, len, Source::File(file))))
                    }
                };
            }
        }
        let hash = match known {
            Some(hash) => hash,
            None => {
                let hash = hash_file(&mut file, len)?;
                self.record_hash(&path, &meta, &hash);
                file.rewind()?;
                hash
            }
        };
        Ok(Prepared::File(reply(tag(&hash, None), None, len, Source::File(file))))
    }

    /// The file (`meta`: its metadata; `known`: its trusted hash) in the coding `enc`, with
    /// the content hash it is of: from the cache, else compressed now, read once into the
    /// coder and the hash, so that the body and its ETag are of the same content whatever
    /// writes the file meanwhile. `None` when the compressor is busy: the file is then sent
    /// as it is. Leaves `file` anywhere.
    fn coded(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        file: &mut File,
        enc: Encoding,
        known: Option<&str>,
    ) -> io::Result<Option<(String, Coded)>> {
        if let Some(hash) = known {
            if let Some(coded) = self.cache().get(path, hash, enc) {
                return Ok(Some((hash.to_string(), coded)));
            }
        }
        let Ok(_turn) = self.compressor.try_lock() else { return Ok(None) };
        let len = meta.len();
        if known.is_none() {
            // A hash not yet trusted ([`Known`]): a body cached for this content is found
            // rather than made again.
            let hash = hash_file(file, len)?;
            self.record_hash(path, meta, &hash);
            if let Some(coded) = self.cache().get(path, &hash, enc) {
                return Ok(Some((hash, coded)));
            }
            file.rewind()?;
        }
        let mut reader = Hashing::new(file.take(len));
        let body = compress(enc, &mut reader, len)?;
        let hash = reader.finish()?; // with the rest, when the coder stopped early
        self.record_hash(path, meta, &hash);
        let coded = body.map_or(Coded::AsIs, |b| Coded::Compressed(Bytes::from(b)));
        self.cache().insert(path, &hash, enc, coded.clone());
        Ok(Some((hash, coded)))
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

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    sha: Sha256,
}

impl<R: Read> Hashing<R> {
    fn new(inner: R) -> Self {
        Hashing { inner, sha: Sha256::new() }
    }

    /// Reads the rest, [`CHUNK`] bytes at a time, and gives the strong validator (the first
    /// 128 bits of the SHA-256, in hex) of everything read.
    fn finish(mut self) -> io::Result<String> {
        let mut chunk = vec![0u8; CHUNK];
        loop {
            match self.read(&mut chunk) {
                Ok(0) => return Ok(hex(&self.sha.finalize())),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sha.update(&buf[..n]);
        Ok(n)
    }
}

/// The strong validator of a file: the first 128 bits of its SHA-256, in hex (what
/// [`hash_file`] and [`Hashing`] compute as they read).
#[cfg(test)]
fn content_hash(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The strong validator of the first `len` bytes of `file` ([`Hashing::finish`]).
fn hash_file(file: &mut File, len: u64) -> io::Result<String> {
    Hashing::new(file.take(len)).finish()
}

fn hex(digest: &[u8]) -> String {
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The body of a file of `len` bytes, read [`CHUNK`] bytes at a time as hyper writes it
/// to the client: a slow reader holds a chunk, not the file.
pub struct FileBody {
    file: tokio::fs::File,
    left: u64,
}

impl FileBody {
    pub fn new(file: File, len: u64) -> Self {
        FileBody { file: tokio::fs::File::from_std(file), left: len }
    }
}

impl hyper::body::Body for FileBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let mut chunk = vec![0u8; self.left.min(CHUNK as u64) as usize];
        let mut buf = ReadBuf::new(&mut chunk);
        ready!(Pin::new(&mut self.file).poll_read(cx, &mut buf))?;
        let n = buf.filled().len();
        if n == 0 {
            // The file shrank while it was sent: the response cannot be completed.
            return Poll::Ready(Some(Err(io::ErrorKind::UnexpectedEof.into())));
        }
        chunk.truncate(n);
        self.left -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hashes() {
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 ...
        assert_eq!(content_hash(b"abc"), "ba7816bf8f01cfea414140de5dae2223");
        assert_ne!(content_hash(b"abd"), content_hash(b"abc"));
        let path = std::env::temp_dir().join(format!("privlift-hash-{}", std::process::id()));
        let bytes: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let hashed = hash_file(&mut File::open(&path).unwrap(), bytes.len() as u64).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(hashed, content_hash(&bytes));
        let mut passing = Hashing::new(&bytes[..]);
        let mut small = [0u8; 1000]; // reads of any size, then the rest, add up to the same hash
        assert_eq!(passing.read(&mut small).unwrap(), 1000);
        assert_eq!(passing.finish().unwrap(), hashed);
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
}
