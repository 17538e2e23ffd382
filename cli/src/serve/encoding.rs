//! Content codings of `privlift serve`: which one a request accepts ([`negotiate`]), which
//! bodies are worth one ([`compressible`]), the compression itself, and the bounded
//! [`Cache`] that keeps each compressed body so that a file is compressed once per content
//! and coding.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use brotli::enc::BrotliEncoderParams;
use flate2::write::GzEncoder;
use flate2::Compression;
use hyper::body::Bytes;

/// Smaller bodies are sent as they are: compressing them saves next to nothing.
pub const MIN_COMPRESS: u64 = 1024;
/// Total size of the compressed bodies kept by [`Cache`].
pub const MAX_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Largest compressed body made: half the cache, so that one always fits it and is made
/// once per content. A compression that grows past it (or past the body itself) stops,
/// and the file is sent as it is, as every later request of that content is
/// ([`Coded::AsIs`]).
pub const MAX_COMPRESSED: usize = MAX_CACHE_BYTES / 2;
/// Bodies longer than this are compressed at the fast settings below.
const LARGE: u64 = 1024 * 1024;
/// Brotli quality 9 up to [`LARGE`]: on the 350 kB core wasm, 10× faster than 11 for 10%
/// more bytes.
const BROTLI_QUALITY: i32 = 9;
/// Brotli quality 5 above [`LARGE`]: on a 23 MB dense-RR document, 18× faster than 9 for
/// as many bytes (1.2 % more on its 16-bit-weight twin), so a first request waits a tenth
/// of a second, not two.
const LARGE_BROTLI_QUALITY: i32 = 5;
const BROTLI_WINDOW_BITS: i32 = 22;
const GZIP_LEVEL: u32 = 9;
const LARGE_GZIP_LEVEL: u32 = 6;

/// A content coding this server applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Br,
    Gzip,
}

impl Encoding {
    /// Its `Content-Encoding` token.
    pub fn token(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Gzip => "gzip",
        }
    }

    /// What its ETag adds to the file's.
    pub fn etag_suffix(self) -> &'static str {
        match self {
            Encoding::Br => "-br",
            Encoding::Gzip => "-gz",
        }
    }
}

/// The coding to send under the request's `Accept-Encoding` items (RFC 9110, 12.5.3);
/// `None` for identity. A coding's q-value is its own item's, else that of `*`, else 0
/// (not acceptable), and so is identity's, which is also the fallback when nothing else
/// is acceptable. The highest q > 0 wins, brotli before gzip before identity on a tie.
pub fn negotiate<'a>(items: impl IntoIterator<Item = &'a str>) -> Option<Encoding> {
    let (mut br, mut gzip, mut identity, mut star) = (None, None, None, None);
    for item in items {
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
pub fn compressible(ctype: &str) -> bool {
    ctype.starts_with("text/") || matches!(ctype, "application/json" | "application/wasm" | "image/svg+xml")
}

/// `body` (`len` bytes, read as the coder takes them) compressed with `enc`; `None` when
/// the compressed body would not be shorter than `len` or would exceed
/// [`MAX_COMPRESSED`]: the coder stops there, so at most that much is ever held.
pub fn compress(enc: Encoding, body: &mut impl Read, len: u64) -> io::Result<Option<Vec<u8>>> {
    let large = len > LARGE;
    let limit = MAX_COMPRESSED.min(usize::try_from(len.saturating_sub(1)).unwrap_or(usize::MAX));
    let mut out = Bounded { out: Vec::new(), limit, over: false };
    let done = match enc {
        Encoding::Br => {
            let params = BrotliEncoderParams {
                quality: if large { LARGE_BROTLI_QUALITY } else { BROTLI_QUALITY },
                lgwin: BROTLI_WINDOW_BITS,
                size_hint: usize::try_from(len).unwrap_or(usize::MAX),
                ..BrotliEncoderParams::default()
            };
            brotli::BrotliCompress(body, &mut out, &params).map(drop)
        }
        Encoding::Gzip => {
            let level = if large { LARGE_GZIP_LEVEL } else { GZIP_LEVEL };
            let mut gz = GzEncoder::new(&mut out, Compression::new(level));
            io::copy(body, &mut gz).and_then(|_| gz.finish()).map(drop)
        }
    };
    match done {
        Ok(()) => Ok(Some(out.out)),
        Err(_) if out.over => Ok(None),
        Err(e) => Err(e),
    }
}

/// A compressed body that refuses to grow past `limit` bytes.
struct Bounded {
    out: Vec<u8>,
    limit: usize,
    /// A write was refused for the limit (not an I/O failure).
    over: bool,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.out.len() + buf.len() > self.limit {
            self.over = true;
            return Err(io::Error::other("the compressed body is over its bound"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What [`Cache`] knows of a file's content in a coding.
#[derive(Clone)]
pub enum Coded {
    /// Its compressed body.
    Compressed(Bytes),
    /// Compressing it does not pay or exceeds [`MAX_COMPRESSED`]: it is sent as it is.
    AsIs,
}

impl Coded {
    /// Bytes it holds.
    fn len(&self) -> usize {
        match self {
            Coded::Compressed(b) => b.len(),
            Coded::AsIs => 0,
        }
    }
}

/// Compressed bodies, at most [`MAX_CACHE_BYTES`] in all, the oldest dropped first, and
/// the contents not worth compressing. One entry per (path, coding), valid only for the
/// content hash it was made from: a file that changed is compressed again and its new
/// entry replaces the old one. A body is shared, not copied, with the responses that
/// send it.
#[derive(Default)]
pub struct Cache {
    /// (path, coding) → (content hash, compressed body).
    entries: HashMap<CacheKey, (String, Coded)>,
    /// The keys of `entries`, oldest first.
    order: VecDeque<CacheKey>,
    bytes: usize,
}

type CacheKey = (PathBuf, Encoding);

impl Cache {
    pub fn get(&self, path: &Path, hash: &str, enc: Encoding) -> Option<Coded> {
        let (h, body) = self.entries.get(&(path.to_path_buf(), enc))?;
        (h == hash).then(|| body.clone())
    }

    pub fn insert(&mut self, path: &Path, hash: &str, enc: Encoding, body: Coded) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn accept_encoding() {
        // The items of every Accept-Encoding field, as the server collects them.
        let neg = |fields: &[&str]| negotiate(fields.iter().flat_map(|f| f.split(',')).map(str::trim));
        use Encoding::{Br, Gzip};
        assert_eq!(neg(&[]), None);
        assert_eq!(neg(&[""]), None);
        assert_eq!(neg(&["gzip, deflate, br, zstd"]), Some(Br));
        assert_eq!(neg(&["GZIP"]), Some(Gzip));
        assert_eq!(neg(&["x-gzip"]), Some(Gzip));
        assert_eq!(neg(&["gzip", "br"]), Some(Br)); // fields combine
        assert_eq!(neg(&["br;q=0.5, gzip"]), Some(Gzip));
        assert_eq!(neg(&["br;q=0.5, gzip;q=0.5"]), Some(Br));
        assert_eq!(neg(&["gzip;q=0.5"]), Some(Gzip));
        assert_eq!(neg(&["gzip;q=0, br;q=0"]), None);
        assert_eq!(neg(&["br ; Q=0 , gzip ; q=0.001"]), Some(Gzip));
        assert_eq!(neg(&["*"]), Some(Br));
        assert_eq!(neg(&["*;q=0"]), None);
        assert_eq!(neg(&["br;q=0, *"]), Some(Gzip));
        assert_eq!(neg(&["gzip, *;q=0"]), Some(Gzip));
        assert_eq!(neg(&["identity;q=1, gzip;q=0.5"]), None);
        assert_eq!(neg(&["identity;q=0, gzip;q=0.5"]), Some(Gzip));
        assert_eq!(neg(&["*;q=0.5, br;q=0.2"]), Some(Gzip));
        assert_eq!(neg(&["deflate, compress"]), None);
        for bad in ["br;q=2", "br;q=-1", "br;q=nan", "br;q=", "br;q=1;q=x"] {
            assert_eq!(neg(&[bad]), None, "{bad}");
        }
        assert_eq!(neg(&["br;q=x, gzip"]), Some(Gzip));
    }

    #[test]
    fn cache_is_bounded_and_follows_the_content() {
        let (a, b) = (Path::new("a.json"), Path::new("b.json"));
        let body = |n: usize| Coded::Compressed(Bytes::from(vec![0u8; n]));
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
    fn compression_round_trips() {
        let body: Vec<u8> = (0..5000u32).flat_map(|i| format!("{{\"x\": {}}},", i % 97).into_bytes()).collect();
        let len = body.len() as u64;
        let br = compress(Encoding::Br, &mut &body[..], len).unwrap().unwrap();
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut out).unwrap();
        assert_eq!(out, body);
        let gz = compress(Encoding::Gzip, &mut &body[..], len).unwrap().unwrap();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).unwrap();
        assert_eq!(out, body);
        assert!(br.len() < body.len() / 10 && gz.len() < body.len() / 10, "{} {}", br.len(), gz.len());
    }

    /// Above [`LARGE`] the fast settings still give a body that decodes to the file.
    #[test]
    fn a_large_body_round_trips() {
        let body: Vec<u8> =
            (0..200_000u32).flat_map(|i| format!("{:.6},", f64::from(i % 1013) / 1013.0).into_bytes()).collect();
        let len = body.len() as u64;
        assert!(len > LARGE);
        for enc in [Encoding::Br, Encoding::Gzip] {
            let coded = compress(enc, &mut &body[..], len).unwrap().unwrap();
            let mut out = Vec::new();
            match enc {
                Encoding::Br => brotli::BrotliDecompress(&mut &coded[..], &mut out).unwrap(),
                Encoding::Gzip => drop(flate2::read::GzDecoder::new(&coded[..]).read_to_end(&mut out).unwrap()),
            }
            assert_eq!(out, body, "{enc:?}");
            assert!(coded.len() < body.len() / 4, "{enc:?}: {}", coded.len());
        }
    }

    /// A body that does not shrink is not worth a coding: the coder stops at its length.
    #[test]
    fn an_incompressible_body_is_sent_as_it_is() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let body: Vec<u8> = (0..64 * 1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        for enc in [Encoding::Br, Encoding::Gzip] {
            assert!(compress(enc, &mut &body[..], body.len() as u64).unwrap().is_none(), "{enc:?}");
        }
    }

    /// The coder never holds more than its bound: it stops as soon as the output would pass it.
    #[test]
    fn the_compressed_body_is_bounded() {
        let mut out = Bounded { out: Vec::new(), limit: 10, over: false };
        assert_eq!(out.write(&[1; 6]).unwrap(), 6);
        assert!(out.write(&[2; 5]).is_err() && out.over);
        assert_eq!(out.out, [1; 6]);
    }
}
