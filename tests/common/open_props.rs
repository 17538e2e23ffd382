//! The open-domain properties of the fuzz target `open` (fuzz/fuzz_targets/open.rs), which
//! `tests/properties.rs` replays on its committed seeds on stable: bytes → an open-domain
//! document, a value and a report, split at the first two NUL bytes (`DOC \0 VALUE \0
//! REPORT`), through every path a client and a collector take:
//!
//! * the document: `OpenDocument::from_json` → `audit` → `check` / `verify` under a policy
//!   whose limits sit around the audit (fuzzer-chosen, from the last bytes); `verify`
//!   succeeds exactly when `check` says every claim and limit holds, and then every limit
//!   holds on the audit;
//! * the client: `perturb(VALUE)` (the caller's random source) succeeds exactly when the
//!   value obeys the document's rule; its report reads back from its parts, its canonical
//!   text and its JSON; its receipt exists and lies within the audit's bounds;
//! * the collector: REPORT validated as the collector validates a report's `output`
//!   (`OpenReport::from_json`) and as it reads a stored one (`OpenReport::parse`): refused
//!   with `json` or `unknown_output` only; an accepted one reads back and has a receipt
//!   within the audit's bounds.
//!
//! The receipt bound: εl = −ln of the least lift any report gives any value, εu = ln of the
//! greatest, so every lift a receipt shows of a value of positive prior lies in
//! [e^−εl, e^εu] (relative tolerance `REL` for the rounding of the logarithms).
#![allow(dead_code)]

use privlift::open::{report_fields, OpenAudit, OpenDocument, OpenReceipt, OpenReport, VerifiedOpen};
use privlift::param::Budget;
use privlift::rng::Randomness;
use privlift::verify::within;
use privlift::{Error, Policy};

/// The relative tolerance of the receipt bound.
pub const REL: f64 = 1e-9;

/// Every property on `data` (`DOC \0 VALUE \0 REPORT`), perturbing with `rng`.
pub fn check<R: Randomness + ?Sized>(data: &[u8], rng: &mut R) {
    let mut parts = data.splitn(3, |&b| b == 0);
    let (doc, value, report) = (parts.next().unwrap_or(&[]), parts.next(), parts.next());
    let Ok(text) = core::str::from_utf8(doc) else { return };
    let Ok(doc) = OpenDocument::from_json(text) else { return };
    if std::env::var_os("PRIVLIFT_FUZZ_PRINT").is_some() {
        eprintln!("document: {}", doc.to_json());
    }
    let Ok(audit) = doc.audit() else { return };
    // ∞ is a figure (a quantised channel with a zero entry, at a large ε); NaN is not.
    for v in [audit.ldp_x, audit.lip, audit.eps_l, audit.eps_u] {
        assert!(v >= 0.0, "{audit:?}");
    }
    let policy = policy_around(&audit, data);
    let Some(m) = verified_agreeing(&doc, &policy) else { return };
    if let Some(value) = value.and_then(|v| core::str::from_utf8(v).ok()) {
        client(&doc, &m, value, rng);
    }
    if let Some(report) = report.and_then(|r| core::str::from_utf8(r).ok()) {
        collector(&m, report);
    }
}

/// Up to four limits (LDP, LIP, εl, εu w.r.t. X), each absent or between half and three
/// halves of the audited figure, chosen by the input's last bytes.
fn policy_around(audit: &OpenAudit, data: &[u8]) -> Policy {
    let tail: Vec<u8> = data.iter().rev().take(4).copied().collect();
    let limit = |i: usize, audited: f64| {
        let v = tail.get(i).filter(|&&b| b % 3 == 0).map(|&b| audited * (0.5 + f64::from(b) / 255.0));
        v.and_then(|v| Budget::new("limit", v).ok())
    };
    Policy {
        max_ldp_x: limit(0, audit.ldp_x),
        max_lip: limit(1, audit.lip),
        max_eps_l: limit(2, audit.eps_l),
        max_eps_u: limit(3, audit.eps_u),
        ..Policy::default()
    }
}

/// `verify` succeeds exactly when `check` does and `holds` says its claims (at least one)
/// and policy limits hold (the same prepared sampler, so the two must agree); when both
/// fail, they fail alike. Shared with the fuzz targets of every kind.
pub fn verify_agrees<C, V>(check: &Result<C, Error>, verified: &Result<V, Error>, holds: impl Fn(&C) -> bool) {
    match (check, verified) {
        (Err(e1), Err(e2)) => assert_eq!(e1, e2, "check and verify fail differently"),
        (Err(e), Ok(_)) => panic!("check failed ({e}) but verify succeeded"),
        (Ok(c), r) => {
            let should = holds(c);
            assert_eq!(should, r.is_ok(), "check says {should}, verify says {:?}", r.as_ref().err());
        }
    }
}

/// `check` and `verify` agree; a verified document's limits hold on its audit.
fn verified_agreeing(doc: &OpenDocument, policy: &Policy) -> Option<VerifiedOpen> {
    let check = doc.check(policy);
    let verified = doc.verify(policy);
    verify_agrees(&check, &verified, |c| !c.claims.is_empty() && c.claims_hold && c.policy_holds);
    let m = verified.ok()?;
    let a = m.audit();
    for (limit, audited) in
        [(policy.max_ldp_x, a.ldp_x), (policy.max_lip, a.lip), (policy.max_eps_l, a.eps_l), (policy.max_eps_u, a.eps_u)]
    {
        if let Some(l) = limit {
            assert!(within(audited, l.get()), "verified, yet audited {audited} > limit {l:?}");
        }
    }
    Some(m)
}

/// Perturbs `value`, reads the report back every way the wire carries it, and checks its
/// receipt.
fn client<R: Randomness + ?Sized>(doc: &OpenDocument, m: &VerifiedOpen, value: &str, rng: &mut R) {
    let sent = m.perturb(value, rng);
    assert_eq!(sent.is_ok(), doc.check_value(value).is_ok(), "perturb and the value rule disagree: {sent:?}");
    let Ok(report) = sent else { return };
    reads_back(m, &report);
    receipt_within_audit(m, &report);
}

/// A report as the collector receives it (`output` of the envelope) and as it stores it.
fn collector(m: &VerifiedOpen, text: &str) {
    let mech = m.document().mechanism();
    for read in [OpenReport::from_json(mech, text), OpenReport::parse(mech, text)] {
        match read {
            Ok(report) => {
                reads_back(m, &report);
                receipt_within_audit(m, &report);
            }
            Err(e) => assert!(matches!(e.code(), "json" | "unknown_output"), "{text:?}: {e}"),
        }
    }
}

/// The report equals what its parts, its canonical text and its JSON read back to.
fn reads_back(m: &VerifiedOpen, report: &OpenReport) {
    let mech = m.document().mechanism();
    let parts: Vec<u64> = report.parts().into_iter().map(u64::from).collect();
    assert_eq!(parts.len(), report_fields(mech).len());
    assert_eq!(OpenReport::from_parts(mech, &parts).as_ref(), Ok(report));
    assert_eq!(OpenReport::parse(mech, &report.canonical()).as_ref(), Ok(report), "{}", report.canonical());
    let json = serde_json::to_string(report).unwrap();
    assert_eq!(OpenReport::from_json(mech, &json).as_ref(), Ok(report), "{json}");
}

/// The receipt of a valid report exists, and each lift it shows of a value of positive
/// prior lies within [e^−εl, e^εu]; a value of prior 0 shows 0.
fn receipt_within_audit(m: &VerifiedOpen, report: &OpenReport) {
    let r: OpenReceipt = m.receipt(report).unwrap_or_else(|e| panic!("no receipt for {report:?}: {e}"));
    assert_eq!(&r.report, report);
    let a = m.audit();
    let (lo, hi) = ((-a.eps_l).exp() * (1.0 - REL), a.eps_u.exp() * (1.0 + REL));
    let mut rows: Vec<(f64, f64, f64)> = r.listed.iter().map(|e| (e.prior, e.min_lift, e.max_lift)).collect();
    rows.push((r.other_mass, r.unlisted_min_lift, r.unlisted_max_lift));
    for (prior, min, max) in rows {
        assert!(min.is_finite() && max.is_finite() && 0.0 <= min && min <= max, "{r:?}");
        if prior > 0.0 {
            assert!(lo <= min && max <= hi, "lifts [{min}, {max}] outside [{lo}, {hi}]: {r:?}");
        } else {
            assert_eq!((min, max), (0.0, 0.0), "{r:?}");
        }
    }
}
