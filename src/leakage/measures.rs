//! Lift-based and lift-inverse measures for one output y (Zarrabian et al. eqs 27–32).
//!
//! Each function takes the pairs (P(s), l̂(s,y)) of the secrets with P(s) > 0, where
//! the computed lift l̂ is within relative error `rel` of the exact lift, and returns an
//! upper bound of the measure: every term is evaluated at the end of its error interval
//! that makes it largest, and the final sum is widened by its own rounding bound.
//! With `inverse = true` the lift is replaced by 1/l (Definition 6, eqs 30–32); a zero
//! lift then gives an infinite measure.

use crate::numeric::{gamma, ln_up, next_up, up_rel};

/// Largest |t − 1| over the interval of `t` (t = l or 1/l) implied by `rel`.
fn dev_up(l: f64, rel: f64, inverse: bool) -> f64 {
    let (lo, hi) = interval(l, rel, inverse);
    (hi - 1.0).abs().max((1.0 - lo).abs()).max(0.0)
}

/// Interval [lo, hi] that contains the exact value of `l` (or of `1/l`).
fn interval(l: f64, rel: f64, inverse: bool) -> (f64, f64) {
    let r = rel / (1.0 - rel);
    let (lo, hi) = (l * (1.0 - r), next_up(l * (1.0 + r)));
    if inverse {
        if lo <= 0.0 {
            (1.0 / hi, f64::INFINITY)
        } else {
            (1.0 / hi, next_up(1.0 / lo))
        }
    } else {
        (lo.max(0.0), hi)
    }
}

/// Λ_ℓ1(y) = Σ_s P(s)|l(s,y) − 1| (eq 27), or Ψ_ℓ1(y) (eq 30) with `inverse`.
pub fn l1_lift(terms: &[(f64, f64)], rel: f64, inverse: bool) -> f64 {
    let sum: f64 = terms.iter().map(|&(p, l)| p * dev_up(l, rel, inverse)).sum();
    up_rel(sum, gamma(2 * terms.len() + 4))
}

/// Λ_χ²(y) = Σ_s P(s)(l(s,y) − 1)² (eq 28), or Ψ_χ²(y) (eq 31) with `inverse`.
pub fn chi2_lift(terms: &[(f64, f64)], rel: f64, inverse: bool) -> f64 {
    let sum: f64 = terms
        .iter()
        .map(|&(p, l)| {
            let d = dev_up(l, rel, inverse);
            p * d * d
        })
        .sum();
    up_rel(sum, gamma(3 * terms.len() + 4))
}

/// Λ_α(y) = (Σ_s P(s) l(s,y)^α)^{1/α} (eq 29), or Ψ_α(y) (eq 32) with `inverse`.
///
/// For α > 1 the measure increases with each l, so the upper end of each interval is
/// used; for 0 < α < 1 too (t ↦ t^α and u ↦ u^{1/α} are both increasing for α > 0).
///
/// Computed as M·(Σ_s P(s) (t_s/M)^α)^{1/α} with M the largest t_s, so a large order
/// (the paper uses α = 100) does not overflow t^α: unscaled, an inverse lift of 2 at
/// α = 1100 would already give ∞. Each ratio t_s/M is rounded up, so every term stays
/// an upper bound; a term that underflows is below `f64::MIN_POSITIVE`, which is added
/// back once per term.
pub fn alpha_lift(terms: &[(f64, f64)], alpha: f64, rel: f64, inverse: bool) -> f64 {
    let mut m = 0.0f64;
    for &(_, l) in terms {
        let (_, hi) = interval(l, rel, inverse);
        if hi == f64::INFINITY {
            return f64::INFINITY;
        }
        m = m.max(hi);
    }
    if m == 0.0 {
        return 0.0;
    }
    let mut sum = 0.0;
    for &(p, l) in terms {
        let (_, hi) = interval(l, rel, inverse);
        // The exact ratio is ≤ 1, so capping the rounded-up ratio at 1 keeps it ≥ exact.
        let r = next_up(hi / m).min(1.0);
        sum += p * libm::pow(r, alpha);
    }
    // libm's pow is accurate to < 1 ulp; allow 4 ulps per call plus the sum.
    let sum = up_rel(sum, gamma(6 * terms.len() + 4)) + terms.len() as f64 * f64::MIN_POSITIVE;
    up_rel(m * libm::pow(sum, 1.0 / alpha), gamma(10))
}

/// The ε (nats) at which an ℓ1 measure m meets the Sec. VI-B bound m ≤ e^ε − 1:
/// ln(1 + m), rounded up (≥ 0; ∞ for m = ∞).
pub fn l1_eps(m: f64) -> f64 {
    ln_up(1.0 + m, gamma(1)).max(0.0)
}

/// The ε (nats) at which a χ² measure m meets the Sec. VI-B bound m ≤ (e^ε − 1)²:
/// ln(1 + √m), rounded up.
pub fn chi2_eps(m: f64) -> f64 {
    ln_up(1.0 + libm::sqrt(m), gamma(2)).max(0.0)
}

/// The ε (nats) at which an α-lift measure m meets the Sec. VI-B bound m ≤ e^ε (eq 33):
/// ln m, rounded up (≥ 0: for α > 1 both α-measures are ≥ 1).
pub fn alpha_eps(m: f64) -> f64 {
    ln_up(m, 0.0).max(0.0)
}
