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
//! Every design's claims are the core's audit of the quantised randomiser that will run
//! (`ldp_x`, and with a prior `lip`); the document is verified by the core before it is
//! returned.

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::hash::xxh32;
use privlift::open::{OpenClaims, OpenDocument, OpenMechanism, SparsePrior};
use privlift::param::{Budget, Epsilon, Probability};
use privlift::{Error, Policy, Result};
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
        let bad = |reason: String| Error::invalid("prior", reason);
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
    /// ε of the randomiser (nats; a designer's, > 0: [`Epsilon::positive`]).
    pub epsilon: Epsilon,
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

/// The document of `req`, verified by the core: every parameter fixed, its claims the
/// core's audit of the randomiser that will run (`ldp_x`; with a prior also `lip`, the LIP
/// w.r.t. X under it for every seed).
///
/// # Errors
/// `invalid_argument` for an unknown method, ε = 0, `max_bytes` outside
/// [1, 4096], a bad prior (see [`OpenPrior::check`]), or a prior with heavy hitters; the
/// core's verification errors (none for a design within these ranges).
pub fn design_open(req: &OpenRequest) -> Result<OpenDocument> {
    // A designer's ε is > 0 on top of the rule of `Epsilon` (no design reveals nothing).
    let eps = Epsilon::positive("epsilon", req.epsilon.get())?;
    let max_bytes = match (req.max_bytes, req.method.as_str()) {
        (Some(b), _) => b,
        (None, "heavy-hitters") => return Err(Error::invalid("max_bytes", "heavy hitters need it")),
        (None, _) => DEFAULT_MAX_BYTES,
    };
    if !(1..=MAX_BYTES).contains(&max_bytes) {
        return Err(Error::invalid("max_bytes", alloc::format!("must be from 1 to {MAX_BYTES}, got {max_bytes}")));
    }
    let prior = match &req.prior {
        Some(_) if req.method == "heavy-hitters" => {
            return Err(Error::invalid("prior", "a heavy-hitter document has no prior"))
        }
        Some(prior) => {
            prior.check(max_bytes)?;
            let p = prior.p.iter().map(|&p| Probability::new("prior.p", p)).collect::<Result<Vec<_>>>()?;
            Some(SparsePrior::new(prior.values.clone(), p, max_bytes)?)
        }
        None => None,
    };
    let id = req.id.clone().unwrap_or_else(|| crate::default_id(&req.method, Some(eps)));
    let mechanism = match req.method.as_str() {
        "olh" => OpenMechanism::Olh { epsilon: eps, g: olh_g(eps) },
        "hadamard" => OpenMechanism::Hadamard {
            epsilon: eps,
            bits: HADAMARD_BITS.min(MAX_BITS),
            hash_seed: xxh32(0, id.as_bytes()),
        },
        "hcms" => OpenMechanism::Hcms { epsilon: eps, k: HCMS_K, m: HCMS_M },
        "heavy-hitters" => {
            let prefix_bits = pem_prefix_bits(max_bytes);
            let w = 1.0 / prefix_bits.len() as f64;
            let split = prefix_bits.iter().map(|_| Probability::new("split", w)).collect::<Result<Vec<_>>>()?;
            OpenMechanism::HeavyHitters { epsilon: eps, g: olh_g(eps), prefix_bits, split }
        }
        other => {
            return Err(Error::invalid(
                "method",
                alloc::format!("`{other}` is not an open-domain method (expected {})", OPEN_METHODS.join(", ")),
            ))
        }
    };
    // The draft claims ε; the published claims are the audit's (the quantised sampler's
    // LDP is ε rounded up by at most a few ulps).
    let draft_claims = OpenClaims { ldp_x: Budget::new("claims.ldp_x", eps.get())?, lip: None };
    let draft = OpenDocument::new(&id, max_bytes, prior.clone(), mechanism.clone(), draft_claims)?;
    let audit = draft.audit()?;
    let claims = OpenClaims {
        ldp_x: Budget::new("claims.ldp_x", audit.ldp_x)?,
        lip: prior.is_some().then(|| Budget::new("claims.lip", audit.lip)).transpose()?,
    };
    let doc = OpenDocument::new(&id, max_bytes, prior, mechanism, claims)?;
    doc.verify(&Policy::default())?;
    Ok(doc)
}
