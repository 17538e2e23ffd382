//! How the CLI prints: stdout without a panic on a closed pipe, and numbers and checks
//! in its JSON output (shared by `audit`, `verify`, `receipt`, `bound` and the continuous
//! commands).

use std::io::Write;

use privlift::verify::Check;
use serde::{Serialize, Serializer};

use crate::error::CliError;

/// Writes `text` to stdout and flushes (no panic on a closed pipe, unlike `println!`).
pub fn print_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| CliError::io("cannot write to stdout", e))
}

/// `value` as pretty JSON with a final newline (what every command prints).
pub fn pretty_json(value: &impl Serialize) -> Result<String, CliError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| privlift::Error::Json { message: e.to_string() })?;
    text.push('\n');
    Ok(text)
}

/// Prints `value` as pretty JSON with a final newline.
pub fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    print_stdout(&pretty_json(value)?)
}

/// An `f64` that serialises a non-finite value as a string (`"inf"`, `"-inf"`, `"nan"`)
/// instead of JSON `null`, so an unbounded leakage is never mistaken for a missing one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_finite() {
            s.serialize_f64(v)
        } else if v.is_nan() {
            s.serialize_str("nan")
        } else if v > 0.0 {
            s.serialize_str("inf")
        } else {
            s.serialize_str("-inf")
        }
    }
}

/// One checked claim or limit as the CLI prints it (`audit`, `verify`, continuous audits).
#[derive(Debug, Serialize)]
pub struct CheckOut {
    notion: String,
    bound: Num,
    actual: Num,
    pub holds: bool,
}

impl From<&Check> for CheckOut {
    fn from(c: &Check) -> Self {
        CheckOut { notion: c.notion.clone(), bound: Num(c.bound), actual: Num(c.actual), holds: c.holds }
    }
}
