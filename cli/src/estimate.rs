//! `privlift estimate --spec SPEC.json --counts C1.json [--counts C2.json …]
//! [--method mle|unbiased] [--project]`, or `privlift estimate --db URL --mechanism ID
//! [--sha256 HEX]` for the reports a collector stored: the curator's estimate of the input histogram
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
use privlift_design::secret::{estimate_secret, SecretEstimate};
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

/// What `privlift estimate` prints (and `GET /v1/estimates/ID` answers). Field names and
/// order are the CLI's contract.
#[derive(Debug, Serialize)]
pub struct Estimated {
    /// P̂_X (a continuous document: the lattice histogram); `null` without reports.
    pub estimate: Option<Vec<f64>>,
    pub std_error: Option<Vec<f64>>,
    pub n: serde_json::Value,
    pub labels: Vec<String>,
    /// `mle` or `unbiased` (`null` without reports).
    pub method: Option<&'static str>,
    /// (mle) Directions of P_X the channel cannot identify (unit vectors summing to 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unidentified: Option<Vec<Vec<f64>>>,
    /// Whether the reports identify P_X(x): then `estimate[x] ± std_error[x]` is its
    /// estimate; otherwise `std_error[x]` is `null` and `interval[x]` holds what the
    /// reports determine (omitted above `MAX_SE_SYMBOLS` inputs, not computed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identified: Option<Vec<bool>>,
    /// Per input: `null` where identified, otherwise `[lo, hi]`, the least and greatest
    /// P_X(x) among the maximum-likelihood solutions (`estimate[x]` is one of them);
    /// `null` too when the channel leaves more than `MAX_INTERVAL_DIRECTIONS` (32)
    /// directions unidentified (not computed: its LPs' cost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Vec<Option<[f64; 2]>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projected: Option<Vec<f64>>,
    /// (mle, a document with a declared secret) P_S = Σ_x P(s|x) P_X(x) from the
    /// document's joint, with its standard errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretEstimate>,
    /// (continuous) The mean of X and its standard error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_std_error: Option<f64>,
    /// (from a collector's database) The document version's SHA-256.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// EM iterations `--method mle` runs at most.
pub const MAX_EM_ITERATIONS: usize = 200_000;

/// A count as JSON: an integer when it is one (exactly representable), else a float.
pub fn count_json(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&n) {
        serde_json::Value::from(n as u64)
    } else {
        serde_json::Value::from(n)
    }
}

/// An estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Maximum likelihood by EM: any channel.
    Mle,
    /// The unbiased inversion: an invertible channel, or a unary encoding's bit counts.
    Unbiased,
}

impl Method {
    /// `mle` or `unbiased` (`None`: the default, chosen per document by [`estimate`]).
    pub fn parse(name: Option<&str>) -> Result<Option<Method>, CliError> {
        match name {
            None => Ok(None),
            Some("mle") => Ok(Some(Method::Mle)),
            Some("unbiased") => Ok(Some(Method::Unbiased)),
            Some(m) => Err(CliError::usage(format!("`--method` is `mle` or `unbiased`, not {m:?}"))),
        }
    }
}

/// What an estimate's failure is about: the document (its channel cannot be inverted,
/// or has no estimator) or the counts.
#[derive(Debug)]
pub enum Blame {
    Document(Error),
    Counts(Error),
}

/// The estimate of P_X (and of P_S for a document with a declared secret) from counts
/// per output (for a unary encoding: ones per bit, and `n`), as the JSON the CLI prints.
/// Maximum likelihood by default; a unary encoding's bit counts have the unbiased
/// estimate only.
pub fn estimate(
    doc: &Document,
    counts: &[f64],
    n: Option<f64>,
    method: Option<Method>,
    project: bool,
) -> Result<Estimated, Blame> {
    let unary = matches!(doc.mechanism(), MechanismKind::Unary { .. });
    if unary && method == Some(Method::Mle) {
        return Err(Blame::Document(Error::InvalidArgument {
            name: "method".into(),
            reason: "maximum likelihood from a unary encoding's bit counts is not implemented: use `unbiased`".into(),
        }));
    }
    let mle = method.unwrap_or(if unary { Method::Unbiased } else { Method::Mle }) == Method::Mle;
    let blame = |e: Error| match &e {
        // The channel itself cannot be inverted: a property of the document.
        Error::InvalidArgument { name, .. } if name == "mechanism" => Blame::Document(e),
        _ => Blame::Counts(e),
    };
    let (mut est, unidentified, identified, interval, secret) = if mle {
        let w = document_channel(doc).map_err(Blame::Document)?;
        let m = estimate_mle(&w, counts, MAX_EM_ITERATIONS).map_err(blame)?;
        let secret = estimate_secret(doc, &m).map_err(blame)?;
        let computed = !m.identified.is_empty();
        let (identified, interval) = (computed.then_some(m.identified), computed.then_some(m.interval));
        let est = Estimate { estimate: m.estimate, std_error: m.std_error, n: m.n, projected: None };
        (est, Some(m.unidentified), identified, interval, secret)
    } else {
        // The inversion exists only for a channel that identifies every input.
        let est = estimate_document(doc, counts, n).map_err(blame)?;
        let k = est.estimate.len();
        (est, None, Some(vec![true; k]), Some(vec![None; k]), None)
    };
    if project {
        est = est.with_projection();
    }
    Ok(Estimated {
        estimate: Some(est.estimate),
        std_error: Some(est.std_error),
        n: count_json(est.n),
        labels: doc.input().labels().to_vec(),
        method: Some(if mle { "mle" } else { "unbiased" }),
        unidentified,
        identified,
        interval,
        projected: est.projected,
        secret,
        mean: None,
        mean_std_error: None,
        sha256: None,
    })
}

/// Prints `value` as pretty JSON with a final newline.
pub fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| Error::Json { message: e.to_string() })?;
    text.push('\n');
    crate::print_stdout(&text)
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse_repeatable(
        "estimate",
        argv,
        &["spec", "counts", "method", "db", "mechanism", "sha256"],
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
        if a.value("spec").is_some() || !a.values("counts").is_empty() {
            return Err(CliError::usage(
                "`--db` takes the document and the counts from the database: no `--spec` or `--counts`",
            ));
        }
        let id = a
            .value("mechanism")
            .ok_or_else(|| CliError::usage("`privlift estimate --db URL` needs `--mechanism ID`"))?;
        let value = crate::collect::estimate_from_db(db, id, a.value("sha256"), method, a.switch("project"))?;
        return print_json(&value);
    }
    if a.value("mechanism").is_some() || a.value("sha256").is_some() {
        return Err(CliError::usage("`--mechanism` and `--sha256` go with `--db URL`"));
    }
    let spec = a.value("spec").ok_or_else(|| {
        CliError::usage("`privlift estimate` needs `--spec SPEC.json` (or `--db URL --mechanism ID`)")
    })?;
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
    if unary && method == Some(Method::Mle) {
        return Err(CliError::usage(
            "maximum likelihood from a unary encoding's bit counts is not implemented: use `--method unbiased`",
        ));
    }
    let value = estimate(&doc, &counts, n, method, a.switch("project")).map_err(|b| match b {
        Blame::Document(e) => CliError::in_file(spec, e),
        Blame::Counts(e) => CliError::in_file(&paths.join(", "), e),
    })?;
    print_json(&value)
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
