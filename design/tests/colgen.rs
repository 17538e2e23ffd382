//! The column-generation solver of LP (22) ([`privlift_design::orr::Method`]) against the
//! previous implementation (microlp over every vertex) on random instances of a fixed
//! seed: the same optimum Σ q_v H(v) (hence I(X;Y)) to 1e-9, feasible masses, and
//! documents that audit within their claims.

use privlift::document::{Alphabet, Document, Matrix};
use privlift::param::Epsilon;
use privlift::Policy;
use privlift_design::lift::{JointView, Notion};
use privlift_design::orr::{self, optimal_response_with, Method, Response};
use privlift_design::Source;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// ε in nats, as a notion's budget.
fn nats(e: f64) -> Epsilon {
    Epsilon::new("epsilon", e).expect("a budget in [0, 700] nats")
}

fn joint(rng: &mut ChaCha8Rng, ns: usize, nx: usize) -> Source {
    let v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>()).collect();
    let t: f64 = v.iter().sum();
    let m = Matrix::from_flat(ns, nx, v.iter().map(|x| x / t).collect());
    Source::joint(Alphabet::indices("s", ns).unwrap(), Alphabet::indices("x", nx).unwrap(), m).unwrap()
}

fn entropy(v: &[f64]) -> f64 {
    -v.iter().filter(|&&e| e > 0.0).map(|&e| e * e.ln()).sum::<f64>()
}

/// Σ q_v H(v), after checking Σ q_v v = P_X on the subset to 1e-12.
fn objective(r: &Response, target: &[f64]) -> f64 {
    for (j, &t) in target.iter().enumerate() {
        let got: f64 = r.columns.iter().zip(&r.q).map(|(v, q)| q * v[j]).sum();
        assert!((got - t).abs() <= 1e-12, "marginal {j}: {got} vs {t}");
    }
    assert!(r.q.iter().all(|&q| q > 0.0));
    r.columns.iter().zip(&r.q).map(|(v, q)| q * entropy(v)).sum()
}

fn audited(doc: &Document) {
    let doc = Document::from_json(&doc.to_json()).expect("published JSON re-parses");
    let report = doc.check(&Policy::default()).unwrap();
    assert!(report.claims_hold && !report.claims.is_empty(), "{:?}", report.claims);
}

#[test]
fn column_generation_matches_the_full_lp() {
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let mut cases = 0;
    for (ns, nx) in [(2, 3), (2, 5), (3, 6), (3, 8), (4, 10), (5, 12), (5, 17)] {
        for _ in 0..3 {
            let src = joint(&mut rng, ns, nx);
            let view = JointView::new(&src.p_sx());
            let all: Vec<usize> = (0..nx).collect();
            let target: Vec<f64> = view.p_x.clone();
            for (lo, hi) in [(-1.0, 1.0), (-0.25, 0.25), (-1.3, 0.7), (-0.35, 0.65)] {
                let cg = optimal_response_with(&view, &all, lo, hi, Method::ColumnGeneration).unwrap();
                let lp = optimal_response_with(&view, &all, lo, hi, Method::FullLp).unwrap();
                let (a, b) = (objective(&cg, &target), objective(&lp, &target));
                assert!((a - b).abs() <= 1e-9, "|S| = {ns}, |X| = {nx}, [{lo}, {hi}]: {a} vs {b}");
                assert_eq!(cg.vertices, lp.vertices);
                cases += 1;
            }
            for n in [Notion::Alip { eps_l: nats(1.0), eps_u: nats(1.0) }, Notion::Lip { eps: nats(0.5) }] {
                audited(&orr::optimal(&src, n, "cg").unwrap());
            }
        }
    }
    assert_eq!(cases, 84);
}

/// The exact large-|X| path (`response_sparse` with caps raised, as
/// `examples/aorr_scaling.rs` runs it at |X| = 200) at a size the test profile runs
/// fast: the same optimum as microlp over every vertex, every output column a point of
/// the polytope with at most |S| non-zeros, and the marginal met.
#[test]
fn exact_large_path_matches_the_full_lp() {
    use privlift_design::orr::response_sparse;
    use privlift_design::vertex::{LiftPolytope, Limits};
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let limits = Limits { max_bases: 50_000_000, max_vertices: 20_000_000 };
    for (ns, nx) in [(3, 40), (4, 28)] {
        let src = joint(&mut rng, ns, nx);
        let view = JointView::new(&src.p_sx());
        let all: Vec<usize> = (0..nx).collect();
        let poly = LiftPolytope::new(&view, &all, -1.0, 1.0).unwrap();
        let exact = response_sparse(&view, &all, &poly, limits).unwrap();
        let lp = optimal_response_with(&view, &all, -1.0, 1.0, Method::FullLp).unwrap();
        let (a, b) = (objective(&exact, &view.p_x), objective(&lp, &view.p_x));
        assert!((a - b).abs() <= 1e-9, "|S| = {ns}, |X| = {nx}: {a} vs {b}");
        assert_eq!(exact.vertices, lp.vertices);
        for c in &exact.columns {
            assert!(poly.contains(c, 1e-12));
            assert!(c.iter().filter(|&&e| e > 0.0).count() <= ns);
        }
    }
}
