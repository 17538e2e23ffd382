//! The documents a collector knows: those published in `--dir` (served, and the current
//! version of each mechanism), and earlier versions registered in the database by any
//! collector (still accepted, counted apart).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use privlift::document::codec::reader::BYTE_ORDER_MARK;
use privlift::document::Lattice;
use privlift::document::MechanismKind;
use privlift::open::{OpenDocument, OpenReport};
use privlift::param::Probability;
use privlift::sample::lattice::LatticeMechanism;
use privlift::{parse_any, AnyDocument, ContinuousDocument, Document, Error};
use privlift_design::estimate::{released_outputs, unary_releases};
use privlift_design::lattice_estimate::Released;
use sha2::{Digest, Sha256};

use super::failure::storage_failure;
use super::store::{Store, Version};

/// Earlier versions kept in memory at most; more are parsed again on each batch.
const MAX_CACHED_VERSIONS: usize = 256;

/// A parsed document version, registered in the database.
pub struct Published {
    pub id: String,
    /// Lower-case hex SHA-256 of the document's bytes: its version and ETag.
    pub sha256: String,
    /// `privlift_documents.version`.
    pub version: i64,
    /// The bytes as published.
    pub text: String,
    pub doc: Parsed,
    /// The outputs the estimators can explain: a report of any other is refused, since
    /// once stored it would make every estimate of this version fail.
    released: Releases,
}

/// Which outputs a document's mechanism releases (see `privlift_design::estimate`).
enum Releases {
    /// Per output index, of a channel's outputs.
    Outputs(Vec<bool>),
    /// Unary encoding's bit vectors, checked one by one (`unary_releases`).
    Bits { q01: Probability, q10: Probability },
    /// Lattice indices.
    Lattice(Released),
    /// An open kind's reports: every report in range is one its client can send.
    Reports,
}

#[allow(clippy::large_enum_variant)] // one per document version, kept behind an Arc
pub enum Parsed {
    Discrete(Document),
    /// A continuous document, with the lattice sampler its outputs come from.
    Continuous {
        doc: ContinuousDocument,
        sampler: LatticeMechanism,
    },
    /// An open-domain document (its estimators read its mechanism and `max_bytes`).
    Open(OpenDocument),
}

/// A report of an output the mechanism never releases (no input gives it a non-zero
/// probability): no honest client sends it, and no estimate could explain it.
const NEVER_RELEASED: &str = "an output this mechanism never releases";

/// Why a report's output is refused (never echoing the output itself).
#[derive(Debug, PartialEq, Eq)]
pub struct BadOutput(pub std::borrow::Cow<'static, str>);

impl Published {
    /// Parses `text` (any document kind). One leading byte order mark is left out of the
    /// text served and hashed, as every client leaves it out of the hash it reports.
    pub fn parse(mut text: String, version: i64) -> Result<Self, Error> {
        if text.starts_with(BYTE_ORDER_MARK) {
            text.drain(..BYTE_ORDER_MARK.len());
        }
        let sha256 = sha256_hex(text.as_bytes());
        let (id, doc, released) = match parse_any(&text)? {
            AnyDocument::Discrete(d) => {
                let released = match d.mechanism() {
                    MechanismKind::Unary { q01, q10 } => Releases::Bits { q01: *q01, q10: *q10 },
                    _ => Releases::Outputs(released_outputs(&d).unwrap_or_else(|| vec![true; d.output().len()])),
                };
                (d.id().to_string(), Parsed::Discrete(d), released)
            }
            AnyDocument::Continuous(c) => {
                let sampler = c.sampler()?;
                let released = Releases::Lattice(Released::new(&sampler));
                (c.id().to_string(), Parsed::Continuous { doc: c, sampler }, released)
            }
            AnyDocument::Open(o) => (o.id().to_string(), Parsed::Open(o), Releases::Reports),
        };
        Ok(Published { id, sha256, version, text, doc, released })
    }

    /// The canonical stored form of an output: the output label (from a label or an
    /// index), the bit string of a unary encoding, or the lattice value `lo + step·j` in
    /// Rust's shortest round-trip form.
    pub fn canonical_output(&self, output: &serde_json::Value) -> Result<String, BadOutput> {
        match &self.doc {
            Parsed::Discrete(d) if matches!(d.mechanism(), MechanismKind::Unary { .. }) => {
                let k = d.input().len();
                let s = match output.as_str() {
                    Some(s) if s.len() == k && s.bytes().all(|b| b == b'0' || b == b'1') => s,
                    _ => return Err(BadOutput("expected a string of one '0' or '1' per input label".into())),
                };
                if let Releases::Bits { q01, q10 } = self.released {
                    let bits: Vec<bool> = s.bytes().map(|b| b == b'1').collect();
                    if !unary_releases(q01, q10, &bits) {
                        return Err(BadOutput(NEVER_RELEASED.into()));
                    }
                }
                Ok(s.to_string())
            }
            Parsed::Discrete(d) => {
                let out = d.output();
                let y = match output {
                    serde_json::Value::String(s) => {
                        out.position(s).ok_or(BadOutput("not an output label of this mechanism".into()))?
                    }
                    serde_json::Value::Number(n) => n
                        .as_u64()
                        .and_then(|i| usize::try_from(i).ok())
                        .filter(|&i| i < out.len())
                        .ok_or(BadOutput("not an output index of this mechanism".into()))?,
                    _ => return Err(BadOutput("expected an output label or index".into())),
                };
                match &self.released {
                    Releases::Outputs(r) if !r[y] => Err(BadOutput(NEVER_RELEASED.into())),
                    _ => Ok(out.label(y).unwrap_or_default().to_string()),
                }
            }
            Parsed::Open(doc) => {
                OpenReport::from_json(doc.mechanism(), &output.to_string()).map(|r| r.canonical()).map_err(|e| {
                    BadOutput(format!("not a report of this kind ({})", open_reason(&e, doc.mechanism().tag())).into())
                })
            }
            Parsed::Continuous { doc, .. } => {
                let lattice = doc.lattice();
                let j = output
                    .as_f64()
                    .and_then(|y| lattice.output_index(y).ok())
                    .ok_or(BadOutput("expected a released value lo + step·j of this mechanism's lattice".into()))?;
                match &self.released {
                    Releases::Lattice(r) if !r.contains(j) => Err(BadOutput(NEVER_RELEASED.into())),
                    _ => Ok(lattice_label(lattice, j)),
                }
            }
        }
    }
}

/// What an open-kind output's refusal says: the field and its rule, never a value (a
/// JSON reader's account of a wrong value repeats it: only its kind is kept).
fn open_reason(e: &Error, kind: &str) -> String {
    match e {
        Error::UnknownOutput { value } => value.clone(),
        Error::Json { message } if !message.contains("invalid") => message.clone(),
        _ => format!("expected a `{kind}` report: an object of unsigned 32-bit integers"),
    }
}

/// The text of the lattice value lo + step·j: a stored continuous output, and a label of
/// the lattice points (Rust's shortest round-trip form, read back by `output_index`).
pub fn lattice_label(lattice: &Lattice, j: i64) -> String {
    format!("{}", lattice.value(j))
}

/// The labels of the lattice points, lo + step·k for k = 0..n.
pub fn lattice_labels(lattice: &Lattice) -> Vec<String> {
    (0..lattice.len() as i64).map(|k| lattice_label(lattice, k)).collect()
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The published documents (by id) and a cache of earlier versions.
pub struct Catalogue {
    current: HashMap<String, Arc<Published>>,
    earlier: Mutex<HashMap<(String, String), Arc<Published>>>,
    /// The last estimate answered per version, with the counts it came from.
    estimates: Mutex<HashMap<i64, Answered>>,
}

/// An estimate's JSON and the counts (`output`, reports) it came from.
type Answered = (Vec<(String, u64)>, String);

/// Why a report's (mechanism, sha256) has no document.
#[derive(Debug, PartialEq, Eq)]
pub enum Unknown {
    Mechanism,
    Version,
}

impl Catalogue {
    /// Reads every `*.json` in `dir` that is a mechanism document (other JSON files, such
    /// as an index, are skipped with a note on stderr) and registers each in `store`.
    /// Two documents with one id are an error.
    pub fn load(dir: &str, store: &mut dyn Store) -> Result<Self, crate::error::CliError> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| crate::error::CliError::io(format!("cannot read {dir}"), e))?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        let mut current: HashMap<String, Arc<Published>> = HashMap::new();
        for path in paths {
            let name = path.display().to_string();
            let text = crate::files::read(&name)?;
            if !looks_like_a_document(&text) {
                eprintln!("privlift: collect: skipping {name} (not a mechanism document)");
                continue;
            }
            let mut p = Published::parse(text, 0).map_err(|e| crate::error::CliError::in_file(&name, e))?;
            let v = store.register(&p.id, &p.sha256, &p.text).map_err(storage_failure)?;
            p.version = v.version;
            if current.contains_key(&p.id) {
                return Err(crate::error::CliError::in_file(
                    &name,
                    Error::invalid("id", format!("a second document with id {}", privlift::error::Quoted(&p.id))),
                ));
            }
            current.insert(p.id.clone(), Arc::new(p));
        }
        Ok(Catalogue { current, earlier: Mutex::default(), estimates: Mutex::default() })
    }

    /// The published (current) version of `id`.
    pub fn current(&self, id: &str) -> Option<&Arc<Published>> {
        self.current.get(id)
    }

    /// The published documents, by id.
    pub fn published(&self) -> Vec<&Arc<Published>> {
        let mut v: Vec<_> = self.current.values().collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    pub fn len(&self) -> usize {
        self.current.len()
    }

    /// The estimate last answered for `version` if it came from exactly these counts.
    pub fn cached_estimate(&self, version: i64, counts: &[(String, u64)]) -> Option<String> {
        let cache = self.estimates.lock().unwrap_or_else(PoisonError::into_inner);
        cache.get(&version).filter(|(c, _)| c == counts).map(|(_, body)| body.clone())
    }

    /// Keeps the estimate of `version` from `counts` (one per version, of the versions
    /// this collector was asked about: bounded by [`MAX_CACHED_VERSIONS`] plus the published).
    pub fn cache_estimate(&self, version: i64, counts: Vec<(String, u64)>, body: String) {
        let mut cache = self.estimates.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() < MAX_CACHED_VERSIONS + self.current.len() || cache.contains_key(&version) {
            cache.insert(version, (counts, body));
        }
    }

    /// The version of `id` with this SHA-256: the published one, or an earlier one from
    /// the database.
    pub fn find(
        &self,
        store: &mut dyn Store,
        id: &str,
        sha256: &str,
    ) -> Result<Result<Arc<Published>, Unknown>, super::store::StoreError> {
        if let Some(p) = self.current.get(id).filter(|p| p.sha256 == sha256) {
            return Ok(Ok(Arc::clone(p)));
        }
        let key = (id.to_string(), sha256.to_string());
        if let Some(p) = self.earlier.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(Ok(Arc::clone(p)));
        }
        let Some(Version { version, document, .. }) = store.version(id, sha256)? else {
            return Ok(Err(if self.current.contains_key(id) { Unknown::Version } else { Unknown::Mechanism }));
        };
        // A version some collector registered from its own `--dir`: it parsed then.
        let p = Arc::new(
            Published::parse(document, version)
                .map_err(|e| super::store::StoreError(format!("stored document {id} {sha256}: {e}")))?,
        );
        let mut earlier = self.earlier.lock().unwrap_or_else(PoisonError::into_inner);
        if earlier.len() < MAX_CACHED_VERSIONS {
            earlier.insert(key, Arc::clone(&p));
        }
        Ok(Ok(p))
    }
}

/// A mechanism document has a `mechanism` object; an index of documents does not.
fn looks_like_a_document(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).map_or(true, |v| v.get("mechanism").is_some())
}
