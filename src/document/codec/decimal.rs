//! Decimal → binary64 conversion for the document reader: a JSON number's text to the
//! f64 nearest to its value (ties to even), or to the integer it names, with the kinds and
//! limits serde_json gives it (a `u64` integer, a negative `i64` one, else a float; ±∞
//! refused, underflow to ±0).
//!
//! The reader's numbers are the document's probabilities, so an error in the last bit is
//! an error in the audited channel. The float is core's `str::parse::<f64>`, which is
//! correctly rounded for every input (Clinger's fast path, then the Eisel–Lemire
//! algorithm, then exact big-decimal arithmetic where that cannot decide), as serde_json's
//! exact reader (`float_roundtrip`) is: the same bits. `tests/decimal.rs` compares the
//! two on millions of strings — random doubles in shortest and long forms, exact halfway
//! points and their neighbours, subnormals, the limits of the integer kinds and of the
//! exponent range — and the fuzz target `decimal` on arbitrary ones.
//!
//! Its table of 128-bit powers of five is in every client module (about 11 KB gzip);
//! without it (exact 128-bit and big-integer arithmetic of our own, where wasm makes each
//! 128-bit product a library call) a dense channel's 17-digit probabilities took 2.5 times
//! as long natively, and the whole parse of a dense 1024² RR 1.5 times as long in wasm.

/// A JSON number read from its text: as [`serde_json::Number`] classifies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer without fraction or exponent that fits u64.
    U64(u64),
    /// A negative integer without fraction or exponent that fits i64.
    I64(i64),
    /// Everything else, rounded to the nearest f64.
    F64(f64),
}

/// Reads a number from text of the JSON grammar `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
/// (the caller checked it). `None` when the value is beyond the f64 range (±∞).
pub fn parse(text: &str) -> Option<Num> {
    let negative = text.starts_with('-');
    let digits = &text.as_bytes()[usize::from(negative)..];
    if digits.iter().all(u8::is_ascii_digit) {
        if let Some(n) = integer(digits, negative) {
            return Some(n);
        }
    }
    // JSON's number grammar is a subset of what `f64::from_str` reads.
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some(Num::F64(v))
}

/// An integer's kind: u64, or a negative i64; `None` when it is a float for serde_json
/// (too large, or `-0`).
fn integer(digits: &[u8], negative: bool) -> Option<Num> {
    let mut v: u64 = 0;
    for &d in digits {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if !negative {
        return Some(Num::U64(v));
    }
    let neg = (v as i64).wrapping_neg();
    (neg < 0).then_some(Num::I64(neg))
}
