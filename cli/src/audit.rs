//! `privlift audit`: the leakage of a mechanism document, or of a bare channel with a
//! prior or a joint, printed as one JSON object. Every family of document is read by the
//! one reader a client uses (`any::parse_any_within`).

use privlift::any::{parse_any_within, AnyDocument};
use privlift::leakage::{Alip, Member, Scope, DEFAULT_ALPHA_ORDER};
use privlift::open::OpenDocument;
use privlift::verify::{Check, DEFAULT_MAX_VERIFY_WORK};
use privlift::{Document, Error, Leakage, Policy};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::args;
use crate::error::CliError;
use crate::files;
use crate::out::{CheckOut, Num};

#[derive(Debug, Serialize)]
struct AlipOut {
    eps_l: Num,
    eps_u: Num,
}

impl From<Alip> for AlipOut {
    fn from(Alip { eps_l, eps_u }: Alip) -> Self {
        AlipOut { eps_l: Num(eps_l), eps_u: Num(eps_u) }
    }
}

/// Every measure of a [`Leakage`], by [`Leakage::members`]: its field names, in order.
#[derive(Debug)]
struct Measures(Leakage);

impl Serialize for Measures {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(Leakage::MEMBERS))?;
        for (name, member) in self.0.members() {
            match member {
                Member::Number(v) => map.serialize_entry(name, &Num(v))?,
                Member::Alip(a) => map.serialize_entry(name, &AlipOut::from(a))?,
            }
        }
        map.end()
    }
}

/// The SRLIP audit: the leakage over every subset J of attributes and x^J, where it
/// is reached (0-based attribute indices and value indices), and the worst leakage of
/// each J by bit mask (`by_subset[0]` is the LIP w.r.t. S).
#[derive(Debug, Serialize)]
struct SrlipOut {
    eps: Num,
    worst_subset: Vec<usize>,
    worst_values: Vec<usize>,
    by_subset: Vec<Num>,
}

impl From<privlift::leakage::Srlip> for SrlipOut {
    fn from(r: privlift::leakage::Srlip) -> Self {
        SrlipOut {
            eps: Num(r.eps),
            worst_subset: r.worst_subset,
            worst_values: r.worst_values,
            by_subset: r.by_subset.into_iter().map(Num).collect(),
        }
    }
}

/// The X-audit's privacy measures (LDP w.r.t. X is the top-level `ldp_x`).
#[derive(Debug, Serialize)]
struct XOut {
    lip: Num,
    alip: AlipOut,
    min_lift: Num,
    max_lift: Num,
    mi: Num,
}

impl From<&Leakage> for XOut {
    fn from(l: &Leakage) -> Self {
        XOut {
            lip: Num(l.lip),
            alip: l.alip.into(),
            min_lift: Num(l.min_lift),
            max_lift: Num(l.max_lift),
            mi: Num(l.mi_xy),
        }
    }
}

/// What `privlift audit` prints. Field names and order are the CLI's contract.
#[derive(Debug, Serialize)]
struct Report {
    #[serde(flatten)]
    measures: Measures,
    /// The audit w.r.t. the user's value X under the declared prior (S = X), for a
    /// document: what a client's limits read.
    #[serde(skip_serializing_if = "Option::is_none")]
    x: Option<XOut>,
    /// SRLIP (Def 3 of the privacy-funnel paper) of a document with an `srlip` claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    srlip: Option<SrlipOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    claims_hold: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    claims: Option<Vec<CheckOut>>,
}

impl Report {
    fn new(leakage: &Leakage, claims: Option<&[Check]>) -> Self {
        let checks = claims.map(|cs| cs.iter().map(CheckOut::from).collect::<Vec<_>>());
        Report {
            measures: Measures(leakage.clone()),
            x: None,
            srlip: None,
            claims_hold: checks.as_ref().map(|cs| cs.iter().all(|c| c.holds)),
            claims: checks,
        }
    }
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("audit", argv, &["alpha-order", "matrix", "joint", "prior"], &[])?;
    if a.help {
        return crate::help::print("audit");
    }
    let alpha = match a.value("alpha-order") {
        None => DEFAULT_ALPHA_ORDER,
        Some(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| CliError::usage(format!("`--alpha-order` must be a number, got {s:?}")))?,
    };
    let report = match (a.positionals.as_slice(), a.value("matrix")) {
        ([spec], None) => {
            if a.value("joint").is_some() || a.value("prior").is_some() {
                return Err(CliError::usage("`--joint` and `--prior` go with `--matrix`, not with a document"));
            }
            // Read within the budget the audit runs at: a document it would refuse is
            // refused as read. One reader for every family, as a client's.
            let text = files::read(spec)?;
            match parse_any_within(&text, DEFAULT_MAX_VERIFY_WORK).map_err(|e| CliError::in_file(spec, e))? {
                AnyDocument::Discrete(doc) => audit_document(spec, &doc, alpha)?,
                AnyDocument::Continuous(doc) => {
                    return crate::out::print_stdout(&crate::continuous_design::audit_text(spec, &doc)?);
                }
                AnyDocument::Open(doc) => {
                    if a.value("alpha-order").is_some() {
                        return Err(CliError::usage("`--alpha-order` is for discrete documents"));
                    }
                    return crate::out::print_json(&open_audit(spec, &doc)?);
                }
            }
        }
        ([], Some(m)) => match (a.value("prior"), a.value("joint")) {
            (Some(p), None) => audit_matrix(m, Source::Prior(p), alpha)?,
            (None, Some(j)) => audit_matrix(m, Source::Joint(j), alpha)?,
            (Some(_), Some(_)) => return Err(CliError::usage("give either `--prior` or `--joint`, not both")),
            (None, None) => return Err(CliError::usage("`--matrix` needs `--prior P.json` or `--joint J.json`")),
        },
        ([], None) => return Err(CliError::usage("`privlift audit` needs DOC.json or `--matrix M.json`")),
        ([_], Some(_)) => return Err(CliError::usage("give either DOC.json or `--matrix`, not both")),
        ([_, extra, ..], _) => return Err(CliError::usage(format!("unexpected argument `{extra}`"))),
    };
    crate::out::print_json(&report)
}

fn audit_document(path: &str, doc: &Document, alpha: f64) -> Result<Report, CliError> {
    // The exact sampler a client runs, not the document's floats (one audit path).
    let v = doc.check_in(&Policy::default(), alpha, Scope::ALL).map_err(|e| CliError::in_file(path, e))?;
    let claims = (!v.claims.is_empty()).then_some(v.claims.as_slice());
    let mut report = Report::new(&v.leakage, claims);
    report.x = Some((&v.leakage_x).into());
    report.srlip = doc.audit_srlip().map_err(|e| CliError::in_file(path, e))?.map(SrlipOut::from);
    Ok(report)
}

/// What `privlift audit` prints for an open-domain document: its kind, then the fields a
/// discrete document's audit gives that mean the same here. S = X, so `ldp` (w.r.t. S) is
/// `ldp_x`, and `lip` and `alip` are w.r.t. X under the sparse prior (the LDP without one).
#[derive(Debug, Serialize)]
struct OpenReport {
    kind: &'static str,
    lip: Num,
    alip: AlipOut,
    ldp: Num,
    ldp_x: Num,
    claims_hold: bool,
    claims: Vec<CheckOut>,
}

/// The audit of the open randomiser that runs, and every claim checked against it (a false
/// claim is reported, not refused, as for every kind).
fn open_audit(path: &str, doc: &OpenDocument) -> Result<OpenReport, CliError> {
    let v = doc.check(&Policy::default()).map_err(|e| CliError::in_file(path, e))?;
    let a = v.audit;
    Ok(OpenReport {
        kind: doc.mechanism().tag(),
        lip: Num(a.lip),
        alip: AlipOut { eps_l: Num(a.eps_l), eps_u: Num(a.eps_u) },
        ldp: Num(a.ldp_x),
        ldp_x: Num(a.ldp_x),
        claims_hold: v.claims_hold,
        claims: v.claims.iter().map(CheckOut::from).collect(),
    })
}

enum Source<'a> {
    Prior(&'a str),
    Joint(&'a str),
}

fn audit_matrix(m_path: &str, src: Source<'_>, alpha: f64) -> Result<Report, CliError> {
    let channel = files::load(m_path, files::load_matrix)?;
    let nx = channel.rows();
    // A multi-attribute J.json also gets the SRLIP audit over its attributes.
    let mut attributes = None;
    let joint = match src {
        Source::Prior(p) => files::load(p, |f| {
            let (_, prior) = files::load_prior(f)?;
            if prior.len() != nx {
                return Err(Error::DimensionMismatch { field: "p".into(), expected: nx, found: prior.len() });
            }
            Ok(privlift::document::Matrix::diag(&prior))
        })?,
        Source::Joint(j) => files::load(j, |f: files::JointFile| {
            attributes = f.attributes.as_ref().map(|a| a.iter().map(|a| a.labels.len()).collect::<Vec<_>>());
            Ok(files::load_joint(f, Some(nx))?.2)
        })?,
    };
    let mut report = Report::new(&privlift::audit(&joint, &channel, alpha)?, None);
    if let Some(sizes) = attributes {
        report.srlip = Some(privlift::leakage::audit_srlip(&joint, &channel, &sizes)?.into());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use privlift::document::Matrix;

    #[test]
    fn non_finite_numbers_are_strings() {
        let v = serde_json::to_value([Num(1.5), Num(f64::INFINITY), Num(f64::NEG_INFINITY), Num(f64::NAN)]).unwrap();
        assert_eq!(v, serde_json::json!([1.5, "inf", "-inf", "nan"]));
    }

    #[test]
    fn report_keeps_contract_order_and_infinity() {
        let m = Matrix::from_rows("m", &[vec![1.0, 0.0], vec![0.5, 0.5]], 2).unwrap();
        let joint = Matrix::from_flat(2, 2, vec![0.5, 0.0, 0.0, 0.5]);
        let l = privlift::audit(&joint, &m, 2.0).unwrap();
        let text = serde_json::to_string(&Report::new(&l, None)).unwrap();
        assert!(text.starts_with("{\"lip\":"), "{text}");
        assert!(text.contains("\"ldp_x\":\"inf\""), "{text}");
        assert!(!text.contains("claims"), "{text}");
    }
}
