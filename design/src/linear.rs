//! Linear reduction (Ding, Liu, Farokhi): release Y with
//! P(y|s) = (1 − α)P(x=y|s) + αP_X(y) (their eq 3), which keeps P_Y = P_X (eq 4) and
//! shrinks |P(y|s) − P_Y(y)| by the factor 1 − α.
//!
//! * [`markov`]: the Markov channel of Lemma 1 (eq 7).
//! * [`tv`]: the optimal non-Markov P(Y|S,X) for total-variation utility (Prop 1,
//!   eqs 11a–11e), with the free part (11d)–(11e) filled by the north-west-corner rule
//!   in index order — the choice that reproduces the paper's Example 1 exactly.
//! * [`distance`]: the optimal non-Markov P(Y|S,X) for expected distance (Prop 2, LP 12).
//!   Prop 2's reduction to (12) assumes the distortion is a metric (zero only on the
//!   diagonal, symmetric, triangle inequality); for any other distortion the full LP (10)
//!   is solved instead. On a line (|x − y| on indices, the default) LP 12 needs no solver:
//!   the north-west plan of [`tv`] is its optimum ([`distance_blocks`]).
//!
//! Each design claims the LDP and LIP w.r.t. S that the audit computes (the paper's
//! reduction "(1 − α)·" is only a first-order approximation, eq 6).

use alloc::vec;
use alloc::vec::Vec;

use super::lp::{Cmp, Lp};
use super::publication::{publish, Audited, Draft};
use super::utility::{absolute_distance, channel_utility, check_distortion, is_metric};
use super::Source;
use privlift::document::{Claims, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
use privlift::leakage::induced_channel;

fn check_alpha(alpha: f64) -> Result<()> {
    if !(alpha.is_finite() && alpha > 0.0 && alpha <= 1.0) {
        return Err(Error::invalid("alpha", alloc::format!("must be in (0, 1], got {alpha}")));
    }
    Ok(())
}

fn need_joint(source: &Source) -> Result<(usize, usize)> {
    match source {
        Source::Joint { p_sx, .. } => Ok((p_sx.rows(), p_sx.cols())),
        Source::Prior { .. } => {
            Err(Error::invalid("joint", "linear reduction protects a secret S correlated with X: give --joint"))
        }
    }
}

/// Lemma 1 (eq 7): P(y|x') = 1 − α(1 − P_X(y)) if x' = y, else αP_X(y), for every x'
/// with P_X(x') > 0; the row of an x' with P_X(x') = 0 is P_X itself.
///
/// Such an x' has P(x'|s) = 0 for every s, so its row enters no P(y|s) (eq 3): it is
/// free, and neither the LIP and LDP w.r.t. S nor the utility depend on it. The LDP
/// w.r.t. X does (it is prior-free and ranges over every input), and eq 7's row would
/// release y = x', which no other input produces, with probability 1 − α: an unbounded
/// LDP w.r.t. X. The row P_X adds nothing to that LDP instead: at an output y with
/// P_X(y) = p > 0 its ratio to an eq 7 row is at most 1/α (off the diagonal) and its
/// inverse at most (1 − α + αp)/p (on it), both at most (1 − α + αp)/(αp), the ratio
/// between two eq 7 rows at y (as (1 − α)(1 − p) ≥ 0); an output with P_X(y) = 0 is
/// then produced by no input at all.
pub fn markov_matrix(p_x: &[f64], alpha: f64) -> Matrix {
    let k = p_x.len();
    Matrix::from_flat(
        k,
        k,
        (0..k * k)
            .map(|i| {
                let (xp, y) = (i / k, i % k);
                if p_x[xp] <= 0.0 {
                    p_x[y]
                } else if xp == y {
                    1.0 - alpha * (1.0 - p_x[y])
                } else {
                    alpha * p_x[y]
                }
            })
            .collect(),
    )
}

/// The Markov linear-reduction mechanism (Lemma 1).
///
/// # Privacy
/// Claims the audited `ldp`, `lip` (w.r.t. S) and `ldp_x`.
pub fn markov(source: &Source, alpha: f64, id: &str) -> Result<Document> {
    check_alpha(alpha)?;
    let (ns, _) = need_joint(source)?;
    let w = markov_matrix(&source.p_x(), alpha);
    let utility = channel_utility(&source.p_x(), &w, None);
    let mech = MechanismKind::PerSecret { p_y_given_sx: vec![w.clone(); ns], markov: Some(w) };
    let audited = Audited { lip: true, ldp: true, ldp_x: true };
    publish(
        Draft { id, source, output: Some(source.labels().clone()), claims: Claims::default(), audited },
        mech,
        utility,
    )
}

/// The sets X⁻(s) (P_X(x) < P(x|s), these give mass away) and X⁺(s) (the rest) and
/// the masses each gives or receives, in units of P(·|s): supply α(P(x|s) − P_X(x)),
/// demand α(P_X(x) − P(x|s)).
struct Split {
    cond: Vec<f64>,
    minus: Vec<(usize, f64)>,
    plus: Vec<(usize, f64)>,
}

fn split(p_sx: &Matrix, p_x: &[f64], s: usize, alpha: f64) -> Option<Split> {
    let ps: f64 = p_sx.row(s).iter().sum();
    if ps <= 0.0 {
        return None;
    }
    let cond: Vec<f64> = p_sx.row(s).iter().map(|v| v / ps).collect();
    let mut minus = Vec::new();
    let mut plus = Vec::new();
    for x in 0..p_x.len() {
        if p_x[x] < cond[x] {
            minus.push((x, alpha * (cond[x] - p_x[x])));
        } else {
            plus.push((x, alpha * (p_x[x] - cond[x])));
        }
    }
    Some(Split { cond, minus, plus })
}

/// Builds the block P(Y|S=s, X) from a transport plan `flow[(i, j)]` (mass moved from
/// `minus[i]` to `plus[j]`, in units of P(·|s)): (11a) diagonal, (11b)/(11c) zeros,
/// (11d)/(11e) the plan.
///
/// Row x⁻ keeps 1 − g of itself and gives away g = α(1 − P_X(x⁻)/P(x⁻|s)) (11a), which
/// eq (11d) splits as flow(i, j)/P(x⁻|s). That quotient amplifies the plan's absolute
/// error (a solver's 1e-11, or the rounding of the north-west rule, over a P(x⁻|s) of
/// 1e-10 makes a row that sums to 1.04), so g is split in the plan's proportions
/// instead, g·flow(i, j)/Σ_j' flow(i, j'): the same row when the plan ships exactly the
/// supply αP(x⁻|s)·g/α, and a distribution to rounding whatever its error. Eq (10b)
/// then holds to the plan's absolute error. A row the plan ships nothing from (a supply
/// below the solver's tolerance) splits g in proportion to the demands; a split with no
/// demand at all (only rounding puts every x in X⁻) keeps the row at x⁻.
fn block_from_plan(k: usize, sp: &Split, flow: &[f64]) -> Matrix {
    let mut q = vec![0.0; k * k];
    for x in 0..k {
        q[x * k + x] = 1.0; // (11c): X⁺ rows stay put; X⁻ rows are overwritten below
    }
    let np = sp.plus.len();
    let demand: Vec<f64> = sp.plus.iter().map(|p| p.1).collect();
    for (i, &(xm, supply)) in sp.minus.iter().enumerate() {
        let shipped = &flow[i * np..(i + 1) * np];
        let weights = if shipped.iter().sum::<f64>() > 0.0 { shipped } else { &demand[..] };
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            continue;
        }
        let given = supply / sp.cond[xm]; // (11a): 1 − q(x⁻|x⁻) = α(1 − P_X(x⁻)/P(x⁻|s))
        q[xm * k + xm] = 1.0 - given;
        for (&(xp, _), &w) in sp.plus.iter().zip(weights) {
            q[xm * k + xp] = given * (w / total);
        }
    }
    Matrix::from_flat(k, k, q)
}

/// North-west-corner transport plan (supplies and demands in index order).
fn northwest(sp: &Split) -> Vec<f64> {
    let (nm, np) = (sp.minus.len(), sp.plus.len());
    let mut flow = vec![0.0; nm * np];
    let mut supply: Vec<f64> = sp.minus.iter().map(|m| m.1).collect();
    let mut demand: Vec<f64> = sp.plus.iter().map(|p| p.1).collect();
    let (mut i, mut j) = (0, 0);
    while i < nm && j < np {
        let f = supply[i].min(demand[j]);
        flow[i * np + j] = f;
        supply[i] -= f;
        demand[j] -= f;
        // Advance the side that is exhausted (within rounding) first.
        if supply[i] <= demand[j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    flow
}

/// How far (absolute) a block may miss eq (10b) before [`check_10b`] refuses it: the
/// blocks are built from P(x|s) to rounding (~1e-15), and a miss this large is a wrong
/// plan, not rounding.
const EQ_10B_SLACK: f64 = 1e-9;

/// Checks eq (10b): Σ_x' P(x|s,x')P(x'|s) = (1 − α)P(x|s) + αP_X(x) for every x, to
/// [`EQ_10B_SLACK`].
fn check_10b(block: &Matrix, sp: &Split, p_x: &[f64], alpha: f64) -> Result<()> {
    let k = p_x.len();
    for (x, &px) in p_x.iter().enumerate() {
        let got: f64 = (0..k).map(|xp| block.get(xp, x) * sp.cond[xp]).sum();
        let want = (1.0 - alpha) * sp.cond[x] + alpha * px;
        if (got - want).abs() > EQ_10B_SLACK {
            return Err(Error::DesignFailed { reason: alloc::format!("(10b) fails at x = {x}: {got} ≠ {want}") });
        }
    }
    Ok(())
}

fn identity(k: usize) -> Matrix {
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { 1.0 } else { 0.0 }).collect())
}

/// The per-secret blocks of Prop 1 (north-west-corner plan).
pub fn tv_blocks(p_sx: &Matrix, alpha: f64) -> Result<Vec<Matrix>> {
    let p_x = p_sx.col_sums();
    let k = p_x.len();
    (0..p_sx.rows())
        .map(|s| match split(p_sx, &p_x, s, alpha) {
            None => Ok(identity(k)),
            Some(sp) => {
                let b = block_from_plan(k, &sp, &northwest(&sp));
                check_10b(&b, &sp, &p_x, alpha)?;
                Ok(b)
            }
        })
        .collect()
}

fn per_secret_doc(source: &Source, blocks: Vec<Matrix>, distortion: Option<&Matrix>, id: &str) -> Result<Document> {
    let p_sx = source.p_sx();
    let induced = induced_channel(&p_sx, &blocks);
    let utility = channel_utility(&source.p_x(), &induced, distortion);
    let mech = MechanismKind::PerSecret { p_y_given_sx: blocks, markov: None };
    let audited = Audited { lip: true, ldp: true, ldp_x: false };
    publish(
        Draft { id, source, output: Some(source.labels().clone()), claims: Claims::default(), audited },
        mech,
        utility,
    )
}

/// Optimal non-Markov linear reduction for total-variation utility (Prop 1).
///
/// # Privacy
/// Claims the audited `ldp` and `lip` w.r.t. S. The curator applies it (it needs s).
pub fn tv(source: &Source, alpha: f64, id: &str) -> Result<Document> {
    check_alpha(alpha)?;
    need_joint(source)?;
    let blocks = tv_blocks(&source.p_sx(), alpha)?;
    per_secret_doc(source, blocks, None, id)
}

/// The per-secret blocks of Prop 2 (LP 12) for a metric `d`, or of the full LP (10).
///
/// Where `d` is a metric on a line in index order ([`is_line_metric`]: |x − y| on indices,
/// the default, is one) LP (12) is not solved: the north-west plan of Prop 1
/// ([`tv_blocks`]) is its optimum. On a line the cost of moving mass from x⁻ to x⁺ is
/// |t(x⁻) − t(x⁺)|, and the north-west rule over supplies and demands in index order is
/// the monotone coupling of the two, whose cost ∫|F⁻(t) − F⁺(t)| dt (the distribution
/// functions of supply and demand) is a lower bound on every plan's: the mass that must
/// cross any point t is at least |F⁻(t) − F⁺(t)|, and the monotone plan moves nothing
/// across t besides it (Villani, *Topics in Optimal Transportation*, ch. 2, the real
/// line). Both plans give the same P(y|s) (eq 3), so the same LDP and LIP w.r.t. S, and
/// the same expected distortion; the closed form is exact where the LP's plan carries
/// the solver's residue, and takes |X| steps a secret where the LP took its pivots.
pub fn distance_blocks(p_sx: &Matrix, alpha: f64, d: &Matrix) -> Result<Vec<Matrix>> {
    if is_line_metric(d) {
        return tv_blocks(p_sx, alpha);
    }
    let p_x = p_sx.col_sums();
    let k = p_x.len();
    let metric = is_metric(d);
    (0..p_sx.rows())
        .map(|s| {
            let Some(sp) = split(p_sx, &p_x, s, alpha) else { return Ok(identity(k)) };
            let b = if metric { transport_lp(&sp, d)? } else { full_lp(&sp, &p_x, alpha, d)? };
            check_10b(&b, &sp, &p_x, alpha)?;
            Ok(b)
        })
        .collect()
}

/// Whether `d` is a metric on a line in index order: d(x, y) = |t(y) − t(x)| for points
/// t(0) < t(1) < ⋯ — zero on the diagonal, symmetric, each step d(x, x + 1) positive and
/// every distance the sum of the steps between its ends, exactly (as floats; |x − y| on
/// indices is). A distortion that is one only to rounding is solved by LP (12), as any
/// other metric.
pub fn is_line_metric(d: &Matrix) -> bool {
    let k = d.rows();
    if d.cols() != k {
        return false;
    }
    (0..k).all(|x| {
        d.get(x, x) == 0.0
            && (x + 1..k).all(|y| {
                let v = d.get(x, y);
                let along = if y == x + 1 { v > 0.0 } else { v == d.get(x, y - 1) + d.get(y - 1, y) };
                along && d.get(y, x) == v
            })
    })
}

/// LP (12): the cheapest transport plan from X⁻(s) to X⁺(s) under d.
///
/// Only the x⁺ with a positive demand are variables of the LP; the others (an x with
/// P_X(x) = P(x|s), in particular one with P_X(x) = 0) receive nothing, exactly. Left
/// to the solver they would receive its residue (3e-17), and an output y released under
/// one secret and never under another has unbounded LDP and LIP w.r.t. S.
fn transport_lp(sp: &Split, d: &Matrix) -> Result<Matrix> {
    let k = d.rows();
    let (nm, np) = (sp.minus.len(), sp.plus.len());
    let sinks: Vec<usize> = (0..np).filter(|&j| sp.plus[j].1 > 0.0).collect();
    let mut flow = vec![0.0; nm * np];
    if nm == 0 || sinks.is_empty() {
        return Ok(block_from_plan(k, sp, &flow));
    }
    let ns = sinks.len();
    let mut lp = Lp::minimise();
    let f: Vec<usize> = (0..nm * ns).map(|i| lp.var(d.get(sp.minus[i / ns].0, sp.plus[sinks[i % ns]].0))).collect();
    for (i, &(_, supply)) in sp.minus.iter().enumerate() {
        let t: Vec<(usize, f64)> = (0..ns).map(|j| (f[i * ns + j], 1.0)).collect();
        lp.constraint(&t, Cmp::Eq, supply);
    }
    for (j, &jp) in sinks.iter().enumerate() {
        let t: Vec<(usize, f64)> = (0..nm).map(|i| (f[i * ns + j], 1.0)).collect();
        lp.constraint(&t, Cmp::Eq, sp.plus[jp].1);
    }
    let (v, _) = lp.solve("linear reduction LP (12)")?;
    for i in 0..nm {
        for (j, &jp) in sinks.iter().enumerate() {
            flow[i * np + jp] = v[f[i * ns + j]].max(0.0);
        }
    }
    Ok(block_from_plan(k, sp, &flow))
}

/// LP (10) over the whole block (rows with P(x'|s) = 0 are left as identity rows).
///
/// An output x whose target (1 − α)P(x|s) + αP_X(x) in (10b) is 0 gets no variable: every
/// row in the LP has P(x'|s) > 0, so (10b) forces its column to 0, exactly rather than
/// to the solver's residue (see [`transport_lp`]).
fn full_lp(sp: &Split, p_x: &[f64], alpha: f64, d: &Matrix) -> Result<Matrix> {
    let k = p_x.len();
    let rows: Vec<usize> = (0..k).filter(|&x| sp.cond[x] > 0.0).collect();
    let target: Vec<f64> = (0..k).map(|x| (1.0 - alpha) * sp.cond[x] + alpha * p_x[x]).collect();
    let cols: Vec<usize> = (0..k).filter(|&x| target[x] > 0.0).collect();
    let nc = cols.len();
    let mut lp = Lp::minimise();
    let q: Vec<usize> = rows
        .iter()
        .flat_map(|&xp| cols.iter().map(move |&x| (xp, x)))
        .map(|(xp, x)| lp.var(sp.cond[xp] * d.get(xp, x)))
        .collect();
    for r in 0..rows.len() {
        let t: Vec<(usize, f64)> = (0..nc).map(|c| (q[r * nc + c], 1.0)).collect();
        lp.constraint(&t, Cmp::Eq, 1.0);
    }
    for (c, &x) in cols.iter().enumerate() {
        let t: Vec<(usize, f64)> = rows.iter().enumerate().map(|(r, &xp)| (q[r * nc + c], sp.cond[xp])).collect();
        lp.constraint(&t, Cmp::Eq, target[x]);
    }
    let (v, _) = lp.solve("linear reduction LP (10)")?;
    let mut block = identity(k).as_slice().to_vec();
    for (r, &xp) in rows.iter().enumerate() {
        let row: Vec<f64> = (0..nc).map(|c| v[q[r * nc + c]].max(0.0)).collect();
        let sum: f64 = row.iter().sum();
        block[xp * k..(xp + 1) * k].iter_mut().for_each(|e| *e = 0.0);
        for (c, &x) in cols.iter().enumerate() {
            block[xp * k + x] = row[c] / sum;
        }
    }
    Ok(Matrix::from_flat(k, k, block))
}

/// Optimal non-Markov linear reduction for expected distance (Prop 2), `d` defaulting to
/// |x − y| on indices.
///
/// # Privacy
/// Claims the audited `ldp` and `lip` w.r.t. S. The curator applies it (it needs s).
pub fn distance(source: &Source, alpha: f64, d: Option<&Matrix>, id: &str) -> Result<Document> {
    check_alpha(alpha)?;
    let (_, k) = need_joint(source)?;
    let d = match d {
        Some(d) => {
            check_distortion(d, k)?;
            d.clone()
        }
        None => absolute_distance(k),
    };
    let blocks = distance_blocks(&source.p_sx(), alpha, &d)?;
    per_secret_doc(source, blocks, Some(&d), id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::utility::absolute_distance;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A joint of `ns` × `nx` with P(s, x) ∝ a uniform draw, some entries 0.
    fn random_joint(rng: &mut ChaCha8Rng, ns: usize, nx: usize) -> Matrix {
        let w: Vec<f64> = (0..ns * nx).map(|_| if rng.random_bool(0.15) { 0.0 } else { rng.random::<f64>() }).collect();
        let total: f64 = w.iter().sum();
        Matrix::from_flat(ns, nx, w.iter().map(|v| v / total).collect())
    }

    /// |t(x) − t(y)| for the points t(x) = Σ of `steps` before x.
    fn line(steps: &[f64]) -> Matrix {
        let t: Vec<f64> = core::iter::once(0.0)
            .chain(steps.iter().scan(0.0, |a, s| {
                *a += s;
                Some(*a)
            }))
            .collect();
        let k = t.len();
        Matrix::from_flat(k, k, (0..k * k).map(|i| (t[i / k] - t[i % k]).abs()).collect())
    }

    /// min(|x − y|, k − |x − y|): `k` points evenly on a circle, a metric on no line.
    fn circle(k: usize) -> Matrix {
        Matrix::from_flat(k, k, (0..k * k).map(|i| (i / k).abs_diff(i % k)).map(|a| a.min(k - a) as f64).collect())
    }

    /// The discrete metric over `k` points (1 between any two): on no line for k ≥ 3.
    fn discrete(k: usize) -> Matrix {
        Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { 0.0 } else { 1.0 }).collect())
    }

    /// The expected distortion Σ_x' P(x'|s) Σ_x P(x|s, x') d(x', x) of one secret's block.
    fn cost(block: &Matrix, sp: &Split, d: &Matrix) -> f64 {
        let k = d.rows();
        (0..k).map(|xp| sp.cond[xp] * (0..k).map(|x| block.get(xp, x) * d.get(xp, x)).sum::<f64>()).sum()
    }

    #[test]
    fn a_line_metric_is_one_of_steps_in_index_order() {
        assert!(is_line_metric(&absolute_distance(1)));
        assert!(is_line_metric(&absolute_distance(7)));
        assert!(is_line_metric(&line(&[1.0, 3.0, 0.5, 2.0])));
        // Metrics that are not on a line in index order: the points out of order, the
        // discrete metric, a circle of four.
        let out_of_order = Matrix::from_flat(3, 3, vec![0.0, 2.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
        for (d, what) in [(&out_of_order, "out of order"), (&discrete(3), "discrete"), (&circle(4), "circle")] {
            assert!(is_metric(d), "{what}");
            assert!(!is_line_metric(d), "{what}");
        }
        // Not metrics: a zero step, asymmetry, a squared distance, a rectangle.
        assert!(!is_line_metric(&line(&[1.0, 0.0, 1.0])));
        let mut asym = absolute_distance(3).as_slice().to_vec();
        asym[3] = 1.5;
        assert!(!is_line_metric(&Matrix::from_flat(3, 3, asym)));
        assert!(!is_line_metric(&Matrix::from_flat(
            3,
            3,
            (0..9).map(|i| ((i / 3) as f64 - (i % 3) as f64).powi(2)).collect()
        )));
        assert!(!is_line_metric(&Matrix::from_flat(2, 3, vec![0.0; 6])));
    }

    /// The closed form of LP (12) on a line costs what the LP's optimum costs, secret by
    /// secret: on |x − y|, on lines of uneven steps, with zeros in the joint.
    #[test]
    fn on_a_line_the_north_west_plan_is_the_optimum_of_lp_12() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for case in 0..60 {
            let (ns, nx) = (rng.random_range(1..6), rng.random_range(2..14));
            let p_sx = random_joint(&mut rng, ns, nx);
            let d = if case % 2 == 0 {
                absolute_distance(nx)
            } else {
                line(&(1..nx).map(|_| f64::from(rng.random_range(1..6u8))).collect::<Vec<_>>())
            };
            assert!(is_line_metric(&d));
            let alpha = [0.1, 0.5, 0.9, 1.0][case % 4];
            let blocks = distance_blocks(&p_sx, alpha, &d).unwrap();
            let p_x = p_sx.col_sums();
            for (s, block) in blocks.iter().enumerate() {
                let Some(sp) = split(&p_sx, &p_x, s, alpha) else { continue };
                let optimum = cost(&transport_lp(&sp, &d).unwrap(), &sp, &d);
                let closed = cost(block, &sp, &d);
                assert!(
                    (closed - optimum).abs() <= 1e-9 * optimum.max(1.0),
                    "case {case}, s = {s}: {closed} ≠ {optimum}"
                );
            }
        }
    }

    /// Off a line LP (12) is solved, and on a metric it is as good as the full LP (10)
    /// (Prop 2): the circle of six and the discrete metric.
    #[test]
    fn off_a_line_lp_12_is_solved_and_matches_lp_10_on_a_metric() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        for d in [&circle(6), &discrete(6)] {
            assert!(is_metric(d) && !is_line_metric(d));
            for case in 0..10 {
                let p_sx = random_joint(&mut rng, 3, 6);
                let alpha = [0.2, 0.6][case % 2];
                let blocks = distance_blocks(&p_sx, alpha, d).unwrap();
                let p_x = p_sx.col_sums();
                for (s, block) in blocks.iter().enumerate() {
                    let Some(sp) = split(&p_sx, &p_x, s, alpha) else { continue };
                    let full = cost(&full_lp(&sp, &p_x, alpha, d).unwrap(), &sp, d);
                    let reduced = cost(block, &sp, d);
                    assert!((reduced - full).abs() <= 1e-9, "case {case}, s = {s}: LP 12 {reduced}, LP 10 {full}");
                }
            }
        }
    }
}
