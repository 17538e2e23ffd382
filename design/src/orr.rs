//! Optimal random response: ORR for ε-LIP (Lopuhaä-Zwakenberg, privacy funnel, Thm 2)
//! and asymmetric ORR (AORR) for (εl, εu)-ALIP (Zarrabian, Ding, Sadeghi eqs 12, 22–26),
//! both w.r.t. a secret S correlated with X, maximising I(X;Y).
//!
//! A mechanism is written as its posterior columns v_y = P_{X|Y}(·|y) and output masses
//! q_y = P_Y(y). The lift constraints only involve the columns (each must lie in the lift
//! polytope, [`super::vertex`]), the marginal constraint is Σ_y q_y v_y = P_X, and
//! I(X;Y) = H(X) − Σ_y q_y H(v_y). H is concave, so an optimal mechanism uses vertices
//! only, and the problem becomes the LP (eq 22)
//!
//! ```text
//!   min Σ_v q_v H(v)   s.t.  Σ_v q_v v = P_X,  q ≥ 0,
//! ```
//!
//! over the vertex set; a basic solution uses at most |X| vertices, so |Y| ≤ |X|. The
//! mechanism is P(y|x) = v_y(x) q_y / P_X(x) (eqs 25–26 with X_L = ∅).
//!
//! The LP has |X| rows and one sparse column (≤ |S| non-zeros) per vertex; it is solved
//! by the column-generation revised simplex of `design/simplex.rs`, which prices every
//! vertex before declaring optimality (so the answer is the exact optimum, see there),
//! with `microlp` over the dense model as the fall-back on numerical trouble and as
//! the reference ([`Method::FullLp`]).

use alloc::vec;
use alloc::vec::Vec;

use super::lift::{JointView, Notion};
use super::lp::clean_rows;
use super::lp::{Cmp, Lp};
use super::publication::{publish_channel, srr_form, with_extra, Audited, Draft};
use super::simplex::{self, Columns};
use super::utility::{entropy, released_utility};
use super::vertex::{spans_wide, LiftPolytope, Limits, TOLERANCE};
use super::Source;
use privlift::document::{Alphabet, Document, Matrix};
use privlift::error::{Error, Result};
use privlift::param::Epsilon;

/// An optimal random response on a subset X' of X: posterior columns over X' (in the
/// subset's order) and their masses, plus the number of vertices the LP chose from.
#[derive(Debug, Clone)]
pub struct Response {
    /// The posterior columns v_y = P_{X|Y}(·|y) over the subset, one per output.
    pub columns: Vec<Vec<f64>>,
    /// The output masses q_y = P_Y(y), in the order of `columns` (Σ_y q_y v_y = P_X on the subset).
    pub q: Vec<f64>,
    /// The number of candidate columns (the polytope's vertices) the LP chose from.
    pub vertices: usize,
}

/// Solves LP (22) of Zarrabian et al. on `subset` (inputs with P(x) > 0) for lifts in
/// [e^{ln_lo}, e^{ln_hi}].
///
/// The LP's basic solution meets Σ q_v v = P_X only to the solver's tolerance (1e-10
/// absolute), which after dividing by a small P(x) would move the posteriors and hence
/// the lifts by ~1e-10/P(x). So the masses of the chosen vertices are re-solved by
/// least squares (Householder QR; the chosen vertices are linearly independent in a
/// basic solution), which meets the marginals to rounding; if that fails (a negative
/// mass or a residual above 1e-12) the LP's masses are kept and the audit decides.
///
/// # Errors
/// `infeasible` if the polytope is empty or P_X restricted to the subset is not in the
/// cone of its vertices (LP (22) infeasible); `invalid_argument` if the enumeration is
/// too large; `design_failed` on solver trouble.
pub fn optimal_response(view: &JointView, subset: &[usize], ln_lo: f64, ln_hi: f64) -> Result<Response> {
    optimal_response_with(view, subset, ln_lo, ln_hi, Method::ColumnGeneration)
}

/// LP (22) over a given set of candidate columns `vs` (over `subset`, each a point of
/// the notion's polytope, containing all its vertices): min Σ q_v H(v) s.t.
/// Σ q_v v = P_X on the subset, with the masses re-solved as in [`optimal_response`].
/// Shared by ORR/AORR and the optimal ε-LDP design ([`super::optimal_ldp`]).
///
/// # Errors
/// `infeasible` if P_X on the subset is not in the cone of `vs`; `design_failed` on
/// solver trouble.
pub(crate) fn response_over_vertices(view: &JointView, subset: &[usize], vs: Vec<Vec<f64>>) -> Result<Response> {
    let target: Vec<f64> = subset.iter().map(|&x| view.p_x[x]).collect();
    let scale = row_scale(&target);
    let mut pool = Columns::new();
    for v in &vs {
        pool.push(&scaled(v, &scale), entropy(v));
    }
    let (chosen, q) = match simplex::solve(&pool, &scaled(&target, &scale)) {
        Ok(sol) => sol.support.into_iter().unzip(),
        Err(Error::DesignFailed { .. }) if !crate::deadline::was_reached() => full_lp(&vs, &target)?,
        Err(e) => return Err(e),
    };
    let cols: Vec<Vec<f64>> = chosen.iter().map(|&i: &usize| vs[i].clone()).collect();
    Ok(finish(&target, cols, q, vs.len()))
}

/// How LP (22) is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The dedicated revised simplex over sparse vertex columns (`design/simplex.rs`),
    /// pricing every vertex of the polytope (the default; falls back to
    /// [`Method::FullLp`] on numerical trouble).
    ColumnGeneration,
    /// The general solver (`microlp`) over the dense model with every vertex: the
    /// previous implementation, kept as the fall-back and the tests' reference.
    FullLp,
}

/// [`optimal_response`] with the LP method chosen (for the tests and benchmarks that
/// compare them).
///
/// # Errors
/// As [`optimal_response`].
pub fn optimal_response_with(
    view: &JointView,
    subset: &[usize],
    ln_lo: f64,
    ln_hi: f64,
    method: Method,
) -> Result<Response> {
    let poly = LiftPolytope::new(view, subset, ln_lo, ln_hi)?;
    match method {
        Method::ColumnGeneration => response_sparse(view, subset, &poly, poly.default_limits()),
        Method::FullLp => {
            let vs = poly.vertices()?;
            if vs.is_empty() {
                return Err(Error::Infeasible { reason: "the lift polytope is empty".into() });
            }
            let target: Vec<f64> = subset.iter().map(|&x| view.p_x[x]).collect();
            let (chosen, q) = full_lp(&vs, &target)?;
            let cols = chosen.iter().map(|&i| vs[i].clone()).collect();
            Ok(finish(&target, cols, q, vs.len()))
        }
    }
}

/// LP (22) over every vertex of `poly` (enumerated sparse within `limits`) by the
/// column-generation revised simplex (`design/simplex.rs`); on numerical trouble, by
/// `microlp` over the same vertices. With the caps raised this is the exact design at
/// sizes the default caps refuse (`examples/aorr_scaling.rs`: |X| = 200, |S| = 5).
///
/// # Exactness
/// Every vertex is enumerated and post-checked ([`super::vertex`]), and the simplex
/// declares optimality only when a full scan of all of them finds no negative reduced
/// cost H(v) − yᵀv; by concavity of H no point of the polytope has one either, so the
/// result is optimal over every mechanism meeting the lift bounds (Zarrabian et al.
/// eqs 12, 22).
///
/// # Errors
/// As [`optimal_response`], with `limits` in place of the default caps.
pub fn response_sparse(view: &JointView, subset: &[usize], poly: &LiftPolytope, limits: Limits) -> Result<Response> {
    let vs = poly.vertices_with(limits)?;
    if vs.is_empty() {
        return Err(Error::Infeasible { reason: "the lift polytope is empty".into() });
    }
    let target: Vec<f64> = subset.iter().map(|&x| view.p_x[x]).collect();
    let scale = row_scale(&target);
    let mut pool = Columns::new();
    let mut nonzeros = Vec::new();
    for i in 0..vs.len() {
        let (idx, val) = vs.get(i);
        nonzeros.clear();
        nonzeros.extend(idx.iter().zip(val).map(|(&x, e)| e * scale[x as usize]));
        pool.push_sparse(idx, &nonzeros, sparse_entropy(val));
    }
    // The merged column P_X|X' / P(X') (one output for the whole subset), when it is a
    // point of the polytope: always for LIP/ALIP on all of X (its lifts are 1), and for
    // an SRR group exactly when LP (22) is feasible (`design/srr.rs`). It never changes
    // the optimum (it is a mixture of vertices and H is concave), but it makes the LP
    // feasible by itself, so a vertex lost to rounding can cost optimality, never
    // feasibility.
    let total: f64 = target.iter().sum();
    let merged: Vec<f64> = target.iter().map(|t| t / total).collect();
    let merged_at = poly.contains(&merged, TOLERANCE).then(|| pool.push(&scaled(&merged, &scale), entropy(&merged)));
    let column = |i: usize| if Some(i) == merged_at { merged.clone() } else { vs.dense(i) };
    let (chosen, q): (Vec<usize>, Vec<f64>) = match simplex::solve(&pool, &scaled(&target, &scale)) {
        Ok(sol) => sol.support.into_iter().unzip(),
        Err(Error::DesignFailed { .. }) if !crate::deadline::was_reached() => {
            let dense: Vec<Vec<f64>> = (0..pool.len()).map(column).collect();
            full_lp(&dense, &target)?
        }
        Err(e) => return Err(e),
    };
    let cols = chosen.iter().map(|&i| column(i)).collect();
    Ok(finish(&target, cols, q, vs.len()))
}

/// The rows of LP (22) scaled by 1/P(x) when the masses span more than
/// [`WIDE_RANGE`](super::vertex::WIDE_RANGE): Σ_v q_v v(x)/P(x) = 1 at every input. The
/// masses q are the same, but every row is O(1): unscaled, an input of P(x) = 1e-11 next
/// to ones of 0.1 left the basis matrices spanning 10 orders of magnitude, and the LP's
/// absolute tolerances could not see that input (its row summed to 0.86–1.19,
/// `design/tests/sweep.rs`; a skewed prior with masses from 1e-6 to 0.96 audited 0.06 %
/// over its budget). Masses within three orders
/// stay unscaled: the scaled LP took more pivots there (AORR 17 × 5, ε = 0.25: 130
/// against 93, 5.3 against 2.2 ms). A row of P(x) = 0 stays.
fn row_scale(target: &[f64]) -> Vec<f64> {
    let wide = spans_wide(target);
    target.iter().map(|&t| if wide && t > 0.0 { 1.0 / t } else { 1.0 }).collect()
}

/// A dense column, or the right-hand side P_X, in the rows of [`row_scale`].
fn scaled(v: &[f64], scale: &[f64]) -> Vec<f64> {
    v.iter().zip(scale).map(|(e, s)| e * s).collect()
}

/// H(v) from the non-zeros of v.
pub(crate) fn sparse_entropy(val: &[f64]) -> f64 {
    entropy(val)
}

/// Outputs whose LP mass is at most this fraction of P(X') are dropped before the masses
/// are re-solved. A degenerate basis keeps columns at levels of ~1e-16 (rounding of a
/// mass that is 0); their channel entries P(y|x) ≈ 1e-16 sit below what the audit's
/// rounding can certify, so the audited lift of such an output was 2.4883 for an ε-LIP
/// design at 2.4879, and the design was refused (`design/tests/sweep.rs` pins it). Such
/// an output carries at most 1e-12 of the probability, and so of I(X;Y) at most
/// 1e-12 · ln|X'| nats. An output that is the last one on some input stays (`finish`).
pub(crate) const NEGLIGIBLE_MASS: f64 = 1e-12;

/// Most relative error |Σ_y q_y v_y(x) − P(x)| / P(x) the re-solved masses may leave at
/// any input. The assembled row x sums to 1 + that error before it is renormalised, and
/// renormalising moves the lifts by about as much, far inside the design margin
/// (`lift::design_budget`, 1e-9 relative).
const MARGINAL_TOLERANCE: f64 = 1e-12;

/// [`least_squares`] calls its columns rank-deficient when a column's remaining norm, or a
/// diagonal entry of R, is at most this: the columns are vertices of the lift polytope
/// (entries of order 1), so a norm this small is the rounding of a dependent column (about
/// a hundred times 2⁻⁵³), not rank.
const QR_RANK: f64 = 1e-14;

/// The random response assembled from the LP's masses may have an entry this far below 0,
/// or a row sum this far from 1, and still be cleaned (clamped and renormalised); beyond
/// it the assembly failed. Its masses are re-solved to a relative 1e-12 at every input
/// ([`MARGINAL_TOLERANCE`]), so an error a thousand times larger is no rounding; the
/// publication's audit then checks the lifts of the cleaned response.
const RESPONSE_ROW_SLACK: f64 = 1e-9;

/// The response from the chosen columns and their LP masses: outputs of negligible mass
/// ([`NEGLIGIBLE_MASS`]) dropped, the others' masses re-solved by least squares
/// **relative to each P(x)** (see [`optimal_response`]): an absolute fit leaves an error
/// of ~1e-17 at every input, which is 3e-9 of a P(x) of 3e-9, more than the design margin.
/// If the fit fails (a non-positive mass or a relative error above
/// [`MARGINAL_TOLERANCE`]) the LP's masses are kept and the audit decides.
///
/// An input that only negligible outputs reach has P(x) ≤ Σ q_y below ~1e-12 · P(X'); it
/// is left out of the fit, and `assemble` releases it as P_Y (its lifts are 1, and it
/// moves the others' by a fraction of its probability). Keeping such an output instead
/// kept its entries P(y|x') ≈ 1e-13 on ordinary inputs, below what the audit's rounding
/// certifies: an AORR on a joint with P(x) = 4e-14 audited 2.2e-7 (relative) over its
/// budget (`design/tests/sweep.rs`).
fn finish(target: &[f64], cols: Vec<Vec<f64>>, q: Vec<f64>, vertices: usize) -> Response {
    let total: f64 = target.iter().sum();
    let keep: Vec<usize> = (0..cols.len()).filter(|&i| q[i] > NEGLIGIBLE_MASS * total).collect();
    let reached: Vec<usize> = (0..target.len()).filter(|&x| keep.iter().any(|&i| cols[i][x] > 0.0)).collect();
    // Scaled by 1/P(x): the fit is then relative at every input.
    let scaled: Vec<Vec<f64>> =
        keep.iter().map(|&i| reached.iter().map(|&x| cols[i][x] / target[x]).collect()).collect();
    let refs: Vec<&[f64]> = scaled.iter().map(|c| c.as_slice()).collect();
    let ones = vec![1.0; reached.len()];
    let masses: Vec<f64> = match least_squares(&refs, &ones) {
        Some(m) if m.iter().all(|&e| e > 0.0) && residual(&refs, &m, &ones) <= MARGINAL_TOLERANCE => m,
        _ => keep.iter().map(|&i| q[i]).collect(),
    };
    Response { columns: keep.iter().map(|&i| cols[i].clone()).collect(), q: masses, vertices }
}

/// LP (22) by `microlp` over the dense model: (chosen column indices, their masses).
fn full_lp(vs: &[Vec<f64>], target: &[f64]) -> Result<(Vec<usize>, Vec<f64>)> {
    let mut lp = Lp::minimise();
    let vars: Vec<usize> = vs.iter().map(|v| lp.var(entropy(v))).collect();
    for (j, &p) in target.iter().enumerate() {
        let terms: Vec<(usize, f64)> =
            vs.iter().zip(&vars).filter(|(v, _)| v[j] > 0.0).map(|(v, &i)| (i, v[j])).collect();
        lp.constraint(&terms, Cmp::Eq, p);
    }
    let (q, _) = lp.solve("optimal random response (eq 22)")?;
    let chosen: Vec<usize> = (0..vs.len()).filter(|&i| q[i] > 0.0).collect();
    let masses = chosen.iter().map(|&i| q[i]).collect();
    Ok((chosen, masses))
}

/// Max-abs residual of Σ_i m_i c_i − t.
fn residual(cols: &[&[f64]], m: &[f64], t: &[f64]) -> f64 {
    (0..t.len()).map(|j| (cols.iter().zip(m).map(|(c, w)| c[j] * w).sum::<f64>() - t[j]).abs()).fold(0.0, f64::max)
}

/// min ‖C m − t‖ for the n × k matrix with columns `cols` (k ≤ n, full column rank) by
/// Householder QR; `None` if rank-deficient.
fn least_squares(cols: &[&[f64]], t: &[f64]) -> Option<Vec<f64>> {
    let (n, k) = (t.len(), cols.len());
    if k == 0 || k > n {
        return None;
    }
    let mut a: Vec<Vec<f64>> = cols.iter().map(|c| c.to_vec()).collect(); // column-major
    let mut b = t.to_vec();
    for j in 0..k {
        let norm = libm::sqrt(a[j][j..].iter().map(|e| e * e).sum::<f64>());
        if norm <= QR_RANK {
            return None;
        }
        let alpha = if a[j][j] > 0.0 { -norm } else { norm };
        let mut u = a[j][j..].to_vec();
        u[0] -= alpha;
        let un: f64 = u.iter().map(|e| e * e).sum();
        if un == 0.0 {
            continue;
        }
        for col in a.iter_mut().skip(j) {
            let f = 2.0 * u.iter().zip(&col[j..]).map(|(x, y)| x * y).sum::<f64>() / un;
            col[j..].iter_mut().zip(&u).for_each(|(c, x)| *c -= f * x);
        }
        let f = 2.0 * u.iter().zip(&b[j..]).map(|(x, y)| x * y).sum::<f64>() / un;
        b[j..].iter_mut().zip(&u).for_each(|(c, x)| *c -= f * x);
    }
    let mut m = vec![0.0; k];
    for j in (0..k).rev() {
        let s: f64 = (j + 1..k).map(|i| a[i][j] * m[i]).sum();
        if a[j][j].abs() <= QR_RANK {
            return None;
        }
        m[j] = (b[j] - s) / a[j][j];
    }
    Some(m)
}

/// Builds P(Y|X) over all of X from low-risk inputs released as themselves and random
/// responses on disjoint subsets (Zarrabian et al. eqs 25–26): output y of subset X_i has
/// P(y|x) = v_y(x) q_y / P(x) for x ∈ X_i. Inputs with P(x) = 0 (in no subset and not
/// low-risk) get the output distribution P_Y (they never occur, so no lift changes), and
/// so does an input of a subset that no output reached: its probability is below what
/// the LP resolves (≲ 1e-9 · P(X'), e.g. 1e-20 next to inputs of 0.1), its lifts under
/// P_Y are 1, and it moves the others' by a fraction of its probability.
/// Returns the matrix and the number of outputs per subset.
pub(crate) fn assemble(view: &JointView, low: &[usize], parts: &[(Vec<usize>, Response)]) -> Result<Matrix> {
    let nx = view.nx();
    let ny = low.len() + parts.iter().map(|(_, r)| r.q.len()).sum::<usize>();
    let mut w = vec![0.0; nx * ny];
    let mut covered = vec![false; nx];
    for (y, &x) in low.iter().enumerate() {
        w[x * ny + y] = 1.0;
        covered[x] = true;
    }
    let mut y0 = low.len();
    for (subset, r) in parts {
        for (y, (v, &q)) in r.columns.iter().zip(&r.q).enumerate() {
            for (j, &x) in subset.iter().enumerate() {
                w[x * ny + y0 + y] = v[j] * q / view.p_x[x];
            }
        }
        for &x in subset {
            // An input no output reached (its probability below what the LP resolves,
            // ≲ 1e-9 · P(X')) is released like an input outside every subset, below.
            covered[x] = (y0..y0 + r.q.len()).any(|y| w[x * ny + y] > 0.0);
        }
        y0 += r.q.len();
    }
    let mut p_y = vec![0.0; ny];
    for x in 0..nx {
        for y in 0..ny {
            p_y[y] += view.p_x[x] * w[x * ny + y];
        }
    }
    let total: f64 = p_y.iter().sum();
    for x in (0..nx).filter(|&x| !covered[x]) {
        for y in 0..ny {
            w[x * ny + y] = p_y[y] / total;
        }
    }
    clean_rows(nx, ny, w, RESPONSE_ROW_SLACK, "random response")
}

/// Optimal random response for a lift notion (ORR for LIP, AORR for ALIP) over all of X.
///
/// # Privacy
/// Claims `lip = ε` (ORR) or `alip = {eps_l, eps_u}` (AORR) w.r.t. the source's secret
/// (X itself for a prior). The design runs at the budget shrunk by
/// `lift::design_budget` (≈ 1e-9 relative) and claims the target, so the
/// published claim holds with a margin against rounding; `publish` re-audits it.
///
/// # Errors
/// `invalid_argument` for a bad budget, for LDP (optimal ε-LDP is not implemented
/// here) or an enumeration that is too large (|X| large with |S| large, e.g. a prior
/// with S = X beyond ~10 symbols); `infeasible` if no mechanism meets the budget (never
/// for LIP/ALIP: the output independent of X is always private).
pub fn optimal(source: &Source, notion: Notion, id: &str) -> Result<Document> {
    optimal_with(source, notion, id, None)
}

/// [`optimal`] with the vertex search's caps given: `None` for the default ones
/// ([`LiftPolytope::default_limits`], which refuse what would take more than about a
/// second), [`Limits::NONE`] for the exact design at any size (minutes at |X| = 200,
/// |S| = 5; [`crate::progress`] reports how far it is).
///
/// # Errors
/// As [`optimal`]; with `limits` lifted, no refusal for the enumeration's size.
pub fn optimal_with(source: &Source, notion: Notion, id: &str, limits: Option<Limits>) -> Result<Document> {
    notion.check()?;
    let Some((ln_lo, ln_hi)) = notion.lift_bounds() else {
        return Err(Error::invalid(
            "notion",
            alloc::format!("optimal random response is implemented for lip and alip, not {}", notion.name()),
        ));
    };
    let view = JointView::new(&source.p_sx());
    let subset: Vec<usize> = (0..view.nx()).filter(|&x| view.p_x[x] > 0.0).collect();
    let poly = LiftPolytope::new(&view, &subset, ln_lo, ln_hi)?;
    let limits = limits.unwrap_or_else(|| poly.default_limits());
    let r = response_sparse(&view, &subset, &poly, limits)?;
    let vertices = r.vertices;
    let ny = r.q.len();
    let w = assemble(&view, &[], &[(subset.clone(), r)])?;
    let output = Alphabet::indices("output_labels", ny)?;
    let parts = [(subset, ny)];
    let p_x = source.p_x();
    let doc = publish_channel(
        Draft { id, source, output: Some(output), claims: notion.claims(), audited: Audited::default() },
        w,
        |w| srr_form(w, &[], &parts),
        |w| released_utility(&p_x, w, &vec![None; ny]),
    )?;
    Ok(with_extra(doc, alloc::vec![("vertices", vertices.into())]))
}

/// ORR: the ε-LIP mechanism w.r.t. S maximising I(X;Y) (Lopuhaä-Zwakenberg Thm 2).
/// See [`optimal`].
pub fn orr_lip(source: &Source, epsilon: Epsilon, id: &str) -> Result<Document> {
    optimal(source, Notion::Lip { eps: epsilon }, id)
}

/// AORR: the (εl, εu)-ALIP mechanism w.r.t. S maximising I(X;Y) (Zarrabian et al.
/// eq 12, solved by eqs 22–26 on all of X). See [`optimal`].
pub fn aorr(source: &Source, epsilon_l: Epsilon, epsilon_u: Epsilon, id: &str) -> Result<Document> {
    optimal(source, Notion::Alip { eps_l: epsilon_l, eps_u: epsilon_u }, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_exact_masses() {
        let c0 = [0.5, 0.5, 0.0];
        let c1 = [0.0, 0.25, 0.75];
        let t = [0.15, 0.3, 0.45];
        let m = least_squares(&[&c0, &c1], &t).unwrap();
        assert!((m[0] - 0.3).abs() < 1e-15 && (m[1] - 0.6).abs() < 1e-15, "{m:?}");
        assert!(least_squares(&[&c0, &c0], &t).is_none());
    }
}
