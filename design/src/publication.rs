//! Publication: a design's draft becomes a document only after the library's own audit
//! confirms every claim ([`publish`]); a channel a hair above its target is first repaired
//! by the least mixing with the output that ignores X ([`publish_channel`]). Also the
//! kind a channel is published in ([`compact`], [`srr_form`]) and the unaudited extras a
//! published document's `utility` carries ([`with_extra`]).

use alloc::vec::Vec;

use privlift::document::{Alphabet, Claims, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
use privlift::param::Budget;
use privlift::verify::Policy;

use crate::utility::{self, Utility};
use crate::Source;

/// Which audited values a design adds to its claims (rounded up by the audit). A figure
/// the audit finds unbounded is not added ([`audit_draft`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Audited {
    pub lip: bool,
    pub ldp: bool,
    pub ldp_x: bool,
}

/// What every publication states besides its mechanism and utility: the document's id,
/// the source it is designed for, its output labels (`None`: the indices), what it
/// claims, and which audited figures to add to those claims.
pub(crate) struct Draft<'a> {
    pub id: &'a str,
    pub source: &'a Source,
    pub output: Option<Alphabet>,
    pub claims: Claims,
    pub audited: Audited,
}

/// Assembles a document, adds audited claims, attaches utility, and publishes it only
/// if the library's own verification confirms every claim.
///
/// # Claims are upper bounds of the audit
/// The audit rounds every leakage up, so its figure is at least the exact leakage of the
/// published numbers. A claim at most that figure could be below the exact leakage (an
/// SRR claim 7.1e-10 relative under it passed the verifier's tolerance), so:
/// - every audited figure at most its target (the request): the claim is the target;
/// - else, when every figure is within the verifier's tolerance of its target
///   ([`privlift::verify::within`], 1e-9 relative: the analytic designs, k-RR's
///   ln(κ + (1 − κ)/k) − ln((1 − κ)/k) is ε to a few ulps), the claims above it are
///   **raised to the audited figure**, never left below it ([`raise_to_audit`]);
/// - else the design fails (`design_failed`). The channel designers first try
///   [`publish_channel`]'s repair.
pub(crate) fn publish(draft: Draft, mechanism: MechanismKind, utility: Utility) -> Result<Document> {
    let (doc, checks) = audit_draft(&draft, mechanism, utility)?;
    conclude(doc, &checks)
}

/// [`publish`]'s rule on an audited draft: the draft as it is when every figure meets its
/// claim, its claims raised to the audit when all are within the verifier's tolerance,
/// else `design_failed`.
fn conclude(doc: Document, checks: &[privlift::verify::Check]) -> Result<Document> {
    if let Some(c) = checks.iter().find(|c| !c.holds) {
        return Err(Error::DesignFailed {
            reason: alloc::format!("{} audits at {} nats, above the target {}", c.notion, c.actual, c.bound),
        });
    }
    if checks.iter().all(meets) {
        return Ok(said_if_ignores_input(doc));
    }
    let claims = raise_to_audit(doc.claims().clone(), checks);
    Ok(said_if_ignores_input(doc.with_claims(claims)?))
}

/// Below this I(X;Y) (nats) a design's output is taken to ignore X: rounding leaves
/// ~1e-17 where the exact value is 0, and a useful design has far more.
pub const IGNORES_INPUT_MI: f64 = 1e-12;

/// A document whose output ignores X (I(X;Y) ≤ [`IGNORES_INPUT_MI`]) says so: in
/// `utility.ignores_input` and in its `description`. Such a channel is private for every
/// budget, and it is the exact optimum of some objectives (P(Y = X) on a skewed prior at
/// a small ε, [`rr::rr_lip`]), but it teaches the curator nothing.
fn said_if_ignores_input(doc: Document) -> Document {
    let ignores =
        doc.utility().and_then(|u| u.get("mi_xy")).and_then(|v| v.as_f64()).is_some_and(|mi| mi <= IGNORES_INPUT_MI);
    if !ignores {
        return doc;
    }
    let doc = with_extra(doc, alloc::vec![("ignores_input", true.into())]);
    match doc.description() {
        Some(_) => doc,
        None => doc.with_description(
            "The output of this mechanism does not depend on the input (I(X;Y) = 0): it is private, \
             but the reports carry no information about X.",
        ),
    }
}

/// The draft document with its claims (audited ones filled in) and utility, and the
/// checks of every claim against the library's own audit.
///
/// An audited figure that is infinite (an output that one secret, or one input for
/// `ldp_x`, can produce and another cannot) bounds nothing, so it is left out of the
/// claims rather than claimed as ∞, which a document cannot hold: the document is then
/// published with its finite claims, and the audit a client runs still reports the
/// unbounded figure. A draft left with no claim at all is `design_failed`.
fn audit_draft(
    draft: &Draft,
    mechanism: MechanismKind,
    utility: Utility,
) -> Result<(Document, Vec<privlift::verify::Check>)> {
    let Draft { id, source, audited, .. } = *draft;
    let mut claims = draft.claims.clone();
    let draft = Document::new(
        id,
        source.labels().clone(),
        draft.output.clone(),
        source.p_x(),
        source.secret(),
        mechanism,
        Claims::default(),
    )?;
    if audited.lip || audited.ldp || audited.ldp_x {
        let l = draft.check(&unbounded())?.leakage;
        // An unbounded figure is no claim.
        let bounded = |name: &str, v: f64| v.is_finite().then(|| Budget::finite(name, v)).transpose();
        if audited.lip {
            claims.lip = bounded("claims.lip", l.lip)?;
        }
        if audited.ldp {
            claims.ldp = bounded("claims.ldp", l.ldp)?;
        }
        if audited.ldp_x {
            claims.ldp_x = bounded("claims.ldp_x", l.ldp_x)?;
        }
    }
    let doc = draft.with_claims(claims)?.with_utility(utility::to_json(&utility));
    let report = doc.check(&unbounded())?;
    if report.claims.is_empty() {
        return Err(Error::DesignFailed { reason: "the design makes no claim".into() });
    }
    Ok((doc, report.claims))
}

/// The curator audits its own design, whatever it costs: the client's verification
/// budget (`maxVerifyWork`) is the client's to set.
fn unbounded() -> Policy {
    Policy { max_verify_work: Some(f64::INFINITY), ..Policy::default() }
}

/// Whether an audited figure is at most its claim, exactly (no tolerance).
fn meets(c: &privlift::verify::Check) -> bool {
    c.actual <= c.bound
}

/// `claims` with every claimed figure below its audited value raised to it (the audit's
/// figure is rounded up, so the claim is then an upper bound of the exact leakage).
pub(crate) fn raise_to_audit(mut claims: Claims, checks: &[privlift::verify::Check]) -> Claims {
    for c in checks.iter().filter(|c| !meets(c)) {
        let a = c.actual;
        let (measure, lower) = match c.notion.split_once('.') {
            Some((m, s)) => (m, s == "eps_l"),
            None => (c.notion.as_str(), false),
        };
        // The side (εl or εu) of a two-sided claim that the check is about.
        let side = |eps_l: &mut Budget, eps_u: &mut Budget| {
            let e = if lower { eps_l } else { eps_u };
            *e = e.raised_to(a);
        };
        match measure {
            "ldp" => claims.ldp = claims.ldp.map(|e| e.raised_to(a)),
            "ldp_x" => claims.ldp_x = claims.ldp_x.map(|e| e.raised_to(a)),
            "lip" => claims.lip = claims.lip.map(|e| e.raised_to(a)),
            "bp_lip" => {
                if let Some(b) = claims.bp_lip.as_mut() {
                    b.eps = b.eps.raised_to(a);
                }
            }
            "srlip" => {
                if let Some(b) = claims.srlip.as_mut() {
                    b.eps = b.eps.raised_to(a);
                }
            }
            "alip" => claims.alip.iter_mut().for_each(|p| side(&mut p.eps_l, &mut p.eps_u)),
            "l1" => claims.l1.iter_mut().for_each(|p| side(&mut p.eps_l, &mut p.eps_u)),
            "chi2" => claims.chi2.iter_mut().for_each(|p| side(&mut p.eps_l, &mut p.eps_u)),
            "alpha" => claims.alpha.iter_mut().for_each(|p| side(&mut p.eps_l, &mut p.eps_u)),
            _ => {}
        }
    }
    claims
}

/// Mixing weights t tried, in order, by [`publish_channel`]'s repair.
const REPAIR_MIXING: [f64; 7] = [1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6];

/// Publishes the channel `w` (rows x) in the kind `form` gives, **meeting every target
/// exactly** (audited figure ≤ target, no tolerance) when a tiny repair can:
///
/// If the audit puts a claim above its target, the channel is mixed with the output
/// that ignores X, W_t(y|x) = (1 − t) W(y|x) + t P_Y(y), for the first t of
/// [`REPAIR_MIXING`] (10⁻¹² … 10⁻⁶) whose audit meets every target. P_Y is unchanged,
/// so every lift moves towards 1: l_t(s, y) = (1 − t) l(s, y) + t, and every ratio
/// P_t(y|a)/P_t(y|b) = ((1 − t)P(y|a) + tP_Y(y))/((1 − t)P(y|b) + tP_Y(y)) towards 1 —
/// LIP, ALIP, LDP and the convex lift measures (ℓ1, χ², α) all decrease monotonically
/// in t, so a larger t never hurts privacy. The cost in utility is stated: with B ~
/// Bernoulli(t) choosing the independent output, I(X;Y_t) ≥ I(X;Y_t | B) − H(B) =
/// (1 − t) I(X;Y) − h(t), at most 1.5e-5 nats below I(X;Y) for t = 10⁻⁶ (and 2.9e-11
/// for t = 10⁻¹²). The document's `utility.repair_mixing` records t. Without a repair
/// that works, [`publish`]'s rule applies to the unrepaired channel.
pub(crate) fn publish_channel(
    draft: Draft,
    w: Matrix,
    form: impl Fn(Matrix) -> MechanismKind,
    utility_of: impl Fn(&Matrix) -> Utility,
) -> Result<Document> {
    let (unrepaired, unrepaired_checks) = audit_draft(&draft, form(w.clone()), utility_of(&w))?;
    if unrepaired_checks.iter().all(meets) {
        return Ok(said_if_ignores_input(unrepaired));
    }
    let p_x = draft.source.p_x();
    for t in REPAIR_MIXING {
        let wt = mix_with_marginal(&w, &p_x, t);
        let (doc, checks) = audit_draft(&draft, compact(wt.clone()), utility_of(&wt))?;
        if checks.iter().all(meets) {
            return Ok(said_if_ignores_input(with_extra(doc, alloc::vec![("repair_mixing", t.into())])));
        }
    }
    conclude(unrepaired, &unrepaired_checks)
}

/// W_t(y|x) = (1 − t) W(y|x) + t P_Y(y), P_Y the output distribution of W under `p_x`
/// (normalised), so the rows stay stochastic and P_Y is unchanged.
pub(crate) fn mix_with_marginal(w: &Matrix, p_x: &[f64], t: f64) -> Matrix {
    let (nx, ny) = (w.rows(), w.cols());
    let p_y = utility::output_distribution(p_x, w);
    let total: f64 = p_y.iter().sum();
    let mut out = Vec::with_capacity(nx * ny);
    for x in 0..nx {
        out.extend(w.row(x).iter().zip(&p_y).map(|(&e, &q)| (1.0 - t) * e + t * q / total));
    }
    Matrix::from_flat(nx, ny, out)
}

/// The most compact document kind that states the channel `w` exactly: `sparse` when at
/// most 40 % of its entries are non-zero (a sparse entry `[y, p]` costs about 2.5 dense
/// numbers of JSON), else `matrix`. The LP and vertex designs (ORR, SRR, the LP fallback
/// of RR for LIP) have few non-zeros per row.
pub(crate) fn compact(w: Matrix) -> MechanismKind {
    let cells = w.rows() * w.cols();
    if 5 * w.nonzeros() <= 2 * cells {
        MechanismKind::Sparse(privlift::document::Sparse::from_matrix(&w))
    } else {
        MechanismKind::Matrix(w)
    }
}

/// The `srr` form of an assembled subset random response `w` (low-risk inputs, then
/// `parts` with their number of outputs: [`orr::assemble`]'s layout), else the most
/// compact kind ([`compact`]).
pub(crate) fn srr_form(w: Matrix, low: &[usize], parts: &[(Vec<usize>, usize)]) -> MechanismKind {
    let srr = privlift::document::Srr {
        low_risk: low.iter().map(|&x| x as u32).collect(),
        groups: parts.iter().map(|(g, r)| (g.iter().map(|&x| x as u32).collect(), *r)).collect(),
    };
    match privlift::document::Sparse::srr_from_matrix(&w, srr) {
        Ok(s) => MechanismKind::Sparse(s),
        Err(_) => compact(w),
    }
}

/// Adds fields to the document's `utility` object (e.g. `groups`, `low_risk`,
/// `vertices`), after `publish` has verified the document (utility is not audited).
pub(crate) fn with_extra(doc: Document, extra: Vec<(&str, serde_json::Value)>) -> Document {
    let mut u = doc.utility().map_or_else(|| serde_json::Value::Object(serde_json::Map::new()), |u| u.to_value());
    if let Some(o) = u.as_object_mut() {
        for (k, v) in extra {
            o.insert(k.into(), v);
        }
    }
    doc.with_utility(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rr;
    use privlift::param::Epsilon;

    /// A claimed budget in a test.
    fn budget(v: f64) -> Budget {
        Budget::finite("claims.lip", v).unwrap()
    }

    fn prior(p: &[f64]) -> Source {
        Source::prior(Alphabet::indices("x", p.len()).unwrap(), p.to_vec()).unwrap()
    }

    /// A channel a hair above its target: the repair mixes in the output that ignores X
    /// with the smallest t of the ladder that meets the target exactly, and says so.
    #[test]
    fn a_channel_above_its_target_is_repaired_by_the_least_mixing() {
        let src = prior(&[0.5, 0.3, 0.2]);
        let eps = 1.0;
        let w = rr::krr_matrix(3, Epsilon::positive("epsilon", eps * (1.0 + 1e-8)).unwrap());
        let claims = Claims { lip: Some(budget(eps)), ..Claims::default() };
        let lip_of = |w: &Matrix| {
            let doc =
                Document::new("t", src.labels().clone(), None, src.p_x(), None, compact(w.clone()), Claims::default())
                    .unwrap();
            doc.check(&unbounded()).unwrap().leakage.lip
        };
        let target = lip_of(&w) * (1.0 - 1e-9);
        let claims = Claims { lip: Some(budget(target)), ..claims };
        let doc = publish_channel(
            Draft { id: "t", source: &src, output: None, claims, audited: Audited::default() },
            w.clone(),
            compact,
            |w| utility::channel_utility(&src.p_x(), w, None),
        )
        .unwrap();
        let t = doc.utility().unwrap()["repair_mixing"].as_f64().unwrap();
        let report = doc.check(&unbounded()).unwrap();
        assert!(report.claims.iter().all(|c| c.actual <= c.bound), "{:?}", report.claims);
        // The ladder's previous rung (t / 10) was not enough.
        assert!(lip_of(&mix_with_marginal(&w, &src.p_x(), t / 10.0)) > target, "t = {t} is not the least");
        assert!((1e-12..=1e-6).contains(&t), "{t}");
        // Mixing keeps the rows stochastic and P_Y unchanged.
        let wt = mix_with_marginal(&w, &src.p_x(), 1e-3);
        for x in 0..3 {
            assert!((wt.row(x).iter().sum::<f64>() - 1.0).abs() < 1e-15);
        }
    }

    /// A channel far above its target is refused, never repaired beyond t = 1e-6.
    #[test]
    fn a_channel_far_above_its_target_is_refused() {
        let src = prior(&[0.5, 0.3, 0.2]);
        let w = rr::krr_matrix(3, Epsilon::positive("epsilon", 3.0).unwrap());
        let draft =
            Document::new("t", src.labels().clone(), None, src.p_x(), None, compact(w.clone()), Claims::default());
        let lip = draft.unwrap().check(&unbounded()).unwrap().leakage.lip;
        // 1 % above: the repair would need t ≈ 1e-2.
        let claims = Claims { lip: Some(budget(lip * 0.99)), ..Claims::default() };
        let r = publish_channel(
            Draft { id: "t", source: &src, output: None, claims, audited: Audited::default() },
            w,
            compact,
            |w| utility::channel_utility(&src.p_x(), w, None),
        );
        assert_eq!(r.unwrap_err().code(), "design_failed");
    }

    /// An audited figure that is unbounded is not claimed; the finite ones are. Input 2
    /// has no mass (so no LIP term) but releases only y = 0, which the others release
    /// with probability ½: the LDP w.r.t. X, over every input, is unbounded. With every
    /// audited figure unbounded the design makes no claim and is refused.
    #[test]
    fn an_unbounded_audited_figure_is_not_claimed() {
        let src = prior(&[0.5, 0.5, 0.0]);
        let w = Matrix::from_flat(3, 2, alloc::vec![0.5, 0.5, 0.5, 0.5, 1.0, 0.0]);
        let audited = Audited { lip: true, ldp_x: true, ..Audited::default() };
        let publish_w = |audited| {
            let u = utility::channel_utility(&src.p_x(), &w, None);
            publish(
                Draft { id: "t", source: &src, output: None, claims: Claims::default(), audited },
                MechanismKind::Matrix(w.clone()),
                u,
            )
        };
        let doc = publish_w(audited).unwrap();
        // The LIP is 0, rounded up by the audit.
        assert!(doc.claims().lip.is_some_and(|l| l.get() <= 1e-14), "{:?}", doc.claims());
        assert_eq!(doc.claims().ldp_x, None);
        assert!(doc.check(&unbounded()).unwrap().leakage.ldp_x.is_infinite());
        let only_ldp_x = Audited { ldp_x: true, ..Audited::default() };
        assert_eq!(publish_w(only_ldp_x).unwrap_err().code(), "design_failed");
    }

    /// Within the verifier's tolerance but above the target, an unrepairable (structured)
    /// claim is raised to the audited figure, so it is never below the exact leakage.
    #[test]
    fn claims_above_target_within_tolerance_are_raised_to_the_audit() {
        let src = prior(&[0.25; 4]);
        for k in 0..200 {
            let eps = 0.05 + 0.037 * k as f64;
            let doc = rr::krr(&src, Epsilon::positive("epsilon", eps).unwrap(), "krr").unwrap();
            let report = doc.check(&unbounded()).unwrap();
            assert!(report.claims.iter().all(|c| c.actual <= c.bound), "ε = {eps}: {:?}", report.claims);
            let claimed = doc.claims().ldp_x.unwrap().get();
            assert!(claimed >= eps && claimed <= eps * (1.0 + 1e-12), "ε = {eps}: claim {claimed}");
        }
    }
}
