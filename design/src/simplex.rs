//! A revised simplex for LP (22) of Zarrabian, Ding, Sadeghi (the optimal random
//! response, [`super::orr`]), solved by **column generation**:
//!
//! ```text
//!   min Σ_v q_v H(v)   s.t.  Σ_v q_v v = P_X (on the subset),  q ≥ 0.
//! ```
//!
//! The LP has only |X'| equality rows and one column per candidate vertex v of the lift
//! polytope, each with at most |S| non-zeros ([`super::vertex`]). So instead of handing
//! a general solver a dense model with thousands of columns, this keeps an explicit
//! |X'| × |X'| basis inverse and prices **sparse** columns: the reduced cost of v is
//! H(v) − yᵀv with the duals yᵀ = c_Bᵀ B⁻¹, O(|S|) per column.
//!
//! # Algorithm
//! Two phases from the artificial basis B = I (x_B = P_X ≥ 0): phase 1 minimises the sum
//! of the artificials (the LP is infeasible iff it stays positive), phase 2 minimises
//! Σ q_v H(v). An artificial left in the basis at level 0 after phase 1 is treated as a
//! variable with bounds [0, 0]: it leaves at the first pivot that would move it. The
//! entering column is the most negative reduced cost (Dantzig), switching to Bland's rule
//! (least index, and least basis position among ratio ties) after a run of degenerate
//! pivots, which rules out cycling. B⁻¹ is updated by the product form and refactorised
//! from scratch every [`REFACTOR`] pivots and before the optimality test, so the
//! returned basis is not the end of a long update chain.
//!
//! # Column generation, and why the answer is exact
//! Phase 2 is column generation over the pool: a full scan prices every column, keeps
//! the [`candidates`] most negative reduced costs, and the following pivots re-price
//! only that list until it runs dry (partial pricing); **optimality is only declared
//! after a full scan of the pool finds no reduced cost below −[`PRICE_TOL`]**, on a
//! freshly factorised basis. Then y is feasible for the dual of the LP over the pool
//! (yᵀv ≤ H(v) + PRICE_TOL for every column) and yᵀP_X equals the restricted primal
//! objective, so by weak duality the basis is optimal (to Σ q_v · PRICE_TOL =
//! P(X') · 1e-11 nats, since Σ q_v = P(X') for columns and P_X summing alike). The
//! caller puts **every vertex** of the polytope in the pool ([`super::orr`]); H is
//! concave, so H(v) − yᵀv is concave on the polytope and its minimum is attained at a
//! vertex: no point of the polytope prices out either, and the answer is the optimum
//! of LP (22) over all mechanisms (Zarrabian et al. eq 12), not only over the pool. The
//! [`super::orr::Method::FullLp`] reference (microlp over the dense model) agrees to
//! 1e-9 in I(X;Y) on random instances (`design/tests/colgen.rs`).

// `!(a >= b)` is deliberate: it also rejects NaN. Index loops mirror the maths.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

use crate::linalg::invert;
use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use privlift::error::{Error, Result};

/// Pivots between refactorisations of B⁻¹.
pub(crate) const REFACTOR: usize = 64;

/// A column must beat this reduced cost to enter (the costs are entropies, O(1) nats).
pub(crate) const PRICE_TOL: f64 = 1e-11;

/// Least |B⁻¹a| entry accepted as a pivot.
const PIVOT_TOL: f64 = 1e-11;

/// Refactorising B⁻¹ calls the basis singular at an absolute pivot at most this. Its
/// columns are vertices (≤ |S| non-zeros: probabilities, or the ratios v_x / P(x) when the
/// rows are rescaled; of order 1 either way) or unit columns, so rounding leaves a zero
/// pivot at most a few hundred times 2⁻⁵³ ≈ 1.1e-16; a true pivot is far larger.
const SINGULAR_BASIS: f64 = 1e-13;

/// Ratios of the ratio test within this of each other are ties, broken by Bland's order
/// or the larger pivot: a few ulps of 1, the scale of the masses.
const RATIO_TIE: f64 = 1e-15;

/// A pivot is degenerate (it counts towards [`STALL`]) when the leaving variable's value
/// θ·d_r is at most this: it moves no mass beyond the rounding of the masses.
const NO_PROGRESS: f64 = 1e-13;

/// Phase 1 ends infeasible when the artificial variables keep more than this fraction of
/// the total mass at its optimum: far above what the solver's rounding leaves in them.
const INFEASIBLE_MASS: f64 = 1e-9;

/// Length of the candidate list of partial pricing: a full scan of a small pool is
/// cheap, of a large one it is a pass over memory (3 M vertices at |X| = 200, |S| = 5:
/// 0.2 GB), so a large pool keeps a longer list and is scanned less often. Measured
/// (`aorr_scaling`, AMD EPYC, one run): at 3 M columns the solve takes 1.50 s with 32
/// candidates, 0.89 s with 512; at 8,929 (|X| = 17, ε = 0.25) 4.7 ms and 2.2 ms.
fn candidates(pool: usize) -> usize {
    if pool >= LARGE_POOL {
        512
    } else {
        32
    }
}

/// Pools from this many columns on are large for [`candidates`]. Smaller ones keep the
/// short list with which every small design of the tests was made.
const LARGE_POOL: usize = 4096;

/// Pivots between two reads of the clock of a design run within a deadline
/// ([`crate::work::within`]): a read is a call out of wasm (`performance.now()`), dearer
/// than a small LP's pivot.
const DEADLINE_EVERY: usize = 16;

/// Degenerate pivots in a row after which Bland's rule takes over.
const STALL: usize = 50;

/// Sparse columns (the non-zeros of each candidate v) with their costs H(v).
#[derive(Debug, Clone, Default)]
pub(crate) struct Columns {
    start: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
    cost: Vec<f64>,
}

impl Columns {
    pub fn new() -> Self {
        Columns { start: vec![0], ..Columns::default() }
    }

    /// Adds the column `v` (dense) with objective `cost`; returns its index.
    pub fn push(&mut self, v: &[f64], cost: f64) -> usize {
        for (i, &e) in v.iter().enumerate() {
            if e != 0.0 {
                self.idx.push(i as u32);
                self.val.push(e);
            }
        }
        self.start.push(self.idx.len());
        self.cost.push(cost);
        self.cost.len() - 1
    }

    /// Adds a column given by its non-zeros (rows increasing); returns its index.
    pub fn push_sparse(&mut self, idx: &[u32], val: &[f64], cost: f64) -> usize {
        self.idx.extend_from_slice(idx);
        self.val.extend_from_slice(val);
        self.start.push(self.idx.len());
        self.cost.push(cost);
        self.cost.len() - 1
    }

    pub fn len(&self) -> usize {
        self.cost.len()
    }

    /// The non-zeros of column j as (row, value).
    pub fn nonzeros(&self, j: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.start[j]..self.start[j + 1];
        self.idx[r.clone()].iter().map(|&i| i as usize).zip(self.val[r].iter().copied())
    }

    fn dot(&self, j: usize, y: &[f64]) -> f64 {
        let r = self.start[j]..self.start[j + 1];
        self.idx[r.clone()].iter().zip(&self.val[r]).map(|(&i, &e)| y[i as usize] * e).sum()
    }
}

/// An optimal basic solution of LP (22) over a pool.
#[derive(Debug, Clone)]
pub(crate) struct Solution {
    /// (pool index, mass q_v) of the basic columns with positive mass.
    pub support: Vec<(usize, f64)>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Var {
    Art(usize),
    Col(usize),
}

struct Simplex<'a> {
    m: usize,
    target: &'a [f64],
    basis: Vec<Var>,
    in_basis: Vec<bool>,
    binv: Vec<f64>,
    xb: Vec<f64>,
}

fn failed(reason: &str) -> Error {
    Error::DesignFailed { reason: alloc::format!("optimal random response (eq 22): {reason}") }
}

impl Simplex<'_> {
    fn cost(&self, pool: &Columns, v: Var, phase: u8) -> f64 {
        match (v, phase) {
            (Var::Art(_), 1) => 1.0,
            (Var::Art(_), _) => 0.0,
            (Var::Col(_), 1) => 0.0,
            (Var::Col(j), _) => pool.cost[j],
        }
    }

    fn duals(&self, pool: &Columns, phase: u8, y: &mut [f64]) {
        let m = self.m;
        y.iter_mut().for_each(|e| *e = 0.0);
        for r in 0..m {
            let c = self.cost(pool, self.basis[r], phase);
            if c != 0.0 {
                for (o, &b) in y.iter_mut().zip(&self.binv[r * m..(r + 1) * m]) {
                    *o += c * b;
                }
            }
        }
    }

    /// Rebuilds B⁻¹ and x_B = B⁻¹ P_X from the basis.
    fn refactor(&mut self, pool: &Columns) -> Result<()> {
        let m = self.m;
        let mut b = vec![0.0; m * m];
        for (c, &v) in self.basis.iter().enumerate() {
            match v {
                Var::Art(r) => b[r * m + c] = 1.0,
                Var::Col(j) => {
                    for (r, e) in pool.nonzeros(j) {
                        b[r * m + c] = e;
                    }
                }
            }
        }
        if !invert(&mut b, &mut self.binv, m, SINGULAR_BASIS) {
            return Err(failed("singular basis"));
        }
        for r in 0..m {
            self.xb[r] = self.binv[r * m..(r + 1) * m].iter().zip(self.target).map(|(a, t)| a * t).sum();
        }
        Ok(())
    }

    /// Pivots column `j` (with d = B⁻¹ a_j) into position `r`.
    fn pivot(&mut self, j: usize, r: usize, d: &[f64], theta: f64) {
        let m = self.m;
        for i in 0..m {
            self.xb[i] -= theta * d[i];
        }
        self.xb[r] = theta;
        let p = d[r];
        for e in &mut self.binv[r * m..(r + 1) * m] {
            *e /= p;
        }
        let (before, rest) = self.binv.split_at_mut(r * m);
        let (row, after) = rest.split_at_mut(m);
        for (i, chunk) in before.chunks_exact_mut(m).chain(after.chunks_exact_mut(m)).enumerate() {
            let f = d[if i < r { i } else { i + 1 }];
            if f != 0.0 {
                for (a, &b) in chunk.iter_mut().zip(row.iter()) {
                    *a -= f * b;
                }
            }
        }
        if let Var::Col(old) = self.basis[r] {
            self.in_basis[old] = false;
        }
        self.basis[r] = Var::Col(j);
        self.in_basis[j] = true;
    }
}

/// Solves LP (22) over the pool by the two-phase revised simplex of the module docs.
///
/// # Errors
/// `infeasible` if P_X is not in the cone of the columns; `design_failed` on numerical trouble (a singular basis, an unbounded ray,
/// or the pivot cap) — callers fall back to the general LP solver.
pub(crate) fn solve(pool: &Columns, target: &[f64]) -> Result<Solution> {
    let m = target.len();
    if m == 0 || target.iter().any(|&t| !(t >= 0.0) || !t.is_finite()) {
        return Err(failed("bad target"));
    }
    let mut s = Simplex {
        m,
        target,
        basis: (0..m).map(Var::Art).collect(),
        in_basis: vec![false; pool.len()],
        binv: vec![0.0; m * m],
        xb: target.to_vec(),
    };
    for r in 0..m {
        s.binv[r * m + r] = 1.0;
    }
    let total: f64 = target.iter().sum();
    let max_pivots = 50 * (m + 10) + 20 * pool.len().min(100_000);
    let mut y = vec![0.0; m];
    let mut d = vec![0.0; m];
    let mut phase = 1u8;
    let (mut pivots, mut since_refactor, mut stall) = (0usize, 0usize, 0usize);
    let mut candidates: Vec<usize> = Vec::new();
    loop {
        if pivots % DEADLINE_EVERY == 0 && crate::deadline::past() {
            return Err(failed("the LP reached its deadline"));
        }
        s.duals(pool, phase, &mut y);
        // Pricing: the most negative reduced cost (Bland: the first negative one), among
        // a candidate list refreshed by a full scan when it runs dry (partial pricing;
        // optimality is only declared after a full scan finds nothing).
        let bland = stall >= STALL;
        let price = |j: usize| if phase == 1 { 0.0 } else { pool.cost[j] } - pool.dot(j, &y);
        let mut enter: Option<(usize, f64)> = None;
        if !bland {
            for &j in &candidates {
                let rc = price(j);
                if !s.in_basis[j] && rc < -PRICE_TOL && enter.is_none_or(|(_, best)| rc < best) {
                    enter = Some((j, rc));
                }
            }
        }
        if enter.is_none() {
            let (first, best) = full_scan(pool.len(), &s.in_basis, bland, &price);
            candidates.clear();
            candidates.extend(best.iter().map(|e| e.1));
            enter = if bland { first } else { best.first().map(|&(Key(rc), j)| (j, rc)) };
        }
        let Some((j, _)) = enter else {
            // Optimal over the pool: confirm on a fresh factorisation first.
            if since_refactor > 0 {
                s.refactor(pool)?;
                since_refactor = 0;
                continue;
            }
            if phase == 1 {
                let art: f64 = (0..m).filter(|&r| matches!(s.basis[r], Var::Art(_))).map(|r| s.xb[r].max(0.0)).sum();
                if art > INFEASIBLE_MASS * total {
                    return Err(Error::Infeasible {
                        reason: "optimal random response (eq 22): P_X is not in the cone of the polytope's vertices"
                            .into(),
                    });
                }
                phase = 2;
                stall = 0;
                continue;
            }
            break;
        };
        // d = B⁻¹ a_j over the sparse column.
        for r in 0..m {
            let row = &s.binv[r * m..(r + 1) * m];
            d[r] = pool.nonzeros(j).map(|(i, e)| row[i] * e).sum();
        }
        // Ratio test; an artificial in phase 2 is a [0, 0] variable and leaves at once.
        let mut leave: Option<(usize, f64)> = None;
        for r in 0..m {
            let theta = match s.basis[r] {
                Var::Art(_) if phase == 2 && d[r].abs() > PIVOT_TOL => 0.0,
                _ if d[r] > PIVOT_TOL => s.xb[r].max(0.0) / d[r],
                _ => continue,
            };
            let better = match leave {
                None => true,
                Some((l, t)) => {
                    theta < t - RATIO_TIE
                        || (theta <= t + RATIO_TIE
                            && if bland { key(s.basis[r], m) < key(s.basis[l], m) } else { d[r].abs() > d[l].abs() })
                }
            };
            if better {
                leave = Some((r, theta));
            }
        }
        let Some((r, theta)) = leave else {
            return Err(failed("unbounded ray (a column sums to 0)"));
        };
        stall = if theta * d[r] > NO_PROGRESS { 0 } else { stall + 1 };
        s.pivot(j, r, &d, theta);
        pivots += 1;
        since_refactor += 1;
        if since_refactor >= REFACTOR {
            s.refactor(pool)?;
            since_refactor = 0;
        }
        if pivots > max_pivots {
            return Err(failed("pivot limit reached"));
        }
    }
    let mut support = Vec::new();
    for r in 0..m {
        if let Var::Col(j) = s.basis[r] {
            if s.xb[r] > 0.0 {
                support.push((j, s.xb[r]));
            }
        }
    }
    Ok(Solution { support })
}

/// What a full scan finds: the first improving column (Bland's rule) or the candidate list
/// as (reduced cost, column), least first.
type Scan = (Option<(usize, f64)>, Vec<(Key, usize)>);

/// Columns a thread prices at least in a full scan: smaller pools are scanned by the
/// calling thread alone (threads cost tens of µs to start).
#[cfg(not(target_arch = "wasm32"))]
const SCAN_PER_THREAD: usize = 1 << 16;

/// A full pricing scan of the columns `0..len` not in the basis: with `bland`, the first
/// column whose reduced cost is below −[`PRICE_TOL`] (and no list); otherwise the
/// [`candidates`] least reduced costs below −PRICE_TOL as (reduced cost, column), least
/// first, ties by column. Both are defined by the columns alone, so they do not depend
/// on how the scan is split: natively, a large pool is split among every core (each
/// part keeps its own least ones, and the least of their union are the least of all).
fn full_scan(len: usize, in_basis: &[bool], bland: bool, price: &(impl Fn(usize) -> f64 + Sync)) -> Scan {
    let keep = candidates(len);
    let scan = |range: core::ops::Range<usize>| full_scan_range(range, in_basis, bland, price, keep);
    #[cfg(target_arch = "wasm32")]
    return scan(0..len);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = crate::cores::threads().min(len / SCAN_PER_THREAD);
        split_scan(len, threads.max(1), &scan, keep)
    }
}

/// [`full_scan`] of the columns in `range`.
fn full_scan_range(
    range: core::ops::Range<usize>,
    in_basis: &[bool],
    bland: bool,
    price: &impl Fn(usize) -> f64,
    keep: usize,
) -> Scan {
    let mut heap: BinaryHeap<(Key, usize)> = BinaryHeap::new();
    for j in range {
        if in_basis[j] {
            continue;
        }
        let rc = price(j);
        if rc < -PRICE_TOL {
            if bland {
                return (Some((j, rc)), Vec::new());
            }
            if heap.len() < keep {
                heap.push((Key(rc), j));
            } else if heap.peek().is_some_and(|top| (Key(rc), j) < *top) {
                heap.pop();
                heap.push((Key(rc), j));
            }
        }
    }
    (None, heap.into_sorted_vec())
}

/// `scan` of `0..len` in `parts` contiguous parts, one thread each, merged as in
/// [`full_scan`].
#[cfg(not(target_arch = "wasm32"))]
fn split_scan(len: usize, parts: usize, scan: &(dyn Fn(core::ops::Range<usize>) -> Scan + Sync), keep: usize) -> Scan {
    if parts <= 1 {
        return scan(0..len);
    }
    let part = len.div_ceil(parts);
    let found: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            (1..parts).map(|t| scope.spawn(move || scan((t * part).min(len)..((t + 1) * part).min(len)))).collect();
        let mut found = vec![scan(0..part.min(len))];
        found.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        found
    });
    let first = found.iter().find_map(|p| p.0);
    let mut best: Vec<(Key, usize)> = found.into_iter().flat_map(|p| p.1).collect();
    best.sort_unstable();
    best.truncate(keep);
    (first, best)
}

/// A reduced cost ordered by `total_cmp` (for the candidate heap).
#[derive(Clone, Copy, PartialEq)]
struct Key(f64);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> core::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Bland's order of the variables: artificials first, then the pool.
fn key(v: Var, m: usize) -> usize {
    match v {
        Var::Art(r) => r,
        Var::Col(j) => m + j,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-row LP by hand: columns (1, 0) cost 0, (0, 1) cost 0, (½, ½) cost ln 2;
    /// target (0.3, 0.7) is met by the unit columns at cost 0.
    #[test]
    fn picks_the_cheapest_mixture() {
        let mut pool = Columns::new();
        pool.push(&[0.5, 0.5], core::f64::consts::LN_2);
        pool.push(&[1.0, 0.0], 0.0);
        pool.push(&[0.0, 1.0], 0.0);
        let s = solve(&pool, &[0.3, 0.7]).unwrap();
        let mut sup = s.support.clone();
        sup.sort_by_key(|e| e.0);
        assert_eq!(sup.iter().map(|e| e.0).collect::<Vec<_>>(), vec![1, 2]);
        assert!((sup[0].1 - 0.3).abs() < 1e-15 && (sup[1].1 - 0.7).abs() < 1e-15);
    }

    /// A full scan's answer does not depend on how it is split among threads: the same
    /// first improving column (Bland) and the same candidate list, in the same order,
    /// on a pool with many exact ties of the reduced cost.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_split_scan_gives_the_same_answer() {
        let len = 3 * LARGE_POOL + 17;
        let in_basis: Vec<bool> = (0..len).map(|j| j % 97 == 0).collect();
        // Reduced costs from a few hundred values: ties across the parts' borders.
        let price = |j: usize| -(((j * 7919) % 389) as f64) * 1e-3 + 0.05;
        for bland in [false, true] {
            let keep = candidates(len);
            let scan = |range: core::ops::Range<usize>| full_scan_range(range, &in_basis, bland, &price, keep);
            let whole = split_scan(len, 1, &scan, keep);
            assert_eq!(whole.1.len(), if bland { 0 } else { keep });
            assert!(bland == whole.0.is_some());
            for parts in [2, 3, 7] {
                let split = split_scan(len, parts, &scan, keep);
                assert_eq!(split.0.map(|e| e.0), whole.0.map(|e| e.0), "{parts} parts, bland {bland}");
                let cols = |v: &[(Key, usize)]| v.iter().map(|e| e.1).collect::<Vec<_>>();
                assert_eq!(cols(&split.1), cols(&whole.1), "{parts} parts, bland {bland}");
            }
        }
    }

    #[test]
    fn infeasible_target_is_reported() {
        let mut pool = Columns::new();
        pool.push(&[0.5, 0.5], core::f64::consts::LN_2);
        let e = solve(&pool, &[0.3, 0.7]).unwrap_err();
        assert_eq!(e.code(), "infeasible");
    }
}
