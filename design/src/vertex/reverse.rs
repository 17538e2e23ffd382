//! Reverse search (Avis and Fukuda, *A pivoting algorithm for convex hulls and vertex
//! enumeration of arrangements and polyhedra*, Discrete & Computational Geometry 8, 1992)
//! over the vertices of a **non-degenerate** lift polytope: the same vertices as the
//! hashed search of `pivoting.rs`, with no visited set, and subtrees searched in
//! parallel natively.
//!
//! # The tree
//! The start basis minimises the generic objective c of the hashed search (0 on its basic
//! variables, generic costs pushing every non-basic one towards its bound), with every
//! reduced cost non-zero. On a non-degenerate polytope every other vertex w has a single
//! basis and a **parent**: the vertex reached by Bland's rule on c, the pivot on the
//! non-basic variable of smallest index whose reduced cost improves c (the ratio test
//! then has a single winner). c strictly decreases along parents, so the parent links
//! form a tree rooted at the start that spans every vertex. A search descends it: from a
//! basis B it follows each edge along which c increases, and keeps the neighbour U only
//! if B is U's parent, i.e. if the variable that left B (now non-basic at U) is the
//! smallest improving one at U. U's reduced costs come from B's by the pivot,
//! d'_k = d_k − d_j α_ik / α_ij and d'_ℓ = −d_j / α_ij (j entering at row i, ℓ leaving,
//! α = B⁻¹A), so the test costs O(1) per smaller index and stops at the first
//! improving one. Each vertex is reached once, and the only state is the stack.
//!
//! # Cost per basis
//! The tableau α = B⁻¹[dᵀ; A] of the v columns, (|S| + 1)² |X'| multiply-adds row by row,
//! and the ratio tests of all v edges at once from it (without branches, so both
//! vectorise); then, per increasing edge, the parent test above. On x86-64 with AVX2
//! these loops run from a second build of `Worker::expand`, 4 lanes wide, with the same
//! bits (the crate docs, "SIMD"). A vertex's values get one step of iterative refinement
//! before the post-check (the updated B⁻¹ drifts by ~1e-13 along a path, which is 1e-7
//! of a coordinate of 1e-6).
//!
//! # Threads
//! Natively, past the first [`ALONE`] bases, every core searches: a thread that runs out
//! of bases waits on a shared queue,
//! and the others give it the bottom half of their stacks (the bases nearest the root,
//! with the largest subtrees). The vertices are then sorted into a canonical order (by
//! support, then values), so the list — and the LP (22) solved over it — does not depend
//! on how the work was shared. wasm has no threads and searches on one.
//!
//! # Within a deadline
//! A design run where a caller waits (`crate::work::within`) searches on the calling
//! thread alone, reads the clock every [`BATCH`] bases, and gives up as soon as the
//! search is predicted to pass the deadline (`Worker::would_pass_deadline`), from the
//! share of the tree it has searched.
//!
//! # Degeneracy, and why the answer is the same
//! The argument needs a non-degenerate polytope and unambiguous signs. The search checks
//! both wherever it looks: every basic variable farther than [`PRIMAL_MARGIN`] (scaled
//! by its row of B⁻¹) from its bounds, every reduced cost farther than [`DUAL_MARGIN`]
//! from 0, no tie within [`TIE`] in a ratio test, and the basic values of every child
//! feasible. If one fails it stops, and the caller runs the hashed search instead. Were
//! the polytope degenerate and no check failed, take the degenerate vertex u of least c:
//! it is not the start (checked), so it has a neighbour w with c(w) < c(u), which is
//! non-degenerate, and so are all vertices below u, which are therefore all visited
//! (their parent chains stay below u). w examines its increasing edge to u, and there
//! at least two new constraints become tight at once (a third tight along the whole
//! edge would make w degenerate): a tie in w's ratio test, a check that fails.

// `!(a > b)` is deliberate: it also rejects NaN. Index loops mirror the maths.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

mod nodes;

use super::pivoting::{Limits, Move, Scratch, SparseVertices};
use super::{LiftPolytope, LOWER, UPPER};
use nodes::{Node, Nodes};
use privlift::error::{Error, Result};

/// Least distance of a basic variable from its bounds, times max(1, Σ_c |B⁻¹_ic|) (a
/// bound on |(B⁻¹a)_i| for every column a, whose entries lie in [−1, 1]).
pub const PRIMAL_MARGIN: f64 = 1e-12;

/// Least |reduced cost| of a non-basic variable (the generic costs are O(1)).
pub const DUAL_MARGIN: f64 = 1e-11;

/// Two ratio-test steps closer than this (relative) are a tie.
pub const TIE: f64 = 1e-11;

/// Bases the calling thread searches alone before other threads are started: a small
/// polytope (ORR at |X| = 5 has a few dozen vertices, searched in microseconds) never
/// pays for starting and joining threads. Measured (criterion `optimal/orr_lip_5x2`):
/// 131–164 µs with threads from the start, 48–54 µs with this.
const ALONE: usize = 64;

/// Bases a worker counts before adding them to the shared count.
const BATCH: usize = 256;

/// `out` = x + B⁻¹ (rhs − B x): one step of iterative refinement of the basic values `x`
/// with the (approximate) inverse `inv`.
fn refine(poly: &LiftPolytope, basis: &[u32], upper: &[u64], inv: &[f64], x: &[f64], out: &mut [f64], w: &mut Scratch) {
    let m = basis.len();
    poly.rhs(basis, upper, &mut w.rhs);
    for (i, &var) in basis.iter().enumerate() {
        poly.column(var as usize, &mut w.col);
        for r in 0..m {
            w.rhs[r] -= w.col[r] * x[i];
        }
    }
    for r in 0..m {
        out[r] = x[r] + (0..m).map(|c| inv[r * m + c] * w.rhs[c]).sum::<f64>();
    }
}

/// One row i of the ratio tests of every v edge (see `Worker::expand`), in reciprocal
/// steps (no division): for each column j, u = |α_ij| / room (room below if α_ij > 0,
/// above otherwise; u = 0 when the row never reaches a bound) merged into the largest
/// `best`, its row `best_row` (as f64) and the second largest `second`. `inv_room` =
/// (1 / room below, 1 / room above). A function of its own, on slices of one length and
/// with selects only, so that the slices are known not to overlap and the loop
/// vectorises.
#[inline(never)]
fn ratio_row(row: &[f64], inv_room: (f64, f64), i: f64, best: &mut [f64], second: &mut [f64], best_row: &mut [f64]) {
    ratio_row_body(row, inv_room, i, best, second, best_row)
}

/// [`ratio_row`] compiled for AVX2 (4 lanes instead of SSE2's 2; the same operations in
/// the same order on each lane, so the same bits).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn ratio_row_avx2(
    row: &[f64],
    inv_room: (f64, f64),
    i: f64,
    best: &mut [f64],
    second: &mut [f64],
    best_row: &mut [f64],
) {
    ratio_row_body(row, inv_room, i, best, second, best_row)
}

#[inline(always)]
fn ratio_row_body(
    row: &[f64],
    inv_room: (f64, f64),
    i: f64,
    best: &mut [f64],
    second: &mut [f64],
    best_row: &mut [f64],
) {
    let n = row.len();
    let (best, second, best_row) = (&mut best[..n], &mut second[..n], &mut best_row[..n]);
    for j in 0..n {
        let a = row[j];
        let u = a.abs() * if a > 0.0 { inv_room.0 } else { inv_room.1 };
        let (b, s, r) = (best[j], second[j], best_row[j]);
        let better = u > b;
        second[j] = if better { b } else { s.max(u) };
        best_row[j] = if better { i } else { r };
        best[j] = if better { u } else { b };
    }
}

/// Why a search stopped before the end.
enum Stop {
    /// A check of the module docs failed: the caller runs the hashed search.
    Degenerate,
    /// A cap was passed.
    Error(Error),
    /// Another thread stopped the search (for one of the reasons above).
    Halted,
}

/// What the threads share: the caps, the running count of bases, and the queue of
/// bases given away for other threads to search below.
struct Shared {
    limits: Limits,
    threads: usize,
    bases: AtomicUsize,
    /// Set when the search must end early (an error or a failed check somewhere).
    stop: AtomicBool,
    /// Set while a thread waits for work: the others then give away half their stacks.
    hungry: AtomicBool,
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Bases given away, and how many threads wait for one.
struct Queue {
    nodes: Nodes,
    idle: usize,
    done: bool,
}

/// The work space of one thread.
struct Worker<'a> {
    poly: &'a LiftPolytope,
    cost: &'a [f64],
    /// The tableau B⁻¹ [dᵀ; A] of the v columns (in the searched coordinates u = v / d), row-major (m × |X'|).
    tab: Vec<f64>,
    /// Per v column: the reciprocal of the least step of its ratio test, the row that
    /// takes it (as f64, so that the loop vectorises) and the reciprocal of the second
    /// least step.
    best_t: Vec<f64>,
    best_row: Vec<f64>,
    second_t: Vec<f64>,
    shared: &'a Shared,
    node: Node,
    pi: Vec<f64>,
    cb: Vec<f64>,
    rc: Vec<f64>,
    sr: Vec<f64>,
    sign: Vec<f64>,
    room_down: Vec<f64>,
    room_up: Vec<f64>,
    d: Vec<f64>,
    is_basic: Vec<bool>,
    nb: Vec<u32>,
    nup: Vec<u64>,
    child_inv: Vec<f64>,
    child_x: Vec<f64>,
    scratch: Scratch,
    sup: Vec<u32>,
    vals: Vec<f64>,
    /// Bases found and not yet added to the shared count.
    pending: usize,
    /// The share of the tree below the start searched so far: the shares of the leaves
    /// expanded (a node's share split evenly among its children, Knuth's weights).
    searched: f64,
    /// When this worker started searching.
    started: web_time::Instant,
    /// The CPU supports AVX2: [`Worker::expand`] takes its AVX2 build.
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl<'a> Worker<'a> {
    /// `simd`: whether the AVX2 build of [`Worker::expand`] may be used (when the CPU has it).
    fn new(poly: &'a LiftPolytope, cost: &'a [f64], shared: &'a Shared, simd: bool) -> Self {
        let (m, nv, sw) = (poly.ns + 1, poly.n + poly.ns, poly.ns.div_ceil(64));
        #[cfg(not(target_arch = "x86_64"))]
        let _ = simd;
        Worker {
            poly,
            cost,
            shared,
            node: Node {
                basis: vec![0; m],
                upper: vec![0; sw],
                inv: vec![0.0; m * m],
                x: vec![0.0; m],
                gen: 0,
                share: 1.0,
            },
            pi: vec![0.0; m],
            cb: vec![0.0; m],
            rc: vec![0.0; nv],
            sr: vec![0.0; nv],
            sign: vec![0.0; nv],
            tab: vec![0.0; m * poly.n],
            best_t: vec![0.0; poly.n],
            best_row: vec![0.0; poly.n],
            second_t: vec![0.0; poly.n],
            room_down: vec![0.0; m],
            room_up: vec![0.0; m],
            d: vec![0.0; m],
            is_basic: vec![false; nv],
            nb: vec![0; m],
            nup: vec![0; sw],
            child_inv: vec![0.0; m * m],
            child_x: vec![0.0; m],
            scratch: Scratch::new(m),
            sup: Vec::with_capacity(m),
            vals: Vec::with_capacity(m),
            pending: 0,
            searched: 0.0,
            started: web_time::Instant::now(),
            #[cfg(target_arch = "x86_64")]
            avx2: simd && std::is_x86_feature_detected!("avx2"),
        }
    }

    /// Adds the pending bases to the shared count; an error past the cap or the deadline
    /// (read every [`BATCH`] bases, by the thread that started the search), or where the
    /// search is predicted to pass the deadline ([`Worker::would_pass_deadline`]).
    fn flush(&mut self) -> core::result::Result<usize, Stop> {
        let total = self.shared.bases.fetch_add(self.pending, Ordering::Relaxed) + self.pending;
        self.pending = 0;
        if self.shared.stop.load(Ordering::Relaxed) {
            return Err(Stop::Halted);
        }
        crate::deadline::check("the vertex search").map_err(Stop::Error)?;
        if self.would_pass_deadline() {
            return Err(Stop::Error(crate::deadline::stopped("the vertex search would pass its deadline".into())));
        }
        if total > self.shared.limits.max_bases {
            return Err(Stop::Error(self.poly.too_many_bases(self.shared.limits.max_bases)));
        }
        Ok(total)
    }

    /// Searches below every basis of `stack`, and then below bases other threads give
    /// away, until every thread is out of work; the vertices into `out`. The thread that
    /// `report`s tells the progress observer.
    fn run(&mut self, stack: &mut Nodes, out: &mut SparseVertices, report: bool) -> core::result::Result<(), Stop> {
        let result = self.search(stack, out, report);
        if result.is_err() {
            self.shared.stop.store(true, Ordering::Relaxed);
            let mut queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.done = true;
            self.shared.wake.notify_all();
        }
        result
    }

    /// Whether, within a deadline, the search is predicted to pass it: after time t with
    /// a share s > 0 of the tree searched ([`Worker::searched`]), the rest is predicted
    /// to take t·(1 − s)/s. Knuth's weights (D. E. Knuth, *Estimating the efficiency of
    /// backtrack programs*, Math. Comp. 29, 1975) are exact for a tree whose siblings'
    /// subtrees are alike; a prediction too high sends a design to the Worker that would
    /// have ended in time (it costs the Worker's round trip), one too low lets the search
    /// run to the deadline, as without a prediction. Only where the prediction is made,
    /// on the calling thread within a deadline, a design's time depends on it, never what
    /// it finds. With it, AORR 5 × 17 at ε = 0.25 (several thousand bases; 60 ms of search
    /// in wasm) is given up after a few hundred bases, not at the 10 ms deadline.
    fn would_pass_deadline(&self) -> bool {
        let (Some(left), s) = (crate::deadline::remaining(), self.searched) else { return false };
        s > 0.0 && s < 1.0 && self.started.elapsed().mul_f64((1.0 - s) / s) > left
    }

    /// Searches below the bases of `stack` on this thread alone, for at most `budget`
    /// bases; whether the search is complete (`stack` is then empty).
    fn alone(
        &mut self,
        stack: &mut Nodes,
        out: &mut SparseVertices,
        budget: usize,
    ) -> core::result::Result<bool, Stop> {
        for _ in 0..budget {
            if !stack.pop(&mut self.node) {
                return self.flush().map(|_| true);
            }
            self.expand(out, stack)?;
        }
        self.flush().map(|_| stack.len() == 0)
    }

    fn search(&mut self, stack: &mut Nodes, out: &mut SparseVertices, report: bool) -> core::result::Result<(), Stop> {
        let mut expanded = 0usize;
        loop {
            while stack.pop(&mut self.node) {
                self.expand(out, stack)?;
                expanded += 1;
                if stack.len() >= 2 && self.shared.hungry.load(Ordering::Relaxed) {
                    self.give(stack);
                }
                if self.pending >= BATCH {
                    let total = self.flush()?;
                    if report && expanded >= crate::progress::EVERY {
                        expanded = 0;
                        crate::progress::report(total, total, self.shared.limits.max_bases, false);
                    }
                }
            }
            self.flush()?;
            if !self.take(stack) {
                return Ok(());
            }
        }
    }

    /// Gives the bottom half of `stack` (the bases nearest the root, with the largest
    /// subtrees) to the queue.
    fn give(&mut self, stack: &mut Nodes) {
        let mut queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        stack.move_bottom(stack.len() / 2, &mut queue.nodes);
        self.shared.hungry.store(false, Ordering::Relaxed);
        self.shared.wake.notify_all();
    }

    /// Takes a basis from the queue onto `stack`, waiting while other threads still
    /// search; false when none is left anywhere (or the search stopped).
    fn take(&mut self, stack: &mut Nodes) -> bool {
        let shared = self.shared;
        let mut queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if queue.done {
                return false;
            }
            if queue.nodes.pop(&mut self.node) {
                let node = &self.node;
                stack.push(&node.basis, &node.upper, &node.inv, &node.x, node.gen, node.share);
                return true;
            }
            queue.idle += 1;
            if queue.idle == shared.threads {
                queue.done = true;
                shared.wake.notify_all();
                return false;
            }
            shared.hungry.store(true, Ordering::Relaxed);
            queue = shared.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
            queue.idle -= 1;
        }
    }

    /// The current node's vertex into `out`, and its children in the tree onto
    /// `children`.
    fn expand(&mut self, out: &mut SparseVertices, children: &mut Nodes) -> core::result::Result<(), Stop> {
        let first = children.len();
        #[cfg(target_arch = "x86_64")]
        let result = match self.avx2 {
            // SAFETY: `avx2` is set only when the CPU was detected to support AVX2.
            #[allow(unsafe_code)]
            true => unsafe { self.expand_avx2(out, children) },
            false => self.expand_with::<false>(out, children),
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = self.expand_with::<false>(out, children);
        match children.len() > first {
            true => children.split(first, self.node.share),
            false => self.searched += self.node.share,
        }
        result
    }

    /// [`Self::expand`] compiled for AVX2: the tableau, the reduced costs and the ratio
    /// tests run 4 lanes wide. No FMA, and Rust never reassociates: the same operations
    /// in the same order, so the same bits as the portable build.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    unsafe fn expand_avx2(&mut self, out: &mut SparseVertices, children: &mut Nodes) -> core::result::Result<(), Stop> {
        self.expand_with::<true>(out, children)
    }

    #[inline(always)]
    fn expand_with<const AVX2: bool>(
        &mut self,
        out: &mut SparseVertices,
        children: &mut Nodes,
    ) -> core::result::Result<(), Stop> {
        let poly = self.poly;
        let (n, ns, m) = (poly.n, poly.ns, poly.ns + 1);
        let nv = n + ns;
        let Node { basis, upper, inv, x, gen, .. } = &self.node;

        // Every basic variable clear of its bounds (primal non-degeneracy).
        for (i, &var) in basis.iter().enumerate() {
            let margin = PRIMAL_MARGIN * inv[i * m..(i + 1) * m].iter().map(|e| e.abs()).sum::<f64>().max(1.0);
            let (lo, hi) = poly.bounds(var as usize);
            if !(x[i] - lo > margin) || (hi.is_finite() && !(hi - x[i] > margin)) {
                return Err(Stop::Degenerate);
            }
        }

        // The vertex: the basic values after one step of iterative refinement with the
        // updated B⁻¹ (it drifts by ~1e-13 along a path; refined, a coordinate of 1e-6 is
        // exact to ~1e-16 relative), the v's renormalised and post-checked; if the check
        // fails, again from B factorised afresh.
        for fresh in [false, true] {
            if fresh {
                if !poly.evaluate_basis(basis, upper, &mut self.child_inv, &mut self.child_x, &mut self.scratch) {
                    break;
                }
                self.d.copy_from_slice(&self.child_x);
                refine(poly, basis, upper, &self.child_inv, &self.d, &mut self.child_x, &mut self.scratch);
            } else {
                refine(poly, basis, upper, inv, x, &mut self.child_x, &mut self.scratch);
            }
            let x = &self.child_x;
            self.sup.clear();
            self.vals.clear();
            for (i, &var) in basis.iter().enumerate() {
                if (var as usize) < n {
                    self.sup.push(var);
                    self.vals.push(x[i]);
                }
            }
            if poly.vertex_of(&self.sup, &mut self.vals) {
                out.push(&self.sup, &self.vals);
                break;
            }
        }

        // Reduced costs d = c − πA with π = c_Bᵀ B⁻¹; sr = d signed so that < 0 improves c.
        basis.iter().for_each(|&b| self.is_basic[b as usize] = true);
        for (r, &b) in basis.iter().enumerate() {
            self.cb[r] = self.cost[b as usize];
        }
        for c in 0..m {
            self.pi[c] = (0..m).map(|r| self.cb[r] * inv[r * m + c]).sum();
        }
        let p0 = self.pi[0];
        match poly.scaled {
            false => self.rc[..n].iter_mut().zip(&self.cost[..n]).for_each(|(r, &c)| *r = c - p0),
            true => {
                let terms = self.rc[..n].iter_mut().zip(&self.cost[..n]).zip(&poly.d);
                terms.for_each(|((r, &c), &d)| *r = c - p0 * d);
            }
        }
        for s in 0..ns {
            let p = self.pi[s + 1];
            if p != 0.0 {
                for (o, &a) in self.rc[..n].iter_mut().zip(&poly.a[s * n..(s + 1) * n]) {
                    *o -= p * a;
                }
            }
            self.rc[n + s] = self.cost[n + s] + p;
        }
        // sr = d signed so that < 0 improves c; `sign` the sign it took.
        let mut first_improving = nv;
        for j in 0..nv {
            if self.is_basic[j] {
                continue;
            }
            self.sign[j] = if j >= n && upper[(j - n) / 64] >> ((j - n) % 64) & 1 == 1 { -1.0 } else { 1.0 };
            self.sr[j] = self.sign[j] * self.rc[j];
            if !(self.sr[j].abs() > DUAL_MARGIN) {
                basis.iter().for_each(|&b| self.is_basic[b as usize] = false);
                return Err(Stop::Degenerate);
            }
            if self.sr[j] < 0.0 && first_improving == nv {
                first_improving = j;
            }
        }
        // The tableau row by row, each an axpy over the secret rows (vectorised): every
        // edge's direction and every α_ik of the parent test are read from it.
        for r in 0..m {
            let row = &inv[r * m..(r + 1) * m];
            let t = &mut self.tab[r * n..(r + 1) * n];
            match poly.scaled {
                false => t.fill(row[0]),
                true => t.iter_mut().zip(&poly.d).for_each(|(e, &d)| *e = row[0] * d),
            }
            for s in 0..ns {
                let f = row[s + 1];
                for (e, &a) in t.iter_mut().zip(&poly.a[s * n..(s + 1) * n]) {
                    *e += f * a;
                }
            }
        }
        // The basic variables' room below and above (∞ above for a v).
        for (i, &var) in basis.iter().enumerate() {
            let (lo, hi) = poly.bounds(var as usize);
            self.room_down[i] = x[i] - lo;
            self.room_up[i] = hi - x[i];
        }
        // The ratio tests of every v edge at once, row by row (`ratio_row`, vectorised):
        // v_j enters from 0 (σ = 1), basic i moves by δ_i = −α_ij per unit step and
        // reaches a bound after t_i = room_i / |δ_i|. Kept as reciprocals u = 1/t, the
        // largest u (the first bound hit), its row, and the second largest, for each j.
        self.best_t.iter_mut().for_each(|e| *e = 0.0);
        self.second_t.iter_mut().for_each(|e| *e = 0.0);
        for i in 0..m {
            let row = &self.tab[i * n..(i + 1) * n];
            let inv_room = (1.0 / self.room_down[i], 1.0 / self.room_up[i]);
            let (best, second, best_row) = (&mut self.best_t, &mut self.second_t, &mut self.best_row);
            #[cfg(target_arch = "x86_64")]
            if AVX2 {
                // SAFETY: AVX2 is only true on the AVX2 path (`expand`).
                #[allow(unsafe_code)]
                unsafe {
                    ratio_row_avx2(row, inv_room, i as f64, best, second, best_row)
                };
                continue;
            }
            ratio_row(row, inv_room, i as f64, best, second, best_row);
        }
        // Children: the neighbours along increasing edges whose parent is this basis.
        let mut result = Ok(());
        for j in 0..nv {
            if self.is_basic[j] || self.sr[j] < 0.0 {
                continue;
            }
            let sigma = self.sign[j];
            // The ratio test of the edge: the first bound hit, which must be unique (no
            // other within TIE), at a finite positive step. For a v column from the
            // reciprocal steps u = 1/t (largest first, s the second): t finite and
            // positive iff u is, and t₂ − t > TIE·t iff u − s > TIE·s. For an r column
            // here, with its direction d = B⁻¹ a_j.
            let (clear, i) = if j < n {
                let (u, s) = (self.best_t[j], self.second_t[j]);
                (u > 0.0 && u.is_finite() && u - s > TIE * s, self.best_row[j] as usize)
            } else {
                for r in 0..m {
                    self.d[r] = -inv[r * m + (j - n) + 1];
                }
                let mut best = (poly.hi[j - n] - poly.lo[j - n], usize::MAX);
                let mut second = f64::INFINITY;
                for i in 0..m {
                    let delta = -sigma * self.d[i];
                    let room = if delta < 0.0 { self.room_down[i] } else { self.room_up[i] };
                    let t = room / delta.abs();
                    if t < best.0 {
                        second = best.0;
                        best = (t, i);
                    } else {
                        second = second.min(t);
                    }
                }
                let (t, i) = best;
                (t > 0.0 && t.is_finite() && second - t > TIE * t, i)
            };
            if !clear {
                result = Err(Stop::Degenerate);
                break;
            }
            // α_ij, the pivot element (a v column's direction is read from the tableau
            // in full only for a child).
            let d_i = match i {
                usize::MAX => 0.0,
                _ if j < n => self.tab[i * n + j],
                _ => self.d[i],
            };
            let to = if i != usize::MAX && sigma * d_i < 0.0 { UPPER } else { LOWER };

            // Is this basis the child's parent (Bland's rule at the child)?
            let is_parent = if i == usize::MAX {
                // r_j moves to its other bound: the same basis, the same reduced costs,
                // and j improving at the child; no smaller index may improve.
                first_improving > j
            } else {
                let leaving = basis[i] as usize;
                let theta = self.rc[j] / d_i;
                let back_side = if to == UPPER { -1.0 } else { 1.0 };
                if !(back_side * -theta < -DUAL_MARGIN) {
                    result = Err(Stop::Degenerate);
                    break;
                }
                // At the child d'_k = d_k − θ α_ik (α_ik = (B⁻¹ a_k)_i): improving iff
                // sign_k d'_k < 0.
                let row = &inv[i * m..(i + 1) * m];
                let tab_row = &self.tab[i * n..(i + 1) * n];
                let mut parent = true;
                for k in 0..leaving {
                    if self.is_basic[k] || k == j {
                        continue;
                    }
                    let alpha = if k < n { tab_row[k] } else { -row[k - n + 1] };
                    let sk = self.sr[k] - theta * self.sign[k] * alpha;
                    if !(sk.abs() > DUAL_MARGIN) {
                        result = Err(Stop::Degenerate);
                        break;
                    }
                    if sk < 0.0 {
                        parent = false;
                        break;
                    }
                }
                if result.is_err() {
                    break;
                }
                parent
            };
            if !is_parent {
                continue;
            }

            // The child: B⁻¹ updated by the pivot (or factorised afresh every REFRESH).
            if j < n {
                for r in 0..m {
                    self.d[r] = self.tab[r * n + j];
                }
            }
            let mv = Move { j, i, to };
            poly.child_status(basis, upper, mv, &mut self.nb, &mut self.nup);
            let child = poly.child_values(
                (basis, inv, *gen),
                &self.d,
                mv,
                (&self.nb, &self.nup),
                (&mut self.child_inv, &mut self.child_x),
                &mut self.scratch,
            );
            let Some(child_gen) = child else {
                result = Err(Stop::Degenerate);
                break;
            };
            children.push(&self.nb, &self.nup, &self.child_inv, &self.child_x, child_gen, 0.0);
            self.pending += 1;
        }
        basis.iter().for_each(|&b| self.is_basic[b as usize] = false);
        result
    }
}

impl LiftPolytope {
    /// Every vertex by reverse search from the start basis (`basis`, `upper`, `inv`,
    /// `x`; `cost` the generic objective it minimises), or `Ok(None)` if a check of the
    /// module docs fails (the polytope is degenerate, or too nearly so): the caller then
    /// runs the hashed search. Natively every core searches, taking subtrees other
    /// threads give away; wasm searches on one thread. The vertices are returned in a
    /// canonical order (by support, then values), whatever the number of threads.
    ///
    /// # Errors
    /// `invalid_argument` beyond `limits`, as the hashed search.
    pub(super) fn reverse_search(
        &self,
        limits: Limits,
        start: (&[u32], &[u64], &[f64], &[f64]),
        cost: &[f64],
        simd: bool,
    ) -> Result<Option<SparseVertices>> {
        let (m, sw) = (self.ns + 1, self.ns.div_ceil(64));
        // One in wasm (`cores::threads`). Within a deadline, on the calling thread alone:
        // its share searched is the search's (`Worker::would_pass_deadline`).
        let threads = match crate::deadline::remaining() {
            Some(_) => 1,
            None => crate::cores::threads(),
        };
        let shared = Shared {
            limits,
            threads,
            bases: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            hungry: AtomicBool::new(false),
            queue: Mutex::new(Queue { nodes: Nodes::new(m, sw), idle: 0, done: false }),
            wake: Condvar::new(),
        };
        let mut stack = Nodes::new(m, sw);
        stack.push(start.0, start.1, start.2, start.3, 0, 1.0);
        let mut out = SparseVertices::new(self.n);
        let mut worker = Worker::new(self, cost, &shared, simd);
        worker.pending = 1;
        let result = match worker.alone(&mut stack, &mut out, ALONE) {
            Ok(true) => Ok(()),
            Err(e) => Err(e),
            // wasm has one thread.
            #[cfg(target_arch = "wasm32")]
            Ok(false) => worker.run(&mut stack, &mut out, true),
            #[cfg(not(target_arch = "wasm32"))]
            Ok(false) if threads == 1 => worker.run(&mut stack, &mut out, true),
            #[cfg(not(target_arch = "wasm32"))]
            Ok(false) => std::thread::scope(|scope| {
                let shared = &shared;
                let helpers: Vec<_> = (1..threads)
                    .map(|_| {
                        scope.spawn(move || {
                            let mut out = SparseVertices::new(self.n);
                            let mut stack = Nodes::new(m, sw);
                            Worker::new(self, cost, shared, simd).run(&mut stack, &mut out, false).map(|()| out)
                        })
                    })
                    .collect();
                let mut result = worker.run(&mut stack, &mut out, true);
                for helper in helpers {
                    let theirs = helper.join().unwrap_or(Err(Stop::Halted));
                    result = match (result, theirs) {
                        (Ok(()), Ok(part)) => {
                            out.append(&part);
                            Ok(())
                        }
                        // A failed check wins over a cap: the hashed search then meets the
                        // cap itself.
                        (Err(Stop::Degenerate), _) | (_, Err(Stop::Degenerate)) => Err(Stop::Degenerate),
                        (Err(Stop::Error(e)), _) | (_, Err(Stop::Error(e))) => Err(Stop::Error(e)),
                        (Err(e), _) | (_, Err(e)) => Err(e),
                    };
                }
                result
            }),
        };
        match result {
            Ok(()) => {
                crate::progress::report(shared.bases.load(Ordering::Relaxed), out.len(), limits.max_bases, true);
                if out.len() > limits.max_vertices {
                    return Err(super::too_many_vertices(self.n, self.ns));
                }
                Ok(Some(out.canonical()))
            }
            Err(Stop::Degenerate) | Err(Stop::Halted) => Ok(None),
            Err(Stop::Error(e)) => Err(e),
        }
    }
}
