//! # privlift-design
//!
//! The curator side of privlift: mechanisms designed from a prior P_X or a joint
//! P_SX and a budget, each published only after the library's own audit confirms every
//! claim of the document.
//!
//! | method | module | claim |
//! |---|---|---|
//! | k-ary RR, ε-LDP | [`rr::krr`] | `ldp_x = ε` (+ audited `lip`, `ldp`) |
//! | optimal unary encoding, ε-LDP | [`oue::oue`] | `ldp_x = ε` (+ audited `lip`) |
//! | prior-aware RR, ε-LIP | [`rr::rr_lip`] | `lip = ε` |
//! | binary RR for P_X(1) ∈ \[a,b\] | [`rr::rr_lip_interval`] | `bp_lip` over {a, b} |
//! | BP-LIP RR (LP) | [`rr::rr_bp_lip`] | `bp_lip` over the set |
//! | linear reduction (Markov / TV / distance) | [`linear`] | audited `ldp`, `lip` w.r.t. S |
//! | ORR, optimal ε-LIP w.r.t. S (vertex LP) | [`orr::orr_lip`] | `lip = ε` |
//! | AORR, optimal (εl, εu)-ALIP w.r.t. S | [`orr::aorr`] | `alip = {εl, εu}` |
//! | optimal ε-LDP w.r.t. S (Thm 1, over columns) | [`optimal_ldp::optimal_ldp`] | `ldp = ε` |
//! | watchdog, complete merging (LIP/ALIP/LDP; ℓ1/χ²/α-lift, Sec. VI-B) | [`watchdog::watchdog`] | the notion's budget (`l1`, `chi2`, `alpha` for those) |
//! | watchdog, subset merging (Algorithm 1) | [`watchdog::subset_merging`] | the notion's budget |
//! | subset random response (Algorithm 2) | [`srr::srr`] | `lip` or `alip` |
//! | SRLIP product of per-attribute channels (multi-attribute X) | [`srlip::srlip`] | `srlip`, `lip` |
//! | vertex enumeration of the lift polytope | [`vertex::LiftPolytope`] | — |
//!
//! # Threads
//! The vertex search of the lift polytope ([`vertex::LiftPolytope`], behind ORR, AORR and
//! SRR) runs on every core natively (at most 8 scoped threads, started only after the
//! calling thread has searched the first 64 bases alone, and joined before it returns)
//! and on one thread in wasm. The vertices, and so every design, do not depend on the
//! number of threads: they are sorted into one canonical order. The full pricing scans
//! of the LP over a large vertex pool (from 2 × 65,536 columns) are split among the
//! cores the same way, merged into the answer one thread would give.
//!
//! # SIMD, and the crate's only `unsafe`
//! On x86-64 the reverse search's inner loops (the tableau, the reduced costs, the ratio
//! tests) are compiled twice, once for AVX2, and the AVX2 build runs when the CPU has it
//! (detected at run time). Calling a `#[target_feature]` function is `unsafe`; those two
//! calls, each after the detection, are the only `unsafe` in the crate
//! (`#![deny(unsafe_code)]`, allowed at each). There is no FMA and Rust never
//! reassociates, so both builds give the same bits (a test compares them).
//!
//! # LP solver
//! LPs are solved with `microlp` 0.7: pure Rust, builds for wasm32, a revised simplex
//! with sparse LU that returns *vertex* solutions and re-checks every constraint before
//! answering (an unverifiable solve is an error, not an answer). `clarabel` was the
//! alternative: an interior-point conic solver whose solutions are interior and only
//! feasible to ~1e-8, so an LIP constraint met "to solver tolerance" can miss its
//! budget, and it is larger in wasm; `good_lp` is a modelling layer that (at the time of
//! writing) wraps the older microlp 0.6. Whatever the solver returns is checked again
//! here (rows stochastic, entries non-negative) and then audited; a design that fails
//! either check is an error (`design_failed`), never a document.

#![deny(unsafe_code)]
#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

extern crate alloc;

pub mod continuous;
pub mod estimate;
pub mod identified;
pub mod inputs;
mod keyset;
pub mod lattice_estimate;
pub mod lift;
mod linalg;
pub mod linear;
mod lp;
pub mod mle;
pub mod open;
pub mod optimal_ldp;
pub mod orr;
pub mod oue;
pub mod progress;
pub mod request;
pub mod rr;
pub mod secret;
mod simplex;
pub mod srlip;
pub mod srr;
mod tolerance;
pub mod utility;
pub mod vertex;
pub mod watchdog;

use alloc::string::String;
use alloc::vec::Vec;

use privlift::document::{Alphabet, Claims, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
use privlift::param::{Budget, Epsilon};
use privlift::verify::Policy;
pub use utility::Utility;

/// What a design starts from: a prior over X (S = X), or a joint P_SX.
#[derive(Debug, Clone)]
pub enum Source {
    /// A prior P_X; the secret is X itself.
    Prior {
        /// The symbols of X.
        labels: Alphabet,
        /// P_X, one probability per symbol.
        p: Vec<f64>,
    },
    /// A joint P_SX of a secret S and the input X.
    Joint {
        /// The symbols of S (the rows of `p_sx`).
        secret: Alphabet,
        /// The symbols of X (the columns of `p_sx`).
        labels: Alphabet,
        /// P_SX, rows s, columns x.
        p_sx: Matrix,
    },
}

impl Source {
    /// A validated prior.
    pub fn prior(labels: Alphabet, p: Vec<f64>) -> Result<Self> {
        if p.len() != labels.len() {
            return Err(Error::field("prior.p").dims(labels.len(), p.len()));
        }
        privlift::document::check_distribution("prior.p", &p)?;
        Ok(Source::Prior { labels, p })
    }

    /// A validated joint (rows s, columns x).
    pub fn joint(secret: Alphabet, labels: Alphabet, p_sx: Matrix) -> Result<Self> {
        if p_sx.rows() != secret.len() {
            return Err(Error::field("joint.p_sx").dims(secret.len(), p_sx.rows()));
        }
        if p_sx.cols() != labels.len() {
            return Err(Error::field("joint.p_sx[0]").dims(labels.len(), p_sx.cols()));
        }
        p_sx.check_joint("joint.p_sx")?;
        Ok(Source::Joint { secret, labels, p_sx })
    }

    /// The symbols of X.
    pub fn labels(&self) -> &Alphabet {
        match self {
            Source::Prior { labels, .. } | Source::Joint { labels, .. } => labels,
        }
    }

    /// P_X.
    pub fn p_x(&self) -> Vec<f64> {
        match self {
            Source::Prior { p, .. } => p.clone(),
            Source::Joint { p_sx, .. } => p_sx.col_sums(),
        }
    }

    /// The secret and the joint, if S ≠ X.
    pub fn secret(&self) -> Option<(Alphabet, Matrix)> {
        match self {
            Source::Prior { .. } => None,
            Source::Joint { secret, p_sx, .. } => Some((secret.clone(), p_sx.clone())),
        }
    }

    /// The joint P_SX (diag(P_X) when S = X).
    pub fn p_sx(&self) -> Matrix {
        match self {
            Source::Prior { p, .. } => {
                let n = p.len();
                let mut d = alloc::vec![0.0; n * n];
                for (i, &v) in p.iter().enumerate() {
                    d[i * n + i] = v;
                }
                Matrix::from_flat(n, n, d)
            }
            Source::Joint { p_sx, .. } => p_sx.clone(),
        }
    }
}

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
    let doc = orr::with_extra(doc, alloc::vec![("ignores_input", true.into())]);
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
            return Ok(said_if_ignores_input(orr::with_extra(doc, alloc::vec![("repair_mixing", t.into())])));
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

/// Cleans an LP solution into a row-stochastic matrix: entries within `tol` below 0 are
/// set to 0 and each row is renormalised. An entry further below 0, or a row sum off by
/// more than `tol`, is a numerical failure.
pub(crate) fn clean_rows(rows: usize, cols: usize, mut v: Vec<f64>, tol: f64, what: &str) -> Result<Matrix> {
    for x in 0..rows {
        let r = &mut v[x * cols..(x + 1) * cols];
        for e in r.iter_mut() {
            if !e.is_finite() || *e < -tol {
                return Err(Error::DesignFailed { reason: alloc::format!("{what}: LP returned entry {e} in row {x}") });
            }
            if *e < 0.0 {
                *e = 0.0;
            }
        }
        let s: f64 = r.iter().sum();
        if (s - 1.0).abs() > tol {
            return Err(Error::DesignFailed { reason: alloc::format!("{what}: LP row {x} sums to {s}") });
        }
        r.iter_mut().for_each(|e| *e /= s);
    }
    Ok(Matrix::from_flat(rows, cols, v))
}

/// The document id a design gets when the caller gives none: the method and its ε.
pub fn default_id(method: &str, eps: Option<Epsilon>) -> String {
    match eps {
        Some(e) => alloc::format!("{method}-eps{e}", e = e.get()),
        None => method.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
