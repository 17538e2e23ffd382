//! `privlift design METHOD ...`: designs a mechanism with `privlift_design` and prints
//! the published document (pretty JSON). The library audits every design before
//! returning it; a design that cannot meet its claims is an error, never a document.

use std::io::IsTerminal;

use privlift::Document;
use privlift_design::request::{design_inputs, DesignRequest, EXACT_METHODS};

use crate::args;
use crate::error::CliError;
use crate::files;

/// Every option `design` knows (each takes a value).
const OPTIONS: [&str; 14] = [
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
    "objective",
    "id",
];

/// The switches `design` knows: `--exact` (ORR and AORR: no cap on the vertex search).
const SWITCHES: [&str; 1] = ["exact"];

/// The budget flags of the watchdog family (which of them apply depends on `--notion`,
/// checked by the library).
const NOTION_FLAGS: &[&str] = &["epsilon", "eps-l", "eps-u", "notion", "alpha-order"];

/// The methods, in help order.
pub use privlift_design::request::METHODS;

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
        "krr" | "oue" => s(true, &["epsilon"], &[]),
        "rr-lip" => s(true, &["epsilon"], &["objective", "distortion"]),
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
        "objective" => "hit|mi|distortion",
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
    if a.switch("exact") && !EXACT_METHODS.contains(&method) {
        return Err(CliError::usage(format!(
            "`--exact` does not apply to `{cmd}` (only to {})",
            EXACT_METHODS.join(", ")
        )));
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

/// The parsed file of flag `flag` (`--prior P.json`, …), if given.
fn file<F: serde::de::DeserializeOwned>(a: &args::Args, flag: &str) -> Result<Option<F>, CliError> {
    a.value(flag).map(files::parse_file).transpose()
}

/// The flags as the library's [`DesignRequest`]: files parsed (a JSON error names the
/// file), numbers read; everything else is checked by the library's dispatch.
fn request(a: &args::Args) -> Result<DesignRequest, CliError> {
    Ok(DesignRequest {
        prior: file(a, "prior")?,
        joint: file(a, "joint")?,
        priors: file(a, "priors")?,
        distortion: file(a, "distortion")?,
        epsilon: number(a, "epsilon")?,
        alpha: number(a, "alpha")?,
        a: number(a, "a")?,
        b: number(a, "b")?,
        eps_l: number(a, "eps-l")?,
        eps_u: number(a, "eps-u")?,
        notion: a.value("notion").map(str::to_string),
        alpha_order: number(a, "alpha-order")?,
        objective: a.value("objective").map(str::to_string),
        id: a.value("id").map(str::to_string),
        exact: a.switch("exact").then_some(true),
    })
}

pub fn run(argv: &[String]) -> Result<(), CliError> {
    if crate::continuous_design::is_continuous(argv) {
        return crate::continuous_design::design(argv);
    }
    if crate::open_design::is_open(argv) {
        return crate::open_design::design(argv);
    }
    let a = args::parse("design", argv, &OPTIONS, &SWITCHES)?;
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
    if doc.utility().and_then(|u| u.get("ignores_input")?.as_bool()) == Some(true) {
        progress(&format!(
            "warning: the `{method}` design releases nothing about X (I(X;Y) = 0: its output does not depend \
             on the input; the document says so). Try a larger budget{}.",
            if method == "rr-lip" { " or --objective mi" } else { "" }
        ));
    }
    let mut text = doc.to_json();
    text.push('\n');
    crate::out::print_stdout(&text)
}

/// Designs with the library's dispatch ([`design_inputs`]); an error about an input
/// names its file. The vertex-enumeration methods (ORR, AORR, SRR) can take seconds on
/// large alphabets: they say so on stderr before they start and report the time and
/// vertex count when done. Ctrl-C (SIGINT) ends the process at any time (no handler is
/// installed).
fn design(method: &str, a: &args::Args) -> Result<Document, CliError> {
    let req = request(a)?;
    let exact = req.exact == Some(true);
    // (|S|, |X|) as the files declare them (with a prior, S = X); validated by the library.
    let inputs = match (&req.prior, &req.joint) {
        (Some(p), _) => Some((p.p.len(), p.p.len())),
        (None, Some(j)) => Some((j.p_sx.len(), j.p_sx.first().map_or(0, Vec::len))),
        (None, None) => None,
    };
    // Small alphabets design in milliseconds; say nothing for them.
    let enumerates =
        (method.starts_with("orr-") || method == "srr") && inputs.is_some_and(|(_, nx)| nx > LONG_DESIGN_INPUTS);
    let start = std::time::Instant::now();
    if let (true, Some((ns, nx))) = (enumerates, inputs) {
        progress(&format!("designing `{method}` for |S| = {ns}, |X| = {nx} by vertex enumeration (Ctrl-C to cancel)"));
    }
    if let (true, Some((ns, nx))) = (exact, inputs) {
        progress(&exact_estimate(ns, nx));
    }
    // A progress bar when stderr is a terminal (none in pipes, logs and tests); never on
    // stdout, which is the document.
    let bar = ((enumerates || exact) && std::io::stderr().is_terminal()).then(|| progress_bar(exact));
    let result = match &bar {
        Some(bar) => {
            let bar = bar.clone();
            privlift_design::progress::observe(move |p| draw(&bar, p), || design_inputs(method, req))
        }
        None => design_inputs(method, req),
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let doc = result.map_err(|e| match e.input.and_then(|i| a.value(i)) {
        Some(path) => CliError::in_file(path, e.error),
        None if EXACT_METHODS.contains(&method) => CliError::from(name_exact(e.error)),
        None => CliError::from(e.error),
    })?;
    if enumerates {
        let vertices = doc.utility().and_then(|u| u.get("vertices")).map(|v| v.to_string()).unwrap_or_default();
        progress(&format!("done in {:.2?} ({vertices} vertices)", start.elapsed()));
    }
    Ok(doc)
}

/// A refusal of the vertex search's size (`invalid_argument` on the alphabet), with the
/// flag that lifts its caps.
fn name_exact(error: privlift::Error) -> privlift::Error {
    match error {
        privlift::Error::InvalidArgument { name, reason } if name == "alphabet" => privlift::Error::invalid(
            name,
            format!(
                "{reason}, or `--exact` for the exact design without a cap (it estimates the work on \
                 stderr first, then shows its progress there)"
            ),
        ),
        other => other,
    }
}

/// What `--exact` is about to do, before it starts: the cost of one basis, what the
/// default cap would have allowed, and the bound on the search (its true size is known
/// only at its end: the bar counts the bases and their rate).
fn exact_estimate(ns: usize, nx: usize) -> String {
    use privlift::numeric::Sci;
    use privlift_design::vertex::{bases_bound, flops_per_basis, max_bases};
    let flops = flops_per_basis(ns, nx);
    let cap = max_bases(ns, nx);
    format!(
        "--exact: no cap on the vertex search (|S| = {ns}, |X| = {nx}): about {flops} flops per basis; the \
         default cap stops at {cap} bases (about {} flops, 0.6 s); the exact search visits every feasible \
         basis, at most {} (a bound: the search stops at the polytope's true size, unknown until it ends). \
         Ctrl-C cancels.",
        Sci(cap as f64 * flops as f64),
        Sci(bases_bound(ns, nx)),
    )
}

/// The bar of the vertex searches: bases visited against the cap at which the design is
/// refused, and the vertices found so far; with `--exact`, no cap: the bases, their rate
/// and the time.
fn progress_bar(exact: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(1);
    let template = match exact {
        true => "privlift: {spinner} exact vertex search {msg}, {human_pos} bases, {elapsed}",
        false => "privlift: {spinner} vertex search {msg} [{bar:30}] {human_pos}/{human_len} bases (the cap) {elapsed}",
    };
    let style = indicatif::ProgressStyle::with_template(template).map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    bar
}

fn draw(bar: &indicatif::ProgressBar, p: &privlift_design::progress::Progress) {
    bar.set_length(p.max_bases as u64);
    bar.set_position(p.bases as u64);
    let rate = match p.max_bases {
        usize::MAX => format!(" ({:.0} bases/s)", p.bases as f64 / bar.elapsed().as_secs_f64().max(1e-3)),
        _ => String::new(),
    };
    bar.set_message(format!("{}: {} vertices{rate}", p.search + 1, p.vertices));
}

/// From this many inputs on, the vertex methods report progress on stderr.
const LONG_DESIGN_INPUTS: usize = 10;

/// One progress line on stderr (ignored if stderr is gone).
fn progress(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "privlift: {line}");
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
