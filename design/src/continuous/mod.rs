//! Continuous data: context-aware Gaussian, Laplace and sampling mechanisms, calibrated
//! to a prior (Jiang, Seif, Tandon, Li, *Context-Aware Local Information Privacy*, IEEE
//! TIFS 2021, §IV-C; "the paper" below), and the LDP baselines they are compared with.
//!
//! | file | paper | what |
//! |---|---|---|
//! | `gaussian.rs` | Def 8, Lemma 4, Prop 3, Thm 5, Cor 9, Cor 10, Remark 2, Lemma 2 | [`Gaussian`] and [`GaussianMixture`] priors, [`e_divergence`], the δ of the Gaussian mechanism at `x` ([`delta_at`]) and on a bounded domain ([`delta_on_domain`]), calibration ([`calibrate_at`], [`calibrate_on_domain`]) |
//! | `gmm.rs` | Remark 2 | [`fit_gmm`]: a GMM prior fitted to samples by EM, K chosen by BIC |
//! | `laplace.rs` | Thm 6, eq 25 | [`laplace_scales`], the exact LIP of the Laplace mechanism under a discrete prior ([`laplace_lip`]) |
//! | `sampling.rs` | eq 20, Prop 2 | [`sampling_lambda`], the exact δ of the sampling mechanism ([`sampling_delta`], [`sampling_delta_discrete`]) |
//! | `baselines.rs` | eq 24, \[39\], \[13\] | [`vanilla_gaussian_delta`], [`analytic_gaussian_delta`], [`analytic_gaussian_sigma`], [`laplace_ldp_scale`] |
//! | `lattice.rs` | eq 3, Def 8, eq 20 | [`Lattice`], [`ContinuousPrior`] (lattice pmf), [`LatticeMechanism`]: the exact discrete Gaussian/Laplace/sampling mechanisms on a lattice and their exact (ε, δ)-LIP/LDP audit |
//! | `design.rs` | Thm 5, Cor 10, eq 24, eq 25, Prop 2 | [`design::design_continuous`]: lattice designs returned as audited [`privlift::document::ContinuousDocument`]s |
//!
//! # Which (ε, δ)-LIP
//! The paper defines (ε, δ)-LIP by its eq (3): for all sets `S_x`, `S_y`,
//! `P(Y∈S_y) ≥ e^{−ε}·P(Y∈S_y | X∈S_x) − δ` and `P(Y∈S_y) ≤ e^{ε}·P(Y∈S_y | X∈S_x) + δ`.
//! In E-divergence form (Def 8) the two conditions are
//! `e^{−ε}·E_{e^ε}(f_{Y|X} ‖ f_Y) ≤ δ` and `E_{e^ε}(f_Y ‖ f_{Y|X}) ≤ δ`. The paper's Cor 9
//! instead asks `E_{e^ε}(f_{Y|X} ‖ f_Y) ≤ δ` for the first one: sufficient, but it
//! overstates that term by the factor `e^ε`. **This module uses definition (3)**, so its
//! δ is `max{e^{−ε}·E_{e^ε}(f_{Y|X}‖f_Y), E_{e^ε}(f_Y‖f_{Y|X})}`; both E-divergences are
//! reported separately so that Cor 9's value can be recovered. For the Gaussian
//! mechanism the choice does not matter in practice: `E_{e^ε}(f_Y‖f_{Y|X})` (f_Y is the
//! wider Gaussian) was the larger term on every one of 200 000 random instances, so both
//! give the same δ (pinned in `design/tests/continuous.rs`). (Definition (3) is also
//! what Prop 2's λ is tight for, see [`sampling_lambda`]: the paper's sections disagree.)
//! By joint convexity of `E_γ` (an f-divergence), the sup over sets `S_x` is attained at
//! single points, so δ is a supremum over `x` of a per-`x` value.
//!
//! # Rounding
//! Every δ, LIP and leakage returned is an upper bound (rounded up, with the slack stated
//! in each function); every noise scale or λ returned is rounded to the side that adds
//! privacy (scales up, λ down). Numbers are `f64` with `libm` (no_std).
//!
//! # Sampling
//! Noise is never drawn in floating point: [`privlift::sample::discrete`] draws exact
//! discrete Laplace / Gaussian noise on a lattice `γℤ` (Canonne, Kamath, Steinke 2020);
//! [`privlift::document::lattice_index`] maps a real value to the lattice (round to nearest, ties away from 0).

mod baselines;
pub mod design;
mod gaussian;
mod gmm;
mod laplace;
mod sampling;
#[cfg(test)]
pub(crate) mod shims;

pub use baselines::{analytic_gaussian_delta, analytic_gaussian_sigma, laplace_ldp_scale, vanilla_gaussian_delta};
pub use gaussian::{
    calibrate_at, calibrate_on_domain, delta_at, delta_at_mixture, delta_on_domain, e_divergence, Calibration,
    LipDelta, E_DIVERGENCE_SLACK,
};
pub use gmm::{fit_gmm, GmmFit, MAX_COMPONENTS as GMM_MAX_COMPONENTS};
pub use laplace::{laplace_lip, laplace_scales, LaplaceLip, LaplaceScales};
pub use privlift::document::{ContinuousPrior, Gaussian, GaussianMixture, Histogram, Lattice, MAX_LATTICE_POINTS};
pub use privlift::leakage::lattice::LatticeAudit;
pub use privlift::sample::lattice::LatticeMechanism;
pub use sampling::{sampling_delta, sampling_delta_discrete, sampling_lambda};

#[cfg(test)]
use crate::continuous as real;
use privlift::error::{Error, Result};
pub(crate) use privlift::numeric::{mass, phi, q, widen_down, widen_up};
use privlift::param::Delta;
pub(crate) use privlift::param::{finite, non_negative, positive};

/// The δ a calibration aims at: in `(0, 1)` on top of [`Delta`]'s `[0, 1]` (no noise
/// reaches δ = 0, and any noise meets δ = 1).
///
/// # Errors
/// `invalid_argument` naming `delta` for 0 or 1.
pub(crate) fn calibration_target(delta: Delta) -> Result<f64> {
    let delta = delta.get();
    if delta > 0.0 && delta < 1.0 {
        Ok(delta)
    } else {
        Err(Error::invalid("delta", alloc::format!("must be in (0, 1); got {delta}")))
    }
}

/// The relative width to which a calibration brackets its noise scale σ, so that the σ
/// returned is within this of the smallest that meets the target: a few hundred ulps
/// (2⁻⁵³ ≈ 1.1e-16), near where the rounding of δ(σ), not δ itself, would decide the
/// bisection's steps.
pub(crate) const SIGMA_WIDTH: f64 = 1e-13;

/// Halving σ stops below this: every scale down to here met the target, so the target
/// needs no noise. Far above the smallest normal double (2.2e-308), so halving never
/// reaches subnormal scales.
const SMALLEST_SIGMA: f64 = 1e-300;

/// A calibrated parameter computed in closed form (Laplace's LDP-equivalent ε, the
/// sampling mechanism's λ) to a few ulps is lowered by this relative margin, far above
/// its rounding error, so that the rounded-up exact audit of the published mechanism
/// confirms the target even where the bound is tight.
pub(crate) const CALIBRATION_MARGIN: f64 = 1e-12;

/// Smallest `σ` in a bracket found by doubling and halving from `start`, then bisection,
/// for which `ok(σ)` holds, to a relative bracket width `rel_width`; `ok` must be (close
/// to) monotone: false below, true above.
/// Returns `(σ_ok, σ_fail)` with `ok(σ_ok)` checked true and `ok(σ_fail)` checked false
/// (or `σ_fail = 0` if every tried σ down to [`SMALLEST_SIGMA`] was fine).
pub(crate) fn bisect_smallest(
    mut ok: impl FnMut(f64) -> Result<bool>,
    start: f64,
    rel_width: f64,
) -> Result<(f64, f64)> {
    let mut hi = start;
    let mut doublings = 0;
    while !ok(hi)? {
        hi *= 2.0;
        doublings += 1;
        if doublings > 2100 || !hi.is_finite() {
            return Err(Error::Infeasible { reason: "no noise scale up to 1e308 meets the target".into() });
        }
    }
    let mut lo = hi * 0.5;
    while ok(lo)? {
        hi = lo;
        lo *= 0.5;
        if lo < SMALLEST_SIGMA {
            return Ok((hi, 0.0));
        }
    }
    for _ in 0..200 {
        let mid = lo + (hi - lo) * 0.5;
        if mid <= lo || mid >= hi || hi - lo <= hi * rel_width {
            break;
        }
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((hi, lo))
}

/// [`bisect_smallest`] for a decreasing `value(σ)` and the test `value(σ) ≤ target`:
/// the same bracket search, then the Illinois variant of regula falsi on
/// `ln value − ln target` as a function of `1/σ²` (superlinear: about 9 evaluations
/// after the bracket instead of about 45 bisection steps for a relative width of 1e-13),
/// falling back to bisection after 60 steps. The returned pair has the same checked
/// meaning as [`bisect_smallest`]'s.
pub(crate) fn solve_smallest(
    mut value: impl FnMut(f64) -> Result<f64>,
    target: f64,
    start: f64,
    rel_width: f64,
) -> Result<(f64, f64)> {
    let ln_target = libm::log(target);
    // ln value − ln target (0 mapped to the log of the smallest positive double), made
    // ≤ 0 exactly when value ≤ target: the decision never rests on a rounded logarithm.
    let mut h = |s: f64| -> Result<f64> {
        let v = value(s)?;
        let d = libm::log(v.max(f64::MIN_POSITIVE * f64::EPSILON)) - ln_target;
        Ok(if v <= target { d.min(0.0) } else { d.max(f64::MIN_POSITIVE) })
    };
    let mut hi = start;
    let mut h_hi = h(hi)?;
    let mut doublings = 0;
    while h_hi > 0.0 {
        hi *= 2.0;
        h_hi = h(hi)?;
        doublings += 1;
        if doublings > 2100 || !hi.is_finite() {
            return Err(Error::Infeasible { reason: "no noise scale up to 1e308 meets the target".into() });
        }
    }
    let mut lo = hi * 0.5;
    let mut h_lo = h(lo)?;
    while h_lo <= 0.0 {
        (hi, h_hi) = (lo, h_lo);
        lo *= 0.5;
        if lo < SMALLEST_SIGMA {
            return Ok((hi, 0.0));
        }
        h_lo = h(lo)?;
    }
    // Invariant: h(lo) > 0 (fails), h(hi) ≤ 0 (meets).
    let mut side = 0i8;
    for step in 0..400 {
        if hi - lo <= hi * rel_width {
            break;
        }
        // Interpolate in t = 1/σ², where ln δ of Gaussian tails (≈ −a²/2σ²) is nearly
        // linear; after 60 steps (never seen), plain bisection guarantees progress.
        let (t_lo, t_hi) = (1.0 / (lo * lo), 1.0 / (hi * hi));
        let t = t_hi - h_hi * (t_hi - t_lo) / (h_hi - h_lo);
        let mut mid = 1.0 / libm::sqrt(t);
        if step >= 60 || !(mid > lo && mid < hi) || !mid.is_finite() {
            mid = lo + (hi - lo) * 0.5;
            if mid <= lo || mid >= hi {
                break;
            }
        }
        let h_mid = h(mid)?;
        if h_mid <= 0.0 {
            (hi, h_hi) = (mid, h_mid);
            if side == 1 {
                h_lo *= 0.5; // Illinois: the same end moved twice, halve the stale end's value
            }
            side = 1;
        } else {
            (lo, h_lo) = (mid, h_mid);
            if side == -1 {
                h_hi *= 0.5;
            }
            side = -1;
        }
    }
    Ok((hi, lo))
}
