//! How a failure is told: to an HTTP client as an [`ApiError`] (a status and a JSON
//! `{"code", "message"}`), to the operator of a command as a [`CliError`]
//! ([`storage_failure`]).

use privlift::Error;

use super::store::StoreError;
use crate::error::CliError;

/// An HTTP error answer: status and a JSON `{"code", "message"}` body.
#[derive(Debug)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: String) -> Self {
        ApiError { status, code, message }
    }
    pub fn bad_request(code: &'static str, message: String) -> Self {
        Self::new(400, code, message)
    }
    /// A database failure: logged in full (the database's own message), answered 503 with
    /// a `Retry-After` (clients retry with the same ids).
    pub fn storage(e: StoreError) -> Self {
        eprintln!("privlift: collect: {e}");
        Self::new(503, "storage", "the collector's database failed; retry later".into())
    }
    pub fn from_library(e: Error) -> Self {
        Self::new(422, e.code(), e.to_string())
    }
}

/// A database failure of a command (code `io`).
pub fn storage_failure(e: StoreError) -> CliError {
    CliError::Lib { context: Some("database".into()), error: Error::Io { message: e.0 } }
}
