//! The receipt-and-policy property, shared by the property test (`tests/properties.rs`,
//! seeded inputs) and the fuzz target `receipt_bounds` (fuzz/, coverage-guided inputs; CI
//! replays it on its seeds and random inputs through the property test):
//!
//! for every document that verifies under a policy,
//! * every receipt (every output; every bit vector of a unary encoding) has one row per
//!   input value, a secret section exactly when the document declares S, and every lift of
//!   every section within the bounds that section states;
//! * every limit about X holds on an audit of the exact channel with S = X computed here,
//!   apart from verification, and every limit about S on the S-audit;
//! * and a refusal for the policy names a limit that the check really finds violated.
//!
//! Documents are built from bytes: small alphabets, weights on a coarse grid with zeros,
//! tiny entries (1e-13), trivial secrets and zero columns, claims at (or just under) the
//! audited leakage, and limits around it.
#![allow(dead_code)]

use privlift::document::{Matrix, MechanismKind};
use privlift::leakage;
use privlift::param::Budget;
use privlift::verify::within;
use privlift::{Document, Policy, VerifiedMechanism};
use serde_json::{json, Value};

/// Bytes to decisions; 0 once exhausted.
pub struct Bytes<'a> {
    data: &'a [u8],
    i: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, i: 0 }
    }
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        b
    }
    /// In `0..n` (n ≥ 1).
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }
    /// A non-negative weight: usually a small integer, sometimes 0 or tiny.
    fn weight(&mut self) -> f64 {
        match self.byte() % 16 {
            0 | 1 => 0.0,
            2 => 1e-13,
            b => (b - 2) as f64,
        }
    }
}

fn normalise(w: &mut [f64]) -> bool {
    let t: f64 = w.iter().sum();
    if t <= 0.0 {
        return false;
    }
    w.iter_mut().for_each(|v| *v /= t);
    true
}

fn row(b: &mut Bytes, n: usize) -> Vec<f64> {
    let mut w: Vec<f64> = (0..n).map(|_| b.weight()).collect();
    if !normalise(&mut w) {
        w = vec![1.0 / n as f64; n];
    }
    w
}

/// A document (JSON) and a policy built from bytes; `None` when the bytes describe
/// nothing valid to try.
pub fn document_and_policy(data: &[u8]) -> Option<(Value, Policy)> {
    let mut b = Bytes::new(data);
    let nx = 1 + b.below(5);
    let ny = 1 + b.below(5);
    let kind = b.below(4); // 0, 1: matrix; 2: per-secret; 3: unary
    let secret = match b.below(4) {
        0 => None,
        1 => Some(1), // a trivial secret
        n => Some(n),
    };
    let kind = if kind == 2 && secret.is_none() { 0 } else { kind };
    // Joint P_SX with zeros, and the prior as its exact column sums.
    let ns = secret.unwrap_or(nx);
    let mut joint: Vec<f64> = match secret {
        None => {
            let p = row(&mut b, nx);
            (0..nx * nx).map(|k| if k / nx == k % nx { p[k / nx] } else { 0.0 }).collect()
        }
        Some(_) => (0..ns * nx).map(|_| b.weight()).collect(),
    };
    if !normalise(&mut joint) {
        return None;
    }
    let p_sx = Matrix::from_flat(ns, nx, joint.clone());
    let prior = p_sx.col_sums();
    let labels: Vec<String> = (0..nx).map(|i| format!("x{i}")).collect();
    let mechanism = match kind {
        0 | 1 => json!({"kind": "matrix", "p_y_given_x": (0..nx).map(|_| row(&mut b, ny)).collect::<Vec<_>>()}),
        2 => json!({"kind": "per_secret", "p_y_given_sx": (0..ns)
            .map(|_| (0..nx).map(|_| row(&mut b, ny)).collect::<Vec<_>>()).collect::<Vec<_>>()}),
        _ => {
            let q = |b: &mut Bytes| [0.1, 0.25, 0.5, 0.75, 0.9, 1.0 / (1.0 + 1f64.exp())][b.below(6)];
            json!({"kind": "unary", "q01": q(&mut b), "q10": q(&mut b)})
        }
    };
    let mut doc = json!({"format": "privlift-mechanism", "version": 1, "id": "prop",
        "labels": labels, "prior": prior, "mechanism": mechanism, "claims": {"ldp_x": 1e300}});
    if let Some(ns) = secret {
        doc["secret"] = json!({"labels": (0..ns).map(|s| format!("s{s}")).collect::<Vec<_>>(),
            "p_sx": (0..ns).map(|s| joint[s * nx..(s + 1) * nx].to_vec()).collect::<Vec<_>>()});
    }
    // Claims at the audited leakage of the exact sampler (S-notions), sometimes shaved.
    let draft = Document::from_json(&doc.to_string()).ok()?;
    let v = draft.check(&Policy::default()).ok()?;
    let shave = if b.below(5) == 0 { 0.9 } else { 1.0 };
    let mut claims = serde_json::Map::new();
    let finite = |x: f64| x.is_finite().then_some(x * shave);
    for (name, val) in [("ldp_x", v.leakage.ldp_x), ("ldp", v.leakage.ldp), ("lip", v.leakage.lip)] {
        if let Some(c) = finite(val) {
            claims.insert(name.into(), json!(c));
        }
    }
    if claims.is_empty() {
        claims.insert("ldp_x".into(), json!(1e300)); // refused: a claim that cannot hold
    }
    doc["claims"] = Value::Object(claims);
    // Limits around the audits: X and S, some just above, some just below.
    // (0 · ∞ is NaN: no limit.)
    let around = |b: &mut Bytes, x: f64| -> Option<Budget> {
        let f = [0.5, 0.99, 1.0, 1.01, 2.0, f64::INFINITY][b.below(6)];
        (x.is_finite() && b.below(2) == 0).then_some(x * f).and_then(|v| Budget::new("limit", v).ok())
    };
    let (x, s) = (&v.leakage_x, &v.leakage);
    let policy = Policy {
        max_ldp_x: around(&mut b, x.ldp_x),
        max_ldp: around(&mut b, x.ldp_x),
        max_lip: around(&mut b, x.lip),
        max_eps_l: around(&mut b, x.alip.eps_l),
        max_eps_u: around(&mut b, x.alip.eps_u),
        max_ldp_s: around(&mut b, s.ldp),
        max_lip_s: around(&mut b, s.lip),
        max_eps_l_s: around(&mut b, s.alip.eps_l),
        max_eps_u_s: around(&mut b, s.alip.eps_u),
        max_verify_work: None,
    };
    Some((doc, policy))
}

/// The X-audit of the exact channel, computed here from the verified mechanism's channel
/// (independently of the verification's own X-audit).
fn independent_x_audit(doc: &Document, m: &VerifiedMechanism) -> leakage::Leakage {
    let diag = Matrix::diag(doc.prior());
    match doc.mechanism() {
        MechanismKind::Unary { q01, q10 } => leakage::audit_unary(&diag, *q01, *q10, 2.0).unwrap(),
        MechanismKind::PerSecret { markov: None, .. } => {
            let eff = m.effective_channel().unwrap();
            let (nx, ny) = (doc.input().len(), eff.cols());
            let blocks: Vec<Matrix> = (0..doc.secret().len())
                .map(|s| Matrix::from_flat(nx, ny, eff.as_slice()[s * nx * ny..(s + 1) * nx * ny].to_vec()))
                .collect();
            leakage::audit(&diag, &leakage::induced_channel(&doc.p_sx(), &blocks), 2.0).unwrap()
        }
        _ => leakage::audit(&diag, &m.effective_channel().unwrap(), 2.0).unwrap(),
    }
}

/// Checks the module's property on one document and policy (panics on a violation).
pub fn check(doc_json: &Value, policy: &Policy) {
    let Ok(doc) = Document::from_json(&doc_json.to_string()) else { return };
    let m = match doc.verify(policy) {
        Ok(m) => m,
        Err(e) => {
            if e.code() == "policy_violated" {
                let v = doc.check(policy).unwrap();
                assert!(v.policy.iter().any(|c| !c.holds), "refused with no violated limit: {e}");
            }
            return;
        }
    };
    let nx = doc.input().len();
    let mut receipts = Vec::new();
    if let MechanismKind::Unary { .. } = doc.mechanism() {
        for y in 0..1usize << nx {
            let bits: Vec<bool> = (0..nx).map(|j| (y >> j) & 1 == 1).collect();
            if let Ok(r) = m.receipt_bits(&bits) {
                receipts.push(r);
            }
        }
    } else {
        for y in 0..doc.output().len() {
            if let Ok(r) = m.receipt(y) {
                receipts.push(r);
            }
        }
    }
    for r in &receipts {
        assert_eq!(r.input.entries.len(), nx, "one row per input value");
        assert_eq!(r.secret.is_some(), doc.has_secret(), "a secret section iff S is declared");
        for section in std::iter::once(&r.input).chain(r.secret.as_ref()) {
            for e in &section.entries {
                if e.prior == 0.0 {
                    assert_eq!(e.lift, 0.0);
                } else {
                    assert!(
                        e.lift >= section.min_lift_bound && e.lift <= section.max_lift_bound,
                        "lift {} of {} outside [{}, {}] in {doc_json}",
                        e.lift,
                        e.label,
                        section.min_lift_bound,
                        section.max_lift_bound
                    );
                }
            }
        }
    }
    let x = independent_x_audit(&doc, &m);
    for (limit, actual, name) in [
        (policy.max_ldp_x, x.ldp_x, "maxLdpX"),
        (policy.max_ldp, x.ldp_x, "maxLdp"),
        (policy.max_lip, x.lip, "maxLip"),
        (policy.max_eps_l, x.alip.eps_l, "maxEpsL"),
        (policy.max_eps_u, x.alip.eps_u, "maxEpsU"),
    ] {
        if let Some(b) = limit {
            assert!(within(actual, b.get()), "{name} = {b:?} accepted but the X-audit says {actual}: {doc_json}");
        }
    }
    let s = m.leakage();
    for (limit, actual) in [
        (policy.max_ldp_s, s.ldp),
        (policy.max_lip_s, s.lip),
        (policy.max_eps_l_s, s.alip.eps_l),
        (policy.max_eps_u_s, s.alip.eps_u),
    ] {
        if let Some(b) = limit {
            assert!(within(actual, b.get()));
        }
    }
}
