//! The estimation both `privlift estimate` and the collector's `GET /v1/estimates/ID`
//! answer with: the estimator ([`Method`]), what is printed ([`Estimated`]) and the
//! estimate of a document's input histogram from its counts ([`estimate`]).

use privlift::document::MechanismKind;
use privlift::{Document, Error};
use privlift_design::estimate::{document_channel, estimate_document, Estimate};
use privlift_design::mle::estimate_mle;
use privlift_design::secret::{estimate_secret, SecretEstimate};
use serde::Serialize;

use crate::error::CliError;

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
        return Err(Blame::Document(Error::invalid(
            "method",
            "maximum likelihood from a unary encoding's bit counts is not implemented: use `unbiased`",
        )));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_is_an_integer_when_it_is_one() {
        assert_eq!(count_json(1000.0).to_string(), "1000");
        assert_eq!(count_json(2.5).to_string(), "2.5");
    }
}
