//! One error type for the whole crate, with a stable machine-readable [`Error::code`].
//!
//! Codes are part of the public contract: the JS layer copies them onto `Error.code`,
//! the CLI prints them, and tests assert them. Never reuse or rename a code.

use alloc::string::String;
use core::fmt;

/// Every failure privlift reports. Each variant names what is wrong; none of them panics.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The document or file is not valid JSON, or misses a required field.
    Json { message: String },
    /// `format` is not `"privlift-mechanism"`.
    UnsupportedFormat { found: String },
    /// `version` is one this build does not understand.
    UnsupportedVersion { found: u64 },
    /// A mechanism `kind` this build does not implement.
    UnsupportedMechanism { kind: String },
    /// A number is NaN or infinite.
    NonFinite { field: String },
    /// A probability is negative.
    NegativeProbability { field: String, value: f64 },
    /// A distribution does not sum to 1 within [`crate::spec::SUM_TOLERANCE`].
    NotNormalized { field: String, sum: f64 },
    /// Two sizes that must agree do not.
    DimensionMismatch { field: String, expected: usize, found: usize },
    /// The same label appears twice in one alphabet.
    DuplicateLabel { field: String, label: String },
    /// An alphabet is larger than [`crate::spec::MAX_SYMBOLS`].
    TooManySymbols { field: String, found: usize, max: usize },
    /// An alphabet is empty.
    EmptyAlphabet { field: String },
    /// The declared prior P_X is not the column sums of the declared joint P_SX.
    PriorMismatch { index: usize, prior: f64, marginal: f64 },
    /// A value given to the mechanism is refused (not in its input alphabet or domain, or
    /// of prior probability 0). `reason` never contains the value itself: a page that
    /// forwards errors to telemetry must not leak the user's input.
    UnknownValue { reason: String },
    /// An output value is not in the mechanism's output alphabet.
    UnknownOutput { value: String },
    /// The document claims a guarantee that its own matrix does not give.
    ClaimViolated { notion: String, claimed: f64, actual: f64 },
    /// The mechanism gives a leakage above what the user's policy allows.
    PolicyViolated { notion: String, limit: f64, actual: f64 },
    /// The document makes no privacy claim at all, so there is nothing to verify.
    NoClaims,
    /// A parameter is out of its domain (a negative ε, an α-order of 1, ...).
    InvalidArgument { name: String, reason: String },
    /// The operating system / browser random source failed.
    Rng { message: String },
    /// Reading or writing a file failed (CLI only).
    Io { message: String },
    /// No mechanism meets the request (an infeasible LP, a budget no design can meet).
    Infeasible { reason: String },
    /// A design was computed but failed its own post-check or audit (numerical trouble);
    /// nothing is published.
    DesignFailed { reason: String },
    /// Verifying (or auditing) the document would cost more than the budget
    /// ([`crate::verify::DEFAULT_MAX_VERIFY_WORK`], or the policy's `maxVerifyWork`);
    /// refused before anything is allocated.
    TooCostly { what: String, work: f64, limit: f64 },
}

impl Error {
    /// Stable code, for programs to branch on (never on the message text).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Json { .. } => "json",
            Error::UnsupportedFormat { .. } => "unsupported_format",
            Error::UnsupportedVersion { .. } => "unsupported_version",
            Error::UnsupportedMechanism { .. } => "unsupported_mechanism",
            Error::NonFinite { .. } => "non_finite",
            Error::NegativeProbability { .. } => "negative_probability",
            Error::NotNormalized { .. } => "not_normalized",
            Error::DimensionMismatch { .. } => "dimension_mismatch",
            Error::DuplicateLabel { .. } => "duplicate_label",
            Error::TooManySymbols { .. } => "too_many_symbols",
            Error::EmptyAlphabet { .. } => "empty_alphabet",
            Error::PriorMismatch { .. } => "prior_mismatch",
            Error::UnknownValue { .. } => "unknown_value",
            Error::UnknownOutput { .. } => "unknown_output",
            Error::ClaimViolated { .. } => "claim_violated",
            Error::PolicyViolated { .. } => "policy_violated",
            Error::NoClaims => "no_claims",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::Rng { .. } => "rng",
            Error::Io { .. } => "io",
            Error::Infeasible { .. } => "infeasible",
            Error::DesignFailed { .. } => "design_failed",
            Error::TooCostly { .. } => "too_costly",
        }
    }

    /// Every code this crate can return, for documentation and the TypeScript types.
    pub const CODES: &'static [&'static str] = &[
        "json",
        "unsupported_format",
        "unsupported_version",
        "unsupported_mechanism",
        "non_finite",
        "negative_probability",
        "not_normalized",
        "dimension_mismatch",
        "duplicate_label",
        "too_many_symbols",
        "empty_alphabet",
        "prior_mismatch",
        "unknown_value",
        "unknown_output",
        "claim_violated",
        "policy_violated",
        "no_claims",
        "invalid_argument",
        "rng",
        "io",
        "infeasible",
        "design_failed",
        "too_costly",
    ];

    pub(crate) fn field(f: impl Into<String>) -> FieldCtx {
        FieldCtx(f.into())
    }
}

/// Helper that builds field-naming errors tersely inside validation code.
pub(crate) struct FieldCtx(pub String);

impl FieldCtx {
    pub fn non_finite(self) -> Error {
        Error::NonFinite { field: self.0 }
    }
    pub fn negative(self, value: f64) -> Error {
        Error::NegativeProbability { field: self.0, value }
    }
    pub fn not_normalized(self, sum: f64) -> Error {
        Error::NotNormalized { field: self.0, sum }
    }
    pub fn dims(self, expected: usize, found: usize) -> Error {
        Error::DimensionMismatch { field: self.0, expected, found }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json { message } => write!(f, "invalid JSON: {message}"),
            Error::UnsupportedFormat { found } => {
                write!(f, "`format` is {found:?}; expected \"privlift-mechanism\"")
            }
            Error::UnsupportedVersion { found } => {
                write!(f, "`version` {found} is not supported; this build reads version 1")
            }
            Error::UnsupportedMechanism { kind } => {
                write!(f, "mechanism kind {kind:?} is not supported by this build")
            }
            Error::NonFinite { field } => write!(f, "`{field}` contains a NaN or infinite number"),
            Error::NegativeProbability { field, value } => {
                write!(f, "`{field}` has a negative probability ({value})")
            }
            Error::NotNormalized { field, sum } => {
                write!(f, "`{field}` sums to {sum}, not 1 (tolerance 1e-9)")
            }
            Error::DimensionMismatch { field, expected, found } => {
                write!(f, "`{field}` has {found} entries; expected {expected}")
            }
            Error::DuplicateLabel { field, label } => {
                write!(f, "`{field}` contains the label {label:?} twice")
            }
            Error::TooManySymbols { field, found, max } => {
                write!(f, "`{field}` has {found} symbols; at most {max} are allowed")
            }
            Error::EmptyAlphabet { field } => write!(f, "`{field}` is empty"),
            Error::PriorMismatch { index, prior, marginal } => {
                write!(f, "`prior`[{index}] = {prior} but the column sum of `secret.p_sx` is {marginal}")
            }
            Error::UnknownValue { reason } => write!(f, "the input value is refused: {reason}"),
            Error::UnknownOutput { value } => {
                write!(f, "{value} is not in the mechanism's output alphabet")
            }
            Error::ClaimViolated { notion, claimed, actual } => {
                write!(f, "the document claims {notion} ≤ {claimed} nats, but its mechanism leaks {actual} nats")
            }
            Error::PolicyViolated { notion, limit, actual } => {
                write!(f, "{notion} leakage {actual} nats exceeds the policy limit of {limit} nats")
            }
            Error::NoClaims => write!(f, "the document makes no privacy claim (`claims` is empty)"),
            Error::InvalidArgument { name, reason } => write!(f, "invalid `{name}`: {reason}"),
            Error::Rng { message } => write!(f, "random source failed: {message}"),
            Error::Io { message } => write!(f, "I/O error: {message}"),
            Error::Infeasible { reason } => write!(f, "no mechanism meets the request: {reason}"),
            Error::DesignFailed { reason } => {
                write!(f, "the designed mechanism failed its own check, so nothing is published: {reason}")
            }
            Error::TooCostly { what, work, limit } => write!(
                f,
                "verifying {what} needs about {work:.3e} work units, above the budget of {limit:.3e}; \
                 a client that accepts the cost can raise it with the policy's maxVerifyWork"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Result alias used across the crate.
pub type Result<T> = core::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_listed() {
        let mut seen = alloc::vec::Vec::new();
        for c in Error::CODES {
            assert!(!seen.contains(c), "duplicate code {c}");
            seen.push(*c);
        }
        assert_eq!(Error::NoClaims.code(), "no_claims");
        assert!(Error::CODES.contains(&Error::NoClaims.code()));
    }
}
