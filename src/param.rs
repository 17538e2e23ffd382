//! The parameters every layer takes, each with **one** rule, checked once where a
//! number enters the library (a document, a request, a function argument):
//!
//! | type | rule | used for |
//! |---|---|---|
//! | [`Epsilon`] | finite, `0 ≤ ε ≤ 700` nats (`e^ε` is finite) | ε of a calculation: audits at ε, calibrations, designs |
//! | [`Budget`] | `0 ≤ ε ≤ +∞` nats | a leakage as a value: claims, limits, ledger entries (∞ = no guarantee) |
//! | [`Delta`] | `0 ≤ δ ≤ 1` | the δ of (ε, δ)-LIP/LDP |
//! | [`Probability`] | `0 ≤ p ≤ 1` | a probability: a minimum prior mass, a keep probability |
//!
//! A designer needs ε > 0 on top ([`Epsilon::positive`]): ε = 0 asks for a channel
//! that reveals nothing, which no design can use. Every error is `invalid_argument`
//! (`non_finite` for a NaN or ±∞ where the rule is finite) naming the parameter.

use crate::error::{Error, Result};

/// The largest ε of a calculation (nats): `e^700` is the last power of `e` an `f64` holds
/// with room for the products the audits form.
pub const MAX_EPSILON: f64 = 700.0;

/// A finite number.
///
/// # Errors
/// `invalid_argument` otherwise.
pub fn finite(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Error::invalid(name, alloc::format!("must be a finite number; got {v}", v = crate::numeric::Shown(v))))
    }
}

/// A finite number > 0.
///
/// # Errors
/// `invalid_argument` otherwise.
pub fn positive(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(Error::invalid(name, alloc::format!("must be a finite number > 0; got {v}", v = crate::numeric::Shown(v))))
    }
}

/// A finite number ≥ 0.
///
/// # Errors
/// `invalid_argument` otherwise.
pub fn non_negative(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(Error::invalid(name, alloc::format!("must be a finite number >= 0; got {v}", v = crate::numeric::Shown(v))))
    }
}

// ---- probability vectors (a document's priors, channels and joints) ----

/// Row sums must be 1 within this absolute tolerance.
pub const SUM_TOLERANCE: f64 = 1e-9;

/// Smallest positive probability a document may contain: 2⁻⁹⁰⁰ (≈ 1.18e-271).
///
/// The audit's rounding analysis ([`crate::numeric`]) bounds *relative* errors, which
/// hold only while no product falls below `f64::MIN_POSITIVE` (≈ 2.2e-308, 2⁻¹⁰²²): a
/// subnormal result carries an absolute error of up to 2⁻¹⁰⁷⁵ instead, i.e. a relative
/// error of up to 100 % (fuzzer finding F8). With every positive P(s,x) ≥ 2⁻⁹⁰⁰ and the
/// sampler's channel entries 0 or ≥ 2⁻⁶⁴, every P(s,x)·P(y|x) a receipt computes is
/// normal; any other underflow in the audit (products of two small declared entries,
/// P(s)·P(y)) is reported as infinite leakage ([`crate::leakage::JointSY`]). Entries in
/// (0, 2⁻⁹⁰⁰) are refused with `invalid_argument` naming the entry.
pub const MIN_PROBABILITY: f64 = 1.1830521861667747e-271;

/// Finite and non-negative entries, naming the first offending index.
pub fn check_entries(field: &str, p: &[f64]) -> Result<()> {
    for (j, &v) in p.iter().enumerate() {
        if !v.is_finite() {
            return Err(Error::field(alloc::format!("{field}[{j}]")).non_finite());
        }
        if v < 0.0 {
            return Err(Error::field(alloc::format!("{field}[{j}]")).negative(v));
        }
    }
    Ok(())
}

/// No probability in (0, [`MIN_PROBABILITY`]), naming the first offending index.
pub fn check_not_tiny(field: &str, p: &[f64]) -> Result<()> {
    match p.iter().position(|&v| v > 0.0 && v < MIN_PROBABILITY) {
        None => Ok(()),
        Some(j) => Err(tiny(&alloc::format!("{field}[{j}]"), p[j])),
    }
}

/// The `invalid_argument` error for a positive probability below [`MIN_PROBABILITY`].
pub fn tiny(name: &str, v: f64) -> Error {
    Error::invalid(
        name,
        alloc::format!(
            "{} is below the smallest supported positive probability 2^-900 (≈ 1.18e-271), where \
             floating-point rounding is no longer bounded; use 0 or a larger value",
            crate::numeric::Sci(v)
        ),
    )
}

/// Sums to 1 within [`SUM_TOLERANCE`] (a NaN sum fails).
pub fn check_sum(field: &str, p: &[f64]) -> Result<()> {
    let sum = crate::numeric::sum(p);
    // A NaN sum fails: entries of 1e300 and f64::MAX overflow the
    // compensated sum to ∞ − ∞ = NaN, and `NaN > tolerance` is false (fuzzer finding F9:
    // such a prior verified, and its receipts had NaN lifts).
    if sum.is_nan() || (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(Error::field(field).not_normalized(sum));
    }
    Ok(())
}

/// A probability vector: finite, non-negative, no entry in (0, [`MIN_PROBABILITY`]),
/// summing to 1 within [`SUM_TOLERANCE`].
pub fn check_distribution(field: &str, p: &[f64]) -> Result<()> {
    check_entries(field, p)?;
    check_not_tiny(field, p)?;
    check_sum(field, p)
}

/// ε of a calculation, in nats: finite and in `[0, 700]`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Epsilon(f64);

/// The `invalid_argument` error for ε outside `[0, 700]` (`lower` '[') or `(0, 700]` ('(').
fn outside_budgets(name: &str, lower: char, eps: f64) -> Error {
    let (max, eps) = (crate::numeric::Shown(MAX_EPSILON), crate::numeric::Shown(eps));
    Error::invalid(name, alloc::format!("must be in {lower}0, {max}] nats; got {eps}"))
}

impl Epsilon {
    /// # Errors
    /// `invalid_argument` (naming `name`) for ε not in `[0, 700]`.
    pub fn new(name: &str, eps: f64) -> Result<Self> {
        if eps.is_finite() && (0.0..=MAX_EPSILON).contains(&eps) {
            Ok(Epsilon(eps))
        } else {
            Err(outside_budgets(name, '[', eps))
        }
    }
    /// ε > 0 as well (a designer's target).
    ///
    /// # Errors
    /// `invalid_argument` (naming `name`) for ε not in `(0, 700]`.
    pub fn positive(name: &str, eps: f64) -> Result<Self> {
        if eps.is_finite() && eps > 0.0 && eps <= MAX_EPSILON {
            Ok(Epsilon(eps))
        } else {
            Err(outside_budgets(name, '(', eps))
        }
    }
    /// The value in nats.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// A leakage as a value, in nats: `[0, +∞]` (+∞: no guarantee at all). Serialised as
/// its number.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, serde::Serialize)]
#[serde(transparent)]
pub struct Budget(f64);

impl Budget {
    /// No guarantee at all.
    pub const INFINITE: Budget = Budget(f64::INFINITY);
    /// # Errors
    /// `invalid_argument` (naming `name`) for NaN or a negative value.
    pub fn new(name: &str, eps: f64) -> Result<Self> {
        if eps.is_nan() || eps < 0.0 {
            Err(Error::invalid(
                name,
                alloc::format!("must be a number >= 0 (nats); got {eps}", eps = crate::numeric::Shown(eps)),
            ))
        } else {
            Ok(Budget(eps))
        }
    }
    /// A finite budget (a document's claim).
    ///
    /// # Errors
    /// `non_finite` for NaN or ±∞, `invalid_argument` for a negative value.
    pub fn finite(name: &str, eps: f64) -> Result<Self> {
        if !eps.is_finite() {
            return Err(Error::field(name).non_finite());
        }
        Budget::new(name, eps)
    }
    /// The value in nats.
    pub fn get(self) -> f64 {
        self.0
    }
    /// This budget, or `v` if that is larger (a NaN `v` leaves it): a claim raised to an
    /// audited figure.
    #[must_use]
    pub fn raised_to(self, v: f64) -> Budget {
        Budget(self.0.max(v))
    }
}

/// The δ of (ε, δ)-LIP/LDP: `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Delta(f64);

impl Delta {
    /// δ = 0: a pure ε guarantee.
    pub const ZERO: Delta = Delta(0.0);
    /// # Errors
    /// `invalid_argument` (naming `name`) for δ not in `[0, 1]`.
    pub fn new(name: &str, delta: f64) -> Result<Self> {
        Probability::new(name, delta).map(|p| Delta(p.get()))
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// A probability: `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Probability(f64);

impl Probability {
    /// Certainty.
    pub const ONE: Probability = Probability(1.0);
    /// # Errors
    /// `invalid_argument` (naming `name`) for `p` not in `[0, 1]`.
    pub fn new(name: &str, p: f64) -> Result<Self> {
        if (0.0..=1.0).contains(&p) {
            Ok(Probability(p))
        } else {
            Err(Error::invalid(name, alloc::format!("must be in [0, 1]; got {p}", p = crate::numeric::Shown(p))))
        }
    }
    /// A probability > 0 (a minimum prior mass).
    ///
    /// # Errors
    /// `invalid_argument` (naming `name`) for `p` not in `(0, 1]`.
    pub fn positive(name: &str, p: f64) -> Result<Self> {
        Probability::new(name, p).map_err(|_| not_positive(name, p))?.nonzero(name)
    }
    /// This probability where the rule is `(0, 1]` (a Pmin that divides).
    ///
    /// # Errors
    /// `invalid_argument` (naming `name`) for 0.
    pub fn nonzero(self, name: &str) -> Result<Self> {
        if self.0 > 0.0 {
            Ok(self)
        } else {
            Err(not_positive(name, self.0))
        }
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
    /// A probability the library computed in `[0, 1]` by construction (a sampler's
    /// threshold over 2⁶⁴): no input reaches it, so there is nothing to refuse.
    pub(crate) fn computed(p: f64) -> Probability {
        debug_assert!((0.0..=1.0).contains(&p), "{p}");
        Probability(p)
    }
}

/// The `invalid_argument` error for a probability outside `(0, 1]`.
fn not_positive(name: &str, p: f64) -> Error {
    Error::invalid(name, alloc::format!("must be in (0, 1]; got {p}", p = crate::numeric::Shown(p)))
}

impl From<Epsilon> for Budget {
    /// Every ε of a calculation is a leakage value.
    fn from(e: Epsilon) -> Budget {
        Budget(e.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_probability_is_two_to_the_minus_900() {
        assert_eq!(MIN_PROBABILITY, libm::pow(2.0, -900.0));
        // Its product with the smallest sampler probability 2⁻⁶⁴ is still normal.
        assert!(MIN_PROBABILITY * libm::pow(2.0, -64.0) >= f64::MIN_POSITIVE);
    }

    #[test]
    fn each_rule_once() {
        assert!(Epsilon::new("e", 0.0).is_ok() && Epsilon::new("e", 700.0).is_ok());
        for bad in [-1e-300, 700.0001, f64::INFINITY, f64::NAN] {
            assert_eq!(Epsilon::new("e", bad).unwrap_err().code(), "invalid_argument", "{bad}");
        }
        assert!(Epsilon::positive("e", 0.0).is_err() && Epsilon::positive("e", 1e-300).is_ok());
        assert!(Budget::new("b", f64::INFINITY).is_ok() && Budget::new("b", 1e6).is_ok());
        assert!(Budget::new("b", f64::NAN).is_err() && Budget::new("b", -0.1).is_err());
        assert_eq!(Budget::finite("b", f64::INFINITY).unwrap_err().code(), "non_finite");
        for bad in [-0.1, 1.0000001, f64::NAN] {
            assert!(Delta::new("d", bad).is_err() && Probability::new("p", bad).is_err(), "{bad}");
        }
        assert!(Probability::positive("p", 0.0).is_err() && Probability::positive("p", 1.0).is_ok());
        let e = Epsilon::new("budget.epsilon", -2.5).unwrap_err();
        assert!(e.to_string().contains("budget.epsilon"));
    }
}
