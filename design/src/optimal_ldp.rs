//! Optimal ε-LDP w.r.t. a secret S (Lopuhaä-Zwakenberg, privacy funnel, Thm 1,
//! eqs 3–5): the channel P(Y|X) maximising I(X;Y) subject to
//! P(y|s) ≤ e^ε P(y|s') for all y, s, s' (eq 5).
//!
//! # Why the columns, not Γ
//! Thm 1 enumerates the vertices of Γ, the polytope of whole matrices Q ∈ R^{a×a}
//! satisfying (3)–(5) — a(a−1)-dimensional, which is why the paper needed 133 s in Matlab
//! for a = |X| = 5, |S| = 2. But (5) constrains each output y on its own, and it is
//! positively homogeneous in the row θ_y = Q_{y|·}: it defines a cone, and I(X;Y) is a
//! sum over y of a positively homogeneous (sublinear) function of θ_y — Kairouz, Oh,
//! Viswanath's argument, the reference \[10\] Thm 1 builds on. Normalise θ_y by
//! P(y) = Σ_x P(x) θ_y(x): the cross-section is the posterior column
//! v_y = P_{X|Y}(·|y), exactly as for LIP (eq 11). In it, the lift of s is
//! l_s(v) = Σ_x P(s|x) v_x / P(s) and P(y|s) = P(y) l_s(v), so (5) reads
//!
//! ```text
//!   Γ' = { v ≥ 0, Σ_x v_x = 1,  l_s(v) ≤ e^ε l_{s'}(v) for all s, s' },
//! ```
//!
//! an (|X| − 1)-dimensional polytope. Every ε-LDP channel is a mixture Σ_y q_y v_y = P_X
//! of points of Γ', I(X;Y) = H(X) − Σ_y q_y H(v_y) with H concave, so the LP over the
//! vertices of Γ' is exact (the argument of Thm 2), has a basic solution with ≤ |X|
//! outputs (Thm 1.1), and is solved by the LP of ORR
//! (`orr::response_over_vertices`).
//!
//! # The vertices: supports × active secrets
//! Γ' is the projection onto v of the lifted polytope
//! `P' = { (v, t): v ≥ 0, Σ v = 1, t ≤ l_s(v) ≤ e^ε t for every s }`, and every vertex
//! of a projection is the image of a vertex of P' (the preimage of a vertex is a face of
//! P', which has a vertex). At a vertex of P' with support K (|K| = k), k secrets T are
//! active, each at its lower (l_s = t) or upper (l_s = e^ε t) side, and with Σ v = 1
//! they determine (v_K, t): a (k+1) × (k+1) system. Its rows lie in
//! span{(P(s|·)|_K, 0)} + span{(0, 1)} (Σ_s P(s) l_s = 1 puts 1ᵀ in the first), of
//! dimension ≤ |S| + 1, so **k ≤ |S|** as for the lift polytope
//! ([`super::vertex`]). The enumeration solves Σ_{k ≤ |S|} C(|X|,k) C(|S|,k) 2^k small
//! systems, keeps the solutions with v_K > 0 that meet every other secret, and
//! post-checks each projected point against Γ'. Points of Γ' that are not vertices
//! (projections of non-extreme vertices of P') may be kept: they are feasible columns,
//! so the LP stays exact. For |X| = 5, |S| = 2 that is 60 solves (the paper's 133 s is
//! about a millisecond here); for |X| = 17, |S| = 5 about 450,000.

// `!(a >= b)` is deliberate: it also rejects NaN. Index loops mirror the maths.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

use alloc::vec;
use alloc::vec::Vec;

use super::lift::{below_design_margin, design_budget, JointView};
use super::orr::{assemble, response_over_vertices};
use super::publication::{compact, publish_channel, with_extra, Audited, Draft};
use super::utility::released_utility;
use super::vertex::{binomial, coordinate_scale, next_combination, posterior, MAX_CANDIDATES, MAX_VERTICES, TOLERANCE};
use super::Source;
use crate::tolerance::PIVOT_FLOOR;
use privlift::document::{Alphabet, Claims, Document};
use privlift::error::{Error, Result};
use privlift::param::Epsilon;

/// Γ' of the module docs on a subset X' of X: the posterior columns whose lifts are
/// within a factor e^ε of each other.
#[derive(Debug, Clone)]
pub struct LdpPolytope {
    n: usize,
    ns: usize,
    /// The scale of each coordinate: the enumeration solves for u_j = v_j / d_j, so the
    /// equality row is Σ_j d_j u_j = 1 (all d_j = 1 unless
    /// [`super::vertex::coordinate_scale`] scales, as for the lift polytope).
    d: Vec<f64>,
    /// r_s(j) d_j with r_s(j) = P(s | X'_j) / P(s), row-major ns × n (so l_s(v) is r_s · v,
    /// the stored row dotted with u).
    r: Vec<f64>,
    ratio: f64,
}

impl LdpPolytope {
    /// The polytope over the inputs `subset` (each with P(x) > 0) for lift ratios at
    /// most e^{ln_ratio}.
    ///
    /// # Errors
    /// `invalid_argument` for an empty subset, an input out of range or with P(x) = 0,
    /// or a ratio that is not finite and > 0.
    pub fn new(view: &JointView, subset: &[usize], ln_ratio: f64) -> Result<Self> {
        if subset.is_empty() {
            return Err(Error::invalid("subset", "empty"));
        }
        if let Some(&x) = subset.iter().find(|&&x| x >= view.nx() || view.p_x[x] <= 0.0) {
            return Err(Error::invalid("subset", alloc::format!("input {x} is out of range or has P(x) = 0")));
        }
        Epsilon::positive("epsilon", ln_ratio)?;
        let (ns, n, nx) = (view.ns(), subset.len(), view.nx());
        // Lifts stay below e^ε (the least lift is at most 1), so d bounds v as in Π.
        let d = coordinate_scale(view, subset, ln_ratio).unwrap_or_else(|| vec![1.0; n]);
        let mut r = Vec::with_capacity(ns * n);
        for s in 0..ns {
            r.extend(subset.iter().zip(&d).map(|(&x, &dj)| view.cond[s * nx + x] / view.p_s[s] * dj));
        }
        Ok(LdpPolytope { n, ns, d, r, ratio: libm::exp(ln_ratio) })
    }

    /// Candidate systems the enumeration solves (saturating): [`candidates`].
    pub fn candidates(&self) -> u64 {
        candidates(self.ns, self.n)
    }

    fn lifts(&self, v: &[f64]) -> (f64, f64) {
        let (mut hi, mut lo) = (0.0f64, f64::INFINITY);
        for s in 0..self.ns {
            let row = &self.r[s * self.n..(s + 1) * self.n];
            let l: f64 = row.iter().zip(v).zip(&self.d).map(|((a, b), d)| a * (b / d)).sum();
            hi = hi.max(l);
            lo = lo.min(l);
        }
        (hi, lo)
    }

    /// The post-check: v ≥ 0, Σ v = 1 (to `tol`·|X'|) and max_s l_s ≤ e^ε (1 + tol) min_s l_s.
    pub fn contains(&self, v: &[f64], tol: f64) -> bool {
        if v.len() != self.n || v.iter().any(|&e| !(e >= 0.0)) {
            return false;
        }
        if (v.iter().sum::<f64>() - 1.0).abs() > tol * self.n as f64 {
            return false;
        }
        let (hi, lo) = self.lifts(v);
        hi <= self.ratio * (1.0 + tol) * lo
    }

    /// Every vertex of Γ' (and possibly a few other points of it), each post-checked.
    ///
    /// # Errors
    /// `invalid_argument` if the enumeration would exceed [`MAX_CANDIDATES`] solves or
    /// [`MAX_VERTICES`] points (the message suggests the LDP watchdogs).
    pub fn vertices(&self) -> Result<Vec<Vec<f64>>> {
        let too_big = |what: alloc::string::String| {
            Error::invalid(
                "alphabet",
                alloc::format!(
                    "optimal LDP with |X| = {}, |S| = {} {what}, which would take too long; use subset merging \
                 (subset-merging --notion ldp) instead",
                    self.n,
                    self.ns
                ),
            )
        };
        let work = self.candidates();
        if work > MAX_CANDIDATES {
            return Err(too_big(alloc::format!("needs {work} candidate solves (limit {MAX_CANDIDATES})")));
        }
        let (n, ns) = (self.n, self.ns);
        let mut out: Vec<Vec<f64>> = Vec::new();
        let mut m = vec![0.0; (ns + 1) * (ns + 2)];
        let mut sol = vec![0.0; ns + 1];
        for k in 1..=ns.min(n) {
            let mut support: Vec<usize> = (0..k).collect();
            loop {
                let first = out.len();
                let mut active: Vec<usize> = (0..k).collect();
                loop {
                    for pattern in 0u64..(1u64 << k) {
                        if self.solve(&support, &active, pattern, &mut m, &mut sol) {
                            let v = posterior(&self.d, &support, &sol[..k], n);
                            if !out[first..].iter().any(|w| super::vertex::same_point(w, &v)) {
                                out.push(v);
                            }
                        }
                    }
                    if !next_combination(&mut active, ns) {
                        break;
                    }
                }
                if out.len() > MAX_VERTICES {
                    return Err(too_big(alloc::format!("finds more than {MAX_VERTICES} vertices")));
                }
                if !next_combination(&mut support, n) {
                    break;
                }
            }
        }
        out.retain(|v| self.contains(v, TOLERANCE));
        Ok(out)
    }

    /// Solves `[d_Kᵀ 0; r_T|_K −c_T] (u_K, t) = (1, 0)` with c_s = e^ε where `pattern` has
    /// bit i set (secret `active[i]` at its upper side), 1 otherwise; true if v_K > 0,
    /// t > 0 and every other secret's lift lies in [t, e^ε t] (relative [`TOLERANCE`]).
    fn solve(&self, support: &[usize], active: &[usize], pattern: u64, m: &mut [f64], sol: &mut [f64]) -> bool {
        let k = support.len();
        let d = k + 1;
        // Row 0: Σ d_j u_j = 1; row i + 1: r_{active[i]} · u − c t = 0. Augmented column d.
        let w = d + 1;
        for (j, &x) in support.iter().enumerate() {
            m[j] = self.d[x];
        }
        m[k] = 0.0;
        m[d] = 1.0;
        for (i, &s) in active.iter().enumerate() {
            let row = (i + 1) * w;
            for (j, &x) in support.iter().enumerate() {
                m[row + j] = self.r[s * self.n + x];
            }
            m[row + k] = if pattern >> i & 1 == 1 { -self.ratio } else { -1.0 };
            m[row + d] = 0.0;
        }
        if !gauss(&mut m[..d * w], d, sol) {
            return false;
        }
        let t = sol[k];
        if !(t > 0.0) || sol[..k].iter().any(|&e| !(e > TOLERANCE)) {
            return false;
        }
        (0..self.ns).filter(|s| !active.contains(s)).all(|s| {
            let l: f64 = support.iter().zip(&sol[..k]).map(|(&x, &e)| self.r[s * self.n + x] * e).sum();
            l >= t * (1.0 - TOLERANCE) && l <= self.ratio * t * (1.0 + TOLERANCE)
        })
    }
}

/// Gaussian elimination with partial pivoting of the d × (d+1) augmented system `m`
/// (destroyed) into `out`; false if a pivot falls below [`PIVOT_FLOOR`] of the largest entry.
fn gauss(m: &mut [f64], d: usize, out: &mut [f64]) -> bool {
    let w = d + 1;
    let scale = m.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
    if !(scale > 0.0) || !scale.is_finite() {
        return false;
    }
    for col in 0..d {
        let mut piv = col;
        for r in col + 1..d {
            if m[r * w + col].abs() > m[piv * w + col].abs() {
                piv = r;
            }
        }
        if !(m[piv * w + col].abs() > PIVOT_FLOOR * scale) {
            return false;
        }
        if piv != col {
            for j in 0..w {
                m.swap(piv * w + j, col * w + j);
            }
        }
        for r in col + 1..d {
            let f = m[r * w + col] / m[col * w + col];
            if f != 0.0 {
                for j in col..w {
                    m[r * w + j] -= f * m[col * w + j];
                }
            }
        }
    }
    for r in (0..d).rev() {
        let s: f64 = (r + 1..d).map(|j| m[r * w + j] * out[j]).sum();
        out[r] = (m[r * w + d] - s) / m[r * w + r];
    }
    out[..d].iter().all(|v| v.is_finite())
}

/// The candidate systems [`LdpPolytope::vertices`] solves with |S| = `ns` secrets over `n`
/// inputs (saturating): C(n, k) supports of each size k ≤ |S|, C(|S|, k) sets of active
/// secrets, 2^k sides each.
pub fn candidates(ns: usize, n: usize) -> u64 {
    (1..=ns.min(n))
        .map(|k| binomial(n, k).saturating_mul(binomial(ns, k)).saturating_mul(1u64 << k.min(63)))
        .fold(0u64, u64::saturating_add)
}

/// The ε-LDP mechanism w.r.t. S maximising I(X;Y) (Lopuhaä-Zwakenberg Thm 1, solved
/// over the columns as in the module docs).
///
/// # Privacy
/// Claims `ldp = ε` w.r.t. the source's secret (X itself for a prior). Every output's
/// column is a point of Γ' at the design budget (`design_budget`, ≈ 1e-9 relative
/// below ε), so P(y|s)/P(y|s') ≤ e^ε with a margin against rounding; `publish`
/// re-audits the document.
///
/// # Errors
/// `invalid_argument` for a bad budget or a size that would take too long (the message
/// suggests subset merging); `design_failed` on solver trouble. Never `infeasible`: the
/// output independent of X is ε-LDP.
///
/// # Example
/// ```
/// use privlift_design::{optimal_ldp, Source};
/// use privlift::document::{Alphabet, Matrix};
/// let p_sx = Matrix::from_flat(2, 3, vec![0.3, 0.1, 0.1, 0.1, 0.1, 0.3]);
/// let src = Source::joint(Alphabet::indices("s", 2)?, Alphabet::indices("x", 3)?, p_sx)?;
/// use privlift::param::Epsilon;
/// let doc = optimal_ldp::optimal_ldp(&src, Epsilon::positive("epsilon", 1.0)?, "opt-ldp")?;
/// assert_eq!(doc.claims().ldp.map(|e| e.get()), Some(1.0));
/// # Ok::<(), privlift::Error>(())
/// ```
pub fn optimal_ldp(source: &Source, epsilon: Epsilon, id: &str) -> Result<Document> {
    let eps = epsilon.get();
    let budget = design_budget(eps);
    if !(budget > 0.0) {
        return Err(below_design_margin("epsilon", eps));
    }
    let view = JointView::new(&source.p_sx());
    let subset: Vec<usize> = (0..view.nx()).filter(|&x| view.p_x[x] > 0.0).collect();
    let poly = LdpPolytope::new(&view, &subset, budget)?;
    let vs = poly.vertices()?;
    if vs.is_empty() {
        // Γ' always holds P_X itself (every lift is 1); an empty set is numerical trouble.
        return Err(Error::DesignFailed { reason: "optimal LDP: no vertex found".into() });
    }
    let vertices = vs.len();
    let r = response_over_vertices(&view, &subset, vs)?;
    let ny = r.q.len();
    let w = assemble(&view, &[], &[(subset, r)])?;
    let output = Alphabet::indices("output_labels", ny)?;
    let claims = Claims { ldp: Some(epsilon.into()), ..Claims::default() };
    let p_x = source.p_x();
    let doc = publish_channel(
        Draft { id, source, output: Some(output), claims, audited: Audited::default() },
        w,
        compact,
        |w| released_utility(&p_x, w, &vec![None; ny]),
    )?;
    Ok(with_extra(doc, alloc::vec![("vertices", vertices.into())]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use privlift::document::Matrix;

    /// S = X binary with P = (½, ½): Γ' is the segment of v with
    /// v_0 / v_1 ∈ [e^{-ε}, e^{ε}], whose vertices are v_0 = 1/(1 + e^{±ε}). The
    /// enumeration also returns (½, ½), the projection of the vertex of P' with both
    /// secrets at their lower side — a point of Γ', harmless to the LP (module docs).
    #[test]
    fn binary_segment() {
        let view = JointView::new(&Matrix::from_flat(2, 2, alloc::vec![0.5, 0.0, 0.0, 0.5]));
        let eps: f64 = 0.7;
        let mut vs = LdpPolytope::new(&view, &[0, 1], eps).unwrap().vertices().unwrap();
        vs.sort_by(|a, b| a[0].total_cmp(&b[0]));
        assert_eq!(vs.len(), 3, "{vs:?}");
        assert!((vs[0][0] - 1.0 / (1.0 + eps.exp())).abs() < 1e-12, "{vs:?}");
        assert!((vs[1][0] - 0.5).abs() < 1e-12, "{vs:?}");
        assert!((vs[2][0] - 1.0 / (1.0 + (-eps).exp())).abs() < 1e-12, "{vs:?}");
    }

    #[test]
    fn gauss_solves_and_detects_singular() {
        let mut m = alloc::vec![2.0, 1.0, 3.0, 1.0, 3.0, 5.0];
        let mut out = alloc::vec![0.0; 2];
        assert!(gauss(&mut m, 2, &mut out));
        assert!((out[0] - 0.8).abs() < 1e-15 && (out[1] - 1.4).abs() < 1e-15, "{out:?}");
        let mut m = alloc::vec![1.0, 2.0, 1.0, 2.0, 4.0, 2.0];
        assert!(!gauss(&mut m, 2, &mut out));
    }
}
