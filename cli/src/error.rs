//! The CLI's one error type: what every command returns, and how `main` reports it
//! (its stderr line and exit code).

use std::io::Write;

/// A failure of one invocation.
#[derive(Debug)]
pub enum CliError {
    /// The command line is wrong (exit code 2, code `invalid_argument`).
    Usage(String),
    /// The library or the file system refused (exit code 1). `context` names the file.
    Lib { context: Option<String>, error: privlift::Error },
    /// A refusal the command already reported on stdout (exit code 1, nothing on stderr).
    Reported,
}

impl CliError {
    pub fn usage(msg: impl Into<String>) -> Self {
        CliError::Usage(msg.into())
    }

    /// A library error about the content of `path`.
    pub fn in_file(path: &str, error: privlift::Error) -> Self {
        CliError::Lib { context: Some(path.to_string()), error }
    }

    /// An I/O failure (code `io`); `what` names the path or address.
    pub fn io(what: impl std::fmt::Display, e: std::io::Error) -> Self {
        CliError::Lib { context: None, error: privlift::Error::Io { message: format!("{what}: {e}") } }
    }

    pub fn code(&self) -> &'static str {
        match self {
            CliError::Usage(_) => "invalid_argument",
            CliError::Lib { error, .. } => error.code(),
            CliError::Reported => "reported",
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Lib { .. } | CliError::Reported => 1,
        }
    }

    /// Prints the error to stderr as `privlift: error[CODE]: MESSAGE` (nothing for
    /// [`CliError::Reported`]).
    pub fn report(&self) {
        let code = self.code();
        let msg = match self {
            CliError::Reported => return,
            CliError::Usage(m) => format!("{m}\nRun `privlift --help` for usage."),
            CliError::Lib { context: Some(c), error } => format!("{c}: {error}"),
            CliError::Lib { context: None, error } => error.to_string(),
        };
        // Nothing sensible is left to do if stderr itself is gone.
        let _ = writeln!(std::io::stderr().lock(), "privlift: error[{code}]: {msg}");
    }
}

impl From<privlift::Error> for CliError {
    fn from(error: privlift::Error) -> Self {
        CliError::Lib { context: None, error }
    }
}
