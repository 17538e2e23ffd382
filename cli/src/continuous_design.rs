//! Continuous documents in the CLI: `privlift design METHOD` for the lattice designs of
//! `privlift_design::continuous::design`, and the `audit` / `receipt` output of a continuous
//! document (called from `design.rs`, `audit.rs`, `receipt.rs`).
//!
//! * `privlift design METHOD (--prior P.json | --samples S.csv) --epsilon E [--delta D]
//!   --domain L,U [--step G] [--components K] [--max-verify-work W] [--id ID]`: METHOD is one of
//!   `gaussian-lip`, `gaussian-lip-instance`, `analytic-gaussian`, `laplace-lip`,
//!   `laplace-ldp`, `sampling`; P.json is a document prior (`{"gaussian": {"mean", "sd"}}`,
//!   `{"gmm": {"weights", "means", "sds"}}`, `{"histogram": {"edges", "p"}}`); S.csv holds
//!   numbers separated by commas, whitespace or newlines (a first line that is not a number
//!   is a header), fitted by `fit_gmm` with at most K components (default 4). The default
//!   step is `(U − L)/1000` (1001 points), `(U − L)/400` for the Gaussian methods (their
//!   clients' verification grows with the points times σ's tables). A design its clients'
//!   default verification would refuse is refused (`too_costly`); `--max-verify-work W`
//!   designs for clients whose policy raises their budget to W (`inf`: no budget).
//! * `privlift audit DOC.json` → `{"kind", "points", "lip": {"eps", "delta"}, "ldp": {"eps",
//!   "delta"}, "lip_pure_eps", "ldp_pure_eps", "tail_mass", "claims_hold", "claims"}`.
//! * `privlift receipt DOC.json --output Y [--x X]` → the ratio curve `P(y|x)/P(y)`.

use privlift::document::{ContinuousDocument, DomainJson, PriorJson};
use privlift::mechanism::ContinuousPolicy;
use privlift::param::Epsilon;
use privlift::Error;
use privlift_design::continuous::design::{
    design_continuous, prior_from_samples, ContinuousRequest, CONTINUOUS_METHODS,
};
use serde::Serialize;

use crate::args;
use crate::error::CliError;
use crate::files;
use crate::out::{CheckOut, Num};

/// Default number of lattice intervals over the domain (`step = (U − L)/1000`).
pub const DEFAULT_INTERVALS: f64 = 1000.0;
/// Default number of lattice intervals for the Gaussian methods (`step = (U − L)/400`): a
/// Gaussian document's verification builds σ's tables once per point, so at ε = 1,
/// δ = 1e-5 about 500 points fit a client's default budget (1001 do not).
pub const DEFAULT_GAUSSIAN_INTERVALS: f64 = 400.0;
/// Default most GMM components fitted to `--samples`.
pub const DEFAULT_COMPONENTS: usize = 4;

/// Whether the continuous design method `cmd` adds Gaussian noise.
fn method_is_gaussian(cmd: &str) -> bool {
    matches!(cmd, "gaussian-lip" | "gaussian-lip-instance" | "analytic-gaussian")
}

/// Whether `argv` names a continuous design method.
pub fn is_continuous(argv: &[String]) -> bool {
    argv.iter().any(|a| CONTINUOUS_METHODS.contains(&a.as_str()))
}

fn num(a: &args::Args, flag: &str) -> Result<Option<f64>, CliError> {
    a.value(flag)
        .map(|s| {
            s.trim().parse::<f64>().map_err(|_| CliError::usage(format!("`--{flag}` must be a number, got {s:?}")))
        })
        .transpose()
}

/// Numbers of a samples file: separated by commas, whitespace or newlines; a first line
/// that does not parse is a header.
fn read_samples(path: &str) -> Result<Vec<f64>, CliError> {
    let text = files::read(path)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
        let parsed: Result<Vec<f64>, _> = fields.iter().map(|s| s.parse::<f64>()).collect();
        match parsed {
            Ok(v) => out.extend(v),
            Err(_) if i == 0 => continue,
            Err(_) => {
                return Err(CliError::in_file(path, Error::invalid("samples", format!("line {}: not a number", i + 1))))
            }
        }
    }
    Ok(out)
}

/// `privlift design METHOD ...` for a continuous method.
pub fn design(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse(
        "design",
        argv,
        &["prior", "samples", "epsilon", "delta", "domain", "step", "components", "max-verify-work", "id"],
        &[],
    )?;
    if a.help {
        return crate::help::print("design");
    }
    let method = a.one_positional("`privlift design` needs METHOD")?.to_string();
    let cmd = format!("privlift design {method}");
    let eps = num(&a, "epsilon")?.ok_or_else(|| CliError::usage(format!("`{cmd}` needs `--epsilon E`")))?;
    let needs_delta = !method.starts_with("laplace-");
    let delta = match num(&a, "delta")? {
        Some(d) if !needs_delta => {
            return Err(CliError::usage(format!("`--delta` does not apply to `{cmd}` (pure ε, δ = 0); got {d}")))
        }
        Some(d) => d,
        None if needs_delta => return Err(CliError::usage(format!("`{cmd}` needs `--delta D`"))),
        None => 0.0,
    };
    let dom = a.value("domain").ok_or_else(|| CliError::usage(format!("`{cmd}` needs `--domain L,U`")))?;
    let (lo, hi) = dom
        .split_once(',')
        .and_then(|(l, u)| Some((l.trim().parse::<f64>().ok()?, u.trim().parse::<f64>().ok()?)))
        .ok_or_else(|| CliError::usage(format!("`--domain` must be two numbers `L,U`, got {dom:?}")))?;
    let intervals = if method_is_gaussian(&method) { DEFAULT_GAUSSIAN_INTERVALS } else { DEFAULT_INTERVALS };
    let step = num(&a, "step")?.unwrap_or((hi - lo) / intervals);
    let prior: PriorJson = match (a.value("prior"), a.value("samples")) {
        (Some(p), None) => files::parse_file(p)?,
        (None, Some(s)) => {
            let k = match a.value("components") {
                None => DEFAULT_COMPONENTS,
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| CliError::usage(format!("`--components` must be a positive integer, got {v:?}")))?,
            };
            let samples = read_samples(s)?;
            prior_from_samples(&samples, k).map_err(|e| CliError::in_file(s, e))?
        }
        (Some(_), Some(_)) => return Err(CliError::usage("give either `--prior` or `--samples`, not both")),
        (None, None) => return Err(CliError::usage(format!("`{cmd}` needs `--prior P.json` or `--samples S.csv`"))),
    };
    if a.value("components").is_some() && a.value("samples").is_none() {
        return Err(CliError::usage("`--components` goes with `--samples`"));
    }
    let max_verify_work = num(&a, "max-verify-work")?;
    let req = ContinuousRequest {
        method,
        domain: DomainJson { lo, hi, step },
        prior,
        epsilon: Epsilon::positive("epsilon", eps)?,
        delta,
        id: a.value("id").map(str::to_string),
        max_verify_work,
    };
    let doc = design_continuous(&req)?;
    let mut text = doc.to_json();
    text.push('\n');
    crate::out::print_stdout(&text)
}

#[derive(Serialize)]
struct EpsDeltaOut {
    eps: Num,
    delta: Num,
}

#[derive(Serialize)]
struct AuditOut {
    kind: &'static str,
    points: usize,
    lip: EpsDeltaOut,
    ldp: EpsDeltaOut,
    lip_pure_eps: Num,
    ldp_pure_eps: Num,
    tail_mass: Num,
    #[serde(skip_serializing_if = "Option::is_none")]
    claims_hold: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    claims: Option<Vec<CheckOut>>,
}

/// The `privlift audit` report of a continuous document.
pub fn audit_text(path: &str, doc: &ContinuousDocument) -> Result<String, CliError> {
    let v = doc.check(&ContinuousPolicy::default()).map_err(|e| CliError::in_file(path, e))?;
    let a = v.audit;
    let checks: Vec<CheckOut> = v.claims.iter().map(CheckOut::from).collect();
    let has = !checks.is_empty();
    crate::out::pretty_json(&AuditOut {
        kind: doc.mechanism().tag(),
        points: a.points,
        lip: EpsDeltaOut { eps: Num(a.lip.eps), delta: Num(a.lip.delta) },
        ldp: EpsDeltaOut { eps: Num(a.ldp.eps), delta: Num(a.ldp.delta) },
        lip_pure_eps: Num(a.lip_pure_eps),
        ldp_pure_eps: Num(a.ldp_pure_eps),
        tail_mass: Num(a.tail_mass),
        claims_hold: has.then_some(v.claims_hold),
        claims: has.then_some(checks),
    })
}

#[derive(Serialize)]
struct ReceiptOut {
    mechanism_id: String,
    output: Num,
    output_index: i64,
    p_output: Num,
    xs: Vec<Num>,
    ratios: Vec<Num>,
    min_ratio: Num,
    min_ratio_x: Num,
    max_ratio: Num,
    max_ratio_x: Num,
    user_x: Option<Num>,
    user_point: Option<Num>,
    user_ratio: Option<Num>,
}

/// The `privlift receipt` output of a continuous document (verified first).
pub fn receipt_text(path: &str, doc: &ContinuousDocument, y: &str, x: Option<&str>) -> Result<String, CliError> {
    let parse = |flag: &str, s: &str| {
        s.trim().parse::<f64>().map_err(|_| CliError::usage(format!("`--{flag}` must be a number, got {s:?}")))
    };
    let y = parse("output", y)?;
    let x = x.map(|s| parse("x", s)).transpose()?;
    let m = doc.verify(&ContinuousPolicy::default()).map_err(|e| CliError::in_file(path, e))?;
    let r = m.receipt(y, x)?;
    crate::out::pretty_json(&ReceiptOut {
        mechanism_id: r.mechanism_id,
        output: Num(r.output),
        output_index: r.output_index,
        p_output: Num(r.p_output),
        xs: r.xs.into_iter().map(Num).collect(),
        ratios: r.ratios.into_iter().map(Num).collect(),
        min_ratio: Num(r.min_ratio),
        min_ratio_x: Num(r.min_ratio_x),
        max_ratio: Num(r.max_ratio),
        max_ratio_x: Num(r.max_ratio_x),
        user_x: r.user_x.map(Num),
        user_point: r.user_point.map(Num),
        user_ratio: r.user_ratio.map(Num),
    })
}
