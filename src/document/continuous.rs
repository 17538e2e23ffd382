//! The mechanism document for **continuous** data (kinds `"gaussian"`, `"laplace"`,
//! `"sampling"`): wire types and the validated [`ContinuousDocument`].
//!
//! ```
//! use privlift::mechanism::ContinuousPolicy;
//! use privlift::{parse_any, AnyDocument};
//! let AnyDocument::Continuous(doc) = parse_any(r#"{
//!   "format": "privlift-mechanism", "version": 1, "id": "age-gaussian-lip",
//!   "domain": { "lo": 0, "hi": 100, "step": 0.5 },
//!   "prior": { "gaussian": { "mean": 40, "sd": 12 } },
//!   "mechanism": { "kind": "gaussian", "sigma": 228 },
//!   "claims": { "lip": { "eps": 1.0, "delta": 1e-5 } }
//! }"#)? else { unreachable!() };
//! let mech = doc.verify(&ContinuousPolicy::default())?;  // audits the exact sampler
//! let mut rng = privlift::rng::DeterministicRngForTesting::seed_from_u64(7);
//! let y = mech.perturb(37.2, &mut rng)?;                  // on the lattice 0 + 0.5·j
//! let receipt = mech.receipt(y, Some(37.2))?;             // P(y|x)/P(y) over [0, 100]
//! assert!(receipt.user_ratio.unwrap() <= receipt.max_ratio);
//! # Ok::<(), privlift::Error>(())
//! ```
//!
//! * `domain`: the lattice `lo + k·step`, `k = 0..n−1`, `n = ⌊(hi − lo)/step⌋ + 1 ≤ 4096`
//!   ([`Lattice`]); a user's value must lie in `[lo, hi]` and is mapped to the nearest point.
//! * `prior`: `{"gaussian": {"mean", "sd"}}`, `{"gmm": {"weights", "means", "sds"}}` or
//!   `{"histogram": {"edges", "p"}}` (piecewise uniform); the prior over the lattice is the
//!   mass of each point's cell conditioned on the domain
//!   ([`ContinuousPrior::lattice_pmf`]).
//! * `mechanism`: `{"kind": "gaussian", "sigma": S}` (or `"sigma": [S_0, …, S_{n−1}]`, one
//!   per lattice point, at most 256 distinct), `{"kind": "laplace", "b": B}`,
//!   `{"kind": "sampling", "lambda": L}` (eq 20). Noise is exact discrete noise on the
//!   lattice (variance `(σ/step)²` / scale `b/step` rounded **up** to the sampler's
//!   rational; λ rounded **down** to a multiple of 2⁻⁶⁴): the audit uses those exact
//!   parameters, not these floats.
//! * `claims`: `{"lip": {"eps", "delta"}, "ldp": {"eps", "delta"}}` (δ defaults to 0):
//!   (ε, δ)-LIP by the paper's definition (3), (ε, δ)-LDP.
//! * `utility`: informational, never trusted.
//!
//! [`crate::parse_any`] reads a document of any family, dispatching on `mechanism.kind`.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::codec::decimal::Num;
use super::codec::writer::Pretty;
use super::{check_header, fields, FORMAT, VERSION};
use super::{ContinuousPrior, Gaussian, GaussianMixture, Histogram, Lattice};
use super::{Json, Object};
use crate::error::{Error, Result};
use crate::param::{Budget, Delta, Probability};
use crate::sample::lattice::LatticeMechanism;

/// Most components of a `gmm` prior.
pub const MAX_GMM_COMPONENTS: usize = 64;

/// The mechanism kinds of continuous documents.
pub const CONTINUOUS_KINDS: [&str; 3] = ["gaussian", "laplace", "sampling"];

/// `domain`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainJson {
    /// `lo`: the lower end of the domain and the first lattice point (finite, in the unit of the data).
    pub lo: f64,
    /// `hi`: the upper end of the domain (finite, > `lo`); the last lattice point is ≤ `hi`.
    pub hi: f64,
    /// `step`: the spacing of the lattice (finite, > 0); the domain may hold at most
    /// [`crate::sample::lattice::MAX_LATTICE_POINTS`] points.
    pub step: f64,
}

/// `prior` (externally tagged: `{"gaussian": {...}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum PriorJson {
    /// `{"gaussian": {"mean", "sd"}}`: the normal prior N(mean, sd²).
    Gaussian {
        /// `mean`: the mean (finite).
        mean: f64,
        /// `sd`: the standard deviation (finite, > 0).
        sd: f64,
    },
    /// `{"gmm": {"weights", "means", "sds"}}`: the Gaussian mixture Σ_i w_i N(μ_i, σ_i²), with
    /// 1 to [`MAX_GMM_COMPONENTS`] components.
    Gmm {
        /// `weights`: the component weights w_i, a probability distribution.
        weights: Vec<f64>,
        /// `means`: the component means μ_i (finite), one per weight.
        means: Vec<f64>,
        /// `sds`: the component standard deviations σ_i (finite, > 0), one per weight.
        sds: Vec<f64>,
    },
    /// `{"histogram": {"edges", "p"}}`: piecewise uniform, bin `i` is `[edges[i], edges[i+1])`
    /// with mass `p[i]`.
    Histogram {
        /// `edges`: the bin edges (finite, strictly increasing), one more than the bins.
        edges: Vec<f64>,
        /// `p`: the bin masses, a probability distribution over 1 to [`super::MAX_SYMBOLS`] bins.
        p: Vec<f64>,
    },
}

/// An (ε, δ) guarantee in nats: ε a [`Budget`], δ a [`Delta`] (0: pure ε). A claim's ε is
/// finite (read by `ContinuousClaims::from_wire`); a policy's may be +∞ (no limit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(into = "EpsDeltaJson")]
pub struct EpsDelta {
    /// ε in nats.
    pub eps: Budget,
    /// δ in [0, 1].
    pub delta: Delta,
}

/// What a continuous document promises, as verification compares it: each (ε, δ) read
/// from the wire record once, by `ContinuousClaims::from_wire`. Serialised as the
/// wire record (`{"lip": {"eps", "delta"}, "ldp": …}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(into = "ContinuousClaimsJson")]
pub struct ContinuousClaims {
    /// (ε, δ)-LIP, definition (3) of Jiang et al.
    pub lip: Option<EpsDelta>,
    /// (ε, δ)-LDP.
    pub ldp: Option<EpsDelta>,
}

/// `{"eps", "delta"}` as written; δ defaults to 0 (pure ε).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "EpsDelta", deny_unknown_fields)]
pub(crate) struct EpsDeltaJson {
    /// `eps`: ε in nats (finite, ≥ 0).
    pub(crate) eps: f64,
    /// `delta`: δ in [0, 1]; 0 when absent.
    #[serde(default)]
    pub(crate) delta: f64,
}

/// `claims` as written: each (ε, δ) optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "ContinuousClaims", deny_unknown_fields)]
pub(crate) struct ContinuousClaimsJson {
    /// `lip`: (ε, δ)-LIP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lip: Option<EpsDeltaJson>,
    /// `ldp`: (ε, δ)-LDP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ldp: Option<EpsDeltaJson>,
}

impl ContinuousClaims {
    /// The claims of the wire record, `lip` then `ldp`.
    ///
    /// # Errors
    /// `non_finite` naming `claims.NOTION.eps` or `.delta` for a NaN or ±∞ (either field
    /// first), then `invalid_argument` for ε < 0 or δ outside [0, 1].
    pub(crate) fn from_wire(w: ContinuousClaimsJson) -> Result<Self> {
        Ok(ContinuousClaims { lip: claim("claims.lip", w.lip)?, ldp: claim("claims.ldp", w.ldp)? })
    }

    /// The wire record of these claims.
    pub(crate) fn to_wire(self) -> ContinuousClaimsJson {
        ContinuousClaimsJson { lip: self.lip.map(Into::into), ldp: self.ldp.map(Into::into) }
    }
}

impl From<EpsDelta> for EpsDeltaJson {
    fn from(c: EpsDelta) -> Self {
        EpsDeltaJson { eps: c.eps.get(), delta: c.delta.get() }
    }
}

impl From<ContinuousClaims> for ContinuousClaimsJson {
    fn from(c: ContinuousClaims) -> Self {
        c.to_wire()
    }
}

/// One claimed (ε, δ) named `name` (`claims.lip`): finite, ε ≥ 0, δ ∈ [0, 1].
fn claim(name: &str, c: Option<EpsDeltaJson>) -> Result<Option<EpsDelta>> {
    let Some(c) = c else { return Ok(None) };
    // Non-finite numbers first (either field), then the ranges.
    for (f, v) in [("eps", c.eps), ("delta", c.delta)] {
        if !v.is_finite() {
            return Err(Error::field(alloc::format!("{name}.{f}")).non_finite());
        }
    }
    let eps = Budget::finite(&alloc::format!("{name}.eps"), c.eps)?;
    Ok(Some(EpsDelta { eps, delta: Delta::new(&alloc::format!("{name}.delta"), c.delta)? }))
}

/// A continuous document as it appears in JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinuousDocumentJson {
    /// `format`: must be [`FORMAT`] (`"privlift-mechanism"`).
    pub format: String,
    /// `version`: must be [`VERSION`].
    pub version: u64,
    /// `id`: the curator's name for this mechanism (free text, not validated).
    pub id: String,
    /// `description`: optional free text for people; never used for verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `domain`: the interval `[lo, hi]` and the lattice a value is mapped to.
    pub domain: DomainJson,
    /// `prior`: the prior density of the value, discretised onto the lattice.
    pub prior: PriorJson,
    /// `mechanism`: kept as a JSON value ([`super::Json`]) until its `kind` is known;
    /// duplicate keys are refused at every depth.
    pub mechanism: super::Json,
    /// `claims`: the (ε, δ) guarantees promised, in nats (each optional).
    #[serde(default)]
    pub(crate) claims: ContinuousClaimsJson,
    /// `utility`: informational utility figures; never used for verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility: Option<super::Json>,
}

/// How a continuous value is released (parameters as written in the document).
#[derive(Debug, Clone, PartialEq)]
pub enum ContinuousMechanism {
    /// `Y = x + step·Z`, discrete Gaussian `Z`; one σ, or one per lattice point.
    Gaussian {
        /// σ in the unit of the data (each finite, > 0): one value, or one per lattice point.
        sigma: Vec<f64>,
    },
    /// `Y = x + step·Z`, discrete Laplace `Z` of scale `b/step`.
    Laplace {
        /// The scale b in the unit of the data (finite, > 0).
        b: f64,
    },
    /// Eq 20: release `x` w.p. λ, else a fresh draw from the lattice prior.
    Sampling {
        /// The probability λ of releasing the user's own lattice point.
        lambda: Probability,
    },
}

impl ContinuousMechanism {
    /// The JSON `kind` tag.
    pub fn tag(&self) -> &'static str {
        match self {
            ContinuousMechanism::Gaussian { .. } => "gaussian",
            ContinuousMechanism::Laplace { .. } => "laplace",
            ContinuousMechanism::Sampling { .. } => "sampling",
        }
    }
    /// The `mechanism` object, built as a [`Json`] (no `serde_json::Value` in the client).
    fn to_json(&self) -> Json {
        let number = |v: f64| Json::Number(Num::F64(v));
        let (name, value) = match self {
            ContinuousMechanism::Gaussian { sigma } if sigma.len() == 1 => ("sigma", number(sigma[0])),
            ContinuousMechanism::Gaussian { sigma } => {
                ("sigma", Json::Array(sigma.iter().map(|&v| number(v)).collect()))
            }
            ContinuousMechanism::Laplace { b } => ("b", number(*b)),
            ContinuousMechanism::Sampling { lambda } => ("lambda", number(lambda.get())),
        };
        Json::Object(Object::new(vec![("kind".into(), Json::String(self.tag().into())), (name.into(), value)]))
    }
}

/// A validated continuous mechanism document.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinuousDocument {
    id: String,
    description: Option<String>,
    lattice: Lattice,
    prior_json: PriorJson,
    prior: ContinuousPrior,
    lattice_prior: Vec<f64>,
    mechanism: ContinuousMechanism,
    claims: ContinuousClaims,
    utility: Option<Json>,
}

/// The `mechanism.kind` of a JSON document, if it has one.
fn kind_of(v: &serde_json::Value) -> Option<&str> {
    v.get("mechanism")?.get("kind")?.as_str()
}

/// Whether a JSON document is continuous: a continuous `mechanism.kind` and no
/// discrete-shaped `labels` (a discrete document with such a kind stays on the discrete
/// path, which rejects it with `unsupported_mechanism`, as before).
pub fn is_continuous(v: &serde_json::Value) -> bool {
    kind_of(v).is_some_and(|k| CONTINUOUS_KINDS.contains(&k)) && v.get("labels").is_none()
}

/// The `mechanism` object by its `kind`: `{kind: "gaussian", sigma}` (one σ, or one per
/// lattice point), `{kind: "laplace", b}` or `{kind: "sampling", lambda}`, unknown fields
/// refused (λ checked here as a [`Probability`], the other values by [`LatticeMechanism`]'s
/// constructors). Read by hand, as
/// the discrete kinds' fields are (`fields`), not by serde's derive.
fn read_mechanism(m: &Json) -> Result<ContinuousMechanism> {
    const FIELD: &str = "mechanism";
    let kind = m
        .get("kind")
        .and_then(Json::as_str)
        .ok_or_else(|| Error::Json { message: "`mechanism.kind` is missing or not a string".into() })?;
    let member =
        |name: &str| -> Result<&Json> { fields::required(FIELD, fields::object(FIELD, m, &["kind", name])?, name) };
    Ok(match kind {
        "gaussian" => ContinuousMechanism::Gaussian {
            sigma: match member("sigma")? {
                v @ Json::Array(_) => fields::numbers("mechanism.sigma", v)?,
                v => vec![fields::number("mechanism.sigma", v)?],
            },
        },
        "laplace" => ContinuousMechanism::Laplace { b: fields::number("mechanism.b", member("b")?)? },
        "sampling" => {
            let lambda = fields::number("mechanism.lambda", member("lambda")?)?;
            ContinuousMechanism::Sampling { lambda: Probability::new("mechanism.lambda", lambda)? }
        }
        other => return Err(Error::UnsupportedMechanism { kind: other.into() }),
    })
}

/// Validates a prior in wire form.
///
/// # Errors
/// `invalid_argument` for a non-finite mean or an sd not finite and > 0 (naming the
/// field); `dimension_mismatch`, `empty_alphabet` and the distribution errors
/// (`not_normalized`, `negative_probability`, `non_finite`) for weights and histograms.
pub fn parse_prior(p: &PriorJson) -> Result<ContinuousPrior> {
    let gauss = |f: &str, m: f64, s: f64| {
        Gaussian::new(m, s).map_err(|e| match e {
            Error::InvalidArgument { name, reason } => Error::invalid(alloc::format!("prior.{f}.{name}"), reason),
            e => e,
        })
    };
    Ok(match p {
        PriorJson::Gaussian { mean, sd } => ContinuousPrior::Gaussian(gauss("gaussian", *mean, *sd)?),
        PriorJson::Gmm { weights, means, sds } => {
            if means.len() != weights.len() {
                return Err(Error::field("prior.gmm.means").dims(weights.len(), means.len()));
            }
            if sds.len() != weights.len() {
                return Err(Error::field("prior.gmm.sds").dims(weights.len(), sds.len()));
            }
            if weights.len() > MAX_GMM_COMPONENTS {
                return Err(Error::TooManySymbols {
                    field: "prior.gmm.weights".into(),
                    found: weights.len(),
                    max: MAX_GMM_COMPONENTS,
                });
            }
            let comps = means.iter().zip(sds).map(|(&m, &s)| gauss("gmm", m, s)).collect::<Result<Vec<_>>>()?;
            crate::document::check_distribution("prior.gmm.weights", weights)?;
            ContinuousPrior::Mixture(GaussianMixture::new(weights, &comps)?)
        }
        PriorJson::Histogram { edges, p } => ContinuousPrior::Histogram(Histogram::new(edges, p)?),
    })
}

impl ContinuousDocument {
    /// Parses and validates a continuous document.
    ///
    /// # Errors
    /// `json` (syntax, missing or unknown fields), `unsupported_format`,
    /// `unsupported_version`, `unsupported_mechanism` (a kind that is not continuous),
    /// and the validation errors of [`ContinuousDocument::from_wire`].
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_wire(ContinuousDocumentJson::read(text.as_bytes())?)
    }

    /// Validates a deserialised document: domain ([`Lattice::new`]), prior
    /// ([`parse_prior`], then the lattice pmf), mechanism parameters (σ, b > 0 and
    /// finite, one σ or one per point; λ in [0, 1]), claims (ε ≥ 0, δ ∈ [0, 1], finite).
    /// The exact sampler is built once here so that every parameter error surfaces now.
    ///
    /// # Errors
    /// As listed; every error names its field.
    pub fn from_wire(w: ContinuousDocumentJson) -> Result<Self> {
        check_header(&w.format, w.version)?;
        let lattice = Lattice::new(w.domain.lo, w.domain.hi, w.domain.step)?;
        let prior = parse_prior(&w.prior)?;
        let lattice_prior = prior.lattice_pmf(&lattice)?;
        let mechanism = read_mechanism(&w.mechanism)?;
        let claims = ContinuousClaims::from_wire(w.claims)?;
        let doc = ContinuousDocument {
            id: w.id,
            description: w.description,
            lattice,
            prior_json: w.prior,
            prior,
            lattice_prior,
            mechanism,
            claims,
            utility: w.utility,
        };
        doc.sampler()?;
        Ok(doc)
    }

    /// Builds a document (the curator side).
    ///
    /// # Errors
    /// As [`ContinuousDocument::from_wire`].
    pub fn new(
        id: &str,
        domain: DomainJson,
        prior: PriorJson,
        mechanism: ContinuousMechanism,
        claims: ContinuousClaims,
    ) -> Result<Self> {
        Self::from_wire(ContinuousDocumentJson {
            format: FORMAT.into(),
            version: VERSION,
            id: id.into(),
            description: None,
            domain,
            prior,
            mechanism: mechanism.to_json(),
            claims: claims.to_wire(),
            utility: None,
        })
    }

    /// The exact lattice sampler this document describes.
    ///
    /// # Errors
    /// The parameter errors of [`LatticeMechanism`]'s constructors.
    pub fn sampler(&self) -> Result<LatticeMechanism> {
        let (l, p) = (self.lattice, self.lattice_prior.clone());
        match &self.mechanism {
            ContinuousMechanism::Gaussian { sigma } => LatticeMechanism::gaussian(l, p, sigma),
            ContinuousMechanism::Laplace { b } => LatticeMechanism::laplace(l, p, *b),
            ContinuousMechanism::Sampling { lambda } => LatticeMechanism::sampling(l, p, *lambda),
        }
    }

    /// The document back in its wire form (for printing).
    pub fn to_wire(&self) -> ContinuousDocumentJson {
        ContinuousDocumentJson {
            format: FORMAT.into(),
            version: VERSION,
            id: self.id.clone(),
            description: self.description.clone(),
            domain: DomainJson { lo: self.lattice.lo(), hi: self.lattice.hi(), step: self.lattice.step() },
            prior: self.prior_json.clone(),
            mechanism: self.mechanism.to_json(),
            claims: self.claims.to_wire(),
            utility: self.utility.clone(),
        }
    }

    /// Pretty JSON: [`ContinuousDocument::to_wire`] as `serde_json::to_string_pretty` writes
    /// it, byte for byte, written by hand (`writer.rs`; a test compares the two).
    pub fn to_json(&self) -> String {
        let w = self.to_wire();
        let mut j = Pretty::new();
        j.object();
        j.key("format");
        j.string(&w.format);
        j.key("version");
        j.u64(w.version);
        j.key("id");
        j.string(&w.id);
        if let Some(d) = &w.description {
            j.key("description");
            j.string(d);
        }
        j.key("domain");
        j.f64_members(&[("lo", w.domain.lo), ("hi", w.domain.hi), ("step", w.domain.step)]);
        j.key("prior");
        j.object();
        match &w.prior {
            PriorJson::Gaussian { mean, sd } => {
                j.key("gaussian");
                j.f64_members(&[("mean", *mean), ("sd", *sd)]);
            }
            PriorJson::Gmm { weights, means, sds } => {
                j.key("gmm");
                j.object();
                for (k, v) in [("weights", weights), ("means", means), ("sds", sds)] {
                    j.key(k);
                    j.f64s(v);
                }
                j.end_object();
            }
            PriorJson::Histogram { edges, p } => {
                j.key("histogram");
                j.object();
                for (k, v) in [("edges", edges), ("p", p)] {
                    j.key(k);
                    j.f64s(v);
                }
                j.end_object();
            }
        }
        j.end_object();
        j.key("mechanism");
        j.value(&w.mechanism);
        j.key("claims");
        j.object();
        for (k, c) in [("lip", w.claims.lip), ("ldp", w.claims.ldp)] {
            if let Some(c) = c {
                j.key(k);
                j.f64_members(&[("eps", c.eps), ("delta", c.delta)]);
            }
        }
        j.end_object();
        if let Some(u) = &w.utility {
            j.key("utility");
            j.value(u);
        }
        j.end_object();
        j.finish()
    }

    /// The document's `id`.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The free-text `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The lattice of the `domain`.
    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }
    /// The validated continuous prior (before discretisation; see [`ContinuousDocument::lattice_prior`]).
    pub fn prior(&self) -> &ContinuousPrior {
        &self.prior
    }
    /// The `prior` as written in the document.
    pub fn prior_json(&self) -> &PriorJson {
        &self.prior_json
    }
    /// The prior over the lattice points.
    pub fn lattice_prior(&self) -> &[f64] {
        &self.lattice_prior
    }
    /// The mechanism with its parameters as written (the sampler may round them: see
    /// [`ContinuousDocument::sampler`]).
    pub fn mechanism(&self) -> &ContinuousMechanism {
        &self.mechanism
    }
    /// The claimed (ε, δ) guarantees, in nats (not yet verified).
    pub fn claims(&self) -> &ContinuousClaims {
        &self.claims
    }
    /// The informational `utility` figures, if any; never used for verification
    /// ([`Json::to_value`] gives them as a `serde_json::Value`).
    pub fn utility(&self) -> Option<&Json> {
        self.utility.as_ref()
    }
    /// Attaches informational utility figures.
    pub fn with_utility(mut self, utility: serde_json::Value) -> Self {
        self.utility = Some(utility.into());
        self
    }
    /// Sets the free-text description.
    pub fn with_description(mut self, text: &str) -> Self {
        self.description = Some(text.into());
        self
    }
    /// Replaces the claims (already checked: they are [`ContinuousClaims`]; a claim's ε
    /// must be finite, as the document's reader requires).
    ///
    /// # Errors
    /// `non_finite` naming `claims.NOTION.eps` for an infinite ε.
    pub fn with_claims(mut self, claims: ContinuousClaims) -> Result<Self> {
        self.claims = ContinuousClaims::from_wire(claims.to_wire())?;
        Ok(self)
    }
}

// ---------------------------------------------------------------------------------------
// Reading the wire types without serde (`super::codec::reader`), as the discrete document is read
// (`DocumentJson::read`): what `ContinuousDocument::from_json` and the npm client use. The
// derived `Deserialize` impls read the same documents (tests/reader.rs compares the two).

use super::codec::reader::{Fields, Reader};

impl ContinuousDocumentJson {
    /// Reads a continuous document's JSON text (UTF-8).
    ///
    /// # Errors
    /// `json` for a syntax error, a value of the wrong type, or an unknown, duplicate or
    /// missing field, with its position.
    pub fn read(bytes: &[u8]) -> Result<ContinuousDocumentJson> {
        let mut r = Reader::new(bytes);
        let d = read_continuous(&mut r)?;
        r.end()?;
        Ok(d)
    }
}

const CONTINUOUS_FIELDS: &[&str] =
    &["format", "version", "id", "description", "domain", "prior", "mechanism", "claims", "utility"];

fn read_continuous(r: &mut Reader<'_>) -> Result<ContinuousDocumentJson> {
    let (mut format, mut version, mut id, mut description) = (String::new(), 0, String::new(), None);
    let (mut domain, mut prior) = (None, None);
    let (mut mechanism, mut claims, mut utility) = (super::Json::Null, ContinuousClaimsJson::default(), None);
    let mut f = Fields::new(CONTINUOUS_FIELDS);
    r.object("struct ContinuousDocumentJson", &mut |r, key| {
        match f.field(r, &key)? {
            0 => format = r.text()?,
            1 => version = r.unsigned("u64", u64::MAX)?,
            2 => id = r.text()?,
            3 => description = r.optional(Reader::text)?,
            4 => domain = Some(read_domain(r)?),
            5 => prior = Some(read_prior(r)?),
            6 => mechanism = super::codec::json::read(r)?,
            7 => claims = read_claims(r)?,
            _ => utility = r.optional(super::codec::json::read)?,
        }
        Ok(())
    })?;
    f.require(r, &["format", "version", "id", "domain", "prior", "mechanism"])?;
    // `require` checked both; kept as an error rather than a panic.
    let (Some(domain), Some(prior)) = (domain, prior) else {
        return Err(r.error("missing field `domain` or `prior`"));
    };
    Ok(ContinuousDocumentJson { format, version, id, description, domain, prior, mechanism, claims, utility })
}

fn read_domain(r: &mut Reader<'_>) -> Result<DomainJson> {
    let mut v = [0.0; 3];
    let names = &["lo", "hi", "step"];
    r.numbers("struct DomainJson", names, names, &mut v)?;
    Ok(DomainJson { lo: v[0], hi: v[1], step: v[2] })
}

/// `{"gaussian": {…}}`, `{"gmm": {…}}` or `{"histogram": {…}}`: exactly one key.
fn read_prior(r: &mut Reader<'_>) -> Result<PriorJson> {
    let mut prior = None;
    let mut f = Fields::new(&["gaussian", "gmm", "histogram"]);
    r.object("enum PriorJson", &mut |r, key| {
        if prior.is_some() {
            return Err(r.error("invalid type: map, expected a single-key map for enum PriorJson"));
        }
        prior = Some(match f.field(r, &key)? {
            0 => {
                let mut v = [0.0; 2];
                r.numbers("struct variant PriorJson::Gaussian", &["mean", "sd"], &["mean", "sd"], &mut v)?;
                PriorJson::Gaussian { mean: v[0], sd: v[1] }
            }
            1 => {
                let mut lists: [Vec<f64>; 3] = Default::default();
                r.number_lists("struct variant PriorJson::Gmm", &["weights", "means", "sds"], &mut lists)?;
                let [weights, means, sds] = lists;
                PriorJson::Gmm { weights, means, sds }
            }
            _ => {
                let mut lists: [Vec<f64>; 2] = Default::default();
                r.number_lists("struct variant PriorJson::Histogram", &["edges", "p"], &mut lists)?;
                let [edges, p] = lists;
                PriorJson::Histogram { edges, p }
            }
        });
        Ok(())
    })?;
    prior.ok_or_else(|| r.error("invalid length 0, expected enum PriorJson"))
}

fn read_claims(r: &mut Reader<'_>) -> Result<ContinuousClaimsJson> {
    let mut c = ContinuousClaimsJson::default();
    let mut f = Fields::new(&["lip", "ldp"]);
    r.object("struct ContinuousClaims", &mut |r, key| {
        let i = f.field(r, &key)?;
        let v = r.optional(read_eps_delta)?;
        if i == 0 {
            c.lip = v;
        } else {
            c.ldp = v;
        }
        Ok(())
    })?;
    Ok(c)
}

/// `{"eps", "delta"}`, `delta` 0 when absent.
fn read_eps_delta(r: &mut Reader<'_>) -> Result<EpsDeltaJson> {
    let mut v = [0.0; 2];
    r.numbers("struct EpsDelta", &["eps", "delta"], &["eps"], &mut v)?;
    Ok(EpsDeltaJson { eps: v[0], delta: v[1] })
}
