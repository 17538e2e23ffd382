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
//! | binary RR for P_X(1) ∈ [a,b] | [`rr::rr_lip_interval`] | `bp_lip` over {a, b} |
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

#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

extern crate alloc;

pub mod continuous;
pub mod estimate;
pub mod inputs;
mod keyset;
pub mod lattice_estimate;
pub mod lift;
mod linalg;
pub mod linear;
mod lp;
pub mod mle;
pub mod optimal_ldp;
pub mod orr;
pub mod oue;
pub mod request;
pub mod rr;
pub mod secret;
mod simplex;
pub mod srlip;
pub mod srr;
pub mod utility;
pub mod vertex;
pub mod watchdog;

use alloc::string::String;
use alloc::vec::Vec;

use privlift::document::{Alphabet, Claims, Document, Matrix, MechanismKind};
use privlift::error::{Error, Result};
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

/// Which audited values a design adds to its claims (rounded up by the audit).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Audited {
    pub lip: bool,
    pub ldp: bool,
    pub ldp_x: bool,
}

/// Assembles a document, adds audited claims, attaches utility, and publishes it only
/// if the library's own verification confirms every claim.
pub(crate) fn publish(
    id: &str,
    source: &Source,
    output: Option<Alphabet>,
    mechanism: MechanismKind,
    mut claims: Claims,
    audited: Audited,
    utility: Utility,
) -> Result<Document> {
    let draft = Document::new(
        id,
        source.labels().clone(),
        output,
        source.p_x(),
        source.secret(),
        mechanism,
        Claims::default(),
    )?;
    // The curator audits its own design, whatever it costs: the client's verification
    // budget (`maxVerifyWork`) is the client's to set.
    let unbounded = Policy { max_verify_work: Some(f64::INFINITY), ..Policy::default() };
    if audited.lip || audited.ldp || audited.ldp_x {
        let l = draft.check(&unbounded)?.leakage;
        if audited.lip {
            claims.lip = Some(l.lip);
        }
        if audited.ldp {
            claims.ldp = Some(l.ldp);
        }
        if audited.ldp_x {
            claims.ldp_x = Some(l.ldp_x);
        }
    }
    let doc = draft.with_claims(claims)?.with_utility(utility::to_json(&utility));
    let report = doc.check(&unbounded)?;
    if let Some(c) = report.claims.iter().find(|c| !c.holds) {
        return Err(Error::DesignFailed {
            reason: alloc::format!("{} audits at {} nats, above the target {}", c.notion, c.actual, c.bound),
        });
    }
    if report.claims.is_empty() {
        return Err(Error::DesignFailed { reason: "the design makes no claim".into() });
    }
    Ok(doc)
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

/// Checks a designer's budget ε: [`privlift::param::Epsilon::positive`], in (0, 700].
pub(crate) fn check_eps(name: &str, eps: f64) -> Result<()> {
    privlift::param::Epsilon::positive(name, eps).map(drop)
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

/// The document id a design gets when the caller gives none.
pub fn default_id(method: &str, eps: Option<f64>) -> String {
    match eps {
        Some(e) => alloc::format!("{method}-eps{e}"),
        None => method.into(),
    }
}
