//! The open document's JSON: read by the pull reader ([`crate::document::reader`]) within
//! a verification budget, the sparse prior priced by its listed values as they are read;
//! written (the curator side) with `serde_json`.
//!
//! | `mechanism.kind` | fields besides `kind`, `hash`, `hash_version`, `epsilon` |
//! |---|---|
//! | `olh` | `g` |
//! | `hadamard` | `bits`, `hash_seed` |
//! | `hcms` | `k`, `m` |
//! | `heavy_hitters` | `g`, `prefix_bits`, `split` |

use alloc::string::String;
use alloc::vec::Vec;

use super::document::{OpenClaims, OpenDocument, OpenMechanism, SparsePrior, OPEN_KINDS};
use super::hash;
use super::value::MAX_VALUE_BYTES;
use crate::document::codec::reader::{Fields, Reader};
use crate::document::{check_header, MAX_SYMBOLS};
use crate::error::{Error, Result};
use crate::param::{Budget, Epsilon, Probability};
use crate::verify::Work;

const TOP: &[&str] = &["format", "version", "id", "description", "domain", "prior", "mechanism", "claims"];
const MECHANISM: &[&str] =
    &["kind", "hash", "hash_version", "epsilon", "g", "bits", "hash_seed", "k", "m", "prefix_bits", "split"];
/// The fields of `MECHANISM` (from `g` on) each kind takes.
const KIND_FIELDS: [(&str, &[&str]); 4] = [
    ("olh", &["g"]),
    ("hadamard", &["bits", "hash_seed"]),
    ("hcms", &["k", "m"]),
    ("heavy_hitters", &["g", "prefix_bits", "split"]),
];
/// What a refusal names, as verification does.
const WHAT: &str = "this document";

/// The `mechanism` object as read, before its kind decides what it must hold.
#[derive(Default)]
struct MechanismWire {
    kind: String,
    hash: String,
    hash_version: u64,
    epsilon: f64,
    /// `g`, `bits`, `hash_seed`, `k`, `m` (in `MECHANISM`'s order), as given.
    ints: [Option<u64>; 5],
    prefix_bits: Vec<u64>,
    split: Vec<f64>,
    given: Vec<&'static str>,
}

impl OpenDocument {
    /// Parses and validates an open document.
    ///
    /// # Errors
    /// `json` (syntax, unknown, duplicate or missing fields), `unsupported_format`,
    /// `unsupported_version`, `unsupported_mechanism` (a kind that is not open, another
    /// hash or hash version), and the validation errors of [`OpenDocument::new`].
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_json_within(text.as_bytes(), f64::INFINITY)
    }

    /// [`OpenDocument::from_json`] refusing with `too_costly`, as it reads, a document
    /// whose verification costs more than `budget` work units ([`Work::open`]; its sparse
    /// prior priced after each listed value).
    ///
    /// # Errors
    /// As [`OpenDocument::from_json`], and `too_costly`.
    pub fn from_json_within(bytes: &[u8], budget: f64) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let doc = read(&mut r, budget)?;
        r.end()?;
        super::verify::work(&doc).check(WHAT, budget)?;
        Ok(doc)
    }

    /// The document as pretty JSON (the curator side).
    pub fn to_json(&self) -> String {
        let mut m = serde_json::json!({
            "kind": self.mechanism.tag(), "hash": hash::NAME, "hash_version": hash::VERSION,
            "epsilon": self.mechanism.epsilon().get(),
        });
        match &self.mechanism {
            OpenMechanism::Olh { g, .. } => m["g"] = (*g).into(),
            OpenMechanism::Hadamard { bits, hash_seed, .. } => {
                m["bits"] = (*bits).into();
                m["hash_seed"] = (*hash_seed).into();
            }
            OpenMechanism::Hcms { k, m: cols, .. } => {
                m["k"] = (*k).into();
                m["m"] = (*cols).into();
            }
            OpenMechanism::HeavyHitters { g, prefix_bits, split, .. } => {
                m["g"] = (*g).into();
                m["prefix_bits"] = prefix_bits.clone().into();
                m["split"] = split.iter().map(|p| p.get()).collect::<Vec<_>>().into();
            }
        }
        let mut claims = serde_json::json!({"ldp_x": self.claims.ldp_x.get()});
        if let Some(l) = self.claims.lip {
            claims["lip"] = l.get().into();
        }
        let mut doc = serde_json::json!({
            "format": crate::document::FORMAT, "version": crate::document::VERSION, "id": self.id,
        });
        if let Some(d) = &self.description {
            doc["description"] = d.clone().into();
        }
        doc["domain"] = serde_json::json!({"kind": "strings", "max_bytes": self.max_bytes});
        if let Some(p) = &self.prior {
            doc["prior"] = serde_json::json!({"values": p.values(), "p": p.p()});
        }
        doc["mechanism"] = m;
        doc["claims"] = claims;
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }
}

fn read(r: &mut Reader<'_>, budget: f64) -> Result<OpenDocument> {
    let (mut format, mut version, mut id, mut description) = (String::new(), 0, String::new(), None);
    let (mut max_bytes, mut prior, mut mechanism) = (0u64, None, MechanismWire::default());
    let (mut ldp_x, mut lip) = (None, None);
    let mut f = Fields::new(TOP);
    r.object("struct OpenDocumentJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => format = r.text()?,
            1 => version = r.unsigned("u64", u64::MAX)?,
            2 => id = r.text()?,
            3 => description = r.optional(Reader::text)?,
            4 => max_bytes = read_domain(r)?,
            5 => prior = Some(read_prior(r, budget)?),
            6 => mechanism = read_mechanism(r)?,
            _ => {
                let mut v = [f64::NAN; 2];
                r.numbers("struct OpenClaims", &["ldp_x", "lip"], &["ldp_x"], &mut v)?;
                ldp_x = Some(v[0]);
                lip = (!v[1].is_nan()).then_some(v[1]);
            }
        }
        Ok(())
    })?;
    f.require(r, &["format", "version", "id", "domain", "mechanism", "claims"])?;
    check_header(&format, version)?;
    let max_bytes = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mechanism = mechanism.validate()?;
    let prior = match prior {
        None => None,
        Some((values, p)) => Some(SparsePrior::new(values, p, max_bytes.min(MAX_VALUE_BYTES))?),
    };
    let claims = OpenClaims {
        ldp_x: Budget::finite("claims.ldp_x", ldp_x.unwrap_or(f64::NAN))?,
        lip: lip.map(|l| Budget::finite("claims.lip", l)).transpose()?,
    };
    let doc = OpenDocument::new(&id, max_bytes, prior, mechanism, claims)?;
    Ok(match description {
        Some(d) => doc.with_description(d),
        None => doc,
    })
}

/// `{"kind": "strings", "max_bytes": B}`: B as written (checked by `OpenDocument::new`).
fn read_domain(r: &mut Reader<'_>) -> Result<u64> {
    let (mut kind, mut max_bytes) = (String::new(), 0);
    let mut f = Fields::new(&["kind", "max_bytes"]);
    r.object("struct OpenDomain", &mut |r, key| {
        if f.field(r, &key)? == 0 {
            kind = r.text()?;
        } else {
            max_bytes = r.unsigned("u64", u64::MAX)?;
        }
        Ok(())
    })?;
    f.require(r, &["kind", "max_bytes"])?;
    if kind != "strings" {
        return Err(Error::invalid("domain.kind", "an open-domain document's domain is `strings`"));
    }
    Ok(max_bytes)
}

/// `{"values": [...], "p": [...]}`, each array refused past 4096 entries as it is read,
/// and the verification priced after each listed value.
fn read_prior(r: &mut Reader<'_>, budget: f64) -> Result<(Vec<String>, Vec<Probability>)> {
    let (mut values, mut p) = (Vec::new(), Vec::new());
    let mut f = Fields::new(&["values", "p"]);
    let too_many =
        |field: &'static str| move |found| Error::TooManySymbols { field: field.into(), found, max: MAX_SYMBOLS };
    r.object("struct SparsePrior", &mut |r, key| {
        if f.field(r, &key)? == 0 {
            r.bounded_array(MAX_SYMBOLS, &too_many("prior.values"), &mut |r| {
                let v = r.text()?;
                if v.len() > MAX_VALUE_BYTES {
                    super::value::checked(&alloc::format!("prior.values[{}]", values.len()), &v, MAX_VALUE_BYTES)?;
                }
                values.push(v);
                Work::open(2, values.len(), 1).check(WHAT, budget)
            })
        } else {
            r.bounded_array(MAX_SYMBOLS, &too_many("prior.p"), &mut |r| {
                let name = alloc::format!("prior.p[{}]", p.len());
                p.push(Probability::new(&name, r.f64()?)?);
                Ok(())
            })
        }
    })?;
    f.require(r, &["values", "p"])?;
    Ok((values, p))
}

fn read_mechanism(r: &mut Reader<'_>) -> Result<MechanismWire> {
    let mut m = MechanismWire::default();
    let mut f = Fields::new(MECHANISM);
    r.object("struct OpenMechanism", &mut |r, key| {
        let i = f.field(r, &key)?;
        m.given.push(MECHANISM[i]);
        match i {
            0 => m.kind = r.text()?,
            1 => m.hash = r.text()?,
            2 => m.hash_version = r.unsigned("u64", u64::MAX)?,
            3 => m.epsilon = r.f64()?,
            4..=8 => m.ints[i - 4] = Some(r.unsigned("u64", u64::MAX)?),
            9 => r.bounded_array(8 * MAX_VALUE_BYTES, &|n| too_many_rounds("mechanism.prefix_bits", n), &mut |r| {
                m.prefix_bits.push(r.unsigned("u64", u64::MAX)?);
                Ok(())
            })?,
            _ => r.bounded_array(8 * MAX_VALUE_BYTES, &|n| too_many_rounds("mechanism.split", n), &mut |r| {
                m.split.push(r.f64()?);
                Ok(())
            })?,
        }
        Ok(())
    })?;
    f.require(r, &["kind", "hash", "hash_version", "epsilon"])?;
    Ok(m)
}

fn too_many_rounds(field: &str, found: usize) -> Error {
    Error::TooManySymbols { field: field.into(), found, max: 8 * MAX_VALUE_BYTES }
}

/// A count field in `lo..=hi` as a `u32`.
fn count(name: &str, v: u64, lo: u64, hi: u64) -> Result<u32> {
    if (lo..=hi).contains(&v) {
        Ok(v as u32)
    } else {
        Err(Error::invalid(alloc::format!("mechanism.{name}"), alloc::format!("must be in {lo}..={hi}, got {v}")))
    }
}

impl MechanismWire {
    fn validate(self) -> Result<OpenMechanism> {
        let Some(&(_, own)) = KIND_FIELDS.iter().find(|(k, _)| *k == self.kind) else {
            return Err(Error::UnsupportedMechanism { kind: self.kind });
        };
        debug_assert!(OPEN_KINDS.contains(&self.kind.as_str()));
        if self.hash != hash::NAME || self.hash_version != hash::VERSION {
            return Err(Error::UnsupportedMechanism {
                kind: alloc::format!(
                    "{} with hash {} version {}",
                    self.kind,
                    crate::error::Quoted(&self.hash),
                    self.hash_version
                ),
            });
        }
        if let Some(extra) = self.given.iter().find(|g| MECHANISM[..4].iter().chain(own).all(|n| n != *g)) {
            return Err(Error::Json {
                message: alloc::format!("unknown field `{extra}` for mechanism kind `{}`", self.kind),
            });
        }
        if let Some(missing) = own.iter().find(|n| !self.given.contains(n)) {
            return Err(Error::Json { message: alloc::format!("missing field `mechanism.{missing}`") });
        }
        let epsilon = Epsilon::new("mechanism.epsilon", self.epsilon)?;
        let int = |i: usize| self.ints[i].unwrap_or(0);
        let u32max = u64::from(u32::MAX);
        Ok(match self.kind.as_str() {
            "olh" => OpenMechanism::Olh { epsilon, g: count("g", int(0), 2, super::MAX_G.into())? },
            "hadamard" => OpenMechanism::Hadamard {
                epsilon,
                bits: count("bits", int(1), 1, super::MAX_HADAMARD_BITS.into())?,
                hash_seed: count("hash_seed", int(2), 0, u32max)?,
            },
            "hcms" => OpenMechanism::Hcms {
                epsilon,
                k: count("k", int(3), 1, super::MAX_HCMS.into())?,
                m: count("m", int(4), 2, super::MAX_HCMS.into())?,
            },
            _ => OpenMechanism::HeavyHitters {
                epsilon,
                g: count("g", int(0), 2, super::MAX_G.into())?,
                prefix_bits: self
                    .prefix_bits
                    .iter()
                    .map(|&l| count("prefix_bits", l, 1, 8 * MAX_VALUE_BYTES as u64))
                    .collect::<Result<_>>()?,
                split: self
                    .split
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| Probability::new(&alloc::format!("mechanism.split[{i}]"), w))
                    .collect::<Result<_>>()?,
            },
        })
    }
}
