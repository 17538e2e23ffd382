//! Fitting a Gaussian-mixture prior (the paper's Remark 2) to a curator's samples by
//! expectation–maximisation, with the number of components chosen by the Bayesian
//! information criterion.
//!
//! The paper takes the GMM prior as given; a curator has data instead. [`fit_gmm`] fits
//! `K = 1, …, max_components` components and keeps the `K` with the smallest
//! `BIC = −2·ln L + (3K − 1)·ln n` (Schwarz 1978): `3K − 1` free parameters (K means, K
//! standard deviations, K − 1 weights).
//!
//! # The EM iteration (Dempster, Laird, Rubin 1977)
//! E-step: responsibilities `r_ij = w_j N(x_i; μ_j, σ_j²) / Σ_l w_l N(x_i; μ_l, σ_l²)`,
//! computed with the log-sum-exp shift so that no sample underflows every component.
//! M-step: `w_j = N_j/n`, `μ_j = Σ_i r_ij x_i / N_j`, `σ_j² = Σ_i r_ij (x_i − μ_j)² / N_j`
//! with `N_j = Σ_i r_ij`. Each iteration does not decrease the likelihood (a test checks
//! it). The samples are standardised first (`(x − mean)/sd`), which keeps the sums
//! well-conditioned for data such as salaries in the 10⁵ range, and the fit is mapped back.
//!
//! # Degeneracy
//! The likelihood of a mixture is unbounded (a component collapsing on one sample), so
//! every σ_j is floored at [`SD_FLOOR`] standardised units (10⁻³ of the data's standard
//! deviation), and a component whose weight falls below 10⁻⁸ is dropped. Initialisation
//! is deterministic (no random restarts, so a fit is reproducible natively and in wasm):
//! means at the sample quantiles `(j + ½)/K`, equal weights, σ = 1/K; and a second start
//! with means evenly spaced over the sample range; the better likelihood wins.
//!
//! # Many samples
//! Above 16 384 samples, EM runs on an equal-width histogram of the standardised samples
//! with 4096 bins (each bin's samples moved to its centre: a displacement of at most half
//! a bin, range/8192, which changes a fitted σ² by about width²/12 — below 10⁻⁵ of the
//! data's variance for a range of 10 standard deviations), so an iteration costs 4096
//! points instead of n. The log-likelihood and BIC reported are then computed on the
//! samples themselves.
//!
//! # Stopping
//! EM stops when an iteration gains less than 10⁻⁷ in mean log-likelihood per sample, or
//! after 500 iterations. Over-fitted mixtures converge slowly; one stopped early has a
//! slightly lower likelihood and so a slightly worse BIC: the cap can only bias the choice
//! towards fewer components.

use alloc::vec;
use alloc::vec::Vec;

use super::{Gaussian, GaussianMixture};
use privlift::error::{Error, Result};

/// Most components [`fit_gmm`] will try.
pub const MAX_COMPONENTS: usize = 16;
/// Fewest samples [`fit_gmm`] accepts.
pub const MIN_SAMPLES: usize = 8;
/// Most samples [`fit_gmm`] accepts (10⁸: a fit then takes minutes).
pub const MAX_SAMPLES: usize = 100_000_000;
/// Floor of every component's standard deviation, in units of the data's standard deviation.
pub const SD_FLOOR: f64 = 1e-3;
/// EM stops when an iteration raises the mean log-likelihood by less than this.
const TOLERANCE: f64 = 1e-7;
/// EM stops after this many iterations per start.
const MAX_ITERATIONS: usize = 500;
/// Above this many samples, EM runs on a histogram (see the module docs).
const BIN_ABOVE: usize = 16_384;
/// Bins of that histogram.
const BINS: usize = 4096;
/// A component whose weight falls below this is dropped.
const MIN_WEIGHT: f64 = 1e-8;
/// Samples whose standard deviation is at most this fraction of their mean's magnitude
/// are equal: summing equal values rounds their mean by up to n · 2⁻⁵³ relative, which
/// leaves deviations of about that size, and 1e-12 is that rounding for 10⁴ samples.
const NO_SPREAD: f64 = 1e-12;

/// The result of [`fit_gmm`].
#[derive(Debug, Clone, PartialEq)]
pub struct GmmFit {
    /// The chosen mixture, in the samples' units.
    pub mixture: GaussianMixture,
    /// Its number of components.
    pub components: usize,
    /// Its log-likelihood `ln L = Σ_i ln f(x_i)` (natural log, densities in the samples' units).
    pub log_likelihood: f64,
    /// Its BIC, `−2 ln L + (3K − 1) ln n`.
    pub bic: f64,
    /// EM iterations of the chosen fit.
    pub iterations: usize,
    /// `(K, BIC)` of every number of components tried (`K` is the count after dropping
    /// vanished components, so a value may repeat).
    pub candidates: Vec<(usize, f64)>,
}

/// Fits a Gaussian mixture with 1 to `max_components` components to `samples` by EM and
/// returns the one with the smallest BIC (see the module docs).
///
/// # Errors
/// `invalid_argument` for fewer than 8 or more than 10⁸ samples, a
/// non-finite sample, samples that are all equal (no spread to fit), or `max_components`
/// not in `1..=`[`MAX_COMPONENTS`].
///
/// # Example
/// ```
/// use privlift_design::continuous::fit_gmm;
/// let samples: Vec<f64> = (0..400).map(|i| if i % 2 == 0 { -5.0 } else { 5.0 } + (i % 7) as f64 * 0.1).collect();
/// let fit = fit_gmm(&samples, 4)?;
/// assert!(fit.mixture.pdf(5.0) > 10.0 * fit.mixture.pdf(0.0));
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn fit_gmm(samples: &[f64], max_components: usize) -> Result<GmmFit> {
    let n = samples.len();
    if !(MIN_SAMPLES..=MAX_SAMPLES).contains(&n) {
        return Err(Error::invalid(
            "samples",
            alloc::format!("need between {MIN_SAMPLES} and {MAX_SAMPLES} samples; got {n}"),
        ));
    }
    if !(1..=MAX_COMPONENTS).contains(&max_components) {
        return Err(Error::invalid(
            "max_components",
            alloc::format!("must be between 1 and {MAX_COMPONENTS}; got {max_components}"),
        ));
    }
    if let Some(i) = samples.iter().position(|x| !x.is_finite()) {
        return Err(Error::invalid("samples", alloc::format!("sample {i} is not a finite number ({})", samples[i])));
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    let sd = libm::sqrt(var);
    if !(sd > 0.0 && sd.is_finite()) || sd <= mean.abs() * NO_SPREAD {
        return Err(Error::invalid("samples", "all samples are (numerically) equal: there is no spread to fit"));
    }
    let z: Vec<f64> = samples.iter().map(|x| (x - mean) / sd).collect();
    let mut sorted = z.clone();
    sorted.sort_by(f64::total_cmp);

    let exact = Data::exact(&z);
    let fitted = if n > BIN_ABOVE { Data::binned(&sorted) } else { exact.clone() };
    let ln_n = libm::log(n as f64);
    let mut candidates = Vec::new();
    let mut best: Option<(f64, Em)> = None;
    // A mixture with 3K − 1 parameters needs more samples than parameters.
    for k in (1..=max_components).take_while(|k| 3 * k - 1 < n) {
        let mut em = [quantile_start(&sorted, k), spread_start(&sorted, k)]
            .into_iter()
            .map(|start| run_em(&fitted, start))
            .max_by(|a, b| a.log_likelihood.total_cmp(&b.log_likelihood))
            .expect("two starts");
        if n > BIN_ABOVE {
            // BIC from the samples themselves, not the histogram.
            let p = Start { weights: em.weights.clone(), means: em.means.clone(), sds: em.sds.clone() };
            em.log_likelihood = exact.log_likelihood(&p);
        }
        // Back to the samples' units: each density is divided by sd.
        let ll = em.log_likelihood - n as f64 * libm::log(sd);
        let kk = em.weights.len();
        let bic = -2.0 * ll + (3 * kk - 1) as f64 * ln_n;
        candidates.push((kk, bic));
        if best.as_ref().is_none_or(|(b, _)| bic < *b) {
            best = Some((bic, em));
        }
    }
    let (bic, em) = best.expect("K = 1 is always tried");
    let components = em
        .means
        .iter()
        .zip(&em.sds)
        .map(|(&m, &s)| Gaussian::new(mean + m * sd, s * sd))
        .collect::<Result<Vec<_>>>()?;
    let total: f64 = em.weights.iter().sum();
    let weights: Vec<f64> = em.weights.iter().map(|w| w / total).collect();
    Ok(GmmFit {
        mixture: GaussianMixture::new(&weights, &components)?,
        components: components.len(),
        log_likelihood: em.log_likelihood - n as f64 * libm::log(sd),
        bic,
        iterations: em.iterations,
        candidates,
    })
}

/// Mixture parameters in standardised units.
#[derive(Debug, Clone)]
struct Start {
    weights: Vec<f64>,
    means: Vec<f64>,
    sds: Vec<f64>,
}

#[derive(Debug, Clone)]
struct Em {
    weights: Vec<f64>,
    means: Vec<f64>,
    sds: Vec<f64>,
    /// In standardised units.
    log_likelihood: f64,
    iterations: usize,
}

/// Means at the quantiles `(j + ½)/K` of the sorted samples.
fn quantile_start(sorted: &[f64], k: usize) -> Start {
    let n = sorted.len();
    let means = (0..k).map(|j| sorted[((2 * j + 1) * n / (2 * k)).min(n - 1)]).collect();
    Start { weights: vec![1.0 / k as f64; k], means, sds: vec![1.0 / k as f64; k] }
}

/// Means evenly spaced over the sample range.
fn spread_start(sorted: &[f64], k: usize) -> Start {
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    let means = (0..k).map(|j| lo + (hi - lo) * (j as f64 + 0.5) / k as f64).collect();
    Start { weights: vec![1.0 / k as f64; k], means, sds: vec![(hi - lo) / (2.0 * k as f64); k] }
}

/// Samples as (value, multiplicity) pairs: the samples themselves, or the centres and
/// counts of a histogram.
#[derive(Debug, Clone)]
struct Data {
    values: Vec<f64>,
    counts: Vec<f64>,
    /// Σ counts.
    n: f64,
}

impl Data {
    fn exact(z: &[f64]) -> Self {
        Data { values: z.to_vec(), counts: vec![1.0; z.len()], n: z.len() as f64 }
    }

    /// An equal-width histogram of sorted `z` with [`BINS`] bins (empty bins dropped).
    fn binned(sorted: &[f64]) -> Self {
        let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
        let width = (hi - lo) / BINS as f64;
        let mut counts = vec![0.0; BINS];
        for &x in sorted {
            counts[(((x - lo) / width) as usize).min(BINS - 1)] += 1.0;
        }
        let (values, counts) = counts
            .into_iter()
            .enumerate()
            .filter(|&(_, c)| c > 0.0)
            .map(|(i, c)| (lo + (i as f64 + 0.5) * width, c))
            .unzip();
        Data { values, counts, n: sorted.len() as f64 }
    }

    /// The log-likelihood of `p` (standardised units).
    fn log_likelihood(&self, p: &Start) -> f64 {
        em_step(self, p).0
    }
}

const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// One E-step and M-step: returns the log-likelihood of the parameters *before* the
/// update (standardised units) and the updated parameters.
fn em_step(data: &Data, p: &Start) -> (f64, Start) {
    let k = p.weights.len();
    // ln w_j − ln σ_j − ln √(2π), and 1/σ_j.
    let offset: Vec<f64> =
        p.weights.iter().zip(&p.sds).map(|(w, s)| libm::log(*w) - libm::log(*s) - LN_SQRT_2PI).collect();
    let inv: Vec<f64> = p.sds.iter().map(|s| 1.0 / s).collect();
    let mut nj = vec![0.0; k];
    let mut s1 = vec![0.0; k];
    let mut s2 = vec![0.0; k];
    let mut lj = vec![0.0; k];
    let mut ll = 0.0;
    for (&x, &c) in data.values.iter().zip(&data.counts) {
        let mut top = f64::NEG_INFINITY;
        for j in 0..k {
            let u = (x - p.means[j]) * inv[j];
            lj[j] = offset[j] - 0.5 * u * u;
            top = top.max(lj[j]);
        }
        let mut sum = 0.0;
        for l in lj.iter_mut() {
            *l = libm::exp(*l - top);
            sum += *l;
        }
        ll += c * (top + libm::log(sum));
        let c_sum = c / sum;
        for j in 0..k {
            let r = lj[j] * c_sum;
            nj[j] += r;
            // Moments about the current mean: no cancellation when μ_j moves little.
            let d = x - p.means[j];
            s1[j] += r * d;
            s2[j] += r * d * d;
        }
    }
    let n = data.n;
    let mut next = Start { weights: Vec::with_capacity(k), means: Vec::with_capacity(k), sds: Vec::with_capacity(k) };
    for j in 0..k {
        if nj[j] / n < MIN_WEIGHT {
            continue;
        }
        let shift = s1[j] / nj[j];
        let var = (s2[j] / nj[j] - shift * shift).max(0.0);
        next.weights.push(nj[j] / n);
        next.means.push(p.means[j] + shift);
        next.sds.push(libm::sqrt(var).max(SD_FLOOR));
    }
    (ll, next)
}

fn run_em(data: &Data, start: Start) -> Em {
    let n = data.n;
    let mut p = start;
    let mut prev = f64::NEG_INFINITY;
    let mut iterations = 0;
    loop {
        let (ll, next) = em_step(data, &p);
        iterations += 1;
        // `ll` belongs to `p`: stop (keeping `p`) once the gain is negligible.
        if ll - prev <= TOLERANCE * n || iterations >= MAX_ITERATIONS || next.weights.is_empty() {
            let ll = if ll >= prev { ll } else { prev };
            return Em { weights: p.weights, means: p.means, sds: p.sds, log_likelihood: ll, iterations };
        }
        prev = ll;
        p = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use privlift::rng::DeterministicRngForTesting;
    use rand::RngCore;

    /// `n` draws of `N(mean, sd²)` by Box–Muller (test data only).
    fn normal(rng: &mut DeterministicRngForTesting, n: usize, mean: f64, sd: f64) -> Vec<f64> {
        let u = |rng: &mut DeterministicRngForTesting| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        (0..n)
            .map(|_| {
                let (a, b) = (u(rng), u(rng));
                mean + sd * libm::sqrt(-2.0 * libm::log(a)) * libm::cos(core::f64::consts::TAU * b)
            })
            .collect()
    }

    /// 1/3 of N(−3, 0.5²) and 2/3 of N(3, 1).
    fn two_clusters() -> Vec<f64> {
        let mut rng = DeterministicRngForTesting::seed_from_u64(7);
        let mut v = normal(&mut rng, 1000, -3.0, 0.5);
        v.extend(normal(&mut rng, 2000, 3.0, 1.0));
        v
    }

    #[test]
    fn bic_keeps_one_component_for_gaussian_data() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(8);
        let fit = fit_gmm(&normal(&mut rng, 5000, 50_000.0, 8_000.0), 5).unwrap();
        assert_eq!(fit.components, 1, "{:?}", fit.candidates);
        let (_, g) = fit.mixture.components().next().unwrap();
        // Standard errors: 8000/√5000 ≈ 113 for the mean, ≈ 80 for the sd.
        assert!((g.mean() - 50_000.0).abs() < 450.0 && (g.sd() - 8_000.0).abs() < 320.0, "{g:?}");
    }

    #[test]
    fn em_never_decreases_the_likelihood() {
        let data = two_clusters();
        let data = Data::exact(&data);
        let mut p = Start { weights: vec![0.5, 0.3, 0.2], means: vec![-1.0, 0.0, 1.0], sds: vec![1.0, 0.5, 2.0] };
        let mut prev = f64::NEG_INFINITY;
        for _ in 0..200 {
            let (ll, next) = em_step(&data, &p);
            assert!(ll >= prev - 1e-9 * data.n, "likelihood fell from {prev} to {ll}");
            prev = ll;
            p = next;
        }
    }

    #[test]
    fn refuses_bad_samples() {
        let e = |s: &[f64], k| fit_gmm(s, k).unwrap_err().to_string();
        assert!(e(&[1.0; 3], 2).contains("between 8"));
        assert!(e(&[1.0; 20], 2).contains("all samples are"));
        let mut s = two_clusters();
        s[5] = f64::NAN;
        assert!(e(&s, 2).contains("sample 5"));
        assert!(e(&two_clusters(), 0).contains("max_components"));
        assert!(e(&two_clusters(), MAX_COMPONENTS + 1).contains("max_components"));
    }

    #[test]
    fn bic_finds_two_clusters() {
        let fit = fit_gmm(&two_clusters(), 5).unwrap();
        assert_eq!(fit.components, 2, "{:?}", fit.candidates);
        let mut comps: Vec<_> = fit.mixture.components().collect();
        comps.sort_by(|a, b| a.1.mean().total_cmp(&b.1.mean()));
        // Within ~4 standard errors of the truth (weight SE ≈ 0.009, mean SEs ≈ 0.016, 0.022).
        assert!((comps[0].0 - 1.0 / 3.0).abs() < 0.035, "{comps:?}");
        assert!((comps[0].1.mean() + 3.0).abs() < 0.07 && (comps[1].1.mean() - 3.0).abs() < 0.09, "{comps:?}");
        assert!((comps[0].1.sd() - 0.5).abs() < 0.05 && (comps[1].1.sd() - 1.0).abs() < 0.07, "{comps:?}");
    }

    #[test]
    fn histogram_fit_matches_the_exact_fit() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(9);
        let mut v = normal(&mut rng, 10_000, 35_000.0, 6_000.0);
        v.extend(normal(&mut rng, 20_000, 70_000.0, 15_000.0));
        assert!(v.len() > BIN_ABOVE);
        let binned = fit_gmm(&v, 3).unwrap();
        assert_eq!(binned.components, 2, "{:?}", binned.candidates);
        // The same data below the threshold (every other sample) fits exactly: the two
        // fits agree to well within their standard errors.
        let half: Vec<f64> = v.iter().step_by(2).copied().collect();
        let exact = fit_gmm(&half, 3).unwrap();
        assert_eq!(exact.components, 2);
        let sorted = |f: &GmmFit| {
            let mut c: Vec<_> = f.mixture.components().collect();
            c.sort_by(|a, b| a.1.mean().total_cmp(&b.1.mean()));
            c
        };
        for ((wa, a), (wb, b)) in sorted(&binned).into_iter().zip(sorted(&exact)) {
            assert!((wa - wb).abs() < 0.02 && (a.mean() - b.mean()).abs() < 400.0 && (a.sd() - b.sd()).abs() < 400.0);
        }
        // Reported figures are those of the samples themselves.
        let ll: f64 = v.iter().map(|&x| libm::log(binned.mixture.pdf(x))).sum();
        assert!((ll - binned.log_likelihood).abs() < 1e-6 * ll.abs(), "{ll} vs {}", binned.log_likelihood);
    }
}
