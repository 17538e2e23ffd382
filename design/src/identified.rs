//! What the reports determine about a category, or about any linear functional aᵀπ of
//! the input distribution π, when the channel cannot identify every direction of π.
//!
//! The log-likelihood ℓ(π) = Σ_y c_y ln λ_y with λ = Wᵀπ depends on π only through the
//! report probabilities λ_y of the outputs seen (c_y > 0), and is strictly concave in
//! them: the fitted λ*_y of those outputs is unique, and the maximum-likelihood
//! solutions are the polytope
//!
//! ```text
//!   M = {π ≥ 0 : Σ π = 1, λ_y(π) = λ*_y for every y with c_y > 0}
//! ```
//!
//! (an output never seen constrains nothing: its λ_y may move with π as long as the
//! seen ones do not). Its directions are the unidentified directions V of
//! [`Mle::unidentified`](super::mle::Mle::unidentified), orthonormal and spanning
//! {v : Σ v = 0, W_·yᵀv = 0 for every y seen}, so M = {p̂ + V t ≥ 0 : t ∈ ℝ^d} around the
//! EM estimate p̂ ∈ M.
//!
//! aᵀπ is **identified** iff it is constant on the affine hull of M, i.e. a·v = 0 for
//! every v in V (up to [`ORTHOGONAL`]): the rule [`super::mle`] applies to a category
//! (a = e_x) and [`super::secret`] to P_S(s) (a = P(s|·)). It is a property of the channel
//! and of which outputs were seen, not of where p̂ lies. Otherwise the reports determine
//! only the interval [min aᵀπ, max aᵀπ] over M, the projection of M on a: two small LPs
//! in the d coordinates t (free), with one row p̂_x + (V t)_x ≥ 0 per input, solved by
//! the crate's LP layer (`lp.rs`).
//!
//! At the boundary of the simplex the interval can be narrower than the direction
//! suggests (even a single point, when p̂_x = 0 and the direction would make another
//! entry negative); such a category is still reported as not identified: other counts
//! from the same channel would leave it free.

use alloc::vec::Vec;

use crate::lp::{Cmp, Lp};
use privlift::error::Result;

/// |a·v| at or below which aᵀπ does not move along the unit direction v: the
/// eigenvectors the directions come from are accurate to ~1e-12, and a functional
/// moved by less than 1e-9 per unit step is constant for every purpose of an estimate.
pub const ORTHOGONAL: f64 = 1e-9;

/// Most unidentified directions for which intervals are computed. An interval costs two
/// LPs with one free variable per direction and one row per input, and their pivots grow
/// with the directions: measured (release build, one run), the 226-point lattice
/// histograms of the demo's salary documents took 0.9 s (Laplace) and 46–56 s (Gaussian,
/// whose noise leaves far more directions unidentified) for every point's interval. Above
/// this many directions the reports determine too little for per-input intervals to be
/// worth that: `interval` is `None` there (the input is still reported not identified,
/// with no standard error).
pub const MAX_INTERVAL_DIRECTIONS: usize = 32;

/// [lo, hi]: the least and greatest value of a functional over the maximum-likelihood
/// solutions.
pub type Interval = [f64; 2];

/// Whether aᵀπ is identified: `a` is orthogonal to every unidentified direction.
pub fn identifies(unidentified: &[Vec<f64>], a: &[f64]) -> bool {
    unidentified.iter().all(|v| dot(a, v).abs() <= ORTHOGONAL)
}

/// The set M of maximum-likelihood solutions, p̂ + span(V) within the simplex (module
/// docs).
#[derive(Debug, Clone, Copy)]
pub struct Solutions<'a> {
    point: &'a [f64],
    directions: &'a [Vec<f64>],
}

impl<'a> Solutions<'a> {
    /// M through the maximum-likelihood estimate `point` (a distribution) along the
    /// orthonormal `directions` (each of `point`'s length, summing to 0).
    pub fn new(point: &'a [f64], directions: &'a [Vec<f64>]) -> Self {
        Solutions { point, directions }
    }

    /// Whether M has at most [`MAX_INTERVAL_DIRECTIONS`] directions, so that
    /// [`Solutions::range`] is computed by the callers of this module.
    pub fn bounded(&self) -> bool {
        self.directions.len() <= MAX_INTERVAL_DIRECTIONS
    }

    /// [min aᵀπ, max aᵀπ] over M, which contains aᵀp̂. Both ends are rounded to within
    /// the LP's feasibility tolerance (1e-10 per row) and never cross aᵀp̂.
    ///
    /// # Errors
    /// `design_failed` if the LP solver fails (it has a feasible point, p̂, and a bounded
    /// objective, so this is a solver failure, not a property of the counts).
    pub fn range(&self, a: &[f64]) -> Result<Interval> {
        let at = dot(a, self.point);
        if self.directions.is_empty() {
            return Ok([at, at]);
        }
        let slope: Vec<f64> = self.directions.iter().map(|v| negligible_as_zero(dot(a, v))).collect();
        let low = self.extreme(&slope, 1.0)?;
        let high = -self.extreme(&slope, -1.0)?;
        Ok([(at + low).min(at), (at + high).max(at)])
    }

    /// min over M of sign·(aᵀπ − aᵀp̂), with slope_j = a·v_j.
    fn extreme(&self, slope: &[f64], sign: f64) -> Result<f64> {
        let mut lp = Lp::minimise();
        let t: Vec<usize> = slope.iter().map(|&s| lp.free_var(sign * s)).collect();
        for (x, &px) in self.point.iter().enumerate() {
            let row: Vec<(usize, f64)> = t
                .iter()
                .zip(self.directions)
                .map(|(&j, v)| (j, negligible_as_zero(v[x])))
                .filter(|&(_, c)| c != 0.0)
                .collect();
            if !row.is_empty() {
                lp.constraint(&row, Cmp::Ge, -px);
            }
        }
        Ok(lp.solve("the interval of an unidentified estimate")?.1)
    }
}

/// A coefficient of at most [`ORTHOGONAL`] in magnitude as 0: the identification rule's
/// reading of it, and it keeps the LP's rows within the scale its solver accepts (a
/// direction's entries of 1e-30 beside entries of 1 make its bases singular).
fn negligible_as_zero(c: f64) -> f64 {
    if c.abs() <= ORTHOGONAL {
        0.0
    } else {
        c
    }
}

/// Per category x: whether π_x is identified, and where it is not, its interval over M
/// (`None` where it is, and where M is not [`Solutions::bounded`]).
pub(crate) fn categories(solutions: &Solutions<'_>) -> Result<(Vec<bool>, Vec<Option<Interval>>)> {
    let k = solutions.point.len();
    let mut identified = Vec::with_capacity(k);
    let mut interval = Vec::with_capacity(k);
    let mut e = alloc::vec![0.0; k];
    for x in 0..k {
        e[x] = 1.0;
        let known = identifies(solutions.directions, &e);
        identified.push(known);
        let bound = !known && solutions.bounded();
        interval.push(if bound { Some(solutions.range(&e)?.map(|v| v.clamp(0.0, 1.0))) } else { None });
        e[x] = 0.0;
    }
    Ok((identified, interval))
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
