//! The sampling mechanism (the paper's eq 20): release `Y = X` with probability λ,
//! otherwise a fresh draw `X̃ ~ f_X` from the prior.
//!
//! # Prop 2, checked
//! For a prior without atoms, `P(Y∈S | x) = λ·1[x∈S] + (1−λ)F(S)` and `P(Y∈S) = F(S)`.
//! Definition (3)'s first condition is worst at `S = {x}` (`F(S) = 0`): `δ ≥ e^{−ε}λ`;
//! the second at `S = ℝ∖{x}` (`F(S) = 1`): `δ ≥ 1 − e^ε(1−λ)`; general `S_x` reduce to
//! points (joint convexity). So the exact δ of λ is
//! `max{e^{−ε}λ, 1 − e^ε(1 − λ), 0}` ([`sampling_delta`]) and the largest feasible λ is
//! `min{δe^ε, 1 − e^{−ε} + δe^{−ε}}` — **exactly Prop 2's λ**: the proposition is correct
//! and tight (not only "feasible"). It is tight under definition (3) only: under Cor 9's
//! criterion `E_{e^ε}(f_{Y|X}‖f_Y) ≤ δ` the same mechanism has
//! `E_{e^ε}(f_{Y|X}‖f_Y) = λ`, so Prop 2's `λ = δe^ε` would violate it — the paper's
//! Gaussian section (Cor 9) and sampling section (Prop 2) use different δ scalings.
//! Under a discrete prior the atoms only help ([`sampling_delta_discrete`] ≤ the
//! atomless δ, with equality in the limit of a fine uniform grid; see the tests).

use super::{widen_down, widen_up, CALIBRATION_MARGIN};
use privlift::error::Result;
use privlift::numeric::UNIT_ROUNDOFF;
use privlift::param::{Delta, Epsilon, Probability};

/// Prop 2: `λ = min{δe^ε, 1 − e^{−ε} + δe^{−ε}}`, the largest λ for which the sampling
/// mechanism is (ε, δ)-LIP (definition (3), atomless prior), rounded down.
///
/// # Errors
/// None in practice: the rounded λ is checked into a [`Probability`] (`invalid_argument`).
///
/// # Example
/// ```
/// use privlift::param::{Delta, Epsilon};
/// use privlift_design::continuous::{sampling_delta, sampling_lambda};
/// let (eps, delta) = (Epsilon::new("epsilon", 1.0)?, Delta::new("delta", 0.01)?);
/// assert!(sampling_delta(eps, sampling_lambda(eps, delta)?) <= 0.01);
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn sampling_lambda(epsilon: Epsilon, delta: Delta) -> Result<Probability> {
    let (eps, delta) = (epsilon.get(), delta.get());
    let a = delta * libm::exp(eps);
    // 1 − e^{−ε}(1 − δ) = −expm1(−ε) + δe^{−ε}, without cancellation.
    let b = -libm::expm1(-eps) + delta * libm::exp(-eps);
    // Lowered by CALIBRATION_MARGIN (far above the few-ulp error) so that the rounded-up
    // exact δ of `sampling_delta` confirms δ.
    Probability::new("lambda", widen_down(a.min(b), CALIBRATION_MARGIN).clamp(0.0, 1.0))
}

/// The exact δ of the sampling mechanism with release probability λ under an atomless
/// prior (definition (3)): `max{e^{−ε}λ, 1 − e^ε(1 − λ), 0}`, rounded up.
pub fn sampling_delta(epsilon: Epsilon, lambda: Probability) -> f64 {
    let (eps, lambda) = (epsilon.get(), lambda.get());
    // a: a product (relative error); b: a difference (absolute error of its terms).
    let a = widen_up(libm::exp(-eps) * lambda, 4.0 * UNIT_ROUNDOFF, 0.0);
    let t = libm::exp(eps) * (1.0 - lambda);
    let b = widen_up(1.0 - t, 0.0, 4.0 * UNIT_ROUNDOFF * (1.0 + t));
    a.max(b).clamp(0.0, 1.0)
}

/// The exact δ (definition (3)) of the sampling mechanism under a **discrete** prior
/// `p`: `P(y|x) = λ·1[y = x] + (1 − λ)p(y)`, `P(y) = p(y)`;
/// `δ = max_x max{e^{−ε}Σ_y (P(y|x) − e^ε p(y))₊, Σ_y (p(y) − e^ε P(y|x))₊}` (singleton
/// `S_x` suffice by convexity; the best `S_y` is where the difference is positive).
/// Evaluated in `f64` (nearest), for checking Prop 2.
///
/// # Errors
/// The distribution errors for `p`.
pub fn sampling_delta_discrete(epsilon: Epsilon, lambda: Probability, p: &[f64]) -> Result<f64> {
    let (eps, lambda) = (epsilon.get(), lambda.get());
    privlift::document::check_distribution("p", p)?;
    let (up, down) = (libm::exp(eps), libm::exp(-eps));
    let mut delta: f64 = 0.0;
    for (x, &px) in p.iter().enumerate() {
        if px == 0.0 {
            continue;
        }
        let (mut d1, mut d2) = (0.0, 0.0);
        for (y, &py) in p.iter().enumerate() {
            let pyx = if y == x { lambda } else { 0.0 } + (1.0 - lambda) * py;
            d1 += (pyx - up * py).max(0.0);
            d2 += (py - up * pyx).max(0.0);
        }
        delta = delta.max(down * d1).max(d2);
    }
    Ok(delta)
}

#[cfg(test)]
mod tests {
    use crate::continuous::shims::{sampling_delta, sampling_lambda};

    #[test]
    fn prop2_lambda_is_feasible_and_tight() {
        for eps in [0.1, 0.5, 1.0, 2.0, 4.0] {
            for delta in [1e-4, 1e-2, 0.1, 0.4, 0.9] {
                let l = sampling_lambda(eps, delta).unwrap();
                let d = sampling_delta(eps, l).unwrap();
                assert!(d <= delta * (1.0 + 1e-12), "{eps} {delta}: {d}");
                assert!(delta - d <= 2e-12 * libm::exp(eps), "tight: {eps} {delta}: {d}");
                if l < 1.0 {
                    let more = (l * (1.0 + 1e-6)).min(1.0);
                    assert!(sampling_delta(eps, more).unwrap() > delta, "larger λ fails");
                }
            }
        }
        assert_eq!(sampling_lambda(1.0, 0.0).unwrap(), 0.0); // no pure ε-LIP sampling mechanism
        assert!(sampling_lambda(-1.0, 0.1).is_err());
        assert!(sampling_lambda(1.0, 1.5).is_err());
    }
}
