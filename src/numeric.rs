//! Small numeric helpers shared by the audit and the samplers (no_std: `libm`).
//!
//! # Rounding towards overstated leakage
//! The audit evaluates each leakage in IEEE-754 double precision with round-to-nearest.
//! Every quantity it combines is a sum or product of non-negative terms, so by the
//! standard error analysis (Higham, *Accuracy and Stability of Numerical Algorithms*,
//! §3.1 and Lemma 3.1) a value obtained with `n` roundings has relative error at most
//! `γ_n = n·u / (1 − n·u)` with `u = 2⁻⁵³`. [`up_rel`] and [`down_rel`] widen a computed value
//! by that bound, so a reported upper bound is never below the exact value and a
//! reported lower bound never above it — the same policy OpenDP follows in its privacy
//! maps (round every privacy parameter towards the conservative side).

/// Unit roundoff of f64 (round to nearest).
pub const UNIT_ROUNDOFF: f64 = 1.1102230246251565e-16; // 2^-53

/// A document's integer as a `usize`, saturating at `usize::MAX` (2³² − 1 on wasm32):
/// every size and index it can be is checked against bounds far below 2³², so a value
/// beyond either target's `usize` is refused by the same check, with the same code, on
/// both (a failed conversion would be a `json` error on wasm32 alone).
pub fn saturating_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// `γ_n = n·u/(1 − n·u)`: relative error bound after `n` roundings of non-negative terms.
pub fn gamma(n: usize) -> f64 {
    let nu = n as f64 * UNIT_ROUNDOFF;
    // Guard against absurd n; dimensions are capped far below this.
    if nu >= 0.5 {
        return f64::INFINITY;
    }
    nu / (1.0 - nu)
}

/// `acc.min(v)` for an accumulator `acc` that is never NaN, as one comparison: a NaN `v`
/// leaves `acc`, as `f64::min` does. On wasm32 `f64::min` is a call to `fmin` (wasm's own
/// `f64.min` propagates NaN, Rust's ignores it): 8 % of a dense verify in wasm.
#[inline(always)]
pub fn least(acc: f64, v: f64) -> f64 {
    if v < acc {
        v
    } else {
        acc
    }
}

/// `acc.max(v)` for an accumulator that is never NaN, as one comparison (see [`least`]).
#[inline(always)]
pub fn greatest(acc: f64, v: f64) -> f64 {
    if v > acc {
        v
    } else {
        acc
    }
}

/// Smallest f64 strictly greater than `x` (for finite `x`).
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    if x > 0.0 {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

/// Largest f64 strictly smaller than `x` (for finite `x`).
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Widens a non-negative computed value `x` that carries relative error ≤ `rel`
/// upwards, so the result is ≥ the exact value.
pub fn up_rel(x: f64, rel: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    next_up(x + x.abs() * rel)
}

/// Widens a non-negative computed value `x` with relative error ≤ `rel` downwards.
pub fn down_rel(x: f64, rel: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let v = next_down(x - x.abs() * rel);
    if x >= 0.0 && v < 0.0 {
        0.0
    } else {
        v
    }
}

/// `[lo, hi]` widened by the relative rounding `g` (unchanged for `g = 0`): the bounds a
/// receipt states around its own computed lifts.
pub fn widen(lo: f64, hi: f64, g: f64) -> (f64, f64) {
    if g == 0.0 {
        (lo, hi)
    } else {
        (down_rel(lo, g), up_rel(hi, g))
    }
}

/// Upper bound on `|ln r|` where the exact ratio `r` is the computed `r̂` up to
/// relative error `rel`: `|ln r| ≤ |ln r̂| + ln(1/(1−rel))`, plus one rounding of the log.
pub fn abs_ln_up(r_hat: f64, rel: f64) -> f64 {
    if r_hat == 0.0 || r_hat == f64::INFINITY {
        return f64::INFINITY;
    }
    let l = libm::log(r_hat).abs();
    let slack = -libm::log1p(-rel);
    next_up(next_up(l * (1.0 + 4.0 * UNIT_ROUNDOFF)) + slack)
}

/// Upper bound on `ln r` (signed) for a ratio known to relative error `rel`.
pub fn ln_up(r_hat: f64, rel: f64) -> f64 {
    if r_hat == 0.0 {
        return f64::NEG_INFINITY;
    }
    if r_hat == f64::INFINITY {
        return f64::INFINITY;
    }
    let l = libm::log(r_hat);
    let slack = -libm::log1p(-rel);
    next_up(l + l.abs() * 4.0 * UNIT_ROUNDOFF + slack)
}

/// Sum with Neumaier compensation (used only for validation sums and to normalise a sampler's
/// rows, not for bounds). Always inlined: in a row kernel it must not be a hot function of
/// its own (see `sample::alias::quantise::quantise_u64`).
#[inline(always)]
pub fn sum(xs: &[f64]) -> f64 {
    let mut s = 0.0f64;
    let mut c = 0.0f64;
    for &x in xs {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
    }
    s + c
}

/// Prefix and suffix sums of `v`, each of length `n + 1`: `before[i] = Σ_{j<i} v[j]` and
/// `after[i] = Σ_{j≥i} v[j]`. The sum of every entry but one is `before[i] + after[i+1]`:
/// for non-negative terms each part has relative error ≤ γ_n, with none of the
/// cancellation of `total − v[i]`.
pub fn prefix_suffix_sums(v: &[f64]) -> (alloc::vec::Vec<f64>, alloc::vec::Vec<f64>) {
    let n = v.len();
    let mut before = alloc::vec![0.0f64; n + 1];
    for i in 0..n {
        before[i + 1] = before[i] + v[i];
    }
    let mut after = alloc::vec![0.0f64; n + 1];
    for i in (0..n).rev() {
        after[i] = after[i + 1] + v[i];
    }
    (before, after)
}

/// `x · ln(x / y)` with the conventions `0·ln(0/y) = 0`.
pub fn xlogy_ratio(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * libm::log(x / y)
    }
}

/// Standard normal CDF `Φ(z) = erfc(−z/√2)/2` (accurate in both tails).
pub fn phi(z: f64) -> f64 {
    0.5 * libm::erfc(-z * core::f64::consts::FRAC_1_SQRT_2)
}

/// Standard normal survival function `Q(z) = 1 − Φ(z) = erfc(z/√2)/2`.
pub fn q(z: f64) -> f64 {
    0.5 * libm::erfc(z * core::f64::consts::FRAC_1_SQRT_2)
}

/// `Φ(b) − Φ(a)` for `a ≤ b`, without cancellation in either tail.
pub fn mass(a: f64, b: f64) -> f64 {
    if a >= 0.0 {
        q(a) - q(b)
    } else if b <= 0.0 {
        phi(b) - phi(a)
    } else {
        1.0 - phi(a) - q(b)
    }
}

/// `x` plus a relative and an absolute margin, rounded up.
pub fn widen_up(x: f64, rel: f64, abs: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    next_up(next_up(x + x.abs() * rel) + abs)
}

/// `x` minus a relative margin, rounded down.
pub fn widen_down(x: f64, rel: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    next_down(x - x.abs() * rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_up_down_are_adjacent() {
        assert!(next_up(1.0) > 1.0);
        assert_eq!(next_down(next_up(1.0)), 1.0);
        assert!(next_up(0.0) > 0.0);
        assert!(next_down(0.0) < 0.0);
        assert!(next_up(-1.0) > -1.0);
    }

    #[test]
    fn widened_log_brackets_the_exact_value() {
        // r = 3 computed with relative error 1e-12 either way.
        for r_hat in [3.0 * (1.0 + 1e-12), 3.0 * (1.0 - 1e-12)] {
            let ub = abs_ln_up(r_hat, 2e-12);
            assert!(ub >= libm::log(3.0), "{ub}");
            assert!(ub - libm::log(3.0) < 1e-11);
        }
        assert_eq!(abs_ln_up(0.0, 0.0), f64::INFINITY);
    }

    #[test]
    fn gamma_grows_linearly_and_saturates() {
        assert!(gamma(10) > 10.0 * UNIT_ROUNDOFF);
        assert!(gamma(10) < 11.0 * UNIT_ROUNDOFF);
        assert_eq!(gamma(usize::MAX / 2), f64::INFINITY);
    }

    #[test]
    fn compensated_sum_is_exact_on_cancellation() {
        assert_eq!(sum(&[1e16, 1.0, -1e16]), 1.0);
    }

    #[test]
    fn phi_and_q_are_accurate_in_tails() {
        assert_eq!(phi(0.0), 0.5);
        assert!((q(-40.0) - 1.0).abs() == 0.0);
        assert!(q(30.0) > 0.0 && q(30.0) < 1e-190);
        assert!((mass(-1.0, 1.0) - 0.6826894921370859).abs() < 1e-15);
        assert!((mass(10.0, 11.0) - (q(10.0) - q(11.0))).abs() < 1e-30);
    }
}

/// `v` as Rust's `Display` prints an f64 (the shortest decimal that reads back as `v`, never
/// in exponent notation: `0.0000001`, `1000000000000000000000`, `-0`, `inf`, `NaN`), for
/// messages. Written with zmij's shortest digits (Schubfach), which serde_json links anyway,
/// so that core's float printing (Grisu with a Dragon4 fallback) stays out of the client's
/// `.wasm`. The same digits as `format!("{}")` but where v lies exactly halfway between two
/// shortest decimals (zmij takes the even one): a test pins this on a million random values.
/// Width and precision flags are not applied (`{}` only).
#[derive(Debug, Clone, Copy)]
pub struct Shown(pub f64);

impl core::fmt::Display for Shown {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut buffer = zmij::Buffer::new();
        let printed = buffer.format(self.0);
        let (sign, body) = match printed.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", printed),
        };
        let Some((mantissa, exponent)) = body.split_once('e') else {
            // Plain notation already ("0.001", "12.0", "inf"): Display drops a ".0".
            return f.write_str(printed.strip_suffix(".0").unwrap_or(printed));
        };
        // d[.ddd]e±N: the digits, with the decimal point after 1 + N of them.
        let exponent: i32 = exponent.trim_start_matches('+').parse().map_err(|_| core::fmt::Error)?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        f.write_str(sign)?;
        if exponent < 0 {
            f.write_str("0.")?;
            for _ in 1..-exponent {
                f.write_str("0")?;
            }
            f.write_str(int)?;
            return f.write_str(frac);
        }
        let point = 1 + exponent as usize; // digits before the point
        let digits = int.len() + frac.len();
        if digits <= point {
            f.write_str(int)?;
            f.write_str(frac)?;
            for _ in digits..point {
                f.write_str("0")?;
            }
            Ok(())
        } else {
            // `get`, not slicing: the digits are ASCII, and slicing would link core's
            // char-boundary panic message (and `<char as Debug>`) into the client.
            let at = point - int.len();
            let (left, right) = (frac.get(..at).unwrap_or(frac), frac.get(at..).unwrap_or(""));
            write!(f, "{int}{left}.{right}")
        }
    }
}

/// `v` in the shortest form that reads back to it, exactly as the float printer gives it
/// (`1e-300`, `1.791e-10`, `0.25`): for figures too small for [`Shown`]'s plain notation.
#[derive(Debug, Clone, Copy)]
pub struct Exponent(pub f64);

impl core::fmt::Display for Exponent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(zmij::Buffer::new().format(self.0))
    }
}

/// `v` in scientific notation with 4 significant digits (`1.235e8`, `-2e-300`, `inf`), for
/// messages to people. Written with integer formatting only: core's float exponent
/// formatting costs the client module several kilobytes.
#[derive(Debug, Clone, Copy)]
pub struct Sci(pub f64);

impl core::fmt::Display for Sci {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("NaN");
        }
        if v.is_infinite() {
            return f.write_str(if v > 0.0 { "inf" } else { "-inf" });
        }
        if v == 0.0 {
            return f.write_str("0");
        }
        let sign = if v < 0.0 { "-" } else { "" };
        let a = v.abs();
        let mut e = libm::floor(libm::log10(a)) as i32;
        // Four digits d.ddd: the mantissa's integer part in [1000, 10000).
        let mut m = libm::round(a / libm::pow(10.0, f64::from(e - 3))) as u64;
        if m >= 10_000 {
            m /= 10;
            e += 1;
        } else if m < 1000 {
            m *= 10;
            e -= 1;
        }
        let (int, mut frac, mut width) = (m / 1000, m % 1000, 3);
        while width > 0 && frac % 10 == 0 {
            frac /= 10;
            width -= 1;
        }
        if width == 0 {
            write!(f, "{sign}{int}e{e}")
        } else {
            write!(f, "{sign}{int}.{frac:0width$}e{e}")
        }
    }
}

#[cfg(test)]
mod shown_tests {
    use super::Shown;
    use alloc::{format, string::ToString};
    use rand::{Rng, SeedableRng};

    #[test]
    fn prints_what_display_prints() {
        let fixed = [
            0.0,
            -0.0,
            1.0,
            -2.5,
            0.1,
            1e-7,
            1e15,
            1e16,
            1.2345e16,
            1e21,
            1e22,
            123456789012.0,
            3e-5,
            1.5e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.38051622046923317,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            9007199254740993.0,
            1.7976931348623157e308,
        ];
        for v in fixed {
            assert_eq!(Shown(v).to_string(), format!("{v}"), "{v:e}");
        }
        // Random bit patterns (every exponent) and random values of the sizes messages show.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut ties = 0;
        for i in 0..1_000_000 {
            let v = if i % 2 == 0 {
                f64::from_bits(rng.random::<u64>())
            } else {
                rng.random::<f64>() * 10f64.powi(rng.random_range(-12..12))
            };
            if v.is_nan() {
                continue;
            }
            let (shown, display) = (Shown(v).to_string(), format!("{v}"));
            // Both are shortest; where two decimals of that length are equally close to v
            // (v halfway between them), zmij takes the even digit and core the larger one.
            assert_eq!(shown.parse::<f64>().unwrap(), v, "{shown} does not read back as {v:e}");
            assert_eq!(shown.len(), display.len(), "{shown} against {display}");
            if shown != display {
                ties += 1;
            }
        }
        assert!(ties < 1_000, "{ties} values printed unlike Display"); // 111 with this seed
    }
}

#[cfg(test)]
mod sci_tests {
    use super::Sci;
    use alloc::string::ToString;

    #[test]
    fn four_significant_digits() {
        for (v, s) in [
            (123456789.0, "1.235e8"),
            (1e-300, "1e-300"),
            (-2.5e-7, "-2.5e-7"),
            (268435456.0, "2.684e8"),
            (9.9999e5, "1e6"),
            (1.0, "1e0"),
            (0.0, "0"),
            (f64::INFINITY, "inf"),
            (1.1830521861667747e-271, "1.183e-271"),
        ] {
            assert_eq!(Sci(v).to_string(), s, "{v}");
        }
    }
}
