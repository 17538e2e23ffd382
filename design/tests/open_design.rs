//! Every open-domain design, on fixed and seeded random instances, is a document the core
//! reads back from its JSON and verifies (claims = the core's audit), with the defaults
//! the designers promise.

use privlift::open::{OpenDocument, OpenMechanism};
use privlift::param::Epsilon;
use privlift::Policy;
use privlift_design::open::designer::{design_open, olh_g, OpenPrior, OpenRequest, OPEN_METHODS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn request(method: &str, epsilon: f64, max_bytes: usize, prior: Option<OpenPrior>) -> OpenRequest {
    let epsilon = Epsilon::positive("epsilon", epsilon).unwrap();
    OpenRequest { method: method.into(), epsilon, max_bytes: Some(max_bytes), prior, id: None }
}

/// Designs, writes, reads back and verifies; returns the document read back.
fn round_trip(req: &OpenRequest) -> OpenDocument {
    let doc = design_open(req).unwrap_or_else(|e| panic!("{req:?}: {e}"));
    let back = OpenDocument::from_json(&doc.to_json()).unwrap();
    assert_eq!(back, doc);
    let v = back.verify(&Policy::default()).unwrap_or_else(|e| panic!("{req:?}: {e}"));
    let audit = v.audit();
    assert_eq!(back.claims().ldp_x.get(), audit.ldp_x, "{req:?}");
    // The quantised sampler's LDP is ε within rounding of the weights (a 64-bit draw, on
    // either side), or below it by the keep a 32-bit draw rounds away.
    let eps = req.epsilon.get();
    assert!(audit.ldp_x <= eps * (1.0 + 1e-9) && audit.ldp_x >= eps * (1.0 - 1e-4), "{req:?}: {audit:?}");
    assert_eq!(back.claims().lip.map(|l| l.get()), req.prior.as_ref().map(|_| audit.lip), "{req:?}");
    back
}

#[test]
fn fixed_designs_verify_with_their_defaults() {
    for eps in [0.5, 1.0, 2.0, 4.0, 8.0] {
        let olh = round_trip(&request("olh", eps, 32, None));
        let g = (f64::exp(eps).round() as u32 + 1).clamp(2, 65_536);
        assert_eq!(olh.mechanism(), &OpenMechanism::Olh { epsilon: Epsilon::new("e", eps).unwrap(), g });
        let hcms = round_trip(&request("hcms", eps, 16, None));
        assert!(matches!(hcms.mechanism(), OpenMechanism::Hcms { k: 2048, m: 1024, .. }));
        let had = round_trip(&request("hadamard", eps, 16, None));
        assert!(matches!(had.mechanism(), OpenMechanism::Hadamard { bits: 20, .. }));
        let hh = round_trip(&request("heavy-hitters", eps, 3, None));
        let OpenMechanism::HeavyHitters { g: hg, prefix_bits, split, .. } = hh.mechanism() else { panic!() };
        assert_eq!((*hg, prefix_bits.as_slice()), (g, &[8, 16, 24][..]));
        assert!(split.iter().all(|w| (w.get() - 1.0 / 3.0).abs() < 1e-15));
        assert_eq!(hh.mechanism().tag(), "heavy_hitters");
    }
    assert_eq!(olh_g(Epsilon::new("e", 700.0).unwrap()), 65_536);
}

#[test]
fn a_sparse_prior_is_kept_and_its_lip_claimed() {
    let prior = OpenPrior { values: vec!["apple".into(), "banana".into()], p: vec![0.3, 0.2] };
    for method in ["olh", "hadamard", "hcms"] {
        let doc = round_trip(&request(method, 1.0, 8, Some(prior.clone())));
        let p = doc.prior().unwrap();
        assert_eq!((p.values(), p.p()), (&prior.values[..], &prior.p[..]));
        assert!((p.other_mass() - 0.5).abs() < 1e-12);
    }
    let bad = |values: Vec<&str>, p: Vec<f64>| {
        let prior = OpenPrior { values: values.into_iter().map(String::from).collect(), p };
        design_open(&request("olh", 1.0, 4, Some(prior))).unwrap_err()
    };
    for e in [
        bad(vec!["a", "b"], vec![0.7, 0.4]),
        bad(vec!["a", "a"], vec![0.1, 0.1]),
        bad(vec!["toolong"], vec![0.1]),
        bad(vec!["a\0"], vec![0.1]),
        bad(vec!["a"], vec![0.0]),
        bad(vec!["a"], vec![0.1, 0.2]),
    ] {
        assert_eq!(e.code(), "invalid_argument");
        assert!(!e.to_string().contains("toolong"), "{e}");
    }
    let with_prior = request("heavy-hitters", 1.0, 4, Some(OpenPrior { values: vec![], p: vec![] }));
    assert_eq!(design_open(&with_prior).unwrap_err().code(), "invalid_argument");
}

#[test]
fn random_designs_verify() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for _ in 0..60 {
        let method = OPEN_METHODS[rng.random_range(0..4)];
        let eps = rng.random_range(0.01..12.0);
        let max_bytes = rng.random_range(1..=(if method == "heavy-hitters" { 24 } else { 4096 }));
        let prior = (method != "heavy-hitters" && rng.random_bool(0.5)).then(|| {
            let n = rng.random_range(1..20);
            let values: Vec<String> = (0..n).map(|i| format!("{i}")).filter(|v| v.len() <= max_bytes).collect();
            let p = values.iter().map(|_| rng.random_range(0.001..1.0 / n as f64)).collect();
            OpenPrior { values, p }
        });
        round_trip(&request(method, eps, max_bytes, prior));
    }
}

#[test]
fn out_of_range_requests_are_typed_refusals() {
    // ε above 700 is refused where the number is read (the CLI, the bindings); ε = 0 is an
    // `Epsilon` but no designer's.
    assert_eq!(Epsilon::positive("epsilon", 701.0).unwrap_err().code(), "invalid_argument");
    for (method, eps, bytes) in [("olh", 0.0, Some(4)), ("hcms", 1.0, Some(0)), ("hcms", 1.0, Some(4097))] {
        let epsilon = Epsilon::new("epsilon", eps).unwrap();
        let req = OpenRequest { method: method.into(), epsilon, max_bytes: bytes, prior: None, id: None };
        assert_eq!(design_open(&req).unwrap_err().code(), "invalid_argument", "{req:?}");
    }
    let one = Epsilon::positive("epsilon", 1.0).unwrap();
    let hh = OpenRequest { method: "heavy-hitters".into(), epsilon: one, max_bytes: None, prior: None, id: None };
    assert_eq!(design_open(&hh).unwrap_err().code(), "invalid_argument");
    let other = OpenRequest { method: "rappor".into(), epsilon: one, max_bytes: None, prior: None, id: None };
    assert_eq!(design_open(&other).unwrap_err().code(), "invalid_argument");
}
