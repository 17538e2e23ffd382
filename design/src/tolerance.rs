//! The tolerances several designers share, each named for what it bounds. A tolerance
//! that belongs to one function stands beside it instead (e.g. [`crate::rr`]'s LP
//! margins, [`crate::utility::METRIC_SLACK`]).

/// The relative part of the margin every design keeps below its budget
/// ([`crate::lift::design_budget`]): ε' = ε(1 − `BUDGET_RELATIVE`) − [`BUDGET_NATS`]. It is
/// the verifier's relative tolerance ([`privlift::verify::REL_TOLERANCE`]), far above the
/// ~1e-15 relative error of a lift computed in floating point.
pub(crate) const BUDGET_RELATIVE: f64 = 1e-9;

/// The absolute part (nats) of the design margin, so that a budget near 0 keeps one too;
/// a budget at most this is refused as below the design margin.
pub(crate) const BUDGET_NATS: f64 = 1e-11;

/// Gaussian elimination refuses a pivot below this fraction of the largest entry of its
/// system: the systems are of probabilities in [0, 1], and a pivot this small makes a
/// solution whose rounding error is of the order of the solution itself.
pub(crate) const PIVOT_FLOOR: f64 = 1e-12;
