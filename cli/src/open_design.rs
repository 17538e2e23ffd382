//! `privlift design olh|hadamard|hcms --epsilon E --domain strings [--max-bytes B]
//! [--prior P.json] [--id ID]` and `privlift design heavy-hitters --epsilon E --max-bytes B
//! [--id ID]`: the open-domain kinds' documents (`privlift_design::open::designer`),
//! printed as pretty JSON once the library has verified them.

use privlift::param::Epsilon;
use privlift_design::open::designer::{design_open, OpenPrior, OpenRequest, OPEN_METHODS};

use crate::args;
use crate::error::CliError;
use crate::files;

/// Whether `argv` (after `design`) names an open-domain method.
pub fn is_open(argv: &[String]) -> bool {
    argv.iter().find(|a| !a.starts_with('-')).is_some_and(|m| OPEN_METHODS.contains(&m.as_str()))
        && !argv.iter().any(|a| a == "-h" || a == "--help")
}

pub fn design(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("design", argv, &["epsilon", "domain", "max-bytes", "prior", "id"], &[])?;
    let method = a.one_positional("`privlift design` needs METHOD")?;
    let cmd = format!("privlift design {method}");
    let heavy = method == "heavy-hitters";
    let epsilon = a.value("epsilon").ok_or_else(|| CliError::usage(format!("`{cmd}` needs `--epsilon E`")))?;
    let epsilon: f64 = epsilon
        .trim()
        .parse()
        .map_err(|_| CliError::usage(format!("`--epsilon` must be a number, got {epsilon:?}")))?;
    match (a.value("domain"), heavy) {
        (Some("strings"), _) | (None, true) => {}
        (None, false) => return Err(CliError::usage(format!("`{cmd}` needs `--domain strings`"))),
        (Some(d), _) => return Err(CliError::usage(format!("`--domain` is `strings` (an open domain), not {d:?}"))),
    }
    if heavy && a.value("prior").is_some() {
        return Err(CliError::usage("`--prior` does not apply to `privlift design heavy-hitters`"));
    }
    let max_bytes = a
        .value("max-bytes")
        .map(|b| {
            b.trim().parse::<usize>().map_err(|_| CliError::usage(format!("`--max-bytes` must be a number, got {b:?}")))
        })
        .transpose()?;
    if heavy && max_bytes.is_none() {
        return Err(CliError::usage("`privlift design heavy-hitters` needs `--max-bytes B`"));
    }
    let prior: Option<OpenPrior> = a.value("prior").map(files::parse_file).transpose()?;
    let epsilon = Epsilon::positive("epsilon", epsilon)?;
    let req = OpenRequest { method: method.into(), epsilon, max_bytes, prior, id: a.value("id").map(str::to_string) };
    let doc = design_open(&req).map_err(|e| match (&e, a.value("prior")) {
        (privlift::Error::InvalidArgument { name, .. }, Some(path)) if name == "prior" => CliError::in_file(path, e),
        _ => CliError::from(e),
    })?;
    let mut text = doc.to_json();
    text.push('\n');
    crate::out::print_stdout(&text)
}
