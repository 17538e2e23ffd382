//! The CLI's input files (M.json, P.json, J.json, PS.json, D.json): reading, parsing and
//! validation with the same rules and error codes as documents. Shared by `audit` and
//! `design`.

use privlift::Error;
pub use privlift_design::request::*;

use crate::error::CliError;

/// Reads a file as UTF-8 text. A missing or unreadable file is `io`; bytes that are not
/// UTF-8 are `json` (the file is not a JSON text).
pub fn read(path: &str) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::io(format!("cannot read {path}"), e))?;
    String::from_utf8(bytes).map_err(|e| CliError::in_file(path, Error::Json { message: format!("not UTF-8: {e}") }))
}

/// Reads and deserialises a JSON file (`json` on syntax, missing or unknown fields).
pub fn parse_file<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, CliError> {
    serde_json::from_str(&read(path)?).map_err(|e| CliError::in_file(path, Error::from_parser(e)))
}

/// Parses and validates `path` with `load`, naming the file in any error.
pub fn load<F: serde::de::DeserializeOwned, T>(
    path: &str,
    load: impl FnOnce(F) -> Result<T, Error>,
) -> Result<T, CliError> {
    load(parse_file(path)?).map_err(|e| CliError::in_file(path, e))
}
