//! Perturbation of one value on the device: the kind's value-independent draws, the
//! value's bucket under them, and the randomiser. Every draw comes from the caller's
//! [`Randomness`] (the CSPRNG), as a fixed number of 64-bit words per kind whatever the
//! value ([`words`]): the same bytes are consumed for every value.

use alloc::vec::Vec;

use super::hash::xxh32;
use super::report::OpenReport;
use super::value::prefix;
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
/// proof in [`super::channel`]).
#[inline(always)]
fn index(word: u64, n: u32) -> u32 {
    ((u128::from(word) * u128::from(n)) >> 64) as u32
}

/// ⟨a, b⟩ over GF(2): the parity of the common bits.
#[inline(always)]
fn parity(a: u32, b: u32) -> u32 {
    (a & b).count_ones() & 1
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
        Ok(self.report_from(&w, n, bytes, &mut Vec::new()))
    }

    /// The report of the value `x` from its kind's `n` words `w` (the batch's loop and
    /// [`Self::perturb`] alike): the value-independent part from the first words, the
    /// value's bucket under it, the randomiser on the last word. `scratch` holds a
    /// heavy-hitter prefix.
    #[inline(always)]
    pub(super) fn report_from(&self, w: &[u64; 3], n: usize, x: &[u8], scratch: &mut Vec<u8>) -> OpenReport {
        let omega = self.draw_omega(w);
        let v = self.bucket(&omega, x, scratch);
        self.with_output(omega, self.randomiser.sample(v, w[n - 1]))
    }

    /// The report's value-independent part from the words (its output left 0).
    #[inline(always)]
    fn draw_omega(&self, w: &[u64; 3]) -> OpenReport {
        match self.doc.mechanism() {
            OpenMechanism::Olh { .. } => OpenReport::Olh { seed: w[0] as u32, y: 0 },
            OpenMechanism::Hadamard { bits, .. } => {
                OpenReport::Hadamard { j: (w[0] & ((1u64 << bits) - 1)) as u32, bit: 0 }
            }
            OpenMechanism::Hcms { k, m, .. } => {
                OpenReport::Hcms { j: index(w[0], *k), l: (w[1] & u64::from(m - 1)) as u32, bit: 0 }
            }
            OpenMechanism::HeavyHitters { .. } => {
                let round = self.rounds.as_ref().map_or(0, |t| t.sample_word(w[0])) as u32;
                OpenReport::HeavyHitters { round, seed: w[1] as u32, y: 0 }
            }
        }
    }

    /// `report` with its output set to `y`.
    #[inline(always)]
    fn with_output(&self, report: OpenReport, y: u32) -> OpenReport {
        match report {
            OpenReport::Olh { seed, .. } => OpenReport::Olh { seed, y },
            OpenReport::Hadamard { j, .. } => OpenReport::Hadamard { j, bit: y as u8 },
            OpenReport::Hcms { j, l, .. } => OpenReport::Hcms { j, l, bit: y as u8 },
            OpenReport::HeavyHitters { round, seed, .. } => OpenReport::HeavyHitters { round, seed, y },
        }
    }

    /// v_ω(x): the randomiser's input for the value `x` under the report's
    /// value-independent part (its output is ignored). `scratch` holds a heavy-hitter
    /// prefix. Inlined into each caller's loop (the batch draws millions).
    #[inline(always)]
    pub(crate) fn bucket(&self, report: &OpenReport, x: &[u8], scratch: &mut Vec<u8>) -> u32 {
        match (self.doc.mechanism(), *report) {
            (OpenMechanism::Olh { g, .. }, OpenReport::Olh { seed, .. }) => xxh32(seed, x) % g,
            (OpenMechanism::Hadamard { bits, hash_seed, .. }, OpenReport::Hadamard { j, .. }) => {
                let b = if *bits == 32 { xxh32(*hash_seed, x) } else { xxh32(*hash_seed, x) & ((1 << bits) - 1) };
                parity(b, j)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_covers_the_range() {
        assert_eq!(index(0, 7), 0);
        assert_eq!(index(u64::MAX, 7), 6);
        assert_eq!(index(1 << 63, 2), 1);
        assert_eq!(parity(0b1011, 0b0011), 0);
        assert_eq!(parity(0b1011, 0b1110), 0);
        assert_eq!(parity(0b1011, 0b0001), 1);
    }
}
