//! `privlift gaussian …`, `privlift laplace lip …`, `privlift sampling …`: calculators for
//! the continuous-data mechanisms of `privlift_design::continuous`, each printing one JSON
//! object (nats; an unbounded value as the string `"inf"`).
//!
//! * `gaussian delta --epsilon E --sigma-n S --x X --mean M --sd SX` →
//!   `{"delta", "e_y_given_x_vs_y", "e_y_vs_y_given_x"}` (Thm 5 at x, definition (3))
//! * `gaussian sigma --epsilon E --delta D --x X --mean M --sd SX` → `{"sigma_n"}` (Cor 10)
//! * `gaussian analytic --epsilon E --sigma S --sensitivity D` → `{"delta", "vanilla_bound"}`
//! * `gaussian e-divergence --gamma G --mean1 M1 --sd1 S1 --mean2 M2 --sd2 S2` → `{"e"}`
//! * `laplace lip --prior P.json --epsilon E` → `{"b_ldp", "b_lip", "lip"}`
//! * `sampling --epsilon E --delta D` → `{"lambda"}` (Prop 2)

use privlift::param::{Delta, Epsilon};
use privlift::Error;
use privlift_design::continuous::{self as cont, Gaussian};
use serde::Serialize;

use crate::args::{self, Args};
use crate::error::CliError;
use crate::files;
use crate::out::Num;

/// The `gaussian` kinds, in help order.
pub const GAUSSIAN_KINDS: [&str; 4] = ["delta", "sigma", "analytic", "e-divergence"];

/// Parses the options of `privlift CMD`; no positional is accepted. `None` after `--help`.
fn parse(cmd: &str, argv: &[String], valued: &[&'static str]) -> Result<Option<Args>, CliError> {
    let a = args::parse(cmd, argv, valued, &[])?;
    if a.help {
        crate::help::print(cmd.split(' ').next().unwrap_or(cmd))?;
        return Ok(None);
    }
    if let Some(p) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{p}` for `privlift {cmd}`")));
    }
    Ok(Some(a))
}

/// A required numeric flag (a usage error if missing or not a number; its range is
/// checked by the library).
fn number(cmd: &str, a: &Args, flag: &str) -> Result<f64, CliError> {
    let s = a.value(flag).ok_or_else(|| CliError::usage(format!("`privlift {cmd}` needs `--{flag}`")))?;
    s.trim().parse::<f64>().map_err(|_| CliError::usage(format!("`--{flag}` must be a number, got {s:?}")))
}

pub fn gaussian(argv: &[String]) -> Result<(), CliError> {
    let Some(kind) = argv.first() else {
        return Err(CliError::usage(format!("`privlift gaussian` needs a kind: {}", GAUSSIAN_KINDS.join(", "))));
    };
    let rest = &argv[1..];
    match kind.as_str() {
        "-h" | "--help" | "help" => crate::help::print("gaussian"),
        "delta" => gaussian_delta(rest),
        "sigma" => gaussian_sigma(rest),
        "analytic" => gaussian_analytic(rest),
        "e-divergence" => gaussian_e_divergence(rest),
        other => Err(CliError::usage(format!(
            "unknown kind `{other}` for `privlift gaussian` (expected one of: {})",
            GAUSSIAN_KINDS.join(", ")
        ))),
    }
}

#[derive(Serialize)]
struct DeltaOut {
    delta: Num,
    e_y_given_x_vs_y: Num,
    e_y_vs_y_given_x: Num,
}

fn gaussian_delta(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "gaussian delta";
    let Some(a) = parse(CMD, argv, &["epsilon", "sigma-n", "x", "mean", "sd"])? else { return Ok(()) };
    let (eps, s, x) = (number(CMD, &a, "epsilon")?, number(CMD, &a, "sigma-n")?, number(CMD, &a, "x")?);
    let prior = Gaussian::new(number(CMD, &a, "mean")?, number(CMD, &a, "sd")?)?;
    let d = cont::delta_at(Epsilon::new("epsilon", eps)?, s, x, &prior)?;
    crate::out::print_json(&DeltaOut {
        delta: Num(d.delta),
        e_y_given_x_vs_y: Num(d.e_y_given_x_vs_y),
        e_y_vs_y_given_x: Num(d.e_y_vs_y_given_x),
    })
}

#[derive(Serialize)]
struct SigmaOut {
    sigma_n: Num,
}

fn gaussian_sigma(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "gaussian sigma";
    let Some(a) = parse(CMD, argv, &["epsilon", "delta", "x", "mean", "sd"])? else { return Ok(()) };
    let (eps, delta, x) = (number(CMD, &a, "epsilon")?, number(CMD, &a, "delta")?, number(CMD, &a, "x")?);
    let prior = Gaussian::new(number(CMD, &a, "mean")?, number(CMD, &a, "sd")?)?;
    let (eps, delta) = (Epsilon::new("epsilon", eps)?, Delta::new("delta", delta)?);
    let c = cont::calibrate_at(eps, delta, x, &prior.into())?;
    crate::out::print_json(&SigmaOut { sigma_n: Num(c.sigma_n) })
}

#[derive(Serialize)]
struct AnalyticOut {
    delta: Num,
    vanilla_bound: Num,
}

fn gaussian_analytic(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "gaussian analytic";
    let Some(a) = parse(CMD, argv, &["epsilon", "sigma", "sensitivity"])? else { return Ok(()) };
    let (eps, s, d) = (number(CMD, &a, "epsilon")?, number(CMD, &a, "sigma")?, number(CMD, &a, "sensitivity")?);
    let eps = Epsilon::new("epsilon", eps)?;
    let delta = cont::analytic_gaussian_delta(eps, s, d)?;
    let vanilla = cont::vanilla_gaussian_delta(eps, s, d)?;
    crate::out::print_json(&AnalyticOut { delta: Num(delta), vanilla_bound: Num(vanilla) })
}

#[derive(Serialize)]
struct EOut {
    e: Num,
}

fn gaussian_e_divergence(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "gaussian e-divergence";
    let Some(a) = parse(CMD, argv, &["gamma", "mean1", "sd1", "mean2", "sd2"])? else { return Ok(()) };
    let gamma = number(CMD, &a, "gamma")?;
    let f = Gaussian::new(number(CMD, &a, "mean1")?, number(CMD, &a, "sd1")?)?;
    let g = Gaussian::new(number(CMD, &a, "mean2")?, number(CMD, &a, "sd2")?)?;
    crate::out::print_json(&EOut { e: Num(cont::e_divergence(gamma, &f, &g)?) })
}

#[derive(Serialize)]
struct LaplaceOut {
    b_ldp: Num,
    b_lip: Num,
    lip: Num,
}

pub fn laplace(argv: &[String]) -> Result<(), CliError> {
    match argv.first().map(String::as_str) {
        None => Err(CliError::usage("`privlift laplace` needs a kind: lip")),
        Some("-h" | "--help" | "help") => crate::help::print("laplace"),
        Some("lip") => laplace_lip(&argv[1..]),
        Some(other) => Err(CliError::usage(format!("unknown kind `{other}` for `privlift laplace` (expected: lip)"))),
    }
}

fn laplace_lip(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "laplace lip";
    let Some(a) = parse(CMD, argv, &["prior", "epsilon"])? else { return Ok(()) };
    let eps = number(CMD, &a, "epsilon")?;
    let path = a.value("prior").ok_or_else(|| CliError::usage("`privlift laplace lip` needs `--prior P.json`"))?;
    let (values, p) = files::load(path, |f| {
        let (labels, p) = files::load_prior(f)?;
        let values = labels
            .labels()
            .iter()
            .map(|l| {
                l.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    Error::invalid(
                        "labels",
                        format!("every label must be the numeric value x; got {}", privlift::error::Quoted(l)),
                    )
                })
            })
            .collect::<Result<Vec<f64>, Error>>()?;
        Ok((values, p))
    })?;
    let s = cont::laplace_scales(&values, &p, Epsilon::positive("epsilon", eps)?)?;
    let lip = cont::laplace_lip(&values, &p, s.b_lip)?;
    crate::out::print_json(&LaplaceOut { b_ldp: Num(s.b_ldp), b_lip: Num(s.b_lip), lip: Num(lip.lip) })
}

#[derive(Serialize)]
struct SamplingOut {
    lambda: Num,
}

pub fn sampling(argv: &[String]) -> Result<(), CliError> {
    const CMD: &str = "sampling";
    let Some(a) = parse(CMD, argv, &["epsilon", "delta"])? else { return Ok(()) };
    let eps = Epsilon::new("epsilon", number(CMD, &a, "epsilon")?)?;
    let lambda = cont::sampling_lambda(eps, Delta::new("delta", number(CMD, &a, "delta")?)?)?;
    crate::out::print_json(&SamplingOut { lambda: Num(lambda.get()) })
}
