//! The continuous calculators over plain numbers, each validated into its type under the
//! name the tests assert, as a caller at the boundary does: the tests keep their
//! literals. Included by the unit tests and by the integration tests of `design/tests/`.
#![allow(dead_code)] // not every includer calls every function

use super::real;
#[allow(unused_imports)] // the rest of the module, for an includer that uses it as such
pub use super::real::*;
use privlift::param::{Delta, Epsilon, Probability};
use privlift::Result;

fn eps(e: f64) -> Result<Epsilon> {
    Epsilon::new("epsilon", e)
}

fn delta(d: f64) -> Result<Delta> {
    Delta::new("delta", d)
}

pub fn delta_at(e: f64, sigma_n: f64, x: f64, prior: &real::Gaussian) -> Result<real::LipDelta> {
    real::delta_at(eps(e)?, sigma_n, x, prior)
}

pub fn delta_at_mixture(e: f64, sigma_n: f64, x: f64, prior: &real::GaussianMixture) -> Result<f64> {
    real::delta_at_mixture(eps(e)?, sigma_n, x, prior)
}

pub fn delta_on_domain(e: f64, sigma_n: f64, prior: &real::GaussianMixture, lo: f64, hi: f64) -> Result<f64> {
    real::delta_on_domain(eps(e)?, sigma_n, prior, lo, hi)
}

pub fn calibrate_at(e: f64, d: f64, x: f64, prior: &real::GaussianMixture) -> Result<real::Calibration> {
    real::calibrate_at(eps(e)?, delta(d)?, x, prior)
}

pub fn calibrate_on_domain(
    e: f64,
    d: f64,
    prior: &real::GaussianMixture,
    lo: f64,
    hi: f64,
) -> Result<real::Calibration> {
    real::calibrate_on_domain(eps(e)?, delta(d)?, prior, lo, hi)
}

pub fn vanilla_gaussian_delta(e: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    real::vanilla_gaussian_delta(eps(e)?, sigma, sensitivity)
}

pub fn analytic_gaussian_delta(e: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    real::analytic_gaussian_delta(eps(e)?, sigma, sensitivity)
}

pub fn analytic_gaussian_sigma(e: f64, d: f64, sensitivity: f64) -> Result<f64> {
    real::analytic_gaussian_sigma(eps(e)?, delta(d)?, sensitivity)
}

pub fn sampling_lambda(e: f64, d: f64) -> Result<f64> {
    Ok(real::sampling_lambda(eps(e)?, delta(d)?)?.get())
}

pub fn sampling_delta(e: f64, lambda: f64) -> Result<f64> {
    Ok(real::sampling_delta(eps(e)?, Probability::new("lambda", lambda)?))
}

pub fn sampling_delta_discrete(e: f64, lambda: f64, p: &[f64]) -> Result<f64> {
    real::sampling_delta_discrete(eps(e)?, Probability::new("lambda", lambda)?, p)
}
