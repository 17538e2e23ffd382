//! The one rule for a value of an open domain, and the prefixes heavy-hitter rounds hash.
//!
//! A value is a string of at most `max_bytes` UTF-8 bytes containing no U+0000 (NUL is
//! the padding byte of [`prefix`]: a value and the value with trailing NULs would
//! otherwise have the same prefixes). An error names `value` and the limit and never
//! contains the value itself: a page that forwards errors to telemetry must not leak what
//! the user typed.

use alloc::vec::Vec;

use crate::error::{Error, Result};

/// The largest `max_bytes` a document may declare.
pub const MAX_VALUE_BYTES: usize = 4096;

/// The padding byte of a heavy-hitter prefix (no value contains it).
pub const PAD: u8 = 0x00;

/// The bytes of `value` when it obeys the rule for `max_bytes` (`name` is the field the
/// error names: `value`, or a prior's listed value).
///
/// # Errors
/// `invalid_argument` naming `name`: more than `max_bytes` bytes, or a U+0000.
pub fn checked<'a>(name: &str, value: &'a str, max_bytes: usize) -> Result<&'a [u8]> {
    let bytes = value.as_bytes();
    if bytes.len() > max_bytes {
        return Err(too_long(name, max_bytes));
    }
    if bytes.contains(&PAD) {
        return Err(Error::invalid(name, "a value may not contain U+0000 (the padding byte of prefixes)"));
    }
    Ok(bytes)
}

/// The error for a value of more than `max_bytes` bytes, naming `name` (never the value).
pub(crate) fn too_long(name: &str, max_bytes: usize) -> Error {
    Error::invalid(name, alloc::format!("a value may have at most {max_bytes} UTF-8 bytes; this one has more"))
}

/// The first `bits` bits (big-endian bit order) of `value` padded with [`PAD`] to
/// `max_bytes`, as `ceil(bits / 8)` bytes with the unused low bits of the last byte
/// cleared: what round r of a heavy-hitter document hashes (`bits` = ℓ_r). Written into
/// `out` (cleared first), so a caller reuses one buffer; its work depends on `bits` only.
pub fn prefix(value: &[u8], bits: usize, out: &mut Vec<u8>) {
    out.clear();
    let len = bits.div_ceil(8);
    // Two bulk writes, no branch per byte: the padding, then the value's bytes over it.
    out.resize(len, PAD);
    let kept = len.min(value.len());
    out[..kept].copy_from_slice(&value[..kept]);
    let unused = len * 8 - bits;
    if let Some(last) = out.last_mut() {
        *last &= 0xFFu8 << unused;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_refuses_without_echoing() {
        assert_eq!(checked("value", "pear", 4).unwrap(), b"pear");
        assert_eq!(checked("value", "", 1).unwrap(), b"");
        for (v, max) in [("secret-word", 4), ("ab\u{0}", 8), ("é", 1)] {
            let e = checked("value", v, max).unwrap_err();
            assert_eq!(e.code(), "invalid_argument");
            let text = alloc::format!("{e}");
            assert!(text.contains("value"), "{text}");
            assert!(!text.contains(v.trim_end_matches('\u{0}')), "echoes the value: {text}");
        }
    }

    #[test]
    fn prefixes_pad_and_clear_the_low_bits() {
        let mut out = Vec::new();
        prefix(b"\xFF\xFF", 12, &mut out);
        assert_eq!(out, [0xFF, 0xF0]);
        prefix(b"a", 24, &mut out);
        assert_eq!(out, [b'a', 0, 0]);
        prefix(b"abc", 1, &mut out);
        assert_eq!(out, [b'a' & 0x80]);
        prefix(b"abc", 8, &mut out);
        assert_eq!(out, [b'a']);
    }
}
