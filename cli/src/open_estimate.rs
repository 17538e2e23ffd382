//! The estimates of an open-domain document from its stored reports, as `privlift
//! estimate --candidates`, `privlift heavy-hitters` and the collector's estimates route
//! print them: frequencies of a candidate list (`{"labels", "estimate", "std_error", "n",
//! "method"}`) and heavy hitters by PEM (`{"values", "estimate", "std_error", "n"}`).

use privlift::open::{OpenDocument, OpenMechanism};
use privlift::Error;
use privlift_design::open::estimate::frequencies;
use privlift_design::open::pem::heavy_hitters;
use privlift_design::open::{parse_report, Report};
use serde::Serialize;

use crate::estimation::count_json;

/// Most candidates one request estimates.
pub const MAX_CANDIDATES: usize = 100_000;

/// The frequencies of a candidate list. Field names and order are the CLI's contract.
#[derive(Debug, Serialize)]
pub struct Frequencies {
    pub labels: Vec<String>,
    /// `null` without reports.
    pub estimate: Option<Vec<f64>>,
    pub std_error: Option<Vec<f64>>,
    pub n: serde_json::Value,
    /// `olh`, `hadamard` or `hcms` (`null` without reports).
    pub method: Option<&'static str>,
    /// (from a collector's database) The document version's SHA-256.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The heavy hitters found. Field names and order are the CLI's contract.
#[derive(Debug, Serialize)]
pub struct HeavyHitters {
    pub values: Vec<String>,
    pub estimate: Vec<f64>,
    pub std_error: Vec<f64>,
    pub n: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The stored reports (canonical text, count), each parsed; a stored text that does not
/// parse is a fault of the database (`io`), not of the request.
fn reports(mechanism: &OpenMechanism, counts: &[(String, u64)]) -> Result<Vec<Report>, Error> {
    let total: u64 = counts.iter().map(|(_, c)| c).sum();
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    for (text, c) in counts {
        let r = parse_report(mechanism, text).map_err(|_| Error::Io {
            message: format!("a stored output is not a report of this `{}`", mechanism.tag()),
        })?;
        out.extend(std::iter::repeat_n(r, *c as usize));
    }
    Ok(out)
}

/// The frequencies of `candidates` from the stored `counts` of `doc`.
///
/// # Errors
/// `invalid_argument` for a heavy-hitter document (no candidate oracle); `io` for a
/// stored output that is not a report of the document's kind.
pub fn candidate_frequencies(
    doc: &OpenDocument,
    counts: &[(String, u64)],
    candidates: Vec<String>,
) -> Result<Frequencies, Error> {
    let reports = reports(doc.mechanism(), counts)?;
    let refs: Vec<&[u8]> = candidates.iter().map(|c| c.as_bytes()).collect();
    let f = frequencies(doc.mechanism(), &reports, &refs)?;
    let some = f.n > 0;
    Ok(Frequencies {
        labels: candidates,
        estimate: some.then_some(f.estimate),
        std_error: some.then_some(f.std_error),
        n: count_json(f.n as f64),
        method: some.then_some(f.method),
        sha256: None,
    })
}

/// The `top` heavy hitters from the stored `counts` of a heavy-hitter document `doc`.
///
/// # Errors
/// As [`heavy_hitters`]; `io` for a stored output that is not one of its reports.
pub fn top_values(doc: &OpenDocument, counts: &[(String, u64)], top: usize) -> Result<HeavyHitters, Error> {
    let reports = reports(doc.mechanism(), counts)?;
    let h = heavy_hitters(doc.mechanism(), doc.max_bytes(), &reports, top)?;
    Ok(HeavyHitters {
        values: h.values,
        estimate: h.estimate,
        std_error: h.std_error,
        n: count_json(h.n as f64),
        sha256: None,
    })
}

/// `--top K`: a whole number from 1 to [`privlift_design::open::pem::MAX_TOP`].
pub fn parse_top(text: &str) -> Result<usize, Error> {
    text.trim().parse::<usize>().ok().filter(|k| (1..=privlift_design::open::pem::MAX_TOP).contains(k)).ok_or_else(
        || Error::invalid("top", format!("must be a whole number from 1 to {}", privlift_design::open::pem::MAX_TOP)),
    )
}
