//! The receipt of one report over the sparse prior: the lift of each listed value, and one
//! range that holds for every unlisted value, each worst case over how the unlisted mass
//! spreads (proved in [`super::lift`]).

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::lift::{self, Column};
use super::report::OpenReport;
use super::verify::VerifiedOpen;
use crate::error::{Error, Result};

/// One listed value of a receipt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenReceiptEntry {
    /// The listed value.
    pub value: String,
    /// Its prior probability.
    pub prior: f64,
    /// Whether its bucket under the report's seed is the reported output (its
    /// likelihood is then the larger one).
    pub in_bucket: bool,
    /// The least lift P(v|report)/P(v) over every spread of the unlisted mass.
    pub min_lift: f64,
    /// The greatest lift.
    pub max_lift: f64,
}

/// What one report tells about every value the user could have entered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenReceipt {
    /// The `id` of the document whose mechanism produced the report.
    pub mechanism_id: String,
    /// The report.
    pub report: OpenReport,
    /// One row per listed value, in the prior's order (empty without a prior).
    pub listed: Vec<OpenReceiptEntry>,
    /// The mass of every unlisted value together (1 without a prior).
    pub other_mass: f64,
    /// No unlisted value's lift is below this.
    pub unlisted_min_lift: f64,
    /// No unlisted value's lift exceeds this.
    pub unlisted_max_lift: f64,
    /// The audited εl and εu (nats): what any report can do to any value.
    pub eps_l: f64,
    /// See `eps_l`.
    pub eps_u: f64,
}

impl VerifiedOpen {
    /// The receipt of `report` (one this mechanism produced, or any valid report of its
    /// kind): O(listed values · their bytes), the listed values hashed under its seed.
    ///
    /// # Errors
    /// `unknown_output` for a report of another kind or out of range.
    pub fn receipt(&self, report: &OpenReport) -> Result<OpenReceipt> {
        let m = self.doc.mechanism();
        let report = OpenReport::from_parts(m, &report.parts().into_iter().map(u64::from).collect::<Vec<_>>())
            .and_then(|r| {
                if core::mem::discriminant(&r) == core::mem::discriminant(report) {
                    Ok(r)
                } else {
                    Err(Error::UnknownOutput { value: alloc::format!("not a `{}` report", m.tag()) })
                }
            })?;
        let y = report.output();
        let c: Column = self.randomiser.column(y as usize);
        let mut scratch = Vec::new();
        let (values, p, other) = match self.doc.prior() {
            Some(pr) => (pr.values(), pr.p(), pr.other_mass()),
            None => (&[][..], &[][..], 1.0),
        };
        let hits: Vec<bool> = values.iter().map(|v| self.bucket(&report, v.as_bytes(), &mut scratch) == y).collect();
        let in_bucket: Vec<f64> = p.iter().zip(&hits).map(|(&q, &h)| if h { q } else { 0.0 }).collect();
        let n = values.len();
        let mass = lift::receipt_mass(c, crate::numeric::sum(&in_bucket), crate::numeric::sum(p), other, n);
        let listed = values
            .iter()
            .zip(p)
            .zip(&hits)
            .map(|((v, &prior), &hit)| {
                let (min_lift, max_lift) = lift::lift_range(if hit { c.a } else { c.b }, mass, n);
                OpenReceiptEntry { value: v.clone(), prior, in_bucket: hit, min_lift, max_lift }
            })
            .collect();
        let (unlisted_min_lift, _) = lift::lift_range(c.b, mass, n);
        let (_, unlisted_max_lift) = lift::lift_range(c.a, mass, n);
        let audit = self.audit();
        Ok(OpenReceipt {
            mechanism_id: self.doc.id().into(),
            report,
            listed,
            other_mass: other,
            unlisted_min_lift,
            unlisted_max_lift,
            eps_l: audit.eps_l,
            eps_u: audit.eps_u,
        })
    }
}
