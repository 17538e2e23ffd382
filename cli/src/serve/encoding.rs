//! Content codings of `privlift serve`: which one a request accepts ([`negotiate`]), which
//! bodies are worth one ([`compressible`]), the compression itself, and the bounded
//! [`Cache`] that keeps each compressed body so that a file is compressed once per content
//! and coding.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use brotli::enc::BrotliEncoderParams;
use flate2::write::GzEncoder;
use flate2::Compression;
use hyper::body::Bytes;

/// Smaller bodies are sent as they are: compressing them saves next to nothing.
pub const MIN_COMPRESS: u64 = 1024;
/// Larger files are sent as they are: compressing one takes seconds of CPU (brotli 9 on
/// 45 MB: 35 s) and its whole content in memory. At most [`MAX_CACHE_BYTES`] / 2, so that
/// a compressed body always fits the cache and is made once, not once per request.
pub const MAX_COMPRESS: u64 = 16 * 1024 * 1024;
/// Total size of the compressed bodies kept by [`Cache`].
pub const MAX_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Brotli quality 9: on the 350 kB core wasm, 10× faster than 11 for 10% more bytes.
const BROTLI_QUALITY: i32 = 9;
const BROTLI_WINDOW_BITS: i32 = 22;
const GZIP_LEVEL: u32 = 9;

const _: () = assert!(2 * MAX_COMPRESS as usize <= MAX_CACHE_BYTES);

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

pub fn compress(enc: Encoding, body: &[u8]) -> io::Result<Vec<u8>> {
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

/// Compressed bodies, at most [`MAX_CACHE_BYTES`] in all, the oldest dropped first. One
/// entry per (path, coding), valid only for the content hash it was made from: a file
/// that changed is compressed again and its new body replaces the old one. A body is
/// shared, not copied, with the responses that send it.
#[derive(Default)]
pub struct Cache {
    /// (path, coding) → (content hash, compressed body).
    entries: HashMap<CacheKey, (String, Bytes)>,
    /// The keys of `entries`, oldest first.
    order: VecDeque<CacheKey>,
    bytes: usize,
}

type CacheKey = (PathBuf, Encoding);

impl Cache {
    pub fn get(&self, path: &Path, hash: &str, enc: Encoding) -> Option<Bytes> {
        let (h, body) = self.entries.get(&(path.to_path_buf(), enc))?;
        (h == hash).then(|| body.clone())
    }

    pub fn insert(&mut self, path: &Path, hash: &str, enc: Encoding, body: Bytes) {
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
        let body = |n: usize| Bytes::from(vec![0u8; n]);
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
