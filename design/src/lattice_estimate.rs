//! Estimation for the continuous mechanisms on a lattice
//! ([`privlift::sample::lattice::LatticeMechanism`]) from the counts of the released
//! lattice indices j (a released value is `lo + step·j`, [`Lattice::value`]).
//!
//! **Mean** (method of moments, unbiased). Additive noise: the discrete Gaussian and
//! Laplace samplers (Canonne, Kamath & Steinke 2020, Algorithms 2–3, in
//! `privlift::sample::discrete`) draw |Z| and then a sign independently of it, so Z is
//! symmetric about 0, E\[Z\] = 0, and E\[Y | x_k\] = x_k at every point — also with one σ per
//! point, where only Var(Y | x_k) depends on k. Hence E\[Y\] = E\[X\] and the mean is ȳ, with
//! standard error s_y/√n (s_y the sample standard deviation of the released values,
//! Bessel-corrected). The sampling mechanism (eq 20) releases x_k with probability λ and
//! otherwise a fresh draw from the lattice prior q (its exact alias-table probabilities),
//! so E\[Y\] = λ E\[X\] + (1 − λ) μ_q: the mean is (ȳ − (1 − λ) μ_q)/λ with standard error
//! s_y/(λ√n); at λ = 0 the reports carry no information about X and both are NaN.
//! "E\[X\]" is the mean of the inputs *on the lattice* (each rounded to its nearest point),
//! not of the raw values: the rounding bias, at most step/2, is not the estimator's.
//!
//! **Histogram** (maximum likelihood, EM deconvolution, [`estimate_mle`]). The channel's
//! rows are the lattice points; its columns are the observed outputs and one more,
//! "every unobserved output", holding each row's remaining mass 1 − Σ_observed P(j|k)
//! (clamped ≥ 0) with count 0, so rows stay stochastic and the likelihood is the
//! multinomial one of the observed counts.
//!
//! **Cost.** With n lattice points (≤ 4096) and d distinct observed outputs: O(c log c)
//! to sort the c count pairs, O(d·n) probability evaluations to build the columns (the
//! Gaussian's normaliser, a sum over ±40σ, is computed once per distinct σ, not per
//! column), and O(n·m) per EM step with m ≤ [`MAX_CHANNEL_CELLS`]/n columns: above
//! that, consecutive observed outputs are merged into m contiguous groups (the
//! likelihood of the coarser counts; still consistent), which bounds the channel at
//! [`MAX_CHANNEL_CELLS`] cells (32 MB). Standard errors add an O(n³) eigen-decomposition
//! and are computed for n ≤ [`MAX_SE_SYMBOLS`](super::mle::MAX_SE_SYMBOLS) only.

use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

use super::estimate::check_counts;
use super::mle::estimate_mle;
use privlift::document::Matrix;
use privlift::error::{Error, Result};
use privlift::param::Probability;
use privlift::sample::lattice::{Lattice, LatticeMechanism};

/// Most cells (lattice points × output columns) of the deconvolution channel.
pub const MAX_CHANNEL_CELLS: usize = 1 << 22;

/// Channel cells visited by EM in all (steps × lattice points × output columns): about
/// half a second. Noise several lattice steps wide makes the histogram weakly identified and EM
/// slow to converge (thousands of steps); stopping it early is the usual regularisation
/// of EM deconvolution (the estimate stays on the simplex and its likelihood only grows).
pub const EM_WORK_BUDGET: usize = 100_000_000;

/// What the released lattice indices tell about the inputs.
#[derive(Debug, Clone, Serialize)]
pub struct LatticeEstimate {
    /// The lattice points x_k = lo + k·step.
    pub values: Vec<f64>,
    /// Maximum-likelihood P̂(x_k), a distribution over the lattice points.
    pub histogram: Vec<f64>,
    /// Standard error of each identified histogram entry (NaN where it is not
    /// identified, and above [`MAX_SE_SYMBOLS`](super::mle::MAX_SE_SYMBOLS) points).
    pub std_error: Vec<f64>,
    /// Unbiased estimate of E\[X\] (module docs; NaN for a sampling mechanism with λ = 0).
    pub mean: f64,
    /// Standard error of `mean` (NaN with fewer than 2 reports or λ = 0).
    pub mean_std_error: f64,
    /// Number of reports.
    pub n: f64,
    /// Number of directions of the histogram the reports do not identify (0 as well
    /// when not computed, above [`MAX_SE_SYMBOLS`](super::mle::MAX_SE_SYMBOLS) points).
    pub unidentified: usize,
    /// Whether the reports identify each histogram entry, and where they do not, the
    /// interval of its maximum-likelihood values ([`Mle::identified`](super::mle::Mle::identified),
    /// [`Mle::interval`](super::mle::Mle::interval)); both empty above
    /// [`MAX_SE_SYMBOLS`](super::mle::MAX_SE_SYMBOLS) points.
    pub identified: Vec<bool>,
    /// Per histogram entry: `None` where identified, else [lo, hi].
    pub interval: Vec<Option<[f64; 2]>>,
}

/// Estimates the mean and the histogram of the inputs of `m` from counts of released
/// lattice indices (module docs).
///
/// `counts`: (output index j, count) pairs; j may lie outside 0..n (noise), repeated j
/// are summed, zero counts are ignored. `max_iterations` bounds the EM steps, and so does
/// [`EM_WORK_BUDGET`] (at least 50 steps).
///
/// # Errors
/// `invalid_argument` for no counts or a zero total, a negative count, a total that
/// overflows, or an output index j that `m` never releases (P(j|k) = 0 for every k; named
/// as `counts[i]`); `non_finite` for a NaN or infinite count.
pub fn estimate_lattice(m: &LatticeMechanism, counts: &[(i64, f64)], max_iterations: usize) -> Result<LatticeEstimate> {
    let observed = aggregate(counts)?;
    let n: f64 = observed.iter().map(|&(_, c)| c).sum();
    if !n.is_finite() {
        return Err(Error::invalid("counts", "the total count overflows"));
    }
    let probs = Probabilities::new(m);
    let lattice = m.lattice();
    let points = lattice.len();
    let groups = groups(observed.len(), points);
    // The groups of observed outputs, then "every unobserved output" (count 0).
    let cols = groups.len() + 1;
    let mut w = vec![0.0; points * cols];
    let mut group_counts = vec![0.0; cols];
    for (g, range) in groups.iter().enumerate() {
        for &(j, c) in &observed[range.clone()] {
            let column = probs.column(j);
            if column.iter().all(|&p| p == 0.0) {
                return Err(impossible(counts, j, lattice));
            }
            for (k, p) in column.into_iter().enumerate() {
                w[k * cols + g] += p;
            }
            group_counts[g] += c;
        }
    }
    for k in 0..points {
        let row = &mut w[k * cols..(k + 1) * cols];
        let seen: f64 = row[..cols - 1].iter().sum();
        row[cols - 1] = (1.0 - seen).max(0.0);
    }
    let max_iterations = max_iterations.min((EM_WORK_BUDGET / (points * cols)).max(50));
    let mle = estimate_mle(&Matrix::from_flat(points, cols, w), &group_counts, max_iterations)?;
    let (mean, mean_std_error) = mean(m, &observed, n);
    Ok(LatticeEstimate {
        values: (0..points).map(|k| lattice.value(k as i64)).collect(),
        histogram: mle.estimate,
        std_error: mle.std_error,
        mean,
        mean_std_error,
        n,
        unidentified: mle.unidentified.len(),
        identified: mle.identified,
        interval: mle.interval,
    })
}

/// The counts checked (as [`check_counts`] does, naming `counts[i]`), sorted by j, with
/// repeated j summed and zero counts dropped.
fn aggregate(counts: &[(i64, f64)]) -> Result<Vec<(i64, f64)>> {
    let values: Vec<f64> = counts.iter().map(|&(_, c)| c).collect();
    check_counts(&values, values.len())?;
    let mut sorted: Vec<(i64, f64)> = counts.iter().copied().filter(|&(_, c)| c > 0.0).collect();
    sorted.sort_unstable_by_key(|&(j, _)| j);
    let mut merged: Vec<(i64, f64)> = Vec::with_capacity(sorted.len());
    for (j, c) in sorted {
        match merged.last_mut() {
            Some((last, total)) if *last == j => *total += c,
            _ => merged.push((j, c)),
        }
    }
    Ok(merged)
}

/// Splits `d` sorted observed outputs into at most [`MAX_CHANNEL_CELLS`]/`points` − 1
/// contiguous groups of near-equal size (one output each when they fit).
fn groups(d: usize, points: usize) -> Vec<core::ops::Range<usize>> {
    let max = (MAX_CHANNEL_CELLS / points).saturating_sub(1).max(1);
    let m = d.min(max);
    (0..m).map(|g| g * d / m..(g + 1) * d / m).collect()
}

fn impossible(counts: &[(i64, f64)], j: i64, lattice: &Lattice) -> Error {
    let i = counts.iter().position(|&(jj, c)| jj == j && c > 0.0).unwrap_or(0);
    Error::invalid(
        alloc::format!("counts[{i}]"),
        alloc::format!(
            "output index {j} (value {}) is never released by this mechanism from any lattice point",
            lattice.value(j)
        ),
    )
}

/// P(j | k) for every lattice point k, in O(n) per output j.
struct Probabilities<'a> {
    m: &'a LatticeMechanism,
    /// Gaussian: per point, (σ², 1/Σ_z e^{−z²/2σ²}) of its sampler.
    gaussian: Option<Vec<(f64, f64)>>,
}

impl<'a> Probabilities<'a> {
    /// For a Gaussian, 1/normaliser is the pmf at 0 ([`LatticeMechanism::p_given`] at
    /// j = k), read once per distinct variance: `p_given` and
    /// [`LatticeMechanism::column`] re-sum the normaliser (±40σ terms) on every call.
    fn new(m: &'a LatticeMechanism) -> Self {
        let points = m.lattice().len();
        let gaussian = m.variance_at(0).map(|_| {
            let mut seen: Vec<((u64, u64), f64)> = Vec::new();
            (0..points)
                .map(|k| {
                    let v = m.variance_at(k).unwrap_or((1, 1));
                    let inv_norm = match seen.iter().find(|(u, _)| *u == v) {
                        Some(&(_, p0)) => p0,
                        None => {
                            let p0 = m.p_given(k as i64, k);
                            seen.push((v, p0));
                            p0
                        }
                    };
                    (v.0 as f64 / v.1 as f64, inv_norm)
                })
                .collect()
        });
        Probabilities { m, gaussian }
    }

    fn column(&self, j: i64) -> Vec<f64> {
        match &self.gaussian {
            // The discrete Gaussian's pmf (CKS eq 1): e^{−z²/2σ²} / Σ_z' e^{−z'²/2σ²}.
            Some(params) => params
                .iter()
                .enumerate()
                .map(|(k, &(s2, inv_norm))| {
                    let z = (j as f64) - k as f64;
                    libm::exp(-z * z / (2.0 * s2)) * inv_norm
                })
                .collect(),
            None => (0..self.m.lattice().len()).map(|k| self.m.p_given(j, k)).collect(),
        }
    }
}

/// The lattice indices j an estimate can explain: those with P(j|k) > 0 for some point
/// k, P computed as [`estimate_lattice`] computes it, so that a report a collector
/// accepts never makes an estimate refuse its counts as "never released".
///
/// For the noise mechanisms an interval: P(j|k) falls with |j − k| (so each point's
/// outputs of non-zero probability are an interval around it, whose reach is found by
/// bisection on the same floating-point expression), and the intervals of consecutive
/// points meet. For the sampling mechanism, the points of non-zero fresh probability
/// (and every point when λ > 0).
#[derive(Debug, Clone, PartialEq)]
pub enum Released {
    /// Every j in `lo..=hi`.
    Interval(i64, i64),
    /// The points k with `points[k]`.
    Points(Vec<bool>),
}

impl Released {
    /// The released indices of `m`.
    pub fn new(m: &LatticeMechanism) -> Self {
        let n = m.lattice().len();
        let probs = Probabilities::new(m);
        if m.lambda().is_some() {
            // P(j|k) = fresh_j + λ·[j = k]: largest at k = j.
            return Released::Points((0..n).map(|j| m.p_given(j as i64, j) > 0.0).collect());
        }
        let Some(params) = &probs.gaussian else {
            // One scale: P(k + z | k) = P(z | 0) for every k.
            let r = reach(|z| m.p_given(z as i64, 0) > 0.0);
            return Released::Interval(-r, n as i64 - 1 + r);
        };
        // A reach per distinct (σ², normaliser); the union of every point's interval.
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut reaches: Vec<((u64, u64), i64)> = Vec::new();
        for (k, &(s2, inv_norm)) in params.iter().enumerate() {
            let key = (s2.to_bits(), inv_norm.to_bits());
            let r = match reaches.iter().find(|(u, _)| *u == key) {
                Some(&(_, r)) => r,
                None => {
                    let r = reach(|z| libm::exp(-z * z / (2.0 * s2)) * inv_norm > 0.0);
                    reaches.push((key, r));
                    r
                }
            };
            lo = lo.min(k as i64 - r);
            hi = hi.max(k as i64 + r);
        }
        Released::Interval(lo, hi)
    }

    /// Whether some point releases `j`.
    pub fn contains(&self, j: i64) -> bool {
        match self {
            Released::Interval(lo, hi) => (*lo..=*hi).contains(&j),
            Released::Points(p) => usize::try_from(j).ok().and_then(|j| p.get(j)).copied().unwrap_or(false),
        }
    }
}

/// The largest z ≥ 0 with `positive(z)`, for a predicate true at 0 and monotone
/// (true up to some z, false beyond): doubling, then bisection. At most 2⁶⁰.
fn reach(positive: impl Fn(f64) -> bool) -> i64 {
    const CAP: i64 = 1 << 60;
    let mut out = 1i64;
    while out < CAP && positive(out as f64) {
        out *= 2;
    }
    if out >= CAP && positive(CAP as f64) {
        return CAP;
    }
    // positive(out / 2) (for out = 1: positive(0)), !positive(out).
    let (mut yes, mut no) = (out / 2, out);
    while no - yes > 1 {
        let mid = yes + (no - yes) / 2;
        if positive(mid as f64) {
            yes = mid;
        } else {
            no = mid;
        }
    }
    yes
}

/// The method-of-moments mean and its standard error (module docs), in lattice-index
/// units first (exact integers), then as values.
fn mean(m: &LatticeMechanism, observed: &[(i64, f64)], n: f64) -> (f64, f64) {
    let lattice = m.lattice();
    let j_bar = observed.iter().map(|&(j, c)| c * j as f64).sum::<f64>() / n;
    let ss: f64 = observed.iter().map(|&(j, c)| c * (j as f64 - j_bar) * (j as f64 - j_bar)).sum();
    let s = if n > 1.0 { libm::sqrt(ss / (n - 1.0)) } else { f64::NAN };
    let se = s / libm::sqrt(n);
    match m.lambda().map(Probability::get) {
        None => (lattice.value(0) + lattice.step() * j_bar, lattice.step() * se),
        Some(lambda) if lambda > 0.0 => {
            // (1 − λ) μ_q in index units: E\[j | k = 0\] = λ·0 + (1 − λ) Σ_j j q_j.
            let fresh: f64 = (0..lattice.len() as i64).map(|j| j as f64 * m.p_given(j, 0)).sum();
            (lattice.value(0) + lattice.step() * (j_bar - fresh) / lambda, lattice.step() * se / lambda)
        }
        Some(_) => (f64::NAN, f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_samplers_probabilities() {
        let l = Lattice::new(-2.0, 2.0, 0.25).unwrap();
        let n = l.len();
        let prior = vec![1.0 / n as f64; n];
        let sigma: Vec<f64> = (0..n).map(|k| if k < n / 2 { 0.5 } else { 1.3 }).collect();
        for m in [
            LatticeMechanism::gaussian(l, prior.clone(), &[0.7]).unwrap(),
            LatticeMechanism::gaussian(l, prior.clone(), &sigma).unwrap(),
            LatticeMechanism::laplace(l, prior.clone(), 0.6).unwrap(),
            LatticeMechanism::sampling(l, prior.clone(), Probability::new("lambda", 0.4).unwrap()).unwrap(),
        ] {
            let probs = Probabilities::new(&m);
            for j in -40..60 {
                for (k, p) in probs.column(j).into_iter().enumerate() {
                    let want = m.p_given(j, k);
                    assert!((p - want).abs() <= 1e-15 * want.max(1e-300), "P({j}|{k}) = {p} vs {want}");
                }
            }
        }
    }

    #[test]
    fn many_outputs_are_merged_into_contiguous_groups() {
        assert_eq!(groups(3, 11), vec![0..1, 1..2, 2..3]);
        let g = groups(5000, 4096);
        assert_eq!(g.len(), MAX_CHANNEL_CELLS / 4096 - 1);
        assert_eq!((g[0].start, g[g.len() - 1].end), (0, 5000));
        assert!(g.windows(2).all(|w| w[0].end == w[1].start && !w[0].is_empty()));
    }
}
