//! The JSON shape of mechanism document v1 (serde types, no validation here), and its
//! serde-free reader [`DocumentJson::read`] (what `Document::from_json` and the npm client
//! use; `super::codec::reader`).
//!
//! ```json
//! {
//!   "format": "privlift-mechanism",
//!   "version": 1,
//!   "id": "grade-krr-eps1",
//!   "description": "optional free text",
//!   "labels": ["A", "B", "C"],
//!   "output_labels": ["A", "B", "C"],
//!   "prior": [0.2, 0.5, 0.3],
//!   "secret": { "labels": ["pass", "fail"], "p_sx": [[0.2, 0.5, 0.0], [0.0, 0.0, 0.3]] },
//!   "mechanism": { "kind": "matrix", "p_y_given_x": [[...], [...], [...]] },
//!   "claims": { "ldp_x": 1.0, "ldp": 0.8, "lip": 0.6, "alip": { "eps_l": 0.5, "eps_u": 0.6 } },
//!   "utility": { "mi_xy": 0.31, "nmi": 0.3 }
//! }
//! ```
//!
//! Forward compatibility: `mechanism` is tagged by `kind` and kept as a JSON value
//! ([`super::Json`]) until its kind is known; `super::fields` then reads its fields
//! (unknown ones refused):
//!
//! | `kind` | fields |
//! |---|---|
//! | `matrix` | `p_y_given_x` (rows x, columns y) |
//! | `per_secret` | `p_y_given_sx` (`[s][x][y]`), optional `p_y_given_x` (the Markov form) |
//! | `unary` | `q01`, `q10` (bit-flip probabilities; the report is a bit vector) |
//! | `krr` | `epsilon` or `keep` (κ): P(y\|x) = κ·[y = x] + (1 − κ)/\|X\| |
//! | `rr_lip` | `keep` (κ), `mixing` (m over X): κ·[y = x] + (1 − κ)·m_y |
//! | `merge` | `blocks` (b(x) per input), optional `inner` (`matrix`, `sparse`, `krr` or `rr_lip` over the blocks) |
//! | `sparse` | `outputs` (\|Y\|), `rows` (per input, `[y, p]` pairs in increasing y) |
//! | `srr` | `low_risk`, `groups` (`{inputs, p_y_given_x}` over each group's outputs), `others` (the row of the remaining inputs) |
//!
//! The continuous kinds (`"gaussian"`,
//! `"laplace"`, `"sampling"`) have their own document shape (`domain` and a continuous
//! `prior` instead of `labels`; see [`super::continuous`], read by
//! [`crate::parse_any`]). A document of an older kind keeps parsing unchanged, and a
//! reader meeting a kind it does not know fails with the typed error
//! `unsupported_mechanism` instead of misreading it. `secret` is optional
//! (absent: S = X). `utility` is informational and never trusted.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::labels::LabelJson;

/// The value of `format` in every privlift mechanism document.
pub const FORMAT: &str = "privlift-mechanism";
/// The document version this build reads and writes.
pub const VERSION: u64 = 1;

/// Checks the header every document carries: `format` is [`FORMAT`], `version` is [`VERSION`].
///
/// # Errors
/// `unsupported_format`, then `unsupported_version`.
pub fn check_header(format: &str, version: u64) -> crate::error::Result<()> {
    if format != FORMAT {
        return Err(crate::error::Error::UnsupportedFormat { found: format.into() });
    }
    if version != VERSION {
        return Err(crate::error::Error::UnsupportedVersion { found: version });
    }
    Ok(())
}

/// Top-level document as it appears in JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentJson {
    /// `format`: must be [`FORMAT`] (`"privlift-mechanism"`).
    pub format: String,
    /// `version`: must be [`VERSION`].
    pub version: u64,
    /// `id`: the curator's name for this mechanism (free text, not validated).
    pub id: String,
    /// `description`: optional free text for people; never used for verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Input alphabet X (a label given as a number is held in its JSON spelling).
    pub labels: super::Labels,
    /// Output alphabet Y; when absent, indices `"0"`, `"1"`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_labels: Option<super::Labels>,
    /// The prior P_X the curator designed for.
    pub prior: Vec<f64>,
    /// `secret`: the secret S and the joint P_SX; when absent, S = X with P_SX = diag(`prior`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) secret: Option<SecretJson>,
    /// Kept as a JSON value ([`super::Json`]) until its `kind` is known (see module docs);
    /// duplicate keys are refused at every depth.
    pub mechanism: super::Json,
    /// `claims`: what the curator promises, in nats (every claim optional; absent: none).
    #[serde(default)]
    pub(crate) claims: ClaimsJson,
    /// Informational utility figures; never used for verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility: Option<super::Json>,
}

/// The secret S and the joint P_SX (rows s, columns x).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretJson {
    /// `labels`: the secret alphabet S; when absent, indices `"0"`, `"1"`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<super::Labels>,
    /// `p_sx`: the joint P_SX, one row per secret s and one column per x: all entries together sum
    /// to 1, and its column sums must equal `prior` (within 1e-9; exactly 0 where a column is 0).
    pub p_sx: Vec<Vec<f64>>,
}

/// Bounded-prior LIP (Jiang et al. Def 6): ε-LIP under every prior of a finite set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BpLipJson {
    /// `eps`: the budget ε in nats (finite, ≥ 0) that must hold under every prior of `priors`.
    pub eps: f64,
    /// Priors over X, each a distribution of length |X|.
    pub priors: Vec<Vec<f64>>,
}

/// What the curator promises, in nats. Unknown claim names are rejected, so a
/// claim is never shown to a user without having been checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsJson {
    /// ε-LDP with respect to the secret S (equal to `ldp_x` when S = X).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ldp: Option<f64>,
    /// ε-LDP with respect to X (prior-free).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ldp_x: Option<f64>,
    /// ε-LIP (Jiang et al. eq 8) with respect to S.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lip: Option<f64>,
    /// (εl, εu)-ALIP (Zarrabian et al. Def 3) with respect to S.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alip: Option<AlipJson>,
    /// ε-LIP w.r.t. X under every prior of a set (BP-LIP), for mechanisms designed for
    /// an uncertain prior.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bp_lip: Option<BpLipJson>,
    /// ℓ1-privacy w.r.t. S (Zarrabian et al. Sec. VI-B): for every output,
    /// Λ_ℓ1(y) ≤ e^{εu} − 1 (eq 27) and Ψ_ℓ1(y) ≤ e^{εl} − 1 (eq 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1: Option<AlipJson>,
    /// χ²-privacy w.r.t. S (Sec. VI-B): Λ_χ²(y) ≤ (e^{εu} − 1)² (eq 28) and
    /// Ψ_χ²(y) ≤ (e^{εl} − 1)² (eq 31).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chi2: Option<AlipJson>,
    /// α-lift privacy w.r.t. S (Sec. VI-B, eq 33): Λ_α(y) ≤ e^{εu} (eq 29) and
    /// Ψ_α(y) ≤ e^{εl} (eq 32) at the claim's order α > 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<AlphaLiftJson>,
    /// ε-SRLIP w.r.t. S (Lopuhaä-Zwakenberg, privacy funnel, Def 3, eq 12) for a
    /// multi-attribute input X = (X¹,…,Xᵐ): ε-LIP w.r.t. p_{S,X|x^J} for every subset J
    /// of attributes and every x^J an attacker may learn by a side channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srlip: Option<SrlipJson>,
}

/// The α-lift claim: its order α (> 1) and the budgets (εl, εu) of eq 33.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlphaLiftJson {
    /// `order`: the order α, finite and > 1.
    pub order: f64,
    /// `eps_l`: εl in nats (finite, ≥ 0), bounding Ψ_α(y) ≤ e^{εl} (eq 32).
    pub eps_l: f64,
    /// `eps_u`: εu in nats (finite, ≥ 0), bounding Λ_α(y) ≤ e^{εu} (eq 29).
    pub eps_u: f64,
}

/// The two ALIP budgets (also the (εl, εu) of the `l1` and `chi2` claims).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlipJson {
    /// `eps_l`: εl in nats (finite, ≥ 0); for `alip`, every lift P(s|y)/P(s) is ≥ e^{−εl}.
    pub eps_l: f64,
    /// `eps_u`: εu in nats (finite, ≥ 0); for `alip`, every lift P(s|y)/P(s) is ≤ e^{εu}.
    pub eps_u: f64,
}

/// The SRLIP claim: the budget and the attribute sizes |X¹|, …, |Xᵐ|, whose product is
/// |X|. The input alphabet is their product flattened row-major (attribute 1 most
/// significant): x = ((x¹·|X²| + x²)·|X³| + x³)…, which is how `labels` and the columns
/// of `secret.p_sx` are ordered.
///
/// ```json
/// "srlip": { "eps": 1.0, "attributes": [2, 3, 2] }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrlipJson {
    /// `eps`: the budget ε in nats (finite, ≥ 0).
    pub eps: f64,
    /// `attributes`: the sizes |X¹|, …, |Xᵐ|, each ≥ 1, with product |X|; at most
    /// [`crate::leakage::MAX_SRLIP_ATTRIBUTES`] of them.
    pub attributes: Vec<usize>,
}

// ---------------------------------------------------------------------------------------
// Reading the wire types without serde (`super::codec::reader`): what `Document::from_json` and
// the npm client do. The derived `Deserialize` impls above read the same documents
// (tests/reader.rs compares the two on every document of the tests and on mutations).

use super::codec::reader::{Fields, Num, Reader};

impl DocumentJson {
    /// Reads a document's JSON text (UTF-8).
    ///
    /// # Errors
    /// `json` for a syntax error, a value of the wrong type, or an unknown, duplicate or
    /// missing field, with its position.
    pub fn read(bytes: &[u8]) -> crate::error::Result<DocumentJson> {
        Self::read_priced(bytes, &mut |_| Ok(()))
    }

    /// [`DocumentJson::read`], calling `price` after each row of a dense channel
    /// (`mechanism.p_y_given_x`, a merge's `inner` one, or a block of
    /// `mechanism.p_y_given_sx`) with the sizes the document has declared so far
    /// ([`Declared`]). An error from `price` is the reader's: what verifying the channel
    /// would cost is refused before the rest of its numbers are read.
    ///
    /// # Errors
    /// Those of [`DocumentJson::read`], and `price`'s.
    pub(crate) fn read_priced(
        bytes: &[u8],
        price: &mut dyn FnMut(Declared) -> crate::error::Result<()>,
    ) -> crate::error::Result<DocumentJson> {
        let mut r = Reader::new(bytes);
        let d = read_document(&mut r, price)?;
        r.end()?;
        Ok(d)
    }
}

/// The sizes of a dense channel a document has declared so far, for pricing it while it
/// is read: each at least what the whole document declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// The channel's inputs: its rows read so far (of the current block of
    /// `p_y_given_sx`: the most of any block), or the document's `labels` if they came
    /// first and are more (not for a merge's `inner` channel, over its blocks).
    pub inputs: usize,
    /// The outputs: the widest row read so far.
    pub outputs: usize,
    /// The `bp_lip` priors claimed, if the claims came first.
    pub priors: usize,
    /// 0 for a channel P(Y|X); for `p_y_given_sx`, the secrets: its blocks begun so far,
    /// or the rows of `secret.p_sx` if the secret came first and they are more.
    pub secrets: usize,
}

/// Most JSON values (numbers, strings, arrays, objects, … each counting one) of the
/// informational `utility` member. The designers write a few figures and at most a few
/// lists over the inputs (`groups`, `low_risk`: O(|X|) values, |X| ≤ 4096); verification
/// never reads the member, and without a bound a document could make its reader hold a
/// tree of ~32 bytes per value for every two bytes of text.
pub const MAX_UTILITY_VALUES: usize = 1 << 16;

const DOCUMENT_FIELDS: &[&str] = &[
    "format",
    "version",
    "id",
    "description",
    "labels",
    "output_labels",
    "prior",
    "secret",
    "mechanism",
    "claims",
    "utility",
];

fn read_document(
    r: &mut Reader<'_>,
    price: &mut dyn FnMut(Declared) -> crate::error::Result<()>,
) -> crate::error::Result<DocumentJson> {
    let mut d = DocumentJson {
        format: String::new(),
        version: 0,
        id: String::new(),
        description: None,
        labels: super::Labels::new(),
        output_labels: None,
        prior: Vec::new(),
        secret: None,
        mechanism: super::Json::Null,
        claims: ClaimsJson::default(),
        utility: None,
    };
    let mut f = Fields::new(DOCUMENT_FIELDS);
    r.object("struct DocumentJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => d.format = r.text()?,
            1 => d.version = r.unsigned("u64", u64::MAX)?,
            2 => d.id = r.text()?,
            3 => d.description = r.optional(Reader::text)?,
            4 => d.labels = read_labels(r, "labels")?,
            5 => d.output_labels = r.optional(|r| read_labels(r, "output_labels"))?,
            6 => d.prior = read_f64s(r, super::MAX_SYMBOLS, &|n| too_many("prior", n))?,
            7 => d.secret = r.optional(read_secret)?,
            8 => {
                let labels = d.labels.len();
                let priors = d.claims.bp_lip.as_ref().map_or(0, |c| c.priors.len());
                let declared_secrets = d.secret.as_ref().map_or(0, |s| s.p_sx.len());
                // Every block of `p_y_given_sx` has the same rows and width.
                let (mut block_rows, mut block_width) = (0, 0);
                d.mechanism = super::codec::json::read_mechanism_priced(r, &mut |seen| {
                    let (rows, outputs, secrets) = match seen.secrets {
                        0 => (seen.rows, seen.width, 0),
                        blocks => {
                            block_rows = seen.rows.max(block_rows);
                            block_width = seen.width.max(block_width);
                            (block_rows, block_width, blocks.max(declared_secrets))
                        }
                    };
                    let inputs = if seen.outer { rows.max(labels) } else { rows };
                    price(Declared { inputs, outputs, priors, secrets })
                })?;
            }
            9 => d.claims = read_claims(r)?,
            _ => d.utility = r.optional(|r| super::codec::json::read_at_most(r, MAX_UTILITY_VALUES))?,
        }
        Ok(())
    })?;
    f.require(r, &["format", "version", "id", "labels", "prior", "mechanism"])?;
    Ok(d)
}

/// `too_many_symbols` for an alphabet-indexed array `field` of `found` elements.
fn too_many(field: &str, found: usize) -> crate::error::Error {
    crate::error::Error::TooManySymbols { field: field.into(), found, max: super::MAX_SYMBOLS }
}

/// An array of at most `max` numbers (past it, `too_many` of the count: what the reader
/// holds stays bounded by what the document may declare, whatever its length).
fn read_f64s(
    r: &mut Reader<'_>,
    max: usize,
    too_many: &dyn Fn(usize) -> crate::error::Error,
) -> crate::error::Result<Vec<f64>> {
    let mut out = Vec::new();
    r.bounded_array(max, too_many, &mut |r| {
        out.push(r.f64()?);
        Ok(())
    })?;
    Ok(out)
}

/// At most `max` rows of at most |X| ≤ [`super::MAX_SYMBOLS`] numbers each.
fn read_rows(
    r: &mut Reader<'_>,
    field: &str,
    max: usize,
    too_many_rows: &dyn Fn(usize) -> crate::error::Error,
) -> crate::error::Result<Vec<Vec<f64>>> {
    let mut out = Vec::new();
    r.bounded_array(max, too_many_rows, &mut |r| {
        let f = alloc::format!("{field}[{}]", out.len());
        out.push(read_f64s(r, super::MAX_SYMBOLS, &|n| too_many(&f, n))?);
        Ok(())
    })?;
    Ok(out)
}

/// An array of at most [`super::MAX_SYMBOLS`] labels into one text ([`super::Labels`]:
/// 4 bytes a label beside its text, where a `String` each took ≈ 56 for a short label).
fn read_labels(r: &mut Reader<'_>, field: &str) -> crate::error::Result<super::Labels> {
    let mut out = super::Labels::new();
    r.bounded_array(super::MAX_SYMBOLS, &|n| too_many(field, n), &mut |r| {
        let label = if r.text_next()? {
            LabelJson::Text(r.text()?)
        } else if r.number_next()? {
            LabelJson::Number(match r.number()? {
                Num::U64(v) => v.into(),
                Num::I64(v) => v.into(),
                Num::F64(v) => {
                    serde_json::Number::from_f64(v).ok_or_else(|| r.error("a label is a finite number or a string"))?
                }
            })
        } else {
            return Err(r.wrong("a string or a number"));
        };
        out.push_json(field, label)
    })?;
    out.shrink_to_fit();
    Ok(out)
}

fn read_secret(r: &mut Reader<'_>) -> crate::error::Result<SecretJson> {
    let mut s = SecretJson { labels: None, p_sx: Vec::new() };
    let mut f = Fields::new(&["labels", "p_sx"]);
    r.object("struct SecretJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => s.labels = r.optional(|r| read_labels(r, "secret.labels"))?,
            _ => s.p_sx = read_rows(r, "secret.p_sx", super::MAX_SYMBOLS, &|n| too_many("secret.p_sx", n))?,
        }
        Ok(())
    })?;
    f.require(r, &["p_sx"])?;
    Ok(s)
}

const CLAIM_FIELDS: &[&str] = &["ldp", "ldp_x", "lip", "alip", "bp_lip", "l1", "chi2", "alpha", "srlip"];

fn read_claims(r: &mut Reader<'_>) -> crate::error::Result<ClaimsJson> {
    let mut c = ClaimsJson::default();
    let mut f = Fields::new(CLAIM_FIELDS);
    r.object("struct ClaimsJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => c.ldp = r.optional(Reader::f64)?,
            1 => c.ldp_x = r.optional(Reader::f64)?,
            2 => c.lip = r.optional(Reader::f64)?,
            3 => c.alip = r.optional(read_alip)?,
            4 => c.bp_lip = r.optional(read_bp_lip)?,
            5 => c.l1 = r.optional(read_alip)?,
            6 => c.chi2 = r.optional(read_alip)?,
            7 => c.alpha = r.optional(read_alpha)?,
            _ => c.srlip = r.optional(read_srlip)?,
        }
        Ok(())
    })?;
    Ok(c)
}

fn read_alip(r: &mut Reader<'_>) -> crate::error::Result<AlipJson> {
    let mut v = [0.0; 2];
    r.numbers("struct AlipJson", &["eps_l", "eps_u"], &["eps_l", "eps_u"], &mut v)?;
    Ok(AlipJson { eps_l: v[0], eps_u: v[1] })
}

fn read_alpha(r: &mut Reader<'_>) -> crate::error::Result<AlphaLiftJson> {
    let mut v = [0.0; 3];
    let names = &["order", "eps_l", "eps_u"];
    r.numbers("struct AlphaLiftJson", names, names, &mut v)?;
    Ok(AlphaLiftJson { order: v[0], eps_l: v[1], eps_u: v[2] })
}

fn read_bp_lip(r: &mut Reader<'_>) -> crate::error::Result<BpLipJson> {
    let mut b = BpLipJson { eps: 0.0, priors: Vec::new() };
    let mut f = Fields::new(&["eps", "priors"]);
    r.object("struct BpLipJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => b.eps = r.f64()?,
            _ => {
                let too_many = |n| {
                    crate::error::Error::invalid(
                        "claims.bp_lip.priors",
                        alloc::format!("needs 1..={} priors, got {n}", super::MAX_PRIORS),
                    )
                };
                b.priors = read_rows(r, "claims.bp_lip.priors", super::MAX_PRIORS, &too_many)?;
            }
        }
        Ok(())
    })?;
    f.require(r, &["eps", "priors"])?;
    Ok(b)
}

fn read_srlip(r: &mut Reader<'_>) -> crate::error::Result<SrlipJson> {
    let mut s = SrlipJson { eps: 0.0, attributes: Vec::new() };
    let mut f = Fields::new(&["eps", "attributes"]);
    r.object("struct SrlipJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => s.eps = r.f64()?,
            _ => {
                let mut a = Vec::new();
                let max = super::MAX_SRLIP_ATTRIBUTES;
                let too_many = |n| {
                    crate::error::Error::invalid(
                        "claims.srlip.attributes",
                        alloc::format!("needs 1..={max} attributes, got {n}"),
                    )
                };
                r.bounded_array(max, &too_many, &mut |r| {
                    a.push(crate::numeric::saturating_usize(r.unsigned("usize", u64::MAX)?));
                    Ok(())
                })?;
                s.attributes = a;
            }
        }
        Ok(())
    })?;
    f.require(r, &["eps", "attributes"])?;
    Ok(s)
}
