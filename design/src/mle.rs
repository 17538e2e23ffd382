//! Maximum-likelihood estimation of P_X from report counts, for **every** channel,
//! invertible or not: the EM algorithm (the iterative Bayesian update of Agrawal,
//! Srikant & Thomas, *Privacy-preserving data mining*, and of Kairouz et al.'s
//! discrete distribution estimation under LDP) on the probability simplex.
//!
//! With counts c_y (n in all) and λ = Wᵀp the report distribution, the log-likelihood is
//! ℓ(p) = Σ_y c_y ln λ_y, and one EM step is p_x ← p_x Σ_y W_xy (c_y/n) / λ_y: it stays on
//! the simplex and never decreases ℓ.
//!
//! **Standard errors** come from the observed information J = Σ_y c_y W_·y W_·yᵀ / λ_y²
//! on the simplex's tangent space {v : Σ v = 0}: its pseudo-inverse there is the
//! covariance of p̂ along the directions the reports identify. A direction v with
//! Wᵀv = 0 (a watchdog's merged inputs, an LP design's unused outputs) changes no report
//! probability: it is returned in `unidentified`, never hidden.
//!
//! **Per category**, what the reports determine ([`super::identified`]): where every such
//! v has v_x = 0, π_x is identified and has a point estimate and a standard error;
//! otherwise the counts fit every π in a polytope of maximum-likelihood solutions equally
//! well, p̂_x is merely one of them, and what they determine is the interval of π_x over
//! that polytope (`interval[x]`), with `std_error[x]` NaN.

use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

use super::estimate::check_counts;
use super::identified::{categories, Solutions};
use super::linalg::{add_scaled_rows, dot, gram, symmetric_eigen};
use privlift::document::Matrix;
use privlift::error::{Error, Result};

/// Largest |X| whose standard errors are computed (an O(|X|³) eigen-decomposition);
/// above it they are NaN.
pub const MAX_SE_SYMBOLS: usize = 512;

/// Relative size below which an eigenvalue of the information counts as 0.
const IDENTIFIED: f64 = 1e-9;

/// EM has converged when no entry of P_X moves by more than this in a cycle: far below
/// any standard error the reports can give, and above the ~1e-16 an entry moves by
/// rounding alone.
const CONVERGED: f64 = 1e-12;

/// The maximum-likelihood estimate and what the reports cannot tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mle {
    /// p̂, a distribution over X.
    pub estimate: Vec<f64>,
    /// Standard error of each identified entry; NaN where the entry is not identified
    /// (its `interval` says what the reports determine) and above [`MAX_SE_SYMBOLS`].
    pub std_error: Vec<f64>,
    /// Number of reports.
    pub n: f64,
    /// Unit directions v (Σ v = 0) that change no report probability: P_X + t·v explains
    /// the counts exactly as well.
    pub unidentified: Vec<Vec<f64>>,
    /// Whether the reports identify π_x: every direction of `unidentified` has a zero
    /// x-entry ([`super::identified::identifies`]). Empty (not computed) above
    /// [`MAX_SE_SYMBOLS`] and when p̂ is not finite.
    pub identified: Vec<bool>,
    /// For an entry not identified, [lo, hi]: the least and greatest π_x among the
    /// maximum-likelihood solutions (p̂_x is one point of it); `None` for an identified
    /// entry, and for every entry above
    /// [`MAX_INTERVAL_DIRECTIONS`](super::identified::MAX_INTERVAL_DIRECTIONS) unidentified
    /// directions. Empty when `identified` is.
    pub interval: Vec<Option<[f64; 2]>>,
    /// EM steps run (three per SQUAREM cycle).
    pub iterations: usize,
    /// ℓ(p̂) in nats.
    pub log_likelihood: f64,
    /// Covariance of p̂ along the identified directions, |X|×|X| row-major: the
    /// pseudo-inverse Σ v vᵀ/μ over the eigenpairs (μ, v) of the projected information that
    /// the reports identify (module docs), so `std_error[x]² = covariance[x·|X| + x]`.
    /// A linear functional aᵀp̂ has variance aᵀ C a (the delta method is exact for it).
    /// Empty above [`MAX_SE_SYMBOLS`].
    #[serde(skip)]
    pub covariance: Vec<f64>,
}

/// Maximum-likelihood P_X for the channel `w` (rows x, columns y) from per-output counts.
///
/// Runs EM, accelerated by SQUAREM, from the uniform distribution until no entry moves by
/// more than `CONVERGED` in a cycle, or `max_iterations` EM steps.
///
/// # Errors
/// `dimension_mismatch` (counts ≠ |Y|), `non_finite` / `invalid_argument` for a count that
/// is not a finite number ≥ 0 or no reports at all, `invalid_argument` naming
/// `counts[y]` for reports of an output the channel never releases; `design_failed` if
/// the LP of an unidentified entry's interval fails (a solver failure).
pub fn estimate_mle(w: &Matrix, counts: &[f64], max_iterations: usize) -> Result<Mle> {
    let (nx, ny) = (w.rows(), w.cols());
    let n = check_counts(counts, ny)?;
    if let Some(y) = (0..ny).find(|&y| counts[y] > 0.0 && (0..nx).all(|x| w.get(x, y) == 0.0)) {
        return Err(Error::invalid(alloc::format!("counts[{y}]"), "reports of an output this channel never releases"));
    }
    let f: Vec<f64> = counts.iter().map(|c| c / n).collect();
    let mut p = vec![1.0 / nx as f64; nx];
    let mut lambda = vec![0.0; ny];
    report_distribution(w, &p, &mut lambda);
    let loglik = |lambda: &[f64]| -> f64 {
        f.iter().zip(lambda).filter(|(&fy, _)| fy > 0.0).map(|(&fy, &l)| fy * libm::log(l)).sum()
    };
    // Buffers: the two EM steps, the extrapolation, its stabilising step, each with its λ.
    let mut ratio = vec![0.0; ny];
    let (mut p1, mut l1) = (vec![0.0; nx], vec![0.0; ny]);
    let (mut p2, mut l2) = (vec![0.0; nx], vec![0.0; ny]);
    let (mut q, mut lq) = (vec![0.0; nx], vec![0.0; ny]);
    let (mut s, mut ls) = (vec![0.0; nx], vec![0.0; ny]);
    // SQUAREM (Varadhan & Roland, *Simple and globally convergent methods for accelerating
    // the convergence of any EM algorithm*, Scand. J. Stat. 2008, scheme S3): two EM steps
    // p1 = F(p0), p2 = F(p1) give r = p1 − p0 and v = p2 − p1 − r; the extrapolation
    // p0 − 2αr + α²v with α = −‖r‖/‖v‖ (at most −1), kept in the simplex, is followed by
    // one EM step, and replaced by p2 whenever it would lower the likelihood. |α| is capped
    // by the adaptive bound of the SQUAREM package (Du & Varadhan, *SQUAREM: an R package
    // for off-the-shelf acceleration of EM, MM and other EM-like monotone algorithms*,
    // J. Stat. Softw. 92(7), 2020: step.max0 = 1, mstep = 4): a step that reaches the cap
    // multiplies it by 4 when kept and divides it by 4 when replaced, so that a run of
    // overshooting extrapolations (each a wasted EM step) cannot persist. A plain EM
    // step at ε = 1, k = 256 shrinks the error by 0.7 %, so thousands are needed; a cycle
    // here takes three and converges in tens to a few hundred. Each EM step also returns
    // its result's λ, and the λ of the point kept is the next cycle's: a cycle computes
    // four λ (not five) and three steps.
    let mut step_max = 1.0f64;
    let mut iterations = 0;
    while iterations < max_iterations {
        em_step(w, &f, &p, &lambda, &mut ratio, &mut p1, &mut l1);
        em_step(w, &f, &p1, &l1, &mut ratio, &mut p2, &mut l2);
        iterations += 2;
        let mut nr = 0.0;
        let mut nv = 0.0;
        for ((&a, &b), &c) in p.iter().zip(&p1).zip(&p2) {
            let r = b - a;
            let v = c - b - r;
            nr += r * r;
            nv += v * v;
        }
        let (nr, nv) = (libm::sqrt(nr), libm::sqrt(nv));
        let take_stabilised = nv > 0.0 && {
            let alpha = (-nr / nv).min(-1.0).max(-step_max);
            for (((qx, &a), &b), &c) in q.iter_mut().zip(&p).zip(&p1).zip(&p2) {
                let (r, v) = (b - a, c - b - (b - a));
                *qx = (a - 2.0 * alpha * r + alpha * alpha * v).max(0.0);
            }
            let total: f64 = q.iter().sum();
            q.iter_mut().for_each(|x| *x /= total);
            report_distribution(w, &q, &mut lq);
            em_step(w, &f, &q, &lq, &mut ratio, &mut s, &mut ls);
            iterations += 1;
            let kept = loglik(&ls) >= loglik(&l2);
            if alpha == -step_max {
                step_max = if kept { 4.0 * step_max } else { (step_max / 4.0).max(1.0) };
            }
            kept
        };
        let (next, next_lambda) = if take_stabilised { (&mut s, &mut ls) } else { (&mut p2, &mut l2) };
        let moved = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0f64, f64::max);
        core::mem::swap(&mut p, next);
        core::mem::swap(&mut lambda, next_lambda);
        if moved <= CONVERGED {
            break;
        }
    }
    // Renormalise the rounding drift of the steps.
    let total: f64 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= total);
    report_distribution(w, &p, &mut lambda);
    let log_likelihood = counts.iter().zip(&lambda).filter(|(&c, _)| c > 0.0).map(|(&c, &l)| c * libm::log(l)).sum();
    let (covariance, unidentified) =
        if nx <= MAX_SE_SYMBOLS { information_covariance(w, counts, &lambda) } else { (Vec::new(), Vec::new()) };
    // Without a finite estimate (EM on a column whose probabilities underflow) there is no
    // solution set to bound.
    let (identified, interval) = if covariance.is_empty() || !p.iter().all(|v| v.is_finite()) {
        (Vec::new(), Vec::new())
    } else {
        categories(&Solutions::new(&p, &unidentified))?
    };
    let std_error = if covariance.is_empty() {
        vec![f64::NAN; nx]
    } else {
        let se =
            |x: usize| if identified.get(x) == Some(&false) { f64::NAN } else { libm::sqrt(covariance[x * nx + x]) };
        (0..nx).map(se).collect()
    };
    Ok(Mle { estimate: p, std_error, n, unidentified, identified, interval, iterations, log_likelihood, covariance })
}

/// One EM step from `p`, whose report distribution is `lambda`: `next`_x =
/// p_x Σ_y W_xy (f_y/λ_y) over the outputs seen (a dot product per row), and
/// `next_lambda` = Wᵀ`next` (the next step's λ, or the likelihood's).
/// `ratio` is scratch (|Y|).
fn em_step(
    w: &Matrix,
    f: &[f64],
    p: &[f64],
    lambda: &[f64],
    ratio: &mut [f64],
    next: &mut [f64],
    next_lambda: &mut [f64],
) {
    for ((r, &fy), &l) in ratio.iter_mut().zip(f).zip(lambda) {
        *r = if fy > 0.0 { fy / l } else { 0.0 };
    }
    for (x, (nx, &px)) in next.iter_mut().zip(p).enumerate() {
        *nx = px * dot(w.row(x), ratio);
    }
    report_distribution(w, next, next_lambda);
}

/// λ = Wᵀp.
fn report_distribution(w: &Matrix, p: &[f64], lambda: &mut [f64]) {
    lambda.iter_mut().for_each(|l| *l = 0.0);
    add_scaled_rows(lambda, p, w.as_slice());
}

/// The covariance (row-major) from the pseudo-inverse of the observed information on the
/// tangent space, and the unidentified directions (module docs).
///
/// J = AᵀA with one row a_y = √c_y/λ_y W_·y per output seen, so the projected information
/// is H = P J P = BᵀB with b_y = a_y P = a_y − mean(a_y)·1 (P = I − 11ᵀ/k, the projection
/// onto {v : Σ v = 0}): a Gram matrix of contiguous rows. The covariance Σ v vᵀ/μ over the
/// identified eigenpairs is likewise UᵀU with rows u = v/√μ.
fn information_covariance(w: &Matrix, counts: &[f64], lambda: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let k = w.rows();
    let mut b: Vec<f64> = Vec::with_capacity(counts.len() * k);
    let mut rows = 0;
    for (y, (&c, &l)) in counts.iter().zip(lambda).enumerate() {
        if c == 0.0 || l <= 0.0 {
            continue;
        }
        let s = libm::sqrt(c) / l;
        let start = b.len();
        b.extend((0..k).map(|x| s * w.get(x, y)));
        let mean = b[start..].iter().sum::<f64>() / k as f64;
        b[start..].iter_mut().for_each(|v| *v -= mean);
        rows += 1;
    }
    let h = gram(&b, rows, k);
    let (vals, vecs) = symmetric_eigen(&h, k);
    let top = vals.iter().copied().fold(0.0f64, f64::max);
    // The null space of H holds the simplex's normal 1/√k and the unidentified directions,
    // possibly mixed by the solver: its vectors are projected onto {Σ v = 0} and
    // orthonormalised (Gram–Schmidt), the normal's remnant dropping out.
    let mut unidentified: Vec<Vec<f64>> = Vec::new();
    let mut u: Vec<f64> = Vec::with_capacity(k * k);
    let mut identified = 0;
    for (i, &val) in vals.iter().enumerate() {
        let v = (0..k).map(|a| vecs[a * k + i]);
        if val > IDENTIFIED * top {
            let scale = 1.0 / libm::sqrt(val);
            u.extend(v.map(|x| x * scale));
            identified += 1;
            continue;
        }
        let v: Vec<f64> = v.collect();
        let mean = v.iter().sum::<f64>() / k as f64;
        let mut u: Vec<f64> = v.iter().map(|x| x - mean).collect();
        for b in &unidentified {
            let d: f64 = u.iter().zip(b).map(|(x, y)| x * y).sum();
            u.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
        }
        let norm = libm::sqrt(u.iter().map(|x| x * x).sum::<f64>());
        if norm > 1e-6 {
            unidentified.push(u.into_iter().map(|x| x / norm).collect());
        }
    }
    (gram(&u, identified, k), unidentified)
}
