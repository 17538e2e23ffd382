//! `privlift estimate --doc DOC.json --counts C1.json [--counts C2.json …]
//! [--method mle|unbiased] [--project]`, or `privlift estimate --db URL --mechanism ID
//! [--sha256 HEX] [--candidates C.txt]` for the reports a collector stored (with
//! `--candidates`, an open-domain document's frequencies of those values): the curator's estimate of the input histogram
//! P_X from the counts of the reports: maximum likelihood by EM (the default; any channel,
//! with the directions it cannot identify) or the unbiased inversion (an invertible one).
//!
//! Counts are mergeable (the counts of two shards add up to those of their union), so
//! the curator counts with whatever engine they run, one `GROUP BY` per shard, and hands
//! over the count files: they are summed here.

use std::fmt;

use privlift::document::{Alphabet, MechanismKind};
use privlift::{Document, Error};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::args;
use crate::error::CliError;
use crate::estimation::{estimate, Blame, Method};
use crate::files;

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
                let i = output
                    .position(&label)
                    .ok_or_else(|| Error::UnknownOutput { value: privlift::error::Quoted(&label).to_string() })?;
                if std::mem::replace(&mut seen[i], true) {
                    return Err(Error::DuplicateLabel { field: "counts".into(), label });
                }
                v[i] = c;
            }
            Ok(v)
        }
    }
}

/// The mechanism document's path: `--doc DOC.json`, or the same option by its other
/// name, `--spec` (both are accepted; giving both is a usage error).
fn doc_path(a: &args::Args) -> Result<Option<&str>, CliError> {
    match (a.value("doc"), a.value("spec")) {
        (Some(_), Some(_)) => Err(CliError::usage("`--spec` is another name of `--doc`: give one of them")),
        (doc, spec) => Ok(doc.or(spec)),
    }
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse_repeatable(
        "estimate",
        argv,
        &["doc", "spec", "counts", "method", "db", "mechanism", "sha256", "candidates"],
        &["counts"],
        &["project"],
    )?;
    if a.help {
        return crate::help::print("estimate");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}`")));
    }
    let method = Method::parse(a.value("method"))?;
    if let Some(db) = a.value("db") {
        if doc_path(&a)?.is_some() || !a.values("counts").is_empty() {
            return Err(CliError::usage(
                "`--db` takes the document and the counts from the database: no `--doc` or `--counts`",
            ));
        }
        let id = a
            .value("mechanism")
            .ok_or_else(|| CliError::usage("`privlift estimate --db URL` needs `--mechanism ID`"))?;
        if let Some(path) = a.value("candidates") {
            if a.value("method").is_some() || a.switch("project") {
                return Err(CliError::usage("`--method` and `--project` do not apply with `--candidates`"));
            }
            return crate::out::print_json(&crate::collect::candidates_from_db(db, id, a.value("sha256"), path)?);
        }
        let value = crate::collect::estimate_from_db(db, id, a.value("sha256"), method, a.switch("project"))?;
        return crate::out::print_json(&value);
    }
    if a.value("mechanism").is_some() || a.value("sha256").is_some() || a.value("candidates").is_some() {
        return Err(CliError::usage("`--mechanism`, `--sha256` and `--candidates` go with `--db URL`"));
    }
    let spec = doc_path(&a)?
        .ok_or_else(|| CliError::usage("`privlift estimate` needs `--doc DOC.json` (or `--db URL --mechanism ID`)"))?;
    let paths = a.values("counts");
    if paths.is_empty() {
        return Err(CliError::usage("`privlift estimate` needs `--counts C.json` (one per shard)"));
    }
    let doc = Document::from_json(&files::read(spec)?).map_err(|e| CliError::in_file(spec, e))?;
    let unary = matches!(doc.mechanism(), MechanismKind::Unary { .. });
    // The shards' counts, summed; their `n` too (each must give it, or none may).
    let (mut counts, mut n): (Option<Vec<f64>>, Option<Option<f64>>) = (None, None);
    for &path in &paths {
        let file: CountsFile = files::parse_file(path)?;
        let in_counts = |e| CliError::in_file(path, e);
        let shard = counts_vector(file.counts, doc.output()).map_err(in_counts)?;
        if let (Some(n), false) = (file.n, unary) {
            let sum: f64 = shard.iter().sum();
            if (n - sum).abs() > 1e-9 * sum.abs().max(1.0) {
                return Err(in_counts(Error::invalid("n", format!("{n} reports, but the counts add up to {sum}"))));
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
            Some(_) => return Err(in_counts(Error::invalid("n", "every shard gives `n`, or none does"))),
        };
    }
    let (counts, n) = (counts.unwrap_or_default(), n.flatten());
    if unary && method == Some(Method::Mle) {
        return Err(CliError::usage(
            "maximum likelihood from a unary encoding's bit counts is not implemented: use `--method unbiased`",
        ));
    }
    let value = estimate(&doc, &counts, n, method, a.switch("project")).map_err(|b| match b {
        Blame::Document(e) => CliError::in_file(spec, e),
        Blame::Counts(e) => CliError::in_file(&paths.join(", "), e),
    })?;
    crate::out::print_json(&value)
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
}
