//! The randomiser every open kind runs after hashing: the quantised keep-or-uniform
//! sampler of the `krr` kind over g outputs (2 for the Hadamard kinds), κ = (e^ε − 1)/
//! (e^ε + g − 1), built once at verification; its exact entries are what the audit reads.
//!
//! # Why the hash cannot help the curator
//! Write a report as z = (ω, y): ω the part drawn independently of the value (OLH's seed
//! s; Hadamard's row j; HCMS's hash j and column l; heavy hitters' round r and seed s),
//! y the randomiser's output (for the Hadamard kinds the released bit). Each kind is
//! P(z | x) = P(ω) · K(y | v_ω(x)), where v_ω(x) ∈ [0, g) is a deterministic function of
//! x and ω alone:
//!
//! * `olh`: v = xxh32(s, x) mod g;
//! * `hadamard`: v = popcount(b(x) & j) mod 2 with b(x) = xxh32(hash_seed, x) mod 2^m;
//! * `hcms`: v = popcount(c & l) mod 2 with c = xxh32(j, x) mod m;
//! * `heavy_hitters`: v = xxh32(s, prefix_r(x)) mod g (the round r is drawn from the
//!   document's split by an alias table that does not read x, so P(r) is one number for
//!   every x, whatever its quantisation).
//!
//! K is the quantised keep-or-uniform channel: K(y | v) = a_y for v = y and b_y otherwise,
//! with a_y = (W_κ + W_y)/2⁶⁴ ≥ b_y = W_y/2⁶⁴ the sampler's integer weights. For any two
//! values x, x' and any report z, P(ω) cancels and
//! P(z | x)/P(z | x') = K(y | v_ω(x))/K(y | v_ω(x')) ∈ {1, a_y/b_y, b_y/a_y}, so
//! max_y ln(a_y/b_y) bounds the LDP w.r.t. X for **every** function v, hence for every
//! hash, seed and hash seed a curator could pick: the hash decides only which values
//! share a bucket (the estimates' accuracy), never a likelihood ratio. The bound is the
//! exact LDP as soon as some ω separates two values (one in bucket y, one not), which
//! any hash onto ≥ 2 buckets does for a domain of more than one value. It is the
//! `krr` audit of the same quantised channel over g symbols ([`crate::leakage`]), read
//! here unchanged.

use alloc::vec::Vec;

use crate::document::krr_keep;
use crate::error::{Error, Result};
use crate::leakage::{self, Exact};
use crate::param::Epsilon;
use crate::sample::{Categorical, MixSampler};

/// The quantised keep-or-uniform sampler over `g` outputs and its exact entries.
#[derive(Debug, Clone)]
pub(crate) struct Randomiser {
    sampler: Categorical,
    /// a_y = P(y | v = y), rounded once from the integer weights.
    pub(crate) a: Vec<f64>,
    /// b_y = P(y | v ≠ y), rounded once.
    pub(crate) b: Vec<f64>,
    /// a_y − b_y = W_κ/2⁶⁴ (the same for every y), rounded once: the exact difference,
    /// never the cancellation a_y − b_y.
    pub(crate) keep: f64,
}

impl Randomiser {
    /// The sampler of ε over `g` outputs.
    ///
    /// # Errors
    /// The sampler's (none for a validated document).
    pub(crate) fn new(g: u32, epsilon: Epsilon) -> Result<Self> {
        let g = g as usize;
        let sampler = MixSampler::new(krr_keep(g, epsilon)?, &alloc::vec![1.0; g])?;
        let keep = crate::sample::alias::probability(sampler.weights().0);
        let sampler = Categorical::Mix(sampler);
        let Exact::Mix(mx) = crate::verify::runtime::exact(&sampler) else {
            return Err(Error::wrong_kind("internal: a mixture's exact channel"));
        };
        Ok(Randomiser { sampler, a: mx.diag, b: mx.off, keep })
    }

    /// The audited LDP w.r.t. X, in nats (rounded up): the `krr` audit of the channel.
    pub(crate) fn ldp(&self) -> f64 {
        leakage::ldp_x(&Exact::Mix(leakage::MixExact { off: self.b.clone(), diag: self.a.clone() }))
    }

    /// The output for bucket `v` from one uniform word (the same work for every `v`).
    #[inline(always)]
    pub(crate) fn sample(&self, v: u32, word: u64) -> u32 {
        self.sampler.sample_word(v as usize, word) as u32
    }

    /// g.
    pub(crate) fn outputs(&self) -> usize {
        self.a.len()
    }
}
