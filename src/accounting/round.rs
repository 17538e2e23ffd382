//! Directed rounding for the accounting bounds: every helper returns a value on the named
//! side of the exact result of the operation on its (exact) `f64` arguments.
//!
//! * `+ − × ÷` are exact-or-one-step: the rounding error of the nearest result is
//!   recovered exactly (TwoSum for `+`/`−`, an `fma` residual for `×`/`÷`) and the result
//!   is moved one ulp only when it lies on the wrong side, so exact results (`2·ε`,
//!   `1 − 0.5`) stay exact.
//! * `exp`, `expm1`, `ln`, `log1p` come from `libm` (musl's algorithms, error < 1 ulp); the
//!   helpers return the exact value at their fixed points (`exp(0) = 1`, `ln(1) = 0`, …)
//!   and otherwise step two ulps towards the requested side, which covers a 1-ulp error
//!   even across a binade boundary. `sqrt` is correctly rounded, so one step suffices.
//!
//! Near the subnormal range a product's or quotient's residual may itself be inexact;
//! there the helpers step unconditionally (sums are always exact-or-one-step). Non-finite values pass through (an upper bound of `∞` stays `∞`).

use crate::numeric::{next_down, next_up};

/// Below this magnitude the error-free transformations are not trusted.
const TINY: f64 = 1e-290;

fn step_up(x: f64) -> f64 {
    next_up(x)
}

fn step_down(x: f64) -> f64 {
    next_down(x)
}

/// `s` is the nearest value of an exact result whose rounding error is `err`
/// (exact − s); `trusted` says whether `err` is exact (always for sums, not for
/// products and quotients near underflow).
fn settle_up(s: f64, err: f64, trusted: bool) -> f64 {
    if !s.is_finite() {
        return s;
    }
    if !trusted || err > 0.0 {
        step_up(s)
    } else {
        s
    }
}

fn settle_down(s: f64, err: f64, trusted: bool) -> f64 {
    if !s.is_finite() {
        return s;
    }
    if !trusted || err < 0.0 {
        step_down(s)
    } else {
        s
    }
}

/// Whether the `fma` residual of an operation whose result and operands are at least
/// `v` in magnitude is exact: the residual is about 2⁻⁵³·v, which must stay normal.
fn residual_exact(v: f64) -> bool {
    v.abs() >= TINY
}

/// Knuth's TwoSum: `a + b = s + e` exactly (for finite, non-overflowing values).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

pub(crate) fn add_up(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        return b;
    }
    if b == 0.0 {
        return a;
    }
    let (s, e) = two_sum(a, b);
    settle_up(s, e, true)
}

pub(crate) fn add_down(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        return b;
    }
    if b == 0.0 {
        return a;
    }
    let (s, e) = two_sum(a, b);
    settle_down(s, e, true)
}

pub(crate) fn sub_up(a: f64, b: f64) -> f64 {
    add_up(a, -b)
}

pub(crate) fn sub_down(a: f64, b: f64) -> f64 {
    add_down(a, -b)
}

pub(crate) fn mul_up(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        return 0.0;
    }
    let p = a * b;
    settle_up(p, libm::fma(a, b, -p), residual_exact(p))
}

pub(crate) fn mul_down(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        return 0.0;
    }
    let p = a * b;
    settle_down(p, libm::fma(a, b, -p), residual_exact(p))
}

/// `a / b` for `b > 0`.
pub(crate) fn div_up(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let q = a / b;
    if !q.is_finite() || !b.is_finite() {
        return q;
    }
    // a − q·b = residual r; exact quotient = q + r/b, and b > 0.
    settle_up(q, libm::fma(-q, b, a), residual_exact(q) && residual_exact(a))
}

fn two_up(x: f64) -> f64 {
    step_up(step_up(x))
}

fn two_down(x: f64) -> f64 {
    step_down(step_down(x))
}

pub(crate) fn exp_up(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        two_up(libm::exp(x))
    }
}

pub(crate) fn exp_down(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        two_down(libm::exp(x)).max(0.0)
    }
}

pub(crate) fn expm1_up(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        two_up(libm::expm1(x))
    }
}

pub(crate) fn ln_down(x: f64) -> f64 {
    if x == 1.0 {
        0.0
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        two_down(libm::log(x))
    }
}

pub(crate) fn log1p_up(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        two_up(libm::log1p(x))
    }
}

pub(crate) fn sqrt_up(x: f64) -> f64 {
    let s = libm::sqrt(x);
    if !s.is_finite() || s == 0.0 {
        return s;
    }
    settle_up(s, libm::fma(-s, s, x), residual_exact(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_results_stay_exact() {
        assert_eq!(add_up(0.5, 0.25), 0.75);
        assert_eq!(add_down(0.5, 0.25), 0.75);
        assert_eq!(mul_up(2.0, 1.7), 3.4);
        assert_eq!(sub_up(1.0, 0.5), 0.5);
        assert_eq!(div_up(1.0, 4.0), 0.25);
        assert_eq!(exp_up(0.0), 1.0);
        assert_eq!(log1p_up(0.0), 0.0);
        assert_eq!(sqrt_up(4.0), 2.0);
    }

    #[test]
    fn inexact_results_bracket() {
        // 0.1 + 0.2 is not representable: the two directions differ by one ulp.
        let (u, d) = (add_up(0.1, 0.2), add_down(0.1, 0.2));
        assert_eq!(next_up(d), u);
        let q = div_up(1.0, 3.0);
        assert!(libm::fma(-q, 3.0, 1.0) <= 0.0); // 1 − 3q ≤ 0: q ≥ 1/3
        assert!(mul_up(0.1, 0.3) > mul_down(0.1, 0.3));
        assert!(exp_up(1.0) > core::f64::consts::E && exp_down(1.0) < core::f64::consts::E);
        assert!(ln_down(2.0) < core::f64::consts::LN_2);
        let r = sqrt_up(2.0);
        assert!(libm::fma(r, r, -2.0) >= 0.0);
        assert!(expm1_up(1e-20) >= 1e-20 && log1p_up(1e-20) >= 1e-20 - 1e-36);
    }

    #[test]
    fn infinities_pass_through() {
        assert_eq!(exp_up(f64::INFINITY), f64::INFINITY);
        assert_eq!(add_up(f64::INFINITY, 1.0), f64::INFINITY);
        assert_eq!(mul_up(f64::INFINITY, 2.0), f64::INFINITY);
        assert_eq!(log1p_up(f64::INFINITY), f64::INFINITY);
        assert_eq!(div_up(1.0, f64::INFINITY), 0.0);
    }
}
