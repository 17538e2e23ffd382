//! The accounting functions over plain numbers, each validated into its type under the
//! name the tests assert, as a caller at the boundary does: the tests keep their
//! literals. Included by the unit tests and by `tests/accounting.rs`.

use super::{Budget, Delta, Epsilon, Matrix, Probability, Result};
use alloc::{format, vec::Vec};

fn budgets(name: &str, eps: &[f64]) -> Result<Vec<Budget>> {
    eps.iter().enumerate().map(|(k, &e)| Budget::new(&format!("{name}[{k}]"), e)).collect()
}

pub fn lip_to_ldp(eps: f64, pmin: f64) -> Result<f64> {
    super::real::lip_to_ldp(Budget::new("epsilon", eps)?, Probability::positive("pmin", pmin)?)
}

pub fn ldp_to_lip(eps: f64, pmin: f64) -> Result<f64> {
    super::real::ldp_to_lip(Budget::new("epsilon", eps)?, Probability::new("pmin", pmin)?)
}

pub fn lip_to_ldp_exact(prior: &[f64], eps: f64) -> Result<f64> {
    super::real::lip_to_ldp_exact(prior, Budget::new("epsilon", eps)?)
}

pub fn lip_to_ldp_witness(prior: &[f64], eps: f64) -> Result<Matrix> {
    super::real::lip_to_ldp_witness(prior, Budget::new("epsilon", eps)?)
}

pub fn ldp_to_bp_lip<P: AsRef<[f64]>>(eps: f64, priors: &[P]) -> Result<f64> {
    super::real::ldp_to_bp_lip(Budget::new("epsilon", eps)?, priors)
}

pub fn bp_lip_to_ldp<P: AsRef<[f64]>>(eps: f64, priors: &[P]) -> Result<f64> {
    super::real::bp_lip_to_ldp(Budget::new("epsilon", eps)?, priors)
}

pub fn ldp_delta(channel: &Matrix, eps: f64) -> Result<f64> {
    super::real::ldp_delta(channel, Epsilon::new("epsilon", eps)?)
}

pub fn lip_delta(prior: &[f64], channel: &Matrix, eps: f64) -> Result<f64> {
    super::real::lip_delta(prior, channel, Epsilon::new("epsilon", eps)?)
}

pub fn approx_ldp_to_lip(eps: f64, delta: f64) -> Result<(f64, f64)> {
    super::real::approx_ldp_to_lip(Budget::new("epsilon", eps)?, Delta::new("delta", delta)?)
}

pub fn approx_lip_to_ldp(eps: f64, delta: f64) -> Result<(f64, f64)> {
    super::real::approx_lip_to_ldp(Budget::new("epsilon", eps)?, Delta::new("delta", delta)?)
}

pub fn compose_lip(eps: &[f64], pmin: f64) -> Result<f64> {
    super::real::compose_lip(&budgets("eps_k", eps)?, Probability::positive("pmin", pmin)?)
}

#[allow(dead_code)] // not every includer calls it
pub fn compose_ldp(eps: &[f64]) -> Result<f64> {
    super::real::compose_ldp(&budgets("eps_k", eps)?)
}

#[allow(dead_code)] // not every includer calls it
pub fn compose_bp_lip<P: AsRef<[f64]>>(eps: &[f64], priors: &[P]) -> Result<f64> {
    super::real::compose_bp_lip(&budgets("eps_k", eps)?, priors)
}

pub fn sequential_lip(eps: &[f64], marginal_pmins: &[f64], joint_pmin: f64) -> Result<f64> {
    let pmins = marginal_pmins
        .iter()
        .enumerate()
        .map(|(k, &p)| Probability::positive(&format!("marginal_pmins[{k}]"), p))
        .collect::<Result<Vec<_>>>()?;
    super::real::sequential_lip(&budgets("eps_k", eps)?, &pmins, Probability::new("joint_pmin", joint_pmin)?)
}

pub fn transfer_lip_bound(eps: f64, eta: f64, p1min: f64) -> Result<f64> {
    super::real::transfer_lip_bound(
        Budget::new("epsilon", eps)?,
        Budget::new("eta", eta)?,
        Probability::new("p1min", p1min)?,
    )
}

pub fn transfer_eta_threshold(eps: f64, p1min: f64, c: f64) -> Result<f64> {
    let (eps, p1min) = (Budget::new("epsilon", eps)?, Probability::positive("p1min", p1min)?);
    super::real::transfer_eta_threshold(eps, p1min, Probability::new("c", c)?)
}

pub fn empirical_prior_eta(samples: u64, beta: f64, alphabet_size: usize, c: f64) -> Result<f64> {
    super::real::empirical_prior_eta(samples, Probability::new("beta", beta)?, alphabet_size, Probability::new("c", c)?)
}
