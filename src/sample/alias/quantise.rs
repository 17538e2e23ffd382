//! A row's exact integer weights over 2⁶⁴ (the probabilities a table realises, and the
//! verifier audits), and those weights back as f64 probabilities, each rounded once.

#[cfg(test)]
use alloc::vec::Vec;

use crate::error::{Error, Result};

/// Integer weights summing to exactly 2⁶⁴, from a non-negative finite row, into `w`: the
/// 128-bit reference of [`quantise_u64`].
#[cfg(test)]
pub(super) fn quantise_into(p: &[f64], w: &mut Vec<u128>) -> Result<()> {
    const TWO64: u128 = 1 << 64;
    let sum = checked_sum(p)?;
    w.clear();
    w.extend(p.iter().map(|&v| {
        if v == 0.0 {
            0
        } else {
            // Floors (`as`); at or above 2⁶⁴ it is 2⁶⁴. Through u64: a hardware conversion,
            // where f64 → u128 is a soft-float call.
            let q = v / sum * SCALE;
            let q = if q >= SCALE { TWO64 } else { q as u64 as u128 };
            q.clamp(1, TWO64)
        }
    }));
    let total: u128 = w.iter().sum();
    let (imax, _) = w.iter().enumerate().max_by_key(|(_, v)| **v).expect("non-empty row");
    if total > TWO64 {
        w[imax] -= total - TWO64;
    } else {
        w[imax] += TWO64 - total;
    }
    Ok(())
}

/// 2⁶⁴ as f64.
pub(super) const SCALE: f64 = 18446744073709551616.0;

/// 2⁻⁶⁴: `w as f64 * INV_SCALE` is `w as f64 / SCALE` bit for bit (a power of two, and
/// every weight ≥ 1 stays far above the subnormals), without the division.
const INV_SCALE: f64 = 1.0 / SCALE;

/// The exact probability of a weight `w` of a row that holds no outcome with all the mass:
/// w/2⁶⁴ rounded once. Every reader of the exact channel (a written row, one entry, the
/// per-output extremes) goes through it, so that they agree bit for bit.
#[inline(always)]
pub(crate) fn exact_of(w: u64) -> f64 {
    w as f64 * INV_SCALE
}

/// The row's sum, after checking that its entries are finite and non-negative with a
/// positive sum.
#[inline(always)]
pub(crate) fn checked_sum(p: &[f64]) -> Result<f64> {
    let sum: f64 = crate::numeric::sum(p);
    // A NaN or infinite entry makes the sum NaN or infinite, so only the signs remain to be
    // checked (a NaN compares false, an infinite sum is refused).
    if sum.is_nan() || sum <= 0.0 || !sum.is_finite() || p.iter().any(|v| *v < 0.0) {
        return Err(Error::invalid("row", "a sampler row needs finite non-negative entries with a positive sum"));
    }
    Ok(sum)
}

/// `q as u64` for 0 ≤ q < 2⁶⁴ through the signed conversion, which wasm runtimes do in
/// one instruction where the unsigned one takes a sequence; above 2⁶³, q is an integer, and
/// `q − 2⁶³` is exact. Larger q (only a weight of 2⁶⁴, handled apart) saturates.
#[inline(always)]
pub(super) fn to_u64(q: f64) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    if q < TWO63 {
        q as i64 as u64
    } else {
        ((q - TWO63) as i64 as u64).saturating_add(1 << 63)
    }
}

/// How a row quantises: every weight below 2⁶⁴, or all the mass on one outcome.
#[derive(Clone, Copy)]
pub(super) enum Weights {
    /// The weights, each < 2⁶⁴, are in the buffer.
    Below,
    /// Outcome `i` has weight 2⁶⁴ and every other outcome 0.
    All(usize),
}

impl Weights {
    /// From the outcome holding all the mass, if one does.
    pub(super) fn of(full: Option<u32>) -> Self {
        full.map_or(Weights::Below, |all| Weights::All(all as usize))
    }
    /// The outcome holding all the mass, if one does (the inverse of [`Weights::of`]).
    pub(super) fn full(self) -> Option<u32> {
        match self {
            Weights::Below => None,
            Weights::All(all) => Some(all as u32),
        }
    }
}

/// Integer weights summing to exactly 2⁶⁴ from a non-negative finite row: each non-zero
/// entry's floor of `p_y / Σp · 2⁶⁴` (at least 1), the last of the largest weights absorbing
/// the residue. The weights go to `w` (as long as `p`), each below 2⁶⁴; a weight of 2⁶⁴ (all
/// the mass on one outcome) is [`Weights::All`], and `w` is then all 0.
///
/// A row whose (compensated) sum is exactly 1, as a normalised document's rows mostly are,
/// skips the division: p_y / 1 is p_y, bit for bit.
///
/// On u64 (wasm32 emulates 128-bit arithmetic) with a 128-bit total only. An entry whose
/// scaled value rounds to 2⁶⁴ has p_y ≥ (1 − 2⁻⁵³)·Σp, so at most one does, and it is the
/// largest weight: it keeps 2⁶⁴ minus the others. (The 128-bit quantiser this replaced is
/// kept in the tests as the reference, bit for bit.)
///
/// Inlined into its callers, as are the sum and the exact probabilities: a dense channel's
/// row is then one function for a wasm engine to optimise (each function tiers up on its
/// own, after about the same work in the baseline tier).
#[inline(always)]
pub(super) fn quantise_u64(p: &[f64], w: &mut [u64]) -> Result<Weights> {
    let sum = checked_sum(p)?;
    let normalised = sum == 1.0;
    let (mut full, mut fulls) = (0usize, 0usize);
    // The total and the last of the largest weights, gathered in the same pass.
    let (mut total, mut imax, mut big) = (0u128, 0usize, 0u64);
    for (i, (&v, slot)) in p.iter().zip(w.iter_mut()).enumerate() {
        let q = if normalised { v * SCALE } else { v / sum * SCALE };
        let weight = if v == 0.0 {
            0
        } else if q >= SCALE {
            (full, fulls) = (i, fulls + 1);
            0
        } else {
            to_u64(q).max(1)
        };
        total += weight as u128;
        if weight >= big {
            (imax, big) = (i, weight);
        }
        *slot = weight;
    }
    const TWO64: u128 = 1 << 64;
    let (imax, base, total) = if fulls > 0 { (full, TWO64, total + TWO64) } else { (imax, big as u128, total) };
    // The largest weight absorbs the residue 2⁶⁴ − total.
    let Some(fixed) = (base + TWO64).checked_sub(total).filter(|_| fulls <= 1) else {
        return Err(Error::invalid("row", "a sampler row's weights do not quantise to 2^64"));
    };
    if fixed == TWO64 {
        return Ok(Weights::All(imax));
    }
    w[imax] = fixed as u64;
    Ok(Weights::Below)
}

/// W/2⁶⁴ for a weight W ≤ 2⁶⁴, rounded once (through u64: u128 → f64 is a soft-float call).
pub(crate) fn probability(w: u128) -> f64 {
    let v = if w >= 1 << 64 { SCALE } else { w as u64 as f64 };
    v / SCALE
}

/// W/2⁶⁴ of each of a row's weights (`w` when they are [`Weights::Below`]) into `exact`, as
/// `probability` rounds it: the table built from them realises exactly these (Vose's loop
/// moves mass between columns, never between outcomes).
#[inline(always)]
pub(super) fn write_exact(w: &[u64], quantised: Weights, exact: &mut [f64]) {
    match quantised {
        Weights::All(all) => {
            exact.fill(0.0);
            exact[all] = 1.0;
        }
        Weights::Below => {
            for (e, &v) in exact.iter_mut().zip(w) {
                *e = exact_of(v);
            }
        }
    }
}

/// Quantises one row into `w`, and its exact probabilities into `exact`; the outcome holding
/// all the mass, if one does. A kernel of its own, never inlined, so that a wasm engine
/// optimises it during a page's first verify (see `leakage::lift`).
#[inline(never)]
pub(super) fn quantise_row(row: &[f64], w: &mut [u64], exact: Option<&mut [f64]>) -> Result<Option<u32>> {
    let quantised = quantise_u64(row, w)?;
    if let Some(exact) = exact {
        write_exact(w, quantised, exact);
    }
    Ok(quantised.full())
}
