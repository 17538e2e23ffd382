//! The continuous-data mechanisms (`privlift_design::continuous`) against independent numerics,
//! the shapes of the paper's Figs 8 and 9, and the exact lattice samplers against their
//! pmfs (`privlift::sample::discrete`).

use privlift::param::Epsilon;
use privlift::rng::DeterministicRngForTesting;
use privlift::sample::discrete::{DiscreteGaussian, DiscreteLaplace};
use privlift_design::continuous as real;
use privlift_design::continuous::{e_divergence, laplace_lip, laplace_scales, Gaussian, GaussianMixture};
// The calculators over plain numbers, validated into their types as a caller does.
#[path = "../src/continuous/shims.rs"]
mod shims;
use rand::RngCore;
use shims::{
    analytic_gaussian_delta, analytic_gaussian_sigma, calibrate_at, calibrate_on_domain, delta_at, delta_at_mixture,
    delta_on_domain, sampling_delta, sampling_delta_discrete, sampling_lambda, vanilla_gaussian_delta,
};
use statrs::distribution::{ChiSquared, ContinuousCDF};

fn uniform(rng: &mut DeterministicRngForTesting) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn n(m: f64, s: f64) -> Gaussian {
    Gaussian::new(m, s).unwrap()
}

/// 5-point Gauss–Legendre on `[a, b]` split into panels no wider than `h`.
fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64, h: f64) -> f64 {
    const X: [f64; 5] = [0.0, -0.5384693101056831, 0.5384693101056831, -0.906179845938664, 0.906179845938664];
    const W: [f64; 5] =
        [0.5688888888888889, 0.47862867049936647, 0.47862867049936647, 0.23692688505618908, 0.23692688505618908];
    if b <= a {
        return 0.0;
    }
    let panels = ((b - a) / h).ceil().max(1.0) as usize;
    let w = (b - a) / panels as f64;
    let mut s = 0.0;
    for k in 0..panels {
        let c = a + (k as f64 + 0.5) * w;
        for (x, wt) in X.iter().zip(W) {
            s += wt * f(c + 0.5 * w * x);
        }
    }
    s * 0.5 * w
}

/// `∫ (f − γg)₊` by locating the sign changes of `ln f − ln g − ln γ` on a grid (then
/// bisection) and integrating each positive piece: independent of the closed form.
fn e_divergence_numeric(gamma: f64, f: &Gaussian, g: &Gaussian) -> f64 {
    let smin = f.sd().min(g.sd());
    let smax = f.sd().max(g.sd());
    let lo = f.mean().min(g.mean()) - 14.0 * smax;
    let hi = f.mean().max(g.mean()) + 14.0 * smax;
    let h = |y: f64| {
        let zf = (y - f.mean()) / f.sd();
        let zg = (y - g.mean()) / g.sd();
        -0.5 * zf * zf + 0.5 * zg * zg + (g.sd() / f.sd()).ln() - gamma.ln()
    };
    let steps = 20_000;
    let mut cuts = vec![lo];
    let mut prev = h(lo);
    for k in 1..=steps {
        let y = lo + (hi - lo) * k as f64 / steps as f64;
        let v = h(y);
        if (v >= 0.0) != (prev >= 0.0) {
            let (mut a, mut b) = (y - (hi - lo) / steps as f64, y);
            for _ in 0..200 {
                let m = 0.5 * (a + b);
                if (h(m) >= 0.0) == (prev >= 0.0) {
                    a = m;
                } else {
                    b = m;
                }
            }
            cuts.push(0.5 * (a + b));
        }
        prev = v;
    }
    cuts.push(hi);
    let diff = |y: f64| f.pdf(y) - gamma * g.pdf(y);
    let mut total = 0.0;
    for w in cuts.windows(2) {
        let mid = 0.5 * (w[0] + w[1]);
        if h(mid) >= 0.0 {
            total += integrate(&diff, w[0], w[1], smin / 4.0);
        }
    }
    total
}

#[test]
fn e_divergence_closed_form_matches_quadrature_on_1000_random_pairs() {
    let mut rng = DeterministicRngForTesting::seed_from_u64(2024);
    let mut worst: f64 = 0.0;
    for i in 0..1000 {
        let f = n(-5.0 + 10.0 * uniform(&mut rng), 0.2 + 4.8 * uniform(&mut rng));
        let g = n(-5.0 + 10.0 * uniform(&mut rng), 0.2 + 4.8 * uniform(&mut rng));
        // Every tenth pair has equal sds (Lemma 4's linear case).
        let g = if i % 10 == 0 { n(g.mean(), f.sd()) } else { g };
        let gamma = (-3.0 + 5.0 * uniform(&mut rng)).exp();
        let closed = e_divergence(gamma, &f, &g).unwrap();
        let numeric = e_divergence_numeric(gamma, &f, &g);
        worst = worst.max((closed - numeric).abs());
        assert!((closed - numeric).abs() < 1e-9, "pair {i}: {f:?} {g:?} γ={gamma}: {closed} vs {numeric}");
        // Prop 3: E_γ(f‖g) = 1 − γ + γ·E_{1/γ}(g‖f).
        let other = e_divergence(1.0 / gamma, &g, &f).unwrap();
        assert!((closed - (1.0 - gamma + gamma * other)).abs() < 1e-9 * (1.0 + gamma), "Prop 3, pair {i}");
    }
    eprintln!("E-divergence: largest |closed − quadrature| over 1000 pairs = {worst:e}");
}

#[test]
fn thm5_sup_over_unbounded_x_tends_to_one() {
    let prior = n(0.0, 5.0);
    let mut last = 0.0;
    for x in [0.0, 10.0, 20.0, 40.0, 80.0, 160.0] {
        let d = delta_at(1.0, 10.0, x, &prior).unwrap().delta;
        assert!(d >= last, "δ grows with |x − μ|: {x}");
        last = d;
    }
    assert!(last > 0.999, "far from the prior δ(x) → 1: {last}");
}

#[test]
fn cor9_and_definition_3_agree_for_the_gaussian_mechanism() {
    // Definition (3) gives max{e^{−ε}·E1, E2}, Cor 9 max{E1, E2} (E1 = E_{e^ε}(f_{Y|x}‖f_Y),
    // E2 = E_{e^ε}(f_Y‖f_{Y|x})). For the Gaussian mechanism E2 ≥ E1 on every random
    // instance (f_Y is the wider Gaussian), so both give δ = E2; the scaling matters for
    // the sampling mechanism (Prop 2), not here.
    let mut rng = DeterministicRngForTesting::seed_from_u64(31);
    for _ in 0..20_000 {
        let prior = n(0.0, 0.1 + 20.0 * uniform(&mut rng));
        let (s, x, eps) = (0.05 + 50.0 * uniform(&mut rng), -40.0 + 80.0 * uniform(&mut rng), 5.0 * uniform(&mut rng));
        let d = delta_at(eps, s, x, &prior).unwrap();
        assert!(d.e_y_vs_y_given_x >= d.e_y_given_x_vs_y, "{d:?}");
        assert_eq!(d.delta, d.e_y_vs_y_given_x);
        assert_eq!(d.delta_cor9, d.delta);
    }
    // Sampling mechanism: E_{e^ε}(f_{Y|x}‖f_Y) = λ, so Cor 9 would need λ ≤ δ, but
    // Prop 2's λ = δe^ε (tight under definition (3)).
    let l = sampling_lambda(1.0, 1e-3).unwrap();
    assert!(l > 1e-3 && (l - 1e-3 * 1f64.exp()).abs() < 1e-12);
}

#[test]
fn delta_decreases_in_sigma_n() {
    let prior = n(0.0, 5.0);
    for eps in [0.5, 1.0, 2.0] {
        for x in [0.0, 3.0, 10.0, -25.0] {
            let mut last = 1.0;
            for k in 0..400 {
                let s = 0.05 * 1.03f64.powi(k);
                let d = delta_at(eps, s, x, &prior).unwrap().delta;
                assert!(d <= last + 1e-13, "ε={eps} x={x} σ={s}: {d} > {last}");
                last = d;
            }
        }
    }
}

#[test]
fn calibrated_sigma_is_the_smallest_meeting_delta() {
    let prior = n(0.0, 5.0);
    for (eps, delta, x) in [(1.0, 1e-4, 0.0), (0.5, 1e-3, 7.0), (2.0, 1e-6, -4.0)] {
        let c = calibrate_at(eps, delta, x, &prior.into()).unwrap();
        assert!(delta_at(eps, c.sigma_n, x, &prior).unwrap().delta <= delta);
        assert!(c.below > 0.0 && delta_at(eps, c.below, x, &prior).unwrap().delta > delta, "{c:?}");
        assert!((c.sigma_n - c.below) / c.sigma_n < 1e-9, "bracket {c:?}");
    }
    // On a bounded domain: the certified sup meets δ, and 0.1 % less noise does not.
    let c = calibrate_on_domain(1.0, 1e-4, &prior.into(), -10.0, 10.0).unwrap();
    // (the value-mode sup carries a relative 1e-6 refinement slack on top)
    assert!(delta_on_domain(1.0, c.sigma_n, &prior.into(), -10.0, 10.0).unwrap() <= 1e-4 * (1.0 + 2e-6));
    let worse =
        (0..=200).map(|k| -10.0 + 0.1 * k as f64).map(|x| delta_at(1.0, c.sigma_n * 0.999, x, &prior).unwrap().delta);
    assert!(worse.fold(0.0, f64::max) > 1e-4);
    // The domain's σ is the per-x σ of its worst end.
    let ends = calibrate_at(1.0, 1e-4, 10.0, &prior.into()).unwrap().sigma_n;
    assert!((c.sigma_n - ends).abs() / ends < 1e-6, "{} vs {ends}", c.sigma_n);
}

#[test]
fn fig9_high_density_values_need_less_noise() {
    // μ = 0, σ_X = 5, δ = 1e-4 (Fig. 9): σ_N(x) grows with |x|.
    let prior: GaussianMixture = n(0.0, 5.0).into();
    for eps in [0.5, 1.0, 2.0, 3.0] {
        let s: Vec<f64> =
            [0.0, 2.5, 5.0, 7.5, 10.0].iter().map(|&x| calibrate_at(eps, 1e-4, x, &prior).unwrap().sigma_n).collect();
        assert!(s.windows(2).all(|w| w[0] < w[1]), "ε={eps}: {s:?}");
        // Symmetric in x − μ.
        let m = calibrate_at(eps, 1e-4, -5.0, &prior).unwrap().sigma_n;
        assert!((m - s[2]).abs() / s[2] < 1e-9);
    }
}

#[test]
fn fig8_lip_needs_less_noise_than_2eps_ldp_at_equal_delta() {
    // μ_X = 0, σ_X = 5, ΔX = 20 (domain [−10, 10]), σ_N = 10 (Fig. 8).
    let prior: GaussianMixture = n(0.0, 5.0).into();
    let gauss = n(0.0, 5.0);
    for eps in [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0] {
        let ldp = analytic_gaussian_delta(2.0 * eps, 10.0, 20.0).unwrap();
        // Per value within one σ_X of the mean: always far below 2ε-LDP's δ.
        for x in [0.0, 2.5, 5.0] {
            let d = delta_at(eps, 10.0, x, &gauss).unwrap().delta;
            assert!(d < 0.5 * ldp, "ε={eps} x={x}: LIP {d} vs 2ε-LDP {ldp}");
        }
        // Instance-independent (sup over the whole domain, attained at its ends): below
        // 2ε-LDP up to ε = 2, above it from ε = 3 (the paper's figure does not show this).
        let dom = delta_on_domain(eps, 10.0, &prior, -10.0, 10.0).unwrap();
        let at_end = delta_at(eps, 10.0, 10.0, &gauss).unwrap().delta;
        assert!((dom - at_end).abs() <= 1e-6 * at_end + 1e-15, "sup at the ends: {dom} vs {at_end}");
        if eps <= 2.0 {
            assert!(dom < ldp, "ε={eps}: LIP {dom} vs 2ε-LDP {ldp}");
        } else {
            assert!(dom > ldp, "ε={eps}: LIP {dom} vs 2ε-LDP {ldp}");
        }
        let vanilla = vanilla_gaussian_delta(2.0 * eps, 10.0, 20.0).unwrap();
        assert!(ldp < vanilla || eps >= 4.0, "eq 24 improves the vanilla bound: {ldp} vs {vanilla}");
    }
    // At equal δ = 1e-4: per value (|x| ≤ σ_X) far less noise than 2ε-LDP; the domain-wide
    // σ only for ε ≤ 0.5; always less than ε-LDP.
    for eps in [0.25, 0.5, 1.0, 2.0, 3.0] {
        let s_dom = calibrate_on_domain(eps, 1e-4, &prior, -10.0, 10.0).unwrap().sigma_n;
        let s_x = calibrate_at(eps, 1e-4, 5.0, &prior).unwrap().sigma_n;
        let s_ldp2 = analytic_gaussian_sigma(2.0 * eps, 1e-4, 20.0).unwrap();
        let s_ldp1 = analytic_gaussian_sigma(eps, 1e-4, 20.0).unwrap();
        assert!(s_x < 0.8 * s_ldp2 && s_dom < s_ldp1, "ε={eps}: {s_x} {s_dom} {s_ldp2} {s_ldp1}");
        assert_eq!(s_dom < s_ldp2, eps <= 0.5, "ε={eps}: σ_dom {s_dom} vs σ_LDP(2ε) {s_ldp2}");
    }
}

/// Cor 10 evaluates f_Y as N(μ, σ_X² + σ_N(x)²). With σ_N depending on x the output
/// density is the mixture ∫ f_X(x') N(·; x', σ_N(x')²) dx'. Measure the δ users really get.
#[test]
fn cor10_instance_dependent_sigma_changes_the_output_density() {
    let (eps, target) = (1.0, 1e-4);
    let prior = n(0.0, 5.0);
    let mix: GaussianMixture = prior.into();
    let xs: Vec<f64> = (0..=300).map(|k| -30.0 + 0.2 * k as f64).collect();
    let sig: Vec<f64> = xs.iter().map(|&x| calibrate_at(eps, target, x, &mix).unwrap().sigma_n).collect();
    let ys: Vec<f64> = (0..=10_000).map(|k| -250.0 + 0.05 * k as f64).collect();
    let fy: Vec<f64> = ys
        .iter()
        .map(|&y| xs.iter().zip(&sig).map(|(&x, &s)| 0.2 * prior.pdf(x) * n(x, s).pdf(y)).sum::<f64>())
        .collect();
    let mass: f64 = fy.iter().sum::<f64>() * 0.05;
    assert!((mass - 1.0).abs() < 1e-3, "{mass}");
    let gamma = eps.exp();
    let mut report = Vec::new();
    for (i, &x) in xs.iter().enumerate().filter(|(_, &x)| [0.0, 5.0, 10.0, 15.0].iter().any(|v| (x - v).abs() < 1e-6)) {
        let f = n(x, sig[i]);
        let (mut e1, mut e2) = (0.0, 0.0);
        for (&y, &g) in ys.iter().zip(&fy) {
            let g = g / mass;
            e1 += (f.pdf(y) - gamma * g).max(0.0) * 0.05;
            e2 += (g - gamma * f.pdf(y)).max(0.0) * 0.05;
        }
        let true_delta = (e1 / gamma).max(e2);
        report.push((x, sig[i], true_delta));
    }
    eprintln!("Cor 10 (ε=1, target δ=1e-4, μ=0, σ_X=5): (x, σ_N(x), true δ) = {report:?}");
    // Pinned finding: the true output density is a heavy-tailed mixture, far wider than
    // the N(μ, σ_X² + σ_N(x)²) Cor 10 assumes, and the δ users get is 60× to 1200× the
    // target at every x checked.
    assert!(report.iter().all(|r| r.2 > 50.0 * target), "{report:?}");
}

#[test]
fn mixture_bound_of_lemma2_holds_and_is_loose_for_separated_components() {
    let (a, b) = (n(-10.0, 2.0), n(10.0, 2.0));
    let mix = GaussianMixture::new(&[0.5, 0.5], &[a, b]).unwrap();
    let (eps, s, x) = (1.0, 4.0, -10.0);
    let bound = delta_at_mixture(eps, s, x, &mix).unwrap();
    // True δ by quadrature with the mixture's output density.
    let ya = n(-10.0, (4.0f64 + 16.0).sqrt());
    let yb = n(10.0, (4.0f64 + 16.0).sqrt());
    let fy = |y: f64| 0.5 * ya.pdf(y) + 0.5 * yb.pdf(y);
    let f = n(x, s);
    let gamma = eps.exp();
    let e1 = integrate(&|y| (f.pdf(y) - gamma * fy(y)).max(0.0), -120.0, 120.0, 0.01);
    let e2 = integrate(&|y| (fy(y) - gamma * f.pdf(y)).max(0.0), -120.0, 120.0, 0.01);
    let exact = (e1 / gamma).max(e2);
    eprintln!("GMM at x=-10: Lemma 2 bound {bound}, true δ {exact}");
    assert!(bound >= exact);
    assert!(bound > 0.9 && exact > 0.4, "the far component dominates: {bound} {exact}");
}

#[test]
fn sampling_prop2_against_discrete_priors() {
    for (eps, delta) in [(1.0, 0.01), (2.0, 1e-3), (0.5, 0.3)] {
        let l = sampling_lambda(eps, delta).unwrap();
        let atomless = sampling_delta(eps, l).unwrap();
        assert!(atomless <= delta);
        for k in [2usize, 10, 1000] {
            let p = vec![1.0 / k as f64; k];
            let d = sampling_delta_discrete(eps, l, &p).unwrap();
            assert!(d <= atomless + 1e-12, "atoms only help: {d} vs {atomless}");
            // Closed form for a uniform prior on k atoms, → the atomless δ as k → ∞.
            let kf = k as f64;
            let c1 = (-eps).exp() * (l - (eps.exp() - 1.0 + l) / kf).max(0.0);
            let c2 = (1.0 - 1.0 / kf) * (1.0 - eps.exp() * (1.0 - l)).max(0.0);
            assert!((d - c1.max(c2)).abs() < 1e-12, "k={k}: {d} vs {}", c1.max(c2));
        }
    }
}

#[test]
fn laplace_lip_scale_is_lip_and_needs_less_noise() {
    let mut rng = DeterministicRngForTesting::seed_from_u64(9);
    for _ in 0..200 {
        let k = 2 + (rng.next_u64() % 8) as usize;
        let mut p: Vec<f64> = (0..k).map(|_| 0.05 + uniform(&mut rng)).collect();
        let s: f64 = p.iter().sum();
        p.iter_mut().for_each(|v| *v /= s);
        let v: Vec<f64> = (0..k).map(|i| i as f64 + 0.5 * uniform(&mut rng)).collect();
        let eps = 0.05 + 4.0 * uniform(&mut rng);
        let sc = laplace_scales(&v, &p, Epsilon::positive("epsilon", eps).unwrap()).unwrap();
        assert!(sc.b_lip < sc.b_ldp && sc.b_lip <= sc.b_lip_eq25);
        let lip = laplace_lip(&v, &p, sc.b_lip).unwrap();
        assert!(lip.lip <= eps, "{lip:?} > {eps}");
        assert!(lip.min_lift >= (-eps).exp() * (1.0 - 1e-12) && lip.max_lift <= eps.exp() * (1.0 + 1e-12));
        // ΔX/ε is ε-LDP and so (a fortiori) ε-LIP, with room to spare.
        assert!(laplace_lip(&v, &p, sc.b_ldp).unwrap().lip < eps);
    }
    // Fig 10's prior {1/3 + s/2, 1/3, 1/3 − s/2}, s = 0.2.
    let p = [1.0 / 3.0 + 0.1, 1.0 / 3.0, 1.0 / 3.0 - 0.1];
    let sc = laplace_scales(&[0.0, 1.0, 2.0], &p, Epsilon::positive("epsilon", 1.0).unwrap()).unwrap();
    assert!(sc.b_lip < 0.86 * sc.b_ldp, "{sc:?}");
}

fn chi_square_test(name: &str, counts: &std::collections::BTreeMap<i64, u64>, pmf: &dyn Fn(i64) -> f64, n: u64) {
    // Bins: each z with expected count ≥ 20 on its own, the two tails pooled.
    let mut zs: Vec<i64> = Vec::new();
    let mut z = 0i64;
    while pmf(z) * n as f64 >= 20.0 {
        z += 1;
    }
    let reach = z - 1;
    zs.extend(-reach..=reach);
    let inner: f64 = zs.iter().map(|&z| pmf(z)).sum();
    let tail_p = (1.0 - inner) / 2.0;
    let mut stat = 0.0;
    for &z in &zs {
        let e = pmf(z) * n as f64;
        let o = *counts.get(&z).unwrap_or(&0) as f64;
        stat += (o - e).powi(2) / e;
    }
    for side in [-1i64, 1] {
        let o: u64 = counts.iter().filter(|(&k, _)| k * side > reach).map(|(_, &c)| c).sum();
        let e = tail_p * n as f64;
        stat += (o as f64 - e).powi(2) / e;
    }
    let df = (zs.len() + 1) as f64;
    let threshold = ChiSquared::new(df).unwrap().inverse_cdf(1.0 - 1e-4);
    eprintln!("{name}: χ² = {stat:.1} on {df} df, threshold {threshold:.1}");
    assert!(stat < threshold, "{name}: χ² = {stat} ≥ {threshold} ({df} df)");
}

#[test]
fn discrete_laplace_and_gaussian_match_their_pmfs() {
    const N: u64 = 1_000_000;
    let mut rng = DeterministicRngForTesting::seed_from_u64(77);
    let lap = DiscreteLaplace::new(7, 3).unwrap();
    let mut c = std::collections::BTreeMap::new();
    for _ in 0..N {
        *c.entry(lap.sample(&mut rng)).or_insert(0u64) += 1;
    }
    chi_square_test("discrete Laplace(7/3)", &c, &|z| lap.pmf(z), N);

    let gauss = DiscreteGaussian::new(20, 3).unwrap();
    let mut c = std::collections::BTreeMap::new();
    for _ in 0..N {
        *c.entry(gauss.sample(&mut rng)).or_insert(0u64) += 1;
    }
    chi_square_test("discrete Gaussian(σ²=20/3)", &c, &|z| gauss.pmf(z), N);

    // Small parameters too (σ < 1: proposal scale t = 1).
    let small = DiscreteGaussian::new(1, 4).unwrap();
    let mut c = std::collections::BTreeMap::new();
    for _ in 0..200_000 {
        *c.entry(small.sample(&mut rng)).or_insert(0u64) += 1;
    }
    chi_square_test("discrete Gaussian(σ²=1/4)", &c, &|z| small.pmf(z), 200_000);
}

#[test]
fn perturb_shifts_by_the_input_and_draws_the_same_words() {
    // The noise never depends on the input: same seed, different inputs → same offset.
    let g = DiscreteGaussian::with_variance_at_least(12.5).unwrap();
    for x in [-1000i64, 0, 5, 1 << 40] {
        let mut a = DeterministicRngForTesting::seed_from_u64(5);
        let mut b = DeterministicRngForTesting::seed_from_u64(5);
        let y = g.perturb(x, &mut a).unwrap();
        let z = g.sample(&mut b);
        assert_eq!(y - x, z);
        assert_eq!(a.next_u64(), b.next_u64(), "same number of words consumed");
    }
    // Overflow is a typed error, not a panic or a wrapped value.
    let seed = (0..100).find(|&k| g.sample(&mut DeterministicRngForTesting::seed_from_u64(k)) > 0).unwrap();
    let e = g.perturb(i64::MAX, &mut DeterministicRngForTesting::seed_from_u64(seed)).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
}

#[test]
fn no_floating_point_on_the_sampling_path() {
    let src = include_str!("../../src/sample/discrete.rs");
    let start = src.find("// BEGIN INTEGER SAMPLING").expect("marker");
    let end = src.find("// END INTEGER SAMPLING").expect("marker");
    let body = &src[start..end];
    for banned in ["f64", "f32", "libm", " as f"] {
        assert!(!body.contains(banned), "`{banned}` on the sampling path");
    }
    // The public sample/perturb methods only call the integer functions.
    for method in src.split("pub fn sample<").skip(1).chain(src.split("pub fn perturb<").skip(1)) {
        let body = &method[..method.find("\n    }\n").unwrap()];
        assert!(!body.contains("f64") && !body.contains("libm"), "{body}");
    }
}
