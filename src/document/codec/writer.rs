//! Pretty JSON written by hand, byte for byte what `serde_json::to_string_pretty` writes
//! (two-space indent, `"key": value`, `[]` and `{}` when empty, f64 by zmij's shortest
//! digits and `null` when not finite, strings escaped as serde_json escapes them). The
//! continuous client's `toJson` uses it, so that serde_json's serialiser and the wire
//! types' `Serialize` stay out of that module. A test compares the two writers on documents
//! of every kind.

use alloc::string::String;
use core::fmt::Write;

use super::decimal::Num;
use super::json::Json;

/// A pretty JSON text being written: objects and arrays are opened, filled member by
/// member, and closed.
pub(crate) struct Pretty {
    out: String,
    depth: usize,
    /// Whether the innermost open object or array has no member yet.
    empty: bool,
}

impl Pretty {
    pub(crate) fn new() -> Self {
        Pretty { out: String::new(), depth: 0, empty: true }
    }

    /// The text written.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn open(&mut self, bracket: char) {
        self.out.push(bracket);
        self.depth += 1;
        self.empty = true;
    }

    fn close(&mut self, bracket: char) {
        self.depth -= 1;
        if !self.empty {
            self.newline();
        }
        self.out.push(bracket);
        self.empty = false;
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    /// Starts a member of the innermost object or array (a comma and a new line).
    fn next(&mut self) {
        if !self.empty {
            self.out.push(',');
        }
        self.newline();
        self.empty = false;
    }

    /// `{`: then [`Pretty::key`] and a value per member, then [`Pretty::end_object`].
    pub(crate) fn object(&mut self) {
        self.open('{');
    }
    pub(crate) fn end_object(&mut self) {
        self.close('}');
    }
    /// `[`: then a value per element ([`Pretty::element`] first), then [`Pretty::end_array`].
    pub(crate) fn array(&mut self) {
        self.open('[');
    }
    pub(crate) fn end_array(&mut self) {
        self.close(']');
    }

    /// The next member's key (and `": "`).
    pub(crate) fn key(&mut self, key: &str) {
        self.next();
        self.string(key);
        self.out.push_str(": ");
    }

    /// Before each element of an array.
    pub(crate) fn element(&mut self) {
        self.next();
    }

    /// A string, escaped as serde_json escapes it.
    pub(crate) fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                c if u32::from(c) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", u32::from(c));
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// An f64: zmij's shortest digits when finite (serde_json's own printer), else `null`.
    pub(crate) fn f64(&mut self, v: f64) {
        if v.is_finite() {
            self.out.push_str(zmij::Buffer::new().format_finite(v));
        } else {
            self.out.push_str("null");
        }
    }

    /// An unsigned integer.
    pub(crate) fn u64(&mut self, v: u64) {
        let _ = write!(self.out, "{v}");
    }

    /// An array of f64.
    pub(crate) fn f64s(&mut self, vs: &[f64]) {
        self.array();
        for &v in vs {
            self.element();
            self.f64(v);
        }
        self.end_array();
    }

    /// An object of f64 members, in the order given.
    pub(crate) fn f64_members(&mut self, members: &[(&str, f64)]) {
        self.object();
        for &(k, v) in members {
            self.key(k);
            self.f64(v);
        }
        self.end_object();
    }

    /// A JSON value (objects' members in key order, as serde_json writes a `Value`).
    pub(crate) fn value(&mut self, v: &Json) {
        match v {
            Json::Null => self.out.push_str("null"),
            Json::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Json::Number(Num::U64(u)) => self.u64(*u),
            Json::Number(Num::I64(i)) => {
                let _ = write!(self.out, "{i}");
            }
            Json::Number(Num::F64(f)) => self.f64(*f),
            Json::String(s) => self.string(s),
            Json::Array(a) => {
                self.array();
                for e in a {
                    self.element();
                    self.value(e);
                }
                self.end_array();
            }
            Json::Object(m) => {
                self.object();
                for (k, e) in m.iter() {
                    self.key(k);
                    self.value(e);
                }
                self.end_object();
            }
            Json::Numbers(n) => self.value(&n.to_json()),
        }
    }
}
