//! `privlift`: the curator's command-line tool.
//!
//! * `privlift audit` prints the leakage audit of a mechanism as one JSON object;
//! * `privlift bound` prints an accounting bound (LIP ↔ LDP, composition, transfer);
//! * `privlift design` designs a mechanism and prints its (audited) document;
//! * `privlift gaussian`, `laplace`, `sampling` calibrate the continuous-data mechanisms;
//! * `privlift estimate` estimates the input histogram from the counts of the reports
//!   (or, for an open domain, the frequencies of a candidate list);
//! * `privlift heavy-hitters` finds an open domain's most frequent values (PEM);
//! * `privlift serve` serves a directory over HTTP/1.1 on loopback (browser demo, tests);
//! * `privlift collect` serves the published documents and stores the reports in SQLite or
//!   PostgreSQL, and answers the curator's estimates from them.
//!
//! Every error is printed to stderr as `privlift: error[CODE]: MESSAGE`, where CODE is
//! [`privlift::Error::code`]. Exit codes: 0 success, 1 invalid input or I/O failure,
//! 2 usage error (unknown command or option, missing or malformed argument).
#![forbid(unsafe_code)]

mod args;
mod audit;
mod bound;
mod collect;
mod continuous;
mod continuous_design;
mod design;
mod error;
mod estimate;
mod estimation;
mod files;
mod heavy_hitters;
mod help;
mod http;
mod open_design;
mod open_estimate;
mod out;
mod receipt;
mod serve;
mod verify;

use std::process::ExitCode;

use error::CliError;
use help::HELP;
use out::print_stdout;

fn run(argv: &[String]) -> Result<(), CliError> {
    let Some(first) = argv.first() else {
        return Err(CliError::usage("no command given"));
    };
    let rest = &argv[1..];
    match first.as_str() {
        "audit" => audit::run(rest),
        "bound" => bound::run(rest),
        "design" => design::run(rest),
        "estimate" => estimate::run(rest),
        "heavy-hitters" => heavy_hitters::run(rest),
        "collect" => collect::run(rest),
        "simulate" => collect::simulate::run(rest),
        "receipt" => receipt::run(rest),
        "gaussian" => continuous::gaussian(rest),
        "laplace" => continuous::laplace(rest),
        "sampling" => continuous::sampling(rest),
        "serve" => serve::run(rest),
        "verify" => verify::run(rest),
        "help" | "--help" | "-h" => match rest.first() {
            Some(cmd) => help::print(cmd),
            None => print_stdout(HELP),
        },
        "--version" | "-V" | "version" => print_stdout(&format!("privlift {}\n", env!("CARGO_PKG_VERSION"))),
        other if other.starts_with('-') => Err(CliError::usage(format!("unknown option `{other}`"))),
        other => Err(CliError::usage(format!(
            "unknown command `{other}` (expected `audit`, `bound`, `collect`, `design`, `estimate`, `gaussian`, `heavy-hitters`, `laplace`, \
             `receipt`, `sampling`, `serve`, `simulate`, `verify` or `help`)"
        ))),
    }
}

fn main() -> ExitCode {
    let mut argv = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(a) => {
                let e = CliError::usage(format!("argument {a:?} is not valid UTF-8"));
                e.report();
                return ExitCode::from(e.exit_code());
            }
        }
    }
    match run(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            e.report();
            ExitCode::from(e.exit_code())
        }
    }
}
