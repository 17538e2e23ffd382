//! The prior of a continuous document: a normal prior, a Gaussian mixture (the paper's
//! Remark 2) or a histogram, and its exact mass on each lattice cell.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::numeric::{mass, phi};
use crate::param::{finite, positive};
use crate::sample::lattice::Lattice;

/// A normal distribution `N(mean, sd²)` with finite mean and finite `sd > 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gaussian {
    mean: f64,
    sd: f64,
}

impl Gaussian {
    /// # Errors
    /// `invalid_argument` for a non-finite mean or an `sd` that is not finite and > 0.
    pub fn new(mean: f64, sd: f64) -> Result<Self> {
        Ok(Gaussian { mean: finite("mean", mean)?, sd: positive("sd", sd)? })
    }
    /// The mean.
    pub fn mean(&self) -> f64 {
        self.mean
    }
    /// The standard deviation (> 0).
    pub fn sd(&self) -> f64 {
        self.sd
    }
    /// Density at `y`.
    pub fn pdf(&self, y: f64) -> f64 {
        let z = (y - self.mean) / self.sd;
        libm::exp(-0.5 * z * z) / (self.sd * 2.5066282746310002)
    }
    /// `P(Y ≤ y)`.
    pub fn cdf(&self, y: f64) -> f64 {
        phi((y - self.mean) / self.sd)
    }
}

/// A Gaussian mixture `Σ_i w_i N(μ_i, σ_i²)` (Remark 2).
#[derive(Debug, Clone, PartialEq)]
pub struct GaussianMixture {
    weights: Vec<f64>,
    components: Vec<Gaussian>,
}

impl GaussianMixture {
    /// # Errors
    /// `empty_alphabet` for no component, `dimension_mismatch` if the lengths differ,
    /// and the distribution errors (`non_finite`, `negative_probability`,
    /// `not_normalized`) for `weights`.
    pub fn new(weights: &[f64], components: &[Gaussian]) -> Result<Self> {
        if components.is_empty() {
            return Err(Error::EmptyAlphabet { field: "components".into() });
        }
        if weights.len() != components.len() {
            return Err(Error::field("weights").dims(components.len(), weights.len()));
        }
        crate::param::check_distribution("weights", weights)?;
        Ok(GaussianMixture { weights: weights.to_vec(), components: components.to_vec() })
    }
    /// `(weight, component)` pairs.
    pub fn components(&self) -> impl Iterator<Item = (f64, Gaussian)> + '_ {
        self.weights.iter().copied().zip(self.components.iter().copied())
    }
    /// Density at `y`.
    pub fn pdf(&self, y: f64) -> f64 {
        self.components().map(|(w, g)| w * g.pdf(y)).sum()
    }
}

impl From<Gaussian> for GaussianMixture {
    fn from(g: Gaussian) -> Self {
        GaussianMixture { weights: alloc::vec![1.0], components: alloc::vec![g] }
    }
}

/// A piecewise-uniform prior density: bin `i` is `[edges[i], edges[i+1])` with mass `p[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    edges: Vec<f64>,
    p: Vec<f64>,
}

impl Histogram {
    /// # Errors
    /// `empty_alphabet` for no bin; `dimension_mismatch` unless `edges.len() = p.len() + 1`;
    /// `non_finite`; `invalid_argument` for edges not strictly increasing; the distribution
    /// errors for `p`; `too_many_symbols` beyond 4096 bins.
    pub fn new(edges: &[f64], p: &[f64]) -> Result<Self> {
        if p.is_empty() {
            return Err(Error::EmptyAlphabet { field: "prior.histogram.p".into() });
        }
        if p.len() > crate::document::MAX_SYMBOLS {
            return Err(Error::TooManySymbols {
                field: "prior.histogram.p".into(),
                found: p.len(),
                max: crate::document::MAX_SYMBOLS,
            });
        }
        if edges.len() != p.len() + 1 {
            return Err(Error::field("prior.histogram.edges").dims(p.len() + 1, edges.len()));
        }
        if edges.iter().any(|e| !e.is_finite()) {
            return Err(Error::field("prior.histogram.edges").non_finite());
        }
        if edges.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::invalid("prior.histogram.edges", "must be strictly increasing"));
        }
        crate::param::check_distribution("prior.histogram.p", p)?;
        Ok(Histogram { edges: edges.to_vec(), p: p.to_vec() })
    }
    /// The bin edges, strictly increasing (one more than the bins).
    pub fn edges(&self) -> &[f64] {
        &self.edges
    }
    /// The mass of each bin (sums to 1).
    pub fn p(&self) -> &[f64] {
        &self.p
    }
    fn mass(&self, a: f64, b: f64) -> f64 {
        let mut m = 0.0;
        for (i, &pi) in self.p.iter().enumerate() {
            let (l, r) = (self.edges[i], self.edges[i + 1]);
            let ov = b.min(r) - a.max(l);
            if ov > 0.0 {
                m += pi * ov / (r - l);
            }
        }
        m
    }
}

/// The prior of a continuous value (the document's `prior`).
#[derive(Debug, Clone, PartialEq)]
pub enum ContinuousPrior {
    /// A normal prior (`{"gaussian": …}`).
    Gaussian(Gaussian),
    /// A Gaussian mixture (`{"gmm": …}`).
    Mixture(GaussianMixture),
    /// A piecewise-uniform prior (`{"histogram": …}`).
    Histogram(Histogram),
}

impl ContinuousPrior {
    /// `P(a ≤ X ≤ b)`, `a ≤ b` (normal tails without cancellation).
    pub fn mass(&self, a: f64, b: f64) -> f64 {
        let g = |g: &Gaussian| mass((a - g.mean()) / g.sd(), (b - g.mean()) / g.sd());
        match self {
            ContinuousPrior::Gaussian(x) => g(x),
            ContinuousPrior::Mixture(m) => m.components().map(|(w, c)| w * g(&c)).sum(),
            ContinuousPrior::Histogram(h) => h.mass(a, b),
        }
    }

    /// As a Gaussian mixture, when it is one (for the continuous calculators).
    pub fn as_mixture(&self) -> Option<GaussianMixture> {
        match self {
            ContinuousPrior::Gaussian(g) => Some((*g).into()),
            ContinuousPrior::Mixture(m) => Some(m.clone()),
            ContinuousPrior::Histogram(_) => None,
        }
    }

    /// The lattice pmf `p_k`: the mass of each point's cell, conditioned on the domain.
    /// Deterministic (libm), so native and wasm agree bit for bit.
    ///
    /// # Errors
    /// `invalid_argument` (field `prior`) if the prior puts no (representable) mass on the
    /// domain.
    pub fn lattice_pmf(&self, lattice: &Lattice) -> Result<Vec<f64>> {
        let n = lattice.len();
        let h = 0.5 * lattice.step();
        let mut p: Vec<f64> = (0..n)
            .map(|k| {
                let x = lattice.value(k as i64);
                let a = if k == 0 { lattice.lo() } else { x - h };
                let b = if k + 1 == n { lattice.hi() } else { x + h };
                self.mass(a, b.max(a))
            })
            .collect();
        let total = crate::numeric::sum(&p);
        if !(total > 0.0 && total.is_finite()) {
            return Err(Error::invalid("prior", "puts no mass on the domain [lo, hi]"));
        }
        for v in &mut p {
            *v /= total;
        }
        Ok(p)
    }
}
