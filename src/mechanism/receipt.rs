//! The privacy receipt: what the released output tells anyone about each secret value.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::VerifiedMechanism;
use crate::error::{Error, Result};

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
    pub output_index: usize,
    pub output: String,
    pub entries: Vec<ReceiptEntry>,
    /// e^{−εl}: no lift can fall below this (from the tightest verified claim).
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
        let j = m.joint();
        if !j.output_possible(y) {
            return Err(Error::UnknownOutput {
                value: alloc::format!("{out_label:?} (this mechanism never releases it)"),
            });
        }
        let entries = (0..j.ns())
            .map(|s| {
                let prior = j.p_s()[s];
                let posterior = j.posterior(s, y);
                ReceiptEntry {
                    secret_index: s,
                    secret: doc.secret().label(s).unwrap_or_default().into(),
                    prior,
                    posterior,
                    lift: if prior > 0.0 { posterior / prior } else { 0.0 },
                }
            })
            .collect();
        // Every verified claim bounds the lift: ε-LDP (w.r.t. X or S) and ε-LIP give
        // εl, εu ≤ ε (Jiang et al. Sec. II-C: ε-LDP implies ε-LIP); ALIP gives each side.
        let c = doc.claims();
        let mut eps_l = f64::INFINITY;
        let mut eps_u = f64::INFINITY;
        for e in [c.ldp, c.ldp_x, c.lip].into_iter().flatten() {
            eps_l = eps_l.min(e);
            eps_u = eps_u.min(e);
        }
        if let Some(a) = c.alip {
            eps_l = eps_l.min(a.eps_l);
            eps_u = eps_u.min(a.eps_u);
        }
        let leak = m.leakage();
        Ok(Receipt {
            mechanism_id: doc.id().into(),
            output_index: y,
            output: out_label.into(),
            entries,
            min_lift_bound: libm::exp(-eps_l),
            max_lift_bound: libm::exp(eps_u),
            eps_l,
            eps_u,
            audited_eps_l: leak.alip.eps_l,
            audited_eps_u: leak.alip.eps_u,
        })
    }
}
