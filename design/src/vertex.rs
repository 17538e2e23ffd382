//! Vertex enumeration of the lift polytope, in pure Rust (no_std + alloc, builds for wasm32).
//!
//! The polytope is Δ of Lopuhaä-Zwakenberg (privacy funnel, eq 11) for ε-LIP, and Π of
//! Zarrabian, Ding, Sadeghi (eq 21, on a subset X' of X) for (εl, εu)-ALIP: the
//! candidate columns v = P_{X|Y}(·|y) of a mechanism,
//!
//! ```text
//!   v ∈ R^{X'},  v ≥ 0,  Σ_x v_x = 1,
//!   lo_s := e^{−εl} P(s) ≤ Σ_x P(s|x) v_x ≤ e^{εu} P(s) =: hi_s   for every s,
//! ```
//!
//! since Σ_x P(s|x) P(x|y) = P(s|y) and the lift of s given y is P(s|y)/P(s).
//!
//! # Why a vertex has at most |S| non-zero coordinates
//! Write a_s = (P(s|x))_x. Because P(·|x) is a distribution, **Σ_s a_s = 1ᵀ**: the equality
//! row Σ_x v_x = 1 lies in the span of the |S| secret rows. At a vertex v with support K
//! (|K| = k), the constraints active at v restricted to the coordinates K must determine
//! v_K uniquely, so they have rank k; but they are the row 1ᵀ and some secret rows
//! a_s|_K, all in span{a_s|_K : s ∈ S}, of rank ≤ |S|. Hence **k ≤ |S|**. (The count
//! |S| + 1 that the inequality count alone suggests is never reached: k = |S| + 1 would
//! need every secret active at once, whose rows then sum to 1ᵀ — a singular system.)
//! Moreover k − 1 active secret rows with 1ᵀ already form a non-singular k × k system
//! (extend 1ᵀ to a basis of the active row space), and each secret is active on one side
//! at most (lo_s < hi_s).
//!
//! # Two methods, and which is faster
//! **Supports × active secrets** ([`LiftPolytope::vertices_by_support`]). Every vertex is
//! found by choosing a support K (|K| = k ≤ |S|), k − 1 secrets T and a side (lo or hi)
//! for each, and solving the k × k system `[1ᵀ; a_T|_K] v_K = [1; b_T]`; the solution is
//! a vertex iff v_K > 0 and every other secret constraint holds. Geometrically, v_K are
//! the barycentric coordinates of the point b_T in the simplex spanned by the points
//! (P(t|x))_{t∈T}, x ∈ K. One factorisation per (K, T) serves all 2^{k−1} sides. The
//! work is Σ_{k ≤ |S|} C(|X|, k) C(|S|, k−1) 2^{k−1} small solves, **polynomial in |X|
//! for a fixed |S|** (O(|X|^{|S|})) and independent of ε, and so is the vertex count it
//! bounds. At |X| = 17, |S| = 5 that is 714,017 candidate solves of at most 5 × 5.
//!
//! **Pivoting** ([`LiftPolytope::vertices_by_pivoting`], the default). A search over the
//! feasible bases of the LP form, O(#bases · |X| · |S|): it pays per vertex, not per
//! candidate support. It starts at a vertex with one or two non-zeros when one exists
//! (a direct scan), else at the vertex an LP returns, and follows only the edges along
//! which a generic objective minimised at the start does not decrease (plus every
//! degenerate pivot) — every vertex is the end of such a path, the reverse of a simplex
//! path to the start — so each edge is examined from one end only. Bases live in a
//! flat hash set (`design/keyset.rs`), B⁻¹ is updated per pivot and factorised
//! afresh every 16, and vertices are returned sparse ([`SparseVertices`];
//! `vertex/pivoting.rs`). **On a non-degenerate polytope** (the papers' random joints)
//! a **reverse search** (Avis and Fukuda 1992; `vertex/reverse.rs`) replaces it: the
//! same vertices from the tree of Bland's-rule parents, with no visited set, on every
//! core natively, in a canonical order; it checks non-degeneracy wherever it looks and
//! hands a degenerate polytope back to the hashed search. Measured natively (`benches/optimal.rs`, |X| = 17, |S| = 5,
//! shared cores): ε = 1 (181 vertices) ≈ 0.7 ms, ε = 0.25 (8,928 vertices) ≈ 35 ms of
//! CPU, against ≈ 65 ms for the supports at either ε. At |S| = 5, εl = εu = 1 the
//! vertex count grows from 181 (|X| = 17) to 2,910 (32), 19,488 (64), 177,840 (128) and
//! 2,992,360 (200) on the random joints of `examples/aorr_scaling.rs`, which is what
//! bounds the exact design there.

//! # Degeneracy and tolerance
//! A degenerate vertex (more than k − 1 active secrets) is produced by several T; such
//! duplicates share the support K and are merged when every coordinate agrees to 1e-9
//! relative (`same_point`; an absolute tolerance merged distinct vertices of tiny
//! coordinates). A system with a
//! pivot below 1e-12 is skipped as singular (any vertex it could give is produced by a
//! non-singular choice of T, see above). Coordinates must exceed [`TOLERANCE`] to count
//! as the support (a smaller one is the same vertex on a smaller support). Every vertex
//! returned is **post-checked against all constraints** ([`LiftPolytope::contains`]) with
//! relative tolerance [`TOLERANCE`], far inside the margin every designer keeps below
//! its budget (`lift::design_budget`); a candidate failing it is dropped.

//!
//! # Scaled coordinates
//! Tolerances on coordinates (the support threshold, the primal margins of the searches)
//! are absolute, which suits coordinates of order 1. But a column's v_x can never exceed
//! e^{εu} P(s) / P(s|x) for any s, and with S = X and P(x) = 1e-12 every vertex has
//! v_x ≈ P(x): the searches could not tell that coordinate from 0, so the start basis
//! lost it and a feasible request was called infeasible. When some input's bound
//! d_x = min(1, min_s e^{εu} P(s) / P(s|x)) is below 1e-3 (`coordinate_scale`), the
//! searches work in u_x = v_x / d_x (Σ_x d_x u_x = 1) with row s divided by hi_s: every
//! coefficient then lies in [0, 1] and every coordinate's range in [0, 1]. Rows alone are
//! so divided when the masses P(s) span more than three orders (a secret of P(s) = 1e-10
//! has a row and bounds of that size, and the polytope was called empty). The vertices
//! are the same points, returned as v; otherwise d = 1 and nothing changes, bit for bit.

// `!(a >= b)` is deliberate: it also rejects NaN. Index loops mirror the maths.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

mod pivoting;
mod reverse;
mod tol;

use crate::linalg::invert;
use alloc::vec;
use alloc::vec::Vec;
use tol::{BASIS_PIVOT, SAME_POINT, START_SLACK};

use super::lift::JointView;
use super::lp::{Cmp, Lp};
pub use pivoting::{Limits, SparseVertices};
use privlift::error::{Error, Result};

/// Relative tolerance of the vertex post-check, and the least coordinate counted as
/// non-zero.
pub const TOLERANCE: f64 = 1e-12;

/// Most candidate solves one enumeration may do (about a second natively).
pub const MAX_CANDIDATES: u64 = 50_000_000;

/// Most vertices the default enumeration returns ([`LiftPolytope::default_limits`]).
/// The search costs ≈ 1.5 µs per vertex and core at |X| = 17 and grows with |X| (≈ 8 µs
/// at |X| = 200 by the reverse search of `vertex/reverse.rs`, ≈ 20 µs by the hashed search
/// a degenerate polytope needs); beyond this cap the design is refused (with a pointer to SRR) instead
/// of running for minutes. [`LiftPolytope::vertices_with`] takes other caps (the exact
/// large-|X| path of [`super::orr::response_sparse`]).
pub const MAX_VERTICES: usize = 200_000;

impl LiftPolytope {
    /// The refusal of a vertex search past `max_bases` bases.
    fn too_many_bases(&self, max_bases: usize) -> Error {
        Error::invalid(
            "alphabet",
            alloc::format!(
                "vertex search with |X| = {}, |S| = {} visited more than {max_bases} bases; use subset random \
                 response (srr) instead",
                self.n,
                self.ns
            ),
        )
    }
}

fn too_many_vertices(n: usize, ns: usize) -> Error {
    Error::invalid(
        "alphabet",
        alloc::format!(
            "vertex enumeration with |X| = {n}, |S| = {ns} finds more than {MAX_VERTICES} vertices, which would \
             take too long; use subset random response (srr) instead"
        ),
    )
}

/// The lift polytope on a subset X' of X (see the module docs).
#[derive(Debug, Clone)]
pub struct LiftPolytope {
    n: usize,
    ns: usize,
    /// The scale of each coordinate: the searches work in u_j = v_j / d_j, so the equality
    /// row is Σ_j d_j u_j = 1 (all d_j = 1 unless [`coordinate_scale`] scales).
    d: Vec<f64>,
    /// Whether rows (and perhaps columns) are scaled; if not, every d_j is 1.
    scaled: bool,
    /// a_s(j) = P(s | X'_j), row-major ns × n; scaled, a_s(j) d_j / hi_s.
    a: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl LiftPolytope {
    /// The polytope of columns over the inputs `subset` (indices into X, each with
    /// P(x) > 0) with lifts in [e^{ln_lo}, e^{ln_hi}].
    ///
    /// # Errors
    /// `invalid_argument` for an empty subset, an index out of range, an input with
    /// P(x) = 0, or bounds with ln_lo ≥ ln_hi.
    pub fn new(view: &JointView, subset: &[usize], ln_lo: f64, ln_hi: f64) -> Result<Self> {
        let bad = |reason: alloc::string::String| Error::invalid("subset", reason);
        if subset.is_empty() {
            return Err(bad("empty".into()));
        }
        if let Some(&x) = subset.iter().find(|&&x| x >= view.nx() || view.p_x[x] <= 0.0) {
            return Err(bad(alloc::format!("input {x} is out of range or has P(x) = 0")));
        }
        if !(ln_lo < ln_hi) {
            return Err(Error::invalid("bounds", alloc::format!("need ln_lo < ln_hi, got {ln_lo}, {ln_hi}")));
        }
        let (ns, n, nx) = (view.ns(), subset.len(), view.nx());
        let mut a = Vec::with_capacity(ns * n);
        for s in 0..ns {
            a.extend(subset.iter().map(|&x| view.cond[s * nx + x]));
        }
        let mut lo: Vec<f64> = view.p_s.iter().map(|&p| p * libm::exp(ln_lo)).collect();
        let mut hi: Vec<f64> = view.p_s.iter().map(|&p| p * libm::exp(ln_hi)).collect();
        let scale = coordinate_scale(view, subset, ln_hi);
        let scaled = scale.is_some() || spans_wide(&view.p_s);
        let d = scale.unwrap_or_else(|| vec![1.0; n]);
        if scaled {
            // Row s divided by hi_s (bounds e^{ln_lo − ln_hi} and 1), column j times d_j:
            // every entry lies in [0, 1] by the choice of d.
            for s in 0..ns {
                a[s * n..(s + 1) * n].iter_mut().zip(&d).for_each(|(e, dj)| *e = *e * dj / hi[s]);
                lo[s] /= hi[s];
                hi[s] = 1.0;
            }
        }
        Ok(LiftPolytope { n, ns, d, scaled, a, lo, hi })
    }

    /// Number of coordinates |X'|.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Candidate solves the enumeration does (saturating).
    pub fn candidates(&self) -> u64 {
        candidates(self.ns, self.n)
    }

    /// The post-check: v ≥ 0, Σ v = 1 and every secret constraint, each to relative
    /// tolerance `tol`.
    pub fn contains(&self, v: &[f64], tol: f64) -> bool {
        if v.len() != self.n {
            return false;
        }
        let idx: Vec<u32> = (0..self.n as u32).collect();
        self.contains_sparse(&idx, v, tol)
    }

    /// Every vertex, each post-checked (see the module docs). Empty iff the polytope is.
    ///
    /// Runs the pivoting search ([`LiftPolytope::vertices_by_pivoting`]) and falls back to
    /// [`LiftPolytope::vertices_by_support`] if it cannot start (no basis identified at
    /// the LP's starting vertex) — both return the same set (cross-checked in tests).
    ///
    /// # Errors
    /// `invalid_argument` if the search would exceed [`MAX_BASES`] bases and the support
    /// enumeration [`MAX_CANDIDATES`] solves.
    pub fn vertices(&self) -> Result<Vec<Vec<f64>>> {
        let vs = self.vertices_with(self.default_limits())?;
        Ok((0..vs.len()).map(|i| vs.dense(i)).collect())
    }

    /// [`LiftPolytope::vertices`], sparse and with the caps given: the pivoting search,
    /// falling back to the support enumeration as [`LiftPolytope::vertices`] does.
    ///
    /// # Errors
    /// As [`LiftPolytope::vertices`], with `limits` in place of the default caps.
    pub fn vertices_with(&self, limits: Limits) -> Result<SparseVertices> {
        let by_support = || -> Result<SparseVertices> {
            let dense = self.vertices_by_support()?;
            let mut out = SparseVertices::new(self.n);
            for v in &dense {
                let idx: Vec<u32> = (0..self.n).filter(|&j| v[j] > 0.0).map(|j| j as u32).collect();
                let val: Vec<f64> = idx.iter().map(|&j| v[j as usize]).collect();
                out.push(&idx, &val);
            }
            Ok(out)
        };
        match self.vertices_sparse(limits) {
            Ok(Some(vs)) => Ok(vs),
            // Past the deadline, no fall-back: the design is given up.
            Err(e) if crate::deadline::was_reached() => Err(e),
            Ok(None) | Err(Error::DesignFailed { .. }) => by_support(),
            Err(e) => match self.candidates() <= MAX_CANDIDATES {
                true => by_support(),
                false => Err(e),
            },
        }
    }

    /// The default caps: [`LiftPolytope::max_bases`] bases and [`MAX_VERTICES`] vertices.
    pub fn default_limits(&self) -> Limits {
        Limits { max_bases: self.max_bases(), max_vertices: MAX_VERTICES }
    }

    /// Every vertex by a depth-first search over the feasible bases of the
    /// bounded-variable form `Σ v = 1, a_s·v − r_s = 0, v ≥ 0, r_s ∈ [lo_s, hi_s]`
    /// (|S| + 1 rows; a basis is |S| + 1 of the v's and r's, the others at a bound).
    /// Each step is a simplex pivot from a visited basis: a non-basic variable leaves its
    /// bound and the ratio test picks the basic variable that hits a bound first — or,
    /// **under degeneracy, each of the tied ones**, so every feasible basis of a degenerate
    /// vertex is visited (the graph of feasible bases is connected). B⁻¹ is updated by
    /// each pivot and factorised afresh every 16 (bounded drift along long pivot
    /// paths); each basis is visited once (keyed by its basic variables and the sides of
    /// its non-basic secret rows), and its vertex kept once.
    ///
    /// **Only edges along which a linear objective c does not decrease are followed**
    /// (and every degenerate pivot, whatever c does). c is 0 on the start basis and
    /// generic (golden-ratio fractions) on the non-basic variables, signed towards their
    /// bounds, so the start vertex is its unique minimiser. Every other vertex w has a
    /// basis from which a simplex pivot on c makes a non-degenerate improving step to a
    /// vertex u with c(u) < c(w), and the reverse pivot from u is a ratio-test move of
    /// non-decreasing c (the segment u–w is feasible, so no basic variable hits a bound
    /// before w); the degenerate pivots at w then reach all of w's bases. By induction on
    /// c every feasible basis is visited, while each edge is examined from one end only.
    /// The start is a vertex with one or two non-zeros if a direct scan finds one, else
    /// the vertex an LP returns. The work is O(#bases · |X| · |S|), so it scales with the
    /// number of vertices instead of the C(|X|, |S|) supports of
    /// [`LiftPolytope::vertices_by_support`]. The search itself is
    /// [`LiftPolytope::vertices_sparse`].
    ///
    /// `Ok(None)` if no starting basis could be identified (the caller falls back).
    ///
    /// # Errors
    /// `invalid_argument` beyond [`LiftPolytope::max_bases`] bases or [`MAX_VERTICES`]
    /// vertices; `design_failed` on solver trouble.
    pub fn vertices_by_pivoting(&self) -> Result<Option<Vec<Vec<f64>>>> {
        Ok(self.vertices_sparse(self.default_limits())?.map(|vs| (0..vs.len()).map(|i| vs.dense(i)).collect()))
    }

    /// The pivoting search's cap: [`MAX_BASES`], or fewer so that the work
    /// (≈ (|S|+1)³ + |X|(|S|+1)² flops per basis) stays below 2e8 flops.
    pub fn max_bases(&self) -> usize {
        max_bases(self.ns, self.n)
    }

    /// Column j of the bounded-variable form: u_j → (d_j, a_0j, …), r_s → (0, −e_s).
    fn column(&self, j: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|e| *e = 0.0);
        if j < self.n {
            out[0] = self.d[j];
            for s in 0..self.ns {
                out[s + 1] = self.a[s * self.n + j];
            }
        } else {
            out[j - self.n + 1] = -1.0;
        }
    }

    fn bounds(&self, var: usize) -> (f64, f64) {
        if var < self.n {
            (0.0, f64::INFINITY)
        } else {
            (self.lo[var - self.n], self.hi[var - self.n])
        }
    }

    /// A feasible starting status: a vertex with one or two non-zeros found by a direct
    /// scan ([`LiftPolytope::small_start`]), else the vertex an LP with a generic
    /// objective returns, with its support basic and k − 1 of its tight secrets (making
    /// the system non-singular) at their bound. `Ok(None)` inside `Ok` means the
    /// polytope is empty; `Err(DesignFailed)` that no basis was identified.
    fn start_status(&self) -> Result<Option<Vec<u8>>> {
        if let Some(status) = self.small_start() {
            return Ok(Some(status));
        }
        let mut lp = Lp::minimise();
        // A generic objective (fractional parts of multiples of the golden ratio), so the
        // optimum is a single vertex.
        let vars: Vec<usize> = (0..self.n).map(|j| lp.var(generic_cost(j))).collect();
        lp.constraint(&vars.iter().zip(&self.d).map(|(&i, &d)| (i, d)).collect::<Vec<_>>(), Cmp::Eq, 1.0);
        for s in 0..self.ns {
            let terms: Vec<(usize, f64)> = (0..self.n)
                .filter(|&j| self.a[s * self.n + j] > 0.0)
                .map(|j| (vars[j], self.a[s * self.n + j]))
                .collect();
            lp.constraint(&terms, Cmp::Ge, self.lo[s]);
            lp.constraint(&terms, Cmp::Le, self.hi[s]);
        }
        let v = match lp.solve("vertex search start") {
            Ok((v, _)) => v,
            Err(Error::Infeasible { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let failed = || Error::DesignFailed { reason: "vertex search: no basis at the starting vertex".into() };
        let support: Vec<usize> = (0..self.n).filter(|&j| v[j] > START_SLACK).collect();
        let k = support.len();
        let mut tight: Vec<(usize, u8)> = Vec::new();
        for s in 0..self.ns {
            let r = dot(&self.a[s * self.n..(s + 1) * self.n], &v);
            if (r - self.lo[s]).abs() <= START_SLACK * self.hi[s] {
                tight.push((s, LOWER));
            } else if (r - self.hi[s]).abs() <= START_SLACK * self.hi[s] {
                tight.push((s, UPPER));
            }
        }
        if k == 0 || k - 1 > tight.len() {
            return Err(failed());
        }
        let mut pick: Vec<usize> = (0..k - 1).collect();
        loop {
            let mut status = vec![LOWER; self.n + self.ns];
            for &j in &support {
                status[j] = BASIC;
            }
            for s in 0..self.ns {
                status[self.n + s] = BASIC;
            }
            for &p in &pick {
                let (s, side) = tight[p];
                status[self.n + s] = side;
            }
            if self.feasible_status(&status) {
                return Ok(Some(status));
            }
            if !next_combination(&mut pick, tight.len()) {
                return Err(failed());
            }
        }
    }

    /// Every vertex by [`LiftPolytope::vertices_by_support`] (see the module docs), each
    /// post-checked. Empty iff the polytope is. The reference method, used to cross-check
    /// the pivoting search in tests and as its fall-back.
    ///
    /// # Errors
    /// `invalid_argument` if the enumeration would exceed [`MAX_CANDIDATES`] solves.
    pub fn vertices_by_support(&self) -> Result<Vec<Vec<f64>>> {
        let work = self.candidates();
        if work > MAX_CANDIDATES {
            return Err(Error::invalid(
                "alphabet",
                alloc::format!(
                    "vertex enumeration with |X| = {}, |S| = {} needs {work} candidate solves (limit \
                     {MAX_CANDIDATES}); use subset random response (srr) instead",
                    self.n,
                    self.ns
                ),
            ));
        }
        let (n, ns) = (self.n, self.ns);
        let mut out: Vec<Vec<f64>> = Vec::new();
        let mut m = vec![0.0; ns * ns];
        let mut inv = vec![0.0; ns * ns];
        let mut vk = vec![0.0; ns];
        let mut supports = 0usize;
        for k in 1..=ns.min(n) {
            let mut support: Vec<usize> = (0..k).collect();
            loop {
                if supports % crate::deadline::SEARCH_READS_EVERY == 0 {
                    crate::deadline::check("the vertex enumeration")?;
                }
                supports += 1;
                let first_of_support = out.len();
                let mut active: Vec<usize> = (0..k - 1).collect();
                loop {
                    // M = [d_Kᵀ; a_T|_K], k × k.
                    for (j, &x) in support.iter().enumerate() {
                        m[j] = self.d[x];
                    }
                    for (r, &t) in active.iter().enumerate() {
                        for (j, &x) in support.iter().enumerate() {
                            m[(r + 1) * k + j] = self.a[t * n + x];
                        }
                    }
                    if invert(&mut m[..k * k], &mut inv[..k * k], k, BASIS_PIVOT) {
                        self.sides(k, &support, &active, &inv[..k * k], &mut vk[..k], first_of_support, &mut out);
                    }
                    if !next_combination(&mut active, ns) {
                        break;
                    }
                }
                if out.len() > MAX_VERTICES {
                    return Err(too_many_vertices(n, ns));
                }
                if !next_combination(&mut support, n) {
                    break;
                }
            }
        }
        out.retain(|v| self.contains(v, TOLERANCE));
        Ok(out)
    }

    /// Tries every side assignment of the active secrets for one (K, T).
    #[allow(clippy::too_many_arguments)]
    fn sides(
        &self,
        k: usize,
        support: &[usize],
        active: &[usize],
        inv: &[f64],
        vk: &mut [f64],
        first_of_support: usize,
        out: &mut Vec<Vec<f64>>,
    ) {
        let n = self.n;
        'pattern: for pattern in 0u64..(1u64 << (k - 1)) {
            // u_K = M⁻¹ [1; b_T]: column 0 of M⁻¹ plus b_t times column t + 1.
            for (i, o) in vk.iter_mut().enumerate() {
                let mut acc = inv[i * k];
                for (r, &t) in active.iter().enumerate() {
                    let b = if pattern >> r & 1 == 1 { self.hi[t] } else { self.lo[t] };
                    acc += inv[i * k + r + 1] * b;
                }
                if !(acc > TOLERANCE) {
                    continue 'pattern;
                }
                *o = acc;
            }
            for s in (0..self.ns).filter(|s| !active.contains(s)) {
                let r: f64 = support.iter().zip(vk.iter()).map(|(&x, &v)| self.a[s * n + x] * v).sum();
                if r < self.lo[s] * (1.0 - TOLERANCE) || r > self.hi[s] * (1.0 + TOLERANCE) {
                    continue 'pattern;
                }
            }
            let v = posterior(&self.d, support, vk, n);
            let duplicate = out[first_of_support..].iter().any(|w| same_point(w, &v));
            if !duplicate {
                out.push(v);
            }
        }
    }
}

/// The generic objective of the search's start, c_j = frac((j + 1)/φ) for v_j (the
/// start is its minimiser; the search then follows edges along which it does not
/// decrease, see [`LiftPolytope::vertices_by_pivoting`]).
fn generic_cost(j: usize) -> f64 {
    ((j as f64 + 1.0) * 0.618_033_988_749_895) % 1.0
}

/// Status of a variable in the pivoting search.
const BASIC: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

/// Most bases the pivoting search visits (fewer for a large |S|: see [`LiftPolytope::max_bases`]).
pub const MAX_BASES: usize = 200_000;

/// Floating-point operations per basis the pivoting search visits with |S| = `ns` secrets
/// and |X| = `nx` inputs: ≈ (|S|+1)³ + |X|(|S|+1)² (a pivot's update of B⁻¹ and its
/// pricing), the unit of the caps and of the CLI's estimate before an exact design.
pub fn flops_per_basis(ns: usize, nx: usize) -> usize {
    let m = ns.saturating_add(1);
    m.saturating_mul(m).saturating_mul(m.saturating_add(nx))
}

/// An upper bound on the feasible bases of the pivoting search with |S| = `ns`, |X| = `nx`:
/// |S| + 1 basic variables out of |X| + |S|, each non-basic r_s at one of its two bounds,
/// C(|X| + |S|, |S| + 1) · 2^|S| (as a float: it passes 2^64 for large alphabets). The
/// search stops at the polytope's true number, unknown until it ends.
pub fn bases_bound(ns: usize, nx: usize) -> f64 {
    let (n, k) = (nx + ns, ns + 1);
    let binomial = (1..=k.min(n)).fold(1.0, |c, i| c * (n + 1 - i) as f64 / i as f64);
    binomial * 2f64.powi(ns.min(1023) as i32)
}

/// The candidate systems the support enumeration ([`LiftPolytope::vertices_by_support`])
/// solves with |S| = `ns` secrets over `n` inputs (saturating): C(n, k) supports of each
/// size k ≤ |S|, C(|S|, k − 1) sets of active secrets, 2^(k − 1) sides each.
pub fn candidates(ns: usize, n: usize) -> u64 {
    (1..=ns.min(n))
        .map(|k| binomial(n, k).saturating_mul(binomial(ns, k - 1)).saturating_mul(1u64 << (k - 1).min(63)))
        .fold(0u64, u64::saturating_add)
}

/// The default cap on bases for |S| = `ns`, |X| = `nx`: [`MAX_BASES`], or fewer so that
/// the search stays below 2e8 flops (about 0.6 s natively).
pub fn max_bases(ns: usize, nx: usize) -> usize {
    MAX_BASES.min(200_000_000 / flops_per_basis(ns, nx).max(1)).max(1)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Whether two points computed from different active sets are the same vertex: every
/// coordinate agrees to [`SAME_POINT`] **relative**. An absolute tolerance merged distinct
/// vertices whose coordinates are all small: with P(x) = 2.95e-9 the vertices at
/// v_x = e^{∓ε} P(x) differ by 4e-10 in every coordinate they move, and merging them
/// lost half the polytope, so P_X fell outside the cone of what was left (`infeasible`
/// for a feasible request; pinned in `design/tests/sweep.rs`). Keeping a near-duplicate
/// costs one redundant LP column; merging two vertices can cost feasibility.
pub(crate) fn same_point(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= SAME_POINT * x.abs().max(y.abs()))
}

/// The coordinate scale of a polytope of columns over `subset` whose lifts stay below
/// e^{ln_hi}: d_x = min(1, min_s e^{ln_hi} P(s) / P(s|x)), a bound on v_x in any such
/// column (P(s|x) v_x ≤ P(s|y) ≤ e^{ln_hi} P(s) for every s). `None`, no scaling, unless
/// some d_x is below 1/[`WIDE_RANGE`] (see "Scaled coordinates" in the module docs).
pub(crate) fn coordinate_scale(view: &JointView, subset: &[usize], ln_hi: f64) -> Option<Vec<f64>> {
    let (ns, nx, bound) = (view.ns(), view.nx(), libm::exp(ln_hi));
    let d: Vec<f64> = subset
        .iter()
        .map(|&x| {
            (0..ns)
                .filter(|&s| view.cond[s * nx + x] > 0.0)
                .map(|s| bound * view.p_s[s] / view.cond[s * nx + x])
                .fold(1.0f64, f64::min)
        })
        .collect();
    d.iter().any(|&e| e < 1.0 / WIDE_RANGE).then_some(d)
}

/// Ratio of the largest to the smallest positive mass beyond which a problem is solved
/// in scaled rows: LP (22) in rows scaled by 1/P(x) (`orr::row_scale`), the vertex
/// searches in rows divided by hi_s when the P(s) span more ([`spans_wide`]), and in
/// coordinates scaled by d_x when some reach is below 1/`WIDE_RANGE`
/// ([`coordinate_scale`]).
pub(crate) const WIDE_RANGE: f64 = 1e3;

/// Whether the positive `masses` span more than [`WIDE_RANGE`].
pub(crate) fn spans_wide(masses: &[f64]) -> bool {
    let positive = masses.iter().copied().filter(|&t| t > 0.0);
    let (lo, hi) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), t| (lo.min(t), hi.max(t)));
    hi > WIDE_RANGE * lo
}

/// The posterior column v over `n` coordinates of the point u_K found on `support` in
/// coordinates scaled by `d`: v_x = d_x u_x renormalised to Σ v = 1 (the sparse form is
/// `LiftPolytope::vertex_of`).
pub(crate) fn posterior(d: &[f64], support: &[usize], u: &[f64], n: usize) -> Vec<f64> {
    let total: f64 = support.iter().zip(u).map(|(&x, &u)| d[x] * u).sum();
    let mut v = vec![0.0; n];
    for (&x, &u) in support.iter().zip(u) {
        v[x] = d[x] * u / total;
    }
    v
}

/// C(n, k), saturating.
pub(crate) fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u64 = 1;
    for i in 0..k {
        c = match c.checked_mul((n - i) as u64) {
            Some(v) => v / (i as u64 + 1),
            None => return u64::MAX,
        };
    }
    c
}

/// Advances a sorted k-combination of 0..n in lexicographic order; false after the last.
pub(crate) fn next_combination(c: &mut [usize], n: usize) -> bool {
    let k = c.len();
    for i in (0..k).rev() {
        if c[i] < n - k + i {
            c[i] += 1;
            for j in i + 1..k {
                c[j] = c[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use privlift::document::Matrix;
    use rand_chacha::ChaCha8Rng;

    trait TapSort {
        fn tap_sort(self) -> Self;
    }
    impl TapSort for Vec<Vec<f64>> {
        fn tap_sort(mut self) -> Self {
            self.sort_by(|a, b| a[0].total_cmp(&b[0]));
            self
        }
    }

    fn view(p: &[&[f64]]) -> JointView {
        let (r, c) = (p.len(), p[0].len());
        JointView::new(&Matrix::from_flat(r, c, p.iter().flat_map(|row| row.iter().copied()).collect()))
    }

    /// The lift polytope, within `lo` ≤ lift ≤ `hi` (logs), of a joint of `ns` secrets
    /// over `nx` inputs drawn from `rng`: each entry uniform in [`floor`, 1 + `floor`), then
    /// normalised.
    fn random_polytope(rng: &mut ChaCha8Rng, ns: usize, nx: usize, floor: f64, lo: f64, hi: f64) -> LiftPolytope {
        use rand::Rng;
        let cells: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>() + floor).collect();
        let total: f64 = cells.iter().sum();
        let v = JointView::new(&Matrix::from_flat(ns, nx, cells.iter().map(|c| c / total).collect()));
        let all: Vec<usize> = (0..nx).collect();
        LiftPolytope::new(&v, &all, lo, hi).unwrap()
    }

    #[test]
    fn combinations_and_binomials() {
        let mut c = vec![0, 1];
        let mut count = 1;
        while next_combination(&mut c, 5) {
            count += 1;
        }
        assert_eq!(count, 10);
        assert_eq!(binomial(17, 5), 6188);
        assert_eq!(binomial(3, 4), 0);
    }

    /// S = X with two symbols: Δ is the segment of v with e^{-ε} ≤ v_x / P(x) ≤ e^{ε}
    /// for both x; with P = (½, ½) the lower bound of each coordinate is the binding one,
    /// v_0 ∈ [½e^{-ε}, 1 − ½e^{-ε}] (k = 1 ≤ |S| = 2 non-zero coordinates would need a
    /// lift of 0, so both vertices have support 2 = |S|).
    #[test]
    fn two_symbol_segment() {
        let v = view(&[&[0.5, 0.0], &[0.0, 0.5]]);
        let eps: f64 = 0.5;
        let p = LiftPolytope::new(&v, &[0, 1], -eps, eps).unwrap();
        let mut vs = p.vertices().unwrap();
        vs.sort_by(|a, b| a[0].total_cmp(&b[0]));
        assert_eq!(vs.len(), 2);
        let low = 0.5 * (-eps).exp();
        assert!((vs[0][0] - low).abs() < 1e-12, "{vs:?}");
        assert!((vs[1][0] - (1.0 - low)).abs() < 1e-12, "{vs:?}");
        let by_support = p.vertices_by_support().unwrap().tap_sort();
        assert!(vs.iter().flatten().zip(by_support.iter().flatten()).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    /// A degenerate polytope: two identical secrets' conditionals make every vertex
    /// arise from several active sets; duplicates are merged.
    #[test]
    fn degenerate_duplicates_are_merged() {
        // s0 and s1 have the same P(s|x) up to scale, so their constraints coincide.
        let v = view(&[&[0.1, 0.2, 0.05], &[0.1, 0.2, 0.05], &[0.2, 0.05, 0.05]]);
        let p = LiftPolytope::new(&v, &[0, 1, 2], -1.0, 1.0).unwrap();
        let vs = p.vertices().unwrap();
        for (i, a) in vs.iter().enumerate() {
            assert!(p.contains(a, TOLERANCE));
            for b in &vs[i + 1..] {
                assert!(a.iter().zip(b).any(|(x, y)| (x - y).abs() > 1e-9), "duplicate vertex {a:?}");
            }
        }
        assert!(!vs.is_empty());
    }

    /// The AVX2 build of the reverse search's inner loops (taken when the CPU has AVX2)
    /// gives the portable build's vertices bit for bit: the same operations in the same
    /// order, 4 lanes wide instead of 2 (no FMA; Rust never reassociates). On a CPU
    /// without AVX2 both runs take the portable build.
    #[test]
    fn reverse_search_simd_build_gives_the_same_bits() {
        use rand::SeedableRng;
        let limits = Limits { max_bases: 1_000_000, max_vertices: 1_000_000 };
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let mut searched = 0;
        for (ns, nx, lo, hi) in [(3, 9, -0.6, 0.4), (4, 13, -0.5, 0.5), (5, 17, -0.25, 0.25), (2, 31, -1.0, 0.7)] {
            let p = random_polytope(&mut rng, ns, nx, 0.01, lo, hi);
            let simd = p.search(limits, pivoting::Search::Reverse).unwrap().expect("non-degenerate");
            let portable = p.search(limits, pivoting::Search::ReversePortable).unwrap().expect("non-degenerate");
            assert_eq!(simd.len(), portable.len());
            for i in 0..simd.len() {
                let ((ia, va), (ib, vb)) = (simd.get(i), portable.get(i));
                assert_eq!(ia, ib);
                assert!(va.iter().zip(vb).all(|(a, b)| a.to_bits() == b.to_bits()), "vertex {i}: {va:?} {vb:?}");
            }
            searched += simd.len();
        }
        assert!(searched > 1_000, "{searched} vertices");
    }

    /// Every search reads the deadline of a design run within one: past it, each stops
    /// with `design_failed` naming itself; before it, each finds what it finds without one.
    #[test]
    fn each_search_stops_at_its_deadline() {
        use core::time::Duration;
        use rand::SeedableRng;
        let limits = Limits { max_bases: 1_000_000, max_vertices: 1_000_000 };
        let p = random_polytope(&mut ChaCha8Rng::seed_from_u64(33), 5, 17, 0.01, -0.25, 0.25);
        let stopped = |r: Result<Option<SparseVertices>>, what: &str| {
            assert!(matches!(&r, Err(Error::DesignFailed { reason }) if reason.contains(what)), "{:?}", r.map(|_| ()));
        };
        for how in [pivoting::Search::Reverse, pivoting::Search::Hashed] {
            let free = p.search(limits, how).unwrap().expect("non-degenerate");
            assert!(free.len() > crate::deadline::SEARCH_READS_EVERY, "{} vertices", free.len());
            let late = crate::deadline::by_deadline(Duration::from_secs(600), || p.search(limits, how));
            assert_eq!(late.expect("in time").unwrap().expect("found").len(), free.len());
            let early =
                crate::deadline::by_deadline(Duration::ZERO, || stopped(p.search(limits, how), "vertex search"));
            assert!(early.is_none(), "the deadline was reached");
        }
        let by_support = || stopped(p.vertices_by_support().map(|_| None), "vertex enumeration");
        assert!(crate::deadline::by_deadline(Duration::ZERO, by_support).is_none());
    }

    /// Within a deadline a quarter of its time, a search of a hundred thousand bases
    /// (AORR 5 × 29 at ε = 0.25) is given up by its prediction from the share of the
    /// tree it has searched, before the clock reaches the deadline; within a deadline far
    /// enough, it ends with every vertex. (Early, the prediction may be far too high: 22
    /// times the tree after 3,264 of its 108,766 bases; such a search goes to the Worker.)
    #[test]
    fn a_search_predicted_past_its_deadline_is_given_up_before_it() {
        use core::time::Duration;
        use rand::SeedableRng;
        let limits = Limits { max_bases: 10_000_000, max_vertices: 10_000_000 };
        let p = random_polytope(&mut ChaCha8Rng::seed_from_u64(0), 5, 29, 0.0, -0.25, 0.25);
        let start = std::time::Instant::now();
        let free = p.search(limits, pivoting::Search::Reverse).unwrap().expect("non-degenerate");
        let time = start.elapsed();
        assert!(free.len() > 100_000, "{} vertices", free.len());
        let mut reason = String::new();
        let given_up = crate::deadline::by_deadline(time / 4, || {
            if let Err(Error::DesignFailed { reason: r }) = p.search(limits, pivoting::Search::Reverse) {
                reason = r;
            }
        });
        assert!(given_up.is_none(), "the deadline is marked reached");
        assert!(reason.contains("would pass its deadline"), "{reason}");
        let ended =
            crate::deadline::by_deadline(Duration::from_secs(600), || p.search(limits, pivoting::Search::Reverse));
        assert_eq!(ended.expect("in time").unwrap().expect("found").len(), free.len());
    }

    #[test]
    fn empty_polytope_has_no_vertices() {
        // A secret that no input in the subset can produce: lo_s > 0 = P(s|y).
        let v = view(&[&[0.5, 0.0], &[0.0, 0.5]]);
        let p = LiftPolytope::new(&v, &[0], -1.0, 1.0).unwrap();
        assert!(p.vertices().unwrap().is_empty());
    }
}
