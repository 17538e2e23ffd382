//! Composition (the paper's §III-B): n independent releases of the same X (Thm 4,
//! Cor 4), sequential releases of correlated data (Cor 5, eq 11), and the exact leakage
//! of the joint release, computed with [`crate::audit`] where affordable.
//!
//! All three printed bounds hold. Each follows the same route: every release's LIP bounds
//! its LDP (Prop 1, or Thm 2 for BP-LIP), LDP adds up over independent releases (the
//! joint likelihood ratio is the product of the per-release ones), and the summed LDP
//! bounds the joint LIP (Thm 1's converse, with the Pmin of the prior of what is
//! released). None is exact in general: the last step is tight only for a column that
//! is small on the least likely input and large everywhere else, and the worst columns
//! of Prop 1 are the opposite shape; `tests/accounting.rs` reports the gap.

use alloc::vec;
use alloc::vec::Vec;

use super::relations::{family_pmins, ldp_to_lip_unchecked, lip_to_ldp_unchecked};
use super::round::{add_up, div_up, mul_up, sub_down};
use super::{check_prior, check_releases, positive_pmin};
use crate::document::{Matrix, MAX_SYMBOLS};
use crate::error::{Error, Result};
use crate::leakage::{audit, Alip, DEFAULT_ALPHA_ORDER};
use crate::numeric::{gamma, next_up};
use crate::param::{Budget, Probability};

/// Largest number of joint outputs Π_k |Y_k| [`compose_exact`] and [`sequential_exact`]
/// compute.
pub const COMPOSE_EXACT_MAX_OUTPUTS: usize = 100_000;
/// Largest number of entries (inputs × joint outputs, and inputs², for the diagonal
/// joint the audit reads) of an exact composition.
pub const COMPOSE_EXACT_MAX_ENTRIES: usize = 1 << 24;

/// The exact leakage of a joint release (rounded up, including the rounding of the
/// products that form the joint channel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLeakage {
    /// L_LIP(X; Y_1..Y_n) (the paper's §III-B display before Thm 4), nats.
    pub lip: f64,
    /// The two sides of the LIP (εl for the min-lift, εu for the max-lift).
    pub alip: Alip,
    /// LDP of the joint channel w.r.t. X, nats.
    pub ldp_x: f64,
    /// Number of joint outputs Π_k |Y_k|.
    pub outputs: usize,
}

/// Σ_k ω_k with ω_k = Prop 1 at (ε_k, pmin), rounded up.
fn sum_prop1(eps: &[Budget], pmin: f64) -> f64 {
    eps.iter().fold(0.0, |s, e| add_up(s, lip_to_ldp_unchecked(e.get(), pmin)))
}

/// **Thm 4**: n independent releases of the same X, the k-th ε_k-LIP under the prior,
/// are jointly `ln(Pmin + exp(Σ_k min{2ε_k, ln((e^{ε_k} − 1 + Pmin)/Pmin)})(1 − Pmin))`-LIP.
///
/// # Privacy
/// Holds (module docs). The inputs that cannot occur play no part on either side, so
/// `pmin` may be the smallest positive prior probability ([`super::support_pmin`]), not
/// only the whole-alphabet minimum. Not exact; compare with [`compose_exact`].
///
/// # Errors
/// `invalid_argument` for an empty `eps` or a `pmin` of 0.
///
/// # Example
/// ```
/// use privlift::accounting::compose_lip;
/// use privlift::param::{Budget, Probability};
/// // Two 1-LIP releases under a uniform prior on four values.
/// let one = Budget::new("eps", 1.0)?;
/// let b = compose_lip(&[one, one], Probability::new("pmin", 0.25)?)?;
/// assert!(b > 1.0 && b < 4.0);
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn compose_lip(eps: &[Budget], pmin: Probability) -> Result<f64> {
    check_releases("eps_k", eps)?;
    let pmin = positive_pmin("pmin", pmin)?;
    Ok(ldp_to_lip_unchecked(sum_prop1(eps, pmin), pmin))
}

/// Basic composition of LDP: n independent releases, the k-th ε_k-LDP, are jointly
/// (Σ_k ε_k)-LDP (the likelihood ratio of the joint output is the product of the
/// per-release ratios). Exact for the worst case (identical k-RR releases attain it).
/// The sum is rounded up.
///
/// # Errors
/// `invalid_argument` for an empty `eps`.
pub fn compose_ldp(eps: &[Budget]) -> Result<f64> {
    check_releases("eps_k", eps)?;
    Ok(eps.iter().fold(0.0, |acc, &e| add_up(acc, e.get())))
}

/// **Cor 4**: n independent releases, the k-th ε_k-BP-LIP for the family `priors`, are
/// jointly `ln(min P^bp_min + exp(Σ_k ω_k)(1 − min P^bp_min))`-BP-LIP with
/// `ω_k = min{2ε_k, ln((e^{ε_k} − 1 + max P^bp_min)/max P^bp_min)}`.
///
/// # Privacy
/// Holds when some prior of the family has full support (ω_k is then an LDP bound by
/// Thm 2, see [`super::bp_lip_to_ldp`]); otherwise Thm 2 gives no LDP bound and this
/// returns the prior-free `+∞`. Not exact.
///
/// # Errors
/// `invalid_argument` for an empty `eps` or family; `dimension_mismatch` and the
/// distribution errors for the priors.
pub fn compose_bp_lip<P: AsRef<[f64]>>(eps: &[Budget], priors: &[P]) -> Result<f64> {
    check_releases("eps_k", eps)?;
    let (min_pmin, max_pmin) = family_pmins(priors)?;
    if min_pmin == 1.0 {
        return Ok(0.0); // every prior is a point mass
    }
    if max_pmin == 0.0 {
        return Ok(f64::INFINITY);
    }
    Ok(ldp_to_lip_unchecked(sum_prop1(eps, max_pmin), min_pmin))
}

/// **Cor 5, eq 11**: releasing X_1, …, X_n (correlated, joint P_{X_1^n}) through
/// independent mechanisms, the k-th ε_k-LIP under the marginal of X_k, leaks at most
/// `ln(P^min + exp(Σ_k min{2ε_k, ln((e^{ε_k} − 1 + P^k_min)/P^k_min)})(1 − P^min))`
/// about the whole sequence.
///
/// # Privacy
/// Holds: the k-th mechanism's LDP over the support of X_k is at most ω_k (Prop 1), the
/// product channel's LDP over sequences in the support is at most Σ ω_k (a ratio of
/// products), and Thm 1's converse applies to the joint prior. `marginal_pmins[k]` may
/// be the smallest positive marginal probability of X_k and `joint_pmin` the smallest
/// positive joint probability (0 is accepted and gives Σ ω_k). Not exact; compare with
/// [`sequential_exact`].
///
/// # Errors
/// `invalid_argument` for an empty `eps`, a marginal Pmin of 0, or lists of different
/// lengths.
pub fn sequential_lip(eps: &[Budget], marginal_pmins: &[Probability], joint_pmin: Probability) -> Result<f64> {
    check_releases("eps_k", eps)?;
    if marginal_pmins.len() != eps.len() {
        return Err(Error::invalid(
            "marginal_pmins",
            alloc::format!("has {} entries for {} releases", marginal_pmins.len(), eps.len()),
        ));
    }
    let mut s = 0.0;
    for (k, (&e, &p)) in eps.iter().zip(marginal_pmins).enumerate() {
        let p = positive_pmin(&alloc::format!("marginal_pmins[{k}]"), p)?;
        s = add_up(s, lip_to_ldp_unchecked(e.get(), p));
    }
    Ok(ldp_to_lip_unchecked(s, joint_pmin.get()))
}

fn check_channels(channels: &[Matrix]) -> Result<()> {
    if channels.is_empty() {
        return Err(Error::invalid("channels", "need at least one channel"));
    }
    for (k, c) in channels.iter().enumerate() {
        if c.rows() == 0 || c.cols() == 0 {
            return Err(Error::EmptyAlphabet { field: alloc::format!("channels[{k}]") });
        }
    }
    Ok(())
}

/// Π of `sizes`, or an `invalid_argument` naming `what` if it exceeds `max`.
fn product_size(sizes: impl Iterator<Item = usize>, max: usize, what: &str) -> Result<usize> {
    let mut n = 1usize;
    for s in sizes {
        n = n.checked_mul(s).filter(|&v| v <= max).ok_or_else(|| {
            Error::invalid(
                "channels",
                alloc::format!("{what} exceeds {max}: the exact composition is not affordable (use the bound)"),
            )
        })?;
    }
    Ok(n)
}

/// Multiplies `acc` (a row over the first k outputs) by `row`, into `out`. Returns false
/// if a product of positive factors falls below the normal range (underflow).
fn kron_row(acc: &[f64], row: &[f64], out: &mut Vec<f64>) -> bool {
    out.clear();
    let mut ok = true;
    for &a in acc {
        for &w in row {
            let v = a * w;
            ok &= !(a > 0.0 && w > 0.0 && v < f64::MIN_POSITIVE);
            out.push(v);
        }
    }
    ok
}

fn underflow() -> Error {
    Error::invalid(
        "channels",
        "a joint probability underflows f64 (below 2.2e-308); the exact composition is not computable",
    )
}

/// The channel of n independent releases of the same X: rows x, columns the tuples
/// (y_1, …, y_n) in lexicographic order (y_1 slowest), entries Π_k P_k(y_k|x) (the
/// row-wise Kronecker product).
///
/// # Errors
/// `invalid_argument` for no channel, more than [`COMPOSE_EXACT_MAX_OUTPUTS`] joint
/// outputs or [`COMPOSE_EXACT_MAX_ENTRIES`] entries, or an entry that underflows;
/// `dimension_mismatch` if the channels differ in their number of rows; `empty_alphabet`
/// for a channel without rows or columns.
pub fn joint_channel(channels: &[Matrix]) -> Result<Matrix> {
    check_channels(channels)?;
    let nx = channels[0].rows();
    for (k, c) in channels.iter().enumerate() {
        if c.rows() != nx {
            return Err(Error::DimensionMismatch {
                field: alloc::format!("channels[{k}]"),
                expected: nx,
                found: c.rows(),
            });
        }
    }
    let ny = product_size(channels.iter().map(Matrix::cols), COMPOSE_EXACT_MAX_OUTPUTS, "Π|Y_k|")?;
    product_size([nx, ny].into_iter(), COMPOSE_EXACT_MAX_ENTRIES, "|X|·Π|Y_k|")?;
    let mut data = Vec::with_capacity(nx * ny);
    let (mut acc, mut next) = (Vec::with_capacity(ny), Vec::with_capacity(ny));
    for x in 0..nx {
        acc.clear();
        acc.push(1.0);
        for c in channels {
            if !kron_row(&acc, c.row(x), &mut next) {
                return Err(underflow());
            }
            core::mem::swap(&mut acc, &mut next);
        }
        data.extend_from_slice(&acc);
    }
    Ok(Matrix::from_flat(nx, ny, data))
}

/// The channel of sequential releases of X_1, …, X_n through independent mechanisms
/// (Cor 5): rows the tuples (x_1, …, x_n), columns the tuples (y_1, …, y_n), both in
/// lexicographic order, entries Π_k P_k(y_k|x_k) (the Kronecker product).
///
/// # Errors
/// As [`joint_channel`], and `invalid_argument` for more than 4096 joint inputs (no
/// equal number of rows is needed).
pub fn product_channel(channels: &[Matrix]) -> Result<Matrix> {
    check_channels(channels)?;
    let nx = product_size(channels.iter().map(Matrix::rows), MAX_SYMBOLS, "Π|X_k|")?;
    let ny = product_size(channels.iter().map(Matrix::cols), COMPOSE_EXACT_MAX_OUTPUTS, "Π|Y_k|")?;
    product_size([nx, ny].into_iter(), COMPOSE_EXACT_MAX_ENTRIES, "Π|X_k|·Π|Y_k|")?;
    let mut data = Vec::with_capacity(nx * ny);
    let (mut acc, mut next) = (Vec::with_capacity(ny), Vec::with_capacity(ny));
    let mut idx = vec![0usize; channels.len()];
    for _ in 0..nx {
        acc.clear();
        acc.push(1.0);
        for (c, &x) in channels.iter().zip(&idx) {
            if !kron_row(&acc, c.row(x), &mut next) {
                return Err(underflow());
            }
            core::mem::swap(&mut acc, &mut next);
        }
        data.extend_from_slice(&acc);
        // Odometer over (x_1, …, x_n), last index fastest.
        for k in (0..channels.len()).rev() {
            idx[k] += 1;
            if idx[k] < channels[k].rows() {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(Matrix::from_flat(nx, ny, data))
}

/// Audits `channel` (built from products of `factors` entries each) under `prior` and
/// widens the logarithmic measures by the products' rounding: each entry carries a
/// relative error ≤ γ = γ_{factors−1}, which moves any ratio of two entries, or of an
/// entry to a prior-weighted sum of entries, by a factor ≤ (1 + γ)/(1 − γ), so
/// ln((1 + γ)/(1 − γ)) ≤ 2γ/(1 − γ) is added.
fn audit_joint(prior: &[f64], channel: &Matrix, factors: usize) -> Result<JointLeakage> {
    if prior.len() > MAX_SYMBOLS {
        return Err(Error::invalid("prior", alloc::format!("more than {MAX_SYMBOLS} joint inputs")));
    }
    let l = audit(&Matrix::diag(prior), channel, DEFAULT_ALPHA_ORDER)?;
    let slack = if factors <= 1 {
        0.0
    } else {
        let g = gamma(factors - 1);
        div_up(mul_up(2.0, g), sub_down(1.0, g))
    };
    let widen = |x: f64| if slack == 0.0 || !x.is_finite() { x } else { next_up(add_up(x, slack)) };
    Ok(JointLeakage {
        lip: widen(l.lip),
        alip: Alip { eps_l: widen(l.alip.eps_l), eps_u: widen(l.alip.eps_u) },
        ldp_x: widen(l.ldp_x),
        outputs: channel.cols(),
    })
}

/// **Exact composition**: the leakage of n independent releases of the same X through
/// `channels` under `prior`, i.e. [`crate::audit`] of [`joint_channel`] with the diagonal
/// joint (the posterior after all n outputs). Compare with [`compose_lip`] (Thm 4).
///
/// # Privacy
/// The exact L_LIP(X; Y_1^n) of the paper's §III-B, rounded up as the audit rounds, plus
/// the rounding of the joint channel's products.
///
/// # Errors
/// As [`joint_channel`] (in particular `invalid_argument` when Π|Y_k| exceeds
/// [`COMPOSE_EXACT_MAX_OUTPUTS`]); the distribution errors for `prior`;
/// `dimension_mismatch` if `prior` and the channels' rows differ in number.
pub fn compose_exact(prior: &[f64], channels: &[Matrix]) -> Result<JointLeakage> {
    check_prior("prior", prior)?;
    if let Some(c) = channels.iter().find(|c| c.rows() != prior.len()) {
        return Err(Error::DimensionMismatch { field: "channels".into(), expected: prior.len(), found: c.rows() });
    }
    let joint = joint_channel(channels)?;
    audit_joint(prior, &joint, channels.len())
}

/// **Exact sequential composition**: the leakage of X_1, …, X_n released through
/// `channels` (the k-th takes X_k), under the joint prior `joint` of the sequence
/// (row-major over (x_1, …, x_n), x_1 slowest), i.e. [`crate::audit`] of
/// [`product_channel`] with the diagonal joint. Compare with [`sequential_lip`] (Cor 5).
///
/// # Errors
/// As [`product_channel`]; the distribution errors for `joint`; `dimension_mismatch` if
/// its length is not Π_k |X_k|.
pub fn sequential_exact(joint: &[f64], channels: &[Matrix]) -> Result<JointLeakage> {
    check_prior("joint", joint)?;
    let channel = product_channel(channels)?;
    if channel.rows() != joint.len() {
        return Err(Error::DimensionMismatch { field: "joint".into(), expected: channel.rows(), found: joint.len() });
    }
    audit_joint(joint, &channel, channels.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounting::shims::{compose_lip, sequential_lip};

    fn rr(p: f64) -> Matrix {
        Matrix::from_flat(2, 2, vec![p, 1.0 - p, 1.0 - p, p])
    }

    #[test]
    fn joint_channel_is_row_wise_kronecker() {
        let j = joint_channel(&[rr(0.75), rr(0.5)]).unwrap();
        assert_eq!((j.rows(), j.cols()), (2, 4));
        assert_eq!(j.row(0), &[0.375, 0.375, 0.125, 0.125]);
        let p = product_channel(&[rr(0.75), rr(0.5)]).unwrap();
        assert_eq!((p.rows(), p.cols()), (4, 4));
        assert_eq!(p.row(1), &[0.375, 0.375, 0.125, 0.125]);
        assert_eq!(p.row(2), &[0.125, 0.125, 0.375, 0.375]);
    }

    #[test]
    fn two_rr_releases_by_hand() {
        // Uniform binary prior, RR(3/4) twice: the worst output (0,0) has lift
        // (9/16)/(10/32) = 1.8 for x = 0 and (1/16)/(10/32) = 0.2 for x = 1.
        let l = compose_exact(&[0.5, 0.5], &[rr(0.75), rr(0.75)]).unwrap();
        assert!((l.lip - 5.0f64.ln()).abs() < 1e-12 && l.lip >= 5.0f64.ln());
        assert!((l.ldp_x - 9.0f64.ln()).abs() < 1e-12);
        // Each release is ln 2-LIP (lifts 1.5 and 0.5); Thm 4 gives ln(0.5 + 9·0.5) = ln 5:
        // exact here.
        let b = compose_lip(&[2.0f64.ln(), 2.0f64.ln()], 0.5).unwrap();
        assert!(l.lip <= b + 1e-14 && (b - 5.0f64.ln()).abs() < 1e-14, "{} {b}", l.lip);
    }

    #[test]
    fn too_large_compositions_are_refused() {
        let big = Matrix::from_flat(2, 400, vec![1.0 / 400.0; 800]);
        let e = compose_exact(&[0.5, 0.5], &[big.clone(), big]).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        assert!(e.to_string().contains("100000"), "{e}");
        assert_eq!(compose_exact(&[0.5, 0.5], &[]).unwrap_err().code(), "invalid_argument");
        assert_eq!(compose_exact(&[1.0], &[rr(0.5)]).unwrap_err().code(), "dimension_mismatch");
    }

    #[test]
    fn underflow_is_refused() {
        let tiny = Matrix::from_flat(2, 2, vec![1e-200, 1.0 - 1e-200, 0.5, 0.5]);
        assert_eq!(joint_channel(&[tiny.clone(), tiny]).unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn bounds_check_their_arguments() {
        assert_eq!(compose_lip(&[], 0.5).unwrap_err().code(), "invalid_argument");
        assert_eq!(compose_lip(&[1.0, -1.0], 0.5).unwrap_err().code(), "invalid_argument");
        assert_eq!(compose_lip(&[1.0], 0.0).unwrap_err().code(), "invalid_argument");
        assert_eq!(sequential_lip(&[1.0], &[0.5, 0.5], 0.25).unwrap_err().code(), "invalid_argument");
        assert_eq!(sequential_lip(&[1.0], &[0.5], 1.5).unwrap_err().code(), "invalid_argument");
        assert_eq!(compose_lip(&[f64::INFINITY], 0.5).unwrap(), f64::INFINITY);
    }
}
