//! An open kind's report: the part drawn independently of the value (seed, row, hash,
//! column, round) and the randomiser's output. Its JSON object is what the report
//! envelope carries; its canonical text (`"s:y"`, `"j:bit"`, `"j:l:bit"`, `"r:s:y"`) what a
//! collector stores. Both are validated against the document like any output.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use super::OpenMechanism;
use crate::document::codec::reader::{Fields, Reader};
use crate::error::{Error, Result};

/// One report of an open kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OpenReport {
    /// `olh`: the seed and the randomised bucket.
    Olh {
        /// The hash seed s.
        seed: u32,
        /// y ∈ [0, g).
        y: u32,
    },
    /// `hadamard`: the Hadamard row and the randomised bit.
    Hadamard {
        /// j ∈ [0, 2^bits).
        j: u32,
        /// The released bit.
        bit: u8,
    },
    /// `hcms`: the hash, the column and the randomised bit.
    Hcms {
        /// The hash function j ∈ [0, k).
        j: u32,
        /// The column l ∈ [0, m).
        l: u32,
        /// The released bit.
        bit: u8,
    },
    /// `heavy_hitters`: the round (0-based), the seed and the randomised bucket.
    HeavyHitters {
        /// r ∈ [0, R).
        round: u32,
        /// The hash seed s.
        seed: u32,
        /// y ∈ [0, g).
        y: u32,
    },
}

/// The JSON fields of `m`'s reports, in canonical order (`["seed", "y"]` for `olh`, …).
pub fn report_fields(m: &OpenMechanism) -> &'static [&'static str] {
    match m {
        OpenMechanism::Olh { .. } => &["seed", "y"],
        OpenMechanism::Hadamard { .. } => &["j", "bit"],
        OpenMechanism::Hcms { .. } => &["j", "l", "bit"],
        OpenMechanism::HeavyHitters { .. } => &["round", "seed", "y"],
    }
}

impl OpenReport {
    /// The report's numbers in canonical order ([`report_fields`]), without allocating:
    /// the first `len` entries of the array.
    #[inline(always)]
    pub fn numbers(&self) -> ([u32; 3], usize) {
        match *self {
            OpenReport::Olh { seed, y } => ([seed, y, 0], 2),
            OpenReport::Hadamard { j, bit } => ([j, bit.into(), 0], 2),
            OpenReport::Hcms { j, l, bit } => ([j, l, bit.into()], 3),
            OpenReport::HeavyHitters { round, seed, y } => ([round, seed, y], 3),
        }
    }

    /// The report of `m`'s kind from its numbers in canonical order (the first
    /// [`report_fields`]`(m).len()` of them), as the perturbation drew them: in range by
    /// construction, so not checked ([`Self::from_parts`] checks a report read from outside).
    #[inline(always)]
    pub(crate) fn from_numbers(m: &OpenMechanism, [a, b, c]: [u32; 3]) -> Self {
        match m {
            OpenMechanism::Olh { .. } => OpenReport::Olh { seed: a, y: b },
            OpenMechanism::Hadamard { .. } => OpenReport::Hadamard { j: a, bit: b as u8 },
            OpenMechanism::Hcms { .. } => OpenReport::Hcms { j: a, l: b, bit: c as u8 },
            OpenMechanism::HeavyHitters { .. } => OpenReport::HeavyHitters { round: a, seed: b, y: c },
        }
    }

    /// The report's numbers in canonical order.
    pub fn parts(&self) -> Vec<u32> {
        let (numbers, len) = self.numbers();
        numbers[..len].to_vec()
    }

    /// The stored canonical text: the numbers in decimal, joined by `:`.
    pub fn canonical(&self) -> String {
        let mut s = String::new();
        for (i, v) in self.parts().into_iter().enumerate() {
            if i > 0 {
                s.push(':');
            }
            s.push_str(&alloc::format!("{v}"));
        }
        s
    }

    /// The randomiser's output: the column of the channel the report was drawn from.
    pub fn output(&self) -> u32 {
        match *self {
            OpenReport::Olh { y, .. } | OpenReport::HeavyHitters { y, .. } => y,
            OpenReport::Hadamard { bit, .. } | OpenReport::Hcms { bit, .. } => bit.into(),
        }
    }

    /// The report of `m`'s kind from its numbers in canonical order, validated.
    ///
    /// # Errors
    /// `unknown_output` naming the field out of range, or the count of numbers.
    pub fn from_parts(m: &OpenMechanism, parts: &[u64]) -> Result<Self> {
        let names = report_fields(m);
        if parts.len() != names.len() {
            return Err(Error::UnknownOutput {
                value: alloc::format!("a `{}` report has {} fields, got {}", m.tag(), names.len(), parts.len()),
            });
        }
        let field = |i: usize, below: u64| -> Result<u32> {
            if parts[i] < below {
                Ok(parts[i] as u32)
            } else {
                Err(Error::UnknownOutput {
                    value: alloc::format!("`{}` = {} is not below {below}", names[i], parts[i]),
                })
            }
        };
        let all = 1u64 << 32;
        Ok(match m {
            OpenMechanism::Olh { g, .. } => OpenReport::Olh { seed: field(0, all)?, y: field(1, (*g).into())? },
            OpenMechanism::Hadamard { bits, .. } => {
                OpenReport::Hadamard { j: field(0, 1u64 << bits)?, bit: field(1, 2)? as u8 }
            }
            OpenMechanism::Hcms { k, m, .. } => {
                OpenReport::Hcms { j: field(0, (*k).into())?, l: field(1, (*m).into())?, bit: field(2, 2)? as u8 }
            }
            OpenMechanism::HeavyHitters { g, prefix_bits, .. } => OpenReport::HeavyHitters {
                round: field(0, prefix_bits.len() as u64)?,
                seed: field(1, all)?,
                y: field(2, (*g).into())?,
            },
        })
    }

    /// The report from its canonical text (`"s:y"`, …), validated against `m`.
    ///
    /// # Errors
    /// `unknown_output` for text that is not decimal numbers joined by `:`, or a number
    /// out of range.
    pub fn parse(m: &OpenMechanism, text: &str) -> Result<Self> {
        // By bytes, with no `str` pattern or parser: neither is linked into the client module.
        let parts: Option<Vec<u64>> = text
            .as_bytes()
            .split(|&b| b == b':')
            .map(|p| {
                let digits = !p.is_empty() && p.len() <= 10 && p.iter().all(u8::is_ascii_digit);
                digits.then(|| p.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0')))
            })
            .collect();
        match parts {
            Some(p) => Self::from_parts(m, &p),
            None => Err(Error::UnknownOutput {
                value: alloc::format!("a `{}` report is decimal numbers joined by `:`", m.tag()),
            }),
        }
    }

    /// The report from its JSON object (`{"seed": s, "y": y}`, …), validated against `m`.
    ///
    /// # Errors
    /// `json` for unknown, duplicate or missing fields; `unknown_output` out of range.
    pub fn from_json(m: &OpenMechanism, text: &str) -> Result<Self> {
        let names = report_fields(m);
        let mut parts = [0u64; 3];
        let mut r = Reader::new(text.as_bytes());
        let mut f = Fields::new(names);
        r.object("an open report", &mut |r, key| {
            let i = f.field(r, &key)?;
            parts[i] = r.unsigned("u32", u32::MAX.into())?;
            Ok(())
        })?;
        f.require(&r, names)?;
        r.end()?;
        Self::from_parts(m, &parts[..names.len()])
    }
}
