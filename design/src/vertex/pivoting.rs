//! The pivoting vertex search of [`LiftPolytope`] (see [`LiftPolytope::vertices_sparse`]),
//! written to pay per basis only for the work the search needs: no allocation per
//! basis (flat stacks), the visited set keyed by the (sorted) basic variables and the
//! sides of the non-basic secret rows in a flat hash map ([`crate::keyset`];
//! one word per basis, a bit per variable, when |X'| + 2|S| ≤ 64),
//! B⁻¹ updated by the pivot and factorised afresh every [`REFRESH`] pivots, B⁻¹[1; A]
//! for all columns at once, only the edges along which the start's objective does not
//! decrease (see [`LiftPolytope::vertices_by_pivoting`]), and the vertices returned
//! sparse (at most |S| non-zeros each, so storing one costs O(|S|) whatever |X|). The
//! work per basis is still O(|X| · |S|) plus one hash probe per followed edge, so the
//! cost per vertex grows with |X| (≈ 3 µs at |X| = 17, 45–90 µs at |X| = 200, |S| = 5).

// `!(a >= b)` is deliberate: it also rejects NaN. Index loops mirror the maths.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

use alloc::vec;
use alloc::vec::Vec;

use super::tol::{BASIC_FEASIBILITY, BASIS_PIVOT, DECREASING_COST, DEGENERATE_STEP, RATIO_TIE, STILL_DIRECTION};
use super::{generic_cost, too_many_vertices, LiftPolytope, BASIC, LOWER, TOLERANCE, UPPER};
use crate::keyset::{KeyMap, WordSet};
use crate::linalg::invert;
use privlift::error::{Error, Result};

/// Caps of one vertex search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most feasible bases visited.
    pub max_bases: usize,
    /// Most vertices returned.
    pub max_vertices: usize,
}

impl Limits {
    /// No cap: the search visits every feasible basis, however long that takes (the exact
    /// design at sizes the default caps refuse; the CLI's `--exact`).
    pub const NONE: Limits = Limits { max_bases: usize::MAX, max_vertices: usize::MAX };
}

/// Vertices stored sparse: vertex i has the non-zeros `idx[start[i]..start[i + 1]]`
/// (increasing) with values `val[..]` (summing to 1).
#[derive(Debug, Clone)]
pub struct SparseVertices {
    n: usize,
    start: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
}

impl SparseVertices {
    pub(super) fn new(n: usize) -> Self {
        SparseVertices { n, start: vec![0], idx: Vec::new(), val: Vec::new() }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Whether there is none (the polytope is empty).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The support and values of vertex `i`.
    pub fn get(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.start[i]..self.start[i + 1];
        (&self.idx[r.clone()], &self.val[r])
    }

    /// Vertex `i` as a dense vector over X'.
    pub fn dense(&self, i: usize) -> Vec<f64> {
        let mut v = vec![0.0; self.n];
        let (idx, val) = self.get(i);
        for (&j, &e) in idx.iter().zip(val) {
            v[j as usize] = e;
        }
        v
    }

    /// The same vertices in a canonical order: by support (lexicographic), then by values.
    pub(super) fn canonical(self) -> SparseVertices {
        // The support packed into one key (16 bits per index, the first highest) when
        // it fits, which decides almost every comparison without reading the slices.
        let packs = self.n < u16::MAX as usize && (0..self.len()).all(|i| self.get(i).0.len() <= 8);
        let key = |i: usize| -> u128 {
            let (idx, _) = self.get(i);
            idx.iter().enumerate().fold(0u128, |k, (p, &j)| k | u128::from(j + 1) << (112 - 16 * p))
        };
        let keys: Vec<u128> = if packs { (0..self.len()).map(key).collect() } else { vec![0; self.len()] };
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            keys[a].cmp(&keys[b]).then_with(|| {
                let ((ia, va), (ib, vb)) = (self.get(a), self.get(b));
                ia.cmp(ib).then_with(|| va.iter().map(|v| v.to_bits()).cmp(vb.iter().map(|v| v.to_bits())))
            })
        });
        let mut out = SparseVertices::new(self.n);
        for &i in &order {
            let (idx, val) = self.get(i as usize);
            out.push(idx, val);
        }
        out
    }

    /// Appends `other`'s vertices (the threads' lists of the reverse search).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(super) fn append(&mut self, other: &SparseVertices) {
        let base = self.idx.len();
        self.idx.extend_from_slice(&other.idx);
        self.val.extend_from_slice(&other.val);
        self.start.extend(other.start[1..].iter().map(|&e| e + base));
    }

    pub(super) fn push(&mut self, idx: &[u32], val: &[f64]) {
        self.idx.extend_from_slice(idx);
        self.val.extend_from_slice(val);
        self.start.push(self.idx.len());
    }
}

/// Packs sorted indices (16 bits each) and side bits into `key`.
fn pack_key(basis: &[u32], upper: &[u64], key: &mut Vec<u64>) {
    key.clear();
    for chunk in basis.chunks(4) {
        let mut w = 0u64;
        for (i, &b) in chunk.iter().enumerate() {
            w |= u64::from(b + 1) << (16 * i);
        }
        key.push(w);
    }
    key.extend_from_slice(upper);
}

/// The visited bases: one word per basis (a bit per basic variable, then the side bits
/// of the secret rows) when |X'| + 2|S| ≤ 64, else the sorted basis packed by
/// [`pack_key`].
enum Seen {
    Narrow(WordSet, usize),
    Wide(KeyMap, Vec<u64>),
}

impl Seen {
    fn new(nv: usize, ns: usize, words: usize) -> Self {
        if nv + ns <= 64 {
            Seen::Narrow(WordSet::new(), nv)
        } else {
            Seen::Wide(KeyMap::new(words), Vec::new())
        }
    }

    /// Records the (sorted) basis with its sides; whether it was there already.
    fn insert_seen(&mut self, basis: &[u32], upper: &[u64]) -> bool {
        match self {
            Seen::Narrow(set, nv) => {
                let bits = basis.iter().fold(0u64, |w, &b| w | 1 << b);
                set.insert_seen(bits | upper.first().map_or(0, |&u| u << *nv))
            }
            Seen::Wide(map, key) => {
                pack_key(basis, upper, key);
                map.get_or_insert(key, 0).is_some()
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Seen::Narrow(set, _) => set.len(),
            Seen::Wide(map, _) => map.len(),
        }
    }
}

/// Which search [`LiftPolytope::search`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Search {
    /// The reverse search, or the hashed search if the polytope is degenerate.
    Auto,
    Hashed,
    Reverse,
    /// The reverse search without the AVX2 build of its inner loops (tests: the same bits).
    #[cfg(test)]
    ReversePortable,
}

/// Pivots after which a basis is factorised afresh instead of updated.
const REFRESH: u8 = 16;

/// B⁻¹ after the column with d = B⁻¹a replaces basic position `i` (product form), into
/// `out` (rows in the old positions).
fn pivot_inverse(inv: &[f64], d: &[f64], i: usize, m: usize, out: &mut [f64]) {
    let p = d[i];
    for c in 0..m {
        out[i * m + c] = inv[i * m + c] / p;
    }
    for r in (0..m).filter(|&r| r != i) {
        let f = d[r];
        for c in 0..m {
            out[r * m + c] = inv[r * m + c] - f * out[i * m + c];
        }
    }
}

/// Work space of one search: the basis being evaluated.
pub(super) struct Scratch {
    pub(super) bm: Vec<f64>,
    pub(super) col: Vec<f64>,
    pub(super) rhs: Vec<f64>,
    /// The child's basic variables with their rows in the parent (see
    /// [`LiftPolytope::child_values`]).
    order: Vec<(u32, usize)>,
}

impl Scratch {
    pub(super) fn new(m: usize) -> Self {
        Scratch { bm: vec![0.0; m * m], col: vec![0.0; m], rhs: vec![0.0; m], order: Vec::with_capacity(m) }
    }
}

/// A pivot of the searches: `j` enters at basic position `i` and the variable there
/// leaves to its bound `to` (LOWER or UPPER); or, with `i == usize::MAX`, the non-basic
/// secret row `j` moves to its other bound and the basis stays.
#[derive(Debug, Clone, Copy)]
pub(super) struct Move {
    pub(super) j: usize,
    pub(super) i: usize,
    pub(super) to: u8,
}

impl LiftPolytope {
    /// Every vertex by the pivoting search (see [`LiftPolytope::vertices_by_pivoting`]),
    /// sparse, each post-checked against all constraints ([`LiftPolytope::contains`] on
    /// its support, relative tolerance [`TOLERANCE`]): the reverse search of
    /// `vertex/reverse.rs` when the polytope is not degenerate (in a canonical order), else
    /// the hashed search. `Ok(None)` if no starting basis could be identified (callers
    /// fall back to the support enumeration).
    ///
    /// # Errors
    /// `invalid_argument` beyond `limits` (the message points to SRR); `design_failed` on
    /// solver trouble.
    pub fn vertices_sparse(&self, limits: Limits) -> Result<Option<SparseVertices>> {
        self.search(limits, Search::Auto)
    }

    /// [`LiftPolytope::vertices_sparse`] by the hashed search alone, never the reverse
    /// search: the reference the reverse search is compared with in tests and benches.
    ///
    /// # Errors
    /// As [`LiftPolytope::vertices_sparse`].
    pub fn vertices_by_hashed_search(&self, limits: Limits) -> Result<Option<SparseVertices>> {
        self.search(limits, Search::Hashed)
    }

    /// [`LiftPolytope::vertices_sparse`] by the reverse search alone (`vertex/reverse.rs`):
    /// `Ok(None)` also when the polytope is degenerate, or too nearly so for it.
    ///
    /// # Errors
    /// As [`LiftPolytope::vertices_sparse`].
    pub fn vertices_by_reverse_search(&self, limits: Limits) -> Result<Option<SparseVertices>> {
        self.search(limits, Search::Reverse)
    }

    pub(super) fn search(&self, limits: Limits, how: Search) -> Result<Option<SparseVertices>> {
        let (n, ns, m) = (self.n, self.ns, self.ns + 1);
        let nv = n + ns;
        if nv >= u16::MAX as usize {
            return Err(Error::invalid("alphabet", alloc::format!("vertex search needs |X| + |S| < 65535, got {nv}")));
        }
        let mut out = SparseVertices::new(n);
        let Some(status) = self.start_status()? else { return Ok(Some(out)) };
        let sw = ns.div_ceil(64);
        let mut basis: Vec<u32> = (0..nv).filter(|&j| status[j] == BASIC).map(|j| j as u32).collect();
        let mut upper = vec![0u64; sw];
        for s in 0..ns {
            if status[n + s] == UPPER {
                upper[s / 64] |= 1 << (s % 64);
            }
        }
        let mut scratch = Scratch::new(m);
        let (mut inv, mut x) = (vec![0.0; m * m], vec![0.0; m]);
        if basis.len() != m || !self.evaluate_basis(&basis, &upper, &mut inv, &mut x, &mut scratch) {
            return Ok(None);
        }
        let mut key = Vec::new();
        pack_key(&basis, &upper, &mut key);
        let mut seen = Seen::new(nv, ns, key.len());
        seen.insert_seen(&basis, &upper);
        // The stack of feasible bases still to expand, flat.
        let (mut st_basis, mut st_upper, mut st_inv, mut st_x) = (basis.clone(), upper.clone(), inv.clone(), x.clone());
        // Pivots since the basis was last factorised afresh.
        let mut st_gen: Vec<u8> = vec![0];
        let (mut pi, mut rc_x) = (vec![0.0; m], vec![0.0; n]);
        // A generic objective of which the start is the unique minimiser: 0 on the basic
        // variables, generic costs pushing every non-basic one towards its bound.
        let cost: Vec<f64> = (0..nv)
            .map(|j| match status[j] {
                BASIC => 0.0,
                UPPER => -generic_cost(j),
                _ => generic_cost(j),
            })
            .collect();
        // A non-degenerate polytope is searched without a visited set (`reverse.rs`).
        if how != Search::Hashed {
            #[cfg(test)]
            let simd = how != Search::ReversePortable;
            #[cfg(not(test))]
            let simd = true;
            let found = self.reverse_search(limits, (&basis, &upper, &inv, &x), &cost, simd)?;
            if found.is_some() || how != Search::Auto {
                return Ok(found);
            }
        }
        let mut cb = vec![0.0; m];
        // Vertices by support: the first vertex of each support, then a chain.
        let mut by_support = KeyMap::new(m.div_ceil(4));
        let mut next: Vec<u32> = Vec::new();
        let (mut sup, mut vals) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let mut d = vec![0.0; m];
        let mut nb = vec![0u32; m];
        let mut nup = vec![0u64; sw];
        let mut is_basic = vec![false; nv];
        let mut moves: Vec<(f64, usize, u8)> = Vec::new();
        let mut expanded = 0usize;
        while !st_x.is_empty() {
            expanded += 1;
            if expanded % crate::deadline::SEARCH_READS_EVERY == 0 {
                crate::deadline::check("the vertex search")?;
            }
            if expanded % crate::progress::EVERY == 0 {
                crate::progress::report(seen.len(), out.len(), limits.max_bases, false);
            }
            let top = st_x.len() / m - 1;
            basis.copy_from_slice(&st_basis[top * m..]);
            upper.copy_from_slice(&st_upper[top * sw..]);
            inv.copy_from_slice(&st_inv[top * m * m..]);
            x.copy_from_slice(&st_x[top * m..]);
            st_basis.truncate(top * m);
            st_upper.truncate(top * sw);
            st_inv.truncate(top * m * m);
            st_x.truncate(top * m);
            let gen = st_gen.pop().unwrap_or(0);

            // The vertex: basic u's above the tolerance, as v renormalised.
            sup.clear();
            vals.clear();
            for (i, &var) in basis.iter().enumerate() {
                if (var as usize) < n && x[i] > TOLERANCE {
                    sup.push(var);
                    vals.push(x[i]);
                }
            }
            if self.vertex_of(&sup, &mut vals) {
                pack_key(&sup, &[], &mut key);
                key.resize(m.div_ceil(4), 0);
                let id = out.len() as u32;
                let mut duplicate = false;
                match by_support.get_or_insert(&key, id) {
                    None => next.push(u32::MAX),
                    Some(head) => {
                        let mut c = head;
                        while c != u32::MAX {
                            let (_, w) = out.get(c as usize);
                            if super::same_point(w, &vals) {
                                duplicate = true;
                                break;
                            }
                            c = next[c as usize];
                        }
                        if !duplicate {
                            next.push(head);
                            by_support.set(&key, id);
                        }
                    }
                }
                if !duplicate {
                    out.push(&sup, &vals);
                    if out.len() > limits.max_vertices {
                        return Err(too_many_vertices(n, ns));
                    }
                }
            }

            // Neighbours: every non-basic variable leaves its bound; the ratio test
            // picks the basic variable hitting a bound first, or each of the tied ones.
            basis.iter().for_each(|&b| is_basic[b as usize] = true);
            // Reduced costs from π = c_Bᵀ B⁻¹ (O(m²), then O(|S|) per column), before any
            // direction B⁻¹ [1; a(j)] is formed: a direction is needed only for an edge the
            // search follows, and for a decreasing edge only if the pivot can be degenerate.
            for (r, &b) in basis.iter().enumerate() {
                cb[r] = cost[b as usize];
            }
            for c in 0..m {
                pi[c] = (0..m).map(|r| cb[r] * inv[r * m + c]).sum();
            }
            rc_x.iter_mut().zip(&cost[..n]).for_each(|(o, &c)| *o = c - pi[0]);
            for s in 0..ns {
                let p = pi[s + 1];
                if p != 0.0 {
                    for (o, &a) in rc_x.iter_mut().zip(&self.a[s * n..(s + 1) * n]) {
                        *o -= p * a;
                    }
                }
            }
            // A pivot is degenerate only if some basic variable is within DEGENERATE_STEP·|d_i| of a
            // bound; |d_i| ≤ Σ_c |B⁻¹_ic| for every column, since 0 ≤ P(s|x) ≤ 1.
            let may_degenerate = basis.iter().enumerate().any(|(i, &var)| {
                let reach = DEGENERATE_STEP * inv[i * m..(i + 1) * m].iter().map(|e| e.abs()).sum::<f64>();
                let (lo, hi) = self.bounds(var as usize);
                x[i] - lo <= reach || (hi.is_finite() && hi - x[i] <= reach)
            });
            for j in 0..nv {
                if is_basic[j] {
                    continue;
                }
                let at_upper = j >= n && upper[(j - n) / 64] >> ((j - n) % 64) & 1 == 1;
                let sigma = if at_upper { -1.0 } else { 1.0 };
                let rc = if j < n { rc_x[j] } else { cost[j] + pi[j - n + 1] };
                let decreasing = sigma * rc < -DECREASING_COST;
                if decreasing && !may_degenerate {
                    continue;
                }
                if j < n {
                    for r in 0..m {
                        let row = &inv[r * m..(r + 1) * m];
                        d[r] = row[0] + (0..ns).map(|s| row[s + 1] * self.a[s * n + j]).sum::<f64>();
                    }
                } else {
                    for r in 0..m {
                        d[r] = -inv[r * m + (j - n) + 1];
                    }
                }
                // Only edges along which the generic objective does not decrease (and
                // every degenerate pivot): every vertex is reached from the start, its
                // minimiser, by such a path (the reverse of a simplex path to it).
                if decreasing {
                    let degenerate = basis.iter().enumerate().any(|(i, &var)| {
                        let delta = -sigma * d[i];
                        let (lo, hi) = self.bounds(var as usize);
                        (delta < -STILL_DIRECTION && x[i] - lo <= DEGENERATE_STEP * -delta)
                            || (delta > STILL_DIRECTION && hi.is_finite() && hi - x[i] <= DEGENERATE_STEP * delta)
                    });
                    if !degenerate {
                        continue;
                    }
                }
                moves.clear();
                if j >= n {
                    let s = j - n;
                    moves.push((self.hi[s] - self.lo[s], usize::MAX, 0));
                }
                for (i, &var) in basis.iter().enumerate() {
                    let delta = -sigma * d[i];
                    let var = var as usize;
                    let (lo, hi) = self.bounds(var);
                    if delta < -STILL_DIRECTION {
                        moves.push(((x[i] - lo).max(0.0) / -delta, i, LOWER));
                    } else if delta > STILL_DIRECTION && hi.is_finite() {
                        moves.push(((hi - x[i]).max(0.0) / delta, i, UPPER));
                    }
                }
                let Some(best) = moves.iter().map(|m| m.0).reduce(f64::min) else { continue };
                if best > DEGENERATE_STEP && decreasing {
                    continue;
                }
                for &(t, i, to) in &moves {
                    if t > best + RATIO_TIE {
                        continue;
                    }
                    let mv = Move { j, i, to };
                    self.child_status(&basis, &upper, mv, &mut nb, &mut nup);
                    if seen.insert_seen(&nb, &nup) {
                        continue;
                    }
                    if seen.len() > limits.max_bases {
                        basis.iter().for_each(|&b| is_basic[b as usize] = false);
                        return Err(self.too_many_bases(limits.max_bases));
                    }
                    let (ni, nx) = (st_inv.len(), st_x.len());
                    st_inv.resize(ni + m * m, 0.0);
                    st_x.resize(nx + m, 0.0);
                    let child_gen = self.child_values(
                        (&basis, &inv, gen),
                        &d,
                        mv,
                        (&nb, &nup),
                        (&mut st_inv[ni..], &mut st_x[nx..]),
                        &mut scratch,
                    );
                    if let Some(child_gen) = child_gen {
                        st_basis.extend_from_slice(&nb);
                        st_upper.extend_from_slice(&nup);
                        st_gen.push(child_gen);
                    } else {
                        st_inv.truncate(ni);
                        st_x.truncate(nx);
                    }
                }
            }
            basis.iter().for_each(|&b| is_basic[b as usize] = false);
        }
        crate::progress::report(seen.len(), out.len(), limits.max_bases, true);
        Ok(Some(out))
    }

    /// A feasible basis at a vertex with support 1 (e_x, if x's own lifts are within the
    /// bounds: v_x basic with every r) or 2 (v_x, v_x' basic, one secret t at a bound,
    /// the other r's basic), scanning x < x' and t in order; `None` if there is none
    /// (or |X'|² |S| is too large to scan cheaply). Cheaper than the LP start for small
    /// polytopes, and found in O(|X'|² |S|²) at worst.
    pub(super) fn small_start(&self) -> Option<Vec<u8>> {
        let (n, ns) = (self.n, self.ns);
        let status_of = |support: &[usize], tight: Option<(usize, u8)>| {
            let mut st = vec![LOWER; n + ns];
            support.iter().for_each(|&j| st[j] = BASIC);
            (0..ns).for_each(|s| st[n + s] = BASIC);
            if let Some((t, side)) = tight {
                st[n + t] = side;
            }
            st
        };
        // Row t's coefficient of v_j (the stored a_t(j) is that of u_j = v_j / d_j).
        let col = |j: usize| (0..ns).map(move |s| self.a[s * n + j] / self.d[j]);
        for j in 0..n {
            if self.contains_sparse(&[j as u32], &[1.0], TOLERANCE) {
                let st = status_of(&[j], None);
                if self.feasible_status(&st) {
                    return Some(st);
                }
            }
        }
        if n * n * ns > 4_000_000 {
            return None;
        }
        for j in 0..n {
            for k in j + 1..n {
                for t in 0..ns {
                    // v_j + v_k = 1 and a_t(j) v_j + a_t(k) v_k = b: v_j = (b − a_t(k)) / (a_t(j) − a_t(k)).
                    let (aj, ak) = (col(j).nth(t).unwrap_or(0.0), col(k).nth(t).unwrap_or(0.0));
                    if !((aj - ak).abs() > BASIS_PIVOT) {
                        continue;
                    }
                    for (b, side) in [(self.lo[t], LOWER), (self.hi[t], UPPER)] {
                        let vj = (b - ak) / (aj - ak);
                        if !(vj > TOLERANCE && vj < 1.0 - TOLERANCE) {
                            continue;
                        }
                        if self.contains_sparse(&[j as u32, k as u32], &[vj, 1.0 - vj], TOLERANCE) {
                            let st = status_of(&[j, k], Some((t, side)));
                            if self.feasible_status(&st) {
                                return Some(st);
                            }
                        }
                    }
                }
            }
        }
        None
    }

    /// Whether the status vector (BASIC / LOWER / UPPER per variable) is a feasible,
    /// non-singular basis.
    pub(super) fn feasible_status(&self, status: &[u8]) -> bool {
        let (n, ns, m) = (self.n, self.ns, self.ns + 1);
        let basis: Vec<u32> = (0..n + ns).filter(|&j| status[j] == BASIC).map(|j| j as u32).collect();
        if basis.len() != m {
            return false;
        }
        let mut upper = vec![0u64; ns.div_ceil(64)];
        for s in (0..ns).filter(|&s| status[n + s] == UPPER) {
            upper[s / 64] |= 1 << (s % 64);
        }
        let mut w = Scratch::new(m);
        let (mut inv, mut x) = (vec![0.0; m * m], vec![0.0; m]);
        self.evaluate_basis(&basis, &upper, &mut inv, &mut x, &mut w)
    }

    /// Factorises a basis afresh (no drift along long pivot paths) into `inv` and its
    /// basic values `x`; false if singular or infeasible beyond 1e-10 (relative to hi_s
    /// for an r).
    pub(super) fn evaluate_basis(
        &self,
        basis: &[u32],
        upper: &[u64],
        inv: &mut [f64],
        x: &mut [f64],
        w: &mut Scratch,
    ) -> bool {
        let m = self.ns + 1;
        for (i, &j) in basis.iter().enumerate() {
            self.column(j as usize, &mut w.col);
            for r in 0..m {
                w.bm[r * m + i] = w.col[r];
            }
        }
        if !invert(&mut w.bm, inv, m, BASIS_PIVOT) {
            return false;
        }
        self.basic_values(basis, upper, inv, x, &mut w.rhs)
    }

    /// The sorted basis `nb` and side bits `nup` of the child of (`basis`, `upper`) by
    /// `mv`.
    pub(super) fn child_status(&self, basis: &[u32], upper: &[u64], mv: Move, nb: &mut [u32], nup: &mut [u64]) {
        let (n, Move { j, i, to }) = (self.n, mv);
        nb.copy_from_slice(basis);
        nup.copy_from_slice(upper);
        if i == usize::MAX {
            let s = j - n;
            nup[s / 64] ^= 1 << (s % 64);
            return;
        }
        let leaving = basis[i] as usize;
        nb[i] = j as u32;
        nb.sort_unstable();
        if j >= n {
            let s = j - n;
            nup[s / 64] &= !(1 << (s % 64));
        }
        if leaving >= n && to == UPPER {
            let s = leaving - n;
            nup[s / 64] |= 1 << (s % 64);
        }
    }

    /// B⁻¹ and the basic values of the child (`nb`, `nup`) of `parent` = (its basis, its
    /// B⁻¹, the pivots since that was factorised) by `mv`, `d` = B⁻¹ a_j, into `out`:
    /// the parent's B⁻¹ updated by the pivot (O(m²)), or factorised afresh every
    /// [`REFRESH`] pivots (bounded drift). The child's count of pivots since its
    /// factorisation; `None` if the child is infeasible beyond 1e-10 or singular.
    pub(super) fn child_values(
        &self,
        parent: (&[u32], &[f64], u8),
        d: &[f64],
        mv: Move,
        child: (&[u32], &[u64]),
        out: (&mut [f64], &mut [f64]),
        w: &mut Scratch,
    ) -> Option<u8> {
        let ((basis, inv, gen), (nb, nup), (inv_out, x_out), m) = (parent, child, out, self.ns + 1);
        let child_gen = if mv.i == usize::MAX { gen } else { gen + 1 };
        if child_gen >= REFRESH {
            return self.evaluate_basis(nb, nup, inv_out, x_out, w).then_some(0);
        }
        if mv.i == usize::MAX {
            inv_out.copy_from_slice(inv);
        } else {
            pivot_inverse(inv, d, mv.i, m, &mut w.bm);
            // Rows follow the sorted basis: basis[i] was replaced by j.
            w.order.clear();
            w.order.extend(basis.iter().enumerate().map(|(r, &b)| (if r == mv.i { mv.j as u32 } else { b }, r)));
            w.order.sort_unstable();
            for (dst, &(_, src)) in w.order.iter().enumerate() {
                inv_out[dst * m..(dst + 1) * m].copy_from_slice(&w.bm[src * m..(src + 1) * m]);
            }
        }
        self.basic_values(nb, nup, inv_out, x_out, &mut w.rhs).then_some(child_gen)
    }

    /// The right-hand side of the basis into `rhs`: 1 (Σ v = 1), then for each secret row
    /// its bound if it is non-basic (lo, or hi if its side bit is set), else 0.
    pub(super) fn rhs(&self, basis: &[u32], upper: &[u64], rhs: &mut [f64]) {
        let m = self.ns + 1;
        rhs.iter_mut().for_each(|e| *e = 0.0);
        rhs[0] = 1.0;
        let mut b = 0;
        for s in 0..self.ns {
            while b < m && (basis[b] as usize) < self.n + s {
                b += 1;
            }
            if b < m && basis[b] as usize == self.n + s {
                continue;
            }
            rhs[s + 1] = if upper[s / 64] >> (s % 64) & 1 == 1 { self.hi[s] } else { self.lo[s] };
        }
    }

    /// x_B = B⁻¹ rhs for the basis ([`LiftPolytope::rhs`]); false if infeasible beyond
    /// [`BASIC_FEASIBILITY`] (relative to hi_s for an r).
    pub(super) fn basic_values(
        &self,
        basis: &[u32],
        upper: &[u64],
        inv: &[f64],
        x: &mut [f64],
        rhs: &mut [f64],
    ) -> bool {
        let m = self.ns + 1;
        self.rhs(basis, upper, rhs);
        for r in 0..m {
            x[r] = inv[r * m..(r + 1) * m].iter().zip(rhs.iter()).map(|(p, q)| p * q).sum();
        }
        for (i, &var) in basis.iter().enumerate() {
            let (lo, hi) = self.bounds(var as usize);
            let tol = if (var as usize) < self.n { BASIC_FEASIBILITY } else { BASIC_FEASIBILITY * hi };
            if !(x[i] >= lo - tol) || x[i] > hi + tol {
                return false;
            }
        }
        true
    }

    /// [`LiftPolytope::contains`] for a point v given by its support and values.
    pub(crate) fn contains_sparse(&self, idx: &[u32], val: &[f64], tol: f64) -> bool {
        if val.iter().any(|&e| !(e >= 0.0)) || (val.iter().sum::<f64>() - 1.0).abs() > tol * self.n as f64 {
            return false;
        }
        (0..self.ns).all(|s| {
            let a = &self.a[s * self.n..(s + 1) * self.n];
            let r: f64 = idx.iter().zip(val).map(|(&j, &e)| a[j as usize] * (e / self.d[j as usize])).sum();
            r >= self.lo[s] * (1.0 - tol) && r <= self.hi[s] * (1.0 + tol)
        })
    }

    /// The vertex of a basis from its basic coordinates u (support `sup`, values `vals`):
    /// v_j = d_j u_j renormalised to Σ v = 1, in place; whether it passes the post-check
    /// ([`LiftPolytope::contains_sparse`], relative tolerance [`TOLERANCE`]).
    pub(super) fn vertex_of(&self, sup: &[u32], vals: &mut [f64]) -> bool {
        let total: f64 = sup.iter().zip(vals.iter()).map(|(&j, &u)| self.d[j as usize] * u).sum();
        sup.iter().zip(vals.iter_mut()).for_each(|(&j, e)| *e = self.d[j as usize] * *e / total);
        !sup.is_empty() && self.contains_sparse(sup, vals, TOLERANCE)
    }
}
