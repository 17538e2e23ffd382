//! A small, strict command-line parser: `--name value`, `--name=value`, switches,
//! positionals, `--` to end options. Unknown, repeated or value-less options are
//! usage errors that name the offending argument.

use crate::error::CliError;

/// The parsed arguments of one command.
#[derive(Debug, Default)]
pub struct Args {
    pub positionals: Vec<String>,
    values: Vec<(&'static str, String)>,
    switches: Vec<&'static str>,
    /// `-h` or `--help` was given.
    pub help: bool,
}

impl Args {
    /// The value of option `name` (spelled without the leading `--`), if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Every value of the repeatable option `name`, in the order given.
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.values.iter().filter(|(n, _)| *n == name).map(|(_, v)| v.as_str()).collect()
    }

    /// Whether switch `name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.switches.contains(&name)
    }

    /// The one positional argument the command takes; `missing` is the usage error when
    /// there is none, and a second one is an unexpected argument.
    pub fn one_positional(&self, missing: impl Into<String>) -> Result<&str, CliError> {
        match self.positionals.as_slice() {
            [p] => Ok(p.as_str()),
            [] => Err(CliError::usage(missing)),
            [_, extra, ..] => Err(CliError::usage(format!("unexpected argument `{extra}`"))),
        }
    }
}

/// Parses `argv` for command `cmd`. `valued` lists options that take a value and
/// `switches` options that take none, both without the leading `--`.
pub fn parse(cmd: &str, argv: &[String], valued: &[&'static str], switches: &[&'static str]) -> Result<Args, CliError> {
    parse_repeatable(cmd, argv, valued, &[], switches)
}

/// [`parse`] where the options of `repeatable` (also in `valued`) may be given more than
/// once (read them with [`Args::values`]).
pub fn parse_repeatable(
    cmd: &str,
    argv: &[String],
    valued: &[&'static str],
    repeatable: &[&'static str],
    switches: &[&'static str],
) -> Result<Args, CliError> {
    let mut out = Args::default();
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            out.positionals.extend(it.by_ref().cloned());
            break;
        }
        if arg == "-h" || arg == "--help" {
            out.help = true;
            continue;
        }
        let Some(body) = arg.strip_prefix("--") else {
            if arg.starts_with('-') && arg != "-" {
                return Err(CliError::usage(format!("unknown option `{arg}` for `privlift {cmd}`")));
            }
            out.positionals.push(arg.clone());
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if let Some(&name) = valued.iter().find(|&&v| v == name) {
            if out.value(name).is_some() && !repeatable.contains(&name) {
                return Err(CliError::usage(format!("option `--{name}` is given twice")));
            }
            let value = match inline {
                Some(v) => v.to_string(),
                None => {
                    it.next().cloned().ok_or_else(|| CliError::usage(format!("option `--{name}` needs a value")))?
                }
            };
            out.values.push((name, value));
        } else if let Some(&name) = switches.iter().find(|&&s| s == name) {
            if inline.is_some() {
                return Err(CliError::usage(format!("option `--{name}` takes no value")));
            }
            out.switches.push(name);
        } else {
            return Err(CliError::usage(format!("unknown option `--{name}` for `privlift {cmd}`")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn usage_msg(r: Result<Args, CliError>) -> String {
        match r {
            Err(CliError::Usage(m)) => m,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn values_switches_and_positionals() {
        let a = parse("t", &argv(&["x.json", "--port=0", "--dir", "d", "--public"]), &["port", "dir"], &["public"])
            .unwrap();
        assert_eq!(a.positionals, ["x.json"]);
        assert_eq!(a.value("port"), Some("0"));
        assert_eq!(a.value("dir"), Some("d"));
        assert!(a.switch("public"));
        assert!(!a.help);
    }

    #[test]
    fn repeatable_options_keep_every_value() {
        let a = parse_repeatable("t", &argv(&["--c", "1", "--c=2", "--s", "x"]), &["c", "s"], &["c"], &[]).unwrap();
        assert_eq!(a.values("c"), ["1", "2"]);
        assert_eq!(a.value("c"), Some("1"));
        assert!(usage_msg(parse_repeatable("t", &argv(&["--s", "1", "--s", "2"]), &["c", "s"], &["c"], &[]))
            .contains("given twice"));
    }

    #[test]
    fn negative_values_and_double_dash() {
        let a = parse("t", &argv(&["--a", "-1", "--", "--not-an-option"]), &["a"], &[]).unwrap();
        assert_eq!(a.value("a"), Some("-1"));
        assert_eq!(a.positionals, ["--not-an-option"]);
    }

    #[test]
    fn errors_name_the_argument() {
        assert!(usage_msg(parse("t", &argv(&["--nope"]), &["a"], &[])).contains("`--nope`"));
        assert!(usage_msg(parse("t", &argv(&["-x"]), &["a"], &[])).contains("`-x`"));
        assert!(usage_msg(parse("t", &argv(&["--a"]), &["a"], &[])).contains("needs a value"));
        assert!(usage_msg(parse("t", &argv(&["--a=1", "--a", "2"]), &["a"], &[])).contains("twice"));
        assert!(usage_msg(parse("t", &argv(&["--s=1"]), &[], &["s"])).contains("takes no value"));
    }

    #[test]
    fn help_anywhere() {
        assert!(parse("t", &argv(&["x", "--help"]), &[], &[]).unwrap().help);
        assert!(parse("t", &argv(&["-h"]), &[], &[]).unwrap().help);
    }
}
