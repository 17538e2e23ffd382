//! Perturbation of many values in one call: the values arrive as one UTF-8 text with
//! U+0000 between them (no value contains it: [`super::value`]), the reports leave as one
//! column of numbers per report field. The per-report path ([`VerifiedOpen::perturb`])
//! builds one report at a time; a client sending thousands of words or URLs pays, there,
//! a crossing and an object per report. Here each report is the same draws, the same
//! bucket and the same randomiser, in the same order, so a batch under a seeded generator
//! is, report for report, what the per-report path gives.
//!
//! Rules: every value is checked before the first draw (a refusal names its index,
//! `values[i]`, never its text); each report consumes [`words`] 64-bit words whatever its
//! value; a random source failing part-way returns the error and no report.

use alloc::vec::Vec;

use super::perturb::{words, KindRun};
use super::report::report_fields;
use super::value::PAD;
use super::verify::VerifiedOpen;
use crate::error::{Error, Result};
use crate::rng::Randomness;

/// The reports a block draws at a time: 2,730 reports of at most 3 words fill the 8,192
/// words (64 KiB) one `crypto.getRandomValues` call gives.
pub const BLOCK: usize = 2730;

/// Values for [`VerifiedOpen::perturb_joined_into`]: one text, checked against a
/// document's value rule, and where each value ends in it.
#[derive(Debug, Clone)]
pub struct JoinedValues<'a> {
    text: &'a [u8],
    /// The end of value i in `text` (it starts one byte after the end of value i − 1).
    ends: Vec<u32>,
}

impl JoinedValues<'_> {
    /// The number of values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Where value `i` starts.
    #[inline(always)]
    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        }
    }
}

/// Calls `found` with the offset of every zero byte of `text`, in order, reading eight
/// bytes at a time: a word's zero bytes are exactly the high bits of
/// ¬(((x & 0x7F…) + 0x7F…) | x | 0x7F…) (no carry crosses a byte), so a word without one
/// costs one test. `found` returns false to stop. Returns whether every byte read is
/// ASCII (then the text is UTF-8 without a further pass).
#[inline(always)]
fn zero_bytes(text: &[u8], mut found: impl FnMut(usize) -> bool) -> bool {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut chunks = text.chunks_exact(8);
    let mut base = 0;
    let mut high = 0;
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        high |= x;
        let mut zeros = !(((x & LOW7) + LOW7) | x | LOW7);
        while zeros != 0 {
            if !found(base + (zeros.trailing_zeros() / 8) as usize) {
                return false;
            }
            zeros &= zeros - 1;
        }
        base += 8;
    }
    for (k, &b) in chunks.remainder().iter().enumerate() {
        high |= u64::from(b);
        if b == PAD && !found(base + k) {
            return false;
        }
    }
    high & !LOW7 == 0
}

/// The name a refusal of value `i` carries.
fn nth(i: usize) -> alloc::string::String {
    alloc::format!("values[{i}]")
}

impl VerifiedOpen {
    /// Splits `text` into `n` values at its U+0000 bytes and checks each against the
    /// document's rule: valid UTF-8 of at most `max_bytes` bytes. Reads the text once;
    /// what it keeps is one offset per value.
    ///
    /// # Errors
    /// `invalid_argument`: naming `values[i]` for the first value over `max_bytes` or
    /// not valid UTF-8 (never echoing it); naming `values` when the text does not hold
    /// `n` values (a value with a U+0000 in it would be two), or is longer than 4 GiB.
    pub fn joined_values<'a>(&self, text: &'a [u8], n: usize) -> Result<JoinedValues<'a>> {
        let max = self.doc.max_bytes();
        if u32::try_from(text.len()).is_err() {
            return Err(Error::invalid("values", "the joined values may have at most 4 GiB"));
        }
        let mut ends = Vec::with_capacity(n);
        let mut longest = 0;
        let mut start = 0;
        // At most n − 1 separators are kept: one more already refuses the text.
        let ascii = zero_bytes(text, |at| {
            ends.push(at as u32);
            longest = longest.max(at - start);
            start = at + 1;
            ends.len() < n
        });
        if n > 0 && ends.len() < n {
            longest = longest.max(text.len() - start);
            ends.push(text.len() as u32);
        }
        if ends.len() != n || ends.last().is_some_and(|&e| e as usize != text.len()) || (n == 0 && !text.is_empty()) {
            return Err(Error::invalid(
                "values",
                alloc::format!("expected {n} values separated by U+0000, found more (a value may not contain U+0000)"),
            ));
        }
        let values = JoinedValues { text, ends };
        if longest > max {
            let i = (0..n).find(|&i| values.ends[i] as usize - values.start(i) > max).unwrap_or(0);
            return Err(super::value::too_long(&nth(i), max));
        }
        // U+0000 is one byte that is never part of another character: the text is valid
        // UTF-8 exactly when every value is (and at once when every byte is ASCII).
        match core::str::from_utf8(if ascii { &[] } else { text }) {
            Ok(_) => Ok(values),
            Err(e) => {
                let at = e.valid_up_to() as u32;
                let i = values.ends.partition_point(|&end| end < at);
                Err(Error::invalid(nth(i), "a value must be valid UTF-8"))
            }
        }
    }

    /// The number of report fields of the document's kind (the columns of a batch).
    pub fn report_width(&self) -> usize {
        report_fields(self.doc.mechanism()).len()
    }

    /// Randomises `values[first..first + count]` into `out`, one column per report field
    /// in canonical order ([`report_fields`]), each `count` long: `out[f·count + i]` is
    /// field f of report `first + i`. Reports are drawn in order, [`words`] each, so
    /// successive calls over consecutive ranges draw what one call over their union does.
    ///
    /// # Errors
    /// `invalid_argument` naming `out` when its length is not `count` times the kind's
    /// width or the range is not within `values`; `rng` if the random source fails (then
    /// `out` is zeroed: no part of it is a report to send).
    pub fn perturb_joined_into<R: Randomness + ?Sized>(
        &self,
        values: &JoinedValues<'_>,
        first: usize,
        rng: &mut R,
        out: &mut [u32],
    ) -> Result<()> {
        let width = self.report_width();
        let count = out.len() / width;
        if out.len() % width != 0 || first.checked_add(count).is_none_or(|end| end > values.len()) {
            return Err(Error::invalid("out", "expected one column per report field, within the values"));
        }
        let drawn = self.draw_range(values, first, count, rng, out);
        if drawn.is_err() {
            out.fill(0);
        }
        drawn
    }

    /// [`Self::perturb_joined_into`] over every value of `text` (`n` values joined by
    /// U+0000): the reports as columns, `n` numbers each.
    ///
    /// # Errors
    /// Those of [`Self::joined_values`] (before any draw), `rng`.
    pub fn perturb_joined<R: Randomness + ?Sized>(&self, text: &[u8], n: usize, rng: &mut R) -> Result<Vec<u32>> {
        let values = self.joined_values(text, n)?;
        let mut out = alloc::vec![0u32; n * self.report_width()];
        self.perturb_joined_into(&values, 0, rng, &mut out)?;
        Ok(out)
    }

    /// The draws of `count` reports from `first`, a block of words at a time, each block
    /// straight from the source into one buffer ([`Randomness::fill_block`]: the stream
    /// [`Randomness::fill_words`] gives, without a pool in between).
    fn draw_range<R: Randomness + ?Sized>(
        &self,
        values: &JoinedValues<'_>,
        first: usize,
        count: usize,
        rng: &mut R,
        out: &mut [u32],
    ) -> Result<()> {
        let w = words(self.doc.mechanism());
        let mut pool = alloc::vec![0u8; 8 * w * BLOCK.min(count)];
        let drawn = self.with_kind(Blocks { values, first, count, w, rng, pool: &mut pool, out });
        // The words are the reports' noise: none stays behind in memory.
        pool.fill(0);
        core::hint::black_box(&mut pool);
        drawn
    }
}

/// The batch's loop over blocks, run with the report function of one kind
/// ([`VerifiedOpen::with_kind`]).
struct Blocks<'a, 'v, R: ?Sized> {
    values: &'a JoinedValues<'v>,
    first: usize,
    count: usize,
    /// Words a report.
    w: usize,
    rng: &'a mut R,
    pool: &'a mut [u8],
    /// The columns, `count` numbers each.
    out: &'a mut [u32],
}

impl<R: Randomness + ?Sized> KindRun<Result<()>> for Blocks<'_, '_, R> {
    fn run(self, report: impl Fn(&[u64; 3], &[u8], &mut Vec<u8>) -> [u32; 3]) -> Result<()> {
        let Blocks { values, first, count, w, rng, pool, out } = self;
        let (c0, rest) = out.split_at_mut(count);
        let (c1, c2) = rest.split_at_mut(count);
        let mut scratch = Vec::new();
        let mut done = 0;
        while done < count {
            let m = BLOCK.min(count - done);
            let block = &mut pool[..8 * w * m];
            rng.fill_block(block)?;
            let columns =
                [&mut c0[done..done + m], &mut c1[done..done + m], c2.get_mut(done..done + m).unwrap_or(&mut [])];
            draw_block(values, first + done, block, w, columns, &mut scratch, &report);
            done += m;
        }
        Ok(())
    }
}

/// The hot loop: report `first + i` from the `w` words at `block[8·w·i..]` (read
/// little-endian), written as row i of `columns` (the first `w`; each as long as the
/// block's reports). Indices, not iterator adapters: at the wasm build's opt-level "s" the
/// lengths stay visible to the compiler, so each read and write is checked once or never.
#[inline(never)]
fn draw_block(
    values: &JoinedValues<'_>,
    first: usize,
    block: &[u8],
    w: usize,
    columns: [&mut [u32]; 3],
    scratch: &mut Vec<u8>,
    report: &impl Fn(&[u64; 3], &[u8], &mut Vec<u8>) -> [u32; 3],
) {
    let [c0, c1, c2] = columns;
    let m = c0.len();
    let ends = &values.ends[first..first + m];
    let (c1, c2) = (&mut c1[..m], &mut c2[..if w == 3 { m } else { 0 }]);
    let mut start = values.start(first);
    for i in 0..m {
        let drawn = &block[8 * w * i..8 * w * (i + 1)];
        let mut word = [0u64; 3];
        for (k, slot) in word.iter_mut().enumerate().take(w) {
            *slot = u64::from_le_bytes(drawn[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
        }
        let end = ends[i] as usize;
        let r = report(&word, &values.text[start..end], scratch);
        c0[i] = r[0];
        c1[i] = r[1];
        if let Some(c) = c2.get_mut(i) {
            *c = r[2];
        }
        start = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_bytes_finds_exactly_the_zeros() {
        // Bytes that fool the usual has-zero test (0x01 above a zero borrows), 0x80, 0xFF,
        // zeros at each position of a word and in the tail.
        let mut text = Vec::new();
        for i in 0..300u32 {
            text.push([0u8, 1, 0x80, 0xFF, 0x7F, b'a'][(i.wrapping_mul(2654435761) >> 29) as usize % 6]);
        }
        let naive: Vec<usize> = text.iter().enumerate().filter(|&(_, &b)| b == 0).map(|(k, _)| k).collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 300] {
            let mut seen = Vec::new();
            let _ = zero_bytes(&text[..len], |at| {
                seen.push(at);
                true
            });
            assert_eq!(seen, naive.iter().copied().filter(|&k| k < len).collect::<Vec<_>>(), "{len}");
        }
        assert!(zero_bytes(b"plain ascii, no zero: 0123456789", |_| true));
        assert!(!zero_bytes("caf\u{e9} au lait".as_bytes(), |_| true));
        assert!(!zero_bytes(b"\x80", |_| true));
        let mut first = Vec::new();
        let _ = zero_bytes(&text, |at| {
            first.push(at);
            first.len() < 3
        });
        assert_eq!(first, naive[..3]);
    }
}
