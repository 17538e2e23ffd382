//! Leakage measures against values computed by hand, and the binary example of
//! Jiang et al. (Example 1).

use super::*;
use alloc::vec;
use alloc::vec::Vec;
use lift::UNDERFLOW_THRESHOLD;

fn bsc(q: f64) -> Matrix {
    Matrix::from_flat(2, 2, vec![1.0 - q, q, q, 1.0 - q])
}

/// Upper bounds may exceed the exact value by rounding slack only.
fn assert_upper(actual: f64, exact: f64) {
    assert!(actual >= exact, "upper bound {actual} is below the exact value {exact}");
    assert!(actual - exact <= 1e-12 * exact.abs().max(1.0), "{actual} vs exact {exact}");
}

fn assert_lower(actual: f64, exact: f64) {
    assert!(actual <= exact, "lower bound {actual} is above the exact value {exact}");
    assert!(exact - actual <= 1e-12 * exact.abs().max(1.0), "{actual} vs exact {exact}");
}

/// Binary symmetric RR with q = 0.1 and P_X(1) = 0.2. By hand:
/// P_Y(1) = 13/50, P_Y(0) = 37/50; lifts l(0,0) = 45/37, l(1,0) = 5/37,
/// l(0,1) = 5/13, l(1,1) = 45/13 (secret index 0 is x = 0 with prior 0.8).
#[test]
fn binary_rr_every_measure_by_hand() {
    let l = audit(&Matrix::diag(&[0.8, 0.2]), &bsc(0.1), 2.0).unwrap();
    let ln = libm::log;
    assert_upper(l.alip.eps_u, ln(45.0 / 13.0));
    assert_upper(l.alip.eps_l, ln(37.0 / 5.0));
    assert_upper(l.lip, ln(37.0 / 5.0));
    assert_upper(l.ldp, ln(9.0));
    assert_upper(l.ldp_x, ln(9.0));
    assert_upper(l.max_lift, 45.0 / 13.0);
    assert_lower(l.min_lift, 5.0 / 37.0);
    // ℓ1: y=1 gives 0.8·8/13 + 0.2·32/13 = 12.8/13 (y=0 gives 12.8/37).
    assert_upper(l.l1_lift, 12.8 / 13.0);
    // χ²: (0.8·64 + 0.2·1024)/169 = 256/169.
    assert_upper(l.chi2_lift, 256.0 / 169.0);
    // α = 2: sqrt(0.8·25 + 0.2·2025)/13 = sqrt(425)/13.
    assert_upper(l.alpha_lift, libm::sqrt(425.0) / 13.0);
    // Inverse measures: ℓ1 is 64/45 for both outputs.
    assert_upper(l.l1_lift_inverse, 64.0 / 45.0);
    // χ² inverse at y=0: 0.8·(8/45)² + 0.2·(32/5)².
    assert_upper(l.chi2_lift_inverse, 0.8 * 64.0 / 2025.0 + 0.2 * 1024.0 / 25.0);
    // α inverse at y=0: 37·sqrt(0.8/2025 + 0.2/25).
    assert_upper(l.alpha_lift_inverse, 37.0 * libm::sqrt(0.8 / 2025.0 + 0.2 / 25.0));
    // Maximal leakage ln(2·0.9) and I(X;Y) = H(Y) − H(q).
    assert_upper(l.maximal_leakage, ln(1.8));
    let h = |p: &[f64]| -p.iter().map(|&v| v * ln(v)).sum::<f64>();
    let mi = h(&[0.26, 0.74]) - h(&[0.1, 0.9]);
    assert!((l.mi_xy - mi).abs() < 1e-14 && (l.mi_sy - mi).abs() < 1e-14);
}

/// Jiang et al. Example 1 prints, for the binary mechanism P(Y≠X) = q,
/// L_LDP = max ln{q/(1−q), (1−q)/q} and
/// L_LIP = max{P_Y(1)/q, P_Y(1)/(1−q), P_Y(0)/q, P_Y(0)/(1−q)}.
///
/// The printed L_LIP omits the logarithm of eq 8 and lists only the ratios P_Y(y)/P(y|x),
/// i.e. the *inverse* lifts; the lifts P(y|x)/P_Y(y) are missing. It is nevertheless
/// right after taking the log: P_Y(1) = q + P(1 − 2q) lies in [min(q,1−q), max(q,1−q)],
/// so P_Y(0)·P_Y(1) ≥ q(1−q) and the largest inverse lift always dominates the largest
/// lift. We pin: eq 8 = ln(printed max) on a grid of priors and q, LDP as printed, and
/// L_LIP = ∞ at q = 0.
#[test]
fn jiang_example_1_binary_mechanism() {
    for &p in &[0.01, 0.2, 0.5, 0.7, 0.99] {
        for &q in &[0.05, 0.1, 0.25, 0.4, 0.6, 0.9] {
            let l = audit(&Matrix::diag(&[1.0 - p, p]), &bsc(q), 2.0).unwrap();
            let py1 = p * (1.0 - q) + (1.0 - p) * q;
            let py0 = 1.0 - py1;
            let printed = [py1 / q, py1 / (1.0 - q), py0 / q, py0 / (1.0 - q)].into_iter().fold(0.0f64, f64::max);
            assert!((l.lip - libm::log(printed)).abs() < 1e-12, "P={p} q={q}: {} vs {}", l.lip, libm::log(printed));
            let ldp = libm::log(q / (1.0 - q)).max(libm::log((1.0 - q) / q));
            assert!((l.ldp - ldp).abs() < 1e-12 && l.ldp >= ldp);
            // ε-LIP ≤ ε-LDP (LDP implies LIP with the same ε).
            assert!(l.lip <= l.ldp + 1e-12);
        }
    }
    let l = audit(&Matrix::diag(&[0.5, 0.5]), &bsc(0.0), 2.0).unwrap();
    assert_eq!(l.lip, f64::INFINITY);
    assert_eq!(l.ldp, f64::INFINITY);
}

/// A secret S ≠ X: S = 0 ↔ X ∈ {0,1}, S = 1 ↔ X = 2, with an exactly representable
/// joint and channel so every value is a small fraction.
#[test]
fn secret_distinct_from_x_by_hand() {
    // P_SX rows s: s0 = (0.25, 0.25, 0), s1 = (0, 0, 0.5).
    let p_sx = Matrix::from_flat(2, 3, vec![0.25, 0.25, 0.0, 0.0, 0.0, 0.5]);
    // Channel: x0 → (0.5, 0.5), x1 → (0.5, 0.5), x2 → (0.25, 0.75).
    let w = Matrix::from_flat(3, 2, vec![0.5, 0.5, 0.5, 0.5, 0.25, 0.75]);
    let l = audit(&p_sx, &w, 2.0).unwrap();
    // P(y|s0) = (0.5, 0.5), P(y|s1) = (0.25, 0.75), P_Y = (0.375, 0.625).
    // Lifts: y0: 4/3, 2/3; y1: 4/5, 6/5.
    assert_upper(l.max_lift, 4.0 / 3.0);
    assert_lower(l.min_lift, 2.0 / 3.0);
    assert_upper(l.alip.eps_u, libm::log(4.0 / 3.0));
    assert_upper(l.alip.eps_l, libm::log(3.0 / 2.0));
    assert_upper(l.lip, libm::log(1.5));
    assert_upper(l.ldp, libm::log(2.0)); // y0: 0.5 / 0.25
    assert_upper(l.ldp_x, libm::log(2.0));
    // ℓ1 at y0: 0.5·(1/3) + 0.5·(1/3) = 1/3; at y1: 0.5·0.2+0.5·0.2 = 0.2.
    assert_upper(l.l1_lift, 1.0 / 3.0);
    // Linkage inequality (Jiang et al. Lemma 1.5): LIP w.r.t. S ≤ LIP w.r.t. X.
    let px = p_sx.col_sums();
    let lx = audit(&Matrix::diag(&px), &w, 2.0).unwrap();
    assert!(l.lip <= lx.lip);
}

#[test]
fn zero_probabilities_give_infinite_leakage_and_impossible_outputs_are_ignored() {
    // Output 2 is never produced: it must not create infinite leakage.
    let w = Matrix::from_flat(2, 3, vec![0.75, 0.25, 0.0, 0.25, 0.75, 0.0]);
    let l = audit(&Matrix::diag(&[0.5, 0.5]), &w, 2.0).unwrap();
    assert!(l.lip.is_finite() && l.ldp_x.is_finite());
    // A zero inside a produced column: LDP, LIP, εl and lift-inverse measures are infinite.
    let w = Matrix::from_flat(2, 2, vec![1.0, 0.0, 0.5, 0.5]);
    let l = audit(&Matrix::diag(&[0.5, 0.5]), &w, 2.0).unwrap();
    assert_eq!(l.ldp, f64::INFINITY);
    assert_eq!(l.ldp_x, f64::INFINITY);
    assert_eq!(l.lip, f64::INFINITY);
    assert_eq!(l.alip.eps_l, f64::INFINITY);
    assert_eq!(l.min_lift, 0.0);
    assert_eq!(l.l1_lift_inverse, f64::INFINITY);
    assert_eq!(l.alpha_lift_inverse, f64::INFINITY);
    assert!(l.alip.eps_u.is_finite() && l.l1_lift.is_finite());
    // A secret with prior 0 is ignored, but LDP w.r.t. X still protects that input.
    let w = Matrix::from_flat(2, 2, vec![1.0, 0.0, 0.5, 0.5]);
    let l = audit(&Matrix::diag(&[0.0, 1.0]), &w, 2.0).unwrap();
    assert!(l.lip < 1e-12);
    assert_eq!(l.ldp_x, f64::INFINITY);
}

#[test]
fn independent_output_leaks_nothing() {
    let w = Matrix::from_flat(3, 2, vec![0.3, 0.7, 0.3, 0.7, 0.3, 0.7]);
    let l = audit(&Matrix::diag(&[0.2, 0.3, 0.5]), &w, 3.0).unwrap();
    for v in [l.lip, l.ldp, l.ldp_x, l.mi_xy, l.l1_lift, l.chi2_lift, l.maximal_leakage] {
        assert!(v < 1e-12, "{l:?}");
    }
    assert!((l.alpha_lift - 1.0).abs() < 1e-12);
}

#[test]
fn bad_alpha_order_is_rejected() {
    for a in [1.0, 0.0, -2.0, f64::NAN, f64::INFINITY] {
        let e = audit(&Matrix::diag(&[0.5, 0.5]), &bsc(0.25), a).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
    }
    let e = audit(&Matrix::diag(&[0.5, 0.5]), &Matrix::from_flat(3, 2, vec![0.5; 6]), 2.0).unwrap_err();
    assert_eq!(e.code(), "dimension_mismatch");
}

/// Naive reference implementation (no rounding control) to compare on random instances.
fn naive_lip_ldp(p_sx: &Matrix, w: &Matrix) -> (f64, f64, f64, f64) {
    let (ns, nx, ny) = (p_sx.rows(), p_sx.cols(), w.cols());
    let ps: Vec<f64> = (0..ns).map(|s| p_sx.row(s).iter().sum()).collect();
    let mut pys = vec![0.0; ns * ny];
    for s in 0..ns {
        for x in 0..nx {
            for y in 0..ny {
                pys[s * ny + y] += p_sx.get(s, x) * w.get(x, y) / ps[s];
            }
        }
    }
    let (mut lip, mut ldp, mut eu, mut el) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for y in 0..ny {
        let py: f64 = (0..ns).map(|s| ps[s] * pys[s * ny + y]).sum();
        let (mut hi, mut lo) = (0.0f64, f64::INFINITY);
        for s in 0..ns {
            let l = pys[s * ny + y] / py;
            lip = lip.max(libm::log(l).abs());
            eu = eu.max(libm::log(l));
            el = el.max(-libm::log(l));
            hi = hi.max(pys[s * ny + y]);
            lo = lo.min(pys[s * ny + y]);
        }
        ldp = ldp.max(libm::log(hi / lo));
    }
    (lip, ldp, eu, el)
}

#[test]
fn random_instances_agree_with_naive_reference_and_round_up() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2024);
    for _ in 0..300 {
        let ns = rng.random_range(1..5);
        let nx = rng.random_range(1..7);
        let ny = rng.random_range(1..7);
        let mut j: Vec<f64> = (0..ns * nx).map(|_| rng.random::<f64>() + 1e-3).collect();
        let t: f64 = j.iter().sum();
        j.iter_mut().for_each(|v| *v /= t);
        let mut w: Vec<f64> = (0..nx * ny).map(|_| rng.random::<f64>() + 1e-3).collect();
        for r in w.chunks_mut(ny) {
            let t: f64 = r.iter().sum();
            r.iter_mut().for_each(|v| *v /= t);
        }
        let p_sx = Matrix::from_flat(ns, nx, j);
        let w = Matrix::from_flat(nx, ny, w);
        let l = audit(&p_sx, &w, 2.0).unwrap();
        let (lip, ldp, eu, el) = naive_lip_ldp(&p_sx, &w);
        for (ours, naive) in [(l.lip, lip), (l.ldp, ldp), (l.alip.eps_u, eu), (l.alip.eps_l, el)] {
            assert!(ours >= naive, "audited {ours} below naive {naive}");
            assert!(ours - naive < 1e-12, "audited {ours} too far above naive {naive}");
        }
        assert!((l.lip - l.alip.eps_l.max(l.alip.eps_u)).abs() == 0.0);
        // ε-LDP w.r.t. S ≤ w.r.t. X (a mixture of rows cannot widen the ratio) and LIP ≤ LDP.
        assert!(l.ldp <= l.ldp_x + 1e-12);
        assert!(l.lip <= l.ldp + 1e-12);
        assert!(l.mi_sy <= l.mi_xy + 1e-12, "data processing");
    }
}

/// Fuzzer finding F8: a product in the subnormal range has an absolute, not relative,
/// rounding error. Here P(x0, y1) = a·w01 ≈ 2e-321 and P(x0)·P(y1) ≈ 2.9e-323 are
/// subnormal; the computed l(x0, y1) was 67.67 against an exact w01/P(y1) ≈ 69.28, so
/// `max_lift` (67.67·(1 + γ)) was below the exact maximum. The audit now reports the
/// underflow as infinite leakage.
#[test]
fn subnormal_products_give_infinite_leakage() {
    let (a, w01, w11) = (1.2652261275230154e-160, 1.585279814726322e-161, 2.288371277020083e-163);
    let w = Matrix::from_flat(2, 2, vec![1.0 - w01, w01, 1.0 - w11, w11]);
    let l = audit(&Matrix::diag(&[a, 1.0 - a]), &w, 2.0).unwrap();
    // P(y1) = a·w01 + (1 − a)·w11 = w11·(1 + 6e-157): the exact lift is w01/w11 to 1e-156.
    let exact = w01 / w11;
    assert!(l.max_lift >= exact, "max_lift {} below the exact lift {exact}", l.max_lift);
    assert_eq!(l.lip, f64::INFINITY);
    assert_eq!((l.alip.eps_l, l.alip.eps_u, l.min_lift), (f64::INFINITY, f64::INFINITY, 0.0));
    // Without tiny products the same channel audits finitely.
    assert!(audit(&Matrix::diag(&[0.5, 0.5]), &w, 2.0).unwrap().lip.is_finite());
}

/// `lip_only` is the `lip` of the full audit, bit for bit, on random joints and channels
/// (zeros included).
#[test]
fn lip_only_is_the_audits_lip() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for _ in 0..300 {
        let (ns, nx, ny) = (rng.random_range(1..5), rng.random_range(1..6), rng.random_range(1..6));
        let mut j: Vec<f64> =
            (0..ns * nx).map(|_| if rng.random_bool(0.2) { 0.0 } else { rng.random::<f64>() }).collect();
        let t: f64 = j.iter().sum();
        if t == 0.0 {
            continue;
        }
        j.iter_mut().for_each(|v| *v /= t);
        let mut w = Vec::new();
        for _ in 0..nx {
            let mut r: Vec<f64> =
                (0..ny).map(|_| if rng.random_bool(0.2) { 0.0 } else { rng.random::<f64>() + 0.01 }).collect();
            if r.iter().sum::<f64>() == 0.0 {
                r[0] = 1.0;
            }
            let t: f64 = r.iter().sum();
            w.extend(r.iter().map(|v| v / t));
        }
        let (p_sx, ch) = (Matrix::from_flat(ns, nx, j), Matrix::from_flat(nx, ny, w));
        assert_eq!(lip_only(&p_sx, &ch).unwrap().to_bits(), audit(&p_sx, &ch, 2.0).unwrap().lip.to_bits());
    }
}

/// P(s,y) summed the plain way (s, then x, then y): what the x-outermost, four-secrets-at-a-
/// time accumulation of [`JointSY::markov`] must equal bit for bit, with the same P(s),
/// support, underflow flag and rounding counts.
#[test]
fn markov_accumulation_matches_the_plain_loop_bit_for_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(77);
    let mut underflows = 0;
    for _ in 0..200 {
        let (ns, nx, ny) = (rng.random_range(1..11), rng.random_range(1..9), rng.random_range(1..7));
        let sparse = rng.random_range(0.0..0.7);
        // Some entries tiny, so that products underflow in some instances.
        let cell = |rng: &mut rand_chacha::ChaCha8Rng| match rng.random_range(0.0..1.0) {
            u if u < sparse => 0.0,
            u if u < sparse + 0.05 => 1e-160 * rng.random::<f64>(),
            _ => rng.random::<f64>(),
        };
        let p_sx = Matrix::from_flat(ns, nx, (0..ns * nx).map(|_| cell(&mut rng)).collect());
        let w = Matrix::from_flat(nx, ny, (0..nx * ny).map(|_| cell(&mut rng)).collect());
        let j = JointSY::markov(&p_sx, &w);
        let mut p_sy = vec![0.0; ns * ny];
        let (mut p_s, mut support, mut widest) = (vec![0.0; ns], vec![false; ny], 1);
        for s in 0..ns {
            widest = widest.max(p_sx.row(s).iter().filter(|&&v| v != 0.0).count());
            for x in (0..nx).filter(|&x| p_sx.get(s, x) != 0.0) {
                p_s[s] += p_sx.get(s, x);
                for y in 0..ny {
                    p_sy[s * ny + y] += p_sx.get(s, x) * w.get(x, y);
                    support[y] |= w.get(x, y) > 0.0;
                }
            }
        }
        // Underflow: some product P(s,x)·P(y|x) > 0, or some denominator P(s)·P(y) of a
        // possible output, below the threshold.
        let mut under = false;
        for s in 0..ns {
            for x in (0..nx).filter(|&x| p_sx.get(s, x) != 0.0) {
                under |= (0..ny).any(|y| w.get(x, y) > 0.0 && p_sx.get(s, x) * w.get(x, y) < UNDERFLOW_THRESHOLD);
            }
        }
        let p_y: Vec<f64> = (0..ny).map(|y| (0..ns).fold(0.0, |a, s| a + p_sy[s * ny + y])).collect();
        for s in (0..ns).filter(|&s| p_s[s] > 0.0) {
            under |= (0..ny).any(|y| support[y] && p_s[s] * p_y[y] < UNDERFLOW_THRESHOLD);
        }
        assert_eq!(j.underflowed(), under);
        underflows += usize::from(under);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&j.p_y), bits(&p_y));
        assert_eq!(bits(&j.cells()), bits(&p_sy));
        assert_eq!(bits(&j.p_s), bits(&p_s));
        assert_eq!(j.support_y, support);
        assert_eq!(j.lift_roundings, 2 * (nx + 2 + ns) + 4 + (widest - 1));
        // The row-major extremes read the same lifts as the column-by-column default.
        let mut e = Extremes::NONE;
        let mut terms = Vec::new();
        for y in 0..ny {
            terms.clear();
            if j.column(y, &mut terms) && !terms.is_empty() {
                let (hi, lo) = terms.iter().fold((0.0f64, f64::INFINITY), |(h, l), t| (h.max(t.cond), l.min(t.cond)));
                e.worst_ratio = e.worst_ratio.max(columns::ratio(hi, lo));
                terms.iter().for_each(|t| (e.min_lift, e.max_lift) = (e.min_lift.min(t.lift), e.max_lift.max(t.lift)));
            }
        }
        assert_eq!(j.extremes(), e);
    }
    assert!((20..180).contains(&underflows), "{underflows} of 200 instances underflowed");
}

/// The joint of S = X read from the channel ([`JointSY::diagonal`]) is the Markov joint of
/// diag(prior) bit for bit: every P(s,y), marginal, lift, posterior, extreme, rounding
/// count and underflow flag, on channels with zeros and products that underflow.
#[test]
fn the_diagonal_joint_is_the_markov_joint_of_the_diagonal_bit_for_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(78);
    let mut underflows = 0;
    for _ in 0..200 {
        let (nx, ny) = (rng.random_range(1..12), rng.random_range(1..9));
        let cell = |rng: &mut rand_chacha::ChaCha8Rng| match rng.random_range(0.0..1.0) {
            u if u < 0.25 => 0.0,
            u if u < 0.3 => 1e-160 * rng.random::<f64>(),
            _ => rng.random::<f64>(),
        };
        let prior: Vec<f64> = (0..nx).map(|_| cell(&mut rng)).collect();
        let w = Matrix::from_flat(nx, ny, (0..nx * ny).map(|_| cell(&mut rng)).collect());
        let (d, m) = (JointSY::diagonal(&prior, &w), JointSY::markov(&Matrix::diag(&prior), &w));
        assert_same_joint(&d, &m);
        underflows += usize::from(d.underflowed());
    }
    assert!((20..180).contains(&underflows), "{underflows} of 200 instances underflowed");
}

/// Two joints are the same bit for bit: every P(s,y), marginal, lift, posterior, extreme,
/// rounding count and underflow flag.
fn assert_same_joint(d: &JointSY, m: &JointSY) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&d.cells()), bits(&m.cells()));
    assert_eq!((bits(&d.p_s), bits(&d.p_y)), (bits(&m.p_s), bits(&m.p_y)));
    assert_eq!(d.support_y, m.support_y);
    assert_eq!((d.roundings, d.lift_roundings, d.underflowed()), (m.roundings, m.lift_roundings, m.underflowed()));
    for (s, y) in (0..d.ns).flat_map(|s| (0..d.ny).map(move |y| (s, y))) {
        assert_eq!(d.lift(s, y).map(f64::to_bits), m.lift(s, y).map(f64::to_bits));
        assert_eq!(d.posterior(s, y).to_bits(), m.posterior(s, y).to_bits());
    }
    assert_eq!(d.extremes(), m.extremes());
}

/// A dense channel read from a sampler's weights ([`Exact::Quantised`]) audits as the
/// matrix of its exact probabilities ([`Exact::Dense`]) bit for bit: the joint of S = X,
/// every measure under S = X and under a declared joint, and a verification's narrower
/// scope; on rows with zeros, tiny entries and all the mass on one outcome.
#[test]
fn a_channel_read_from_its_weights_audits_as_its_matrix_bit_for_bit() {
    use crate::sample::QuantisedChannel;
    use alloc::{format, sync::Arc};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(79);
    for _ in 0..100 {
        let (nx, ny) = (rng.random_range(1..12), rng.random_range(1..9));
        let mut cell = |full: bool| match rng.random_range(0.0..1.0) {
            u if u < 0.25 || full => 0.0,
            u if u < 0.3 => 1e-160 * rng.random::<f64>(),
            _ => rng.random::<f64>(),
        };
        let mut data = Vec::new();
        for x in 0..nx {
            let mut row: Vec<f64> = (0..ny).map(|_| cell(x % 4 == 1)).collect();
            if row.iter().all(|&v| v == 0.0) {
                row[x % ny] = 0.5;
            }
            data.extend(row);
        }
        let prior: Vec<f64> = (0..nx).map(|x| if x % 3 == 2 { 0.0 } else { 1.0 }).collect();
        let total: f64 = prior.iter().sum();
        let prior: Vec<f64> = prior.iter().map(|p| p / total).collect();
        let q = Arc::new(QuantisedChannel::new(nx, ny, &data).unwrap());
        let (weights, dense) = (Exact::Quantised(Arc::clone(&q)), Exact::Dense(Exact::Quantised(q.clone()).to_dense()));
        match (joint_of(None, &prior, &weights), joint_of(None, &prior, &dense)) {
            (Joint::Dense(a), Joint::Dense(b)) => assert_same_joint(&a, &b),
            _ => panic!("a dense channel's joint is dense"),
        }
        let p_sx = Matrix::from_flat(2, nx, (0..2 * nx).map(|i| if i % 2 == 0 { prior[i / 2] } else { 0.0 }).collect());
        let narrow = Scope { lift_measures: false, information: false };
        for (joint, scope) in [(None, Scope::ALL), (Some(&p_sx), Scope::ALL), (None, narrow), (Some(&p_sx), narrow)] {
            let [a, b] = [&weights, &dense]
                .map(|ch| format!("{:?}", measure(&joint_of(joint, &prior, ch), joint, &prior, ch, 2.0, scope, None)));
            assert_eq!(a, b);
        }
        let [a, b] = [&weights, &dense].map(|ch| format!("{:?}", audit_exact(None, &prior, ch, 3.0)));
        assert_eq!(a, b);
    }
}

/// `Leakage::members` names every field as serde writes it, in declaration order, with its
/// value: what the CLI's `audit` and the JS results print.
#[test]
fn members_are_the_serialized_fields_in_order() {
    let l = audit(&Matrix::diag(&[0.8, 0.2]), &bsc(0.1), 2.0).unwrap();
    let text = serde_json::to_string(&l).unwrap();
    let members = l.members();
    let mut written = alloc::string::String::from("{");
    for (i, (name, member)) in members.iter().enumerate() {
        let value = match member {
            Member::Number(v) => serde_json::to_string(v).unwrap(),
            Member::Alip(a) => serde_json::to_string(a).unwrap(),
        };
        written += &alloc::format!("{}\"{name}\":{value}", if i == 0 { "" } else { "," });
    }
    written += "}";
    assert_eq!(written, text);
    assert_eq!(members.len(), Leakage::MEMBERS);
}
