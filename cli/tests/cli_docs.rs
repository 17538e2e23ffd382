//! docs/cli.md describes the CLI as it is: every command, subcommand, design method,
//! flag and HTTP route form that `privlift help` or a command's `--help` prints is named
//! in it. A command or flag added to the help without its documentation fails here.

mod common;

use std::collections::BTreeSet;

use common::cli::run;

const DOC: &str = include_str!("../../docs/cli.md");

/// What the help names, each as the text docs/cli.md must contain.
#[derive(Default)]
struct Named(BTreeSet<String>);

impl Named {
    /// Reads one help text.
    fn read(&mut self, help: &str) {
        self.usage(help);
        self.methods(help);
        for word in help.split(|c: char| c.is_whitespace() || "[](){},;:=`\"'…".contains(c)) {
            if let Some(flag) = word.strip_prefix("--").and_then(|f| name(f, |c| c.is_ascii_lowercase())) {
                self.0.insert(format!("--{flag}"));
            }
            // The collector's routes (`/v1/reports`) and query forms (`?candidate`).
            if word.starts_with("/v1/") {
                let end = word.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '/'));
                self.0.insert(word[..end.unwrap_or(word.len())].trim_end_matches('/').to_string());
            }
            if let Some(form) = word.strip_prefix('?').or_else(|| word.split_once("ID?").map(|(_, f)| f)) {
                if let Some(form) = name(form, |c| c.is_ascii_lowercase() || c == '_') {
                    self.0.insert(format!("?{form}"));
                }
            }
        }
    }

    /// The usage lines: `privlift CMD` and `privlift CMD SUB` for each lower-case SUB
    /// (`bound lip-to-ldp`, `design olh|hadamard|hcms`: one each).
    fn usage(&mut self, help: &str) {
        for line in help.lines() {
            let mut words = line.split_whitespace();
            if words.next() != Some("privlift") {
                continue;
            }
            let Some(cmd) = words.next().and_then(|c| name(c, |c| c.is_ascii_lowercase())) else { continue };
            self.0.insert(format!("privlift {cmd}"));
            let sub = words.next().unwrap_or("");
            if sub.starts_with(|c: char| c.is_ascii_lowercase())
                && sub.chars().all(|c| c.is_ascii_lowercase() || c == '-' || c == '|')
            {
                for s in sub.split('|').filter(|s| !s.is_empty()) {
                    self.0.insert(format!("privlift {cmd} {s}"));
                }
            }
        }
    }

    /// The design methods: the names that open a line (two spaces in) of a section whose
    /// heading says "design methods", up to the blank line that ends it; each as `` `name` ``.
    fn methods(&mut self, help: &str) {
        let mut inside = false;
        for line in help.lines() {
            if line.to_lowercase().contains("design methods") {
                inside = true;
            } else if line.trim().is_empty() {
                inside = false;
            } else if let Some(rest) = line.strip_prefix("  ").filter(|_| inside) {
                let method = rest.split("  ").next().unwrap_or("");
                if name(method, |c| c.is_ascii_lowercase()).is_some_and(|m| m == method) {
                    self.0.insert(format!("`{method}`"));
                }
            }
        }
    }
}

/// The leading name of `text`: a first character that `first` accepts, then lower-case
/// letters, digits, `-` and `_`; `None` when empty.
fn name(text: &str, first: impl Fn(char) -> bool) -> Option<&str> {
    if !text.starts_with(&first) {
        return None;
    }
    let end = text.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'));
    let n = &text[..end.unwrap_or(text.len())];
    (!n.is_empty()).then_some(n)
}

/// Whether docs/cli.md contains `item` as a whole name: not followed by a character that
/// would continue it (`--max` is not documented by `--max-bytes`).
fn documented(item: &str) -> bool {
    DOC.match_indices(item).any(|(at, _)| {
        let next = DOC[at + item.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// Every command's `--help`, and the whole help.
fn helps() -> Vec<(String, String)> {
    let all = run(&["help"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    let mut named = Named::default();
    named.usage(&all.stdout);
    let mut out = vec![("help".to_string(), all.stdout.clone())];
    for cmd in named.0.iter().filter_map(|c| c.strip_prefix("privlift ")).filter(|c| !c.contains(' ')) {
        let h = run(&[cmd, "--help"]);
        assert_eq!(h.code, 0, "privlift {cmd} --help: {}", h.stderr);
        out.push((cmd.to_string(), h.stdout));
    }
    out
}

#[test]
fn every_command_and_flag_of_the_help_is_in_docs_cli_md() {
    let helps = helps();
    assert!(helps.len() > 10, "{} commands", helps.len());
    let mut missing = Vec::new();
    for (cmd, help) in &helps {
        let mut named = Named::default();
        named.read(help);
        assert!(named.0.len() > 1, "privlift {cmd} --help names nothing: {help}");
        missing.extend(named.0.into_iter().filter(|item| !documented(item)).map(|item| format!("{item} ({cmd})")));
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "printed by the help, missing from docs/cli.md:\n  {}", missing.join("\n  "));
}

/// The reader finds what the help prints, and a name the documentation lacks is reported.
#[test]
fn the_reader_finds_commands_flags_methods_and_routes() {
    let mut named = Named::default();
    named.read(
        "Usage:\n  privlift design olh|hadamard --epsilon E [--max-bytes B]\n  privlift bound lip-to-ldp --pmin P\n\
         \nOpen-domain design methods (strings,\nmore):\n  olh            local hashing\n  \
         heavy-hitters  PEM\n                 continued --top\n\n  GET /v1/estimates/ID?candidate=V, ?heavy_hitters&top=K\n",
    );
    let want = [
        "--epsilon",
        "--max-bytes",
        "--pmin",
        "--top",
        "/v1/estimates",
        "?candidate",
        "?heavy_hitters",
        "`heavy-hitters`",
        "`olh`",
        "privlift bound",
        "privlift bound lip-to-ldp",
        "privlift design",
        "privlift design hadamard",
        "privlift design olh",
    ];
    assert_eq!(named.0.iter().map(String::as_str).collect::<Vec<_>>(), want);
    assert!(documented("--epsilon") && !documented("--no-such-flag") && !documented("privlift frobnicate"));
}
