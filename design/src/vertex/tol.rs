//! The tolerances of the vertex enumeration: of its starting vertex (from the LP), its
//! bases' elimination, and the pivoting kernel's pricing and ratio test. The polytope's
//! entries are probabilities P(s | x) (in [0, 1] too when the polytope is rescaled),
//! and a basis is m × m with m = |S| + 1, so a computed entry of B⁻¹ or of a direction
//! carries a rounding error of about m · 2⁻⁵³ (2⁻⁵³ ≈ 1.1e-16) times its scale. Each
//! tolerance is set well above that noise and well below any quantity that separates two
//! vertices.

/// How far the LP's starting solution may be from exact: a coordinate at most this is
/// zero (not in the support), and a secret row within this of a bound, relative to its
/// `hi_s`, is tight. Ten times the LP's feasibility tolerance ([`crate::lp::FEASIBILITY`]),
/// the most its constraints may be off by.
pub(super) const START_SLACK: f64 = 1e-9;

/// Gaussian elimination of a basis or of an active set's system (and the 2 × 2 system of
/// a two-coordinate start) calls it singular at an absolute pivot at most this: its entries
/// are probabilities, so a pivot this small is the rounding noise of a zero pivot (about
/// m · 2⁻⁵³), not a pivot.
pub(super) const BASIS_PIVOT: f64 = 1e-12;

/// Two points computed from different active sets are the same vertex when every
/// coordinate agrees to this, relative ([`super::same_point`]): far above the rounding of a
/// solve through a pivot above [`BASIS_PIVOT`], and below the relative distance of two
/// distinct vertices: v_x = e^{−ε} P(x) and e^{ε} P(x) differ by the factor e^{2ε}, above
/// 1 + 1e-9 for every ε above 5e-10 nats.
pub(super) const SAME_POINT: f64 = 1e-9;

/// A basis is feasible while each basic value lies within this of its bounds (relative
/// to `hi_s` for a secret row's slack): the LP's feasibility tolerance
/// ([`crate::lp::FEASIBILITY`]), which the starting basis itself may carry.
pub(super) const BASIC_FEASIBILITY: f64 = 1e-10;

/// An entry of an edge's direction B⁻¹[1; a(j)] at most this in magnitude does not move its
/// basic variable: it is the rounding noise of a zero entry (a sum of m products of
/// entries of order 1).
pub(super) const STILL_DIRECTION: f64 = 1e-12;

/// A pivot is degenerate when its step is at most this (a basic variable within
/// `DEGENERATE_STEP` · |d_i| of its bound): the length of a step that moves no coordinate
/// beyond rounding noise, the same scale as [`STILL_DIRECTION`].
pub(super) const DEGENERATE_STEP: f64 = 1e-12;

/// An edge decreases the generic objective when its reduced cost is below minus this. The
/// costs are generic fractions in [0, 1) (`generic_cost`); a reduced cost within this of 0
/// is the rounding of π = c_Bᵀ B⁻¹ (sums of m terms), not a decrease.
pub(super) const DECREASING_COST: f64 = 1e-9;

/// Steps of the ratio test within this of the least one are ties: each tied basic variable
/// may leave, and each choice is a neighbour. Ten times [`DEGENERATE_STEP`], so that the
/// rounding of two equal steps never splits them.
pub(super) const RATIO_TIE: f64 = 1e-11;
