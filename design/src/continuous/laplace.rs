//! The Laplace mechanism `Y = x + Lap(b)`, `y ∈ ℝ`, on a discretised domain: values
//! `v_1 < … < v_m` with prior probabilities `p_j` (the paper's Thm 6, eq 25).
//!
//! # Eq 25 and its switch
//! Eq 25 sets `b = ΔX / ln((e^ε − Pmin)/(1 − Pmin))` for `ε < ln(1/Pmin)` and `b = ΔX/ε`
//! otherwise. The first branch is exactly "Laplace at `ε' = ΔX/b`-LDP, then Thm 1's
//! converse `LIP ≤ ln(Pmin + e^{ε'}(1 − Pmin)) = ε`" ([`privlift::accounting::ldp_to_lip`]),
//! which holds for **every** ε > 0: the min-lift side is `ln(P + e^{ε'}(1−P))` and the
//! max-lift side `−ln(P + e^{−ε'}(1−P))` is never larger (their sum is
//! `ln((P + e^{ε'}(1−P))(P + e^{−ε'}(1−P))) ≥ 0` because `e^{ε'} + e^{−ε'} ≥ 2`). And
//! `(e^ε − P)/(1 − P) > e^ε` for `ε > 0`, so the first branch always needs **less** noise
//! than `ΔX/ε`: the switch is not needed and only adds noise. [`laplace_scales`] returns
//! both (`b_lip` without the switch, `b_lip_eq25` with it); [`laplace_lip`] confirms.
//!
//! # The exact LIP (closed form)
//! With `S(y) = Σ_j p_j e^{−|y − v_j|/b}` (so `f_Y(y) = S(y)/2b`), the lift of `x` at `y` is
//! `ℓ(x, y) = f(y|x)/f_Y(y) = e^{−|y−x|/b} / S(y)`. Its reciprocal
//! `1/ℓ = Σ_j p_j e^{(|y−x| − |y−v_j|)/b}` is, on each interval between consecutive values,
//! a sum of terms with exponent slope `0` or `±2/b` in `y` **of one sign** (x is itself a
//! breakpoint, so it is entirely left or right of the interval), hence monotone; on the
//! two rays it is constant. So the extremes over `y ∈ ℝ` are attained at the values
//! `y = v_i`, and with `S_i = S(v_i)`:
//! `ln max ℓ = max_i (−ln S_i)` (at `x = y = v_i`) and
//! `−ln min ℓ = max_i (max(v_i − v_1, v_m − v_i)/b + ln S_i)`; LIP is the larger. O(m²).
//! Values with prior 0 never occur and are left out.

use alloc::vec::Vec;

use super::{positive, widen_down, widen_up, CALIBRATION_MARGIN};
use privlift::error::{Error, Result};
use privlift::numeric::{gamma, next_down, next_up, UNIT_ROUNDOFF};
use privlift::param::Epsilon;

/// The absolute margin (nats) by which [`laplace_scales`] lowers the LDP-equivalent ε'
/// beside the relative [`CALIBRATION_MARGIN`], so that an ε' near 0 keeps a margin too; an
/// ε whose ε' falls to 0 is refused as too small to calibrate.
const EPS_LDP_NATS: f64 = 1e-13;

/// The scales of the Laplace mechanism on a discretised domain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceScales {
    /// `ΔX/ε`: ε-LDP (the paper's \[13\]), rounded up.
    pub b_ldp: f64,
    /// Eq 25's first branch for every ε: ε-LIP (see the module docs), rounded up.
    pub b_lip: f64,
    /// Eq 25 as printed (switching to `ΔX/ε` for `ε ≥ ln(1/Pmin)`).
    pub b_lip_eq25: f64,
    /// `ΔX = max − min` over the support, rounded up.
    pub delta_x: f64,
    /// The smallest positive prior probability.
    pub pmin: f64,
}

/// The exact LIP of the Laplace mechanism with scale `b` under a discrete prior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceLip {
    /// `sup_{x, y} |ln ℓ(x, y)|`, an upper bound (rounded up).
    pub lip: f64,
    /// Upper bound on `sup ℓ`.
    pub max_lift: f64,
    /// Lower bound on `inf ℓ`.
    pub min_lift: f64,
}

/// The support (values with `p > 0`), sorted by value.
fn support(values: &[f64], prior: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    if values.len() != prior.len() {
        return Err(Error::field("labels").dims(prior.len(), values.len()));
    }
    if values.len() > privlift::document::MAX_SYMBOLS {
        return Err(Error::TooManySymbols {
            field: "p".into(),
            found: values.len(),
            max: privlift::document::MAX_SYMBOLS,
        });
    }
    privlift::document::check_distribution("p", prior)?;
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::invalid("labels", alloc::format!("every value must be a finite number; got {v}")));
    }
    let mut pairs: Vec<(f64, f64)> = values.iter().copied().zip(prior.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let Some(w) = pairs.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::DuplicateLabel { field: "labels".into(), label: alloc::format!("{}", w[0].0) });
    }
    let (v, p): (Vec<f64>, Vec<f64>) = pairs.into_iter().filter(|(_, p)| *p > 0.0).unzip();
    if v.len() < 2 {
        return Err(Error::invalid("p", "the Laplace mechanism needs at least two values with positive probability"));
    }
    Ok((v, p))
}

/// `b_ldp`, `b_lip` (eq 25 without its switch) and `b_lip_eq25` for the values `values`
/// (the numeric value of each prior entry) with prior `prior`, at budget ε (nats).
///
/// # Privacy
/// `Y = x + Lap(b_lip)` is ε-LIP under `prior` (Thm 6 / the module docs); `b_ldp` gives
/// ε-LDP. Both are rounded up (more noise).
///
/// # Errors
/// `invalid_argument` for ε not finite and > 0, a non-finite value, fewer than two values
/// with positive probability; `duplicate_label` for a repeated value; the distribution
/// errors for `prior`; `dimension_mismatch` if the lengths differ.
///
/// # Example
/// ```
/// use privlift_design::continuous::{laplace_lip, laplace_scales};
/// use privlift::param::Epsilon;
/// let s = laplace_scales(&[0.0, 1.0, 2.0], &[0.2, 0.3, 0.5], Epsilon::positive("epsilon", 1.0)?)?;
/// assert!(s.b_lip < s.b_ldp);
/// assert!(laplace_lip(&[0.0, 1.0, 2.0], &[0.2, 0.3, 0.5], s.b_lip)?.lip <= 1.0);
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn laplace_scales(values: &[f64], prior: &[f64], epsilon: Epsilon) -> Result<LaplaceScales> {
    let eps = epsilon.get();
    let (v, p) = support(values, prior)?;
    let pmin = p.iter().copied().fold(1.0, f64::min);
    let delta_x = next_up(v[v.len() - 1] - v[0]);
    let b_ldp = next_up(delta_x / eps);
    // ε' = ln((e^ε − P)/(1 − P)) = log1p(expm1(ε)/(1 − P)), accurate to a few ulps
    // (P ≤ 1/2 on a support of ≥ 2 values); lowered by CALIBRATION_MARGIN and EPS_LDP_NATS,
    // far more than its rounding error, so that the rounded-up audit of `laplace_lip`
    // confirms ε even where the bound is tight (two values).
    let eps_ldp = widen_down(libm::log1p(libm::expm1(eps) / (1.0 - pmin)), CALIBRATION_MARGIN) - EPS_LDP_NATS;
    if eps_ldp <= 0.0 {
        let reason = alloc::format!("{eps} nats is too small to calibrate (below ~{EPS_LDP_NATS:e})");
        return Err(Error::invalid("epsilon", reason));
    }
    let b_lip = next_up(delta_x / eps_ldp);
    let b_lip_eq25 = if eps < -libm::log(pmin) { b_lip } else { b_ldp };
    Ok(LaplaceScales { b_ldp, b_lip, b_lip_eq25, delta_x, pmin })
}

/// The exact LIP of `Y = x + Lap(b)` (continuous output) under the discrete prior
/// `prior` on `values`, in closed form (module docs), rounded up.
///
/// # Rounding
/// Each `S_i` is a sum of `m` products of `exp` of a two-rounding argument, relative
/// error at most `γ_{m+6} + 3u·A` where `A` is the largest `|argument|`; the logarithm and
/// the final sums add a few ulps; the result is widened by all of that.
///
/// # Errors
/// As [`laplace_scales`], with `b` not finite and > 0 for ε.
pub fn laplace_lip(values: &[f64], prior: &[f64], b: f64) -> Result<LaplaceLip> {
    positive("b", b)?;
    let (v, p) = support(values, prior)?;
    let m = v.len();
    let (lo, hi) = (v[0], v[m - 1]);
    let mut max_arg = 0.0f64;
    let mut ln_max_lift = f64::NEG_INFINITY;
    let mut neg_ln_min_lift = f64::NEG_INFINITY;
    for &vi in &v {
        let mut s = 0.0;
        for (&vj, &pj) in v.iter().zip(&p) {
            let arg = (vi - vj).abs() / b;
            max_arg = max_arg.max(arg);
            s += pj * libm::exp(-arg);
        }
        let ln_s = libm::log(s);
        ln_max_lift = ln_max_lift.max(-ln_s);
        let far = (vi - lo).max(hi - vi) / b;
        max_arg = max_arg.max(far);
        neg_ln_min_lift = neg_ln_min_lift.max(far + ln_s);
    }
    let rel_s = gamma(m + 6) + 3.0 * UNIT_ROUNDOFF * max_arg;
    let abs = 1.01 * rel_s / (1.0 - rel_s) + 4.0 * UNIT_ROUNDOFF * (max_arg + 1.0);
    let up = |x: f64| widen_up(x, 4.0 * UNIT_ROUNDOFF, abs).max(0.0);
    let (a, c) = (up(ln_max_lift), up(neg_ln_min_lift));
    Ok(LaplaceLip {
        lip: a.max(c),
        max_lift: next_up(next_up(libm::exp(a))),
        min_lift: next_down(next_down(libm::exp(-c))).max(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ε whose LDP-equivalent ε' the margins take to 0 is refused, the message naming
    /// the absolute margin; one a little above it is calibrated.
    #[test]
    fn an_epsilon_the_margins_swallow_is_refused() {
        let scales = |eps: f64| laplace_scales(&[0.0, 1.0], &[0.5, 0.5], Epsilon::positive("epsilon", eps).unwrap());
        let Err(Error::InvalidArgument { name, reason }) = scales(1e-14) else { panic!("accepted") };
        assert_eq!(
            (name.as_str(), reason.as_str()),
            ("epsilon", "0.00000000000001 nats is too small to calibrate (below ~1e-13)")
        );
        assert!(scales(1e-12).unwrap().b_lip.is_finite());
    }

    /// The lift on a fine grid of y never exceeds the closed form.
    #[test]
    fn closed_form_dominates_a_grid_search_and_is_attained() {
        let (v, p) = ([0.0, 1.0, 2.5, 4.0], [0.1, 0.4, 0.3, 0.2]);
        let b = 1.3;
        let exact = laplace_lip(&v, &p, b).unwrap();
        let mut best: f64 = 0.0;
        for k in 0..=20_000 {
            let y = -3.0 + 10.0 * k as f64 / 20_000.0;
            let s: f64 = v.iter().zip(&p).map(|(vj, pj)| pj * libm::exp(-(y - vj).abs() / b)).sum();
            for &x in &v {
                best = best.max((-(y - x).abs() / b - libm::log(s)).abs());
            }
        }
        assert!(best <= exact.lip, "{best} > {}", exact.lip);
        assert!(exact.lip - best < 1e-9, "grid contains the breakpoints: {best} vs {}", exact.lip);
    }

    #[test]
    fn switch_of_eq25_only_adds_noise() {
        let (v, p) = ([0.0, 1.0, 2.0], [0.25, 0.25, 0.5]);
        // ln(1/Pmin) = ln 4 ≈ 1.386: above it eq 25 switches to ΔX/ε.
        for eps in [0.1, 0.5, 1.0, 1.386, 1.5, 3.0, 8.0] {
            let s = laplace_scales(&v, &p, Epsilon::positive("epsilon", eps).unwrap()).unwrap();
            assert!(s.b_lip < s.b_ldp, "{eps}");
            assert!(laplace_lip(&v, &p, s.b_lip).unwrap().lip <= eps, "{eps}");
            if eps >= 1.39 {
                assert_eq!(s.b_lip_eq25, s.b_ldp);
            }
        }
        // Two values: the LDP → LIP bound is attained, and the audit still confirms ε.
        for eps in [1e-6, 0.01, 1.0, 5.0] {
            let s = laplace_scales(&[0.0, 3.0], &[0.3, 0.7], Epsilon::positive("epsilon", eps).unwrap()).unwrap();
            let l = laplace_lip(&[0.0, 3.0], &[0.3, 0.7], s.b_lip).unwrap().lip;
            assert!(l <= eps && eps - l < 1e-9 * eps.max(1e-3), "{eps}: {l}");
        }
    }

    #[test]
    fn rejects_bad_inputs() {
        // ε = 0 and ε above 700 nats are refused by the type, as for every designer.
        assert!(Epsilon::positive("epsilon", 0.0).is_err() && Epsilon::positive("epsilon", 800.0).is_err());
        assert!(laplace_scales(&[0.0, 0.0], &[0.5, 0.5], Epsilon::positive("epsilon", 1.0).unwrap()).is_err());
        assert!(laplace_scales(&[0.0, 1.0], &[1.0, 0.0], Epsilon::positive("epsilon", 1.0).unwrap()).is_err());
        assert!(laplace_scales(&[0.0, f64::NAN], &[0.5, 0.5], Epsilon::positive("epsilon", 1.0).unwrap()).is_err());
        assert!(laplace_scales(&[0.0], &[0.5, 0.5], Epsilon::positive("epsilon", 1.0).unwrap()).is_err());
        assert!(laplace_lip(&[0.0, 1.0], &[0.5, 0.5], 0.0).is_err());
    }
}
