//! The open-domain kinds' designers: from ε (and an optional sparse prior) to a document
//! that fixes every parameter, with the defaults of the papers each kind comes from.
//!
//! * OLH: g = round(e^ε) + 1, the variance-optimal integer near e^ε + 1 (Wang, Blocki,
//!   Li, Jha 2017, §4.4).
//! * Hadamard response: 2^20 buckets of xxh32(hash_seed, x). The estimator's variance does
//!   not depend on the number of buckets (a report is one bit and an index); more buckets
//!   only shrink the mass of other values colliding with a candidate (about 2⁻²⁰ of the
//!   rest), and 2^20 is the largest for which the curator's transform of all reports is
//!   one dense fast Walsh–Hadamard transform (about 2·10⁷ additions).
//! * HCMS: m = 1024 columns, as Apple's deployment ("Learning with Privacy at Scale",
//!   2017); k = 2048 hash functions, so that the sketch the curator transforms (k·m =
//!   2²¹ cells) stays small while each value's k columns average out the collisions.
//! * Heavy hitters (PEM, Wang, Li, Jha, arXiv 1708.06674): OLH with the g above; one
//!   byte per round (ℓ_r = 8r up to 8·max_bytes, so round 1 enumerates 256 prefixes and
//!   each later round extends a kept prefix by 256), users split uniformly across the
//!   rounds — the defaults of pure-LDP's `PEMClient` (a fixed fragment length, one group
//!   per fragment, uniform groups), with the fragment a byte so that every candidate is
//!   a whole byte string.
//!
//! Every design's claim `ldp_x` is the LDP w.r.t. X of the quantised randomiser that
//! will run, as the core audits it ([`super::Randomiser`]); the document is verified by
//! the core before it is returned.

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::hash::{xxh32, NAME, VERSION};
use privlift::param::Epsilon;
use privlift::sample::structured::MixSampler;
use privlift::{Error, Result};
use serde::{Deserialize, Serialize};

use super::{check_value, MAX_BITS, MAX_BYTES, MAX_G};

/// `max_bytes` when none is given.
pub const DEFAULT_MAX_BYTES: usize = 32;
/// Hadamard response's buckets (bits).
pub const HADAMARD_BITS: u32 = 20;
/// HCMS's hash functions.
pub const HCMS_K: u32 = 2048;
/// HCMS's columns (Apple's).
pub const HCMS_M: u32 = 1024;
/// Most values a prior lists.
pub const MAX_PRIOR_VALUES: usize = 4096;

/// `P.json` of an open domain: listed values and their probabilities, Σp ≤ 1 (the rest is
/// every unlisted value). `labels` is read as another name of `values`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenPrior {
    /// The listed values.
    #[serde(alias = "labels")]
    pub values: Vec<String>,
    /// Their probabilities.
    pub p: Vec<f64>,
}

impl OpenPrior {
    /// Checks the prior against the spec: each value valid and distinct, each p in
    /// (0, 1], Σp ≤ 1 within [`privlift::param::SUM_TOLERANCE`], at most
    /// [`MAX_PRIOR_VALUES`] values.
    ///
    /// # Errors
    /// `invalid_argument` naming `prior` and what is wrong (never a value).
    pub fn check(&self, max_bytes: usize) -> Result<()> {
        let bad = |reason: String| Error::InvalidArgument { name: "prior".into(), reason };
        if self.values.len() != self.p.len() {
            return Err(bad(alloc::format!("{} values but {} probabilities", self.values.len(), self.p.len())));
        }
        if self.values.len() > MAX_PRIOR_VALUES {
            return Err(bad(alloc::format!("{} values; at most {MAX_PRIOR_VALUES}", self.values.len())));
        }
        let mut seen = alloc::collections::BTreeSet::new();
        for (i, v) in self.values.iter().enumerate() {
            check_value(v, max_bytes).map_err(|e| bad(alloc::format!("values[{i}]: {e}")))?;
            if !seen.insert(v.as_str()) {
                return Err(bad(alloc::format!("values[{i}] repeats an earlier value")));
            }
        }
        if let Some(i) = self.p.iter().position(|&p| !(p > 0.0 && p <= 1.0)) {
            return Err(bad(alloc::format!("p[{i}] must be in (0, 1]")));
        }
        let sum: f64 = self.p.iter().sum();
        if sum > 1.0 + privlift::param::SUM_TOLERANCE {
            return Err(bad("the probabilities add up to more than 1".into()));
        }
        Ok(())
    }
}

/// What the `design` of an open kind is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenRequest {
    /// `olh`, `hadamard`, `hcms` or `heavy-hitters`.
    pub method: String,
    /// ε of the randomiser (nats).
    pub epsilon: f64,
    /// [`DEFAULT_MAX_BYTES`] when `None` (required for heavy hitters).
    pub max_bytes: Option<usize>,
    /// The sparse prior, if any.
    pub prior: Option<OpenPrior>,
    /// The document id (default `METHOD-epsE`).
    pub id: Option<String>,
}

/// The methods of the open kinds, in help order.
pub const OPEN_METHODS: [&str; 4] = ["olh", "hadamard", "hcms", "heavy-hitters"];

/// OLH's g for ε: round(e^ε) + 1, within [2, 65536].
pub fn olh_g(epsilon: Epsilon) -> u32 {
    let e = libm::exp(epsilon.get());
    if e.is_finite() && e < f64::from(MAX_G) {
        (libm::round(e) as u32 + 1).clamp(2, MAX_G)
    } else {
        MAX_G
    }
}

/// PEM's rounds for `max_bytes`: one byte each.
pub fn pem_prefix_bits(max_bytes: usize) -> Vec<u32> {
    (1..=max_bytes as u32).map(|r| 8 * r).collect()
}

/// The LDP w.r.t. X of the quantised keep-or-uniform randomiser of ε over g outputs, as
/// the sampler draws it: ln(1 + W_κ / min_y W_y), rounded up to the next f64 (the largest
/// ratio of two inputs' probabilities of one output; the hash does not change it).
pub fn randomiser_ldp(epsilon: Epsilon, g: u32) -> Result<f64> {
    let e = libm::exp(epsilon.get());
    let kappa = if e.is_finite() { (e - 1.0) / (e + f64::from(g) - 1.0) } else { 1.0 };
    let (keep, w) = MixSampler::new(kappa, &alloc::vec![1.0; g as usize])?.weights();
    let min = w.iter().copied().min().unwrap_or(0);
    if min == 0 {
        return Ok(f64::INFINITY);
    }
    let ratio = libm::log1p(keep as f64 / min as f64);
    Ok(ratio + ratio * 4.0 * f64::EPSILON)
}

/// The document of `req` as pretty JSON, its members in the spec's order (every parameter fixed, `claims.ldp_x` the randomiser's).
///
/// # Errors
/// `invalid_argument` for an unknown method, ε outside (0, 700], `max_bytes` outside
/// [1, 4096], a bad prior (see [`OpenPrior::check`]), or a prior with heavy hitters.
pub fn design_open(req: &OpenRequest) -> Result<String> {
    let eps = Epsilon::positive("epsilon", req.epsilon)?;
    let max_bytes = match (req.max_bytes, req.method.as_str()) {
        (Some(b), _) => b,
        (None, "heavy-hitters") => {
            return Err(Error::InvalidArgument { name: "max_bytes".into(), reason: "heavy hitters need it".into() })
        }
        (None, _) => DEFAULT_MAX_BYTES,
    };
    if !(1..=MAX_BYTES).contains(&max_bytes) {
        return Err(Error::InvalidArgument {
            name: "max_bytes".into(),
            reason: alloc::format!("must be from 1 to {MAX_BYTES}, got {max_bytes}"),
        });
    }
    if let Some(prior) = &req.prior {
        if req.method == "heavy-hitters" {
            return Err(Error::InvalidArgument {
                name: "prior".into(),
                reason: "a heavy-hitter document has no prior".into(),
            });
        }
        prior.check(max_bytes)?;
    }
    let e = eps.get();
    let id = default_open_id(req, e);
    let hash = NAME;
    let hash_version = VERSION;
    let mechanism = match req.method.as_str() {
        "olh" => Mechanism::Olh { hash, hash_version, epsilon: e, g: olh_g(eps) },
        "hadamard" => Mechanism::Hadamard {
            hash,
            hash_version,
            epsilon: e,
            bits: HADAMARD_BITS.min(MAX_BITS),
            hash_seed: xxh32(0, id.as_bytes()),
        },
        "hcms" => Mechanism::Hcms { hash, hash_version, epsilon: e, k: HCMS_K, m: HCMS_M },
        "heavy-hitters" => {
            let prefix_bits = pem_prefix_bits(max_bytes);
            let split = alloc::vec![1.0 / prefix_bits.len() as f64; prefix_bits.len()];
            Mechanism::HeavyHitters { hash, hash_version, epsilon: e, g: olh_g(eps), prefix_bits, split }
        }
        other => {
            return Err(Error::InvalidArgument {
                name: "method".into(),
                reason: alloc::format!("`{other}` is not an open-domain method (expected {})", OPEN_METHODS.join(", ")),
            })
        }
    };
    let outputs = match &mechanism {
        Mechanism::Olh { g, .. } | Mechanism::HeavyHitters { g, .. } => *g,
        Mechanism::Hadamard { .. } | Mechanism::Hcms { .. } => 2,
    };
    let doc = OpenDocumentJson {
        format: "privlift-mechanism",
        version: 1,
        id,
        domain: Domain { kind: "strings", max_bytes },
        prior: req.prior.clone(),
        mechanism,
        claims: Claims { ldp_x: randomiser_ldp(eps, outputs)? },
    };
    serde_json::to_string_pretty(&doc).map_err(|e| Error::Json { message: e.to_string() })
}

/// A designed document, its members in the spec's order.
#[derive(Serialize)]
struct OpenDocumentJson {
    format: &'static str,
    version: u32,
    id: String,
    domain: Domain,
    #[serde(skip_serializing_if = "Option::is_none")]
    prior: Option<OpenPrior>,
    mechanism: Mechanism,
    claims: Claims,
}

#[derive(Serialize)]
struct Domain {
    kind: &'static str,
    max_bytes: usize,
}

#[derive(Serialize)]
struct Claims {
    ldp_x: f64,
}

/// The `mechanism` object of each kind, `kind` first.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Mechanism {
    Olh { hash: &'static str, hash_version: u64, epsilon: f64, g: u32 },
    Hadamard { hash: &'static str, hash_version: u64, epsilon: f64, bits: u32, hash_seed: u32 },
    Hcms { hash: &'static str, hash_version: u64, epsilon: f64, k: u32, m: u32 },
    HeavyHitters { hash: &'static str, hash_version: u64, epsilon: f64, g: u32, prefix_bits: Vec<u32>, split: Vec<f64> },
}

/// The id given, or `METHOD-epsE`.
fn default_open_id(req: &OpenRequest, eps: f64) -> String {
    req.id.clone().unwrap_or_else(|| crate::default_id(&req.method, Some(eps)))
}
