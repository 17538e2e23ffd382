//! `privlift receipt DOC.json --output Y`: the privacy receipt of a released output,
//! computed natively by the same code a browser runs — verify (claims, exact sampler),
//! then the lift of every value of X (and of S, when the document declares it). Used to
//! cross-check what a page shows.

use privlift::{Document, Policy, ReceiptSection};
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
    if let Some(doc) = crate::continuous_design::load_continuous(spec)? {
        let y = a.value("output").ok_or_else(|| CliError::usage("`privlift receipt` needs `--output Y`"))?;
        if a.value("bits").is_some() {
            return Err(CliError::usage("`--bits` is for unary encoding, not a continuous document"));
        }
        return crate::out::print_stdout(&crate::continuous_design::receipt_text(spec, &doc, y, a.value("x"))?);
    }
    if a.value("x").is_some() {
        return Err(CliError::usage("`--x` is for continuous documents"));
    }
    // Read within the default budget the verification below runs at.
    let doc = Document::from_json_within(files::read(spec)?.as_bytes(), privlift::verify::DEFAULT_MAX_VERIFY_WORK)
        .map_err(|e| CliError::in_file(spec, e))?;
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
    let mut text = serde_json::to_string_pretty(&out)
        .map_err(|e| CliError::from(privlift::Error::Json { message: e.to_string() }))?;
    text.push('\n');
    crate::out::print_stdout(&text)
}
