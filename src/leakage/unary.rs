//! Audit of unary encoding (Wang et al. 2017; Jiang et al. V-A (e)) without
//! enumerating its 2^|X| outputs.
//!
//! With p = 1 − q10 = P(bit = 1 | the bit is x's) and q = q01 = P(bit = 1 | another
//! bit), P(y|x) = G(y)·a(y_x) where G(y) = Π_j g(y_j) does not depend on x and
//! a(1) = p/q, a(0) = (1−p)/(1−q). Hence, with b = y ∈ {0,1}^|X|, r = a(1)/a(0) and the
//! weights w_x = r if b_x = 1, else 1,
//!
//!   l(s, y) = ⟨P(·|s), w⟩ / ⟨P_X, w⟩,
//!
//! a ratio of two affine functions of the bits, each a sum of non-negative terms. (The
//! equivalent form (1 + c⟨P(·|s), b⟩)/(T + c⟨P_X, b⟩) with c = r − 1 cancels
//! catastrophically when r ≪ 1: 1 + c loses every digit of r, which a property test
//! found as a receipt lift 4·10⁻¹⁶ below its bound.) ⟨P_X, w⟩ keeps the document's
//! normalisation slack (`SUM_TOLERANCE`), so this is exactly the lift
//! P(s,y)/(P(s)P(y)) of the joint as given, which is what the generic audit (and so the
//! enumerated unary audit and every matrix receipt) computes. Its maximum and minimum over the
//! hypercube (the max-lift Λ and min-lift Ψ, and LDP w.r.t. S as the max over pairs of
//! secrets) are found exactly by Dinkelbach's method: for a fixed λ the maximiser of
//! N(b) − λD(b) sets each bit independently, and the ratio strictly increases until
//! it is optimal, after finitely many steps.
//!
//! For |X| ≤ [`UNARY_ENUMERATION_LIMIT`] the audit instead builds the explicit
//! |X| × 2^|X| channel and runs the generic audit, so every measure (mutual information
//! and the lift-based measures included) is exact. Above it, the measures that need a
//! sum over all outputs (`mi_sy`, `mi_xy`, the ℓ1/χ²/α lift measures) are reported as
//! NaN ("not computed"), never as a guess.

use alloc::vec;
use alloc::vec::Vec;

use super::{audit, check_alpha, Alip, Leakage};
use crate::document::Matrix;
use crate::error::Result;
use crate::numeric::{abs_ln_up, down_rel, gamma, ln_up, up_rel};
use crate::param::Probability;

/// Largest |X| for which the unary channel is enumerated explicitly.
pub const UNARY_ENUMERATION_LIMIT: usize = 14;

/// The explicit channel of unary encoding, columns indexed by the bit pattern.
fn explicit_channel(nx: usize, q01: f64, q10: f64) -> Matrix {
    let ny = 1usize << nx;
    let mut w = vec![0.0; nx * ny];
    for x in 0..nx {
        for y in 0..ny {
            let mut pr = 1.0;
            for j in 0..nx {
                let bit = (y >> j) & 1 == 1;
                pr *= match (j == x, bit) {
                    (true, true) => 1.0 - q10,
                    (true, false) => q10,
                    (false, true) => q01,
                    (false, false) => 1.0 - q01,
                };
            }
            w[x * ny + y] = pr;
        }
    }
    Matrix::from_flat(nx, ny, w)
}

/// Audits unary encoding for the joint P_SX.
pub fn audit_unary(p_sx: &Matrix, q01: Probability, q10: Probability, alpha_order: f64) -> Result<Leakage> {
    audit_unary_of(Some(p_sx), &p_sx.col_sums(), q01.get(), q10.get(), alpha_order)
}

/// Audits unary encoding with S = X under `prior`: [`audit_unary`] of diag(`prior`), in
/// O(|X|) above the enumeration limit, without building the |X| × |X| joint (134 MB and
/// most of the verification at |X| = 4096).
pub fn audit_unary_x(prior: &[f64], q01: Probability, q10: Probability, alpha_order: f64) -> Result<Leakage> {
    audit_unary_of(None, prior, q01.get(), q10.get(), alpha_order)
}

/// The audit for the joint `p_sx` whose column sums are `prior`; `None`: diag(`prior`).
fn audit_unary_of(p_sx: Option<&Matrix>, prior: &[f64], q01: f64, q10: f64, alpha_order: f64) -> Result<Leakage> {
    check_alpha(alpha_order)?;
    let nx = prior.len();
    if nx <= UNARY_ENUMERATION_LIMIT {
        let diag;
        let joint = match p_sx {
            Some(j) => j,
            None => {
                diag = Matrix::diag(prior);
                &diag
            }
        };
        return audit(joint, &explicit_channel(nx, q01, q10), alpha_order);
    }
    let (p, q) = (1.0 - q10, q01);
    let ns = p_sx.map_or(nx, Matrix::rows);
    let p_s: Vec<f64> = match p_sx {
        Some(j) => (0..ns).map(|s| j.row(s).iter().sum()).collect(),
        None => prior.to_vec(),
    };
    let nan = f64::NAN;
    let mut out = Leakage {
        lip: 0.0,
        alip: Alip { eps_l: 0.0, eps_u: 0.0 },
        ldp: 0.0,
        ldp_x: 0.0,
        mi_sy: nan,
        mi_xy: nan,
        maximal_leakage: 0.0,
        min_lift: 1.0,
        max_lift: 1.0,
        l1_lift: nan,
        chi2_lift: nan,
        alpha_lift: nan,
        l1_lift_inverse: nan,
        chi2_lift_inverse: nan,
        alpha_lift_inverse: nan,
        alpha_order,
    };
    if p == q {
        // The report does not depend on x: every lift is ⟨P(·|s), 1⟩/⟨P_X, 1⟩ = 1/T, with
        // T = Σ P_X (1 up to the document's normalisation slack), as the enumerated audit
        // and the receipts compute it (fuzzer finding: exactly 1 here missed 1/T = 1 + 1e-10).
        let rel = gamma(nx + ns + 4);
        let l = 1.0 / prior.iter().sum::<f64>();
        out.min_lift = down_rel(l, rel);
        out.max_lift = up_rel(l, rel);
        out.alip = Alip { eps_l: abs_ln_up(l.min(1.0), rel), eps_u: ln_up(l, rel).max(0.0) };
        out.lip = out.alip.eps_l.max(out.alip.eps_u);
        out.mi_sy = 0.0;
        out.mi_xy = 0.0;
        return Ok(out);
    }
    if !(p > 0.0 && p < 1.0 && q > 0.0 && q < 1.0) {
        // Some output is impossible for one input and possible for another.
        let inf = f64::INFINITY;
        out.lip = inf;
        out.alip = Alip { eps_l: inf, eps_u: inf };
        out.ldp = inf;
        out.ldp_x = inf;
        out.min_lift = 0.0;
        out.max_lift = inf;
        // Maximal leakage never exceeds ln |supp P_X|.
        let m = prior.iter().filter(|&&v| v > 0.0).count().max(1);
        out.maximal_leakage = ln_up(m as f64, gamma(2));
        return Ok(out);
    }
    let (a1, a0) = (p / q, (1.0 - p) / (1.0 - q));
    let r = a1 / a0;
    // N and D are sums of ≤ |X| non-negative products (the conditionals add one division
    // each, the prior sums ≤ |S| + |X| roundings): the 4|X| + 16 of the ratio.
    let rel = gamma(5 * nx + ns + 16);
    let (mut hi, mut lo) = (1.0f64, 1.0f64);
    let mut ldp = 0.0f64;
    match p_sx.filter(|j| !j.is_diagonal()) {
        None => {
            // S = X: closed forms in O(|X|), and LDP w.r.t. S is LDP w.r.t. X on the support.
            (hi, lo) = one_hot_extremes(r, prior);
            if p_s.iter().filter(|&&v| v > 0.0).count() >= 2 {
                ldp = abs_ln_up(r, gamma(6));
            }
        }
        Some(j) => {
            let cond: Vec<Vec<f64>> =
                (0..ns).filter(|&s| p_s[s] > 0.0).map(|s| j.row(s).iter().map(|v| v / p_s[s]).collect()).collect();
            for u in &cond {
                hi = hi.max(dinkelbach(r, u, prior, true));
                lo = lo.min(dinkelbach(r, u, prior, false));
            }
            for u in &cond {
                for v in &cond {
                    ldp = ldp.max(ln_up(dinkelbach(r, u, v, true), rel));
                }
            }
        }
    }
    let eps_u = ln_up(hi, rel).max(0.0);
    let eps_l = abs_ln_up(lo.min(1.0), rel);
    out.lip = eps_u.max(eps_l);
    out.alip = Alip { eps_l, eps_u };
    out.ldp = ldp;
    out.ldp_x = if nx >= 2 { abs_ln_up(a1 / a0, gamma(6)) } else { 0.0 };
    out.min_lift = down_rel(lo, rel);
    out.max_lift = up_rel(hi, rel);
    out.maximal_leakage = ln_up(maximal(p, q, prior), gamma(8));
    Ok(out)
}

/// Σ_y max_{x ∈ supp P_X} P(y|x) in closed form: with m inputs in the support, the
/// maximum picks a(1) whenever one of their bits is 1 (if a(1) ≥ a(0)).
fn maximal(p: f64, q: f64, prior: &[f64]) -> f64 {
    let m = prior.iter().filter(|&&v| v > 0.0).count();
    // Σ_y G(y) max_x a(y_x), with G the all-cold bit distribution.
    let all_zero = libm::pow(1.0 - q, m as f64); // P_G(every support bit is 0)
    let all_one = libm::pow(q, m as f64);
    let (a1, a0) = (p / q, (1.0 - p) / (1.0 - q));
    if a1 >= a0 {
        // The maximum is a(1) unless every support bit is 0.
        a1 * (1.0 - all_zero) + a0 * all_zero
    } else {
        // The maximum is a(0) unless every support bit is 1.
        a0 * (1.0 - all_one) + a1 * all_one
    }
}

/// The largest and smallest lift over every x with P(x) > 0 and every bit vector when
/// S = X, in O(|X|): with u = e_x the lift is w_x / (P(x)·w_x + Σ_{j≠x} P(j)·w_j), so for
/// each value of b_x the other bits only move the denominator, each to its smallest
/// (largest) weight min(1, r) (max(1, r)). Σ_{j≠x} P(j) is a prefix plus a suffix sum of
/// non-negative terms (no cancellation), so the rounding bound of [`audit_unary`] holds.
fn one_hot_extremes(r: f64, prior: &[f64]) -> (f64, f64) {
    let (before, after) = crate::numeric::prefix_suffix_sums(prior);
    let (w_lo, w_hi) = (r.min(1.0), r.max(1.0));
    let (mut hi, mut lo) = (1.0f64, 1.0f64);
    for (x, &px) in prior.iter().enumerate() {
        if px <= 0.0 {
            continue;
        }
        let others = before[x] + after[x + 1];
        for wx in [1.0, r] {
            hi = hi.max(wx / (px * wx + w_lo * others));
            lo = lo.min(wx / (px * wx + w_hi * others));
        }
    }
    (hi, lo)
}

/// Most Dinkelbach steps taken before the bound of the last step is used instead (the
/// verification cost model counts this many passes).
pub const DINKELBACH_MAX_STEPS: usize = 32;

/// max (or min) over b ∈ {0,1}^n of ⟨u,w⟩ / ⟨v,w⟩ with w_x = r if b_x = 1 else 1,
/// Dinkelbach. After [`DINKELBACH_MAX_STEPS`] steps without convergence it returns the
/// safe bound of the last step: with F = max_b N(b) − λD(b) ≥ 0, every ratio is
/// ≤ λ + F / min_b D(b) (and symmetrically for the minimum), so the answer never
/// understates the leakage.
fn dinkelbach(r: f64, u: &[f64], v: &[f64], maximise: bool) -> f64 {
    let ratio = |b: &[bool]| {
        let (mut nu, mut de) = (0.0, 0.0);
        for ((&bi, &ui), &vi) in b.iter().zip(u).zip(v) {
            let w = if bi { r } else { 1.0 };
            nu += ui * w;
            de += vi * w;
        }
        nu / de
    };
    // Setting b_x = 1 changes N − λD by (r − 1)(u_x − λv_x).
    let take = |ui: f64, vi: f64, lambda: f64| {
        let gain = (r - 1.0) * (ui - lambda * vi);
        if maximise {
            gain > 0.0
        } else {
            gain < 0.0
        }
    };
    let mut b = vec![false; u.len()];
    let mut lambda = ratio(&b);
    for _ in 0..DINKELBACH_MAX_STEPS {
        for ((bi, &ui), &vi) in b.iter_mut().zip(u).zip(v) {
            *bi = take(ui, vi, lambda);
        }
        let next = ratio(&b);
        let better = if maximise { next > lambda } else { next < lambda };
        if !better {
            return lambda;
        }
        lambda = next;
    }
    // Not converged: F(λ) at the optimiser b of N − λD, over the smallest denominator.
    let (mut f, mut d_min) = (0.0, 0.0);
    for (&ui, &vi) in u.iter().zip(v) {
        let w = if take(ui, vi, lambda) { r } else { 1.0 };
        f += (ui - lambda * vi) * w;
        d_min += vi * r.min(1.0);
    }
    if d_min <= 0.0 {
        return if maximise { f64::INFINITY } else { 0.0 };
    }
    // A 2× margin absorbs the rounding of F and D_min (both sums of ≤ |X| terms).
    if maximise {
        lambda + 2.0 * f.max(0.0) / d_min
    } else {
        (lambda + 2.0 * f.min(0.0) / d_min).max(0.0)
    }
}

/// The lift l(s, y) of a released bit vector `bits` (receipts); `None` when the bit
/// vector cannot be released at all (P(y) = 0).
///
/// For p, q ∈ (0, 1) this is the ratio of affine functions of the module docs, with the
/// same constant term T = Σ P_X as the audit: a prior that sums to 1 − 1e-9 moves the lift
/// by up to 1e-9/(1 + c) (fuzzer finding F2), so the receipt must use the audit's joint,
/// not a renormalised one. When a
/// flip probability is 0 or 1 some bit patterns are impossible and the likelihood ratios
/// a(b) are infinite, so the likelihoods P(y|x) = Π_j P(y_j | j = x) are computed
/// directly (O(|X|²), only in that degenerate case).
///
/// `prior` is P_X, the column sums of `p_sx` (passed in so that a receipt of |S| rows costs
/// O(|S|·|X|), not O(|S|²·|X|)).
pub fn unary_lift(
    p_sx: &Matrix,
    prior: &[f64],
    q01: Probability,
    q10: Probability,
    s: usize,
    bits: &[bool],
) -> Option<f64> {
    let (p, q) = (1.0 - q10.get(), q01.get());
    let ps: f64 = p_sx.row(s).iter().sum();
    if p > 0.0 && p < 1.0 && q > 0.0 && q < 1.0 {
        // ⟨P(·|s), w⟩ / ⟨P_X, w⟩ (module docs): sums of non-negative terms.
        let r = (p / q) / ((1.0 - p) / (1.0 - q));
        let (mut nu, mut de) = (0.0, 0.0);
        for (x, &b) in bits.iter().enumerate() {
            let w = if b { r } else { 1.0 };
            nu += p_sx.get(s, x) / ps * w;
            de += prior[x] * w;
        }
        return Some(nu / de);
    }
    if p == q {
        // q ∈ {0, 1}: one report only, whatever x; its lift is Σ_x P(x|s) / Σ_x P(x) = 1/T.
        let possible = bits.iter().all(|&b| if b { q > 0.0 } else { q < 1.0 });
        let own: f64 = p_sx.row(s).iter().map(|v| v / ps).sum();
        return possible.then(|| own / prior.iter().sum::<f64>());
    }
    let likelihood = |x: usize| -> f64 {
        bits.iter()
            .enumerate()
            .map(|(j, &b)| {
                let one = if j == x { p } else { q };
                if b {
                    one
                } else {
                    1.0 - one
                }
            })
            .product()
    };
    let (mut nu, mut de) = (0.0, 0.0);
    for (x, &px) in prior.iter().enumerate() {
        if px == 0.0 {
            continue;
        }
        let l = likelihood(x);
        nu += p_sx.get(s, x) / ps * l;
        de += px * l;
    }
    (de > 0.0).then(|| nu / de)
}

/// The lift of every x (S = X) for a released bit vector, in O(|X|): w_x / ⟨P_X, w⟩
/// (module docs) — the rows of [`unary_lift`] with the joint diag(P_X), without building
/// it. Entries of prior 0 are 0. `None` when the bit vector cannot be released.
pub fn unary_lifts_x(prior: &[f64], q01: Probability, q10: Probability, bits: &[bool]) -> Option<Vec<f64>> {
    let (p, q) = (1.0 - q10.get(), q01.get());
    if !(p > 0.0 && p < 1.0 && q > 0.0 && q < 1.0) {
        // Degenerate: the general formula (small |X| in practice: a degenerate encoding
        // leaks without bound and verifies almost no finite claim).
        let diag = Matrix::diag(prior);
        return (0..prior.len())
            .map(|x| if prior[x] > 0.0 { unary_lift(&diag, prior, q01, q10, x, bits) } else { Some(0.0) })
            .collect();
    }
    let r = (p / q) / ((1.0 - p) / (1.0 - q));
    let w = |x: usize| if bits[x] { r } else { 1.0 };
    let de: f64 = prior.iter().enumerate().map(|(x, &px)| px * w(x)).sum();
    Some(prior.iter().enumerate().map(|(x, &px)| if px > 0.0 { w(x) / de } else { 0.0 }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test's flip probability, as a document's reader builds it.
    fn pr(p: f64) -> Probability {
        Probability::new("q", p).unwrap()
    }

    /// S = X read from the prior audits as its diagonal joint does (enumerated or closed form).
    #[test]
    fn the_audit_of_s_equal_x_is_that_of_its_diagonal_joint() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for nx in [UNARY_ENUMERATION_LIMIT + 1, 40] {
            let mut prior: Vec<f64> = (0..nx).map(|_| rng.random_range(0.0..1.0)).collect();
            prior[1] = 0.0;
            let total: f64 = prior.iter().sum();
            prior.iter_mut().for_each(|p| *p /= total);
            let x = audit_unary_x(&prior, pr(0.2), pr(0.3), 2.0).unwrap();
            let diag = audit_unary(&Matrix::diag(&prior), pr(0.2), pr(0.3), 2.0).unwrap();
            assert_eq!(format!("{x:?}"), format!("{diag:?}"), "|X| = {nx}");
        }
    }

    /// The closed forms (Dinkelbach) agree with full enumeration where both exist.
    #[test]
    fn closed_form_matches_enumeration() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for _ in 0..40 {
            let nx = rng.random_range(2..9);
            let ns = rng.random_range(1..4);
            let mut j: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>() + 0.01).collect();
            let t: f64 = j.iter().sum();
            j.iter_mut().for_each(|v| *v /= t);
            let p_sx = Matrix::from_flat(ns, nx, j);
            let (q01, q10) = (rng.random_range(0.05..0.95), rng.random_range(0.05..0.95));
            let exact = audit(&p_sx, &explicit_channel(nx, q01, q10), 2.0).unwrap();
            // Force the closed-form path by calling it on the same instance.
            let fast = closed_form_for_test(&p_sx, q01, q10);
            for (a, b) in [
                (exact.lip, fast.lip),
                (exact.alip.eps_l, fast.alip.eps_l),
                (exact.alip.eps_u, fast.alip.eps_u),
                (exact.ldp, fast.ldp),
                (exact.ldp_x, fast.ldp_x),
                (exact.maximal_leakage, fast.maximal_leakage),
            ] {
                assert!((a - b).abs() < 1e-9, "enumerated {a} vs closed form {b}");
            }
        }
    }

    fn closed_form_for_test(p_sx: &Matrix, q01: f64, q10: f64) -> Leakage {
        // Pad X with zero-prior inputs above the enumeration limit: they change neither
        // the S-side measures nor (being outside the support) the maximal leakage, and
        // LDP w.r.t. X is prior-free.
        let (ns, nx) = (p_sx.rows(), p_sx.cols());
        let big = UNARY_ENUMERATION_LIMIT + 3;
        let mut d = vec![0.0; ns * big];
        for s in 0..ns {
            d[s * big..s * big + nx].copy_from_slice(p_sx.row(s));
        }
        audit_unary(&Matrix::from_flat(ns, big, d), pr(q01), pr(q10), 2.0).unwrap()
    }

    /// Fuzzer finding F2: a prior summing to 1 ± `SUM_TOLERANCE`. The closed form and the
    /// receipt lift use the same joint as the enumerated audit, so every receipt lift lies
    /// within the audited [min_lift, max_lift].
    #[test]
    fn unnormalised_prior_lifts_agree_with_the_audit() {
        let (q01, q10) = (0.5411764705882353, 0.9411764705882353);
        for scale in [1.0 - 9.9e-10, 1.0 + 9.9e-10] {
            let p_sx = Matrix::from_flat(2, 2, vec![0.2 * scale, 0.1 * scale, 0.3 * scale, 0.4 * scale]);
            let exact = audit(&p_sx, &explicit_channel(2, q01, q10), 2.0).unwrap();
            let fast = closed_form_for_test(&p_sx, q01, q10);
            for (a, b) in [(exact.alip.eps_l, fast.alip.eps_l), (exact.alip.eps_u, fast.alip.eps_u)] {
                assert!((a - b).abs() < 1e-12, "scale {scale}: enumerated {a} vs closed form {b}");
            }
            let padded = {
                let big = UNARY_ENUMERATION_LIMIT + 3;
                let mut d = vec![0.0; 2 * big];
                d[..2].copy_from_slice(p_sx.row(0));
                d[big..big + 2].copy_from_slice(p_sx.row(1));
                Matrix::from_flat(2, big, d)
            };
            for y in 0..4usize {
                let bits = [y & 1 == 1, y & 2 == 2];
                let mut long = vec![false; padded.cols()];
                long[..2].copy_from_slice(&bits);
                for s in 0..2 {
                    let l = unary_lift(&p_sx, &p_sx.col_sums(), pr(q01), pr(q10), s, &bits).unwrap();
                    assert!(exact.min_lift <= l && l <= exact.max_lift, "scale {scale} s {s} {bits:?}: {l} {exact:?}");
                    let l = unary_lift(&padded, &padded.col_sums(), pr(q01), pr(q10), s, &long).unwrap();
                    assert!(fast.min_lift <= l && l <= fast.max_lift, "scale {scale} s {s} {bits:?}: {l} {fast:?}");
                }
            }
        }
    }

    /// The O(|X|) rows of S = X agree with the general formula on diag(P_X).
    #[test]
    fn lifts_of_x_agree_with_the_general_formula() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for _ in 0..200 {
            let n = rng.random_range(1..12);
            let mut p: Vec<f64> =
                (0..n).map(|_| if rng.random_bool(0.2) { 0.0 } else { rng.random::<f64>() }).collect();
            let t: f64 = p.iter().sum();
            if t == 0.0 {
                continue;
            }
            p.iter_mut().for_each(|v| *v /= t);
            let (q01, q10) = (rng.random_range(0.01..0.99), rng.random_range(0.01..0.99));
            let bits: Vec<bool> = (0..n).map(|_| rng.random()).collect();
            let fast = unary_lifts_x(&p, pr(q01), pr(q10), &bits).unwrap();
            let diag = Matrix::diag(&p);
            for x in (0..n).filter(|&x| p[x] > 0.0) {
                let slow = unary_lift(&diag, &p, pr(q01), pr(q10), x, &bits).unwrap();
                assert!((fast[x] - slow).abs() <= 1e-14 * slow, "{x}: {} vs {slow}", fast[x]);
            }
        }
    }

    #[test]
    fn oue_ldp_is_epsilon() {
        let eps: f64 = 1.3;
        let q01 = 1.0 / (libm::exp(eps) + 1.0);
        let l = closed_form_for_test(&Matrix::diag(&[0.25, 0.25, 0.5]), q01, 0.5);
        assert!((l.ldp_x - eps).abs() < 1e-12 && l.ldp_x >= eps);
        assert!(l.lip <= l.ldp_x);
    }
}
