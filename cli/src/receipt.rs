//! `privlift receipt DOC.json --output Y`: the privacy receipt of a released output,
//! computed natively by the same code a browser runs — verify (claims, exact sampler),
//! then the lift of every value of X (and of S, when the document declares it). Used to
//! cross-check what a page shows. An open-domain document takes one report of its kind
//! (`--output`, its canonical text or JSON object) and prints the receipt the client's
//! `OpenMechanism.receipt` gives: each listed value's lift range, one for every unlisted value.

use privlift::any::{parse_any_within, AnyDocument};
use privlift::open::{OpenDocument, OpenReceipt, OpenReceiptEntry, OpenReport};
use privlift::verify::DEFAULT_MAX_VERIFY_WORK;
use privlift::{Policy, ReceiptSection};
use serde::Serialize;

use crate::args;
use crate::error::CliError;
use crate::files;
use crate::out::Num;

#[derive(Serialize)]
struct EntryOut<'a> {
    index: usize,
    label: &'a str,
    prior: Num,
    posterior: Num,
    lift: Num,
}

#[derive(Serialize)]
struct SectionOut<'a> {
    entries: Vec<EntryOut<'a>>,
    min_lift_bound: Num,
    max_lift_bound: Num,
    eps_l: Num,
    eps_u: Num,
}

impl<'a> From<&'a ReceiptSection> for SectionOut<'a> {
    fn from(s: &'a ReceiptSection) -> Self {
        SectionOut {
            entries: s
                .entries
                .iter()
                .map(|e| EntryOut {
                    index: e.index,
                    label: &e.label,
                    prior: Num(e.prior),
                    posterior: Num(e.posterior),
                    lift: Num(e.lift),
                })
                .collect(),
            min_lift_bound: Num(s.min_lift_bound),
            max_lift_bound: Num(s.max_lift_bound),
            eps_l: Num(s.eps_l),
            eps_u: Num(s.eps_u),
        }
    }
}

/// The receipt as the library serialises it (the X section flattened, `secret` when the
/// document declares S), with unbounded numbers as strings.
#[derive(Serialize)]
struct ReceiptOut<'a> {
    mechanism_id: &'a str,
    output_index: Option<usize>,
    output: &'a str,
    #[serde(flatten)]
    input: SectionOut<'a>,
    secret: Option<SectionOut<'a>>,
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("receipt", argv, &["output", "bits", "x"], &[])?;
    if a.help {
        return crate::help::print("receipt");
    }
    let spec = a.one_positional("`privlift receipt` needs DOC.json")?;
    // Read within the default budget the verification below runs at, by the one reader of
    // every family.
    let text = files::read(spec)?;
    let doc = match parse_any_within(&text, DEFAULT_MAX_VERIFY_WORK).map_err(|e| CliError::in_file(spec, e))? {
        AnyDocument::Discrete(doc) => doc,
        AnyDocument::Continuous(doc) => {
            let y = a.value("output").ok_or_else(|| CliError::usage("`privlift receipt` needs `--output Y`"))?;
            if a.value("bits").is_some() {
                return Err(CliError::usage("`--bits` is for unary encoding, not a continuous document"));
            }
            return crate::out::print_stdout(&crate::continuous_design::receipt_text(spec, &doc, y, a.value("x"))?);
        }
        AnyDocument::Open(doc) => {
            let report =
                a.value("output").ok_or_else(|| CliError::usage("`privlift receipt` needs `--output REPORT`"))?;
            if a.value("bits").is_some() || a.value("x").is_some() {
                return Err(CliError::usage("`--bits` and `--x` are not for an open-domain document"));
            }
            return crate::out::print_json(&OpenReceiptOut::from(&open_receipt(spec, &doc, report)?));
        }
    };
    if a.value("x").is_some() {
        return Err(CliError::usage("`--x` is for continuous documents"));
    }
    let mech = doc.verify(&Policy::default()).map_err(|e| CliError::in_file(spec, e))?;
    let r = match (a.value("output"), a.value("bits")) {
        (Some(y), None) => mech.receipt_label(y)?,
        (None, Some(bits)) => {
            let b: Result<Vec<bool>, CliError> = bits
                .chars()
                .map(|c| match c {
                    '0' => Ok(false),
                    '1' => Ok(true),
                    _ => Err(CliError::usage(format!("`--bits` takes 0/1 characters, got {c:?}"))),
                })
                .collect();
            mech.receipt_bits(&b?)?
        }
        _ => return Err(CliError::usage("`privlift receipt` needs exactly one of `--output Y` or `--bits 0101…`")),
    };
    let out = ReceiptOut {
        mechanism_id: &r.mechanism_id,
        output_index: r.output_index,
        output: &r.output,
        input: (&r.input).into(),
        secret: r.secret.as_ref().map(SectionOut::from),
    };
    crate::out::print_json(&out)
}

/// One listed value of an open-domain receipt ([`OpenReceiptEntry`]).
#[derive(Serialize)]
struct OpenEntryOut<'a> {
    value: &'a str,
    prior: Num,
    in_bucket: bool,
    min_lift: Num,
    max_lift: Num,
}

/// The receipt of an open-domain report as the library serialises it ([`OpenReceipt`]),
/// with unbounded numbers as strings.
#[derive(Serialize)]
struct OpenReceiptOut<'a> {
    mechanism_id: &'a str,
    report: &'a OpenReport,
    listed: Vec<OpenEntryOut<'a>>,
    other_mass: Num,
    unlisted_min_lift: Num,
    unlisted_max_lift: Num,
    eps_l: Num,
    eps_u: Num,
}

impl<'a> From<&'a OpenReceipt> for OpenReceiptOut<'a> {
    fn from(r: &'a OpenReceipt) -> Self {
        let entry = |e: &'a OpenReceiptEntry| OpenEntryOut {
            value: &e.value,
            prior: Num(e.prior),
            in_bucket: e.in_bucket,
            min_lift: Num(e.min_lift),
            max_lift: Num(e.max_lift),
        };
        OpenReceiptOut {
            mechanism_id: &r.mechanism_id,
            report: &r.report,
            listed: r.listed.iter().map(entry).collect(),
            other_mass: Num(r.other_mass),
            unlisted_min_lift: Num(r.unlisted_min_lift),
            unlisted_max_lift: Num(r.unlisted_max_lift),
            eps_l: Num(r.eps_l),
            eps_u: Num(r.eps_u),
        }
    }
}

/// Verifies an open-domain document as a client does and gives the receipt of `report`:
/// its JSON object (`{"seed": s, "y": y}`, …) or its canonical text (`"s:y"`, what the
/// collector stores), validated against the document's kind (`unknown_output` or `json`
/// naming the field or the rule, never the text).
fn open_receipt(path: &str, doc: &OpenDocument, report: &str) -> Result<OpenReceipt, CliError> {
    let mech = doc.verify(&Policy::default()).map_err(|e| CliError::in_file(path, e))?;
    let m = doc.mechanism();
    let report = if report.trim_start().starts_with('{') {
        OpenReport::from_json(m, report)?
    } else {
        OpenReport::parse(m, report)?
    };
    Ok(mech.receipt(&report)?)
}
