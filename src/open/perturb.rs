//! Perturbation of one value on the device: the kind's value-independent draws, the
//! value's bucket under them, and the randomiser. Every draw comes from the caller's
//! [`Randomness`] (the CSPRNG), as a fixed number of 64-bit words per kind whatever the
//! value ([`words`]): the same bytes are consumed for every value.

use alloc::vec::Vec;

use super::hash::xxh32;
use super::report::OpenReport;
use super::value::{prefix, PAD};
use super::verify::VerifiedOpen;
use super::OpenMechanism;
use crate::error::Result;
use crate::rng::Randomness;

/// The 64-bit words one report of `m`'s kind consumes: `olh` and `hadamard` 2, `hcms`
/// and `heavy_hitters` 3.
pub fn words(m: &OpenMechanism) -> usize {
    match m {
        OpenMechanism::Olh { .. } | OpenMechanism::Hadamard { .. } => 2,
        OpenMechanism::Hcms { .. } | OpenMechanism::HeavyHitters { .. } => 3,
    }
}

/// ⌊w·n / 2⁶⁴⌋: an index in [0, n) from one word, by multiplication (no rejection loop,
/// so one word whatever it is). Off uniform by at most n/2⁶⁴ per index for n not a power
/// of two; its law does not depend on the value, so no likelihood ratio reads it (the
/// proof in [`super::channel`]). On two 64-bit products, not one 128-bit one (a call on
/// wasm32): w·n = A·2³² + B with A = (w >> 32)·n and B = (w mod 2³²)·n, each below 2⁶⁴
/// (n < 2³²), and A + ⌊B / 2³²⌋ < 2⁶⁴, so ⌊w·n / 2⁶⁴⌋ = ⌊(A + ⌊B / 2³²⌋) / 2³²⌋ exactly.
#[inline(always)]
fn index(word: u64, n: u32) -> u32 {
    let n = u64::from(n);
    let (a, b) = ((word >> 32) * n, (word & 0xffff_ffff) * n);
    ((a + (b >> 32)) >> 32) as u32
}

/// ⟨a, b⟩ over GF(2): the parity of the common bits.
#[inline(always)]
fn parity(a: u32, b: u32) -> u32 {
    (a & b).count_ones() & 1
}

/// The `hadamard` bucket's hash: the low `bits` bits of the value's XXH32.
#[inline(always)]
fn hadamard_hash(bits: u32, hash_seed: u32, x: &[u8]) -> u32 {
    let h = xxh32(hash_seed, x);
    if bits == 32 {
        h
    } else {
        h & ((1 << bits) - 1)
    }
}

/// XXH32 with `seed` of the heavy-hitter prefix of `x` ([`prefix`]: its first `bits` bits
/// padded with [`PAD`]), hashed in `pads`, a buffer of at least ⌈bits/8⌉ padding bytes,
/// left as it was: the value's bytes are written over the padding and then back to it, so
/// a report writes the value's length (at most the prefix's), never the whole prefix.
#[inline(always)]
fn prefix_hash(seed: u32, x: &[u8], bits: usize, pads: &mut [u8]) -> u32 {
    let len = bits.div_ceil(8);
    let kept = len.min(x.len());
    pads[..kept].copy_from_slice(&x[..kept]);
    let prefix = &mut pads[..len];
    if let Some(last) = prefix.last_mut() {
        *last &= 0xFFu8 << (len * 8 - bits);
    }
    let h = xxh32(seed, prefix);
    // The last byte was the value's (restored here) or padding (masking left it so).
    pads[..kept].fill(PAD);
    h
}

impl VerifiedOpen {
    /// Randomises `value` (a string of at most `max_bytes` UTF-8 bytes without U+0000)
    /// into one report of the document's kind.
    ///
    /// # Errors
    /// `invalid_argument` naming `value` (never echoing it); `rng` if the random source
    /// fails.
    pub fn perturb<R: Randomness + ?Sized>(&self, value: &str, rng: &mut R) -> Result<OpenReport> {
        let bytes = self.doc.check_value(value)?;
        let mut w = [0u64; 3];
        let n = words(self.doc.mechanism());
        for slot in &mut w[..n] {
            *slot = rng.next_word()?;
        }
        let numbers = self.with_kind(One { words: &w, value: bytes });
        Ok(OpenReport::from_numbers(self.doc.mechanism(), numbers))
    }

    /// Calls `run` with the report function of the document's kind — the kind matched
    /// once, so that a loop inside `run` is compiled for one kind. The report function
    /// maps the kind's words ([`words`] of them; the value-independent part from the
    /// first, the randomiser from the last) and the value `x` to the report's numbers in
    /// canonical order ([`super::report::report_fields`]; unused numbers 0). `scratch`
    /// holds a heavy-hitter prefix. The batch's loop and [`Self::perturb`] alike.
    #[inline(always)]
    pub(super) fn with_kind<T>(&self, run: impl KindRun<T>) -> T {
        let r = &self.randomiser;
        match self.doc.mechanism() {
            OpenMechanism::Olh { g, .. } => run.run(|w: &[u64; 3], x: &[u8], _: &mut Vec<u8>| {
                let seed = w[0] as u32;
                [seed, r.sample(xxh32(seed, x) % g, w[1]), 0]
            }),
            OpenMechanism::Hadamard { bits, hash_seed, .. } => run.run(|w: &[u64; 3], x: &[u8], _: &mut Vec<u8>| {
                let j = (w[0] & ((1u64 << bits) - 1)) as u32;
                [j, r.sample(parity(hadamard_hash(*bits, *hash_seed, x), j), w[1]), 0]
            }),
            OpenMechanism::Hcms { k, m, .. } => run.run(|w: &[u64; 3], x: &[u8], _: &mut Vec<u8>| {
                let (j, l) = (index(w[0], *k), (w[1] & u64::from(m - 1)) as u32);
                [j, l, r.sample(parity(xxh32(j, x) % m, l), w[2])]
            }),
            OpenMechanism::HeavyHitters { g, prefix_bits, .. } => {
                let rounds = self.rounds.as_ref();
                let longest = prefix_bits.iter().max().map_or(0, |&b| b as usize).div_ceil(8);
                run.run(move |w: &[u64; 3], x: &[u8], scratch: &mut Vec<u8>| {
                    let round = rounds.map_or(0, |t| t.sample_word(w[0]));
                    let seed = w[1] as u32;
                    if scratch.len() < longest {
                        scratch.resize(longest, PAD);
                    }
                    let bits = prefix_bits.get(round).map_or(0, |&b| b as usize);
                    [round as u32, seed, r.sample(prefix_hash(seed, x, bits, scratch) % g, w[2])]
                })
            }
        }
    }

    /// v_ω(x): the randomiser's input for the value `x` under the report's
    /// value-independent part (its output is ignored). `scratch` holds a heavy-hitter
    /// prefix.
    pub(crate) fn bucket(&self, report: &OpenReport, x: &[u8], scratch: &mut Vec<u8>) -> u32 {
        match (self.doc.mechanism(), *report) {
            (OpenMechanism::Olh { g, .. }, OpenReport::Olh { seed, .. }) => xxh32(seed, x) % g,
            (OpenMechanism::Hadamard { bits, hash_seed, .. }, OpenReport::Hadamard { j, .. }) => {
                parity(hadamard_hash(*bits, *hash_seed, x), j)
            }
            (OpenMechanism::Hcms { m, .. }, OpenReport::Hcms { j, l, .. }) => parity(xxh32(j, x) % m, l),
            (OpenMechanism::HeavyHitters { g, prefix_bits, .. }, OpenReport::HeavyHitters { round, seed, .. }) => {
                prefix(x, prefix_bits[round as usize] as usize, scratch);
                xxh32(seed, scratch) % g
            }
            // A report of another kind was refused by validation; bucket 0 keeps this total.
            _ => 0,
        }
    }
}

/// What runs with a kind's report function ([`VerifiedOpen::with_kind`]): generic over
/// the function, so each kind gets its own copy of the caller's loop.
pub(super) trait KindRun<T> {
    /// Runs with `report`.
    fn run(self, report: impl Fn(&[u64; 3], &[u8], &mut Vec<u8>) -> [u32; 3]) -> T;
}

/// One report: the per-report path's [`KindRun`].
struct One<'a> {
    words: &'a [u64; 3],
    value: &'a [u8],
}

impl KindRun<[u32; 3]> for One<'_> {
    fn run(self, report: impl Fn(&[u64; 3], &[u8], &mut Vec<u8>) -> [u32; 3]) -> [u32; 3] {
        report(self.words, self.value, &mut Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_hash_is_the_hash_of_the_prefix_and_leaves_the_padding() {
        let mut pads = alloc::vec![PAD; 64];
        let mut prefixed = Vec::new();
        for x in [&b""[..], b"a", b"kiwi", b"\xFF\xFF\xFF", "日本語 🍐".as_bytes(), &[b'x'; 64]] {
            for bits in [1, 3, 8, 12, 16, 61, 64, 511, 512] {
                prefix(x, bits, &mut prefixed);
                assert_eq!(prefix_hash(7, x, bits, &mut pads), xxh32(7, &prefixed), "{x:?} {bits}");
                assert!(pads.iter().all(|&b| b == PAD), "{x:?} {bits}: a byte of the value stayed");
            }
        }
    }

    #[test]
    fn index_covers_the_range() {
        assert_eq!(index(0, 7), 0);
        assert_eq!(index(u64::MAX, 7), 6);
        assert_eq!(index(1 << 63, 2), 1);
        // ⌊w·n / 2⁶⁴⌋ on two 64-bit products is the 128-bit product's, at its extremes.
        for (w, n) in [(u64::MAX, u32::MAX), (u64::MAX - 1, 3), (0x8000_0000_FFFF_FFFF, 1000), (12345, u32::MAX)] {
            assert_eq!(index(w, n), ((u128::from(w) * u128::from(n)) >> 64) as u32, "{w} {n}");
        }
        assert_eq!(parity(0b1011, 0b0011), 0);
        assert_eq!(parity(0b1011, 0b1110), 0);
        assert_eq!(parity(0b1011, 0b0001), 1);
    }
}
