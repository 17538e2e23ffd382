//! `privlift design METHOD ...`: designs a mechanism with `privlift::design` and prints
//! the published document (pretty JSON). The library audits every design before
//! returning it; a design that cannot meet its claims is an error, never a document.

use privlift::design::request::{lift_default_id, lift_design, Budget, LIFT_METHODS};
use privlift::design::{default_id, linear, oue, rr, srlip, Source};
use privlift::document::{Alphabet, Matrix};
use privlift::{Document, Error};

use crate::args;
use crate::files;
use crate::CliError;

/// Every option `design` knows (each takes a value).
const OPTIONS: [&str; 13] = [
    "prior",
    "joint",
    "priors",
    "epsilon",
    "alpha",
    "a",
    "b",
    "distortion",
    "eps-l",
    "eps-u",
    "notion",
    "alpha-order",
    "id",
];

/// The budget flags of the watchdog family (which of them apply depends on `--notion`,
/// checked by the library).
const NOTION_FLAGS: &[&str] = &["epsilon", "eps-l", "eps-u", "notion", "alpha-order"];

/// The methods, in help order.
pub use privlift::design::request::METHODS;

/// What a method accepts besides `--id`.
struct Shape {
    /// Exactly one of `--prior` / `--joint` is required.
    source: bool,
    required: &'static [&'static str],
    optional: &'static [&'static str],
}

fn shape(method: &str) -> Option<Shape> {
    let s = |source, required, optional| Some(Shape { source, required, optional });
    match method {
        "krr" | "oue" | "rr-lip" => s(true, &["epsilon"], &[]),
        "rr-lip-interval" => s(false, &["a", "b", "epsilon"], &["prior"]),
        "rr-bp-lip" => s(false, &["priors", "epsilon"], &["distortion"]),
        "linear-markov" | "linear-tv" => s(false, &["joint", "alpha"], &[]),
        "linear-distance" => s(false, &["joint", "alpha"], &["distortion"]),
        "orr-lip" | "orr-ldp" => s(true, &["epsilon"], &[]),
        "orr-alip" => s(true, &["eps-l", "eps-u"], &[]),
        "watchdog" | "subset-merging" | "srr" => s(true, &[], NOTION_FLAGS),
        "srlip" => s(false, &["joint", "epsilon"], &[]),
        _ => None,
    }
}

/// The placeholder a flag's value is shown with in messages.
fn metavar(flag: &str) -> &'static str {
    match flag {
        "prior" => "P.json",
        "joint" => "J.json",
        "priors" => "PS.json",
        "distortion" => "D.json",
        "epsilon" => "E",
        "alpha" => "A",
        "a" => "A",
        "b" => "B",
        "eps-l" => "EL",
        "eps-u" => "EU",
        "notion" => "NOTION",
        "alpha-order" => "K",
        _ => "VALUE",
    }
}

/// Checks the flags given against what `method` needs: missing, conflicting or extra
/// flags are usage errors naming the flag and the method.
fn check_flags(method: &str, shape: &Shape, a: &args::Args) -> Result<(), CliError> {
    let cmd = format!("privlift design {method}");
    if shape.source {
        match (a.value("prior"), a.value("joint")) {
            (Some(_), Some(_)) => {
                return Err(CliError::usage(format!("`{cmd}`: give either `--prior` or `--joint`, not both")))
            }
            (None, None) => return Err(CliError::usage(format!("`{cmd}` needs `--prior P.json` or `--joint J.json`"))),
            _ => {}
        }
    }
    for &flag in shape.required {
        if a.value(flag).is_none() {
            let mut msg = format!("`{cmd}` needs `--{flag} {}`", metavar(flag));
            if flag == "joint" && a.value("prior").is_some() {
                msg.push_str(
                    "; `--prior` does not apply (linear reduction protects a secret S correlated with X: \
                     give the joint of S and X)",
                );
            }
            return Err(CliError::usage(msg));
        }
    }
    for flag in OPTIONS {
        let allowed = flag == "id"
            || shape.required.contains(&flag)
            || shape.optional.contains(&flag)
            || (shape.source && (flag == "prior" || flag == "joint"));
        if !allowed && a.value(flag).is_some() {
            return Err(CliError::usage(format!("`--{flag}` does not apply to `{cmd}`")));
        }
    }
    Ok(())
}

/// The value of a numeric flag (a usage error if it is not a number; its range is
/// checked by the designer).
fn number(a: &args::Args, flag: &str) -> Result<Option<f64>, CliError> {
    a.value(flag)
        .map(|s| {
            s.trim().parse::<f64>().map_err(|_| CliError::usage(format!("`--{flag}` must be a number, got {s:?}")))
        })
        .transpose()
}

/// Like [`number`], for a flag [`check_flags`] made sure is present.
fn required_number(a: &args::Args, flag: &str) -> Result<f64, CliError> {
    number(a, flag)?.ok_or_else(|| CliError::usage(format!("`--{flag}` is missing")))
}

fn required<'a>(a: &'a args::Args, flag: &str) -> Result<&'a str, CliError> {
    a.value(flag).ok_or_else(|| CliError::usage(format!("`--{flag}` is missing")))
}

/// `--prior P.json` or `--joint J.json` as a design source.
fn source(a: &args::Args) -> Result<Source, CliError> {
    if let Some(p) = a.value("prior") {
        files::load(p, |f| {
            let (labels, p) = files::load_prior(f)?;
            Source::prior(labels, p)
        })
    } else {
        let j = required(a, "joint")?;
        files::load(j, |f| {
            let (secret, labels, p_sx) = files::load_joint(f, None)?;
            Source::joint(secret, labels, p_sx)
        })
    }
}

/// `--priors PS.json`: the labels and the priors, each checked against the labels.
fn priors(path: &str) -> Result<(Alphabet, Vec<Vec<f64>>), CliError> {
    files::load(path, files::checked_priors)
}

/// `--distortion D.json` for an alphabet of `k` symbols: `k × k`, finite, non-negative.
fn distortion(path: Option<&str>, k: usize) -> Result<Option<Matrix>, CliError> {
    path.map(|p| files::load(p, |f| files::checked_distortion(f, k))).transpose()
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    if crate::continuous_design::is_continuous(argv) {
        return crate::continuous_design::design(argv);
    }
    let a = args::parse("design", argv, &OPTIONS, &[])?;
    if a.help {
        return crate::help::print("design");
    }
    let method = a.one_positional(format!("`privlift design` needs METHOD (one of {})", METHODS.join(", ")))?;
    let Some(shape) = shape(method) else {
        return Err(CliError::usage(format!(
            "unknown design method `{method}` (expected one of {})",
            METHODS.join(", ")
        )));
    };
    check_flags(method, &shape, &a)?;
    let doc = design(method, &a)?;
    let mut text = doc.to_json();
    text.push('\n');
    crate::print_stdout(&text)
}

/// Designs with a lift notion ([`LIFT_METHODS`]). The vertex-enumeration methods (ORR,
/// AORR, SRR) can take seconds on large alphabets: they say so on stderr before they
/// start and report the time and vertex count when done. Ctrl-C (SIGINT) ends the
/// process at any time (no handler is installed).
fn lift(method: &str, a: &args::Args) -> Result<Document, CliError> {
    let budget = Budget {
        epsilon: number(a, "epsilon")?,
        eps_l: number(a, "eps-l")?,
        eps_u: number(a, "eps-u")?,
        notion: a.value("notion").map(str::to_string),
        alpha_order: number(a, "alpha-order")?,
    };
    let id = match a.value("id") {
        Some(id) => id.to_string(),
        None => lift_default_id(method, &budget),
    };
    let src = source(a)?;
    budget.notion(method)?;
    // Small alphabets design in milliseconds; say nothing for them.
    let enumerates = (method.starts_with("orr-") || method == "srr") && src.labels().len() > LONG_DESIGN_INPUTS;
    let start = std::time::Instant::now();
    if enumerates {
        progress(&format!(
            "designing `{method}` for |S| = {}, |X| = {} by vertex enumeration (Ctrl-C to cancel)",
            src.p_sx().rows(),
            src.labels().len()
        ));
    }
    let doc = lift_design(method, &src, &budget, &id)?;
    if enumerates {
        let vertices = doc.utility().and_then(|u| u.get("vertices")).map(|v| v.to_string()).unwrap_or_default();
        progress(&format!("done in {:.2?} ({vertices} vertices)", start.elapsed()));
    }
    Ok(doc)
}

/// From this many inputs on, the vertex methods report progress on stderr.
const LONG_DESIGN_INPUTS: usize = 10;

/// One progress line on stderr (ignored if stderr is gone).
fn progress(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "privlift: {line}");
}

fn design(method: &str, a: &args::Args) -> Result<Document, CliError> {
    if LIFT_METHODS.contains(&method) {
        return lift(method, a);
    }
    let eps = number(a, "epsilon")?;
    let alpha = number(a, "alpha")?;
    let id = match a.value("id") {
        Some(id) => id.to_string(),
        None => default_id(method, eps),
    };
    let doc = match method {
        "krr" | "oue" | "rr-lip" => {
            let eps = required_number(a, "epsilon")?;
            let src = source(a)?;
            match method {
                "krr" => rr::krr(&src, eps, &id)?,
                "oue" => oue::oue(&src, eps, &id)?,
                _ => rr::rr_lip(&src, eps, &id)?,
            }
        }
        "srlip" => {
            let eps = required_number(a, "epsilon")?;
            let joint = files::load(required(a, "joint")?, srlip::load_multi_joint)?;
            srlip::srlip(&joint, eps, &id)?
        }
        "rr-lip-interval" => {
            let (lo, hi, eps) = (required_number(a, "a")?, required_number(a, "b")?, required_number(a, "epsilon")?);
            let labels = match a.value("prior") {
                Some(p) => files::load(p, |f| {
                    let (labels, _) = files::load_prior(f)?;
                    if labels.len() != 2 {
                        return Err(Error::DimensionMismatch {
                            field: "labels".into(),
                            expected: 2,
                            found: labels.len(),
                        });
                    }
                    Ok(labels)
                })?,
                None => Alphabet::indices("labels", 2)?,
            };
            rr::rr_lip_interval(labels, lo, hi, eps, &id)?
        }
        "rr-bp-lip" => {
            let eps = required_number(a, "epsilon")?;
            let (labels, priors) = priors(required(a, "priors")?)?;
            let d = distortion(a.value("distortion"), labels.len())?;
            rr::rr_bp_lip(labels, &priors, eps, d.as_ref(), &id)?
        }
        _ => {
            let alpha = alpha.ok_or_else(|| CliError::usage("`--alpha` is missing"))?;
            let src = source(a)?;
            match method {
                "linear-markov" => linear::markov(&src, alpha, &id)?,
                "linear-tv" => linear::tv(&src, alpha, &id)?,
                _ => {
                    let d = distortion(a.value("distortion"), src.labels().len())?;
                    linear::distance(&src, alpha, d.as_ref(), &id)?
                }
            }
        }
    };
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_a_shape() {
        for m in METHODS {
            assert!(shape(m).is_some(), "{m}");
        }
        assert!(shape("nope").is_none());
    }

    fn usage(method: &str, argv: &[&str]) -> String {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let a = args::parse("design", &argv, &OPTIONS, &[]).unwrap();
        match check_flags(method, &shape(method).unwrap(), &a) {
            Err(CliError::Usage(m)) => m,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn flag_errors_name_the_flag_and_the_method() {
        let m = usage("krr", &["--prior", "p"]);
        assert!(m.contains("--epsilon") && m.contains("krr"), "{m}");
        let m = usage("krr", &["--epsilon", "1"]);
        assert!(m.contains("--prior") && m.contains("--joint"), "{m}");
        let m = usage("oue", &["--prior", "p", "--joint", "j", "--epsilon", "1"]);
        assert!(m.contains("not both"), "{m}");
        let m = usage("linear-tv", &["--prior", "p", "--alpha", "0.5"]);
        assert!(m.contains("--joint") && m.contains("linear-tv") && m.contains("--prior"), "{m}");
        let m = usage("krr", &["--prior", "p", "--epsilon", "1", "--alpha", "0.5"]);
        assert!(m.contains("--alpha") && m.contains("krr"), "{m}");
        let m = usage("rr-lip-interval", &["--a", "0.1", "--b", "0.2", "--epsilon", "1", "--joint", "j"]);
        assert!(m.contains("--joint") && m.contains("rr-lip-interval"), "{m}");
    }
}
