//! Side-channel resistant LIP (SRLIP, Lopuhaä-Zwakenberg, "The Privacy Funnel from the
//! Viewpoint of Local Differential Privacy", Def 3): the exact audit.
//!
//! X = (X¹, …, Xᵐ) has a product alphabet, flattened row-major (attribute 1 most
//! significant): x = ((x¹·a₂ + x²)·a₃ + x³)… with aⱼ = |Xʲ|. A channel P(Y|X) is
//! ε-SRLIP w.r.t. S when for every subset J ⊆ {1,…,m} of attributes an attacker may know,
//! every x^J with P(x^J) > 0, every s with P(s, x^J) > 0 and every y with P(y|x^J) > 0
//! (eq 12)
//!
//! ```text
//!   e^{−ε} ≤ P(y | s, x^J) / P(y | x^J) ≤ e^{ε},
//! ```
//!
//! i.e. ε-LIP w.r.t. the conditioned joint p_{S,X|x^J}; J = ∅ is plain LIP (Lemma 2).
//! [`audit_srlip`] computes the smallest such ε over all 2ᵐ subsets and all x^J, rounded
//! up like every other upper bound of the audit ([`crate::numeric`]).
//!
//! For a Markov channel the ratio is the lift of (s, y) under the block of P_SX whose
//! columns agree with x^J:
//! `P(y|s,x^J)/P(y|x^J) = P(s,y,x^J)·P(x^J) / (P(s,x^J)·P(y,x^J))` with
//! `P(s,y,x^J) = Σ_{x ⊇ x^J} P(s,x) P(y|x)`.

use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

use crate::document::Matrix;
pub use crate::document::{check_attributes, MAX_SRLIP_ATTRIBUTES};
use crate::error::{Error, Result};
use crate::numeric::{abs_ln_up, gamma, ln_up};

/// Largest 2ᵐ·|S|·|X|·|Y| (multiply-adds) of one SRLIP audit: a few seconds at most,
/// also in a browser.
pub const MAX_SRLIP_WORK: usize = 1 << 30;

/// The audited SRLIP leakage of a channel, and where it is reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Srlip {
    /// max over J, x^J, s, y of |ln P(y|s,x^J)/P(y|x^J)|, rounded up (∞ when some
    /// possible output is impossible for one secret).
    pub eps: f64,
    /// The worst subset J (0-based attribute indices, ascending).
    pub worst_subset: Vec<usize>,
    /// The worst x^J: one value index per attribute of `worst_subset`.
    pub worst_values: Vec<usize>,
    /// The worst leakage for each subset J, indexed by the bit mask of J
    /// (bit j set ⇔ attribute j ∈ J); `by_subset[0]` is the LIP w.r.t. S.
    pub by_subset: Vec<f64>,
}

/// Exact SRLIP leakage (Def 3, eq 12) of the channel `p_y_given_x` (rows x over the
/// flattened product alphabet) w.r.t. the secret of `p_sx` (rows s), for attributes of
/// sizes `attributes` (their product is |X|).
///
/// # Privacy
/// The reported `eps` is never below the exact value: each ratio is computed from sums of
/// non-negative terms whose rounding is bounded by γ_n (Higham Lemma 3.1, 3.3) and
/// widened as in [`crate::leakage::from_joint`]. A possible output that is impossible
/// for one secret given x^J gives ∞.
///
/// # Errors
/// `dimension_mismatch` if the sizes disagree; `invalid_argument` for a bad attribute
/// list; `too_costly` for an audit larger than [`MAX_SRLIP_WORK`].
pub fn audit_srlip(p_sx: &Matrix, p_y_given_x: &Matrix, attributes: &[usize]) -> Result<Srlip> {
    let (ns, nx, ny) = (p_sx.rows(), p_sx.cols(), p_y_given_x.cols());
    if p_y_given_x.rows() != nx {
        return Err(Error::field("p_y_given_x").dims(nx, p_y_given_x.rows()));
    }
    check_attributes("attributes", attributes, nx)?;
    let m = attributes.len();
    let work = (1usize << m).saturating_mul(ns).saturating_mul(nx).saturating_mul(ny);
    if work > MAX_SRLIP_WORK {
        return Err(Error::too_costly(
            alloc::format!("an SRLIP audit of 2^{m} subsets × |S| = {ns} × |X| = {nx} × |Y| = {ny}"),
            work as f64,
            MAX_SRLIP_WORK as f64,
        ));
    }
    // strides[j]: weight of attribute j in the flattened index.
    let mut strides = vec![1usize; m];
    for j in (0..m.saturating_sub(1)).rev() {
        strides[j] = strides[j + 1] * attributes[j + 1];
    }
    let digit = |x: usize, j: usize| (x / strides[j]) % attributes[j];

    let mut by_subset = vec![0.0f64; 1 << m];
    let mut worst = (0.0f64, 0usize, 0usize); // (eps, mask, key)
    let mut block = Block::new(ns, ny);
    for (mask, subset_worst) in by_subset.iter_mut().enumerate() {
        let in_j: Vec<usize> = (0..m).filter(|&j| mask & (1 << j) != 0).collect();
        let keys: usize = in_j.iter().map(|&j| attributes[j]).product();
        // Group the inputs by their x^J (mixed radix over J, first attribute most significant).
        let mut groups: Vec<Vec<usize>> = vec![Vec::with_capacity(nx / keys); keys];
        for x in 0..nx {
            let key = in_j.iter().fold(0usize, |k, &j| k * attributes[j] + digit(x, j));
            groups[key].push(x);
        }
        for (key, group) in groups.iter().enumerate() {
            let e = block.leakage(p_sx, p_y_given_x, group);
            if e > *subset_worst {
                *subset_worst = e;
            }
            if e > worst.0 {
                worst = (e, mask, key);
            }
        }
    }
    let (eps, mask, mut key) = worst;
    let worst_subset: Vec<usize> = (0..m).filter(|&j| mask & (1 << j) != 0).collect();
    let mut worst_values = vec![0usize; worst_subset.len()];
    for (i, &j) in worst_subset.iter().enumerate().rev() {
        worst_values[i] = key % attributes[j];
        key /= attributes[j];
    }
    Ok(Srlip { eps, worst_subset, worst_values, by_subset })
}

/// Scratch space for one block x^J: P(s,y,x^J), P(s,x^J), P(y,x^J) and supports.
struct Block {
    ns: usize,
    ny: usize,
    p_sy: Vec<f64>,
    p_s: Vec<f64>,
    p_y: Vec<f64>,
    support: Vec<bool>,
}

impl Block {
    fn new(ns: usize, ny: usize) -> Self {
        Block { ns, ny, p_sy: vec![0.0; ns * ny], p_s: vec![0.0; ns], p_y: vec![0.0; ny], support: vec![false; ny] }
    }

    /// LIP of the channel w.r.t. the joint restricted to the columns `group` (one x^J),
    /// rounded up; 0 when P(x^J) = 0.
    fn leakage(&mut self, p_sx: &Matrix, w: &Matrix, group: &[usize]) -> f64 {
        let (ns, ny) = (self.ns, self.ny);
        self.p_sy.iter_mut().for_each(|v| *v = 0.0);
        self.p_s.iter_mut().for_each(|v| *v = 0.0);
        self.p_y.iter_mut().for_each(|v| *v = 0.0);
        self.support.iter_mut().for_each(|v| *v = false);
        for s in 0..ns {
            let out = &mut self.p_sy[s * ny..(s + 1) * ny];
            for &x in group {
                let psx = p_sx.get(s, x);
                if psx == 0.0 {
                    continue;
                }
                self.p_s[s] += psx;
                for ((o, sp), &wv) in out.iter_mut().zip(self.support.iter_mut()).zip(w.row(x)) {
                    *o += psx * wv;
                    *sp |= wv > 0.0;
                }
            }
        }
        let p_block: f64 = self.p_s.iter().sum();
        if p_block <= 0.0 {
            return 0.0; // x^J never occurs: nothing to protect
        }
        for s in 0..ns {
            for (py, v) in self.p_y.iter_mut().zip(&self.p_sy[s * ny..(s + 1) * ny]) {
                *py += v;
            }
        }
        // g = |group| inputs. P(s,y,x^J): ≤ g products summed, +1 for the conversion of an
        // integer-quantised channel entry (g + 2); P(y,x^J): + ns; P(s,x^J): g;
        // P(x^J): g + ns. Numerator P(s,y,x^J)·P(x^J) and denominator P(s,x^J)·P(y,x^J)
        // each carry ≤ 2g + ns + 3 roundings, the division one more (Higham Lemma 3.3).
        let g = group.len();
        let rel = gamma(4 * g + 2 * ns + 8);
        let (mut min_l, mut max_l) = (f64::INFINITY, 0.0f64);
        for y in 0..ny {
            if !self.support[y] {
                continue;
            }
            for s in 0..ns {
                if self.p_s[s] <= 0.0 {
                    continue;
                }
                let den = self.p_s[s] * self.p_y[y];
                let l = if den > 0.0 { self.p_sy[s * ny + y] * p_block / den } else { 0.0 };
                min_l = min_l.min(l);
                max_l = max_l.max(l);
            }
        }
        if min_l == f64::INFINITY {
            return 0.0;
        }
        let up = ln_up(max_l, rel).max(0.0);
        let down = abs_ln_up(min_l.min(1.0), rel);
        up.max(down)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_upper(actual: f64, exact: f64) {
        assert!(actual >= exact, "upper bound {actual} is below the exact value {exact}");
        assert!(actual - exact <= 1e-12 * exact.abs().max(1.0), "{actual} vs exact {exact}");
    }

    /// One attribute: SRLIP is LIP (J = ∅) and 0 for J = {1} (Y depends on X only).
    #[test]
    fn one_attribute_is_lip() {
        let p_sx = Matrix::diag(&[0.8, 0.2]);
        let w = Matrix::from_flat(2, 2, vec![0.9, 0.1, 0.1, 0.9]);
        let r = audit_srlip(&p_sx, &w, &[2]).unwrap();
        let lip = crate::leakage::audit(&p_sx, &w, 2.0).unwrap().lip;
        assert!((r.by_subset[0] - lip).abs() < 1e-12, "{} vs LIP {lip}", r.by_subset[0]);
        assert!(r.by_subset[1] < 1e-14, "{:?}", r.by_subset);
        assert_upper(r.eps, libm::log(37.0 / 5.0));
        assert_eq!((r.worst_subset.as_slice(), r.worst_values.as_slice()), (&[][..], &[][..]));
    }

    /// S = X¹ ⊕ X² with X¹, X² uniform; Y = X¹. Alone X¹ says nothing about S (J = ∅
    /// and J = {1} give 0), but given X² = x² it reveals S: ∞ for J = {2}.
    #[test]
    fn side_channel_by_hand() {
        // columns x = (x¹, x²): 00, 01, 10, 11; S = x¹ ⊕ x².
        let p_sx = Matrix::from_flat(2, 4, vec![0.25, 0.0, 0.0, 0.25, 0.0, 0.25, 0.25, 0.0]);
        let w = Matrix::from_flat(4, 2, vec![1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0]);
        let r = audit_srlip(&p_sx, &w, &[2, 2]).unwrap();
        assert!(r.by_subset[0] < 1e-14 && r.by_subset[0b01] < 1e-14, "{:?}", r.by_subset);
        assert_eq!(r.by_subset[0b10], f64::INFINITY);
        assert_eq!(r.eps, f64::INFINITY);
        assert_eq!(r.worst_subset, vec![1]);
        assert_eq!(r.worst_values, vec![0]);
        // Noisy release of X¹ (keep w.p. 0.75): given x², the lift is 2·0.75 = 1.5 or 0.5.
        let w = Matrix::from_flat(4, 2, vec![0.75, 0.25, 0.75, 0.25, 0.25, 0.75, 0.25, 0.75]);
        let r = audit_srlip(&p_sx, &w, &[2, 2]).unwrap();
        assert_upper(r.by_subset[0b10], libm::log(2.0));
        assert_upper(r.eps, libm::log(2.0));
    }

    #[test]
    fn bad_attributes_are_typed_errors() {
        let p_sx = Matrix::diag(&[0.5, 0.5]);
        let w = Matrix::from_flat(2, 1, vec![1.0, 1.0]);
        assert_eq!(audit_srlip(&p_sx, &w, &[3]).unwrap_err().code(), "dimension_mismatch");
        assert_eq!(audit_srlip(&p_sx, &w, &[]).unwrap_err().code(), "invalid_argument");
        assert_eq!(audit_srlip(&p_sx, &w, &[2, 0]).unwrap_err().code(), "empty_alphabet");
        assert_eq!(audit_srlip(&p_sx, &w, &[usize::MAX, 3]).unwrap_err().code(), "dimension_mismatch");
        let wide = Matrix::from_flat(3, 1, vec![1.0; 3]);
        assert_eq!(audit_srlip(&p_sx, &wide, &[2]).unwrap_err().code(), "dimension_mismatch");
    }
}
