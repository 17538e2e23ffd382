//! The privacy receipt: what the released output tells anyone about each secret value.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::VerifiedMechanism;
use crate::error::{Error, Result};
use crate::spec::MechanismKind;

/// One secret value's row of a receipt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceiptEntry {
    pub secret_index: usize,
    pub secret: String,
    /// P(s).
    pub prior: f64,
    /// P(s|y) for the released y.
    pub posterior: f64,
    /// l(s,y) = P(s|y)/P(s); 0 when P(s) = 0.
    pub lift: f64,
}

/// For the output actually released: every secret's prior, posterior and lift, and the
/// bounds the verified claims guarantee.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Receipt {
    pub mechanism_id: String,
    /// Index of the released output (absent for a unary-encoding bit vector).
    pub output_index: Option<usize>,
    /// Label of the released output (for unary encoding, the bits as `0`/`1` characters,
    /// bit j first for input label j).
    pub output: String,
    pub entries: Vec<ReceiptEntry>,
    /// e^{−εl}: no lift can fall below this (from the tightest verified claim, widened by
    /// the verification tolerance: ε·(1 + 1e-9) + 1e-12).
    pub min_lift_bound: f64,
    /// e^{εu}: no lift can exceed this.
    pub max_lift_bound: f64,
    /// The claimed εl and εu (nats) those bounds come from.
    pub eps_l: f64,
    pub eps_u: f64,
    /// The audited εl and εu of the sampler that ran (≤ the claimed ones).
    pub audited_eps_l: f64,
    pub audited_eps_u: f64,
}

impl Receipt {
    pub(crate) fn new(m: &VerifiedMechanism, y: usize) -> Result<Self> {
        let doc = m.document();
        let Some(out_label) = doc.output().label(y) else {
            return Err(Error::UnknownOutput {
                value: alloc::format!("index {y} (the output alphabet has {} values)", doc.output().len()),
            });
        };
        let Some(j) = m.joint() else {
            return Err(Error::InvalidArgument {
                name: "mechanism".into(),
                reason: "unary encoding releases a bit vector: use receipt_bits".into(),
            });
        };
        if !j.output_possible(y) {
            return Err(Error::UnknownOutput {
                value: alloc::format!("{out_label:?} (this mechanism never releases it)"),
            });
        }
        let entries = (0..j.ns())
            .map(|s| {
                let prior = j.p_s()[s];
                let posterior = j.posterior(s, y);
                entry(m, s, prior, posterior, if prior > 0.0 { posterior / prior } else { 0.0 })
            })
            .collect();
        Ok(Self::with_bounds(m, Some(y), out_label.into(), entries))
    }

    pub(crate) fn for_bits(m: &VerifiedMechanism, (q01, q10): (f64, f64), bits: &[bool]) -> Result<Self> {
        let doc = m.document();
        let p_sx = doc.p_sx();
        let mut entries = Vec::with_capacity(p_sx.rows());
        for s in 0..p_sx.rows() {
            let prior: f64 = p_sx.row(s).iter().sum();
            if prior > 0.0 {
                let Some(lift) = crate::leakage::unary_lift(p_sx, q01, q10, s, bits) else {
                    return Err(Error::UnknownOutput {
                        value: "this bit vector (this mechanism never releases it)".into(),
                    });
                };
                entries.push(entry(m, s, prior, lift * prior, lift));
            } else {
                entries.push(entry(m, s, 0.0, 0.0, 0.0));
            }
        }
        let label: String = bits.iter().map(|&b| if b { '1' } else { '0' }).collect();
        Ok(Self::with_bounds(m, None, label, entries))
    }

    fn with_bounds(m: &VerifiedMechanism, y: Option<usize>, output: String, entries: Vec<ReceiptEntry>) -> Self {
        // Every verified claim bounds the lift: ε-LDP (w.r.t. S, or w.r.t. X for a Markov
        // mechanism, by the linkage inequality) and ε-LIP give εl, εu ≤ ε (Jiang et al.
        // Sec. II-C: ε-LDP implies ε-LIP); ALIP gives each side. LDP w.r.t. X says nothing
        // about S for a non-Markov (per-secret) mechanism, so it is not used there.
        let doc = m.document();
        let c = doc.claims();
        let non_markov = matches!(doc.mechanism(), MechanismKind::PerSecret { markov: None, .. });
        let ldp_x = if non_markov { None } else { c.ldp_x };
        let mut eps_l = f64::INFINITY;
        let mut eps_u = f64::INFINITY;
        for e in [c.ldp, ldp_x, c.lip].into_iter().flatten() {
            eps_l = eps_l.min(e);
            eps_u = eps_u.min(e);
        }
        if let Some(a) = c.alip {
            eps_l = eps_l.min(a.eps_l);
            eps_u = eps_u.min(a.eps_u);
        }
        // A BP-LIP claim bounds the lift under each of its priors; it applies to the
        // receipt when the document's own prior is one of them.
        if let Some(bp) = &c.bp_lip {
            let own = doc.prior();
            if bp.priors.iter().any(|p| p.iter().zip(own).all(|(a, b)| (a - b).abs() <= 1e-12)) && !doc.has_secret() {
                eps_l = eps_l.min(bp.eps);
                eps_u = eps_u.min(bp.eps);
            }
        }
        let leak = m.leakage();
        // Verification accepted each claim up to its tolerance (crate::verify), so the
        // guaranteed bounds are the claims widened by that same tolerance, rounded out.
        let widen =
            |e: f64| crate::numeric::next_up(e * (1.0 + crate::verify::REL_TOLERANCE) + crate::verify::ABS_TOLERANCE);
        Receipt {
            mechanism_id: doc.id().into(),
            output_index: y,
            output,
            entries,
            min_lift_bound: crate::numeric::next_down(libm::exp(-widen(eps_l))),
            max_lift_bound: crate::numeric::next_up(libm::exp(widen(eps_u))),
            eps_l,
            eps_u,
            audited_eps_l: leak.alip.eps_l,
            audited_eps_u: leak.alip.eps_u,
        }
    }
}

fn entry(m: &VerifiedMechanism, s: usize, prior: f64, posterior: f64, lift: f64) -> ReceiptEntry {
    ReceiptEntry {
        secret_index: s,
        secret: m.document().secret().label(s).unwrap_or_default().into(),
        prior,
        posterior,
        lift,
    }
}
