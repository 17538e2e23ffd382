//! `privlift bound KIND ...`: the accounting bounds of `privlift::accounting`, each
//! printed as one JSON object (nats; an unbounded value as the string `"inf"`).
//!
//! * `lip-to-ldp --epsilon E --pmin P` → `{"bound"}` (Prop 1)
//! * `ldp-to-lip --epsilon E --pmin P` → `{"bound"}` (Thm 1, converse)
//! * `lip-to-ldp-exact --prior P.json --epsilon E` → `{"ldp"}` (the optimum of eq 9)
//! * `compose --prior P.json --matrix M1.json --matrix M2.json …` →
//!   `{"eps_k", "bound", "exact"}` (Thm 4 and the exact leakage of the joint release)
//! * `transfer --p1 P1.json --p2 P2.json --matrix M.json --epsilon E [--samples N --beta B]`
//!   → `{"eta", "lip_p1", "lip_p2", "eq12_bound", "cor7_eta"}` (Lemma 3, eq 12, Cor 7)

use privlift::accounting;
use privlift::document::Matrix;
use privlift::leakage::DEFAULT_ALPHA_ORDER;
use privlift::param::{Budget, Probability};
use privlift::verify::within;
use privlift::Error;
use serde::Serialize;

use crate::args::{self, Args};
use crate::error::CliError;
use crate::files;
use crate::out::Num;

/// The kinds, in help order.
pub const KINDS: [&str; 5] = ["lip-to-ldp", "ldp-to-lip", "lip-to-ldp-exact", "compose", "transfer"];

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let Some(kind) = argv.first() else {
        return Err(CliError::usage(format!("`privlift bound` needs a kind: {}", KINDS.join(", "))));
    };
    let rest = &argv[1..];
    match kind.as_str() {
        "-h" | "--help" | "help" => crate::help::print("bound"),
        "lip-to-ldp" | "ldp-to-lip" => scalar(kind, rest),
        "lip-to-ldp-exact" => lip_to_ldp_exact(rest),
        "compose" => compose(rest),
        "transfer" => transfer(rest),
        other => Err(CliError::usage(format!("unknown bound `{other}` (expected one of: {})", KINDS.join(", ")))),
    }
}

/// Parses the options of `privlift bound KIND`; no positional is accepted.
fn parse(kind: &str, argv: &[String], valued: &[&'static str]) -> Result<Option<Args>, CliError> {
    let a = args::parse(&format!("bound {kind}"), argv, valued, &[])?;
    if a.help {
        crate::help::print("bound")?;
        return Ok(None);
    }
    if let Some(p) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{p}` for `privlift bound {kind}`")));
    }
    Ok(Some(a))
}

fn required<'a>(kind: &str, a: &'a Args, flag: &str, metavar: &str) -> Result<&'a str, CliError> {
    a.value(flag).ok_or_else(|| CliError::usage(format!("`privlift bound {kind}` needs `--{flag} {metavar}`")))
}

/// A numeric flag (a usage error if it is not a number; its range is checked by the library).
fn number(kind: &str, a: &Args, flag: &str, metavar: &str) -> Result<f64, CliError> {
    let s = required(kind, a, flag, metavar)?;
    s.trim().parse::<f64>().map_err(|_| CliError::usage(format!("`--{flag}` must be a number, got {s:?}")))
}

fn prior(path: &str) -> Result<Vec<f64>, CliError> {
    files::load(path, |f| Ok(files::load_prior(f)?.1))
}

/// A channel from M.json whose rows must number `nx`.
fn channel(path: &str, nx: usize) -> Result<Matrix, CliError> {
    files::load(path, |f| {
        let m = files::load_matrix(f)?;
        if m.rows() != nx {
            return Err(Error::DimensionMismatch { field: "p_y_given_x".into(), expected: nx, found: m.rows() });
        }
        Ok(m)
    })
}

fn lip(prior: &[f64], m: &Matrix) -> Result<f64, CliError> {
    Ok(privlift::audit(&Matrix::diag(prior), m, DEFAULT_ALPHA_ORDER)?.lip)
}

#[derive(Serialize)]
struct BoundOut {
    bound: Num,
}

fn scalar(kind: &str, argv: &[String]) -> Result<(), CliError> {
    let Some(a) = parse(kind, argv, &["epsilon", "pmin"])? else { return Ok(()) };
    let (eps, pmin) = (number(kind, &a, "epsilon", "E")?, number(kind, &a, "pmin", "P")?);
    let eps = Budget::new("epsilon", eps)?;
    let bound = if kind == "lip-to-ldp" {
        accounting::lip_to_ldp(eps, Probability::positive("pmin", pmin)?)?
    } else {
        accounting::ldp_to_lip(eps, Probability::new("pmin", pmin)?)?
    };
    crate::out::print_json(&BoundOut { bound: Num(bound) })
}

#[derive(Serialize)]
struct LdpOut {
    ldp: Num,
}

fn lip_to_ldp_exact(argv: &[String]) -> Result<(), CliError> {
    const KIND: &str = "lip-to-ldp-exact";
    let Some(a) = parse(KIND, argv, &["prior", "epsilon"])? else { return Ok(()) };
    let eps = number(KIND, &a, "epsilon", "E")?;
    let p = prior(required(KIND, &a, "prior", "P.json")?)?;
    crate::out::print_json(&LdpOut { ldp: Num(accounting::lip_to_ldp_exact(&p, Budget::new("epsilon", eps)?)?) })
}

/// Splits every `--NAME VALUE` / `--NAME=VALUE` out of `argv` (before a `--`), for a
/// flag that may repeat.
fn take_repeated(argv: &[String], name: &str) -> Result<(Vec<String>, Vec<String>), CliError> {
    let (flag, prefix) = (format!("--{name}"), format!("--{name}="));
    let (mut values, mut rest) = (Vec::new(), Vec::new());
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            rest.push(arg.clone());
            rest.extend(it.by_ref().cloned());
            break;
        }
        if *arg == flag {
            let v = it.next().ok_or_else(|| CliError::usage(format!("option `{flag}` needs a value")))?;
            values.push(v.clone());
        } else if let Some(v) = arg.strip_prefix(&prefix) {
            values.push(v.to_string());
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((values, rest))
}

#[derive(Serialize)]
struct ComposeOut {
    eps_k: Vec<Num>,
    bound: Num,
    exact: Num,
}

fn compose(argv: &[String]) -> Result<(), CliError> {
    const KIND: &str = "compose";
    let (matrices, rest) = take_repeated(argv, "matrix")?;
    let Some(a) = parse(KIND, &rest, &["prior"])? else { return Ok(()) };
    let p = prior(required(KIND, &a, "prior", "P.json")?)?;
    if matrices.is_empty() {
        return Err(CliError::usage("`privlift bound compose` needs at least one `--matrix M.json`"));
    }
    let chans = matrices.iter().map(|m| channel(m, p.len())).collect::<Result<Vec<_>, _>>()?;
    let eps = chans.iter().map(|m| lip(&p, m)).collect::<Result<Vec<_>, _>>()?;
    let eps_k =
        eps.iter().enumerate().map(|(k, &e)| Budget::new(&format!("eps_k[{k}]"), e)).collect::<Result<Vec<_>, _>>()?;
    let bound = accounting::compose_lip(&eps_k, Probability::positive("pmin", accounting::support_pmin(&p)?)?)?;
    let exact = accounting::compose_exact(&p, &chans)?;
    crate::out::print_json(&ComposeOut {
        eps_k: eps.into_iter().map(Num).collect(),
        bound: Num(bound),
        exact: Num(exact.lip),
    })
}

#[derive(Serialize)]
struct TransferOut {
    eta: Num,
    lip_p1: Num,
    lip_p2: Num,
    eq12_bound: Num,
    cor7_eta: Option<Num>,
}

fn transfer(argv: &[String]) -> Result<(), CliError> {
    const KIND: &str = "transfer";
    let Some(a) = parse(KIND, argv, &["p1", "p2", "matrix", "epsilon", "samples", "beta"])? else { return Ok(()) };
    let eps = number(KIND, &a, "epsilon", "E")?;
    let samples = match (a.value("samples"), a.value("beta")) {
        (None, None) => None,
        (Some(n), Some(_)) => Some(
            n.trim()
                .parse::<u64>()
                .map_err(|_| CliError::usage(format!("`--samples` must be a whole number of samples, got {n:?}")))?,
        ),
        _ => return Err(CliError::usage("`--samples N` and `--beta B` go together")),
    };
    let beta = samples.map(|_| number(KIND, &a, "beta", "B")).transpose()?;
    let p1 = prior(required(KIND, &a, "p1", "P1.json")?)?;
    let p2 = prior(required(KIND, &a, "p2", "P2.json")?)?;
    if p2.len() != p1.len() {
        let path = required(KIND, &a, "p2", "P2.json")?;
        return Err(CliError::in_file(
            path,
            Error::DimensionMismatch { field: "p".into(), expected: p1.len(), found: p2.len() },
        ));
    }
    let m = channel(required(KIND, &a, "matrix", "M.json")?, p1.len())?;
    let eta = accounting::transfer_eta(&p1, &p2)?;
    let p1min = accounting::pmin(&p1)?;
    let eq12 = accounting::transfer_lip_bound(
        Budget::new("epsilon", eps)?,
        Budget::new("eta", eta)?,
        Probability::new("p1min", p1min)?,
    )?;
    let (lip_p1, lip_p2) = (lip(&p1, &m)?, lip(&p2, &m)?);
    // Eq 12 starts from L(M, P1) ≤ ε: refuse an ε the mechanism does not meet.
    if !within(lip_p1, eps) {
        let e = Error::ClaimViolated { notion: "lip under p1 (--epsilon)".into(), claimed: eps, actual: lip_p1 };
        return Err(e.into());
    }
    let cor7 = match (samples, beta) {
        (Some(n), Some(b)) => {
            let c = p1min.min(accounting::pmin(&p2)?);
            let (b, c) = (Probability::new("beta", b)?, Probability::new("c", c)?);
            Some(Num(accounting::empirical_prior_eta(n, b, p1.len(), c)?))
        }
        _ => None,
    };
    crate::out::print_json(&TransferOut {
        eta: Num(eta),
        lip_p1: Num(lip_p1),
        lip_p2: Num(lip_p2),
        eq12_bound: Num(eq12),
        cor7_eta: cor7,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn repeated_matrix_flags_are_split_out() {
        let (m, rest) =
            take_repeated(&argv(&["--matrix", "a", "--prior", "p", "--matrix=b", "--", "--matrix"]), "matrix").unwrap();
        assert_eq!(m, ["a", "b"]);
        assert_eq!(rest, ["--prior", "p", "--", "--matrix"]);
        assert!(matches!(take_repeated(&argv(&["--matrix"]), "matrix"), Err(CliError::Usage(_))));
    }
}
