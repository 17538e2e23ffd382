//! The open-domain document: a domain of strings, an optional sparse prior, one of the
//! kinds of [`OpenMechanism`] and its claims. O(1) bytes without a prior: every parameter
//! is a number, and the hash is named, not shipped.
//!
//! ```json
//! {
//!   "format": "privlift-mechanism", "version": 1, "id": "fruit-olh",
//!   "domain": {"kind": "strings", "max_bytes": 32},
//!   "prior": {"values": ["apple", "banana"], "p": [0.3, 0.2]},
//!   "mechanism": {"kind": "olh", "hash": "xxh32", "hash_version": 1, "epsilon": 1.0, "g": 4},
//!   "claims": {"ldp_x": 1.0, "lip": 1.0}
//! }
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use super::value::{self, MAX_VALUE_BYTES};
use crate::document::codec::first_repeat;
use crate::document::{MAX_SYMBOLS, SUM_TOLERANCE};
use crate::error::{Error, Result};
use crate::param::{Budget, Epsilon, Probability};

/// The `mechanism.kind` of every open-domain kind.
pub const OPEN_KINDS: [&str; 4] = ["olh", "hadamard", "hcms", "heavy_hitters"];
/// The largest g of `olh` and `heavy_hitters`.
pub const MAX_G: u32 = 65536;
/// The largest k (hash functions) and m (columns) of `hcms`.
pub const MAX_HCMS: u32 = 65536;
/// The largest `bits` of `hadamard` (the hash is 32 bits).
pub const MAX_HADAMARD_BITS: u32 = 32;

/// How a value is randomised. Every kind hashes the value (its prefix, for heavy hitters)
/// with [`super::hash`] onto a small alphabet, then randomises that with the quantised
/// keep-or-uniform sampler over g (or 2) outputs, κ = (e^ε − 1)/(e^ε + g − 1).
#[derive(Debug, Clone, PartialEq)]
pub enum OpenMechanism {
    /// Optimal local hashing (Wang, Blocki, Li, Jha, USENIX Security 2017): a seed s per
    /// report, y = krr_g(xxh32(s, x) mod g).
    Olh {
        /// ε of the randomiser.
        epsilon: Epsilon,
        /// The hash range g (2..=65536).
        g: u32,
    },
    /// Hadamard response (Acharya, Sun, Zhang, AISTATS 2019): b = xxh32(hash_seed, x) mod
    /// 2^bits, a uniform row j, the bit ⟨b, j⟩ mod 2 randomised by krr_2.
    Hadamard {
        /// ε of the randomiser.
        epsilon: Epsilon,
        /// m = log2 of the Hadamard order (1..=32).
        bits: u32,
        /// The seed of the one hash.
        hash_seed: u32,
    },
    /// The Hadamard count-mean sketch (Apple, "Learning with Privacy at Scale", 2017): a
    /// uniform hash j of k, c = xxh32(j, x) mod m, a uniform column l, the bit ⟨c, l⟩ mod 2
    /// randomised by krr_2.
    Hcms {
        /// ε of the randomiser.
        epsilon: Epsilon,
        /// The number of hash functions (seeds 0..k−1; 1..=65536).
        k: u32,
        /// The number of columns (a power of two, 2..=65536).
        m: u32,
    },
    /// Prefix-extension heavy hitters (PEM: Wang, Li, Jha, arXiv 1708.06674): a round r
    /// drawn from `split`, then OLH of the value's first ℓ_r bits.
    HeavyHitters {
        /// ε of the randomiser.
        epsilon: Epsilon,
        /// The hash range g of each round's OLH.
        g: u32,
        /// ℓ_1 < … < ℓ_R = 8·max_bytes: the prefix lengths in bits.
        prefix_bits: Vec<u32>,
        /// w_1..w_R: the probability of each round (Σ = 1).
        split: Vec<Probability>,
    },
}

impl OpenMechanism {
    /// The JSON `kind` tag.
    pub fn tag(&self) -> &'static str {
        match self {
            OpenMechanism::Olh { .. } => "olh",
            OpenMechanism::Hadamard { .. } => "hadamard",
            OpenMechanism::Hcms { .. } => "hcms",
            OpenMechanism::HeavyHitters { .. } => "heavy_hitters",
        }
    }
    /// ε of the randomiser.
    pub fn epsilon(&self) -> Epsilon {
        match self {
            OpenMechanism::Olh { epsilon, .. }
            | OpenMechanism::Hadamard { epsilon, .. }
            | OpenMechanism::Hcms { epsilon, .. }
            | OpenMechanism::HeavyHitters { epsilon, .. } => *epsilon,
        }
    }
    /// The randomiser's alphabet: g for `olh` and `heavy_hitters`, 2 (a bit) otherwise.
    pub fn outputs(&self) -> u32 {
        match self {
            OpenMechanism::Olh { g, .. } | OpenMechanism::HeavyHitters { g, .. } => *g,
            OpenMechanism::Hadamard { .. } | OpenMechanism::Hcms { .. } => 2,
        }
    }
    /// The number of heavy-hitter rounds (1 for the other kinds).
    pub fn rounds(&self) -> usize {
        match self {
            OpenMechanism::HeavyHitters { prefix_bits, .. } => prefix_bits.len(),
            _ => 1,
        }
    }

    /// Checks every parameter against `max_bytes`.
    fn validate(&self, max_bytes: usize) -> Result<()> {
        let bad = |name: &str, reason: String| Err(Error::invalid(name, reason));
        match self {
            OpenMechanism::Olh { g, .. } | OpenMechanism::HeavyHitters { g, .. } if !(2..=MAX_G).contains(g) => {
                return bad("mechanism.g", alloc::format!("must be in 2..={MAX_G}, got {g}"));
            }
            OpenMechanism::Hadamard { bits, .. } if !(1..=MAX_HADAMARD_BITS).contains(bits) => {
                return bad("mechanism.bits", alloc::format!("must be in 1..={MAX_HADAMARD_BITS}, got {bits}"));
            }
            OpenMechanism::Hcms { k, .. } if !(1..=MAX_HCMS).contains(k) => {
                return bad("mechanism.k", alloc::format!("must be in 1..={MAX_HCMS}, got {k}"));
            }
            OpenMechanism::Hcms { m, .. } if !(2..=MAX_HCMS).contains(m) || !m.is_power_of_two() => {
                return bad("mechanism.m", alloc::format!("must be a power of two in 2..={MAX_HCMS}, got {m}"));
            }
            OpenMechanism::HeavyHitters { prefix_bits, split, .. } => {
                let full = 8 * max_bytes as u64;
                if prefix_bits.is_empty() {
                    return Err(Error::EmptyAlphabet { field: "mechanism.prefix_bits".into() });
                }
                if prefix_bits[0] == 0 || prefix_bits.windows(2).any(|w| w[0] >= w[1]) {
                    return bad("mechanism.prefix_bits", "must be increasing lengths ≥ 1 bit".into());
                }
                if prefix_bits.last().map(|&l| u64::from(l)) != Some(full) {
                    return bad(
                        "mechanism.prefix_bits",
                        alloc::format!("the last round must cover the whole value, {full} bits (8·max_bytes)"),
                    );
                }
                if split.len() != prefix_bits.len() {
                    return Err(Error::field("mechanism.split").dims(prefix_bits.len(), split.len()));
                }
                let w: Vec<f64> = split.iter().map(|p| p.get()).collect();
                crate::param::check_distribution("mechanism.split", &w)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// A prior over listed values: each listed value a valid value, distinct, of probability
/// p > 0, Σp ≤ 1; 1 − Σp is the mass of every unlisted value together (how it spreads is
/// not fixed, and every bound is worst case over it).
#[derive(Debug, Clone, PartialEq)]
pub struct SparsePrior {
    values: Vec<String>,
    p: Vec<f64>,
    other: f64,
}

impl SparsePrior {
    /// Validates a sparse prior for values of at most `max_bytes` bytes.
    ///
    /// # Errors
    /// `empty_alphabet`, `too_many_symbols` (more than 4096 values), `dimension_mismatch`
    /// (`p` and `values` of different lengths), `invalid_argument` (a value breaking the
    /// value rule, a p in (0, 2^-900)), `negative_probability` (p = 0: list only values of
    /// positive mass), `duplicate_label`, `not_normalized` (Σp > 1).
    pub fn new(values: Vec<String>, p: Vec<Probability>, max_bytes: usize) -> Result<Self> {
        if values.is_empty() {
            return Err(Error::EmptyAlphabet { field: "prior.values".into() });
        }
        if values.len() > MAX_SYMBOLS {
            return Err(Error::TooManySymbols { field: "prior.values".into(), found: values.len(), max: MAX_SYMBOLS });
        }
        if p.len() != values.len() {
            return Err(Error::field("prior.p").dims(values.len(), p.len()));
        }
        for (i, v) in values.iter().enumerate() {
            value::checked(&alloc::format!("prior.values[{i}]"), v, max_bytes)?;
        }
        let p: Vec<f64> = p.into_iter().map(Probability::get).collect();
        crate::param::check_entries("prior.p", &p)?;
        crate::param::check_not_tiny("prior.p", &p)?;
        if let Some(i) = p.iter().position(|&q| q == 0.0) {
            return Err(Error::invalid(
                alloc::format!("prior.p[{i}]"),
                "a listed value needs a probability > 0 (leave it out instead)",
            ));
        }
        if let Some(label) = repeated(&values) {
            return Err(Error::DuplicateLabel { field: "prior.values".into(), label: label.into() });
        }
        let sum = crate::numeric::sum(&p);
        if sum.is_nan() || sum > 1.0 + SUM_TOLERANCE {
            return Err(Error::field("prior.p").not_normalized(sum));
        }
        Ok(SparsePrior { values, p, other: (1.0 - sum).max(0.0) })
    }
    /// The listed values.
    pub fn values(&self) -> &[String] {
        &self.values
    }
    /// Their probabilities.
    pub fn p(&self) -> &[f64] {
        &self.p
    }
    /// 1 − Σp: the mass of every unlisted value together (0 within the sum tolerance).
    pub fn other_mass(&self) -> f64 {
        self.other
    }
}

/// The first value (in list order) equal to an earlier one ([`first_repeat`]: O(n log n)
/// comparisons whatever the values).
fn repeated(values: &[String]) -> Option<&str> {
    first_repeat(&values.iter().map(String::as_str).collect::<Vec<_>>()).map(|i| values[i].as_str())
}

/// What an open document claims, in nats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenClaims {
    /// ε-LDP w.r.t. X (required).
    pub ldp_x: Budget,
    /// ε-LIP w.r.t. X under the prior (only with a prior).
    pub lip: Option<Budget>,
}

/// A validated open-domain document.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenDocument {
    pub(super) id: String,
    pub(super) description: Option<String>,
    pub(super) max_bytes: usize,
    pub(super) prior: Option<SparsePrior>,
    pub(super) mechanism: OpenMechanism,
    pub(super) claims: OpenClaims,
}

impl OpenDocument {
    /// Validates an open document (the curator's designers and the reader build it here).
    ///
    /// # Errors
    /// `invalid_argument` for `max_bytes` outside 1..=4096, a parameter outside its range,
    /// a `lip` claim without a prior, an infinite claim; the errors of
    /// [`SparsePrior::new`] were the prior's.
    pub fn new(
        id: &str,
        max_bytes: usize,
        prior: Option<SparsePrior>,
        mechanism: OpenMechanism,
        claims: OpenClaims,
    ) -> Result<Self> {
        if !(1..=MAX_VALUE_BYTES).contains(&max_bytes) {
            return Err(Error::invalid(
                "domain.max_bytes",
                alloc::format!("must be in 1..={MAX_VALUE_BYTES}, got {max_bytes}"),
            ));
        }
        if let Some(p) = &prior {
            if let Some(i) = p.values.iter().position(|v| v.len() > max_bytes) {
                value::checked(&alloc::format!("prior.values[{i}]"), &p.values[i], max_bytes)?;
            }
        }
        mechanism.validate(max_bytes)?;
        Budget::finite("claims.ldp_x", claims.ldp_x.get())?;
        if let Some(l) = claims.lip {
            Budget::finite("claims.lip", l.get())?;
            if prior.is_none() {
                return Err(Error::invalid("claims.lip", "LIP is a claim under a prior; this document has none"));
            }
        }
        Ok(OpenDocument { id: id.into(), description: None, max_bytes, prior, mechanism, claims })
    }

    /// Sets the free-text `description` (not audited: a note for people).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// The document's `id`.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The free-text `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The most UTF-8 bytes a value may have.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }
    /// The sparse prior, if any.
    pub fn prior(&self) -> Option<&SparsePrior> {
        self.prior.as_ref()
    }
    /// The mechanism.
    pub fn mechanism(&self) -> &OpenMechanism {
        &self.mechanism
    }
    /// The claims (not yet verified).
    pub fn claims(&self) -> OpenClaims {
        self.claims
    }
    /// The bytes of `value` when it obeys the document's value rule.
    ///
    /// # Errors
    /// `invalid_argument` naming `value` (never echoing it).
    pub fn check_value<'a>(&self, value: &'a str) -> Result<&'a [u8]> {
        value::checked("value", value, self.max_bytes)
    }
}
