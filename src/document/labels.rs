//! The labels of an alphabet, held as one text and the end of each label.
//!
//! A document names up to [`super::MAX_SYMBOLS`] values per alphabet, usually a few bytes
//! each (`"v17"`, `"3"`). Held as one `String` each, a label costs its 24-byte header and
//! an allocation of its own (≈ 56 bytes in memory for ≈ 8 of text), so a document of
//! short labels made its reader hold several times its bytes. [`Labels`] costs the text
//! and 4 bytes a label; [`Alphabet`] validates them and shares them.

use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

use super::codec::first_repeat;
use super::MAX_SYMBOLS;
use crate::error::{Error, Result};

/// A label: JSON strings are kept, numbers are kept in their JSON spelling.
///
/// Read by a visitor rather than `#[serde(untagged)]`, which buffers every value before
/// trying each variant (a third of the parse of a 4096-label document).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum LabelJson {
    /// A JSON string, kept as written.
    Text(String),
    /// A JSON number, kept as a number and turned into text by [`LabelJson::into_string`].
    Number(serde_json::Number),
}

impl<'de> Deserialize<'de> for LabelJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct Label;
        impl serde::de::Visitor<'_> for Label {
            type Value = LabelJson;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> core::result::Result<LabelJson, E> {
                Ok(LabelJson::Text(v.into()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> core::result::Result<LabelJson, E> {
                Ok(LabelJson::Text(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> core::result::Result<LabelJson, E> {
                Ok(LabelJson::Number(v.into()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> core::result::Result<LabelJson, E> {
                Ok(LabelJson::Number(v.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> core::result::Result<LabelJson, E> {
                serde_json::Number::from_f64(v)
                    .map(LabelJson::Number)
                    .ok_or_else(|| E::custom("a label is a finite number or a string"))
            }
        }
        d.deserialize_any(Label)
    }
}

impl LabelJson {
    /// The label as text: a string as is, a number as serde_json prints it (e.g. `3`, `2.5`).
    pub fn into_string(self) -> String {
        match self {
            LabelJson::Text(s) => s,
            LabelJson::Number(n) => alloc::format!("{n}"),
        }
    }
}

/// A sequence of labels in one text: label `i` is `text[ends[i-1]..ends[i]]`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Labels {
    text: String,
    ends: Vec<u32>,
}

impl Labels {
    /// No labels.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `label`.
    ///
    /// # Errors
    /// `invalid_argument` naming `field` when the labels' text would pass 4 GiB (the
    /// ends are 32-bit).
    pub fn push(&mut self, field: &str, label: &str) -> Result<()> {
        let end = u32::try_from(self.text.len() + label.len())
            .map_err(|_| Error::invalid(field, "the labels' text is longer than 4 GiB"))?;
        self.text.push_str(label);
        self.ends.push(end);
        Ok(())
    }

    /// Appends a label as a JSON document writes it: a string as is, a number in its JSON
    /// spelling ([`LabelJson::into_string`]).
    ///
    /// # Errors
    /// Those of [`Labels::push`].
    pub fn push_json(&mut self, field: &str, label: LabelJson) -> Result<()> {
        match label {
            LabelJson::Text(s) => self.push(field, &s),
            number => self.push(field, &number.into_string()),
        }
    }

    /// `"0"`, `"1"`, … `n-1`.
    pub fn indices(n: usize) -> Self {
        let mut out = Labels::new();
        for i in 0..n {
            // At most 4096 labels of at most 4 digits where a document asks for them;
            // a larger `n` is refused by `Alphabet::new` before it is used.
            let _ = out.push("labels", &i.to_string());
        }
        out.shrink_to_fit();
        out
    }

    /// Releases the capacity beyond the labels held.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    /// Whether there is no label.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// The label of index `i`, if `i` is in range.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..end)
    }
    /// The labels, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + '_ {
        (0..self.len()).map(|i| &self[i])
    }
    /// The labels as owned strings (for callers that keep them apart, e.g. a JS array).
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(String::from).collect()
    }
}

impl core::ops::Index<usize> for Labels {
    type Output = str;
    /// Label `i`; panics when `i` is out of range, as a slice does.
    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(l) => l,
            None => panic!("label index {i} out of range for {} labels", self.len()),
        }
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Labels {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Labels {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for &Labels {
    fn eq(&self, other: &[S; N]) -> bool {
        **self == other[..]
    }
}

impl serde::Serialize for Labels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Labels {
    /// A JSON array of strings and numbers, as [`LabelJson`] reads each.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct Seq;
        impl<'de> serde::de::Visitor<'de> for Seq {
            type Value = Labels;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> core::result::Result<Labels, A::Error> {
                let mut out = Labels::new();
                while let Some(label) = seq.next_element::<LabelJson>()? {
                    out.push_json("labels", label).map_err(serde::de::Error::custom)?;
                }
                out.shrink_to_fit();
                Ok(out)
            }
        }
        d.deserialize_seq(Seq)
    }
}

/// A finite alphabet of unique labels. Cloning it is O(1) (the labels are shared): a
/// document of 4096 labels uses its input alphabet as S and Y too, and a verified
/// mechanism keeps a copy of its document.
#[derive(Clone, PartialEq)]
pub struct Alphabet {
    labels: Arc<Labels>,
}

impl Alphabet {
    /// Validates `labels` (non-empty, at most [`MAX_SYMBOLS`], unique).
    ///
    /// # Errors
    /// `empty_alphabet`, `too_many_symbols`, `duplicate_label` naming `field`.
    pub fn new(field: &str, labels: Vec<String>) -> Result<Self> {
        if labels.len() > MAX_SYMBOLS {
            return Err(Error::TooManySymbols { field: field.into(), found: labels.len(), max: MAX_SYMBOLS });
        }
        let mut text = Labels::new();
        for l in &labels {
            text.push(field, l)?;
        }
        Self::from_labels(field, text)
    }

    /// [`Alphabet::new`] of labels already held as [`Labels`] (a document's, as read).
    ///
    /// # Errors
    /// Those of [`Alphabet::new`].
    pub fn from_labels(field: &str, mut labels: Labels) -> Result<Self> {
        if labels.is_empty() {
            return Err(Error::EmptyAlphabet { field: field.into() });
        }
        if labels.len() > MAX_SYMBOLS {
            return Err(Error::TooManySymbols { field: field.into(), found: labels.len(), max: MAX_SYMBOLS });
        }
        if let Some(label) = repeated(&labels) {
            return Err(Error::DuplicateLabel { field: field.into(), label: label.into() });
        }
        labels.shrink_to_fit();
        Ok(Alphabet { labels: Arc::new(labels) })
    }

    /// `"0"`, `"1"`, … `n-1`.
    ///
    /// # Errors
    /// Those of [`Alphabet::new`] (`n` is 0 or above [`MAX_SYMBOLS`]).
    pub fn indices(field: &str, n: usize) -> Result<Self> {
        if n > MAX_SYMBOLS {
            return Err(Error::TooManySymbols { field: field.into(), found: n, max: MAX_SYMBOLS });
        }
        Self::from_labels(field, Labels::indices(n))
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.labels.len()
    }
    /// Whether there is no label (never true for an alphabet built by [`Alphabet::new`]).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
    /// The labels, in index order.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }
    /// The labels, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + '_ {
        self.labels.iter()
    }
    /// The label of index `i`, if `i` is in range.
    pub fn label(&self, i: usize) -> Option<&str> {
        self.labels.get(i)
    }
    /// Index of `label`, if present: a scan of the one text's labels (no index sorted by
    /// label is kept: the lookup runs once a value is given by label, and a scan of at most
    /// `MAX_SYMBOLS` labels costs less than building one).
    pub fn position(&self, label: &str) -> Option<usize> {
        self.labels.iter().position(|l| l == label)
    }
}

/// The first label that repeats an earlier one ([`first_repeat`]: O(k log k) comparisons
/// whatever the labels).
fn repeated(labels: &Labels) -> Option<&str> {
    first_repeat(&labels.iter().collect::<Vec<_>>()).map(|i| &labels[i])
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Alphabet").field(&*self.labels).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|l| String::from(*l)).collect()
    }

    #[test]
    fn labels_are_read_back_in_order() {
        let a = Alphabet::new("labels", strings(&["b", "", "日本", "a"])).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(a.labels(), ["b", "", "日本", "a"]);
        assert_eq!(a.label(2), Some("日本"));
        assert_eq!(a.label(4), None);
        assert_eq!(a.iter().rev().collect::<Vec<_>>(), ["a", "日本", "", "b"]);
        for (i, l) in ["b", "", "日本", "a"].iter().enumerate() {
            assert_eq!(a.position(l), Some(i));
        }
        assert_eq!(a.position("c"), None);
        assert_eq!(a.position("日"), None);
    }

    #[test]
    fn the_first_repeat_is_named() {
        let e = Alphabet::new("labels", strings(&["x", "b", "a", "b", "x"])).unwrap_err();
        assert!(matches!(&e, Error::DuplicateLabel { label, .. } if label == "b"), "{e}");
        let e = Alphabet::new("labels", strings(&["x", "a", "x", "a"])).unwrap_err();
        assert!(matches!(&e, Error::DuplicateLabel { label, .. } if label == "x"), "{e}");
        assert_eq!(Alphabet::new("labels", Vec::<String>::new()).unwrap_err().code(), "empty_alphabet");
        let many = (0..=MAX_SYMBOLS).map(|i| i.to_string()).collect();
        assert_eq!(Alphabet::new("labels", many).unwrap_err().code(), "too_many_symbols");
        assert_eq!(Alphabet::indices("labels", MAX_SYMBOLS + 1).unwrap_err().code(), "too_many_symbols");
    }

    #[test]
    fn indices_are_decimal() {
        let a = Alphabet::indices("labels", 12).unwrap();
        assert_eq!(a.label(10), Some("10"));
        assert_eq!(a.position("11"), Some(11));
        assert_eq!(a, Alphabet::new("labels", (0..12).map(|i| i.to_string()).collect()).unwrap());
    }
}
