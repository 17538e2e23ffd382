//! `privlift CMD --help`: the part of [`crate::HELP`] about one command — its usage
//! lines, its paragraph under "Commands:", the sections it reads (design methods, files)
//! and the exit codes. Cut out of the one help text, so the two never disagree.

/// Sections of the help text: a header line at column 0 and its indented lines.
fn sections() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in crate::HELP.lines() {
        if !line.is_empty() && !line.starts_with(' ') {
            out.push((line, Vec::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push(line);
        }
    }
    for (_, body) in &mut out {
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
    }
    out
}

/// The help of `cmd` (`audit`, `design`, …), or `None` for an unknown command.
pub fn for_command(cmd: &str) -> Option<String> {
    let secs = sections();
    let usage_prefix = format!("  privlift {cmd} ");
    let mut out = String::new();
    out.push_str(secs.first()?.0);
    out.push_str("\n\nUsage:\n");
    // Usage lines of the command, with their continuation lines (deeper indent).
    let mut inside = false;
    for line in secs.iter().find(|(h, _)| *h == "Usage:")?.1.iter() {
        if line.starts_with("  privlift ") {
            inside = line.starts_with(&usage_prefix) || line.trim_end() == usage_prefix.trim_end();
        }
        if inside && !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !out.contains(&usage_prefix) {
        return None;
    }
    // The command's paragraph: from "  cmd  …" to the next command at the same indent.
    out.push('\n');
    let mut inside = false;
    for line in secs.iter().find(|(h, _)| *h == "Commands:")?.1.iter() {
        let starts_command = line.len() > 2 && line.as_bytes()[2] != b' ' && line.starts_with("  ");
        if starts_command {
            inside = line[2..].split_whitespace().next() == Some(cmd);
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    let extra: &[&str] = match cmd {
        "design" => &["Design methods", "Continuous design methods", "Files:"],
        "audit" | "estimate" | "bound" | "receipt" | "verify" | "laplace" => &["Files:"],
        _ => &[],
    };
    for (header, body) in secs.iter().filter(|(h, _)| extra.iter().any(|e| h.starts_with(e))) {
        out.push('\n');
        out.push_str(header);
        out.push('\n');
        for line in body {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    for (header, body) in secs.iter().filter(|(h, _)| h.starts_with("Exit codes") || h.starts_with("Errors")) {
        out.push_str(header);
        out.push('\n');
        for line in body.iter().filter(|l| !l.is_empty()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}

/// Prints the help of `cmd` (the whole help for an unknown one).
pub fn print(cmd: &str) -> Result<(), crate::CliError> {
    crate::print_stdout(&for_command(cmd).unwrap_or_else(|| crate::HELP.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMANDS: [&str; 13] = [
        "audit", "design", "estimate", "bound", "receipt", "verify", "gaussian", "laplace", "sampling", "serve",
        "collect", "simulate", "help",
    ];

    #[test]
    fn every_command_has_its_own_shorter_help() {
        for cmd in &COMMANDS[..12] {
            let h = for_command(cmd).unwrap_or_else(|| panic!("{cmd}: no help"));
            assert!(h.contains(&format!("privlift {cmd} ")), "{cmd}: {h}");
            assert!(h.lines().count() < crate::HELP.lines().count() / 2 || *cmd == "design", "{cmd}: too long");
            assert!(h.contains("Exit codes"), "{cmd}");
            for other in COMMANDS[..12].iter().filter(|o| *o != cmd) {
                assert!(!h.contains(&format!("privlift {other} ")), "{cmd}'s help shows {other}: {h}");
            }
        }
        assert!(for_command("design").unwrap().contains("orr-lip"));
        assert!(for_command("verify").unwrap().contains("maxVerifyWork"));
        assert!(for_command("nonsense").is_none());
    }
}
