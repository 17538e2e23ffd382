//! The open kinds end to end: documents read and refused, verification against claims
//! and policies, perturbation (its randomness and its law), reports and receipts.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::*;
use crate::any::{parse_any, parse_any_within, AnyDocument};
use crate::param::{Budget, Epsilon, Probability};
use crate::rng::DeterministicRngForTesting;
use crate::verify::Policy;

fn olh(prior: &str, claims: &str) -> String {
    alloc::format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "fruit-olh",
        "domain": {{"kind": "strings", "max_bytes": 32}}, {prior}
        "mechanism": {{"kind": "olh", "hash": "xxh32", "hash_version": 1, "epsilon": 1.0, "g": 4}},
        "claims": {claims}}}"#
    )
}

const PRIOR: &str = r#""prior": {"values": ["apple", "banana"], "p": [0.3, 0.2]},"#;

fn mechanism(m: &str, max_bytes: usize) -> String {
    alloc::format!(
        r#"{{"format": "privlift-mechanism", "version": 1, "id": "x",
        "domain": {{"kind": "strings", "max_bytes": {max_bytes}}},
        "mechanism": {{"hash": "xxh32", "hash_version": 1, "epsilon": 2.0, {m}}},
        "claims": {{"ldp_x": 2.0}}}}"#
    )
}

fn code(text: &str) -> &'static str {
    OpenDocument::from_json(text).unwrap_err().code()
}

#[test]
fn the_spec_example_reads_verifies_and_round_trips() {
    let text = olh(PRIOR, r#"{"ldp_x": 1.0, "lip": 1.0}"#);
    let AnyDocument::Open(doc) = parse_any(&text).unwrap() else { panic!("not open") };
    assert_eq!(doc.mechanism(), &OpenMechanism::Olh { epsilon: Epsilon::new("e", 1.0).unwrap(), g: 4 });
    assert_eq!(doc.prior().unwrap().other_mass(), 0.5);
    assert_eq!(OpenDocument::from_json(&doc.to_json()).unwrap(), doc);
    let AnyDocument::Open(within) = parse_any_within(&text, 1e9).unwrap() else { panic!("not open") };
    assert_eq!(within, doc);
    let v = doc.check(&Policy::default()).unwrap();
    assert!(v.claims_hold, "{v:?}");
    // The quantised channel's LDP is ε up to the sampler's 2⁻⁶⁴ quantisation.
    assert!((v.audit.ldp_x - 1.0).abs() < 1e-9, "{:?}", v.audit);
    // Unlisted mass of vanishing single-value mass: the LIP reaches the LDP.
    assert_eq!(v.audit.lip, v.audit.ldp_x);
}

#[test]
fn every_kind_reads_and_its_ldp_is_epsilon() {
    for (m, max_bytes) in [
        (r#""kind": "olh", "g": 8"#, 16),
        (r#""kind": "hadamard", "bits": 32, "hash_seed": 7"#, 16),
        (r#""kind": "hcms", "k": 1024, "m": 256"#, 16),
        (r#""kind": "heavy_hitters", "g": 8, "prefix_bits": [8, 16, 32], "split": [0.25, 0.25, 0.5]"#, 4),
    ] {
        let doc = OpenDocument::from_json(&mechanism(m, max_bytes)).unwrap();
        let a = doc.audit().unwrap();
        assert!((a.ldp_x - 2.0).abs() < 1e-9, "{m}: {a:?}");
        assert_eq!(OpenDocument::from_json(&doc.to_json()).unwrap(), doc, "{m}");
        doc.verify(&Policy::default()).unwrap();
    }
}

#[test]
fn hostile_documents_get_typed_errors() {
    let base = |m: &str| mechanism(m, 8);
    assert_eq!(code(&olh(PRIOR, r#"{"ldp_x": 1.0}"#).replace("xxh32", "xxh64")), "unsupported_mechanism");
    assert_eq!(
        code(&olh(PRIOR, r#"{"ldp_x": 1.0}"#).replace("\"hash_version\": 1", "\"hash_version\": 2")),
        "unsupported_mechanism"
    );
    assert_eq!(code(&base(r#""kind": "olh", "g": 1"#)), "invalid_argument");
    assert_eq!(code(&base(r#""kind": "olh", "g": 65537"#)), "invalid_argument");
    assert_eq!(code(&base(r#""kind": "olh", "g": 4, "bits": 3"#)), "json");
    assert_eq!(code(&base(r#""kind": "olh""#)), "json");
    assert_eq!(code(&base(r#""kind": "hcms", "k": 4, "m": 48"#)), "invalid_argument");
    assert_eq!(code(&base(r#""kind": "hcms", "k": 100000000000, "m": 64"#)), "invalid_argument");
    assert_eq!(code(&base(r#""kind": "hadamard", "bits": 33, "hash_seed": 0"#)), "invalid_argument");
    assert_eq!(
        code(&base(r#""kind": "heavy_hitters", "g": 4, "prefix_bits": [8, 32], "split": [0.5, 0.5]"#)),
        "invalid_argument"
    );
    assert_eq!(
        code(&base(r#""kind": "heavy_hitters", "g": 4, "prefix_bits": [9, 8, 64], "split": [0.2, 0.3, 0.5]"#)),
        "invalid_argument"
    );
    assert_eq!(
        code(&base(r#""kind": "heavy_hitters", "g": 4, "prefix_bits": [8, 64], "split": [0.5, 0.6]"#)),
        "not_normalized"
    );
    assert_eq!(code(&base(r#""kind": "krr", "g": 4"#)), "unsupported_mechanism");
    assert_eq!(code(&mechanism(r#""kind": "olh", "g": 4"#, 0)), "invalid_argument");
    assert_eq!(code(&mechanism(r#""kind": "olh", "g": 4"#, 4097)), "invalid_argument");
    let claims = r#"{"ldp_x": 1.0}"#;
    let prior = |p: &str| olh(p, claims);
    assert_eq!(code(&prior(r#""prior": {"values": ["a", "b"], "p": [0.6, 0.5]},"#)), "not_normalized");
    assert_eq!(code(&prior(r#""prior": {"values": ["a", "a"], "p": [0.2, 0.2]},"#)), "duplicate_label");
    assert_eq!(code(&prior(r#""prior": {"values": ["a", "b"], "p": [0.2]},"#)), "dimension_mismatch");
    assert_eq!(code(&prior(r#""prior": {"values": ["a", "b"], "p": [0.2, 0]},"#)), "invalid_argument");
    assert_eq!(code(&prior(r#""prior": {"values": ["a\u0000"], "p": [0.2]},"#)), "invalid_argument");
    let long = "x".repeat(33);
    let e = OpenDocument::from_json(&prior(&alloc::format!(r#""prior": {{"values": ["{long}"], "p": [0.2]}},"#)))
        .unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    assert!(!e.to_string().contains(&long), "{e}");
    // LIP is a claim under a prior.
    assert_eq!(code(&olh("", r#"{"ldp_x": 1.0, "lip": 1.0}"#)), "invalid_argument");
    assert_eq!(code(&olh("", r#"{"lip": 1.0}"#)), "json");
    // Too many listed values: refused while read, past 4096.
    let values: Vec<String> = (0..4097).map(|i| alloc::format!("\"{i}\"")).collect();
    let p: Vec<&str> = (0..4097).map(|_| "0.0001").collect();
    let big = prior(&alloc::format!(r#""prior": {{"values": [{}], "p": [{}]}},"#, values.join(","), p.join(",")));
    assert_eq!(code(&big), "too_many_symbols");
}

#[test]
fn the_reader_prices_the_prior_as_it_reads() {
    let values: Vec<String> = (0..1000).map(|i| alloc::format!("\"v{i}\"")).collect();
    let p: Vec<&str> = (0..1000).map(|_| "0.001").collect();
    let text = olh(
        &alloc::format!(r#""prior": {{"values": [{}], "p": [{}]}},"#, values.join(","), p.join(",")),
        r#"{"ldp_x": 1.0}"#,
    );
    let whole = crate::verify::Work::open(4, 1000, 1).0;
    assert!(OpenDocument::from_json_within(text.as_bytes(), whole).is_ok());
    let e = OpenDocument::from_json_within(text.as_bytes(), whole / 2.0).unwrap_err();
    assert_eq!(e.code(), "too_costly");
    assert_eq!(parse_any_within(&text, whole / 2.0).unwrap_err().code(), "too_costly");
}

#[test]
fn claims_and_policies_are_checked() {
    let lying = OpenDocument::from_json(&olh(PRIOR, r#"{"ldp_x": 0.5}"#)).unwrap();
    assert_eq!(lying.verify(&Policy::default()).unwrap_err().code(), "claim_violated");
    let lip = OpenDocument::from_json(&olh(PRIOR, r#"{"ldp_x": 1.0, "lip": 0.5}"#)).unwrap();
    assert_eq!(lip.verify(&Policy::default()).unwrap_err().code(), "claim_violated");
    let doc = OpenDocument::from_json(&olh(PRIOR, r#"{"ldp_x": 1.0}"#)).unwrap();
    for limit in ["maxLdp", "maxLdpX", "maxLip", "maxEpsU", "maxLipS"] {
        let p = Policy::from_json(&alloc::format!(r#"{{"{limit}": 0.9}}"#)).unwrap();
        assert_eq!(doc.verify(&p).unwrap_err().code(), "policy_violated", "{limit}");
        let p = Policy::from_json(&alloc::format!(r#"{{"{limit}": 1.0}}"#)).unwrap();
        doc.verify(&p).unwrap();
    }
    let p = Policy::from_json(r#"{"maxVerifyWork": 10}"#).unwrap();
    assert_eq!(doc.verify(&p).unwrap_err().code(), "too_costly");
}

/// A fully listed prior: the LIP is the k-RR one at the least listed mass, below the LDP.
#[test]
fn a_fully_listed_prior_bounds_the_lip_below_the_ldp() {
    let prior = SparsePrior::new(
        alloc::vec!["a".into(), "b".into(), "c".into()],
        [0.5, 0.25, 0.25].iter().map(|&p| Probability::new("p", p).unwrap()).collect(),
        8,
    )
    .unwrap();
    let eps = Epsilon::new("e", 2.0).unwrap();
    let claims = OpenClaims { ldp_x: Budget::finite("c", 2.0).unwrap(), lip: Some(Budget::finite("c", 2.0).unwrap()) };
    let doc = OpenDocument::new("abc", 8, Some(prior), OpenMechanism::Olh { epsilon: eps, g: 4 }, claims).unwrap();
    let a = doc.audit().unwrap();
    // a/b = e², κ·g… : lift_max = a/(b + κ/4), lift_min = b/(b + 3κ/4) with a + 3b = 1.
    let e2 = libm::exp(2.0);
    let (a_, b_) = (e2 / (e2 + 3.0), 1.0 / (e2 + 3.0));
    let (hi, lo) = (a_ / (b_ + (a_ - b_) * 0.25), b_ / (b_ + (a_ - b_) * 0.75));
    // The κ drawn (32-bit words at g = 4) is within g/2³² ≈ 1e-9 of the formula's, below it.
    assert!((a.eps_u - libm::log(hi)).abs() < 1e-8, "{a:?}");
    assert!((a.eps_l + libm::log(lo)).abs() < 1e-8, "{a:?}");
    assert!(a.lip < a.ldp_x);
}

/// A source that counts the words drawn.
struct Counting(DeterministicRngForTesting, usize);

impl crate::rng::Randomness for Counting {
    fn next_word(&mut self) -> crate::error::Result<u64> {
        self.1 += 1;
        self.0.next_word()
    }
    fn fill_words(&mut self, out: &mut [u64]) -> crate::error::Result<()> {
        self.1 += out.len();
        self.0.fill_words(out)
    }
    fn fill_block(&mut self, out: &mut [u8]) -> crate::error::Result<()> {
        self.1 += out.len().div_ceil(8);
        self.0.fill_block(out)
    }
    fn draw<T>(
        &mut self,
        _reserve: usize,
        _draw: impl FnOnce(&mut dyn crate::rng::CryptoRngCore) -> T,
    ) -> crate::error::Result<T> {
        panic!("an open kind draws a fixed number of words")
    }
}

fn all_kinds() -> Vec<VerifiedOpen> {
    [
        (r#""kind": "olh", "g": 5"#, 16),
        (r#""kind": "hadamard", "bits": 6, "hash_seed": 3"#, 16),
        (r#""kind": "hcms", "k": 5, "m": 16"#, 16),
        (r#""kind": "heavy_hitters", "g": 4, "prefix_bits": [3, 9, 128], "split": [0.3, 0.3, 0.4]"#, 16),
    ]
    .iter()
    .map(|(m, b)| OpenDocument::from_json(&mechanism(m, *b)).unwrap().verify(&Policy::default()).unwrap())
    .collect()
}

#[test]
fn every_value_consumes_the_same_randomness() {
    for m in all_kinds() {
        let mut after = Vec::new();
        for v in ["", "a", "a value of sixteen", "é", "zzzzzzzzzzzzzzzz"].iter().filter(|v| v.len() <= 16) {
            let mut rng = Counting(DeterministicRngForTesting::seed_from_u64(9), 0);
            m.perturb(v, &mut rng).unwrap();
            let next = crate::rng::Randomness::next_word(&mut rng.0).unwrap();
            after.push((rng.1, next));
        }
        let n = words(m.document().mechanism());
        assert!(after.iter().all(|&a| a == after[0]) && after[0].0 == n, "{}: {after:?}", m.document().id());
    }
}

#[test]
fn values_are_refused_without_echo() {
    for m in all_kinds() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(1);
        for v in ["seventeen bytes!!", "nul\u{0}inside"] {
            let e = m.perturb(v, &mut rng).unwrap_err();
            assert_eq!(e.code(), "invalid_argument");
            assert!(e.to_string().contains("value") && !e.to_string().contains(&v[..3]), "{e}");
        }
    }
}

/// The reported bucket is the value's with probability a = e^ε/(e^ε + g − 1): a binomial
/// count within its 1e-6 two-sided normal quantile, for every kind.
#[test]
fn reports_follow_the_channel() {
    use statrs::distribution::{ContinuousCDF, Normal};
    let z = Normal::new(0.0, 1.0).unwrap().inverse_cdf(1.0 - 5e-7);
    for m in all_kinds() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(42);
        let n = 20_000;
        let mut scratch = Vec::new();
        let hits = (0..n)
            .filter(|_| {
                let r = m.perturb("kiwi", &mut rng).unwrap();
                m.bucket(&r, b"kiwi", &mut scratch) == r.output()
            })
            .count() as f64;
        let g = m.document().mechanism().outputs() as f64;
        let e = libm::exp(2.0);
        let a = e / (e + g - 1.0);
        let sd = (n as f64 * a * (1.0 - a)).sqrt();
        assert!((hits - n as f64 * a).abs() < z * sd, "{}: {hits} of {n}, expected {a}", m.document().id());
    }
}

#[test]
fn reports_round_trip_and_are_validated() {
    for m in all_kinds() {
        let mech = m.document().mechanism();
        let mut rng = DeterministicRngForTesting::seed_from_u64(2);
        let r = m.perturb("fig", &mut rng).unwrap();
        assert_eq!(OpenReport::parse(mech, &r.canonical()).unwrap(), r);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(OpenReport::from_json(mech, &json).unwrap(), r);
        let mut parts = r.parts();
        *parts.last_mut().unwrap() = 70_000;
        let bad: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        assert_eq!(OpenReport::parse(mech, &bad.join(":")).unwrap_err().code(), "unknown_output");
        for text in ["", "1", "a:b", "1:2:3:4", "-1:0", "99999999999:0"] {
            assert_eq!(OpenReport::parse(mech, text).unwrap_err().code(), "unknown_output", "{text}");
        }
    }
}

/// With every value listed (no unlisted mass), a receipt's lifts are points: the exact
/// posterior over prior of the channel, computed here from its definition.
#[test]
fn receipts_are_exact_with_a_fully_listed_prior_and_ranges_otherwise() {
    let values: Vec<String> = ["a", "b", "c", "d", "e"].iter().map(|s| s.to_string()).collect();
    let p = [0.4, 0.3, 0.2, 0.05, 0.05];
    let prior =
        SparsePrior::new(values.clone(), p.iter().map(|&q| Probability::new("p", q).unwrap()).collect(), 4).unwrap();
    let claims = OpenClaims { ldp_x: Budget::finite("c", 1.0).unwrap(), lip: None };
    let eps = Epsilon::new("e", 1.0).unwrap();
    let doc = OpenDocument::new("r", 4, Some(prior), OpenMechanism::Olh { epsilon: eps, g: 3 }, claims).unwrap();
    let m = doc.verify(&Policy::default()).unwrap();
    let mut rng = DeterministicRngForTesting::seed_from_u64(7);
    let mut scratch = Vec::new();
    for _ in 0..20 {
        let r = m.perturb("c", &mut rng).unwrap();
        let rec = m.receipt(&r).unwrap();
        let c = m.randomiser.column(r.output() as usize);
        let k: Vec<f64> = values
            .iter()
            .map(|v| if m.bucket(&r, v.as_bytes(), &mut scratch) == r.output() { c.a } else { c.b })
            .collect();
        let py: f64 = k.iter().zip(&p).map(|(k, p)| k * p).sum();
        for (e, k) in rec.listed.iter().zip(&k) {
            assert!((e.min_lift / (k / py) - 1.0).abs() < 1e-12 && (e.max_lift / (k / py) - 1.0).abs() < 1e-12);
            assert!(e.min_lift <= k / py && k / py <= e.max_lift);
        }
        let top = rec.listed.iter().map(|e| e.max_lift).fold(0.0, f64::max);
        // Both upper bounds of the same lift, each widened by its own rounding bound.
        assert!(rec.eps_u >= libm::log(top) - 1e-12, "{} {}", rec.eps_u, libm::log(top));
        assert_eq!((rec.unlisted_min_lift, rec.unlisted_max_lift), (0.0, 0.0), "no unlisted mass");
    }
    // Unlisted mass: ranges, each inside the audited bounds.
    let doc = OpenDocument::from_json(&olh(PRIOR, r#"{"ldp_x": 1.0}"#)).unwrap();
    let m = doc.verify(&Policy::default()).unwrap();
    for _ in 0..20 {
        let rec = m.receipt(&m.perturb("apple", &mut rng).unwrap()).unwrap();
        assert!(rec.unlisted_min_lift < rec.unlisted_max_lift);
        let within = |lo: f64, hi: f64| libm::log(hi) <= rec.eps_u + 1e-12 && -libm::log(lo) <= rec.eps_l + 1e-12;
        assert!(within(rec.unlisted_min_lift, rec.unlisted_max_lift));
        for e in &rec.listed {
            assert!(
                e.min_lift < e.max_lift && e.min_lift >= rec.unlisted_min_lift && e.max_lift <= rec.unlisted_max_lift
            );
        }
    }
    // A report of another kind is refused.
    let other = OpenReport::Hadamard { j: 0, bit: 0 };
    assert_eq!(m.receipt(&other).unwrap_err().code(), "unknown_output");
}

#[test]
fn a_repeated_prior_value_is_the_first_repeat_in_list_order() {
    let text =
        olh(r#""prior": {"values": ["b", "a", "c", "a", "b"], "p": [0.1, 0.1, 0.1, 0.1, 0.1]},"#, r#"{"ldp_x": 1.0}"#);
    let e = OpenDocument::from_json(&text).unwrap_err();
    assert_eq!(e.code(), "duplicate_label");
    assert!(alloc::format!("{e}").contains("\"a\""), "{e}");
}

#[test]
fn the_family_is_read_from_the_top_level() {
    let discrete = r#"{"format":"privlift-mechanism","version":1,"labels":["a","b"],"prior":[0.5,0.5],"mechanism":{"kind":"krr","epsilon":1}}"#;
    assert!(!super::is_open(discrete.as_bytes()));
    assert!(super::is_open(olh(PRIOR, r#"{"ldp_x": 1.0}"#).as_bytes()));
    // A top-level `labels`, before or after the mechanism, makes a document discrete; a
    // nested one is not the document's.
    assert!(!super::is_open(br#"{"labels":["a"],"mechanism":{"kind":"olh"}}"#));
    assert!(!super::is_open(br#"{"mechanism":{"kind":"olh"},"labels":["a"]}"#));
    assert!(super::is_open(br#"{"mechanism":{"kind":"olh","labels":[]}}"#));
    // Bytes that are not a JSON object settle nothing.
    assert!(!super::is_open(b"[\"labels\"]"));
    assert!(!super::is_open(br#"{"mechanism":{"kind":"olh"}} x"#));
}
