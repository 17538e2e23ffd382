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
//!   is solved instead.
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
pub fn distance_blocks(p_sx: &Matrix, alpha: f64, d: &Matrix) -> Result<Vec<Matrix>> {
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
