//! `privlift verify DOC.json [--policy POLICY.json]`: verifies a document exactly as a
//! client does — the same library calls as the wasm build (`Policy::from_entries` for the
//! policy, `Document::verify` / `ContinuousDocument::verify` on the exact sampler) — and
//! prints one JSON object:
//!
//! * success (exit 0): `{"verified": true, "id", "checks": [...], "receipt_bounds":
//!   {"min_lift", "max_lift"}}`, every claim and policy check, and the bounds every
//!   receipt of the user's values states;
//! * refusal (exit 1): `{"verified": false, "error": {"code", "message"}}`, for any
//!   document, policy or file the library refuses.

use privlift::any::is_continuous;
use privlift::verify::work_budget;
use privlift::verify::Check;
use privlift::{ContinuousDocument, ContinuousPolicy, Document, Policy};
use serde::Serialize;

use privlift::numeric::{next_down, next_up};

use crate::args;
use crate::error::CliError;
use crate::out::{CheckOut, Num};

#[derive(Serialize)]
struct Bounds {
    min_lift: Num,
    max_lift: Num,
}

#[derive(Serialize)]
struct Verified<'a> {
    verified: bool,
    id: &'a str,
    checks: Vec<CheckOut>,
    receipt_bounds: Bounds,
}

#[derive(Serialize)]
struct Refused {
    verified: bool,
    error: ErrorOut,
}

#[derive(Serialize)]
struct ErrorOut {
    code: &'static str,
    message: String,
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("verify", argv, &["policy"], &[])?;
    if a.help {
        return crate::help::print("verify");
    }
    let path = a.one_positional("`privlift verify` needs DOC.json")?;
    let text = match verify(path, a.value("policy")) {
        Ok(t) => t,
        Err(e) => {
            let out = Refused { verified: false, error: ErrorOut { code: e.code(), message: e.to_string() } };
            crate::out::print_stdout(&json_line(&out).map_err(CliError::from)?)?;
            return Err(CliError::Reported);
        }
    };
    crate::out::print_stdout(&text)
}

fn json_line<T: Serialize>(v: &T) -> Result<String, privlift::Error> {
    let mut s = serde_json::to_string(v).map_err(|e| privlift::Error::Json { message: e.to_string() })?;
    s.push('\n');
    Ok(s)
}

fn checks(claims: &[Check], policy: &[Check]) -> Vec<CheckOut> {
    claims.iter().chain(policy).map(CheckOut::from).collect()
}

/// The success line, or the library's refusal. A discrete document is read within its
/// policy's verification budget (`Document::from_json_within`), so the policy is read
/// first.
fn verify(path: &str, policy: Option<&str>) -> Result<String, privlift::Error> {
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| privlift::Error::Io { message: format!("{p}: {e}") });
    let text = read(path)?;
    let policy_text = policy.map(read).transpose()?;
    if privlift::open::is_open(text.as_bytes()) {
        return verify_open(&text, policy_text.as_deref());
    }
    let out = match is_continuous(text.as_bytes()) {
        false => {
            let policy = policy_text.as_deref().map_or(Ok(Policy::default()), Policy::from_json)?;
            let doc = Document::from_json_within(text.as_bytes(), work_budget(policy.max_verify_work)?)?;
            let m = doc.verify(&policy)?;
            let v = m.verification();
            let (lo, hi) = m.receipt_bounds();
            json_line(&Verified {
                verified: true,
                id: doc.id(),
                checks: checks(&v.claims, &v.policy),
                receipt_bounds: Bounds { min_lift: Num(lo), max_lift: Num(hi) },
            })
        }
        true => {
            let policy = policy_text.as_deref().map_or(Ok(ContinuousPolicy::default()), ContinuousPolicy::from_json)?;
            let doc = ContinuousDocument::from_json(&text)?;
            let m = doc.verify(&policy)?;
            let v = m.verification();
            // The ratio P(y|x)/P(y) of every receipt lies within e^{±pure ε-LIP}
            // (0 and ∞ for Gaussian noise, whose guarantee is (ε, δ)).
            let e = v.audit.lip_pure_eps;
            json_line(&Verified {
                verified: true,
                id: doc.id(),
                checks: checks(&v.claims, &v.policy),
                receipt_bounds: Bounds {
                    min_lift: Num(next_down((-e).exp()).max(0.0)),
                    max_lift: Num(next_up(e.exp())),
                },
            })
        }
    };
    out
}

/// An open-domain document: read within the policy's budget, verified; every lift of every
/// report lies within e^{−εl}..e^{εu} of its audit.
fn verify_open(text: &str, policy: Option<&str>) -> Result<String, privlift::Error> {
    let policy = policy.map_or(Ok(Policy::default()), Policy::from_json)?;
    let doc = privlift::open::OpenDocument::from_json_within(text.as_bytes(), work_budget(policy.max_verify_work)?)?;
    let m = doc.verify(&policy)?;
    let (v, a) = (m.verification(), m.audit());
    json_line(&Verified {
        verified: true,
        id: doc.id(),
        checks: checks(&v.claims, &v.policy),
        receipt_bounds: Bounds {
            min_lift: Num(next_down((-a.eps_l).exp()).max(0.0)),
            max_lift: Num(next_up(a.eps_u.exp())),
        },
    })
}
