//! Exact AORR at |S| = 5 as |X| grows (the optimal-lift issue's moonshot): for each
//! |X| in 17, 32, 64, 128, 200 (or the sizes given), a random joint of a fixed seed
//! (i.i.d. uniform entries, the papers' instances), εl = εu = 1 (or `--eps`), prints
//! the vertex count of the ALIP polytope, the time of the vertex search, and of the
//! whole exact design (search + LP (22) by column generation), natively.
//!
//! Run: `cargo run --release -p privlift-design --example aorr_scaling -- [--eps E] [N...]`
use std::time::Instant;

use privlift::document::Matrix;
use privlift_design::lift::JointView;
use privlift_design::orr::response_sparse;
use privlift_design::utility::entropy;
use privlift_design::vertex::{LiftPolytope, Limits};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut eps = 1.0;
    if let Some(i) = args.iter().position(|a| a == "--eps") {
        eps = args[i + 1].parse().expect("--eps E");
        args.drain(i..i + 2);
    }
    let sizes: Vec<usize> =
        if args.is_empty() { vec![17, 32, 64, 128, 200] } else { args.iter().map(|a| a.parse().unwrap()).collect() };
    let ns = 5;
    let limits = Limits { max_bases: 50_000_000, max_vertices: 20_000_000 };
    for nx in sizes {
        let mut rng = ChaCha8Rng::seed_from_u64(nx as u64);
        let v: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>()).collect();
        let t: f64 = v.iter().sum();
        let view = JointView::new(&Matrix::from_flat(ns, nx, v.iter().map(|x| x / t).collect()));
        let all: Vec<usize> = (0..nx).collect();
        let b = eps * (1.0 - 1e-9) - 1e-11; // the design budget of `Notion::lift_bounds`
        let poly = LiftPolytope::new(&view, &all, -b, b).unwrap();
        let t0 = Instant::now();
        let vs = poly.vertices_with(limits);
        let search = t0.elapsed();
        let count = match vs {
            Ok(vs) => vs.len(),
            Err(e) => {
                println!("|X| = {nx}: {e}");
                continue;
            }
        };
        let t1 = Instant::now();
        let r = response_sparse(&view, &all, &poly, limits).unwrap();
        let total = t1.elapsed();
        let h: f64 = r.columns.iter().zip(&r.q).map(|(c, q)| q * entropy(c)).sum();
        let mi = entropy(&view.p_x) - h;
        println!(
            "|X| = {nx:3}, |S| = {ns}, eps = {eps}: {count:9} vertices, search {:9.3} ms, exact AORR {:9.3} ms \
             (LP ≈ {:8.3} ms), |Y| = {}, I(X;Y) = {mi:.6} nats, NMI = {:.4}",
            search.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            (total.as_secs_f64() - search.as_secs_f64()) * 1e3,
            r.q.len(),
            mi / entropy(&view.p_x)
        );
    }
}
