//! The secret's distribution from an estimate of the input's: P̂_S = Σ_x P(s|x) p̂_x, with
//! P(s|x) = P_{S,X}(s, x)/P_X(x) read from the document's declared joint.
//!
//! This assumes what the document's privacy analysis already assumes: the reports come
//! from inputs whose link to the secret is the declared P(S|X) (Ding, Liu, Farokhi's
//! Markov chain S → X → Y). Only P_X is re-estimated from the counts.
//!
//! **Standard errors.** P̂_S(s) = a_sᵀ p̂ is linear in p̂ with a_s = P(s|·), so the delta
//! method is exact for it: Var = a_sᵀ C a_s with C the covariance of p̂ along the
//! identified directions ([`Mle::covariance`]; van der Vaart, *Asymptotic Statistics*,
//! Thm 3.1). P_S(s) is identified by the reports iff a_s is orthogonal to every
//! direction of [`Mle::unidentified`] (moving p along such a v changes P_S(s) by t·a_s·v
//! while leaving every report probability unchanged): the rule of a category of P_X,
//! [`super::identified`], with a = a_s. Where P_S(s) is not identified its standard
//! error is NaN and what the reports determine is the interval of a_sᵀπ over the
//! maximum-likelihood solutions π.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::identified::{identifies, Solutions};
use super::mle::Mle;
use privlift::document::{Document, Matrix};
use privlift::error::Result;

/// The EM's resolution at the boundary of the simplex: an entry whose MLE is 0 is still
/// left at ~1e-7 when the iterations stop (SQUAREM converges sublinearly there).
const RESOLUTION: f64 = 1e-6;

/// The 97.5 % normal quantile: mass more than this many standard errors above 0 is
/// significantly present.
const Z: f64 = 1.959964;

/// The estimated distribution of the secret S.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecretEstimate {
    /// The symbols of S.
    pub labels: Vec<String>,
    /// P̂_S(s) = Σ_x P(s|x) p̂_x.
    pub estimate: Vec<f64>,
    /// Delta-method standard error sqrt(a_sᵀ C a_s) where P_S(s) is identified; NaN where
    /// it is not, and when the estimate carries no covariance (|X| above
    /// [`super::mle::MAX_SE_SYMBOLS`]).
    pub std_error: Vec<f64>,
    /// Whether the reports identify P_S(s) (module docs). When false, `estimate[s]` is
    /// one of many values that explain the counts equally well.
    pub identified: Vec<bool>,
    /// Where P_S(s) is not identified, [lo, hi]: its least and greatest value among the
    /// maximum-likelihood solutions of P_X (`None` where it is identified, where the
    /// estimate carries no covariance, and above
    /// [`MAX_INTERVAL_DIRECTIONS`](super::identified::MAX_INTERVAL_DIRECTIONS) unidentified
    /// directions).
    pub interval: Vec<Option<[f64; 2]>>,
}

/// P̂_S = Σ_x P(s|x) p̂_x from the document's declared joint P_{S,X}; `None` when the
/// document declares no secret (S = X, where P̂_S is `mle` itself), or when `mle` is not
/// an estimate over this document's inputs (|p̂| ≠ |X|).
///
/// An input with P_X(x) = 0 in the joint has no P(s|x): it contributes nothing
/// (a_s(x) = 0, no conditional is made up for it). If the counts nevertheless put mass
/// on it — p̂_x above both the EM's resolution (1e-6) and 1.96 of its standard errors,
/// so that a truly absent input is flagged in only ~2.5 % of samples — that mass belongs
/// to no known secret (the data contradict the declared joint), P̂_S sums to less than 1,
/// and every P_S(s) is marked not identified.
///
/// # Errors
/// `design_failed` if the LP of an interval fails (a solver failure).
pub fn estimate_secret(doc: &Document, mle: &Mle) -> Result<Option<SecretEstimate>> {
    let Some(joint) = doc.declared_joint() else { return Ok(None) };
    let nx = joint.cols();
    if mle.estimate.len() != nx {
        return Ok(None);
    }
    let p_x = joint.col_sums();
    let stray = (0..nx).any(|x| p_x[x] <= 0.0 && present(mle, x));
    let covariance = (mle.covariance.len() == nx * nx).then_some(mle.covariance.as_slice());
    let mut est = SecretEstimate {
        labels: doc.secret().labels().to_vec(),
        estimate: Vec::with_capacity(joint.rows()),
        std_error: Vec::with_capacity(joint.rows()),
        identified: Vec::with_capacity(joint.rows()),
        interval: Vec::with_capacity(joint.rows()),
    };
    let solutions = Solutions::new(&mle.estimate, &mle.unidentified);
    for s in 0..joint.rows() {
        let a = conditional(joint, &p_x, s);
        let identified = !stray && identifies(&mle.unidentified, &a);
        est.estimate.push(dot(&a, &mle.estimate));
        est.std_error.push(match covariance {
            Some(c) if identified => libm::sqrt(quadratic_form(c, &a).max(0.0)),
            _ => f64::NAN,
        });
        est.interval.push(match covariance {
            Some(_) if !identified && solutions.bounded() => Some(solutions.range(&a)?.map(|v| v.clamp(0.0, 1.0))),
            _ => None,
        });
        est.identified.push(identified);
    }
    Ok(Some(est))
}

/// Whether p̂_x is significantly above 0 (see [`estimate_secret`]); a NaN standard error
/// (no covariance) leaves the resolution alone.
fn present(mle: &Mle, x: usize) -> bool {
    let p = mle.estimate[x];
    let se = mle.std_error.get(x).copied().unwrap_or(f64::NAN);
    p > RESOLUTION && (se.is_nan() || p > Z * se)
}

/// a_s = P(s|·) = P_{S,X}(s, ·)/P_X(·), 0 where P_X(x) = 0.
fn conditional(joint: &Matrix, p_x: &[f64], s: usize) -> Vec<f64> {
    joint.row(s).iter().zip(p_x).map(|(&j, &px)| if px > 0.0 { j / px } else { 0.0 }).collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// aᵀ C a for C row-major |a| × |a|.
fn quadratic_form(c: &[f64], a: &[f64]) -> f64 {
    let k = a.len();
    a.iter().enumerate().filter(|(_, &ai)| ai != 0.0).map(|(i, &ai)| ai * dot(&c[i * k..(i + 1) * k], a)).sum()
}
