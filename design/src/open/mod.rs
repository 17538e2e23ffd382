//! The curator's side of the open-domain kinds (values are UTF-8 strings of at most a
//! stated number of bytes, hashed on the device): designers that write the documents
//! ([`designer`]), frequency oracles over any candidate list with standard errors
//! ([`estimate`]: OLH, Hadamard response, HCMS) and heavy hitters found without a
//! dictionary by prefix extension ([`pem`]).
//!
//! The estimators read a kind's parameters as the core's document fixes them
//! ([`OpenMechanism`], ε an [`Epsilon`]) and the reports as stored
//! (canonical text `"s:y"`, `"j:bit"`, `"j:l:bit"`, `"r:s:y"`, parsed by [`parse_report`]).
//! Every randomiser is the core's quantised keep-or-uniform sampler over g outputs; the
//! estimators use its exact quantised keep probability ([`Randomiser`]), not the
//! real-valued κ of the formula.

pub mod designer;
pub mod estimate;
pub mod pem;
mod sweep;

use alloc::string::String;

use privlift::open::OpenMechanism;
use privlift::param::Epsilon;
use privlift::sample::structured::MixSampler;
use privlift::{Error, Result};

/// Largest `max_bytes` of an open domain (the core's rule).
pub const MAX_BYTES: usize = privlift::open::value::MAX_VALUE_BYTES;
/// Largest `g` of local hashing (the core's rule).
pub const MAX_G: u32 = privlift::open::MAX_G;
/// Largest `bits` of Hadamard response (the core's rule).
pub const MAX_BITS: u32 = privlift::open::MAX_HADAMARD_BITS;
/// Largest `k` (hash functions) and `m` (columns) of HCMS (the core's rule).
pub const MAX_SKETCH: u32 = privlift::open::MAX_HCMS;

/// The g-ary keep-or-uniform randomiser as the core's sampler draws it: κ = (e^ε − 1) /
/// (e^ε + g − 1), quantised to an integer over 2⁶⁴ ([`MixSampler`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Randomiser {
    /// g.
    pub outputs: u32,
    /// The quantised κ: the probability of "keep" as the sampler draws it.
    pub keep: f64,
}

impl Randomiser {
    /// The randomiser of ε over `outputs` ≥ 2 values.
    ///
    /// # Errors
    /// `invalid_argument` for `outputs` outside [2, 65536].
    pub fn new(epsilon: Epsilon, outputs: u32) -> Result<Self> {
        if !(2..=MAX_G).contains(&outputs) {
            return Err(Error::invalid("g", alloc::format!("must be from 2 to {MAX_G}, got {outputs}")));
        }
        let kappa = privlift::document::krr_keep(outputs as usize, epsilon)?;
        let sampler = MixSampler::new(kappa, &alloc::vec![1.0; outputs as usize])?;
        let (w_keep, _) = sampler.weights();
        Ok(Randomiser { outputs, keep: w_keep as f64 / 18_446_744_073_709_551_616.0 })
    }

    /// P(the output is the input's own symbol), averaged over the symbol: κ + (1 − κ)/g.
    pub fn p_same(&self) -> f64 {
        self.keep + (1.0 - self.keep) / f64::from(self.outputs)
    }
}

/// A value of an open domain: the core's one rule ([`privlift::open::value::checked`]:
/// at most `max_bytes` UTF-8 bytes, no U+0000), for a candidate or a population's value.
///
/// # Errors
/// `invalid_argument` naming `value` and the limit (never the value).
pub fn check_value(value: &str, max_bytes: usize) -> Result<()> {
    privlift::open::value::checked("value", value, max_bytes).map(drop)
}

/// One stored report of an open kind, parsed from its canonical text (fields named as
/// the report's `output` members).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// `"s:y"`.
    Olh { seed: u32, y: u32 },
    /// `"j:bit"`.
    Hadamard { j: u32, bit: bool },
    /// `"j:l:bit"`.
    Hcms { j: u32, l: u32, bit: bool },
    /// `"r:s:y"`.
    HeavyHitters { round: u32, seed: u32, y: u32 },
}

/// Parses the canonical text of a report of `mechanism`'s kind and checks every field's
/// range (`unknown_output` naming the field, never the text).
pub fn parse_report(mechanism: &OpenMechanism, text: &str) -> Result<Report> {
    let bad = |field: &str| Error::UnknownOutput { value: alloc::format!("a report whose `{field}` is out of range") };
    let mut parts = text.split(':');
    let mut field = |name: &'static str, below: u64| -> Result<u32> {
        let t = parts.next().ok_or_else(|| bad(name))?;
        // Canonical decimal: digits only, no leading zero (but "0").
        if t.is_empty() || t.len() > 10 || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0'))
        {
            return Err(bad(name));
        }
        let v: u64 = t.parse().map_err(|_| bad(name))?;
        if v >= below {
            return Err(bad(name));
        }
        Ok(v as u32)
    };
    let r = match mechanism {
        OpenMechanism::Olh { g, .. } => Report::Olh { seed: field("seed", 1 << 32)?, y: field("y", u64::from(*g))? },
        OpenMechanism::Hadamard { bits, .. } => {
            Report::Hadamard { j: field("j", 1u64 << *bits)?, bit: field("bit", 2)? == 1 }
        }
        OpenMechanism::Hcms { k, m, .. } => {
            Report::Hcms { j: field("j", u64::from(*k))?, l: field("l", u64::from(*m))?, bit: field("bit", 2)? == 1 }
        }
        OpenMechanism::HeavyHitters { g, prefix_bits, .. } => Report::HeavyHitters {
            round: field("round", prefix_bits.len() as u64)?,
            seed: field("seed", 1 << 32)?,
            y: field("y", u64::from(*g))?,
        },
    };
    if parts.next().is_some() {
        return Err(bad("output"));
    }
    Ok(r)
}

/// The canonical text of a report (what the collector stores).
pub fn canonical(report: &Report) -> String {
    match *report {
        Report::Olh { seed, y } => alloc::format!("{seed}:{y}"),
        Report::Hadamard { j, bit } => alloc::format!("{j}:{}", u8::from(bit)),
        Report::Hcms { j, l, bit } => alloc::format!("{j}:{l}:{}", u8::from(bit)),
        Report::HeavyHitters { round, seed, y } => alloc::format!("{round}:{seed}:{y}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantised_keep_is_the_formula_within_a_word() {
        for (eps, g) in [(1.0, 4), (2.0, 8), (4.0, 56), (0.5, 2), (700.0, 2), (0.0, 3)] {
            let r = Randomiser::new(Epsilon::new("epsilon", eps).unwrap(), g).unwrap();
            let e = f64::exp(eps);
            let kappa = if e.is_finite() { (e - 1.0) / (e + f64::from(g) - 1.0) } else { 1.0 };
            // At most κ (the 64-bit draw within rounding of it), and short of it by less
            // than g/2³² (a 32-bit draw: `privlift::sample::keep_or_uniform`).
            let short = kappa - r.keep;
            assert!(short > -1e-15 && short < f64::from(g) / 4_294_967_296.0, "{eps} {g}: {} vs {kappa}", r.keep);
        }
        assert_eq!(Randomiser::new(Epsilon::new("epsilon", 1.0).unwrap(), 1).unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn reports_parse_only_in_canonical_form_and_range() {
        let eps = Epsilon::new("epsilon", 1.0).unwrap();
        let olh = OpenMechanism::Olh { epsilon: eps, g: 4 };
        assert_eq!(parse_report(&olh, "4294967295:3").unwrap(), Report::Olh { seed: u32::MAX, y: 3 });
        for bad in ["4294967296:0", "1:4", "01:2", "1:2:3", "", ":", "1", "-1:2", "1: 2", "+1:2"] {
            let e = parse_report(&olh, bad).unwrap_err();
            assert_eq!(e.code(), "unknown_output", "{bad}");
        }
        let hcms = OpenMechanism::Hcms { epsilon: eps, k: 16, m: 8 };
        let r = parse_report(&hcms, "15:7:1").unwrap();
        assert_eq!(canonical(&r), "15:7:1");
        assert!(parse_report(&hcms, "16:7:1").unwrap_err().to_string().contains("`j`"));
        assert!(parse_report(&hcms, "1:7:2").unwrap_err().to_string().contains("`bit`"));
        let had = OpenMechanism::Hadamard { epsilon: eps, bits: 32, hash_seed: 0 };
        assert_eq!(parse_report(&had, "4294967295:0").unwrap(), Report::Hadamard { j: u32::MAX, bit: false });
    }

    #[test]
    fn values_are_bounded_and_nul_free_and_never_echoed() {
        assert!(check_value("apple", 5).is_ok());
        let e = check_value("banana", 5).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        assert!(!e.to_string().contains("banana"));
        assert!(check_value("a\0", 5).is_err());
    }
}
