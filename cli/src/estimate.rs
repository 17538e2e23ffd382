//! `privlift estimate --spec SPEC.json --counts C1.json [--counts C2.json …]
//! [--method mle|unbiased] [--project]`: the curator's estimate of the input histogram
//! P_X from the counts of the reports: maximum likelihood by EM (the default; any channel,
//! with the directions it cannot identify) or the unbiased inversion (an invertible one).
//!
//! Counts are mergeable (the counts of two shards add up to those of their union), so
//! the curator counts with whatever engine they run, one `GROUP BY` per shard, and hands
//! over the count files: they are summed here.

use std::fmt;

use privlift::document::{Alphabet, MechanismKind};
use privlift::{Document, Error};
use privlift_design::estimate::{document_channel, estimate_document, Estimate};
use privlift_design::mle::estimate_mle;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::args;
use crate::files;
use crate::CliError;

/// `C.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CountsFile {
    counts: Counts,
    /// Number of reports: required for a unary encoding (counts are ones per bit),
    /// optional otherwise (then it must equal the sum of the counts).
    #[serde(default)]
    n: Option<f64>,
}

/// Counts per output, either in output-label order or keyed by output label.
#[derive(Debug)]
enum Counts {
    List(Vec<f64>),
    /// Entries in file order (duplicates kept, to be refused).
    ByLabel(Vec<(String, f64)>),
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Counts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of counts or an object mapping output labels to counts")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Counts, A::Error> {
                let mut v = Vec::new();
                while let Some(c) = seq.next_element::<f64>()? {
                    v.push(c);
                }
                Ok(Counts::List(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Counts, A::Error> {
                let mut v = Vec::new();
                while let Some(entry) = map.next_entry::<String, f64>()? {
                    v.push(entry);
                }
                Ok(Counts::ByLabel(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The counts as a vector in output-label order. Missing labels count 0; an unknown
/// label is `unknown_output`, a repeated one `duplicate_label`.
fn counts_vector(counts: Counts, output: &Alphabet) -> Result<Vec<f64>, Error> {
    match counts {
        Counts::List(v) => Ok(v),
        Counts::ByLabel(entries) => {
            let mut v = vec![0.0; output.len()];
            let mut seen = vec![false; output.len()];
            for (label, c) in entries {
                let i = output.position(&label).ok_or_else(|| Error::UnknownOutput { value: format!("{label:?}") })?;
                if std::mem::replace(&mut seen[i], true) {
                    return Err(Error::DuplicateLabel { field: "counts".into(), label });
                }
                v[i] = c;
            }
            Ok(v)
        }
    }
}

/// What `privlift estimate` prints. Field names and order are the CLI's contract.
#[derive(Debug, Serialize)]
struct Report<'a> {
    estimate: &'a [f64],
    std_error: &'a [f64],
    n: serde_json::Value,
    labels: &'a [String],
    /// `mle` or `unbiased`.
    method: &'static str,
    /// (mle) Directions of P_X the channel cannot identify (unit vectors summing to 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    unidentified: Option<&'a [Vec<f64>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    projected: Option<&'a [f64]>,
}

/// EM iterations `--method mle` runs at most.
const MAX_EM_ITERATIONS: usize = 200_000;

/// A count as JSON: an integer when it is one (exactly representable), else a float.
fn count_json(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&n) {
        serde_json::Value::from(n as u64)
    } else {
        serde_json::Value::from(n)
    }
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse_repeatable("estimate", argv, &["spec", "counts", "method"], &["counts"], &["project"])?;
    if a.help {
        return crate::help::print("estimate");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}`")));
    }
    let spec = a.value("spec").ok_or_else(|| CliError::usage("`privlift estimate` needs `--spec SPEC.json`"))?;
    let paths = a.values("counts");
    if paths.is_empty() {
        return Err(CliError::usage("`privlift estimate` needs `--counts C.json` (one per shard)"));
    }

    let method = a.value("method");
    if let Some(m) = method.filter(|m| !["mle", "unbiased"].contains(m)) {
        return Err(CliError::usage(format!("`--method` is `mle` or `unbiased`, not {m:?}")));
    }
    let doc = Document::from_json(&files::read(spec)?).map_err(|e| CliError::in_file(spec, e))?;
    let unary = matches!(doc.mechanism(), MechanismKind::Unary { .. });
    if unary && method == Some("mle") {
        return Err(CliError::usage(
            "maximum likelihood from a unary encoding's bit counts is not implemented: use `--method unbiased`",
        ));
    }
    // Maximum likelihood by default; unary encoding's bit counts have the unbiased estimate.
    let mle = method.unwrap_or(if unary { "unbiased" } else { "mle" }) == "mle";
    // The shards' counts, summed; their `n` too (each must give it, or none may).
    let (mut counts, mut n): (Option<Vec<f64>>, Option<Option<f64>>) = (None, None);
    for &path in &paths {
        let file: CountsFile = files::parse_file(path)?;
        let in_counts = |e| CliError::in_file(path, e);
        let shard = counts_vector(file.counts, doc.output()).map_err(in_counts)?;
        if let (Some(n), false) = (file.n, unary) {
            let sum: f64 = shard.iter().sum();
            if (n - sum).abs() > 1e-9 * sum.abs().max(1.0) {
                return Err(in_counts(Error::InvalidArgument {
                    name: "n".into(),
                    reason: format!("{n} reports, but the counts add up to {sum}"),
                }));
            }
        }
        counts = Some(match counts {
            None => shard,
            Some(total) if total.len() == shard.len() => total.iter().zip(&shard).map(|(a, b)| a + b).collect(),
            Some(total) => return Err(in_counts(Error::field("counts").dims(total.len(), shard.len()))),
        });
        n = match n {
            None => Some(file.n),
            Some(total) if total.is_some() == file.n.is_some() => Some(total.zip(file.n).map(|(a, b)| a + b)),
            Some(_) => {
                return Err(in_counts(Error::InvalidArgument {
                    name: "n".into(),
                    reason: "every shard gives `n`, or none does".into(),
                }))
            }
        };
    }
    let (counts, n) = (counts.unwrap_or_default(), n.flatten());
    let counts_path = paths.join(", ");
    let blame = |e: Error| match &e {
        // The channel itself cannot be inverted: a property of the document.
        Error::InvalidArgument { name, .. } if name == "mechanism" => CliError::in_file(spec, e),
        _ => CliError::in_file(&counts_path, e),
    };
    let (mut est, unidentified) = if mle {
        let w = document_channel(&doc).map_err(|e| CliError::in_file(spec, e))?;
        let m = estimate_mle(&w, &counts, MAX_EM_ITERATIONS).map_err(blame)?;
        let est = Estimate { estimate: m.estimate, std_error: m.std_error, n: m.n, projected: None };
        (est, Some(m.unidentified))
    } else {
        (estimate_document(&doc, &counts, n).map_err(blame)?, None)
    };
    if a.switch("project") {
        est = est.with_projection();
    }
    let report = Report {
        estimate: &est.estimate,
        std_error: &est.std_error,
        n: count_json(est.n),
        labels: doc.input().labels(),
        method: if mle { "mle" } else { "unbiased" },
        unidentified: unidentified.as_deref(),
        projected: est.projected.as_deref(),
    };
    let mut text = serde_json::to_string_pretty(&report).map_err(|e| Error::Json { message: e.to_string() })?;
    text.push('\n');
    crate::print_stdout(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CountsFile, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn counts_by_label_and_by_position() {
        let out = Alphabet::new("o", vec!["a".into(), "b".into(), "c".into()]).unwrap();
        let v = counts_vector(parse(r#"{"counts": {"c": 3, "a": 1}}"#).unwrap().counts, &out).unwrap();
        assert_eq!(v, [1.0, 0.0, 3.0]);
        let v = counts_vector(parse(r#"{"counts": [1, 2, 3]}"#).unwrap().counts, &out).unwrap();
        assert_eq!(v, [1.0, 2.0, 3.0]);
        let e = counts_vector(parse(r#"{"counts": {"z": 3}}"#).unwrap().counts, &out).unwrap_err();
        assert_eq!(e.code(), "unknown_output");
        let e = counts_vector(parse(r#"{"counts": {"a": 3, "a": 1}}"#).unwrap().counts, &out).unwrap_err();
        assert_eq!(e.code(), "duplicate_label");
        assert!(parse(r#"{"counts": "x"}"#).is_err());
        assert!(parse(r#"{"counts": [1], "extra": 1}"#).is_err());
    }

    #[test]
    fn n_is_an_integer_when_it_is_one() {
        assert_eq!(count_json(1000.0).to_string(), "1000");
        assert_eq!(count_json(2.5).to_string(), "2.5");
    }
}
