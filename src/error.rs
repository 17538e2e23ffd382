//! One error type for the whole crate, with a stable machine-readable [`Error::code`].
//!
//! Codes are part of the public contract: the JS layer copies them onto `Error.code`,
//! the CLI prints them, and tests assert them. Never reuse or rename a code.

use crate::numeric::Shown;
use alloc::string::String;
use core::fmt;

/// Every failure privlift reports. Each variant names what is wrong; none of them panics.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The document or file is not valid JSON, or misses a required field.
    Json {
        /// The parser's message, or which field is missing.
        message: String,
    },
    /// `format` is not `"privlift-mechanism"`.
    UnsupportedFormat {
        /// The `format` string the document gives.
        found: String,
    },
    /// `version` is one this build does not understand.
    UnsupportedVersion {
        /// The `version` number the document gives.
        found: u64,
    },
    /// A mechanism `kind` this build does not implement.
    UnsupportedMechanism {
        /// The `mechanism.kind` string the document gives.
        kind: String,
    },
    /// A number is NaN or infinite.
    NonFinite {
        /// Path of the offending number or array (e.g. `claims.ldp`, `prior[3]`).
        field: String,
    },
    /// A probability is negative.
    NegativeProbability {
        /// Path of the offending entry (e.g. `prior[2]`).
        field: String,
        /// The negative value found.
        value: f64,
    },
    /// A distribution does not sum to 1 within [`crate::document::SUM_TOLERANCE`].
    NotNormalized {
        /// Path of the distribution (e.g. `prior`, `mechanism.p_y_given_x[0]`).
        field: String,
        /// The sum found.
        sum: f64,
    },
    /// Two sizes that must agree do not.
    DimensionMismatch {
        /// Path of the array whose length is wrong (e.g. `output_labels`, `secret.labels`).
        field: String,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        found: usize,
    },
    /// The same label appears twice in one alphabet.
    DuplicateLabel {
        /// Path of the alphabet (e.g. `labels`, `output_labels`).
        field: String,
        /// The label that appears twice.
        label: String,
    },
    /// An alphabet is larger than [`crate::document::MAX_SYMBOLS`].
    TooManySymbols {
        /// Path of the alphabet, matrix row or domain that is too large.
        field: String,
        /// The number of symbols found.
        found: usize,
        /// The most symbols allowed there.
        max: usize,
    },
    /// An alphabet is empty.
    EmptyAlphabet {
        /// Path of the empty alphabet or row.
        field: String,
    },
    /// The declared prior P_X is not the column sums of the declared joint P_SX.
    PriorMismatch {
        /// Index x of the first input value where the two disagree.
        index: usize,
        /// The declared `prior[x]`.
        prior: f64,
        /// The column sum of `secret.p_sx` at x.
        marginal: f64,
    },
    /// A value given to the mechanism is refused (not in its input alphabet or domain, or
    /// of prior probability 0). `reason` never contains the value itself: a page that
    /// forwards errors to telemetry must not leak the user's input.
    UnknownValue {
        /// Why the value is refused, without the value itself.
        reason: String,
    },
    /// An output value is not in the mechanism's output alphabet.
    UnknownOutput {
        /// The refused output (its label, value or index) and why it is refused.
        value: String,
    },
    /// The document claims a guarantee that its own matrix does not give.
    ClaimViolated {
        /// The claim that fails (e.g. `ldp`, `alip.eps_u`, `lip.delta@eps=1`).
        notion: String,
        /// The claimed budget (nats; a probability for a δ).
        claimed: f64,
        /// The audited leakage, in the same unit as `claimed`.
        actual: f64,
    },
    /// The mechanism gives a leakage above what the user's policy allows.
    PolicyViolated {
        /// The policy limit that fails, as its snake_case name without `max_` (e.g. `lip`, `eps_u_s`).
        notion: String,
        /// The policy's limit (nats; a probability for a δ).
        limit: f64,
        /// The audited leakage, in the same unit as `limit`.
        actual: f64,
    },
    /// The document makes no privacy claim at all, so there is nothing to verify.
    NoClaims,
    /// A parameter is out of its domain (a negative ε, an α-order of 1, ...).
    InvalidArgument {
        /// The parameter or JSON field path (e.g. `epsilon`, `claims.alpha.order`).
        name: String,
        /// Why its value is refused.
        reason: String,
    },
    /// The operating system / browser random source failed.
    Rng {
        /// The random source's error message.
        message: String,
    },
    /// Reading or writing a file failed (CLI only).
    Io {
        /// The file and the operating system's error message.
        message: String,
    },
    /// No mechanism meets the request (an infeasible LP, a budget no design can meet).
    Infeasible {
        /// Why no mechanism meets it.
        reason: String,
    },
    /// A design was computed but failed its own post-check or audit (numerical trouble);
    /// nothing is published.
    DesignFailed {
        /// Which check failed, and how.
        reason: String,
    },
    /// Verifying (or auditing) the document would cost more than the budget
    /// ([`crate::verify::DEFAULT_MAX_VERIFY_WORK`], or the policy's `maxVerifyWork`);
    /// refused before anything is allocated.
    TooCostly {
        /// What would be verified or audited (e.g. `this continuous document`).
        what: String,
        /// The estimated cost in work units ([`crate::verify::Work`]).
        work: f64,
        /// The budget in work units.
        limit: f64,
    },
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
    /// The JS wrapper's list and `CoreErrorCode` type are generated from it: after a change,
    /// run `PRIVLIFT_BLESS_GENERATED=1 cargo test --test generated` (tests/generated.rs).
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

    /// `json` with another parser's message `e` (serde_json's), escaped and bounded
    /// ([`Escaped`]): such messages repeat document text as it came (`unknown field `…``).
    pub fn from_parser(e: impl fmt::Display) -> Error {
        Error::Json { message: alloc::format!("{}", Escaped(&alloc::format!("{e}"))) }
    }

    /// `invalid_argument`: the parameter or field `name` is refused, for `reason`.
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::InvalidArgument { name: name.into(), reason: reason.into() }
    }

    /// `invalid_argument` about the `mechanism`: an operation its kind does not have
    /// (`what` says which and what to use instead).
    pub fn wrong_kind(what: impl Into<String>) -> Error {
        Error::invalid("mechanism", what)
    }

    /// `too_costly`: `work` units to verify or audit `what`, above `limit`.
    pub fn too_costly(what: impl Into<String>, work: f64, limit: f64) -> Error {
        Error::TooCostly { what: what.into(), work, limit }
    }

    /// Starts an error about the document or argument field `f` (see [`FieldCtx`]).
    pub fn field(f: impl Into<String>) -> FieldCtx {
        FieldCtx(f.into())
    }
}

/// Helper that builds field-naming errors tersely inside validation code.
#[derive(Debug)]
pub struct FieldCtx(pub String);

impl FieldCtx {
    /// `non_finite`: the field holds a NaN or an infinity.
    pub fn non_finite(self) -> Error {
        Error::NonFinite { field: self.0 }
    }
    /// `negative_probability`: the field holds `value < 0`.
    pub fn negative(self, value: f64) -> Error {
        Error::NegativeProbability { field: self.0, value }
    }
    /// `not_normalized`: the field's entries sum to `sum`, not 1.
    pub fn not_normalized(self, sum: f64) -> Error {
        Error::NotNormalized { field: self.0, sum }
    }
    /// `dimension_mismatch`: the field has `found` entries where `expected` belong.
    pub fn dims(self, expected: usize, found: usize) -> Error {
        Error::DimensionMismatch { field: self.0, expected, found }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json { message } => write!(f, "invalid JSON: {message}"),
            Error::UnsupportedFormat { found } => {
                write!(f, "`format` is {}; expected \"privlift-mechanism\"", Quoted(found))
            }
            Error::UnsupportedVersion { found } => {
                write!(f, "`version` {found} is not supported; this build reads version 1")
            }
            Error::UnsupportedMechanism { kind } => {
                write!(f, "mechanism kind {} is not supported by this build", Quoted(kind))
            }
            Error::NonFinite { field } => write!(f, "`{field}` contains a NaN or infinite number"),
            Error::NegativeProbability { field, value } => {
                write!(f, "`{field}` has a negative probability ({value})", value = Shown(*value))
            }
            Error::NotNormalized { field, sum } => {
                write!(f, "`{field}` sums to {sum}, not 1 (tolerance 1e-9)", sum = Shown(*sum))
            }
            Error::DimensionMismatch { field, expected, found } => {
                write!(f, "`{field}` has {found} entries; expected {expected}")
            }
            Error::DuplicateLabel { field, label } => {
                write!(f, "`{field}` contains the label {} twice", Quoted(label))
            }
            Error::TooManySymbols { field, found, max } => {
                write!(f, "`{field}` has {found} symbols; at most {max} are allowed")
            }
            Error::EmptyAlphabet { field } => write!(f, "`{field}` is empty"),
            Error::PriorMismatch { index, prior, marginal } => {
                write!(
                    f,
                    "`prior`[{index}] = {prior} but the column sum of `secret.p_sx` is {marginal}",
                    prior = Shown(*prior),
                    marginal = Shown(*marginal)
                )
            }
            Error::UnknownValue { reason } => write!(f, "the input value is refused: {reason}"),
            Error::UnknownOutput { value } => {
                write!(f, "{value} is not in the mechanism's output alphabet")
            }
            Error::ClaimViolated { notion, claimed, actual } => {
                let (claimed, actual) = for_people(*claimed, *actual);
                let unit = unit_of(notion);
                write!(f, "the document claims {notion} ≤ {claimed}{unit}, but its mechanism leaks {actual}{unit}")
            }
            Error::PolicyViolated { notion, limit, actual } => {
                let (limit, actual) = for_people(*limit, *actual);
                let unit = unit_of(notion);
                write!(f, "{notion} leakage {actual}{unit} exceeds the policy limit of {limit}{unit}")
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
                "verifying {what} needs about {} work units, above the budget of {}; \
                 a client that accepts the cost can raise it with the policy's maxVerifyWork",
                crate::numeric::Sci(*work),
                crate::numeric::Sci(*limit)
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Most characters of someone else's text a message shows ([`Quoted`], [`Escaped`]).
pub const MAX_QUOTED_CHARS: usize = 64;

/// Most characters of another parser's message shown ([`Escaped`]): room for its own words
/// around one quoted key or value.
pub const MAX_FOREIGN_CHARS: usize = 512;

/// Text that a document, a policy, a request or another parser wrote, quoted for a
/// message: `"…"` with `"` and `\` escaped, and every character that could hide, reorder or
/// break the text around it written as `\u{…}` ([`hidden`]: C0 and C1 controls, DEL, the
/// bidi marks, embeddings, overrides and isolates, zero-width characters, line and paragraph
/// separators, the BOM), so that a key such as `"x\n\u{202e}privlift: verified OK"` cannot
/// forge a second line or turn one around. At most [`MAX_QUOTED_CHARS`] characters are
/// shown; a longer text ends in `…"` followed by its true length: `"abc…" (3145728
/// characters)`. This is the one quoting function of every message that carries such text
/// (the core's errors, the CLI, the collector's answers). `{:?}` is not used: it shows every
/// character, and would link its Unicode tables into the client's `.wasm`.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(pub &'a str);

/// Another parser's message (serde_json's), which may repeat document text as it came
/// (`unknown field `…``): written as [`Quoted`] writes text, without the quotes and with
/// at most [`MAX_FOREIGN_CHARS`] characters.
#[derive(Debug, Clone, Copy)]
pub struct Escaped<'a>(pub &'a str);

/// Whether `c` is written as `\u{…}` in a message: a C0 or C1 control or DEL, a bidi
/// control (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), a zero-width or invisible
/// formatting character (U+200B–U+200D, U+2060–U+2065, the BOM U+FEFF), or a line or
/// paragraph separator (U+2028/9, line breaks to a terminal or a JS source).
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// Writes `text` escaped (see [`Quoted`]), at most `max` characters of it, between `quote`s
/// when `quote` is given; a cut text ends in `…` and its length in characters.
fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str, max: usize, quote: Option<char>) -> fmt::Result {
    use fmt::Write;
    if let Some(q) = quote {
        f.write_char(q)?;
    }
    let mut chars = text.chars();
    for c in chars.by_ref().take(max) {
        match c {
            '"' if quote.is_some() => f.write_str("\\\"")?,
            '\\' if quote.is_some() => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if hidden(c) => write!(f, "\\u{{{:x}}}", u32::from(c))?,
            c => f.write_char(c)?,
        }
    }
    // The characters left: the bytes that start one (not core's `count`, whose fast
    // paths cost the client's `.wasm` more than this loop).
    let rest = chars.as_str().bytes().filter(|&b| (b as i8) >= -0x40).count();
    if rest > 0 {
        f.write_char('…')?;
    }
    if let Some(q) = quote {
        f.write_char(q)?;
    }
    if rest > 0 {
        write!(f, " ({} characters)", max + rest)?;
    }
    Ok(())
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, MAX_QUOTED_CHARS, Some('"'))
    }
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, MAX_FOREIGN_CHARS, None)
    }
}

/// Result alias used across the crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Two figures for a message, to 4 significant digits, or to as many more as it takes to
/// tell them apart (up to 17, every digit of an f64): "claims ≤ 1 nats, but leaks 1.000000000000002".
/// The exact values stay in the error's fields.
/// " nats" for an ε, nothing for the δ of an (ε, δ) check (`….delta@eps=…`, the only
/// notions with an `@`): a probability. (A `char` pattern: a `&str` one links core's
/// two-way substring search into the client.)
fn unit_of(notion: &str) -> &'static str {
    if notion.contains('@') {
        ""
    } else {
        " nats"
    }
}

fn for_people(a: f64, b: f64) -> (String, String) {
    let mut digits = 4;
    loop {
        let (x, y) = (significant(a, digits), significant(b, digits));
        if x != y || digits >= 17 || a == b {
            return (x, y);
        }
        digits += 1;
    }
}

/// Below this magnitude [`significant`] prints a figure as its shortest digits, not
/// rounded: rounding scales it by 10^(digits − 1 − its exponent), which overflows past
/// 10³⁰⁸.
const ROUNDING_FLOOR: f64 = 1e-290;

/// A rounded figure below this magnitude is printed in exponent form (a δ of 1e-300 is
/// not 300 zeros); above it, as a decimal.
const EXPONENT_BELOW: f64 = 1e-9;

/// `x` rounded to `digits` significant digits, printed in Rust's shortest form. By powers
/// of ten and `Display` only: precision formatting (`{:.4e}`) would link core's exact
/// float printing into the client's `.wasm`.
fn significant(x: f64, digits: usize) -> String {
    if !x.is_finite() || x == 0.0 {
        return alloc::format!("{}", Shown(x));
    }
    if libm::fabs(x) < ROUNDING_FLOOR {
        return alloc::format!("{}", crate::numeric::Exponent(x));
    }
    let k = libm::floor(libm::log10(libm::fabs(x))) as i32 - (digits as i32 - 1);
    let rounded = if k >= 0 {
        let p = libm::pow(10.0, f64::from(k));
        libm::round(x / p) * p
    } else {
        let p = libm::pow(10.0, f64::from(-k));
        libm::round(x * p) / p
    };
    if libm::fabs(rounded) < EXPONENT_BELOW {
        return alloc::format!("{}", crate::numeric::Exponent(rounded));
    }
    alloc::format!("{}", Shown(rounded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_is_debug_for_ascii_and_shows_invisible_characters() {
        use alloc::{format, string::ToString};
        for t in ["", "yes", "a \"b\" \\ c", "tab\there\nline\r", "\u{7f}\u{1}", "é ü 日本", "x'y"] {
            assert_eq!(Quoted(t).to_string(), format!("{t:?}"), "{t:?}");
        }
        // Bidi overrides, zero-width characters and the BOM are shown, not applied.
        assert_eq!(
            Quoted("a\u{202e}b\u{200b}c\u{feff}\u{2066}").to_string(),
            "\"a\\u{202e}b\\u{200b}c\\u{feff}\\u{2066}\""
        );
    }

    #[test]
    fn quoted_escapes_every_control_and_bidi_character() {
        use alloc::string::ToString;
        let bidi = ['\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}'];
        let isolates = ['\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2028}', '\u{2029}', '\u{85}', '\u{9f}'];
        let controls = (0u32..0x20).chain(0x7f..0xa0).filter_map(char::from_u32);
        for c in bidi.into_iter().chain(isolates).chain(controls) {
            let q = Quoted(&alloc::format!("a{c}b")).to_string();
            assert!(!q.contains(c) && q.starts_with("\"a\\") && q.ends_with("b\""), "U+{:04X}: {q}", u32::from(c));
            assert!(q.chars().all(|c| !hidden(c)), "{q}");
        }
        // A forged second line stays on the first, reversed text is not reversed.
        let key = "x\n\u{202e}privlift: verified OK";
        assert_eq!(Quoted(key).to_string(), "\"x\\n\\u{202e}privlift: verified OK\"");
        assert_eq!(Escaped(key).to_string(), "x\\n\\u{202e}privlift: verified OK");
    }

    #[test]
    fn quoted_shows_at_most_64_characters_and_the_true_length() {
        use alloc::string::ToString;
        let exactly = "é".repeat(MAX_QUOTED_CHARS);
        assert_eq!(Quoted(&exactly).to_string(), alloc::format!("\"{exactly}\""));
        let huge = "é".repeat(3 << 20);
        let q = Quoted(&huge).to_string();
        assert_eq!(q, alloc::format!("\"{}…\" (3145728 characters)", "é".repeat(64)));
        // Escapes count as the one character they show.
        let q = Quoted(&"\u{202e}".repeat(100)).to_string();
        assert_eq!(q, alloc::format!("\"{}…\" (100 characters)", "\\u{202e}".repeat(64)));
        let long = "k".repeat(1000);
        assert_eq!(Escaped(&long).to_string(), alloc::format!("{}… (1000 characters)", "k".repeat(MAX_FOREIGN_CHARS)));
    }

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

#[cfg(test)]
mod for_people_tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn figures_are_rounded_for_people_but_told_apart() {
        let e = Error::ClaimViolated { notion: "ldp".into(), claimed: 1.0, actual: 3.0000000000000053 };
        assert_eq!(e.to_string(), "the document claims ldp ≤ 1 nats, but its mechanism leaks 3 nats");
        let e = Error::ClaimViolated { notion: "lip".into(), claimed: 0.5, actual: 0.50006123 };
        assert_eq!(e.to_string(), "the document claims lip ≤ 0.5 nats, but its mechanism leaks 0.5001 nats");
        // Equal at 4 digits: as many as it takes to see the difference.
        let e = Error::PolicyViolated { notion: "ldp_x".into(), limit: 1.0, actual: 1.0000000000000016 };
        assert_eq!(e.to_string(), "ldp_x leakage 1.000000000000002 nats exceeds the policy limit of 1 nats");
        assert_eq!(significant(1.234567e-7, 4), "0.0000001235");
        assert_eq!(significant(-2.34567, 3), "-2.35");
        assert_eq!(significant(123456.7, 4), "123500");
        assert_eq!(significant(f64::INFINITY, 4), "inf");
        assert_eq!(significant(1e-300, 4), "1e-300");
        assert_eq!(significant(5e-324, 4), "5e-324");
        // The δ of an (ε, δ) check is a probability, not nats.
        let delta = Error::ClaimViolated { notion: "lip.delta@eps=0.62".into(), claimed: 1e-300, actual: 1.791e-10 };
        assert_eq!(
            delta.to_string(),
            "the document claims lip.delta@eps=0.62 ≤ 1e-300, but its mechanism leaks 1.791e-10"
        );
        // The exact values stay in the fields.
        match e {
            Error::PolicyViolated { actual, .. } => assert_eq!(actual, 1.0000000000000016),
            _ => unreachable!(),
        }
    }
}
