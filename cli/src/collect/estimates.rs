//! The estimate of a document version from its stored counts (`GET /v1/estimates/ID`,
//! `privlift estimate --db`), and the query of an open-domain estimate.

use privlift::document::MechanismKind;
use privlift::open::OpenDocument;
use privlift::Error;
use privlift_design::lattice_estimate::estimate_lattice;

use super::catalogue::{lattice_labels, Parsed, Published};
use crate::estimation::{count_json, estimate, Blame, Estimated, Method, MAX_EM_ITERATIONS};
use crate::open_estimate;

/// The estimate from a document version's stored counts (`output`, reports): the fields
/// of `privlift estimate` plus `sha256`. No reports yet: `n` is 0 and the estimate, its
/// errors and the method are `null`.
pub fn estimate_version(
    p: &Published,
    counts: &[(String, u64)],
    method: Option<Method>,
    project: bool,
) -> Result<Estimated, Blame> {
    let n: u64 = counts.iter().map(|(_, c)| c).sum();
    let stored = |what: &str| Blame::Counts(Error::Io { message: format!("a stored output is not {what}") });
    let mut e = if n == 0 {
        let labels = match &p.doc {
            Parsed::Discrete(d) => d.input().labels().to_vec(),
            Parsed::Continuous { doc, .. } => lattice_labels(doc.lattice()),
            Parsed::Open(_) => return Err(Blame::Document(open_needs_a_query())),
        };
        Estimated {
            estimate: None,
            std_error: None,
            n: count_json(0.0),
            labels,
            method: None,
            unidentified: None,
            identified: None,
            interval: None,
            projected: None,
            secret: None,
            mean: None,
            mean_std_error: None,
            sha256: None,
        }
    } else {
        match &p.doc {
            Parsed::Discrete(d) if matches!(d.mechanism(), MechanismKind::Unary { .. }) => {
                let mut ones = vec![0.0; d.input().len()];
                for (bits, c) in counts {
                    if bits.len() != ones.len() {
                        return Err(stored("a bit string of this encoding"));
                    }
                    for (o, b) in ones.iter_mut().zip(bits.bytes()) {
                        *o += if b == b'1' { *c as f64 } else { 0.0 };
                    }
                }
                estimate(d, &ones, Some(n as f64), method, project)?
            }
            Parsed::Discrete(d) => {
                let mut v = vec![0.0; d.output().len()];
                for (label, c) in counts {
                    v[d.output().position(label).ok_or_else(|| stored("an output label"))?] += *c as f64;
                }
                estimate(d, &v, None, method, project)?
            }
            Parsed::Open(_) => return Err(Blame::Document(open_needs_a_query())),
            Parsed::Continuous { sampler: m, .. } => {
                if method == Some(Method::Unbiased) {
                    return Err(Blame::Document(Error::invalid(
                        "method",
                        "a continuous document's histogram is estimated by maximum likelihood only",
                    )));
                }
                let mut pairs = Vec::with_capacity(counts.len());
                for (value, c) in counts {
                    let y: f64 = value.parse().map_err(|_| stored("a number"))?;
                    let j = m.lattice().output_index(y).map_err(|_| stored("a lattice value"))?;
                    pairs.push((j, *c as f64));
                }
                let l = estimate_lattice(m, &pairs, MAX_EM_ITERATIONS).map_err(Blame::Counts)?;
                let computed = !l.identified.is_empty();
                Estimated {
                    estimate: Some(l.histogram),
                    std_error: Some(l.std_error),
                    n: count_json(l.n),
                    labels: lattice_labels(m.lattice()),
                    method: Some("mle"),
                    unidentified: None,
                    identified: computed.then_some(l.identified),
                    interval: computed.then_some(l.interval),
                    projected: None,
                    secret: None,
                    mean: Some(l.mean),
                    mean_std_error: Some(l.mean_std_error),
                    sha256: None,
                }
            }
        }
    };
    e.sha256 = Some(p.sha256.clone());
    Ok(e)
}

/// The refusal of an open-domain document's estimate without a query.
pub fn open_needs_a_query() -> Error {
    Error::invalid(
        "candidates",
        "an open-domain document is estimated for a list of candidates, or (heavy hitters) for its top K",
    )
}

/// What an open-domain estimate is asked for.
#[derive(Debug, PartialEq)]
pub enum OpenQuery {
    Candidates(Vec<String>),
    HeavyHitters { top: usize },
}

/// The POST body of an open-domain estimate.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenBody {
    #[serde(default)]
    candidates: Option<Vec<String>>,
    #[serde(default)]
    heavy_hitters: bool,
    #[serde(default)]
    top: Option<u64>,
}

/// Heavy hitters asked for without `top`.
const DEFAULT_TOP: usize = 10;

/// Reads an open-domain estimate's query: `candidate=V` (repeated, percent-encoded) or
/// `heavy_hitters[&top=K]` in the query, or the same as a JSON body. Every candidate is
/// checked as a value of at most `max_bytes` (`invalid_argument`, never echoing it).
pub fn open_query(query: &str, body: &[u8], max_bytes: usize) -> Result<OpenQuery, Error> {
    let invalid = |name: &str, reason: &str| Error::invalid(name, reason);
    let (mut candidates, mut heavy, mut top) = (Vec::new(), false, None);
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "candidate" => candidates.push(
                crate::serve::percent_decode(v).ok_or_else(|| invalid("candidate", "not percent-encoded UTF-8"))?,
            ),
            "heavy_hitters" => heavy = true,
            "top" => top = Some(open_estimate::parse_top(v)?),
            _ => {}
        }
    }
    if !body.is_empty() {
        let b: OpenBody = serde_json::from_slice(body).map_err(|_| {
            invalid("body", "expected {\"candidates\": [...]} or {\"heavy_hitters\": true, \"top\": K}")
        })?;
        candidates.extend(b.candidates.unwrap_or_default());
        heavy |= b.heavy_hitters;
        if let Some(t) = b.top {
            top = Some(open_estimate::parse_top(&t.to_string())?);
        }
    }
    if heavy {
        if !candidates.is_empty() {
            return Err(invalid("candidates", "give candidates or heavy_hitters, not both"));
        }
        return Ok(OpenQuery::HeavyHitters { top: top.unwrap_or(DEFAULT_TOP) });
    }
    if candidates.is_empty() {
        return Err(open_needs_a_query());
    }
    if candidates.len() > open_estimate::MAX_CANDIDATES {
        return Err(invalid("candidates", "too many in one request"));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, c) in candidates.iter().enumerate() {
        privlift_design::open::check_value(c, max_bytes)
            .map_err(|e| Error::invalid(format!("candidates[{i}]"), e.to_string()))?;
        if !seen.insert(c.as_str()) {
            return Err(Error::invalid(format!("candidates[{i}]"), "a repeated candidate"));
        }
    }
    Ok(OpenQuery::Candidates(candidates))
}

/// The JSON answer of an open-domain estimate.
pub fn answer_open(doc: &OpenDocument, counts: &[(String, u64)], q: OpenQuery, sha256: &str) -> Result<String, Error> {
    let json = |r: Result<String, serde_json::Error>| r.map_err(|e| Error::Json { message: e.to_string() });
    match q {
        OpenQuery::Candidates(c) => {
            let mut f = open_estimate::candidate_frequencies(doc, counts, c)?;
            f.sha256 = Some(sha256.into());
            json(serde_json::to_string(&f))
        }
        OpenQuery::HeavyHitters { top } => {
            let mut h = open_estimate::top_values(doc, counts, top)?;
            h.sha256 = Some(sha256.into());
            json(serde_json::to_string(&h))
        }
    }
}
