//! The LDP baselines the paper compares its context-aware mechanisms with (§IV-C-2).

use super::{bisect_smallest, calibration_target, phi, positive, widen_up, SIGMA_WIDTH};
use privlift::error::Result;
use privlift::numeric::{next_up, UNIT_ROUNDOFF};
use privlift::param::{Delta, Epsilon};

/// The vanilla Gaussian mechanism's bound (the paper's \[39\], Dwork–Roth Thm A.1 solved
/// for δ): `δ ≤ 1.25·exp(−ε²σ²/(2Δ²))`, rounded up.
///
/// Dwork–Roth prove it only for `ε < 1`; for larger ε this is the formula the paper plots,
/// not a guarantee. It can exceed 1 (then it says nothing).
///
/// # Errors
/// `invalid_argument` for `σ` or `Δ` not finite and > 0.
pub fn vanilla_gaussian_delta(epsilon: Epsilon, sigma: f64, sensitivity: f64) -> Result<f64> {
    let eps = epsilon.get();
    positive("sigma", sigma)?;
    positive("sensitivity", sensitivity)?;
    let t = eps * sigma / sensitivity;
    let v = 1.25 * libm::exp(-0.5 * t * t);
    // exponent: 4 roundings (relative 4u, times |exponent| absolute in the log), exp 1 ulp.
    let rel = 8.0 * UNIT_ROUNDOFF * (1.0 + 0.5 * t * t);
    Ok(widen_up(v, rel, 0.0))
}

/// The analytic Gaussian mechanism of Balle & Wang (ICML 2018), the paper's eq (24): the
/// exact δ of `N(0, σ²)` noise for ε-LDP with sensitivity Δ,
/// `δ = Φ(Δ/2σ − εσ/Δ) − e^ε·Φ(−Δ/2σ − εσ/Δ)` (= `E_{e^ε}(N(x,σ²)‖N(x',σ²))` for
/// `|x − x'| = Δ`), rounded up.
///
/// # Errors
/// As [`vanilla_gaussian_delta`].
pub fn analytic_gaussian_delta(epsilon: Epsilon, sigma: f64, sensitivity: f64) -> Result<f64> {
    let eps = epsilon.get();
    positive("sigma", sigma)?;
    positive("sensitivity", sensitivity)?;
    let a = sensitivity / (2.0 * sigma);
    let b = eps * sigma / sensitivity;
    let t1 = phi(a - b);
    let t2 = libm::exp(eps) * phi(-a - b);
    let d = (t1 - t2).max(0.0);
    // Each term has relative error ≤ ~(4 + |arguments|)·u (erfc of a slightly perturbed
    // argument, exp, products); bound the difference by that much of both terms.
    let rel = 16.0 * UNIT_ROUNDOFF * (4.0 + (a + b) * (a + b) + eps);
    Ok(next_up(d + rel * (t1 + t2)).min(1.0))
}

/// The smallest σ for which [`analytic_gaussian_delta`] is at most `delta` (bisection;
/// eq (24) decreases in σ, Balle & Wang Lemma 7), rounded up by the bisection's bracket.
///
/// # Errors
/// As [`vanilla_gaussian_delta`] and `invalid_argument` for `delta` of 0 or 1.
pub fn analytic_gaussian_sigma(epsilon: Epsilon, delta: Delta, sensitivity: f64) -> Result<f64> {
    positive("sensitivity", sensitivity)?;
    let delta = calibration_target(delta)?;
    let (s, _) =
        bisect_smallest(|s| Ok(analytic_gaussian_delta(epsilon, s, sensitivity)? <= delta), sensitivity, SIGMA_WIDTH)?;
    Ok(s)
}

/// The Laplace mechanism's scale for ε-LDP, `b = Δ/ε` (the paper's \[13\]), rounded up.
///
/// # Errors
/// `invalid_argument` for `Δ` not finite and > 0.
pub fn laplace_ldp_scale(sensitivity: f64, epsilon: Epsilon) -> Result<f64> {
    let eps = epsilon.get();
    positive("sensitivity", sensitivity)?;
    Ok(next_up(sensitivity / eps))
}

#[cfg(test)]
mod tests {
    use super::{laplace_ldp_scale, next_up, Epsilon};
    use crate::continuous::shims::{analytic_gaussian_delta, analytic_gaussian_sigma, vanilla_gaussian_delta};
    use crate::continuous::{e_divergence, Gaussian};

    #[test]
    fn eq24_is_the_e_divergence_of_two_shifted_gaussians() {
        for (eps, s, d) in [(1.0, 1.0, 1.0), (0.5, 3.0, 2.0), (2.0, 10.0, 20.0)] {
            let a = analytic_gaussian_delta(eps, s, d).unwrap();
            let e =
                e_divergence(libm::exp(eps), &Gaussian::new(0.0, s).unwrap(), &Gaussian::new(d, s).unwrap()).unwrap();
            assert!((a - e).abs() < 1e-12, "{a} vs {e}");
        }
    }

    #[test]
    fn analytic_beats_vanilla_and_calibrates() {
        let (eps, d) = (0.5, 1.0);
        let s = analytic_gaussian_sigma(eps, 1e-5, d).unwrap();
        assert!(analytic_gaussian_delta(eps, s, d).unwrap() <= 1e-5);
        assert!(analytic_gaussian_delta(eps, s * (1.0 - 1e-9), d).unwrap() > 1e-5 * (1.0 - 1e-6));
        assert!(vanilla_gaussian_delta(eps, s, d).unwrap() > 1e-5);
        assert_eq!(laplace_ldp_scale(20.0, Epsilon::positive("epsilon", 2.0).unwrap()).unwrap(), next_up(10.0));
        assert!(Epsilon::positive("epsilon", 0.0).is_err()); // the type holds the rule
    }
}
