//! Randomised response: k-ary RR for ε-LDP, the prior-aware optimal RR for ε-LIP
//! (Jiang et al. eq 19, with the exact condition under which it is ε-LIP and an LP when
//! it is not), the binary RR for an uncertain prior P_X(1) ∈ \[a,b\] (Jiang et al.
//! IV-B2), and BP-LIP RR for a finite set of priors (an LP, Jiang et al. V-A (c)).

use alloc::vec;
use alloc::vec::Vec;

use super::lp::clean_rows;
use super::lp::{Cmp, Lp};
use super::publication::{compact, publish, publish_channel, with_extra, Audited, Draft};
use super::utility::{absolute_distance, channel_utility, check_distortion};
use super::Source;
use privlift::document::{Alphabet, BpLip, Claims, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
use privlift::param::{Epsilon, Probability};
use privlift::verify::REL_TOLERANCE;

/// The k-RR channel: e^ε/(e^ε+k−1) on the diagonal, 1/(e^ε+k−1) elsewhere.
pub fn krr_matrix(k: usize, epsilon: Epsilon) -> Matrix {
    let eps = epsilon.get();
    let e = libm::exp(eps);
    let (d, o) = (e / (e + k as f64 - 1.0), 1.0 / (e + k as f64 - 1.0));
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { d } else { o }).collect())
}

/// k-ary randomised response, ε-LDP (Jiang et al. V-A (d)).
///
/// # Privacy
/// Claims `ldp_x = ε` (prior-free), plus the audited LIP (and LDP w.r.t. S for a joint).
pub fn krr(source: &Source, epsilon: Epsilon, id: &str) -> Result<Document> {
    let k = source.labels().len();
    let utility = channel_utility(&source.p_x(), &krr_matrix(k, epsilon), None);
    let claims = Claims { ldp_x: Some(epsilon.into()), ..Claims::default() };
    let audited = Audited { lip: true, ldp: matches!(source, Source::Joint { .. }), ..Audited::default() };
    // Published as the O(1) `krr` kind: κ = (e^ε − 1)/(e^ε + k − 1), the same channel.
    let mechanism = MechanismKind::Krr { epsilon: Some(epsilon), keep: privlift::document::krr_keep(k, epsilon)? };
    publish(Draft { id, source, output: Some(source.labels().clone()), claims, audited }, mechanism, utility)
}

/// Whether Jiang et al.'s eq 19 is ε-LIP for `prior`.
///
/// Eq 19 sets q_xy = P(y)e^{−ε} (x ≠ y) and q_xx = 1 − (1 − P(x))e^{−ε}, so P_Y = P_X
/// and every off-diagonal lift is exactly e^{−ε}. The diagonal lift is
/// q_xx/P(x) = (1 − (1 − P)e^{−ε})/P, and with t = e^ε,
/// q_xx/P(x) ≤ t ⟺ P t² − t + (1 − P) ≥ 0 ⟺ (t − 1)(P t − (1 − P)) ≥ 0,
/// so for ε > 0 it holds **iff P(x) ≥ 1/(1 + e^ε)** for every x with P(x) > 0. The
/// paper states eq 19 as optimal without this condition; for |X| ≥ 3 and small ε it
/// fails on most priors (e.g. uniform on 3 symbols at ε = 0.5: 1/3 < 0.378).
pub fn eq19_is_lip(prior: &[f64], epsilon: Epsilon) -> bool {
    let eps = epsilon.get();
    let bound = 1.0 / (1.0 + libm::exp(eps));
    prior.iter().all(|&p| p == 0.0 || p >= bound)
}

/// The channel of eq 19 (valid as ε-LIP only when [`eq19_is_lip`]).
pub fn eq19_matrix(prior: &[f64], epsilon: Epsilon) -> Matrix {
    let eps = epsilon.get();
    let k = prior.len();
    let e = libm::exp(-eps);
    Matrix::from_flat(
        k,
        k,
        (0..k * k).map(|i| if i / k == i % k { 1.0 - (1.0 - prior[i / k]) * e } else { prior[i % k] * e }).collect(),
    )
}

/// What [`rr_lip_for`] optimises over the ε-LIP channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Objective {
    /// The papers' P(Y = X) (Jiang et al. eq 19, else the LP): the default. Degenerate on
    /// about half of the priors: the optimum may release the most likely value whatever X
    /// is (I(X;Y) = 0).
    #[default]
    Hit,
    /// I(X;Y): the optimal random response w.r.t. X (Lopuhaä-Zwakenberg Thm 2 with S = X,
    /// [`super::orr`]). Its outputs are posterior columns, not values of X.
    Mi,
    /// E[d(X, Y)] under a distortion d (|x − y| on indices by default), by the LP.
    Distortion,
}

impl Objective {
    /// The objectives by name, in help order.
    pub const NAMES: [&'static str; 3] = ["hit", "mi", "distortion"];

    /// The objective named `name` (`hit`, `mi` or `distortion`).
    ///
    /// # Errors
    /// `invalid_argument` naming the accepted values.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "hit" => Ok(Objective::Hit),
            "mi" => Ok(Objective::Mi),
            "distortion" => Ok(Objective::Distortion),
            _ => Err(Error::invalid(
                "objective",
                alloc::format!("expected one of {}, got `{name}`", Objective::NAMES.join(", ")),
            )),
        }
    }
}

/// Prior-aware ε-LIP randomised response with the objective chosen: [`rr_lip`] for
/// [`Objective::Hit`]; for [`Objective::Distortion`] the LP min E[d(X,Y)] over the ε-LIP
/// channels with Y = X (d from `distortion`, else |x − y|); for [`Objective::Mi`] the
/// ORR w.r.t. X, maximising I(X;Y) exactly (the LP over the lift polytope's vertices).
///
/// # Privacy
/// Claims `lip = ε` w.r.t. the source's secret (LIP w.r.t. X bounds it, Jiang et al.
/// Lemma 1.5).
///
/// # Errors
/// As [`rr_lip`]; `invalid_argument` for a distortion with the `hit` or `mi` objective or
/// of the wrong size.
pub fn rr_lip_for(
    source: &Source,
    epsilon: Epsilon,
    objective: Objective,
    distortion: Option<&Matrix>,
    id: &str,
) -> Result<Document> {
    let eps = epsilon.get();
    let prior = source.p_x();
    if distortion.is_some() && objective != Objective::Distortion {
        return Err(Error::invalid("distortion", "a distortion is used by the `distortion` objective only"));
    }
    match objective {
        Objective::Hit => rr_lip(source, epsilon, id),
        Objective::Distortion => {
            if let Some(d) = distortion {
                check_distortion(d, prior.len())?;
            }
            let d = distortion.cloned().unwrap_or_else(|| absolute_distance(prior.len()));
            let w = bp_lip_channel(core::slice::from_ref(&prior), eps, Some(&d), false)?;
            let utility = channel_utility(&prior, &w, Some(&d));
            let claims = Claims { lip: Some(epsilon.into()), ..Claims::default() };
            publish(
                Draft { id, source, output: Some(source.labels().clone()), claims, audited: Audited::default() },
                compact(w),
                utility,
            )
        }
        Objective::Mi => {
            // The ORR w.r.t. X, re-published against the source (its secret, if any).
            let on_x = Source::prior(source.labels().clone(), prior.clone())?;
            let orr = super::orr::orr_lip(&on_x, epsilon, id)?;
            let nx = prior.len();
            let w = orr
                .mechanism()
                .channel_matrix(nx)
                .ok_or_else(|| Error::DesignFailed { reason: "no channel".into() })?;
            let ny = w.cols();
            let claims = Claims { lip: Some(epsilon.into()), ..Claims::default() };
            let doc = publish_channel(
                Draft {
                    id,
                    source,
                    output: Some(Alphabet::indices("output_labels", ny)?),
                    claims,
                    audited: Audited::default(),
                },
                w,
                compact,
                |w| super::utility::released_utility(&prior, w, &vec![None; ny]),
            )?;
            let vertices =
                orr.utility().and_then(|u| u.get("vertices")).map_or(serde_json::Value::Null, |v| v.to_value());
            Ok(with_extra(doc, vec![("vertices", vertices)]))
        }
    }
}

/// Prior-aware optimal RR for ε-LIP with a fixed prior.
///
/// Uses eq 19 when it is ε-LIP ([`eq19_is_lip`]); otherwise solves the LP
/// max Σ_x P(x) q_xx (i.e. min P(Y ≠ X)) over row-stochastic q with
/// e^{−ε} P_Y(y) ≤ q_xy ≤ e^{ε} P_Y(y) for every x with P(x) > 0 — the exact set of
/// ε-LIP channels with |Y| = |X| (eq 8 with the lift written as q_xy / P_Y(y)).
///
/// The objective is the papers' P(Y ≠ X). On a skewed prior at a small ε its optimum can
/// be degenerate: for P = (0.9, 0.1) at ε = 1 the best ε-LIP channel releases the
/// majority value always (P(Y ≠ X) = 0.1, I(X;Y) = 0). That is the true optimum of the
/// stated objective. Such a document says so (`utility.ignores_input`, its
/// `description`, and the CLI on stderr; see `publish`); a curator who wants
/// information should use [`rr_lip_for`] with [`Objective::Mi`], a larger ε or k-RR.
///
/// # Privacy
/// Claims `lip = ε` w.r.t. the source's secret (for a joint: by the linkage inequality,
/// Jiang et al. Lemma 1.5, LIP w.r.t. S ≤ LIP w.r.t. X).
pub fn rr_lip(source: &Source, epsilon: Epsilon, id: &str) -> Result<Document> {
    let eps = epsilon.get();
    let prior = source.p_x();
    let (w, mechanism) = if eq19_is_lip(&prior, epsilon) {
        // Eq 19 is the mixture κ·I + (1 − κ)·1P_Xᵀ with κ = 1 − e^{−ε}: the O(k) `rr_lip` kind.
        let keep = Probability::new("keep", -libm::expm1(-eps))?;
        let mechanism = MechanismKind::RrLip { keep, mixing: prior.clone() };
        (eq19_matrix(&prior, epsilon), mechanism)
    } else {
        let w = bp_lip_channel(core::slice::from_ref(&prior), eps, Some(&hamming_distance(prior.len())), false)?;
        (w.clone(), compact(w))
    };
    let utility = channel_utility(&prior, &w, None);
    let claims = Claims { lip: Some(epsilon.into()), ..Claims::default() };
    publish(
        Draft { id, source, output: Some(source.labels().clone()), claims, audited: Audited::default() },
        mechanism,
        utility,
    )
}

/// The closed form of Jiang et al. IV-B2 for P_X(1) ∈ [a, b]:
/// q01 = b/(b − a + e^ε), q10 = (1 − a)/(b − a + e^ε) (rows x = 0, 1).
pub fn interval_matrix(a: f64, b: f64, epsilon: Epsilon) -> Matrix {
    let eps = epsilon.get();
    let d = b - a + libm::exp(eps);
    let (q01, q10) = (b / d, (1.0 - a) / d);
    Matrix::from_flat(2, 2, vec![1.0 - q01, q01, q10, 1.0 - q10])
}

/// sup over p ∈ [a, b] and all (x, y) of |ln l(x, y)| for a binary channel.
///
/// l(x,y) = W_xy / P_Y(y) with P_Y(y) affine in p, so each lift is monotone in p and its
/// extremes are at p = a or p = b. The lifts of an input with prior 0 at an endpoint are
/// included as limits (an interior prior gives it positive mass).
pub fn interval_lip(w: &Matrix, a: f64, b: f64) -> f64 {
    let mut worst = 0.0f64;
    for p in [a, b] {
        for y in 0..2 {
            if w.get(0, y) == 0.0 && w.get(1, y) == 0.0 {
                continue; // never released
            }
            let py = (1.0 - p) * w.get(0, y) + p * w.get(1, y);
            for x in 0..2 {
                let l = w.get(x, y) / py;
                worst = worst.max(if l > 0.0 && l.is_finite() { libm::log(l).abs() } else { f64::INFINITY });
            }
        }
    }
    worst
}

/// The labels of a binary X.
///
/// # Errors
/// `dimension_mismatch` (field `labels`) unless there are exactly two.
pub fn binary_labels(labels: Alphabet) -> Result<Alphabet> {
    if labels.len() != 2 {
        return Err(Error::field("labels").dims(2, labels.len()));
    }
    Ok(labels)
}

/// The closed form of [`rr_lip_interval`] is published only when [`interval_lip`] puts it
/// this far (relative) below ε: the audit rounds leakage up by a few ulps, and a closed
/// form on the budget's edge would audit a hair above it. Otherwise the LP decides.
const CLOSED_FORM_MARGIN: f64 = 1e-12;

/// Binary RR for an uncertain prior P_X(1) ∈ [a, b] (Jiang et al. IV-B2).
///
/// The printed closed form is checked with [`interval_lip`]; it is not ε-LIP on every
/// interval (e.g. a = b = 0.1 at ε = 1 reduces to eq 19 with P(1) = 0.1 < 1/(1+e)). When
/// it fails, the BP-LIP LP over the two endpoint priors (with every input constrained,
/// see [`interval_lip`]) gives the optimal RR instead.
///
/// # Privacy
/// Claims `bp_lip` with ε over the endpoint priors, and `lip = ε` under the midpoint
/// prior the document declares. Every prior in [a, b] is ε-LIP by the monotonicity
/// argument of [`interval_lip`].
pub fn rr_lip_interval(labels: Alphabet, a: f64, b: f64, epsilon: Epsilon, id: &str) -> Result<Document> {
    let eps = epsilon.get();
    let labels = binary_labels(labels)?;
    if !(a.is_finite() && b.is_finite() && 0.0 <= a && a <= b && b <= 1.0) {
        return Err(Error::invalid("a, b", alloc::format!("need 0 ≤ a ≤ b ≤ 1, got [{a}, {b}]")));
    }
    let priors = vec![vec![1.0 - a, a], vec![1.0 - b, b]];
    let closed = interval_matrix(a, b, epsilon);
    let w = if interval_lip(&closed, a, b) <= eps * (1.0 - CLOSED_FORM_MARGIN) {
        closed
    } else {
        bp_lip_channel(&priors, eps, Some(&hamming_distance(2)), true)?
    };
    if interval_lip(&w, a, b) > eps * (1.0 + REL_TOLERANCE) {
        return Err(Error::DesignFailed { reason: "interval RR misses ε at an endpoint".into() });
    }
    let mid = (a + b) / 2.0;
    let source = Source::prior(labels, vec![1.0 - mid, mid])?;
    let utility = channel_utility(&source.p_x(), &w, None);
    let claims =
        Claims { lip: Some(epsilon.into()), bp_lip: Some(BpLip { eps: epsilon.into(), priors }), ..Claims::default() };
    publish(
        Draft { id, source: &source, output: Some(source.labels().clone()), claims, audited: Audited::default() },
        MechanismKind::Matrix(w),
        utility,
    )
}

/// BP-LIP randomised response for a finite set of priors (Jiang et al. V-A (c)): the LP
/// min E_{P̄}[d(X,Y)] s.t. ε-LIP under every prior, P̄ the average of the priors, d the
/// given distortion (default |x − y| on indices).
///
/// # Privacy
/// Claims `bp_lip` with ε over `priors` and `lip = ε` under the declared prior P̄. The
/// latter is the modular property (Jiang et al. Lemma 2): P̄_Y(y) is the average of the
/// P_Y(y), so e^{−ε} ≤ P(y|x)/P_Y(y) ≤ e^ε under every prior gives the same bounds under
/// P̄. The lemma needs these bounds for every x that P̄ gives mass, also under a prior
/// that gives that x none, so `bp_lip_channel` constrains those rows under every prior.
pub fn rr_bp_lip(
    labels: Alphabet,
    priors: &[Vec<f64>],
    epsilon: Epsilon,
    distortion: Option<&Matrix>,
    id: &str,
) -> Result<Document> {
    let eps = epsilon.get();
    let k = labels.len();
    if priors.is_empty() {
        return Err(Error::invalid("priors", "need at least one prior"));
    }
    for (i, p) in priors.iter().enumerate() {
        let f = alloc::format!("priors[{i}]");
        if p.len() != k {
            return Err(Error::field(f).dims(k, p.len()));
        }
        privlift::document::check_distribution(&f, p)?;
    }
    if let Some(d) = distortion {
        check_distortion(d, k)?;
    }
    let w = bp_lip_channel(priors, eps, distortion, false)?;
    let source = Source::prior(labels, mean_prior(priors))?;
    let utility = channel_utility(&source.p_x(), &w, distortion);
    let claims = Claims {
        lip: Some(epsilon.into()),
        bp_lip: Some(BpLip { eps: epsilon.into(), priors: priors.to_vec() }),
        ..Claims::default()
    };
    publish(
        Draft { id, source: &source, output: Some(source.labels().clone()), claims, audited: Audited::default() },
        compact(w),
        utility,
    )
}

/// The relative margin below ε at which [`bp_lip_channel`] solves its LP: the solver meets
/// a constraint only to 1e-10 absolute, which over a small P_Y(y) is a larger relative
/// error in a lift; what is left above ε after this margin is [`repair`]'s to remove.
const LP_MARGIN: f64 = 1e-7;

/// How far an LP row of [`bp_lip_channel`] may stray from a distribution (an entry below
/// 0, a sum away from 1) before the solution is refused rather than renormalised: far
/// above the solver's 1e-10 per constraint, far below any real entry.
const LP_ROW_SLACK: f64 = 1e-7;

/// The mean P̄ of a set of priors of X, coordinate by coordinate: the prior a BP-LIP
/// document declares, and the one its LP's objective and [`repair`] weigh by.
fn mean_prior(priors: &[Vec<f64>]) -> Vec<f64> {
    (0..priors[0].len()).map(|x| priors.iter().map(|p| p[x]).sum::<f64>() / priors.len() as f64).collect()
}

/// The BP-LIP LP: e^{−ε} ≤ q_xy / P_Y(y) ≤ e^ε under every prior for every constrained
/// input x. An input is constrained when the mean prior P̄ gives it mass, even under a
/// prior that gives it none: the lift of such an x is not part of that prior's LIP, but
/// the modular property (Jiang et al. Lemma 2) that makes the channel ε-LIP under P̄
/// needs its bounds under each prior (with the priors [½, ½, 0] and [⅓, ⅓, ⅓], a third
/// row bounded only under the second prior audits above ε under their mean). With
/// `all_rows`, every input is constrained (needed for the interval design, whose
/// endpoints stand for the interior priors).
///
/// The LP is solved at ε·(1 − [`LP_MARGIN`]) so that the solver's feasibility tolerance
/// cannot push a lift past ε; the result is then re-checked by the caller's audit.
pub(crate) fn bp_lip_channel(
    priors: &[Vec<f64>],
    eps: f64,
    distortion: Option<&Matrix>,
    all_rows: bool,
) -> Result<Matrix> {
    let k = priors[0].len();
    let d = distortion.cloned().unwrap_or_else(|| absolute_distance(k));
    let mean = mean_prior(priors);
    let target = eps * (1.0 - LP_MARGIN);
    let (up, lo) = (libm::exp(target), libm::exp(-target));
    let constrained = constrained_rows(priors, all_rows);
    let mut lp = Lp::minimise();
    let q: Vec<usize> = (0..k * k).map(|i| lp.var(mean[i / k] * d.get(i / k, i % k))).collect();
    for x in 0..k {
        let row: Vec<(usize, f64)> = (0..k).map(|y| (q[x * k + y], 1.0)).collect();
        lp.constraint(&row, Cmp::Eq, 1.0);
    }
    for p in priors {
        let t: Vec<usize> = (0..k).map(|_| lp.var(0.0)).collect();
        for y in 0..k {
            let mut terms: Vec<(usize, f64)> = (0..k).filter(|&x| p[x] > 0.0).map(|x| (q[x * k + y], p[x])).collect();
            terms.push((t[y], -1.0));
            lp.constraint(&terms, Cmp::Eq, 0.0);
            for x in (0..k).filter(|&x| constrained[x]) {
                lp.constraint(&[(q[x * k + y], 1.0), (t[y], -up)], Cmp::Le, 0.0);
                lp.constraint(&[(q[x * k + y], 1.0), (t[y], -lo)], Cmp::Ge, 0.0);
            }
        }
    }
    let (v, _) = lp.solve("BP-LIP RR")?;
    let w = clean_rows(k, k, v[..k * k].to_vec(), LP_ROW_SLACK, "BP-LIP RR")?;
    repair(drop_negligible_outputs(w, &constrained), priors, eps, &constrained)
}

/// The inputs whose lifts [`bp_lip_channel`] bounds under every prior: all of them with
/// `all_rows`, else those in the support of the mean prior (those some prior gives mass).
fn constrained_rows(priors: &[Vec<f64>], all_rows: bool) -> Vec<bool> {
    (0..priors[0].len()).map(|x| all_rows || priors.iter().any(|p| p[x] > 0.0)).collect()
}

/// Below this largest entry (over the constrained rows) an output of the LP is noise: 10×
/// the solver's 1e-10 feasibility tolerance, and far below any output a design means.
const NEGLIGIBLE_OUTPUT: f64 = 1e-9;

/// An output the LP leaves at P_Y(y) ≈ 0 (below the solver's tolerance) has entries that
/// are noise, and a noise entry of 0 next to a positive P_Y(y) is an infinite lift. Such
/// an output is removed: its entries in the constrained rows are set to 0 and those rows
/// renormalised (a change of at most |Y|·[`NEGLIGIBLE_OUTPUT`] per row), so it is never
/// released.
fn drop_negligible_outputs(w: Matrix, constrained: &[bool]) -> Matrix {
    let (k, ny) = (w.rows(), w.cols());
    let mut v = w.as_slice().to_vec();
    for y in 0..ny {
        let peak = (0..k).filter(|&x| constrained[x]).map(|x| v[x * ny + y]).fold(0.0, f64::max);
        if peak > 0.0 && peak < NEGLIGIBLE_OUTPUT {
            for x in (0..k).filter(|&x| constrained[x]) {
                v[x * ny + y] = 0.0;
            }
        }
    }
    for r in v.chunks_mut(ny) {
        let s: f64 = r.iter().sum();
        r.iter_mut().for_each(|e| *e /= s);
    }
    Matrix::from_flat(k, ny, v)
}

/// The ε-LIP LP for one prior, exposed for optimality tests.
#[doc(hidden)]
pub fn bp_lip_channel_for_test(prior: &[f64], epsilon: Epsilon) -> Matrix {
    let eps = epsilon.get();
    bp_lip_channel(&[prior.to_vec()], eps, Some(&hamming_distance(prior.len())), false).expect("LP")
}

fn hamming_distance(k: usize) -> Matrix {
    Matrix::from_flat(k, k, (0..k * k).map(|i| if i / k == i % k { 0.0 } else { 1.0 }).collect())
}

/// Worst |ln (q_xy / P_Y(y))| over the priors and the `constrained` inputs x, whether or
/// not the prior gives x mass (see [`bp_lip_channel`]).
fn worst_lip(w: &Matrix, priors: &[Vec<f64>], constrained: &[bool]) -> f64 {
    let (k, ny) = (w.rows(), w.cols());
    let mut worst = 0.0f64;
    for p in priors {
        for y in 0..ny {
            let py: f64 = (0..k).map(|x| p[x] * w.get(x, y)).sum();
            if py <= 0.0 {
                // Unreleased under this prior; a constrained input that releases y has
                // an unbounded lift here (under the mean prior, or at nearby priors).
                if (0..k).any(|x| constrained[x] && w.get(x, y) > 0.0) {
                    return f64::INFINITY;
                }
                continue;
            }
            for x in (0..k).filter(|&x| constrained[x]) {
                let l = w.get(x, y) / py;
                worst = worst.max(if l > 0.0 { libm::log(l).abs() } else { f64::INFINITY });
            }
        }
    }
    worst
}

/// The relative margin below ε that [`repair`] restores: the audit rounds a lift up by
/// a few ulps (~1e-15 relative), so 1e-10 keeps the repaired channel within ε after it.
const REPAIR_MARGIN: f64 = 1e-10;

/// The LP's vertex meets each constraint only to the solver's absolute tolerance
/// (1e-10), so a lift over a small P_Y(y) can exceed e^ε by a relative 1e-10/P_Y(y). If
/// that happens, mix the channel with the output distribution r = P̄_Y,
/// W' = (1−λ)W + λ·1rᵀ, which pulls every lift towards 1 (exactly, for a single prior:
/// l' = (1−λ)l + λ), for the smallest λ found by bisection that restores ε with a
/// [`REPAIR_MARGIN`] for the audit's upward rounding. λ = 1 gives an output independent
/// of X, so a solution always exists; the utility lost is of the order of λ.
fn repair(w: Matrix, priors: &[Vec<f64>], eps: f64, constrained: &[bool]) -> Result<Matrix> {
    let target = eps * (1.0 - REPAIR_MARGIN);
    if worst_lip(&w, priors, constrained) <= target {
        return Ok(w);
    }
    let (k, ny) = (w.rows(), w.cols());
    let mean = mean_prior(priors);
    let r: Vec<f64> = (0..ny).map(|y| (0..k).map(|x| mean[x] * w.get(x, y)).sum()).collect();
    let mix = |lambda: f64| {
        let v: Vec<f64> = (0..k * ny).map(|i| (1.0 - lambda) * w.as_slice()[i] + lambda * r[i % ny]).collect();
        Matrix::from_flat(k, ny, v)
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if worst_lip(&mix(mid), priors, constrained) <= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let m = mix(hi);
    if worst_lip(&m, priors, constrained) <= target {
        Ok(m)
    } else {
        Err(Error::DesignFailed { reason: "could not bring the LP solution within ε".into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq19_condition_is_exact() {
        let eps: f64 = 1.0;
        let bound = 1.0 / (1.0 + eps.exp());
        for (p, ok) in [(bound * 1.000001, true), (bound * 0.999, false)] {
            let prior = [p, 1.0 - p];
            assert_eq!(eq19_is_lip(&prior, Epsilon::positive("epsilon", eps).unwrap()), ok);
            let w = eq19_matrix(&prior, Epsilon::positive("epsilon", eps).unwrap());
            let l = privlift::leakage::audit(
                &super::super::Source::prior(Alphabet::indices("l", 2).unwrap(), prior.to_vec()).unwrap().p_sx(),
                &w,
                2.0,
            )
            .unwrap();
            assert_eq!(l.lip <= eps * (1.0 + REL_TOLERANCE), ok, "p = {p}: lip {}", l.lip);
        }
    }
}
