//! A JSON pull reader for mechanism documents: the wire types read field by field, with no
//! serde deserializer.
//!
//! # Why
//! serde_json's deserializer and the visitors serde derives for each wire type were more
//! than a fifth of the gzipped client module; this reader is non-generic, and the
//! wire types' readers (`document/wire.rs`) are plain functions. The derived `Deserialize`
//! impls stay for Rust callers; the tests read every document both ways and compare.
//!
//! # What it accepts (serde_json's results, checked by the tests)
//! * Numbers: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, floats correctly rounded
//!   ([`super::decimal`]); an integer without fraction or exponent is a `u64` when ≥ 0
//!   and it fits, an `i64` when < 0 and it fits (`-0` is the float −0.0), else a float; a
//!   float that overflows is refused.
//! * Strings: UTF-8, escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (surrogate pairs joined; a
//!   lone surrogate refused), no control characters.
//! * At most 127 nested arrays and objects; nothing but whitespace after the value.
//! * Objects of the wire types: unknown, duplicate and missing fields refused, as serde's
//!   derive does. One difference: serde_json also reads a struct from an array of its fields
//!   in order; this reader wants the object.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Quoted, Result};

/// Deepest nesting read (serde_json's limit).
const MAX_DEPTH: usize = 127;

/// A number as written: its kind decides which fields accept it.
pub use super::decimal::Num;

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::U64(v) => v as f64,
            Num::I64(v) => v as f64,
            Num::F64(v) => v,
        }
    }
    fn describe(self) -> String {
        match self {
            Num::U64(v) => format!("integer `{v}`"),
            Num::I64(v) => format!("integer `{v}`"),
            Num::F64(v) => format!("floating point `{v}`", v = crate::numeric::Shown(v)),
        }
    }
}

/// The reader: the text, a position in it, and the nesting depth.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// A stretch of `bytes` checked as UTF-8 once, from `text_at` on: the numbers' text is
    /// sliced from it ([`Reader::ascii`]).
    text: &'a str,
    text_at: usize,
}

/// The bytes [`Reader::ascii`] checks as UTF-8 at a time.
const TEXT_BLOCK: usize = 1 << 16;

/// The byte order mark, of which one leading is read as nothing by every entry point
/// ([`Reader::new`], [`super::strict::from_str`]) and left out of a document's SHA-256: a
/// file saved with one reads as the same document everywhere (a browser's
/// `Response.text()` and `TextDecoder` drop it too).
pub const BYTE_ORDER_MARK: &str = "\u{feff}";

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`, after one [`BYTE_ORDER_MARK`] if there is one.
    pub fn new(bytes: &'a [u8]) -> Self {
        let pos = if bytes.starts_with(BYTE_ORDER_MARK.as_bytes()) { BYTE_ORDER_MARK.len() } else { 0 };
        Reader { bytes, pos, depth: 0, text: "", text_at: 0 }
    }

    /// A `json` error at the current position (serde_json's "… at line L column C").
    pub fn error(&self, message: &str) -> Error {
        let upto = &self.bytes[..self.pos.min(self.bytes.len())];
        let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
        let column = upto.iter().rev().take_while(|&&b| b != b'\n').count();
        Error::Json { message: format!("{message} at line {line} column {column}") }
    }

    /// An error about the byte at the position, reported at that byte.
    pub(in crate::document) fn error_here(&mut self, message: &str) -> Error {
        self.pos = (self.pos + 1).min(self.bytes.len());
        self.error(message)
    }

    /// Checks that only whitespace is left.
    ///
    /// # Errors
    /// `json` "trailing characters".
    pub fn end(&mut self) -> Result<()> {
        match self.ws() {
            None => Ok(()),
            Some(_) => Err(self.error_here("trailing characters")),
        }
    }

    /// The next byte that is not whitespace (not consumed).
    fn ws(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// The next byte that is not whitespace (not consumed); an error at the end.
    pub(in crate::document) fn peek_value(&mut self) -> Result<u8> {
        self.ws().ok_or_else(|| self.error("EOF while parsing a value"))
    }

    /// Reads the literal `word` (`null`, `true`, `false`).
    pub(in crate::document) fn literal(&mut self, word: &[u8]) -> Result<()> {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(word) {
            self.pos += word.len();
            return Ok(());
        }
        let matched = word.iter().zip(rest).take_while(|(a, b)| a == b).count();
        self.pos += matched;
        Err(self.error(if matched == rest.len() { "EOF while parsing a value" } else { "expected ident" }))
    }

    /// Whether the next value is `null` (consumed if so).
    fn null(&mut self) -> Result<bool> {
        if self.peek_value()? == b'n' {
            self.literal(b"null")?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The error of a value of another type than `expected`, read past to its end.
    pub fn wrong(&mut self, expected: &str) -> Error {
        let found = match self.peek_value() {
            Err(e) => return e,
            Ok(b'n') => self.literal(b"null").map(|_| "null".into()),
            Ok(b't') => self.literal(b"true").map(|_| "boolean `true`".into()),
            Ok(b'f') => self.literal(b"false").map(|_| "boolean `false`".into()),
            Ok(b'"') => self.string().map(|_| "a string".into()),
            Ok(b'-' | b'0'..=b'9') => self.number().map(Num::describe),
            Ok(b'[') => Ok("sequence".into()),
            Ok(b'{') => Ok("map".into()),
            Ok(_) => return self.error_here("expected value"),
        };
        match found {
            Ok(found) => self.error(&format!("invalid type: {found}, expected {expected}")),
            Err(e) => e,
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here("recursion limit exceeded"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads a number (the grammar and kinds of the module docs).
    pub fn number(&mut self) -> Result<Num> {
        let start = self.pos;
        // A non-negative integer of at most 19 digits (below 2⁶⁴), with no fraction nor
        // exponent, is its own value: the entries 0 and 1 of a channel skip `decimal`.
        let rest = &self.bytes[start..];
        let digits = rest.iter().take(20).take_while(|b| b.is_ascii_digit()).count();
        if (1..=19).contains(&digits)
            && (digits == 1 || rest[0] != b'0')
            && !matches!(rest.get(digits), Some(b'.' | b'e' | b'E'))
        {
            self.pos += digits;
            return Ok(Num::U64(rest[..digits].iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0'))));
        }
        self.number_text()?;
        // The text is of the JSON grammar (checked above): `decimal` decides the kind and
        // rounds exactly as serde_json's reader does (tests/decimal.rs).
        let text = self.ascii(start, self.pos).ok_or_else(|| self.error("invalid number"))?;
        super::decimal::parse(text).ok_or_else(|| self.error("number out of range"))
    }

    /// `bytes[start..end]`, ASCII the reader checked, as text: a slice of a block checked as
    /// UTF-8 once ([`TEXT_BLOCK`] bytes), not a check per number (`from_utf8` on each of a
    /// dense channel's 20-byte probabilities was a sixth of its parse).
    fn ascii(&mut self, start: usize, end: usize) -> Option<&'a str> {
        if let Some(s) = start.checked_sub(self.text_at).and_then(|a| self.text.get(a..end - self.text_at)) {
            return Some(s);
        }
        let block = self.bytes.get(start..self.bytes.len().min(start + TEXT_BLOCK.max(end - start)))?;
        // Up to the first byte that is not UTF-8 (past `end`: the text up to it is ASCII).
        let valid = match core::str::from_utf8(block) {
            Ok(text) => text,
            Err(e) => core::str::from_utf8(&block[..e.valid_up_to()]).ok()?,
        };
        (self.text, self.text_at) = (valid, start);
        valid.get(..end - start)
    }

    /// Reads past a number, checking its grammar only (what [`Reader::skip`] needs).
    fn number_text(&mut self) -> Result<()> {
        self.pos += usize::from(self.bytes.get(self.pos) == Some(&b'-'));
        let digits = |r: &mut Self| {
            let s = r.pos;
            while r.bytes.get(r.pos).is_some_and(u8::is_ascii_digit) {
                r.pos += 1;
            }
            r.pos - s
        };
        let int_start = self.pos;
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            Some(_) => return Err(self.error_here("invalid number")),
            None => return Err(self.error("EOF while parsing a value")),
        }
        if self.bytes[int_start] == b'0' && self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            return Err(self.error_here("invalid number"));
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.number_end_error());
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.number_end_error());
            }
        }
        Ok(())
    }

    fn number_end_error(&mut self) -> Error {
        if self.pos >= self.bytes.len() {
            self.error("EOF while parsing a value")
        } else {
            self.error_here("invalid number")
        }
    }

    /// Reads a string (the opening quote is next).
    pub fn string(&mut self) -> Result<String> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let rest = &self.bytes[self.pos..];
            let Some(n) = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20) else {
                self.pos = self.bytes.len();
                return Err(self.error("EOF while parsing a string"));
            };
            out.extend_from_slice(&rest[..n]);
            self.pos += n;
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                _ => return Err(self.error_here("control character (\\u0000-\\u001F) found while parsing a string")),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("invalid unicode code point"))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        let c = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = match hi {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.error("lone leading surrogate in hex escape")),
                    _ => hi,
                };
                let ch = char::from_u32(code).ok_or_else(|| self.error("invalid unicode code point"))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                return Ok(());
            }
            _ => return Err(self.error("invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error("EOF while parsing a string"));
            };
            let d = (b as char).to_digit(16).ok_or_else(|| self.error_here("invalid escape"))?;
            self.pos += 1;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// After an element: `,` (another follows, `true`) or `close` (`false`).
    fn next_or_close(&mut self, first: bool, close: u8) -> Result<bool> {
        match self.ws() {
            None => {
                Err(self.error(if close == b']' { "EOF while parsing a list" } else { "EOF while parsing an object" }))
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                match self.ws() {
                    Some(b) if b == close => Err(self.error_here("trailing comma")),
                    _ => Ok(true),
                }
            }
            Some(_) if first => Ok(true),
            Some(_) => Err(self.error_here(if close == b']' { "expected `,` or `]`" } else { "expected `,` or `}`" })),
        }
    }

    /// Reads an array, calling `element` for each element; `expected` names it in errors.
    ///
    /// `element` is a `dyn` closure: the loop is compiled once, not once per caller.
    pub fn array(&mut self, expected: &str, element: &mut dyn FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.members(b'[', b']', expected, element)
    }

    /// The loop of an array or an object: `open`, then `member` for each member up to
    /// `close`, commas between them.
    fn members(
        &mut self,
        open: u8,
        close: u8,
        expected: &str,
        member: &mut dyn FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        if self.peek_value()? != open {
            return Err(self.wrong(expected));
        }
        self.enter()?;
        let mut first = true;
        while self.next_or_close(first, close)? {
            first = false;
            member(self)?;
        }
        self.depth -= 1;
        Ok(())
    }

    /// Reads an object, calling `field` with each key (the reader then at its value).
    ///
    /// `field` is a `dyn` closure: the loop is compiled once, not once per caller.
    pub fn object(&mut self, expected: &str, field: &mut dyn FnMut(&mut Self, String) -> Result<()>) -> Result<()> {
        self.members(b'{', b'}', expected, &mut |r| {
            if r.ws() != Some(b'"') {
                return Err(r.error_here("key must be a string"));
            }
            let key = r.string()?;
            match r.ws() {
                Some(b':') => r.pos += 1,
                Some(_) => return Err(r.error_here("expected `:`")),
                None => return Err(r.error("EOF while parsing an object")),
            }
            field(r, key)
        })
    }

    /// A number read as f64 (an integer converts, as serde's f64 visitor does).
    pub fn f64(&mut self) -> Result<f64> {
        match self.peek_value()? {
            b'-' | b'0'..=b'9' => Ok(self.number()?.as_f64()),
            _ => Err(self.wrong("f64")),
        }
    }

    /// A non-negative integer that fits `u64` (`max`: the largest accepted).
    pub fn unsigned(&mut self, expected: &str, max: u64) -> Result<u64> {
        if !matches!(self.peek_value()?, b'-' | b'0'..=b'9') {
            return Err(self.wrong(expected));
        }
        match self.number()? {
            Num::U64(v) if v <= max => Ok(v),
            Num::U64(v) => Err(self.error(&format!("invalid value: integer `{v}`, expected {expected}"))),
            Num::I64(v) => Err(self.error(&format!("invalid value: integer `{v}`, expected {expected}"))),
            n => Err(self.error(&format!("invalid type: {}, expected {expected}", n.describe()))),
        }
    }

    /// A string.
    pub fn text(&mut self) -> Result<String> {
        if self.peek_value()? != b'"' {
            return Err(self.wrong("a string"));
        }
        self.string()
    }

    /// `null` as `None`, else `read`.
    pub fn optional<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T>) -> Result<Option<T>> {
        if self.null()? {
            Ok(None)
        } else {
            read(self).map(Some)
        }
    }

    /// Whether the next value is a string.
    pub fn text_next(&mut self) -> Result<bool> {
        Ok(self.peek_value()? == b'"')
    }

    /// Whether the next value is a number.
    pub fn number_next(&mut self) -> Result<bool> {
        Ok(matches!(self.peek_value()?, b'-' | b'0'..=b'9'))
    }

    /// An array of numbers.
    pub fn f64s(&mut self) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        self.array("a sequence", &mut |r| {
            out.push(r.f64()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// An array of arrays of numbers.
    pub fn f64_rows(&mut self) -> Result<Vec<Vec<f64>>> {
        let mut out = Vec::new();
        self.array("a sequence", &mut |r| {
            out.push(r.f64s()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// The first byte that is not whitespace inside the array or object that opens at the
    /// position (nothing is consumed).
    pub(in crate::document) fn peek_first(&self) -> Option<u8> {
        self.bytes.get(self.pos + 1..)?.iter().copied().find(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
    }

    /// Reads an array of at most `max` elements, each with `element`; the elements past
    /// `max` are read without being kept (the memory stays bounded by `max`), then the
    /// error is `too_many(count)`.
    ///
    /// # Errors
    /// `json` for a syntax error, `element`'s error, and `too_many`'s.
    pub fn bounded_array(
        &mut self,
        max: usize,
        too_many: &dyn Fn(usize) -> Error,
        element: &mut dyn FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let mut count = 0usize;
        self.array("a sequence", &mut |r| {
            count += 1;
            if count > max {
                r.skip()
            } else {
                element(r)
            }
        })?;
        if count > max {
            return Err(too_many(count));
        }
        Ok(())
    }

    /// Reads the array that opens at the position, every element a number, giving each to
    /// `push` with the count of bytes left after it; returns the number of elements. One
    /// loop for the numbers (no call per element but `push`): the arrays of a dense channel.
    ///
    /// # Errors
    /// `json` for a syntax error or an element that is not a number; `push`'s error.
    pub fn number_array(&mut self, push: &mut dyn FnMut(Num, usize) -> Result<()>) -> Result<usize> {
        if self.peek_value()? != b'[' {
            return Err(self.wrong("an array of numbers"));
        }
        self.enter()?;
        let mut count = 0usize;
        while self.next_or_close(count == 0, b']')? {
            if !matches!(self.bytes.get(self.pos), Some(b'-' | b'0'..=b'9')) {
                return Err(self.wrong("a number"));
            }
            let n = self.number()?;
            count += 1;
            push(n, self.remaining())?;
        }
        self.depth -= 1;
        Ok(count)
    }

    /// Reads past an array (the opening bracket is next), its numbers in one loop.
    fn skip_array(&mut self) -> Result<()> {
        self.enter()?;
        let mut first = true;
        while self.next_or_close(first, b']')? {
            first = false;
            match self.bytes.get(self.pos) {
                Some(b'-' | b'0'..=b'9') => self.number_text()?,
                _ => self.skip()?,
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// Reads any value and drops it (arrays and objects are not built).
    ///
    /// # Errors
    /// `json` for a syntax error.
    pub fn skip(&mut self) -> Result<()> {
        match self.peek_value()? {
            b'[' => self.skip_array(),
            b'{' => self.object("a map", &mut |r, _| r.skip()),
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => self.number_text(),
            b'n' => self.literal(b"null"),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            _ => Err(self.error_here("expected value")),
        }
    }

    /// An object of fields `names` (at most 64), each value read by `value` into `out` (by
    /// position in `names`), each of `required` given; a field left out keeps its value in
    /// `out`.
    ///
    /// # Errors
    /// `json` for an unknown, duplicate or missing field, or `value`'s error.
    pub fn fields_into<T>(
        &mut self,
        what: &str,
        names: &'static [&'static str],
        required: &[&'static str],
        out: &mut [T],
        value: fn(&mut Self) -> Result<T>,
    ) -> Result<()> {
        let mut f = Fields::new(names);
        self.object(what, &mut |r, key| {
            let i = f.field(r, &key)?;
            out[i] = value(r)?;
            Ok(())
        })?;
        f.require(self, required)
    }

    /// An object of number fields ([`Reader::fields_into`]).
    ///
    /// # Errors
    /// As [`Reader::fields_into`].
    pub fn numbers(
        &mut self,
        what: &str,
        names: &'static [&'static str],
        required: &[&'static str],
        out: &mut [f64],
    ) -> Result<()> {
        self.fields_into(what, names, required, out, Self::f64)
    }

    /// An object of number-array fields, every one required ([`Reader::fields_into`]).
    ///
    /// # Errors
    /// As [`Reader::fields_into`].
    pub fn number_lists(&mut self, what: &str, names: &'static [&'static str], out: &mut [Vec<f64>]) -> Result<()> {
        self.fields_into(what, names, names, out, Self::f64s)
    }
}

/// The fields of one object of a wire type: each read once, unknown ones refused, required
/// ones checked at the end (serde's derive, `deny_unknown_fields`).
#[derive(Debug)]
pub struct Fields {
    names: &'static [&'static str],
    seen: u64,
}

impl Fields {
    /// The fields `names` (at most 64).
    pub fn new(names: &'static [&'static str]) -> Self {
        Fields { names, seen: 0 }
    }

    /// The index of `key` among the names, after checking it is known and new.
    ///
    /// # Errors
    /// `json` "unknown field" or "duplicate field".
    pub fn field(&mut self, r: &Reader<'_>, key: &str) -> Result<usize> {
        let Some(i) = self.names.iter().position(|n| *n == key) else {
            return Err(r.error(&format!("unknown field {}, expected one of {}", Quoted(key), OneOf(self.names))));
        };
        if self.seen & (1 << i) != 0 {
            return Err(r.error(&format!("duplicate field {}", Quoted(key))));
        }
        self.seen |= 1 << i;
        Ok(i)
    }

    /// Checks that every field of `required` was given.
    ///
    /// # Errors
    /// `json` "missing field".
    pub fn require(&self, r: &Reader<'_>, required: &[&'static str]) -> Result<()> {
        for name in required {
            let i = self.names.iter().position(|n| n == name).unwrap_or(0);
            if self.seen & (1 << i) == 0 {
                return Err(r.error(&format!("missing field `{name}`")));
            }
        }
        Ok(())
    }
}

/// The `mechanism.kind` string of the JSON document `bytes`, read without building the
/// document (every other value is dropped as it is read, so large arrays are never
/// allocated): what names the right entry point for a document given to the wrong one.
/// `None` when `bytes` is not JSON, or has no object `mechanism` with a string `kind`. Of a
/// key given twice, the last counts (as in `JSON.parse`).
pub fn peek_kind(bytes: &[u8]) -> Option<String> {
    peek(bytes)?.kind
}

/// What the top level of a document says of its family, read as [`peek_kind`] reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peek {
    /// `mechanism.kind`, when `mechanism` is an object with a string `kind`.
    pub kind: Option<String>,
    /// Whether the document has a `labels` member (a discrete document's input alphabet).
    pub labels: bool,
}

/// [`Peek`] of the JSON document `bytes`; `None` when it is not JSON.
pub fn peek(bytes: &[u8]) -> Option<Peek> {
    peek_until(bytes, false)
}

/// [`peek`] stopping at a `labels` member (a discrete document's, which it gives before its
/// mechanism): the family's question answered without reading a whole discrete document.
pub fn peek_family(bytes: &[u8]) -> Option<Peek> {
    peek_until(bytes, true)
}

/// [`peek`], stopping at a `labels` member when `at_labels` (the answer is then known).
fn peek_until(bytes: &[u8], at_labels: bool) -> Option<Peek> {
    let mut r = Reader::new(bytes);
    let mut p = Peek::default();
    let top = r.object("a document", &mut |r, key| {
        p.labels |= key == "labels";
        if p.labels && at_labels {
            return Err(r.error("stopped at `labels`"));
        }
        if key != "mechanism" || r.peek_value()? != b'{' {
            p.kind = if key == "mechanism" { None } else { p.kind.take() };
            return r.skip();
        }
        p.kind = None;
        r.object("a mechanism", &mut |r, key| {
            if key == "kind" {
                p.kind = if r.text_next()? { Some(r.text()?) } else { r.skip().map(|_| None)? };
                Ok(())
            } else {
                r.skip()
            }
        })
    });
    if p.labels && at_labels {
        return Some(p);
    }
    top.ok()?;
    r.end().ok()?;
    Some(p)
}

/// Field names for a message: "`a`, `b`, `c`".
pub(crate) struct OneOf<'a>(pub &'a [&'a str]);

impl core::fmt::Display for OneOf<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            write!(f, "{}`{name}`", if i == 0 { "" } else { ", " })?;
        }
        Ok(())
    }
}
