//! Privacy accounting: what one guarantee implies about another, across notions (LIP,
//! LDP, BP-LIP, their approximate forms), across releases (composition) and across
//! priors (transferability). Every bound is from Jiang, Seif, Tandon, Li, *Context-Aware
//! Local Information Privacy* (IEEE TIFS 2021; "the paper" below), is checked in
//! `tests/accounting.rs` against the exact leakage [`crate::audit`] computes on random
//! instances, and says in its documentation how tight it is.
//!
//! Where the paper's printed statement is wrong, the function implements a corrected
//! bound that provably holds, and its documentation gives the counterexample and the
//! derivation: Cor 3's `(e^ε + 1)δ` ([`approx_lip_to_ldp`]), Cor 6's threshold
//! ([`transfer_eta_threshold`]), and the priors with zero entries that Thm 1, Prop 1 and
//! Thm 2 silently exclude ([`lip_to_ldp`], [`bp_lip_to_ldp`]).
//!
//! | file | paper | functions |
//! |---|---|---|
//! | `relations.rs` | Thm 1 (eq 9), Prop 1, Thm 2 | [`lip_to_ldp`], [`lip_to_ldp_exact`], [`lip_to_ldp_witness`], [`ldp_to_lip`], [`ldp_to_bp_lip`], [`bp_lip_to_ldp`] |
//! | `approximate.rs` | Def 1, Def 5, Cor 3 | [`ldp_delta`], [`lip_delta`], [`approx_ldp_to_lip`], [`approx_lip_to_ldp`] |
//! | `compose.rs` | Thm 4, Cor 4, Cor 5 (eq 11) | [`compose_lip`], [`compose_bp_lip`], [`sequential_lip`], [`compose_exact`], [`sequential_exact`], [`joint_channel`], [`product_channel`] |
//! | `transfer.rs` | Lemma 3, eq 12, Cor 6, Cor 7, Cor 8 | [`tv_distance`], [`transfer_eta`], [`transfer_lip_bound`], [`transfer_eta_threshold`], [`empirical_prior_eta`], [`family_transfer_eta`] |
//!
//! Conventions: leakages are in nats; `ε = +∞` is accepted (an unbounded leakage, as the
//! audit reports it) and gives `+∞`; a NaN or negative ε, a probability outside its range
//! and a β outside (0, 1) are `invalid_argument`. Pmin is `min_x P(x)` over the whole
//! alphabet ([`pmin`]) unless a function says it may be taken over the support
//! ([`support_pmin`]). Upper bounds are rounded up (see `round.rs`: every operation is
//! rounded towards the safe side), so a bound is never below its exact real value.

mod approximate;
mod compose;
mod relations;
mod round;
#[cfg(test)]
mod shims;
mod transfer;

pub use approximate::{approx_ldp_to_lip, approx_lip_to_ldp, ldp_delta, lip_delta};
pub use compose::{
    compose_bp_lip, compose_exact, compose_ldp, compose_lip, joint_channel, product_channel, sequential_exact,
    sequential_lip, JointLeakage, COMPOSE_EXACT_MAX_ENTRIES, COMPOSE_EXACT_MAX_OUTPUTS,
};
pub use relations::{bp_lip_to_ldp, ldp_to_bp_lip, ldp_to_lip, lip_to_ldp, lip_to_ldp_exact, lip_to_ldp_witness};
pub use transfer::{
    empirical_prior_eta, family_transfer_eta, transfer_eta, transfer_eta_threshold, transfer_lip_bound, tv_distance,
};

#[cfg(test)]
use crate::accounting as real;
use crate::document::check_distribution;
use crate::error::{Error, Result};
use crate::param::{Budget, Probability};
#[cfg(test)]
use {
    crate::document::Matrix,
    crate::param::{Delta, Epsilon},
};

/// `min_x P(x)` over the whole alphabet (0 if some value has probability 0): the Pmin of
/// the paper's Thm 1, Prop 1 and Thm 4.
///
/// # Errors
/// `empty_alphabet` for an empty prior; `non_finite`, `negative_probability`,
/// `not_normalized` if `prior` is not a distribution (tolerance 1e-9).
pub fn pmin(prior: &[f64]) -> Result<f64> {
    check_prior("prior", prior)?;
    Ok(prior.iter().copied().fold(f64::INFINITY, f64::min))
}

/// The smallest *positive* prior probability: the Pmin of the LDP → LIP direction, which
/// only involves inputs that can occur.
///
/// # Errors
/// As [`pmin`].
pub fn support_pmin(prior: &[f64]) -> Result<f64> {
    check_prior("prior", prior)?;
    Ok(prior.iter().copied().filter(|&p| p > 0.0).fold(f64::INFINITY, f64::min))
}

/// A Pmin that divides: in (0, 1] ([`Probability::nonzero`]).
pub(crate) fn positive_pmin(name: &str, p: Probability) -> Result<f64> {
    p.nonzero(name).map(Probability::get)
}

/// A non-empty probability vector.
pub(crate) fn check_prior(name: &str, p: &[f64]) -> Result<()> {
    if p.is_empty() {
        return Err(Error::EmptyAlphabet { field: name.into() });
    }
    check_distribution(name, p)
}

/// A non-empty list of leakages ε_k.
pub(crate) fn check_releases(name: &str, eps: &[Budget]) -> Result<()> {
    if eps.is_empty() {
        return Err(Error::invalid(name, "need at least one release"));
    }
    Ok(())
}
