//! What verifying a document costs, computed from its sizes **before** anything is
//! allocated, so a hostile document is refused with `too_costly` instead of hanging the
//! page or aborting on a failed allocation.
//!
//! A work unit is one f64 cell touched (or allocated) by one pass of the verification:
//! building the exact sampler, the audits w.r.t. S and X, a `bp_lip` prior, an α-order
//! other than the default. The estimate is an upper bound on the passes the code makes,
//! computed from the sizes the document declares (never from anything the verification
//! would build), and weighted per kind by what a unit costs the wasm client's first
//! verification (`benches/wasm/cost.mjs` measures it), so that the default budget's unit
//! is ≈ 1/2²⁸ s there: whatever the default budget accepts verifies in about a second.

use serde::Serialize;

use crate::document::{Document, MechanismKind};
use crate::error::{Error, Result};
use crate::leakage::{DEFAULT_ALPHA_ORDER, DINKELBACH_MAX_STEPS, UNARY_ENUMERATION_LIMIT};
use crate::param::Probability;

/// The budget when the policy sets none: 2²⁸ ≈ 2.7·10⁸ units, about one second of the
/// wasm client's first verification (headless Chromium and Node 22, Intel Xeon, 2 shared
/// cores; benches/wasm/cost.mjs). Accepted: a
/// dense channel up to ≈ 2900 × 2900 (2048 × 2048: 1.4·10⁸ units, 0.21 s in wasm), every
/// unary, krr and rr_lip document up to the 4096-symbol maximum (2–6 ms in Chromium), a
/// sparse or srr channel up to ≈ 3·10⁶ entries (a shared `others` row counted once per
/// input), a per-secret mechanism of 4 secrets over 512 inputs. Refused: a dense 4096 ×
/// 4096 channel (5.4·10⁸), an srr of 4096 inputs whose `others` row of 2049 outputs stands
/// for 2047 of them (4.2·10⁶ entries, 4.1·10⁸ units). A Gaussian document's cost grows
/// with its points × its σ in lattice steps (`leakage::lattice`, `audit_work`): on the
/// salary domain with the σ of `gaussian-lip` at ε 1, δ 1e-5, 491 points are accepted
/// and 541 refused (571 points: 1.1–1.7 s in headless Chromium at load 20, 901: 3.2 s).
pub const DEFAULT_MAX_VERIFY_WORK: f64 = 268_435_456.0;

/// What a unit of a dense channel's verification (matrix, Markov per-secret, merge) costs in the
/// wasm client against the budget's unit: its largest channels take 0.28–0.66 s per 10⁸
/// units (2²⁸ units ≈ 1 s), so a dense unit counts 1.8.
const DENSE_WEIGHT: f64 = 1.8;

/// What a unit of a non-Markov per-secret mechanism's verification costs against the
/// budget's unit: one exact sampler per secret, and the audit w.r.t. S over each, 0.97 s
/// per 10⁸ units in headless Chromium (4 secrets × 1448²) and up to 6 s in Node on a
/// loaded machine: weighted 6, about twice the unloaded measurement.
const PER_SECRET_WEIGHT: f64 = 6.0;

/// The units of one entry of a sparse channel (an srr's shared `others` row counted once
/// per input) beyond its passes: the sampler's alias table and the exact channel are built
/// row by row, 0.11–0.12 µs an entry in headless Chromium (srr rows of 1025 and 2049
/// entries), up to 1.2 µs in Node on a loaded machine: 80 of the budget's units (0.3 µs).
const SPARSE_ENTRY_UNITS: f64 = 80.0;

/// The units of one `pow` of an α-lift audit at an order other than the default (2, where
/// `pow` is a product): two a (secret, output) cell, 1.35 µs a cell in headless Chromium
/// (a dense 1024–2048 RR with an order-3 claim: 1.9–6 s), about 180 units a `pow`;
/// counted 250. The default audit reads no α-lift unless a claim asks for one.
const POW_UNITS: f64 = 250.0;

/// The units of one cell of an SRLIP audit's passes (the checks of P(s,x), the products
/// P(s,x)·P(y|x), and the zeroing and ratios of each group's P(s,y,x^J)): 14 ns a cell in
/// headless Chromium (a dense RR over 2⁷ inputs, 7 binary attributes: 1.07 s), 3.8 units;
/// counted 5.
const SRLIP_CELL_UNITS: f64 = 5.0;

/// The units of one product of a unary encoding's explicit channel (|X| ≤
/// [`UNARY_ENUMERATION_LIMIT`]: |X| factors for each of its |X|·2^|X| entries, built anew
/// by each audit): 0.45 s for the two audits of |X| = 14 in headless Chromium (with
/// 64 secrets, load 5 on 2 cores; 1.1–1.4 s at load 20), 19 units a product; counted 40.
/// The audit over the 2^|X| outputs then weighs 2 a unit (9 units a (secret, output) cell
/// measured, 6 counted by its passes).
const UNARY_PRODUCT_UNITS: f64 = 40.0;

/// Estimated verification cost in work units.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
pub struct Work(pub f64);

/// The budget in force for a policy's `max_verify_work` (absent: the default).
///
/// # Errors
/// `invalid_argument` (`policy.max_verify_work`) for a budget that is NaN or not > 0.
pub fn work_budget(max_verify_work: Option<f64>) -> Result<f64> {
    match max_verify_work {
        None => Ok(DEFAULT_MAX_VERIFY_WORK),
        Some(w) if w.is_nan() || w <= 0.0 => Err(Error::invalid(
            "policy.max_verify_work",
            alloc::format!("the verification budget must be > 0, got {w}", w = crate::numeric::Shown(w)),
        )),
        Some(w) => Ok(w),
    }
}

impl Work {
    /// `Ok` when the work fits in `budget`.
    ///
    /// # Errors
    /// `too_costly`, naming `what` is being verified.
    pub fn check(self, what: &str, budget: f64) -> Result<()> {
        if self.0.is_nan() || self.0 > budget {
            return Err(Error::too_costly(what, self.0, budget));
        }
        Ok(())
    }

    /// The least work of verifying a dense channel of `inputs` × `outputs` with `priors`
    /// `bp_lip` priors, whatever else its document declares (a secret or not, other
    /// claims): at most what [`Work::of`] gives for any document with that channel, so a
    /// reader may refuse a document from the sizes it has read so far, before the rest of
    /// its numbers.
    pub fn dense_at_least(inputs: usize, outputs: usize, priors: usize) -> Work {
        let (nx, ny, priors) = (inputs as f64, outputs as f64, priors as f64);
        // Without a secret, S = X; with one, the least secret: none of its terms.
        Work(dense_units(nx, ny, None, priors, false).min(dense_units(nx, ny, Some((0.0, 0.0)), priors, false)))
    }

    /// The least work of verifying a per-secret mechanism of `secrets` blocks of `inputs` ×
    /// `outputs` with `priors` `bp_lip` priors, Markov or not (its `p_y_given_x` may come
    /// after its blocks), whatever else its document declares: at most what [`Work::of`]
    /// gives for any such document.
    pub fn per_secret_at_least(secrets: usize, inputs: usize, outputs: usize, priors: usize) -> Work {
        let (ns, nx, ny, priors) = (secrets as f64, inputs as f64, outputs as f64, priors as f64);
        // The least joint: none of its non-zero terms.
        let markov = dense_units(nx, ny, Some((ns, 0.0)), priors, false);
        Work(markov.min(per_secret_units(ns, nx, ny, 0.0)))
    }

    /// The work of verifying an open-domain document (`crate::open`) from its sizes: a
    /// randomiser over `outputs` symbols (g, or 2 for the Hadamard kinds), a sparse prior
    /// of `listed` values, `rounds` heavy-hitter rounds (1 for the other kinds). The
    /// sampler's alias table over g + 1 outcomes and its exact entries (8 units a symbol,
    /// as a `krr` build counts), the LDP pass and the lift bounds of each output (8), the
    /// listed values' checks, key set and least mass (16 each), the round table (8 a
    /// round). Linear in each size, so a reader pricing the values read so far with the
    /// least randomiser (`outputs` 2, `rounds` 1) prices at most the whole document.
    pub fn open(outputs: u32, listed: usize, rounds: usize) -> Work {
        let g = f64::from(outputs);
        Work(8.0 * (g + 1.0) + 8.0 * g + 16.0 * listed as f64 + 8.0 * rounds as f64)
    }

    /// The work of [`Document::verify`] (and `check`, and `audit`) for `doc`.
    pub fn of(doc: &Document) -> Work {
        let nx = doc.input().len() as f64;
        let ny = doc.output().len() as f64;
        let ns = doc.secret().len() as f64;
        let has_secret = doc.has_secret();
        // The joint's non-zeros bound the accumulation of P(s,y); the scan itself is |S||X|.
        let nnz = if has_secret { doc.p_sx().nonzeros() as f64 } else { nx };
        let claims = doc.claims();
        let priors = claims.bp_lip.as_ref().map_or(0.0, |c| c.priors.len() as f64);
        let extra_order = claims.alpha.is_some_and(|a| a.order != DEFAULT_ALPHA_ORDER);
        // An α claim at another order audits once more w.r.t. S (w.r.t. X when S = X),
        // two `pow` a (secret, output) cell.
        let pow_cells = |rows: f64, cols: f64| if extra_order { POW_UNITS * 2.0 * rows * cols } else { 0.0 };
        let sr = if has_secret { ns } else { nx };
        let audit = audit_units;
        let srlip = claims.srlip.as_ref().map_or(0.0, |c| srlip_units(&c.attributes, ns, nx, ny, nnz));
        let units = srlip
            + match doc.mechanism() {
                MechanismKind::Matrix(_) | MechanismKind::PerSecret { markov: Some(_), .. } => {
                    dense_units(nx, ny, has_secret.then_some((ns, nnz)), priors, extra_order)
                }
                MechanismKind::Krr { .. }
                | MechanismKind::RrLip { .. }
                | MechanismKind::Sparse(_)
                | MechanismKind::Merge { .. } => {
                    structured_units(doc.mechanism(), nx, ns, nnz, has_secret, priors, extra_order)
                }
                MechanismKind::PerSecret { markov: None, .. } => {
                    let again =
                        if extra_order { audit(ns, nnz, nx, ny) + ns * nx * ny + pow_cells(ns, ny) } else { 0.0 };
                    per_secret_units(ns, nx, ny, nnz) + PER_SECRET_WEIGHT * again
                }
                MechanismKind::Unary { .. } => {
                    let dink = (DINKELBACH_MAX_STEPS + 2) as f64 * 2.0;
                    // `joint` is the cells of a declared joint the audit reads (S = X: none,
                    // diag(P_X) is never built).
                    let enumerated = doc.input().len() <= UNARY_ENUMERATION_LIMIT;
                    let cols = if enumerated { libm::exp2(nx) } else { 1.0 };
                    let one = |joint_rows: f64, joint: f64, diagonal: bool| {
                        if enumerated {
                            UNARY_PRODUCT_UNITS * nx * nx * cols + 2.0 * audit(joint_rows, nnz, nx, cols)
                        } else if diagonal {
                            3.0 * joint + 16.0 * nx
                        } else {
                            joint_rows * nx + 2.0 * dink * joint_rows * nx + dink * joint_rows * joint_rows * nx
                        }
                    };
                    let x_audit = one(nx, 0.0, true);
                    let s_audit = if has_secret { one(ns, ns * nx, doc.p_sx().is_diagonal()) } else { 0.0 };
                    let again = if extra_order {
                        (if has_secret { s_audit } else { x_audit }) + pow_cells(sr, cols)
                    } else {
                        0.0
                    };
                    x_audit + s_audit + priors * x_audit + again
                }
            };
        Work(units)
    }
}

/// The work of the SRLIP audit of a channel over `nx` inputs (sizes `attributes`, m of
/// them) w.r.t. `ns` secrets whose joint has `nnz` non-zeros: for each of the 2^m subsets
/// J, a pass over P(s,x) and the products of its non-zeros with P(y|x); for each group
/// x^J (Π (1 + a_j) groups over all subsets), P(s,y,x^J) zeroed and its ratios. At
/// least the audit's own limit ([`crate::leakage::MAX_SRLIP_WORK`], on 2^m·|S||X||Y|),
/// so that a document the audit would refuse is refused before anything is built.
fn srlip_units(attributes: &[usize], ns: f64, nx: f64, ny: f64, nnz: f64) -> f64 {
    let subsets = libm::exp2(attributes.len() as f64);
    let groups: f64 = attributes.iter().map(|&a| 1.0 + a as f64).product();
    let units = SRLIP_CELL_UNITS * (subsets * (ns * nx + nnz * ny) + 2.0 * groups * ns * ny);
    let exhaustive = subsets * ns * nx * ny;
    if exhaustive > crate::leakage::MAX_SRLIP_WORK as f64 {
        units.max(exhaustive)
    } else {
        units
    }
}

/// The work of verifying a non-Markov per-secret mechanism of `ns` blocks of `nx` × `ny`
/// (one exact sampler per secret, the audits w.r.t. X and S) under a joint of `nnz`
/// non-zeros, at the default α order.
fn per_secret_units(ns: f64, nx: f64, ny: f64, nnz: f64) -> f64 {
    let e = ns * nx * ny;
    let x_audit = audit_units(nx, nx, nx, ny);
    let s_audit = audit_units(ns, nnz, nx, ny) + e;
    let build = 6.0 * e + ns * nx;
    PER_SECRET_WEIGHT * (build + x_audit + s_audit)
}

/// The work of verifying a dense channel of `nx` inputs and `ny` outputs (a `matrix`, or a
/// Markov `per_secret`'s channel), with a declared secret of `ns` secrets whose joint has
/// `nnz` non-zeros, `priors` `bp_lip` priors, and a second audit for another α-order.
fn dense_units(nx: f64, ny: f64, secret: Option<(f64, f64)>, priors: f64, extra_order: bool) -> f64 {
    let (ns, nnz) = secret.unwrap_or((nx, nx));
    let e = nx * ny;
    let x_audit = audit_units(nx, nx, nx, ny);
    let s_audit = if secret.is_some() { audit_units(ns, nnz, nx, ny) } else { 0.0 };
    // Sampler (alias table, its exact channel), the receipts' joints, and the
    // verified mechanism's own copy of the document (its channel and joint).
    let build = 5.0 * e + nnz * ny + ns * nx;
    // Another α order audits once more w.r.t. S (w.r.t. X when S = X), two `pow` a
    // (secret, output) cell.
    let again = if extra_order { audit_units(ns, nnz, nx, ny) + POW_UNITS * 2.0 * ns * ny } else { 0.0 };
    // A `bp_lip` prior: diag(p), P(x,y) and the lifts (LIP only), each pass weighing 2:
    // 33 ns a cell in headless Chromium (512², 8–64 priors).
    let per_prior = 2.0 * (nx * nx + 3.0 * e);
    DENSE_WEIGHT * (build + x_audit + s_audit + priors * per_prior + again)
}

/// One audit of a channel with `rows` inputs and `cols` outputs under a joint with
/// `joint_rows` secrets and `joint_nnz` non-zeros: P(s,y), the per-(s,y) measures (lifts,
/// α-powers: ~6 each), and the channel passes (LDP_X, I(X;Y), maximal leakage), plus the
/// diagonal joint diag(P_X) when S = X.
fn audit_units(joint_rows: f64, joint_nnz: f64, rows: f64, cols: f64) -> f64 {
    joint_rows * rows + joint_nnz * cols + 6.0 * joint_rows * cols + 3.0 * rows * cols
}

/// The work of verifying a structured kind over `nx` inputs (see `leakage::structured`):
/// O(|X|) for a mixture with S = X, O(|S|·|X|) with a declared secret; a sparse channel
/// builds dense joints over its outputs; a merge adds one pass over the joint to the work
/// of its inner mechanism on the blocks.
fn structured_units(
    kind: &MechanismKind,
    nx: f64,
    ns: f64,
    nnz: f64,
    has_secret: bool,
    priors: f64,
    extra_order: bool,
) -> f64 {
    let again = if extra_order { 2.0 } else { 1.0 };
    match kind {
        MechanismKind::Krr { .. } | MechanismKind::RrLip { .. } => {
            // Entries, prefix sums, two terms per column, the measures, the receipt joint.
            let x_audit = 40.0 * nx;
            let s_audit = if has_secret { 12.0 * ns * nx + x_audit } else { 0.0 };
            let build = 8.0 * nx + if has_secret { 2.0 * ns * nx } else { 0.0 };
            // A `bp_lip` prior: 0.96 ms for 4096 inputs in headless Chromium (256
            // priors), 63 units an input; counted 100.
            build + again * (x_audit + s_audit) + priors * 100.0 * nx
        }
        MechanismKind::Sparse(sp) => {
            let ny = sp.outputs() as f64;
            let e = sp.nonzeros() as f64;
            let audit = |rows: f64, joint_nnz: f64| rows * ny + joint_nnz * ny + 6.0 * rows * ny + 3.0 * e;
            let x_audit = audit(nx, nx);
            let s_audit = if has_secret { audit(ns, nnz) + x_audit } else { 0.0 };
            let build = SPARSE_ENTRY_UNITS * e + nx + if has_secret { nnz * ny + ns * ny } else { nx * ny };
            build + again * (x_audit + s_audit) + priors * x_audit
        }
        MechanismKind::Merge { blocks, inner } => {
            let nb = crate::document::block_count(blocks) as f64;
            let merged_nnz = if has_secret { ns * nb } else { nb };
            let pass = 4.0 * nx * if has_secret { ns } else { 1.0 };
            let inner_units = match inner {
                None => structured_units(
                    &MechanismKind::Krr { epsilon: None, keep: Probability::ONE },
                    nb,
                    ns,
                    merged_nnz,
                    has_secret,
                    priors,
                    extra_order,
                ),
                Some(i) => match &**i {
                    MechanismKind::Matrix(m) => {
                        let (rows, cols) = (nb, m.cols() as f64);
                        let audit = |jr: f64, jn: f64| jr * rows + jn * cols + 6.0 * jr * cols + 3.0 * rows * cols;
                        let x_audit = audit(nb, nb);
                        let s_audit = if has_secret { audit(ns, merged_nnz) } else { 0.0 };
                        5.0 * rows * cols
                            + merged_nnz * cols
                            + again * (x_audit + s_audit)
                            + priors * (nb * nb + 3.0 * rows * cols)
                    }
                    other => structured_units(other, nb, ns, merged_nnz, has_secret, priors, extra_order),
                },
            };
            DENSE_WEIGHT * (pass * (2.0 + priors) + inner_units)
        }
        // Not structured: priced by `Work::of`.
        _ => f64::INFINITY,
    }
}
