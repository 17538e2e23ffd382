//! The reverse search of the lift polytope's vertices (`design/src/vertex/reverse.rs`)
//! against the hashed search it replaces on non-degenerate polytopes: the same vertices
//! on random instances of a fixed seed (so no vertex is lost or doubled by the tree),
//! a fall-back on degenerate ones that still gives the hashed search's answer, the
//! caps, and an order that does not depend on how the threads shared the work.

use std::collections::BTreeMap;

use privlift::document::{Alphabet, Matrix};
use privlift::Error;
use privlift_design::lift::JointView;
use privlift_design::vertex::{LiftPolytope, Limits, SparseVertices};
use privlift_design::Source;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const LIMITS: Limits = Limits { max_bases: 5_000_000, max_vertices: 5_000_000 };

fn joint_from(ns: usize, nx: usize, v: Vec<f64>) -> Source {
    let t: f64 = v.iter().sum();
    let m = Matrix::from_flat(ns, nx, v.iter().map(|x| x / t).collect());
    Source::joint(Alphabet::indices("s", ns).unwrap(), Alphabet::indices("x", nx).unwrap(), m).unwrap()
}

fn random_joint(rng: &mut ChaCha8Rng, ns: usize, nx: usize) -> Source {
    joint_from(ns, nx, (0..ns * nx).map(|_| rng.random::<f64>()).collect())
}

fn polytope(src: &Source, ln_lo: f64, ln_hi: f64) -> LiftPolytope {
    let view = JointView::new(&src.p_sx());
    let all: Vec<usize> = (0..view.nx()).collect();
    LiftPolytope::new(&view, &all, ln_lo, ln_hi).unwrap()
}

/// Vertices grouped by support.
fn by_support(vs: &SparseVertices) -> BTreeMap<Vec<u32>, Vec<Vec<f64>>> {
    let mut g: BTreeMap<Vec<u32>, Vec<Vec<f64>>> = BTreeMap::new();
    for i in 0..vs.len() {
        let (idx, val) = vs.get(i);
        g.entry(idx.to_vec()).or_default().push(val.to_vec());
    }
    g
}

/// The same vertices: the same count on every support, each vertex of one matched in
/// the other to 1e-7 relative (two pivot paths round differently; coordinates near
/// 1e-6 differ in the 9th digit).
fn assert_same_vertices(a: &SparseVertices, b: &SparseVertices, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: {} vertices against {}", a.len(), b.len());
    let (ga, gb) = (by_support(a), by_support(b));
    let close =
        |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-7 * p.abs().max(q.abs()) + 1e-14);
    for (support, va) in &ga {
        let vb = gb.get(support).unwrap_or_else(|| panic!("{what}: support {support:?} only in the first"));
        assert_eq!(va.len(), vb.len(), "{what}: support {support:?}");
        for v in va {
            assert!(vb.iter().any(|w| close(v, w)), "{what}: {support:?} {v:?} not in {vb:?}");
        }
    }
}

/// On random joints (the papers' instances: i.i.d. uniform entries) the polytope is not
/// degenerate, the reverse search runs to the end, and it finds exactly the vertices
/// of the hashed search, each of them post-checked, with at most |S| non-zeros.
#[test]
fn reverse_search_finds_the_hashed_search_vertices() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut searched = 0;
    for (ns, nx) in [(2, 6), (3, 9), (4, 12), (5, 17), (3, 30), (5, 24)] {
        for (lo, hi) in [(-1.0, 1.0), (-0.25, 0.25), (-0.5, 1.5), (-2.0, 0.7)] {
            let src = random_joint(&mut rng, ns, nx);
            let poly = polytope(&src, lo, hi);
            let what = format!("|S| = {ns}, |X| = {nx}, bounds ({lo}, {hi})");
            let reverse =
                poly.vertices_by_reverse_search(LIMITS).unwrap().unwrap_or_else(|| panic!("{what}: fell back"));
            let hashed = poly.vertices_by_hashed_search(LIMITS).unwrap().unwrap();
            assert!(!reverse.is_empty(), "{what}");
            assert_same_vertices(&reverse, &hashed, &what);
            for i in 0..reverse.len() {
                let v = reverse.dense(i);
                assert!(poly.contains(&v, 1e-12), "{what}: {v:?}");
                assert!(reverse.get(i).0.len() <= ns, "{what}: support above |S|");
            }
            searched += reverse.len();
        }
    }
    assert!(searched > 10_000, "{searched} vertices searched");
}

/// Degenerate polytopes (repeated columns P(·|x), repeated secret rows, a budget equal
/// to a symbol's own lift, a uniform prior with S = X, S a function of X): the reverse
/// search refuses at least one of them, and the default search
/// ([`LiftPolytope::vertices_sparse`]) gives the hashed search's vertices on all.
#[test]
fn degenerate_polytopes_fall_back_to_the_hashed_search() {
    let mut cases: Vec<(Source, f64, f64)> = vec![
        (joint_from(3, 4, vec![0.1, 0.2, 0.1, 0.2, 0.05, 0.1, 0.05, 0.1, 0.02, 0.03, 0.02, 0.03]), -0.7, 0.4),
        (joint_from(3, 4, vec![0.1, 0.05, 0.1, 0.05, 0.1, 0.05, 0.1, 0.05, 0.3, 0.02, 0.03, 0.05]), -0.5, 0.5),
        // S = X with a uniform prior: diag(1/4).
        (joint_from(4, 4, (0..16).map(|i| if i % 5 == 0 { 0.25 } else { 0.0 }).collect()), -0.5, 0.5),
        // S a function of X: s = x mod 3 over six inputs.
        (
            joint_from(3, 6, (0..18).map(|i| if (i % 6) % 3 == i / 6 { 1.0 + (i % 6) as f64 } else { 0.0 }).collect()),
            -0.53,
            0.53,
        ),
    ];
    let tight = joint_from(2, 3, vec![0.1, 0.3, 0.1, 0.1, 0.1, 0.3]);
    let (l1, _) = JointView::new(&tight.p_sx()).merged_lifts(&[1]).unwrap();
    cases.push((tight, -1.0, l1.ln()));
    let mut refused = 0;
    for (k, (src, lo, hi)) in cases.iter().enumerate() {
        let poly = polytope(src, *lo, *hi);
        let hashed = poly.vertices_by_hashed_search(LIMITS).unwrap().unwrap();
        let auto = poly.vertices_sparse(LIMITS).unwrap().unwrap();
        assert_same_vertices(&auto, &hashed, &format!("case {k}"));
        match poly.vertices_by_reverse_search(LIMITS).unwrap() {
            None => refused += 1,
            Some(reverse) => assert_same_vertices(&reverse, &hashed, &format!("case {k}, reverse")),
        }
    }
    assert!(refused >= 1, "no degenerate case was refused by the reverse search");
}

/// The vertices come back in one canonical order (by support, then values), so two
/// runs — whose threads share the work differently — give the same list bit for bit.
#[test]
fn the_order_does_not_depend_on_the_threads() {
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let src = random_joint(&mut rng, 5, 24);
    let poly = polytope(&src, -0.6, 0.6);
    let first = poly.vertices_by_reverse_search(LIMITS).unwrap().unwrap();
    assert!(first.len() > 1_000, "{} vertices", first.len());
    for _ in 0..3 {
        let again = poly.vertices_by_reverse_search(LIMITS).unwrap().unwrap();
        assert_eq!(again.len(), first.len());
        for i in 0..first.len() {
            let ((ia, va), (ib, vb)) = (first.get(i), again.get(i));
            assert_eq!(ia, ib);
            assert!(va.iter().zip(vb).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }
    for i in 1..first.len() {
        let ((ia, va), (ib, vb)) = (first.get(i - 1), first.get(i));
        let key = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        assert!((ia, key(va)) < (ib, key(vb)), "vertices {} and {i} out of order", i - 1);
    }
}

/// Past the cap on bases the reverse search refuses as the hashed search does
/// (`invalid_argument`, pointing to SRR).
#[test]
fn the_caps_hold() {
    let mut rng = ChaCha8Rng::seed_from_u64(62);
    let src = random_joint(&mut rng, 5, 24);
    let poly = polytope(&src, -0.6, 0.6);
    let tight = Limits { max_bases: 500, max_vertices: 5_000_000 };
    for result in [poly.vertices_by_reverse_search(tight), poly.vertices_by_hashed_search(tight)] {
        match result {
            Err(Error::InvalidArgument { reason, .. }) => assert!(reason.contains("srr"), "{reason}"),
            other => panic!("expected a refusal, got {:?}", other.map(|v| v.map(|v| v.len()))),
        }
    }
}
