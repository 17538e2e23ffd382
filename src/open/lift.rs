//! Lifts under a sparse prior: the audit's bounds for every report and seed, and a
//! receipt's bounds for the report actually sent.
//!
//! # The worst cases, proved
//! Take a report whose randomiser output is y (the notation of [`super::channel`]): each
//! value x has K_x = K(y | v_ω(x)) ∈ {a, b} (a = a_y ≥ b = b_y, a − b = κ), P(ω) cancels,
//! and with T = Σp + ρ the prior's total mass (listed Σp, unlisted ρ = 1 − Σp),
//!
//!   P(z)/P(ω) = D = Σ_x P(x)·K_x = b·T + κ·q,   q = P(v_ω(X) = y),
//!
//! so the lift of x is l(x) = K_x / (b·T + κ·q).
//!
//! **Audit (every seed, every collision pattern).** If x is in bucket y then q ≥ P(x), so
//! l(x) ≤ a/(b·T + κ·P(x)); if not, q ≤ T − P(x), so l(x) ≥ b/(b·T + κ·(T − P(x))). Both
//! bounds are worst at the least P(x): the least listed p, or 0 when unlisted mass exists
//! (it may spread over values of vanishing mass) or there is no prior. Each is reached
//! when x is alone in bucket y (resp. every other value is), which a seed may do, so
//! they are the supremum over what the document does not fix; the audited εu, εl and
//! LIP = max(εu, εl) are their logarithms, maximised over y.
//!
//! **Receipt (the report sent).** K_i of every listed value is known (hash it), so
//! S = Σ_i p_i·K_i = b·Σp + κ·P(C) is known (C: the listed values in bucket y); the
//! unlisted mass adds ρ·K̄ with K̄ ∈ [b, a] depending on how it spreads. Hence
//! D ∈ [D_lo, D_hi] = [S + ρ·b, S + ρ·a], a listed value's lift lies in
//! [K_i/D_hi, K_i/D_lo], and an unlisted value's (K ∈ {a, b}) in [b/D_hi, a/D_lo]. Both
//! ends are reached (all unlisted mass in bucket y, or none; an unlisted value in y or
//! not), so no tighter bound holds without more of the prior.
//!
//! # Rounding
//! a, b and κ are each the exact rational of the sampler's weights rounded once; every
//! other quantity here is at most n + 8 roundings of non-negative terms (n listed values),
//! so the results are widened by γ(n + 8) ([`crate::numeric::gamma`]): upper bounds up,
//! lower bounds down.

use crate::numeric::{down_rel, gamma, up_rel};

/// One output's column of the randomiser: a = P(y | v = y), b = P(y | v ≠ y), κ = a − b.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Column {
    pub(crate) a: f64,
    pub(crate) b: f64,
    pub(crate) keep: f64,
}

/// (least lift, greatest lift) over every value and every collision pattern, for
/// column `c`, a prior of total mass `total` whose least mass of a single value is
/// `least` (0 with unlisted mass or no prior), `n` listed values.
pub(crate) fn audit_bounds(c: Column, total: f64, least: f64, n: usize) -> (f64, f64) {
    let rel = gamma(n + 8);
    let hi = ratio_up(c.a, c.b * total + c.keep * least, rel);
    let lo = ratio_down(c.b, c.b * total + c.keep * (total - least), rel);
    (lo, hi)
}

/// The bounds of a receipt for the report sent in column `c`: `in_bucket` is P(C), the
/// listed mass in the reported bucket, `listed` Σp, `other` ρ. Returns (D_lo, D_hi) of
/// the normalising mass, widened outwards.
pub(crate) fn receipt_mass(c: Column, in_bucket: f64, listed: f64, other: f64, n: usize) -> (f64, f64) {
    let rel = gamma(n + 8);
    let s = c.b * listed + c.keep * in_bucket;
    (down_rel(s + other * c.b, rel), up_rel(s + other * c.a, rel))
}

/// The lift range [k/D_hi, k/D_lo] of a value whose likelihood is `k` (a or b), widened.
pub(crate) fn lift_range(k: f64, mass: (f64, f64), n: usize) -> (f64, f64) {
    let rel = gamma(n + 8);
    (ratio_down(k, mass.1, rel), ratio_up(k, mass.0, rel))
}

/// k/d rounded up from operands known to relative error `rel` (∞ for d = 0 < k).
fn ratio_up(k: f64, d: f64, rel: f64) -> f64 {
    match (k, d) {
        (0.0, _) => 0.0,
        (_, 0.0) => f64::INFINITY,
        _ => up_rel(k / d, 2.0 * rel + gamma(1)),
    }
}

/// k/d rounded down (0 for k = 0; ∞ for d = 0 < k).
fn ratio_down(k: f64, d: f64, rel: f64) -> f64 {
    match (k, d) {
        (0.0, _) => 0.0,
        (_, 0.0) => f64::INFINITY,
        _ => down_rel(k / d, 2.0 * rel + gamma(1)),
    }
}

#[cfg(test)]
mod tests {
    //! Brute force in exact arithmetic: small priors whose masses are multiples of 1/64,
    //! integer weights a, b over 2⁶⁴, every assignment of the listed values to buckets and
    //! every spread of the unlisted mass over unlisted point masses; every lift is an
    //! exact rational (u128 numerator and denominator), compared with the bounds.
    use super::*;
    use alloc::vec::Vec;

    /// Exact lift K_x·64 / Σ_v m_v·K_v with masses m_v in 64ths and K in 2⁻⁶⁴ units:
    /// (numerator, denominator), both in units of 2⁻⁶⁴/64.
    fn lift(kx: u128, masses: &[(u128, u128)]) -> (u128, u128) {
        (kx * 64, masses.iter().map(|&(m, k)| m * k).sum())
    }

    fn as_f64((n, d): (u128, u128)) -> f64 {
        n as f64 / d as f64
    }

    /// Every pattern over `g` buckets of listed masses `p` (64ths) plus unlisted mass
    /// `rho` split into unit point masses (each in any bucket), column y = 0.
    fn brute(wa: u128, wb: u128, g: usize, p: &[u128], rho: u128) -> (f64, f64) {
        let units = rho as usize;
        let values = p.len() + units;
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        let mut pattern = alloc::vec![0usize; values];
        loop {
            let masses: Vec<(u128, u128)> = pattern
                .iter()
                .enumerate()
                .map(|(i, &bucket)| {
                    let m = if i < p.len() { p[i] } else { 1 };
                    (m, if bucket == 0 { wa } else { wb })
                })
                .collect();
            for &(_, k) in &masses {
                let l = as_f64(lift(k, &masses));
                lo = lo.min(l);
                hi = hi.max(l);
            }
            // Next pattern (odometer).
            let mut i = 0;
            while i < values {
                pattern[i] += 1;
                if pattern[i] < g {
                    break;
                }
                pattern[i] = 0;
                i += 1;
            }
            if i == values {
                return (lo, hi);
            }
        }
    }

    fn column(wa: u128, wb: u128) -> Column {
        let s = libm::exp2(64.0);
        Column { a: wa as f64 / s, b: wb as f64 / s, keep: (wa - wb) as f64 / s }
    }

    #[test]
    fn audit_bounds_are_the_brute_force_extremes_without_unlisted_mass() {
        // a/b ≈ e: W_a + W_b·(g − 1) = 2⁶⁴ is not needed for the lifts (ratios only).
        let (wa, wb) = (27_182_818_284_590_452u128, 10_000_000_000_000_000u128);
        for (g, p) in [(2, &[32u128, 16, 16][..]), (3, &[8, 40, 16]), (2, &[1, 63])] {
            let (lo, hi) = brute(wa, wb, g, p, 0);
            let least = *p.iter().min().unwrap() as f64 / 64.0;
            let (blo, bhi) = audit_bounds(column(wa, wb), 1.0, least, p.len());
            assert!(blo <= lo && bhi >= hi, "{g} {p:?}: [{blo}, {bhi}] vs [{lo}, {hi}]");
            assert!((blo / lo - 1.0).abs() < 1e-12 && (bhi / hi - 1.0).abs() < 1e-12, "not tight");
        }
    }

    #[test]
    fn unlisted_mass_tends_to_the_ldp_and_stays_below_it() {
        let (wa, wb) = (3u128 << 60, 1u128 << 60);
        // 4/64 unlisted in unit masses: the brute force's worst unlisted value has 1/64.
        let (lo, hi) = brute(wa, wb, 2, &[40, 20], 4);
        let (blo, bhi) = audit_bounds(column(wa, wb), 1.0, 0.0, 2);
        assert!(blo <= lo && bhi >= hi);
        assert!((bhi - 3.0).abs() < 1e-12 && (blo - 1.0 / 3.0).abs() < 1e-12);
        // The same bound at least = 1/64 is the brute force's extreme exactly.
        let (tlo, thi) = audit_bounds(column(wa, wb), 1.0, 1.0 / 64.0, 2);
        assert!((tlo / lo - 1.0).abs() < 1e-12 && (thi / hi - 1.0).abs() < 1e-12);
    }

    #[test]
    fn receipt_ranges_are_the_extremes_over_unlisted_spreads() {
        let (wa, wb) = (5u128 << 58, 2u128 << 58);
        let c = column(wa, wb);
        // Listed 32/64 in bucket 0 (the reported one), 16/64 elsewhere; 16/64 unlisted.
        let listed = [(32u128, wa), (16, wb)];
        let (mut lo_l, mut hi_l) = ([f64::INFINITY; 2], [0.0f64; 2]);
        let (mut lo_u, mut hi_u) = (f64::INFINITY, 0.0f64);
        for in_bucket in 0..=16u128 {
            let masses = [listed[0], listed[1], (in_bucket, wa), (16 - in_bucket, wb)];
            for (i, &(_, k)) in listed.iter().enumerate() {
                let l = as_f64(lift(k, &masses));
                lo_l[i] = lo_l[i].min(l);
                hi_l[i] = hi_l[i].max(l);
            }
            for k in [wa, wb] {
                let l = as_f64(lift(k, &masses));
                lo_u = lo_u.min(l);
                hi_u = hi_u.max(l);
            }
        }
        let mass = receipt_mass(c, 0.5, 0.75, 0.25, 2);
        for (i, k) in [c.a, c.b].into_iter().enumerate() {
            let (lo, hi) = lift_range(k, mass, 2);
            assert!(lo <= lo_l[i] && hi >= hi_l[i]);
            assert!((lo / lo_l[i] - 1.0).abs() < 1e-12 && (hi / hi_l[i] - 1.0).abs() < 1e-12);
        }
        let (lo, _) = lift_range(c.b, mass, 2);
        let (_, hi) = lift_range(c.a, mass, 2);
        assert!(lo <= lo_u && hi >= hi_u && (lo / lo_u - 1.0).abs() < 1e-12 && (hi / hi_u - 1.0).abs() < 1e-12);
    }
}
