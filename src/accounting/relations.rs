//! LIP ↔ LDP for one release (the paper's §II-C-1): Thm 1 (with its optimisation
//! problem, eq 9), Prop 1 and Thm 2.
//!
//! # What eq 9 optimises
//! Eq 9 asks for the worst LDP, max_{y,x,x'} P(y|x)/P(y|x'), of any mechanism that is
//! ε-LIP under the prior P. Fix an output y with P(y) > 0 and write v_x = P(y|x)/P(y)
//! (the lift of x at y). ε-LIP says v_x ∈ [L, U] with L = e^{−ε}, U = e^{ε}, and
//! P(y) = Σ_x P(x)P(y|x) says Σ_x P(x)v_x = 1. Conversely any such v is a column of an
//! ε-LIP mechanism: take P(y|x) = t·v_x and a second output with P(y'|x) = 1 − t·v_x;
//! its lifts (1 − t v_x)/(1 − t) lie in [L, U] whenever t ≤ 1/(1 + e^ε). So eq 9 is
//!
//! > max over inputs a ≠ b of  max v_a / v_b  s.t.  v ∈ [L, U]^X,  Σ_x P(x) v_x = 1,
//!
//! a linear-fractional programme. For a given pair, with the other inputs free in
//! [L, U], the optimum is min{g₁(P_a), g₂(P_b)} where
//! g₁(p) = ln min{U/L, 1 + (U − 1)/(L·p)} = min{2ε, ln((e^ε − 1 + p)/p)} (lower the
//! others to L and raise v_a as far as the sum allows) and
//! g₂(p) = ln(U / (U − (U − 1)/p)) (+∞ when the denominator is ≤ 0: v_b pushed up
//! by the sum when every other input sits at U). Each is the optimum of a relaxation
//! (drop the other side of the sum constraint), and in each regime one of them is
//! attained, so the minimum is exact. Both decrease in their argument, so the worst pair
//! is formed by the two smallest prior probabilities p₁ ≤ p₂, in the better of the two
//! orders. Consequences:
//!
//! * for |X| ≥ 3, p₂ ≤ 1/2 makes g₂(p₂) ≥ 2ε, so the optimum is g₁(Pmin): **Prop 1 is
//!   exact**, not merely the "looser closed form" the paper calls it (its Fig. 2 shows
//!   the overlap only for the uniform prior; it holds for every prior with |X| ≥ 3);
//! * for |X| = 2 the optimum can be strictly below Prop 1 (e.g. P = (0.1, 0.9), ε = 1:
//!   1.21 vs Prop 1's 2).
//!
//! `tests/accounting.rs` checks this closed form against an LP solution of the
//! programme (Charnes–Cooper) for every ordered pair on random binary and ternary
//! priors, and that [`lip_to_ldp_witness`] attains it.

use alloc::vec;
use alloc::vec::Vec;

use super::round::{add_up, div_up, exp_up, expm1_up, ln_down, log1p_up, mul_up, sub_down, sub_up};
use super::{check_prior, pmin, positive_pmin, support_pmin};
use crate::document::Matrix;
use crate::error::{Error, Result};
use crate::param::{Budget, Probability};

/// g₁(p) = min{2ε, ln((e^ε − 1 + p)/p)}, rounded up (ε finite, p > 0).
fn g1(eps: f64, p: f64) -> f64 {
    mul_up(2.0, eps).min(ln_prop1_term(eps, p))
}

/// ln((e^ε − 1 + p)/p) = log1p(expm1(ε)/p), rounded up. Where expm1(ε)/p overflows,
/// ε − ln p, which is larger (it drops −1 + p ≤ 0 from the numerator).
fn ln_prop1_term(eps: f64, p: f64) -> f64 {
    let x = div_up(expm1_up(eps), p);
    if x.is_finite() {
        log1p_up(x)
    } else {
        add_up(eps, -ln_down(p))
    }
}

/// g₂(p) = ε + ln((1 − q)/(1 − e^ε q)) with q = 1 − p, written as
/// ε + log1p(q (e^ε − 1)/(1 − e^ε q)); +∞ when 1 − e^ε q ≤ 0. Rounded up (it increases in q).
fn g2(eps: f64, p: f64) -> f64 {
    let q = sub_up(1.0, p).max(0.0);
    let den = sub_down(1.0, mul_up(exp_up(eps), q));
    if den <= 0.0 {
        return f64::INFINITY;
    }
    add_up(eps, log1p_up(div_up(mul_up(q, expm1_up(eps)), den)))
}

/// The two smallest entries (by index, so equal values count twice).
fn two_smallest(p: &[f64]) -> (usize, usize) {
    let (mut i1, mut i2) = (0usize, usize::MAX);
    for (i, &v) in p.iter().enumerate().skip(1) {
        if v < p[i1] {
            i2 = i1;
            i1 = i;
        } else if i2 == usize::MAX || v < p[i2] {
            i2 = i;
        }
    }
    (i1, i2)
}

/// **Prop 1** (the paper's closed form of Thm 1): a mechanism that is ε-LIP under a prior
/// with `min_x P(x) = pmin` is `min{2ε, ln((e^ε − 1 + Pmin)/Pmin)}`-LDP.
///
/// # Privacy
/// Holds for every prior with full support (see the module docs for the derivation from
/// eq 9). It is **exact** (equal to the optimum of eq 9, attained by
/// [`lip_to_ldp_witness`]) whenever |X| ≥ 3; for |X| = 2 use [`lip_to_ldp_exact`],
/// which can be smaller. `pmin` must be the minimum over the *whole* input alphabet:
/// an input with prior 0 is not constrained by LIP at all, so its row, and the LDP, are
/// unbounded (P = (0, ½, ½), rows (1, 0), (½, ½), (½, ½): 0-LIP, ∞-LDP), which is why
/// `pmin = 0` is refused rather than read as the paper's `min{2ε, ∞} = 2ε`.
///
/// # Errors
/// `invalid_argument` for a `pmin` of 0.
///
/// # Example
/// ```
/// use privlift::param::{Budget, Probability};
/// // ε = 3 under a prior whose least likely value has probability 1/4: below 2ε = 6.
/// let ldp = privlift::accounting::lip_to_ldp(Budget::new("eps", 3.0)?, Probability::new("pmin", 0.25)?)?;
/// assert!((ldp - (3.0f64.exp_m1() / 0.25).ln_1p()).abs() < 1e-12 && ldp < 6.0);
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn lip_to_ldp(eps: Budget, pmin: Probability) -> Result<f64> {
    Ok(lip_to_ldp_unchecked(eps.get(), positive_pmin("pmin", pmin)?))
}

/// [`lip_to_ldp`] for checked arguments (`pmin` > 0).
pub(crate) fn lip_to_ldp_unchecked(eps: f64, pmin: f64) -> f64 {
    if eps == f64::INFINITY {
        return f64::INFINITY;
    }
    g1(eps, pmin)
}

/// **Thm 1, eq 9**, solved exactly: the largest LDP (w.r.t. X, over every pair of inputs)
/// of any mechanism that is ε-LIP under `prior`.
///
/// # Privacy
/// An upper bound on the LDP of every ε-LIP mechanism, and attained (by
/// [`lip_to_ldp_witness`]), so no smaller bound exists. Closed form and proof in the
/// module docs: `max` over the two orders of the two smallest prior probabilities of
/// `min{g₁, g₂}`; equal to [`lip_to_ldp`] for |X| ≥ 3. Special cases: 0 for |X| = 1;
/// `+∞` if some input has prior 0 (its row is unconstrained, even at ε = 0) or ε = ∞;
/// otherwise 0 for ε = 0.
///
/// # Errors
/// `empty_alphabet`, `non_finite`, `negative_probability`, `not_normalized` if `prior`
/// is not a distribution.
pub fn lip_to_ldp_exact(prior: &[f64], eps: Budget) -> Result<f64> {
    let eps = eps.get();
    check_prior("prior", prior)?;
    if prior.len() == 1 {
        return Ok(0.0);
    }
    if eps == f64::INFINITY || prior.contains(&0.0) {
        return Ok(f64::INFINITY);
    }
    if eps == 0.0 {
        return Ok(0.0);
    }
    let (i1, i2) = two_smallest(prior);
    let (p1, p2) = (prior[i1], prior[i2]);
    let hi_on_smallest = g1(eps, p1).min(g2(eps, p2));
    let hi_on_second = g1(eps, p2).min(g2(eps, p1));
    Ok(hi_on_smallest.max(hi_on_second))
}

/// A mechanism attaining eq 9: ε-LIP under `prior` (up to the rounding of its entries)
/// with LDP equal to [`lip_to_ldp_exact`]. Two outputs: column 0 is t·v with the optimal
/// lifts v of the module docs (v = U or the sum-forced value on one of the two least
/// likely inputs, L or the sum-forced value on the other, the rest at their common
/// feasible value), t = 1/(2(1 + e^ε)); column 1 is 1 − t·v. Inputs with prior 0 get the
/// row (0, 1), which makes the LDP infinite as eq 9 allows.
///
/// # Errors
/// As [`lip_to_ldp_exact`], and `invalid_argument` for `eps = ∞`.
pub fn lip_to_ldp_witness(prior: &[f64], eps: Budget) -> Result<Matrix> {
    let eps = eps.get();
    check_prior("prior", prior)?;
    if eps == f64::INFINITY {
        return Err(Error::invalid("epsilon", "the witness needs a finite ε (for ε = ∞ any deterministic map is one)"));
    }
    let n = prior.len();
    let (l, u) = (libm::exp(-eps), libm::exp(eps));
    let support: Vec<usize> = (0..n).filter(|&x| prior[x] > 0.0).collect();
    let mut v = vec![1.0; n];
    for (x, vx) in v.iter_mut().enumerate() {
        if prior[x] == 0.0 {
            *vx = 0.0;
        }
    }
    if support.len() >= 2 && eps > 0.0 {
        let sub: Vec<f64> = support.iter().map(|&x| prior[x]).collect();
        let (j1, j2) = two_smallest(&sub);
        let (p1, p2) = (sub[j1], sub[j2]);
        let first = g1(eps, p1).min(g2(eps, p2)) >= g1(eps, p2).min(g2(eps, p1));
        let (a, b) = if first { (support[j1], support[j2]) } else { (support[j2], support[j1]) };
        let (pa, pb) = (prior[a], prior[b]);
        let (hi, lo) =
            if g1(eps, pa) <= g2(eps, pb) { (u.min(l + (1.0 - l) / pa), l) } else { (u, u - (u - 1.0) / pb) };
        let rest_mass: f64 = support.iter().filter(|&&x| x != a && x != b).map(|&x| prior[x]).sum();
        let rest = if rest_mass > 0.0 { ((1.0 - pa * hi - pb * lo) / rest_mass).clamp(l, u) } else { 1.0 };
        for &x in &support {
            v[x] = if x == a {
                hi
            } else if x == b {
                lo
            } else {
                rest
            };
        }
    }
    let t = 0.5 / (1.0 + u);
    let mut rows = Vec::with_capacity(2 * n);
    for &vx in &v {
        rows.push(t * vx);
        rows.push(1.0 - t * vx);
    }
    Ok(Matrix::from_flat(n, 2, rows))
}

/// **Thm 1, converse**: an ε-LDP mechanism is `ln(Pmin + e^ε(1 − Pmin))`-LIP.
///
/// # Privacy
/// Holds, and is exact (attained) for every ε and Pmin. Derivation: for x with
/// P(x) > 0, P(y) = P(x)P(y|x) + Σ_{x'≠x} P(x')P(y|x') lies between
/// P(y|x)(P(x) + (1 − P(x))e^{−ε}) and P(y|x)(P(x) + (1 − P(x))e^{ε}), so
/// |ln lift| ≤ ln(P(x) + (1 − P(x))e^ε) (the other side is smaller by Jensen), which
/// decreases in P(x). Attained by a column equal to c on the least likely input and
/// c·e^ε elsewhere. Only inputs that can occur enter, so `pmin` may be the smallest
/// *positive* prior probability ([`support_pmin`]); `pmin = 0` gives ε, the prior-free
/// bound. Computed as log1p((1 − Pmin)·expm1(ε)), rounded up.
///
/// # Errors
/// Never: the types hold every rule (a `Result` like the other relations).
///
/// # Example
/// ```
/// use privlift::param::{Budget, Probability};
/// // 1-LDP under a uniform binary prior is ln((1 + e)/2)-LIP.
/// let lip = privlift::accounting::ldp_to_lip(Budget::new("eps", 1.0)?, Probability::new("pmin", 0.5)?)?;
/// assert!((lip - ((1.0 + 1.0f64.exp()) / 2.0).ln()).abs() < 1e-12);
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn ldp_to_lip(eps: Budget, pmin: Probability) -> Result<f64> {
    Ok(ldp_to_lip_unchecked(eps.get(), pmin.get()))
}

/// [`ldp_to_lip`] for checked arguments.
pub(crate) fn ldp_to_lip_unchecked(eps: f64, pmin: f64) -> f64 {
    if pmin == 1.0 {
        return 0.0; // a point-mass prior: every lift is 1
    }
    if eps == f64::INFINITY {
        return f64::INFINITY;
    }
    let x = mul_up(sub_up(1.0, pmin), expm1_up(eps));
    // Where e^ε overflows, ε itself bounds ln(Pmin + e^ε(1 − Pmin)) ≤ ln e^ε.
    if x.is_finite() {
        log1p_up(x)
    } else {
        eps
    }
}

/// Validates a family of priors (non-empty, same length, each a distribution).
pub(crate) fn check_family<P: AsRef<[f64]>>(family: &[P]) -> Result<()> {
    let Some(first) = family.first() else {
        return Err(Error::invalid("priors", "need at least one prior"));
    };
    let n = first.as_ref().len();
    for (i, p) in family.iter().enumerate() {
        let p = p.as_ref();
        if p.len() != n {
            return Err(Error::DimensionMismatch { field: alloc::format!("priors[{i}]"), expected: n, found: p.len() });
        }
        check_prior(&alloc::format!("priors[{i}]"), p)?;
    }
    Ok(())
}

/// (min P^bp_min, max P^bp_min) of a family: the smallest positive probability of any
/// prior (the LDP → BP-LIP direction only involves inputs that can occur), and the
/// largest whole-alphabet Pmin of one prior.
pub(crate) fn family_pmins<P: AsRef<[f64]>>(family: &[P]) -> Result<(f64, f64)> {
    check_family(family)?;
    let mut lo = f64::INFINITY;
    let mut hi = 0.0f64;
    for p in family {
        lo = lo.min(support_pmin(p.as_ref())?);
        hi = hi.max(pmin(p.as_ref())?);
    }
    Ok((lo, hi))
}

/// **Thm 2, first part**: an ε-LDP mechanism is
/// `ln(min P^bp_min + e^ε(1 − min P^bp_min))`-BP-LIP for the family `priors`.
///
/// # Privacy
/// Holds: [`ldp_to_lip`] under each prior of the family, and that bound decreases in
/// Pmin. Exact when the minimising prior is in the family (it is attained for that prior).
/// min P^bp_min is taken over the positive entries (a zero entry is an input that cannot
/// occur under that prior and does not enter its LIP).
///
/// # Errors
/// `invalid_argument` for an empty family; `dimension_mismatch` if the priors differ in
/// length; the distribution errors of [`pmin`] naming `priors[i]`.
pub fn ldp_to_bp_lip<P: AsRef<[f64]>>(eps: Budget, priors: &[P]) -> Result<f64> {
    let (min_pmin, _) = family_pmins(priors)?;
    Ok(ldp_to_lip_unchecked(eps.get(), min_pmin))
}

/// **Thm 2, converse**: an ε-BP-LIP mechanism is
/// `min{2ε, ln((e^ε − 1 + max P^bp_min)/max P^bp_min)}`-LDP.
///
/// # Privacy
/// Holds when some prior of the family has full support: the mechanism is ε-LIP under
/// each prior, so [`lip_to_ldp`] applies to each, and it decreases in Pmin. When no prior
/// has full support, max P^bp_min = 0 and the printed formula reads 2ε, which is false:
/// the point masses {(1, 0), (0, 1)} make every mechanism 0-BP-LIP (each lift is 1),
/// the identity included, whose LDP is ∞. This function then returns `+∞` (Thm 2 gives
/// no bound). Not exact in general: a mechanism must be ε-LIP under *every* prior at once.
///
/// # Errors
/// As [`ldp_to_bp_lip`].
pub fn bp_lip_to_ldp<P: AsRef<[f64]>>(eps: Budget, priors: &[P]) -> Result<f64> {
    let eps = eps.get();
    let (_, max_pmin) = family_pmins(priors)?;
    if max_pmin == 0.0 && priors.first().is_some_and(|p| p.as_ref().len() > 1) {
        return Ok(f64::INFINITY);
    }
    if eps == f64::INFINITY {
        return Ok(f64::INFINITY);
    }
    Ok(g1(eps, max_pmin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::shims::{
        bp_lip_to_ldp, ldp_to_bp_lip, ldp_to_lip, lip_to_ldp, lip_to_ldp_exact, lip_to_ldp_witness,
    };

    #[test]
    fn prop1_is_min_of_two_branches() {
        // Pmin = 0.01, ε = 1: the 2ε branch.
        assert_eq!(lip_to_ldp(1.0, 0.01).unwrap(), 2.0);
        // Pmin = 0.5, ε = 3: ln((e^3 − 0.5)/0.5) < 6.
        let b = lip_to_ldp(3.0, 0.5).unwrap();
        assert!((b - ((3.0f64.exp() - 0.5) / 0.5).ln()).abs() < 1e-12 && b < 6.0);
        assert_eq!(lip_to_ldp(0.0, 0.3).unwrap(), 0.0);
        assert_eq!(lip_to_ldp(f64::INFINITY, 0.3).unwrap(), f64::INFINITY);
    }

    #[test]
    fn huge_budgets_stay_finite_and_safe() {
        // e^800 overflows: Prop 1's log term is then bounded by ε − ln Pmin < 2ε.
        let b = lip_to_ldp(800.0, 0.25).unwrap();
        assert!(b >= 800.0 + 4.0f64.ln() && b < 800.0 + 4.0f64.ln() + 1e-10, "{b}");
        assert_eq!(ldp_to_lip(800.0, 0.25).unwrap(), 800.0);
        assert_eq!(lip_to_ldp_exact(&[0.25, 0.75], 800.0).unwrap(), b);
    }

    #[test]
    fn exact_eq9_equals_prop1_from_three_inputs() {
        for (p, eps) in [(vec![0.01, 0.33, 0.33, 0.33], 2.0), (vec![0.25; 4], 0.7), (vec![0.2, 0.3, 0.5], 4.0)] {
            let exact = lip_to_ldp_exact(&p, eps).unwrap();
            let prop1 = lip_to_ldp(eps, pmin(&p).unwrap()).unwrap();
            assert_eq!(exact, prop1, "{p:?} {eps}");
        }
    }

    #[test]
    fn exact_eq9_binary_by_hand() {
        // P = (0.1, 0.9), ε = 1: v_0 is the one free variable (v_1 = (1 − 0.1 v_0)/0.9);
        // scan it and compare with the closed form, which is well below Prop 1's 2ε.
        let (p, eps) = ([0.1, 0.9], 1.0f64);
        let (l, u) = ((-eps).exp(), eps.exp());
        let mut best = 0.0f64;
        for i in 0..=200_000 {
            let va = l + (u - l) * i as f64 / 200_000.0;
            let vb = (1.0 - p[0] * va) / p[1];
            if (l..=u).contains(&vb) {
                best = best.max((va / vb).max(vb / va));
            }
        }
        let exact = lip_to_ldp_exact(&p, eps).unwrap();
        assert!(exact >= best.ln() && exact - best.ln() < 1e-4, "{exact} vs {}", best.ln());
        assert!(exact < lip_to_ldp(eps, 0.1).unwrap() - 0.3);
    }

    #[test]
    fn special_priors() {
        assert_eq!(lip_to_ldp_exact(&[1.0], 5.0).unwrap(), 0.0);
        assert_eq!(lip_to_ldp_exact(&[0.0, 0.5, 0.5], 1.0).unwrap(), f64::INFINITY);
        assert_eq!(lip_to_ldp_exact(&[0.5, 0.5], 0.0).unwrap(), 0.0);
        let w = lip_to_ldp_witness(&[0.0, 0.5, 0.5], 1.0).unwrap();
        assert_eq!(w.row(0), &[0.0, 1.0]);
    }

    #[test]
    fn ldp_to_lip_endpoints() {
        let b = ldp_to_lip(2.0, 0.0).unwrap();
        assert!((2.0..2.0 + 1e-14).contains(&b), "{b}");
        assert_eq!(ldp_to_lip(2.0, 1.0).unwrap(), 0.0);
        assert_eq!(ldp_to_lip(f64::INFINITY, 1.0).unwrap(), 0.0);
        assert_eq!(ldp_to_lip(f64::INFINITY, 0.5).unwrap(), f64::INFINITY);
    }

    #[test]
    fn bp_lip_without_full_support_gives_no_bound() {
        let fam = [[1.0, 0.0], [0.0, 1.0]];
        assert_eq!(bp_lip_to_ldp(0.0, &fam).unwrap(), f64::INFINITY);
        let fam = [[0.5, 0.5], [0.2, 0.8]];
        assert_eq!(bp_lip_to_ldp(1.0, &fam).unwrap(), lip_to_ldp(1.0, 0.5).unwrap());
        assert_eq!(ldp_to_bp_lip(1.0, &fam).unwrap(), ldp_to_lip(1.0, 0.2).unwrap());
    }

    #[test]
    fn arguments_are_checked() {
        for e in [
            lip_to_ldp(-1.0, 0.5),
            lip_to_ldp(f64::NAN, 0.5),
            lip_to_ldp(1.0, 0.0),
            lip_to_ldp(1.0, 1.5),
            ldp_to_lip(1.0, -0.1),
            ldp_to_lip(1.0, f64::NAN),
            lip_to_ldp_witness(&[0.5, 0.5], f64::INFINITY).map(|_| 0.0),
        ] {
            assert_eq!(e.unwrap_err().code(), "invalid_argument");
        }
        assert_eq!(lip_to_ldp_exact(&[0.5, 0.6], 1.0).unwrap_err().code(), "not_normalized");
        assert_eq!(lip_to_ldp_exact(&[], 1.0).unwrap_err().code(), "empty_alphabet");
        let ragged: [&[f64]; 2] = [&[0.5, 0.5], &[1.0]];
        assert_eq!(bp_lip_to_ldp(1.0, &ragged).unwrap_err().code(), "dimension_mismatch");
        assert_eq!(bp_lip_to_ldp::<[f64; 2]>(1.0, &[]).unwrap_err().code(), "invalid_argument");
    }
}
