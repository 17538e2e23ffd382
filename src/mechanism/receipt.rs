//! The privacy receipt: what the released output tells anyone about each value the user
//! could have entered, and about each value of the curator's secret.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::VerifiedMechanism;
use crate::document::{Alphabet, Matrix};
use crate::error::{Error, Result};
use crate::leakage::{Joint, Leakage};
use crate::numeric::widen;
use crate::param::Probability;

/// One row of a receipt: a value (of X, or of the secret S) and what the released output
/// does to the belief about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceiptEntry {
    /// Its index in the alphabet (X's labels, or S's).
    pub index: usize,
    /// Its label in that alphabet.
    pub label: String,
    /// P(v).
    pub prior: f64,
    /// P(v|y) for the released y.
    pub posterior: f64,
    /// l(v,y) = P(v|y)/P(v); 0 when P(v) = 0.
    pub lift: f64,
}

/// The rows of one variable (X or S) and the bounds that the audit of the channel that
/// runs proved for them, under the prior the rows report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceiptSection {
    /// One row per value of the variable, in alphabet order.
    pub entries: Vec<ReceiptEntry>,
    /// No lift of this section can fall below this, for any output (the audited min-lift,
    /// rounded down by the receipt's own rounding bound).
    pub min_lift_bound: f64,
    /// No lift of this section can exceed this, for any output.
    pub max_lift_bound: f64,
    /// The audited (εl, εu) in nats: ln of the bounds' reciprocal and of the upper bound.
    pub eps_l: f64,
    /// The audited εu in nats (see `eps_l`).
    pub eps_u: f64,
}

/// For the output actually released: the lift of **every value the user could have
/// entered** (X; always present), and, when the document declares a secret S ≠ X, the
/// lift of every secret value as a second section. Every bound is one the audit proved for
/// the sampler that runs under the prior the rows report; no bound comes from a claim.
///
/// Serialised with the X section's fields at the top level (`entries`, `min_lift_bound`,
/// …) and `secret` as a nested section (written by hand: `#[serde(flatten)]` cost the
/// client module kilobytes of generic map code).
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
    /// The `id` of the document whose mechanism released the output.
    pub mechanism_id: String,
    /// Index of the released output (absent for a unary-encoding bit vector).
    pub output_index: Option<usize>,
    /// Label of the released output (for unary encoding, the bits as `0`/`1` characters,
    /// bit j first for input label j).
    pub output: String,
    /// The user's own values X: `entries`, `min_lift_bound`, `max_lift_bound`, `eps_l`,
    /// `eps_u` (flattened into the receipt in JSON).
    pub input: ReceiptSection,
    /// The curator's secret S, when the document declares one.
    pub secret: Option<ReceiptSection>,
}

impl Serialize for Receipt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Receipt", 9)?;
        m.serialize_field("mechanism_id", &self.mechanism_id)?;
        m.serialize_field("output_index", &self.output_index)?;
        m.serialize_field("output", &self.output)?;
        m.serialize_field("entries", &self.input.entries)?;
        m.serialize_field("min_lift_bound", &self.input.min_lift_bound)?;
        m.serialize_field("max_lift_bound", &self.input.max_lift_bound)?;
        m.serialize_field("eps_l", &self.input.eps_l)?;
        m.serialize_field("eps_u", &self.input.eps_u)?;
        m.serialize_field("secret", &self.secret)?;
        m.end()
    }
}

impl Receipt {
    pub(crate) fn new(m: &VerifiedMechanism, y: usize) -> Result<Self> {
        let doc = m.document();
        let Some(out_label) = doc.output().label(y) else {
            return Err(Error::UnknownOutput {
                value: alloc::format!("index {y} (the output alphabet has {} values)", doc.output().len()),
            });
        };
        let Some(jx) = m.joint_x() else {
            return Err(Error::invalid("mechanism", "unary encoding releases a bit vector: use receipt_bits"));
        };
        if !jx.output_possible(y) {
            return Err(Error::UnknownOutput {
                value: alloc::format!("{} (this mechanism never releases it)", crate::error::Quoted(out_label)),
            });
        }
        // The lifts are computed exactly as the audit computes them (Joint::lift on the
        // same joint), so they lie within its bounds without any widening.
        let rows = |j: &Joint, labels: &Alphabet| -> Vec<ReceiptEntry> {
            (0..j.ns())
                .map(|v| {
                    let prior = j.p_s(v);
                    let lift = if prior > 0.0 { j.lift(v, y).unwrap_or(0.0) } else { 0.0 };
                    row(labels, v, prior, j.posterior(v, y), lift)
                })
                .collect()
        };
        let input = section(rows(jx, doc.input()), m.leakage_x(), 0.0);
        let secret = m.joint_s().map(|js| section(rows(js, doc.secret()), m.leakage(), 0.0));
        Ok(Receipt { mechanism_id: doc.id().into(), output_index: Some(y), output: out_label.into(), input, secret })
    }

    pub(crate) fn for_bits(
        m: &VerifiedMechanism,
        (q01, q10): (Probability, Probability),
        bits: &[bool],
    ) -> Result<Self> {
        let doc = m.document();
        let rows = |p_sx: &Matrix, labels: &Alphabet| -> Result<Vec<ReceiptEntry>> {
            let mut entries = Vec::with_capacity(p_sx.rows());
            let p_x = p_sx.col_sums();
            for s in 0..p_sx.rows() {
                let prior: f64 = p_sx.row(s).iter().sum();
                if prior > 0.0 {
                    let Some(lift) = crate::leakage::unary_lift(p_sx, &p_x, q01, q10, s, bits) else {
                        return Err(bits_never_released());
                    };
                    entries.push(row(labels, s, prior, lift * prior, lift));
                } else {
                    entries.push(row(labels, s, 0.0, 0.0, 0.0));
                }
            }
            Ok(entries)
        };
        // unary_lift is a ratio of two sums of ≤ |X| + 1 terms, computed differently from
        // the audit's closed forms: the bounds are widened by its own rounding bound.
        let g = m.receipt_rounding();
        let prior = doc.prior();
        let Some(lifts) = crate::leakage::unary_lifts_x(prior, q01, q10, bits) else {
            return Err(bits_never_released());
        };
        let x_rows = lifts.iter().enumerate().map(|(x, &l)| row(doc.input(), x, prior[x], l * prior[x], l)).collect();
        let input = section(x_rows, m.leakage_x(), g);
        let secret =
            if doc.has_secret() { Some(section(rows(&doc.p_sx(), doc.secret())?, m.leakage(), g)) } else { None };
        let label: String = bits.iter().map(|&b| if b { '1' } else { '0' }).collect();
        Ok(Receipt { mechanism_id: doc.id().into(), output_index: None, output: label, input, secret })
    }

    /// Every row of both sections.
    pub fn all_entries(&self) -> impl Iterator<Item = &ReceiptEntry> {
        self.input.entries.iter().chain(self.secret.iter().flat_map(|s| s.entries.iter()))
    }
}

/// A section with the bounds of `audit` (widened by the relative rounding `g` of the
/// receipt's own lift computation, 0 when it is the audit's).
fn section(entries: Vec<ReceiptEntry>, audit: &Leakage, g: f64) -> ReceiptSection {
    let (min_lift_bound, max_lift_bound) = widen(audit.min_lift, audit.max_lift, g);
    ReceiptSection { entries, min_lift_bound, max_lift_bound, eps_l: audit.alip.eps_l, eps_u: audit.alip.eps_u }
}

/// A bit vector the unary encoding cannot release (so it has no receipt).
fn bits_never_released() -> Error {
    Error::UnknownOutput { value: "this bit vector (this mechanism never releases it)".into() }
}

fn row(labels: &Alphabet, index: usize, prior: f64, posterior: f64, lift: f64) -> ReceiptEntry {
    ReceiptEntry { index, label: labels.label(index).unwrap_or_default().into(), prior, posterior, lift }
}
