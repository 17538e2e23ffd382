//! The exact samplers of the continuous mechanisms **on a lattice**: a bounded domain
//! `[lo, hi]` discretised to the points `x_k = lo + k·step`, `k = 0..n−1` ([`Lattice`]).
//! A user's value is mapped to its nearest point ([`lattice_index`]) and noise is drawn
//! exactly on the same lattice, so a continuous mechanism is a discrete channel
//! `P(j | k)` whose (ε, δ) the audit computes exactly. Discrete Gaussian or Laplace noise added to the
//! lattice index ([`crate::sample::discrete`]), or the sampling mechanism (release `k`
//! with probability λ, else a fresh draw from the lattice prior). Their exact audit is
//! [`crate::leakage::lattice`].
//!
//! # Timing
//! Additive noise: the samplers draw `Z` without seeing `k` and then add it, so the
//! running time depends on the random bits and the noise **scale** only. With one σ per
//! lattice point (instance-dependent Gaussian), the scale is chosen from `x`: the running
//! time then depends on σ(x) and so leaks which σ-group `x` is in to anyone timing the
//! device (outside the local model; documented, not hidden). The sampling mechanism
//! draws two 64-bit words and selects branch-free (one alias-table load, see
//! `sample/alias/mod.rs`).

use alloc::vec::Vec;
use rand::{CryptoRng, RngCore};

use crate::error::{Error, Result};
use crate::numeric::Shown;
use crate::param::{finite, positive, Probability};
use crate::sample::discrete::{DiscreteGaussian, DiscreteLaplace};
use crate::sample::AliasTable;

/// Most lattice points a domain may have.
pub const MAX_LATTICE_POINTS: usize = 4096;

const TWO_48: f64 = (1u64 << 48) as f64;
const TWO_49: f64 = (1u64 << 49) as f64;

/// A domain spans ⌊(hi − lo)/step⌋ steps, the quotient first raised by this relative
/// slack: a quotient within it below an integer counts as that integer, so a `hi` on the
/// lattice whose quotient the division rounds a few ulps low still counts. An accepted
/// quotient is below [`MAX_LATTICE_POINTS`], so the slack is below 1e-8 of a step: a `hi`
/// truly short of a point is not moved onto it.
const STEP_COUNT_SLACK: f64 = 1e-12;

/// The points `lo + k·step`, `k = 0..n−1`, `n = ⌊(hi − lo)/step⌋ + 1` (the quotient is
/// taken with a relative slack of 1e-12, so that `hi` on the lattice up to rounding
/// counts as on it). The last point is `≤ hi` (up to that slack).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    lo: f64,
    hi: f64,
    step: f64,
    n: usize,
}

impl Lattice {
    /// # Errors
    /// `non_finite` (field `domain.lo`/`hi`/`step`); `invalid_argument` for `lo ≥ hi`,
    /// `step ≤ 0`, or a step too small for the domain's magnitude (field `domain.step`:
    /// lo or hi more than 2⁴⁹ steps from 0, or 2⁴⁸ steps beyond them not finite);
    /// `too_many_symbols` (field `domain`) beyond [`MAX_LATTICE_POINTS`].
    pub fn new(lo: f64, hi: f64, step: f64) -> Result<Self> {
        for (name, v) in [("domain.lo", lo), ("domain.hi", hi), ("domain.step", step)] {
            if !v.is_finite() {
                return Err(Error::field(name).non_finite());
            }
        }
        if lo >= hi {
            return Err(Error::invalid(
                "domain.hi",
                alloc::format!(
                    "the domain needs lo < hi; got [{lo}, {hi}]",
                    lo = crate::numeric::Shown(lo),
                    hi = crate::numeric::Shown(hi)
                ),
            ));
        }
        if step <= 0.0 {
            return Err(Error::invalid(
                "domain.step",
                alloc::format!("must be > 0; got {step}", step = crate::numeric::Shown(step)),
            ));
        }
        // Released values lo + step·j, j up to ±2⁴⁷ beyond the domain (a Laplace noise
        // of the widest scale a document may state, 2⁴⁰ steps, leaves that range with
        // probability e^{−128}): distinct, recovered as j by `output_index`, and finite.
        // Both need the domain's ends within 2⁴⁹ steps of 0 (then |y| < 2⁵⁰·step, whose
        // rounding is below a quarter step), and step·2⁴⁸ beyond them finite.
        let far = lo.abs().max(hi.abs());
        if far > TWO_49 * step || !(far + step * TWO_48).is_finite() {
            return Err(Error::invalid(
                "domain.step",
                alloc::format!(
                    "the released values lo + step·j must stay distinct and finite: lo and hi within \
                     2^49 steps of 0, and 2^48 steps beyond them finite; got step {step} for [{lo}, {hi}]",
                    step = crate::numeric::Shown(step),
                    lo = crate::numeric::Shown(lo),
                    hi = crate::numeric::Shown(hi)
                ),
            ));
        }
        let r = (hi - lo) / step;
        let m = libm::floor(r * (1.0 + STEP_COUNT_SLACK));
        if !m.is_finite() || m + 1.0 > MAX_LATTICE_POINTS as f64 {
            let found = if m.is_finite() && m < 1e18 { m as usize + 1 } else { usize::MAX };
            return Err(Error::TooManySymbols { field: "domain".into(), found, max: MAX_LATTICE_POINTS });
        }
        Ok(Lattice { lo, hi, step, n: m as usize + 1 })
    }
    /// The lower end of the domain (the first point).
    pub fn lo(&self) -> f64 {
        self.lo
    }
    /// The upper end of the domain.
    pub fn hi(&self) -> f64 {
        self.hi
    }
    /// The distance between neighbouring points.
    pub fn step(&self) -> f64 {
        self.step
    }
    /// Number of points `n`.
    pub fn len(&self) -> usize {
        self.n
    }
    /// Always false (a lattice has at least one point).
    pub fn is_empty(&self) -> bool {
        false
    }
    /// The value of lattice index `j` (any integer: outputs may leave the domain).
    pub fn value(&self, j: i64) -> f64 {
        self.lo + self.step * j as f64
    }
    /// The index of the point nearest to `x` (the cell of `x`; ties away from `lo`).
    ///
    /// # Errors
    /// `non_finite` (field `x`) for NaN/±∞; `unknown_value` for `x` outside `[lo, hi]`
    /// (never clamped).
    pub fn index_of(&self, x: f64) -> Result<usize> {
        if !x.is_finite() {
            return Err(Error::field("x").non_finite());
        }
        if x < self.lo || x > self.hi {
            return Err(Error::UnknownValue {
                reason: alloc::format!("it is outside the domain [{}, {}]", Shown(self.lo), Shown(self.hi)),
            });
        }
        let k = lattice_index(x - self.lo, self.step)?;
        Ok((k.max(0) as usize).min(self.n - 1))
    }
    /// The output index `j` of a released value `y = lo + step·j` (within 1e-6 step).
    ///
    /// # Errors
    /// `unknown_output` if `y` is not finite or not on the lattice.
    pub fn output_index(&self, y: f64) -> Result<i64> {
        let bad = || Error::UnknownOutput {
            value: alloc::format!("{y} (not a value lo + step·j of this lattice)", y = crate::numeric::Shown(y)),
        };
        if !y.is_finite() {
            return Err(bad());
        }
        let j = lattice_index(y - self.lo, self.step).map_err(|_| bad())?;
        if (self.value(j) - y).abs() > 1e-6 * self.step {
            return Err(bad());
        }
        Ok(j)
    }
}

/// The lattice index of `x` on `step·ℤ`: `round(x/step)` (nearest, ties away from zero).
///
/// The exact samplers of [`crate::sample::discrete`] perturb this index; the released
/// value is `step·(index + Z)`. Rounding is deterministic, so it is a pre-processing of
/// `x` and cannot increase leakage (post-processing of the input is a Markov step
/// `X → X' → Y`, Lemma 1 of the paper).
///
/// # Errors
/// `invalid_argument` for a non-finite `x`, a `step ≤ 0`, or an index beyond ±2⁶².
pub fn lattice_index(x: f64, step: f64) -> Result<i64> {
    finite("x", x)?;
    positive("step", step)?;
    let k = libm::round(x / step);
    if k.is_nan() || k.abs() > (1u64 << 62) as f64 {
        return Err(Error::invalid(
            "x",
            alloc::format!("x/step = {} is beyond the lattice range ±2^62", crate::numeric::Shown(x / step)),
        ));
    }
    Ok(k as i64)
}

/// Most distinct noise scales of one instance-dependent mechanism.
pub const MAX_DISTINCT_SCALES: usize = 256;

/// The exact lattice sampler of a mechanism.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// One [`DiscreteGaussian`] per distinct scale, `which[k]` for point `k`.
    Gaussian {
        samplers: Vec<DiscreteGaussian>,
        which: Vec<u16>,
    },
    Laplace(DiscreteLaplace),
    /// Release `k` when the word is below `threshold` (λ = threshold/2⁶⁴), else a draw of
    /// `table` (the lattice prior, quantised exactly).
    Sampling {
        threshold: u128,
        lambda: Probability,
        table: AliasTable,
        q: Vec<f64>,
    },
}

/// A mechanism on a [`Lattice`] with its lattice prior: the exact sampler that runs
/// and its audit.
#[derive(Debug, Clone)]
pub struct LatticeMechanism {
    pub(crate) lattice: Lattice,
    pub(crate) prior: Vec<f64>,
    pub(crate) kind: Kind,
}

fn check_prior(lattice: &Lattice, prior: &[f64]) -> Result<()> {
    if prior.len() != lattice.len() {
        return Err(Error::field("prior").dims(lattice.len(), prior.len()));
    }
    crate::param::check_distribution("prior", prior)
}

impl LatticeMechanism {
    /// Gaussian noise `Y = x_k + step·Z`, `Z` discrete Gaussian of variance `(σ/step)²`
    /// rounded **up** to the rational the sampler uses
    /// ([`DiscreteGaussian::with_variance_at_least`]). `sigma` holds one σ, or one per
    /// lattice point (instance-dependent; at most [`MAX_DISTINCT_SCALES`] distinct values).
    ///
    /// # Errors
    /// `dimension_mismatch` for a `sigma` of another length than 1 or `n`;
    /// `invalid_argument` for a σ not finite and > 0, or `(σ/step)² > 2⁴⁰`;
    /// `too_many_symbols` (field `mechanism.sigma`) beyond 256 distinct values; the
    /// distribution errors for `prior`.
    pub fn gaussian(lattice: Lattice, prior: Vec<f64>, sigma: &[f64]) -> Result<Self> {
        check_prior(&lattice, &prior)?;
        let n = lattice.len();
        if sigma.len() != 1 && sigma.len() != n {
            return Err(Error::field("mechanism.sigma").dims(n, sigma.len()));
        }
        let mut samplers: Vec<DiscreteGaussian> = Vec::new();
        let mut which = Vec::with_capacity(n);
        for k in 0..n {
            let s = sigma[if sigma.len() == 1 { 0 } else { k }];
            positive("mechanism.sigma", s)?;
            let v = s / lattice.step();
            let g = DiscreteGaussian::with_variance_at_least(v * v).map_err(|e| {
                Error::invalid("mechanism.sigma", alloc::format!("σ = {s}: {e}", s = crate::numeric::Shown(s)))
            })?;
            let i = match samplers.iter().position(|h| *h == g) {
                Some(i) => i,
                None => {
                    if samplers.len() == MAX_DISTINCT_SCALES {
                        return Err(Error::TooManySymbols {
                            field: "mechanism.sigma (distinct values)".into(),
                            found: MAX_DISTINCT_SCALES + 1,
                            max: MAX_DISTINCT_SCALES,
                        });
                    }
                    samplers.push(g);
                    samplers.len() - 1
                }
            };
            which.push(i as u16);
        }
        Ok(LatticeMechanism { lattice, prior, kind: Kind::Gaussian { samplers, which } })
    }

    /// Laplace noise `Y = x_k + step·Z`, `Z` discrete Laplace of scale `b/step` rounded
    /// **up** to the sampler's rational ([`DiscreteLaplace::with_scale_at_least`]).
    ///
    /// # Errors
    /// `invalid_argument` for `b` not finite and > 0 or `b/step > 2⁴⁰`; prior errors.
    pub fn laplace(lattice: Lattice, prior: Vec<f64>, b: f64) -> Result<Self> {
        check_prior(&lattice, &prior)?;
        positive("mechanism.b", b)?;
        let l = DiscreteLaplace::with_scale_at_least(b / lattice.step())
            .map_err(|e| Error::invalid("mechanism.b", alloc::format!("b = {b}: {e}", b = crate::numeric::Shown(b))))?;
        Ok(LatticeMechanism { lattice, prior, kind: Kind::Laplace(l) })
    }

    /// The sampling mechanism (eq 20) on the lattice: release `x_k` with probability λ
    /// (rounded **down** to a multiple of 2⁻⁶⁴), else a fresh draw from the lattice prior
    /// (an exact integer alias table, whose exact probabilities the audit reads back).
    ///
    /// # Errors
    /// The distribution errors for `prior` (λ's `[0, 1]` rule is [`Probability`]'s).
    pub fn sampling(lattice: Lattice, prior: Vec<f64>, lambda: Probability) -> Result<Self> {
        check_prior(&lattice, &prior)?;
        let two64 = 18446744073709551616.0f64;
        let threshold = libm::floor(lambda.get() * two64) as u128; // exact: scaling by 2^64
        let lambda = Probability::computed(threshold as f64 / two64); // exact (threshold came from an f64)
        let table = AliasTable::new(&prior)?;
        let q = table.probabilities();
        Ok(LatticeMechanism { lattice, prior, kind: Kind::Sampling { threshold, lambda, table, q } })
    }

    /// The lattice the inputs and outputs live on.
    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }
    /// The lattice prior `p_k`.
    pub fn prior(&self) -> &[f64] {
        &self.prior
    }
    /// The exact variance `(num, den)` (lattice steps²) used at point `k` (Gaussian).
    pub fn variance_at(&self, k: usize) -> Option<(u64, u64)> {
        match &self.kind {
            Kind::Gaussian { samplers, which } => which.get(k).map(|&i| samplers[i as usize].variance()),
            _ => None,
        }
    }
    /// The exact Laplace scale `(t, s)` = `t/s` lattice steps.
    pub fn laplace_scale(&self) -> Option<(u64, u64)> {
        match &self.kind {
            Kind::Laplace(l) => Some(l.scale()),
            _ => None,
        }
    }
    /// The exact release probability λ of the sampling mechanism.
    pub fn lambda(&self) -> Option<Probability> {
        match &self.kind {
            Kind::Sampling { lambda, .. } => Some(*lambda),
            _ => None,
        }
    }

    /// One release for lattice point `k` (caller checks `k < n`): the output index `j`.
    ///
    /// # Privacy
    /// `j` is drawn exactly from the audited `P(·|k)`. Time: see the module docs.
    pub fn sample_index<R: RngCore + CryptoRng + ?Sized>(&self, k: usize, rng: &mut R) -> Result<i64> {
        let k = k as i64;
        match &self.kind {
            Kind::Gaussian { samplers, which } => samplers[which[k as usize] as usize].perturb(k, rng),
            Kind::Laplace(l) => l.perturb(k, rng),
            Kind::Sampling { threshold, table, .. } => {
                let (w1, w2) = (rng.next_u64(), rng.next_u64());
                let fresh = table.sample_word(w2) as i64;
                let release = ((w1 as u128) < *threshold) as i64;
                Ok(release * k + (1 - release) * fresh)
            }
        }
    }

    /// `P(j | k)` of the sampler (f64, nearest; for receipts and tests).
    pub fn p_given(&self, j: i64, k: usize) -> f64 {
        match &self.kind {
            Kind::Gaussian { samplers, which } => samplers[which[k] as usize].pmf(j - k as i64),
            Kind::Laplace(l) => l.pmf(j - k as i64),
            Kind::Sampling { lambda, q, .. } => {
                let lambda = lambda.get();
                let fresh = if (0..q.len() as i64).contains(&j) { (1.0 - lambda) * q[j as usize] } else { 0.0 };
                fresh + if j == k as i64 { lambda } else { 0.0 }
            }
        }
    }

    /// `P(j | k)` for every lattice point `k` (f64, nearest; O(n) plus one normaliser
    /// per distinct Gaussian scale), for receipts.
    pub fn column(&self, j: i64) -> Vec<f64> {
        let n = self.lattice.len();
        match &self.kind {
            Kind::Gaussian { samplers, which } => {
                let params: Vec<(f64, f64)> = samplers
                    .iter()
                    .map(|g| {
                        let (a, b) = g.variance();
                        let s2 = a as f64 / b as f64;
                        let reach = (40.0 * libm::sqrt(s2)) as usize + 2;
                        let norm =
                            1.0 + 2.0 * (1..=reach).map(|z| libm::exp(-((z * z) as f64) / (2.0 * s2))).sum::<f64>();
                        (s2, norm)
                    })
                    .collect();
                (0..n)
                    .map(|k| {
                        let (s2, norm) = params[which[k] as usize];
                        let z = (j - k as i64) as f64;
                        libm::exp(-z * z / (2.0 * s2)) / norm
                    })
                    .collect()
            }
            _ => (0..n).map(|k| self.p_given(j, k)).collect(),
        }
    }

    /// `P(j) = Σ_k p_k P(j|k)` (f64).
    pub fn p_output(&self, j: i64) -> f64 {
        self.column(j).iter().zip(&self.prior).map(|(a, p)| a * p).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_rounds_to_nearest() {
        assert_eq!(lattice_index(0.26, 0.5).unwrap(), 1);
        assert_eq!(lattice_index(-0.25, 0.5).unwrap(), -1);
        assert!(lattice_index(f64::NAN, 1.0).is_err());
        assert!(lattice_index(1.0, 0.0).is_err());
        assert!(lattice_index(1e300, 1e-10).is_err());
    }

    /// A domain whose released values would collide (a step below the floats' spacing
    /// there) or overflow (noise beyond f64::MAX) is refused; within the bounds, values
    /// far beyond the domain are distinct, finite and read back as their index.
    #[test]
    fn released_values_stay_distinct_and_finite() {
        for (lo, hi, step) in [(1e16, 1e16 + 22.0, 1.9), (1e308, 1.7e308, 1e307), (-1e20, 1e20, 1e4)] {
            let e = Lattice::new(lo, hi, step).unwrap_err();
            assert_eq!((e.code(), e.to_string().contains("domain.step")), ("invalid_argument", true), "{lo} {hi}");
        }
        let two49 = (1u64 << 49) as f64;
        for (lo, hi, step) in [(0.0, 1.0, 0.25), (two49 - 4000.0, two49, 1.0), (-1e290, 1e290, 1e287)] {
            let l = Lattice::new(lo, hi, step).unwrap();
            let n = l.len() as i64;
            for j in [-(1i64 << 47), -1, 0, n - 1, n + (1 << 47)] {
                let y = l.value(j);
                assert!(y.is_finite(), "{lo} {j}");
                assert_eq!(l.output_index(y).unwrap(), j, "[{lo}, {hi}] step {step}: j = {j}");
                assert!(l.value(j + 1) > y, "{lo} {j}");
            }
        }
    }
}
