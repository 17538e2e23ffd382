//! The HTTP statuses `serve` answers with, each with its reason phrase.

/// An HTTP status with its reason phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16, pub &'static str);

pub(crate) const BAD_REQUEST: Status = Status(400, "Bad Request");
pub(crate) const FORBIDDEN: Status = Status(403, "Forbidden");
pub(crate) const NOT_FOUND: Status = Status(404, "Not Found");
pub(crate) const METHOD_NOT_ALLOWED: Status = Status(405, "Method Not Allowed");
pub(crate) const INTERNAL_ERROR: Status = Status(500, "Internal Server Error");
