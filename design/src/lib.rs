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
mod cores;
mod deadline;
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
mod publication;
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
pub mod work;

use alloc::string::String;
use alloc::vec::Vec;

use privlift::document::{Alphabet, Matrix};
use privlift::error::{Error, Result};
use privlift::param::Epsilon;
pub use publication::IGNORES_INPUT_MI;
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

/// The document id a design gets when the caller gives none: the method and its ε.
pub fn default_id(method: &str, eps: Option<Epsilon>) -> String {
    match eps {
        Some(e) => alloc::format!("{method}-eps{e}", e = e.get()),
        None => method.into(),
    }
}
