//! Continuous documents on a lattice: parsing and validation, the exact lattice audit
//! (against the continuous calculators), verification, perturbation, receipts, designs.
//! Run with `cargo test --test continuous_doc`.

use privlift::document::{ContinuousClaims, ContinuousDocument, ContinuousMechanism, DomainJson, EpsDelta, PriorJson};
use privlift::mechanism::ContinuousPolicy;
use privlift::param::{Budget, Delta, Epsilon};
use privlift::rng::DeterministicRngForTesting;
use privlift::{parse_any, AnyDocument};
use privlift_design::continuous as real;
use privlift_design::continuous::design::{design_continuous, ContinuousRequest, CONTINUOUS_METHODS};
use privlift_design::continuous::{ContinuousPrior, Gaussian, GaussianMixture, Lattice, LatticeMechanism};
// The continuous module, its calculators over plain numbers validated as a caller does.
#[path = "../src/continuous/shims.rs"]
mod cont;
use statrs::distribution::{ChiSquared, ContinuousCDF};

fn gauss() -> PriorJson {
    PriorJson::Gaussian { mean: 0.0, sd: 1.0 }
}
fn gmm() -> PriorJson {
    PriorJson::Gmm { weights: vec![0.3, 0.7], means: vec![-2.0, 1.5], sds: vec![0.5, 1.0] }
}
fn hist() -> PriorJson {
    PriorJson::Histogram { edges: vec![-5.0, -1.0, 0.0, 2.0, 5.0], p: vec![0.1, 0.4, 0.3, 0.2] }
}

fn req(method: &str, prior: PriorJson, dom: DomainJson, eps: f64, delta: f64) -> ContinuousRequest {
    ContinuousRequest {
        method: method.into(),
        domain: dom,
        prior,
        epsilon: Epsilon::positive("epsilon", eps).unwrap(),
        delta,
        id: None,
        max_verify_work: None,
    }
}

/// [`req`] for clients that verify whatever it costs (1001 and 4096 Gaussian points).
fn unbudgeted(method: &str, prior: PriorJson, dom: DomainJson, eps: f64, delta: f64) -> ContinuousRequest {
    ContinuousRequest { max_verify_work: Some(f64::INFINITY), ..req(method, prior, dom, eps, delta) }
}

/// An (ε, δ) of nats.
fn eps_delta(eps: f64, delta: f64) -> EpsDelta {
    EpsDelta { eps: Budget::finite("eps", eps).unwrap(), delta: Delta::new("delta", delta).unwrap() }
}

/// The policy of such clients.
fn no_budget() -> ContinuousPolicy {
    ContinuousPolicy { max_verify_work: Some(f64::INFINITY), ..ContinuousPolicy::default() }
}

fn doc(json: &str) -> privlift::Result<ContinuousDocument> {
    ContinuousDocument::from_json(json)
}

const GAUSS_DOC: &str = r#"{
  "format": "privlift-mechanism", "version": 1, "id": "g",
  "domain": {"lo": -4, "hi": 4, "step": 0.04},
  "prior": {"gaussian": {"mean": 0, "sd": 1}},
  "mechanism": {"kind": "gaussian", "sigma": 3.0},
  "claims": {"lip": {"eps": 1.0, "delta": 0.3}}
}"#;

#[test]
fn every_design_audits_within_its_claims() {
    let d1 = DomainJson { lo: -4.0, hi: 4.0, step: 0.04 };
    let d2 = DomainJson { lo: -5.0, hi: 5.0, step: 0.05 };
    for (prior, dom) in [(gauss(), d1), (gmm(), d2), (hist(), d2)] {
        for (eps, delta) in [(0.5, 1e-6), (1.0, 1e-3), (2.0, 1e-6)] {
            {
                for m in CONTINUOUS_METHODS {
                    if m == "gaussian-lip-instance" && matches!(prior, PriorJson::Histogram { .. }) {
                        continue;
                    }
                    let d = design_continuous(&req(m, prior.clone(), dom, eps, delta))
                        .unwrap_or_else(|e| panic!("{m} {eps} {delta}: {e}"));
                    // Published, re-read and verified as a client would; the hand-written
                    // JSON is serde_json's pretty printing, byte for byte.
                    assert_eq!(d.to_json(), serde_json::to_string_pretty(&d.to_wire()).unwrap(), "{m}");
                    let back = doc(&d.to_json()).unwrap();
                    assert_eq!(back, d);
                    let v = back.verify(&ContinuousPolicy::default()).unwrap_or_else(|e| panic!("{m}: {e}"));
                    assert!(v.verification().claims_hold);
                }
            }
        }
    }
}

#[test]
fn gaussian_lip_sigma_is_nearly_minimal_and_lattice_matches_the_continuous_calibration() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.008 };
    let d = design_continuous(&unbudgeted("gaussian-lip", gauss(), dom, 1.0, 1e-5)).unwrap();
    let ContinuousMechanism::Gaussian { sigma } = d.mechanism() else { panic!() };
    let s = sigma[0];
    let l = *d.lattice();
    let p = d.lattice_prior().to_vec();
    let lower = LatticeMechanism::gaussian(l, p, &[s * (1.0 - 3e-4)])
        .unwrap()
        .lip_delta(Epsilon::new("epsilon", 1.0).unwrap())
        .unwrap();
    assert!(lower > 1e-5, "{lower}");
    // Measured: 15.3593 (continuous, Thm 5 on the domain) vs 15.359 (lattice, step 0.008).
    let c = cont::calibrate_on_domain(1.0, 1e-5, &Gaussian::new(0.0, 1.0).unwrap().into(), -4.0, 4.0).unwrap();
    assert!((s / c.sigma_n - 1.0).abs() < 1e-3, "{s} vs {}", c.sigma_n);
}

/// In the limit of a fine step the lattice δ approaches the continuous δ of Thm 5 on the
/// domain (for a prior with negligible mass outside it).
#[test]
fn lattice_delta_converges_to_the_continuous_delta() {
    let prior = Gaussian::new(0.0, 1.0).unwrap();
    for (eps, sigma) in [(1.0, 3.0), (0.5, 6.0), (2.0, 1.5)] {
        let cont_d = cont::delta_on_domain(eps, sigma, &prior.into(), -8.0, 8.0).unwrap();
        let mut errs = Vec::new();
        for step in [0.1, 0.02, 0.01] {
            let l = Lattice::new(-8.0, 8.0, step).unwrap();
            let p = ContinuousPrior::Gaussian(prior).lattice_pmf(&l).unwrap();
            let d = LatticeMechanism::gaussian(l, p, &[sigma])
                .unwrap()
                .lip_delta(Epsilon::new("epsilon", eps).unwrap())
                .unwrap();
            errs.push((d - cont_d).abs() / cont_d);
        }
        // Measured: ≤ 2.3e-5 at step 0.1, ≤ 6.1e-7 at step 0.01 (and ≤ 4e-8 at 0.004).
        assert!(errs[0] < 1e-4 && errs[2] < 2e-6, "{eps} {sigma}: relative errors {errs:?}");
        assert!(errs[2] <= errs[0] + 1e-12, "{errs:?}");
    }
}

/// Discrete Laplace on the lattice has exactly the lift of the continuous Laplace at the
/// lattice values (the extremes of the continuous lift are at the values): the lattice
/// audit equals `laplace_lip` for the same b (the sampler's rational scale).
#[test]
fn lattice_laplace_equals_the_closed_form() {
    let l = Lattice::new(0.0, 10.0, 0.5).unwrap();
    let p = ContinuousPrior::Mixture(
        GaussianMixture::new(&[0.5, 0.5], &[Gaussian::new(2.0, 1.5).unwrap(), Gaussian::new(7.0, 2.0).unwrap()])
            .unwrap(),
    )
    .lattice_pmf(&l)
    .unwrap();
    let m = LatticeMechanism::laplace(l, p.clone(), 3.0).unwrap();
    let (t, s) = m.laplace_scale().unwrap();
    let b = t as f64 / s as f64 * 0.5;
    let values: Vec<f64> = (0..l.len()).map(|k| l.value(k as i64)).collect();
    let exact = cont::laplace_lip(&values, &p, b).unwrap().lip;
    let lat = m.audit().unwrap().lip_eps;
    assert!(lat >= exact - 1e-12 && lat - exact < 1e-9, "{lat} vs {exact}");
    // The ratio is constant beyond the domain: the window [0, n−1] already holds the sup.
    let ln_ratio = |j: i64, k: usize| (m.p_given(j, k) / m.p_output(j)).ln().abs();
    for k in [0, 7, 20] {
        assert!((ln_ratio(-30, k) - ln_ratio(0, k)).abs() < 1e-9);
        assert!((ln_ratio(60, k) - ln_ratio(20, k)).abs() < 1e-9);
    }
    // δ at ε ≥ the pure ε is 0; below, positive; LDP pure = Δ/τ.
    assert!(m.lip_delta(Epsilon::new("epsilon", lat * 1.0001).unwrap()).unwrap() < 1e-12);
    assert!(m.lip_delta(Epsilon::new("epsilon", lat * 0.5).unwrap()).unwrap() > 1e-3);
    assert!((m.audit().unwrap().ldp_eps - 20.0 * s as f64 / t as f64).abs() < 1e-12);
}

/// The sampling mechanism on the lattice: atoms only help (δ ≤ Prop 2's atomless δ), and
/// the audit equals the discrete closed form `sampling_delta_discrete`.
#[test]
fn lattice_sampling_delta_is_below_the_atomless_value() {
    let l = Lattice::new(0.0, 1.0, 0.001).unwrap();
    let p = ContinuousPrior::Histogram(cont::Histogram::new(&[0.0, 1.0], &[1.0]).unwrap()).lattice_pmf(&l).unwrap();
    for (eps, delta) in [(1.0, 0.01), (0.5, 0.1), (2.0, 1e-4)] {
        let lambda = real::sampling_lambda(Epsilon::new("epsilon", eps).unwrap(), Delta::new("delta", delta).unwrap());
        let m = LatticeMechanism::sampling(l, p.clone(), lambda.unwrap()).unwrap();
        let d = m.lip_delta(Epsilon::new("epsilon", eps).unwrap()).unwrap();
        let exact = m.lambda().unwrap(); // λ rounded down to a multiple of 2⁻⁶⁴
        let atomless = real::sampling_delta(Epsilon::new("epsilon", eps).unwrap(), exact);
        let discrete = real::sampling_delta_discrete(Epsilon::new("epsilon", eps).unwrap(), exact, &p).unwrap();
        assert!(d <= atomless * (1.0 + 1e-9), "{d} vs {atomless}");
        assert!(d >= discrete && d - discrete < 1e-11, "{d} vs {discrete}");
    }
}

/// Cor 10's per-x σ evaluates f_Y as if every user used the same σ; the true mixture
/// output gives far more than the target δ. The design measures this and scales.
#[test]
fn cor10_sigma_misses_the_target_on_the_true_mixture() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.04 };
    let d = design_continuous(&req("gaussian-lip-instance", gauss(), dom, 1.0, 1e-4)).unwrap();
    let u = d.utility().unwrap();
    let true_delta = u["cor10_true_delta"].as_f64().unwrap();
    assert!(true_delta > 10.0 * 1e-4, "Cor 10's σ(x) really gives δ = {true_delta}");
    assert!(u["scale"].as_f64().unwrap() > 1.0);
    assert!(d.verify(&ContinuousPolicy::default()).is_ok());
}

#[test]
fn a_lying_document_is_refused() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.04 };
    for (m, lip) in [("gaussian-lip", true), ("laplace-lip", true), ("sampling", true), ("analytic-gaussian", false)] {
        let d = design_continuous(&req(m, gauss(), dom, 1.0, 1e-4)).unwrap();
        let c = *d.claims();
        let shrink = |e: EpsDelta| {
            if e.delta.get() > 0.0 {
                EpsDelta { eps: e.eps, delta: Delta::new("delta", e.delta.get() / 10.0).unwrap() }
            } else {
                EpsDelta { eps: Budget::finite("eps", e.eps.get() * 0.9).unwrap(), delta: Delta::ZERO }
            }
        };
        let lie = if lip {
            ContinuousClaims { lip: c.lip.map(shrink), ldp: None }
        } else {
            ContinuousClaims { lip: None, ldp: c.ldp.map(shrink) }
        };
        let bad = d.with_claims(lie).unwrap();
        let e = bad.verify(&ContinuousPolicy::default()).unwrap_err();
        assert_eq!(e.code(), "claim_violated", "{m}: {e}");
    }
    // Gaussian noise is never pure ε-LIP.
    let g = doc(&GAUSS_DOC.replace(r#""delta": 0.3"#, r#""delta": 0"#)).unwrap();
    assert_eq!(g.verify(&ContinuousPolicy::default()).unwrap_err().code(), "claim_violated");
    // No claim, and a policy stricter than the claim.
    let none = doc(&GAUSS_DOC.replace(r#""lip": {"eps": 1.0, "delta": 0.3}"#, "")).unwrap();
    assert_eq!(none.verify(&ContinuousPolicy::default()).unwrap_err().code(), "no_claims");
    let honest = doc(GAUSS_DOC).unwrap();
    let strict = ContinuousPolicy { lip: Some(eps_delta(1.0, 1e-9)), ..Default::default() };
    assert_eq!(honest.verify(&strict).unwrap_err().code(), "policy_violated");
}

/// `to_json` (written by hand for the client's size) against `serde_json::to_string_pretty`
/// of the same wire form, byte for byte: every prior and mechanism shape, with and without
/// description, claims and utility, and strings and numbers that need care (escapes,
/// control characters, non-ASCII, exponents, negative and large integers, empty containers).
#[test]
fn to_json_is_serde_jsons_pretty_printing() {
    let texts = [
        GAUSS_DOC.to_string(),
        GAUSS_DOC.replace(r#""id": "g","#, r#""id": "q\"\\\n\t\u0001\u001f\u007f é 日本 \ud83d\ude00", "description": "",
"#),
        GAUSS_DOC.replace(r#""sigma": 3.0"#, r#""sigma": [3.0, 0.001, 1e6, 12345, 0.1]"#).replace(r#""step": 0.04"#, r#""step": 2"#),
        GAUSS_DOC.replace(r#"{"kind": "gaussian", "sigma": 3.0}"#, r#"{"kind": "laplace", "b": 0.1}"#).replace(r#""claims": {"lip": {"eps": 1.0, "delta": 0.3}}"#, r#""claims": {}"#),
        GAUSS_DOC.replace(r#"{"kind": "gaussian", "sigma": 3.0}"#, r#"{"kind": "sampling", "lambda": 1}"#).replace(r#""claims": {"lip": {"eps": 1.0, "delta": 0.3}}"#, r#""claims": {"ldp": {"eps": 2}, "lip": {"eps": 1e-300, "delta": 0}}"#),
        GAUSS_DOC.replace(r#""claims": {"lip": {"eps": 1.0, "delta": 0.3}}"#, r#""claims": {"lip": {"eps": 1.0, "delta": 0.3}}, "utility": {"z": [], "a": {}, "n": [-3, 0, 18446744073709551615, -9223372036854775808, 1.5, -0.0, 1e-7, 1e300, 1e16, 2.5e-7, 123456789.125], "s": ["", "x\by\fz"], "t": [true, false, null, [[]], {"k": {"k": 1}}]}"#),
        GAUSS_DOC.replace(r#"{"gaussian": {"mean": 0, "sd": 1}}"#, r#"{"gmm": {"weights": [0.25, 0.75], "means": [-1, 1.5], "sds": [0.5, 2]}}"#),
        GAUSS_DOC.replace(r#"{"gaussian": {"mean": 0, "sd": 1}}"#, r#"{"histogram": {"edges": [-5, 0, 5], "p": [0.5, 0.5]}}"#),
    ];
    for text in &texts {
        let d = doc(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let serde = serde_json::to_string_pretty(&d.to_wire()).unwrap();
        assert_eq!(d.to_json(), serde);
        assert_eq!(doc(&d.to_json()).unwrap(), d);
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    let code = |s: &str| doc(s).unwrap_err().code();
    let with = |a: &str, b: &str| GAUSS_DOC.replace(a, b);
    assert_eq!(code(&with(r#""lo": -4"#, r#""lo": 4"#)), "invalid_argument");
    assert_eq!(code(&with(r#""step": 0.04"#, r#""step": 0.0001"#)), "too_many_symbols");
    assert_eq!(code(&with(r#""step": 0.04"#, r#""step": -1"#)), "invalid_argument");
    assert_eq!(code(&with(r#""sd": 1"#, r#""sd": -1"#)), "invalid_argument");
    assert_eq!(code(&with(r#""sigma": 3.0"#, r#""sigma": 0"#)), "invalid_argument");
    assert_eq!(code(&with(r#""sigma": 3.0"#, r#""sigma": [1, 2]"#)), "dimension_mismatch");
    assert_eq!(code(&with(r#""kind": "gaussian""#, r#""kind": "cauchy""#)), "unsupported_mechanism");
    assert_eq!(code(&with(r#""sigma": 3.0"#, r#""sigma": 3.0, "b": 1"#)), "json");
    // The mechanism object is read by hand: each refusal is `json` and names what is wrong.
    let message = |s: &str| doc(s).unwrap_err().to_string();
    let mech = |m: &str| with(r#"{"kind": "gaussian", "sigma": 3.0}"#, m);
    for (m, names) in [
        (r#"{"kind": "gaussian", "sigma": 3.0, "b": 1}"#, r#"unknown field "b""#),
        (r#"{"kind": "gaussian"}"#, "missing field `sigma`"),
        (r#"{"kind": "gaussian", "sigma": "3"}"#, "`mechanism.sigma`: expected a number"),
        (r#"{"kind": "gaussian", "sigma": [1, "2"]}"#, "`mechanism.sigma`: expected a number"),
        (r#"{"kind": "laplace", "sigma": 1}"#, r#"unknown field "sigma""#),
        (r#"{"kind": "laplace"}"#, "missing field `b`"),
        (r#"{"kind": "sampling", "lambda": null}"#, "`mechanism.lambda`: expected a number"),
        (r#"{"sigma": 3.0}"#, "`mechanism.kind` is missing"),
        (r#"{"kind": 3, "sigma": 3.0}"#, "`mechanism.kind` is missing or not a string"),
        (r#"[1]"#, "`mechanism.kind` is missing"),
    ] {
        assert_eq!(code(&mech(m)), "json", "{m}");
        assert!(message(&mech(m)).contains(names), "{m}: {}", message(&mech(m)));
    }
    let per_point = doc(&mech(r#"{"kind": "gaussian", "sigma": [3.0, 3.0]}"#));
    assert_eq!(per_point.unwrap_err().code(), "dimension_mismatch"); // read, then checked against the lattice
    assert!(doc(&mech(r#"{"kind": "laplace", "b": 2}"#)).is_ok());
    assert!(doc(&mech(r#"{"kind": "sampling", "lambda": 0.5}"#)).is_ok());
    // λ outside [0, 1] is refused where the document is read, naming the field.
    for m in [r#"{"kind": "sampling", "lambda": 1.5}"#, r#"{"kind": "sampling", "lambda": -0.25}"#] {
        assert_eq!(code(&mech(m)), "invalid_argument", "{m}");
        assert!(message(&mech(m)).contains("mechanism.lambda"), "{m}: {}", message(&mech(m)));
    }
    assert_eq!(code(&with(r#""delta": 0.3"#, r#""delta": 2"#)), "invalid_argument");
    assert_eq!(code(&with(r#""eps": 1.0"#, r#""eps": -1"#)), "invalid_argument");
    let gm = r#"{"gmm": {"weights": [0.5, 0.6], "means": [0, 1], "sds": [1, 1]}}"#;
    assert_eq!(code(&with(r#"{"gaussian": {"mean": 0, "sd": 1}}"#, gm)), "not_normalized");
    let gm = r#"{"gmm": {"weights": [0.5, 0.5], "means": [0], "sds": [1, 1]}}"#;
    assert_eq!(code(&with(r#"{"gaussian": {"mean": 0, "sd": 1}}"#, gm)), "dimension_mismatch");
    let h = r#"{"histogram": {"edges": [0, 0, 1], "p": [0.5, 0.5]}}"#;
    assert_eq!(code(&with(r#"{"gaussian": {"mean": 0, "sd": 1}}"#, h)), "invalid_argument");
    // A prior with no mass on the domain.
    assert_eq!(code(&with(r#""mean": 0"#, r#""mean": 1e6"#)), "invalid_argument");
    assert_eq!(Lattice::new(f64::NAN, 1.0, 0.1).unwrap_err().code(), "non_finite");
    let m = doc(GAUSS_DOC).unwrap().verify(&ContinuousPolicy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(1);
    assert_eq!(m.perturb(4.5, &mut rng).unwrap_err().code(), "unknown_value");
    assert_eq!(m.perturb(f64::NAN, &mut rng).unwrap_err().code(), "non_finite");
    assert_eq!(m.receipt(0.013, None).unwrap_err().code(), "unknown_output");
    let e = design_continuous(&req("gaussian-lip", gauss(), DomainJson { lo: 0.0, hi: 1.0, step: 0.1 }, 1.0, 0.0));
    assert_eq!(e.unwrap_err().code(), "invalid_argument");
    let e = design_continuous(&req("nope", gauss(), DomainJson { lo: 0.0, hi: 1.0, step: 0.1 }, 1.0, 0.1));
    assert_eq!(e.unwrap_err().code(), "invalid_argument");
}

#[test]
fn parse_any_dispatches_on_the_kind() {
    assert!(matches!(parse_any(GAUSS_DOC).unwrap(), AnyDocument::Continuous(_)));
    let discrete = r#"{"format": "privlift-mechanism", "version": 1, "id": "coin",
      "labels": ["no", "yes"], "prior": [0.7, 0.3],
      "mechanism": {"kind": "matrix", "p_y_given_x": [[0.75, 0.25], [0.25, 0.75]]},
      "claims": {"ldp_x": 1.0986122886681098}}"#;
    assert!(matches!(parse_any(discrete).unwrap(), AnyDocument::Discrete(_)));
    assert_eq!(privlift::Document::from_json(GAUSS_DOC).unwrap_err().code(), "json");
    assert_eq!(parse_any("{").unwrap_err().code(), "json");
}

/// Chi-square goodness of fit of 2·10⁵ releases against the audited P(j | k).
fn chi_square_fits(m: &privlift::mechanism::VerifiedContinuous, x: f64, seed: u64) {
    let lat = *m.document().lattice();
    let k = lat.index_of(x).unwrap();
    let n = 200_000usize;
    let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
    let mut counts = std::collections::BTreeMap::<i64, usize>::new();
    for _ in 0..n {
        let y = m.perturb(x, &mut rng).unwrap();
        let j = lat.output_index(y).unwrap();
        assert!((lat.value(j) - y).abs() == 0.0, "on the lattice");
        *counts.entry(j).or_default() += 1;
    }
    let s = m.sampler();
    let (lo, hi) = (-300i64, lat.len() as i64 + 300);
    let mut stat = 0.0;
    let mut cells = 0;
    let (mut pool_e, mut pool_o) = (0.0, 0.0);
    for j in lo..hi {
        let e = s.p_given(j, k) * n as f64;
        let o = *counts.get(&j).unwrap_or(&0) as f64;
        if e >= 5.0 {
            stat += (o - e) * (o - e) / e;
            cells += 1;
        } else {
            pool_e += e;
            pool_o += o;
        }
    }
    let outside: usize = counts.iter().filter(|(j, _)| **j < lo || **j >= hi).map(|(_, c)| c).sum();
    pool_o += outside as f64;
    if pool_e >= 5.0 {
        stat += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
        cells += 1;
    }
    let q = ChiSquared::new((cells - 1) as f64).unwrap().inverse_cdf(1.0 - 1e-4);
    assert!(stat < q, "chi2 {stat} >= {q} ({cells} cells)");
}

#[test]
fn perturb_follows_the_audited_channel() {
    let g = doc(&GAUSS_DOC.replace(r#""sigma": 3.0"#, r#""sigma": 0.15"#).replace("0.3}", "1.0}")).unwrap();
    let g = g.verify(&ContinuousPolicy::default()).unwrap();
    chi_square_fits(&g, 0.3, 11);
    let lap = design_continuous(&req("laplace-lip", gauss(), DomainJson { lo: -1.0, hi: 1.0, step: 0.1 }, 3.0, 0.0))
        .unwrap()
        .verify(&ContinuousPolicy::default())
        .unwrap();
    chi_square_fits(&lap, -0.73, 12);
    let smp = design_continuous(&req("sampling", gmm(), DomainJson { lo: -5.0, hi: 5.0, step: 0.25 }, 1.0, 0.1))
        .unwrap()
        .verify(&ContinuousPolicy::default())
        .unwrap();
    chi_square_fits(&smp, 1.6, 13);
}

#[test]
fn receipt_ratio_is_the_posterior_over_prior_ratio() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.008 };
    for m in ["laplace-lip", "analytic-gaussian", "sampling"] {
        let v = design_continuous(&unbudgeted(m, gmm(), dom, 1.0, 1e-3)).unwrap().verify(&no_budget()).unwrap();
        let mut rng = DeterministicRngForTesting::seed_from_u64(5);
        let x = 1.234;
        let y = v.perturb(x, &mut rng).unwrap();
        let r = v.receipt(y, Some(x)).unwrap();
        let lat = v.document().lattice();
        let (j, k) = (lat.output_index(y).unwrap(), lat.index_of(x).unwrap());
        let s = v.sampler();
        let direct = s.p_given(j, k) / s.p_output(j);
        assert!((r.user_ratio.unwrap() / direct - 1.0).abs() < 1e-9, "{m}: {:?} vs {direct}", r.user_ratio);
        assert_eq!(r.xs.len(), 256);
        assert_eq!(r.xs[0], lat.lo());
        assert!(r.ratios.iter().all(|&q| q >= r.min_ratio && q <= r.max_ratio));
        // The exact extremes over all 1001 points.
        let all: Vec<f64> = (0..lat.len()).map(|k| s.p_given(j, k) / s.p_output(j)).collect();
        let mx = all.iter().copied().fold(0.0, f64::max);
        assert!((r.max_ratio / mx - 1.0).abs() < 1e-9);
        // Σ_k p_k · ratio_k = 1 (the posterior is a distribution).
        let total: f64 = (0..lat.len()).map(|k| v.document().lattice_prior()[k] * all[k]).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }
}

/// Timings (release build): `cargo test --release --test continuous_doc -- --ignored --nocapture`.
#[test]
#[ignore]
fn timings() {
    for (step, label) in [(0.008, "n=1001"), (8.0 / 4095.0, "n=4096")] {
        let dom = DomainJson { lo: -4.0, hi: 4.0, step };
        for m in CONTINUOUS_METHODS {
            let t = std::time::Instant::now();
            let d = design_continuous(&unbudgeted(m, gmm(), dom, 1.0, 1e-5)).unwrap();
            let design = t.elapsed();
            let t = std::time::Instant::now();
            let a = d.audit().unwrap();
            println!("{label} {m}: design {design:?}, audit {:?}: {a:?}", t.elapsed());
        }
    }
}

#[test]
#[ignore]
fn audit_timing_4096() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 8.0 / 4095.0 };
    let d = ContinuousDocument::new(
        "t",
        dom,
        gmm(),
        ContinuousMechanism::Gaussian { sigma: vec![21.0] },
        ContinuousClaims { lip: Some(eps_delta(1.0, 1e-5)), ldp: None },
    )
    .unwrap();
    let t = std::time::Instant::now();
    let a = d.audit().unwrap();
    println!("n=4096 gaussian σ=21 audit {:?}: {a:?}", t.elapsed());
}

/// The numbers quoted in the module docs: `cargo test --release --test continuous_doc
/// report_numbers -- --ignored --nocapture`.
#[test]
#[ignore]
fn report_numbers() {
    let prior = Gaussian::new(0.0, 1.0).unwrap();
    for (eps, sigma) in [(1.0, 3.0), (0.5, 6.0), (2.0, 1.5)] {
        let c = cont::delta_on_domain(eps, sigma, &prior.into(), -8.0, 8.0).unwrap();
        for step in [0.1, 0.02, 0.01, 0.004] {
            let l = Lattice::new(-8.0, 8.0, step).unwrap();
            let p = ContinuousPrior::Gaussian(prior).lattice_pmf(&l).unwrap();
            let d = LatticeMechanism::gaussian(l, p, &[sigma])
                .unwrap()
                .lip_delta(Epsilon::new("epsilon", eps).unwrap())
                .unwrap();
            println!("eps {eps} sigma {sigma} step {step}: lattice {d:.6e} continuous {c:.6e} rel {:.2e}", d / c - 1.0);
        }
    }
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.008 };
    for delta in [1e-3, 1e-5] {
        let d = design_continuous(&unbudgeted("gaussian-lip-instance", gauss(), dom, 1.0, delta)).unwrap();
        let u = d.utility().unwrap();
        println!(
            "instance δ={delta}: cor10_true_delta {} scale {} sigma_uniform {}",
            u["cor10_true_delta"], u["scale"], u["sigma_uniform"]
        );
        let ContinuousMechanism::Gaussian { sigma } = d.mechanism() else { panic!() };
        println!(
            "  sigma range {:.3}..{:.3}",
            sigma.iter().copied().fold(f64::INFINITY, f64::min),
            sigma.iter().copied().fold(0.0, f64::max)
        );
    }
    for pr in [gauss(), gmm()] {
        let d = design_continuous(&req("laplace-lip", pr, dom, 1.0, 0.0)).unwrap();
        let ContinuousMechanism::Laplace { b } = d.mechanism() else { panic!() };
        println!("laplace-lip b {b} vs eq25 {}", d.utility().unwrap()["b_eq25"]);
        let d = design_continuous(&req("analytic-gaussian", gmm(), dom, 1.0, 1e-5)).unwrap();
        let ContinuousMechanism::Gaussian { sigma } = d.mechanism() else { panic!() };
        println!("analytic sigma {} vs eq24 {}", sigma[0], d.utility().unwrap()["sigma_eq24"]);
    }
}

#[test]
fn perturb_os_releases_lattice_values() {
    let dom = DomainJson { lo: 0.0, hi: 10.0, step: 0.5 };
    let m = design_continuous(&req("gaussian-lip", gauss(), dom, 1.0, 0.01))
        .unwrap()
        .verify(&ContinuousPolicy::default())
        .unwrap();
    let mut rng = privlift::rng::os_rng();
    for _ in 0..1000 {
        let y = m.perturb(3.3, &mut rng).unwrap();
        assert!(m.document().lattice().output_index(y).is_ok());
    }
}

/// The additive samplers never see x: with the same random bits, every input gets the
/// same noise (`j − k` equal) and consumes the same number of random words — the running
/// time depends on the bits and the scale only. The sampling mechanism uses two words.
#[path = "../../tests/common/counting.rs"]
mod counting;

#[test]
fn noise_and_randomness_consumed_do_not_depend_on_x() {
    use counting::CountingRng as Counting;
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.04 };
    for m in ["gaussian-lip", "laplace-lip", "sampling"] {
        let v =
            design_continuous(&req(m, gauss(), dom, 1.0, 1e-3)).unwrap().verify(&ContinuousPolicy::default()).unwrap();
        let lat = *v.document().lattice();
        for seed in 0..200 {
            let mut seen = Vec::new();
            for x in [-4.0, -1.3, 0.0, 2.71, 4.0] {
                let mut rng = Counting(DeterministicRngForTesting::seed_from_u64(seed), 0);
                let j = v.perturb_index(x, &mut rng).unwrap();
                let k = lat.index_of(x).unwrap() as i64;
                seen.push((if m == "sampling" { 0 } else { j - k }, rng.1));
            }
            assert!(seen.windows(2).all(|w| w[0] == w[1]), "{m} seed {seed}: {seen:?}");
            if m == "sampling" {
                assert_eq!(seen[0].1, 2);
            }
        }
    }
}

#[test]
#[ignore]
fn calibrate_on_domain_timing() {
    let PriorJson::Gmm { weights, means, sds } = gmm() else { panic!() };
    let comps: Vec<Gaussian> = means.iter().zip(&sds).map(|(&m, &s)| Gaussian::new(m, s).unwrap()).collect();
    let mix = GaussianMixture::new(&weights, &comps).unwrap();
    let t = std::time::Instant::now();
    let c = cont::calibrate_on_domain(1.0, 1e-5, &mix, -4.0, 4.0).unwrap();
    println!("calibrate_on_domain {:?}: {}", t.elapsed(), c.sigma_n);
}

/// A discrete-shaped document with a continuous kind stays on the discrete path.
#[test]
fn discrete_shape_with_a_continuous_kind_is_unsupported() {
    let d = r#"{"format": "privlift-mechanism", "version": 1, "id": "x", "labels": ["a"], "prior": [1],
      "mechanism": {"kind": "laplace"}}"#;
    assert_eq!(parse_any(d).unwrap_err().code(), "unsupported_mechanism");
}

#[test]
#[ignore]
fn gmm_lattice_vs_continuous_sigma() {
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.008 };
    let t = std::time::Instant::now();
    let d = design_continuous(&unbudgeted("gaussian-lip", gmm(), dom, 1.0, 1e-5)).unwrap();
    let ContinuousMechanism::Gaussian { sigma } = d.mechanism() else { panic!() };
    println!("{:?} lattice {} continuous {}", t.elapsed(), sigma[0], d.utility().unwrap()["sigma_continuous"]);
}

/// Every step of a continuous design (its audits, its calibration's certified bounds)
/// reaches the step observer, once, in order, and the expected count of each searching
/// method is its actual count within a quarter, so that a front end's progress neither
/// stalls nor jumps.
#[test]
fn continuous_designs_report_each_audit_against_their_expected_count() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.04 };
    for (method, eps, delta) in [
        ("gaussian-lip", 1.0, 1e-5),
        ("gaussian-lip-instance", 1.0, 1e-5),
        ("laplace-lip", 1.0, 0.0),
        ("sampling", 1.0, 1e-5),
    ] {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&seen);
        privlift_design::progress::observe_steps(
            move |s| sink.borrow_mut().push(*s),
            || design_continuous(&req(method, gauss(), dom, eps, delta)),
        )
        .unwrap();
        let seen = seen.borrow();
        assert!(!seen.is_empty(), "{method}: no step reported");
        for (k, s) in seen.iter().enumerate() {
            assert_eq!(s.done, k + 1, "{method}: audits reported out of order: {seen:?}");
            assert_eq!(s.expected, seen[0].expected, "{method}: the expected count changed");
        }
        let (done, expected) = (seen.len(), seen[0].expected);
        assert!(4 * done.abs_diff(expected) <= expected, "{method}: {done} steps, {expected} expected");
    }
}

/// The designer and a client's default verification agree: what the designer returns at its
/// defaults verifies there, and what a client would refuse the designer refuses, saying why.
#[test]
fn a_design_at_its_defaults_verifies_at_a_clients_default_budget() {
    // 401 points of [-4, 4]: under the default budget for both Gaussian methods.
    let dom = DomainJson { lo: -4.0, hi: 4.0, step: 0.02 };
    for m in ["gaussian-lip", "analytic-gaussian"] {
        let d = design_continuous(&req(m, gauss(), dom, 1.0, 1e-5)).unwrap();
        d.verify(&ContinuousPolicy::default()).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    // 501 points: analytic-gaussian's σ (3.7 domain widths) is over it, found before any audit;
    // 4096 points: gaussian-lip's too, before its search.
    let coarse = DomainJson { lo: -4.0, hi: 4.0, step: 8.0 / 500.0 };
    let fine = DomainJson { lo: -4.0, hi: 4.0, step: 8.0 / 4095.0 };
    for (m, dom) in [("analytic-gaussian", coarse), ("gaussian-lip", fine), ("analytic-gaussian", fine)] {
        let e = design_continuous(&req(m, gauss(), dom, 1.0, 1e-5)).unwrap_err();
        assert_eq!(e.code(), "too_costly", "{m}");
        assert!(e.to_string().contains("a coarser step"), "{e}");
        // Clients with a budget raised enough are designed for.
        if dom.step > 0.01 {
            let budget = Some(4.0 * privlift::verify::DEFAULT_MAX_VERIFY_WORK);
            let d =
                design_continuous(&ContinuousRequest { max_verify_work: budget, ..req(m, gauss(), dom, 1.0, 1e-5) });
            let policy = ContinuousPolicy { max_verify_work: budget, ..ContinuousPolicy::default() };
            d.unwrap().verify(&policy).unwrap();
        }
    }
}
