//! ChaCha12 (Bernstein, "ChaCha, a variant of Salsa20", 2008) as the seeded generator of
//! [`super::DeterministicRngForTesting`]: the stream of `rand_chacha`'s `ChaCha12Rng`, word
//! for word, so that seeded tests, simulations and the cross-platform vectors
//! (`tests/vectors`) read the same draws as before.
//!
//! # Why not the `rand_chacha` crate
//! Its block function is written over a SIMD abstraction that unrolls into kilobytes of
//! wasm, while the client only needs it for its `…SeededForTesting` methods. The cipher is twenty lines; speed
//! matters for tests and simulations only.
//!
//! # The stream
//! - The 32-byte key is the seed; `SeedableRng::seed_from_u64` (`rand_core`'s, as for
//!   `ChaCha12Rng`) expands a `u64` into it by PCG32.
//! - Block b (16 words) is the ChaCha permutation with 12 rounds of the state
//!   (constants, key, 64-bit block counter b in words 12–13, stream 0 in words 14–15),
//!   plus that state.
//! - Words are handed out four blocks at a time, from a 64-word buffer, with the
//!   buffer rules of `rand_core`'s `BlockRng`: a `u64` is two words, low first (and may
//!   straddle a refill); bytes are taken whole words at a time, little-endian, and the
//!   unused bytes of a word that ends a fill are dropped.

use rand::{RngCore, SeedableRng};

/// "expand 32-byte k".
const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Double rounds: ChaCha12.
const DOUBLE_ROUNDS: usize = 6;

/// Words per block, and blocks per refill of the buffer.
const BLOCK: usize = 16;
const BUFFER: usize = 4 * BLOCK;

/// The generator: key, the counter of the next block, and the words not yet handed out.
#[derive(Clone)]
pub(crate) struct ChaCha12 {
    key: [u32; 8],
    counter: u64,
    buffer: [u32; BUFFER],
    /// The next word of `buffer` to hand out (`BUFFER`: empty).
    index: usize,
}

impl core::fmt::Debug for ChaCha12 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ChaCha12 { .. }")
    }
}

/// The generator keyed by a 32-byte seed (little-endian words); `seed_from_u64` is
/// `rand_core`'s PCG32 expansion of a `u64` into such a seed, as for `ChaCha12Rng`.
impl SeedableRng for ChaCha12 {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Self {
        let mut key = [0u32; 8];
        for (k, bytes) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        ChaCha12 { key, counter: 0, buffer: [0; BUFFER], index: BUFFER }
    }
}

impl ChaCha12 {
    /// The next four blocks into the buffer, from its word `index`.
    fn refill(&mut self, index: usize) {
        for (b, out) in self.buffer.chunks_exact_mut(BLOCK).enumerate() {
            block(&self.key, self.counter.wrapping_add(b as u64), out);
        }
        self.counter = self.counter.wrapping_add(4);
        self.index = index;
    }
}

/// The ChaCha quarter round on words a, b, c, d of `x`.
#[inline(always)]
fn quarter(x: &mut [u32; BLOCK], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// `double_rounds` ChaCha double rounds of `x`: the quarter rounds of the columns, then of
/// the diagonals.
fn permute(x: &mut [u32; BLOCK], double_rounds: usize) {
    for _ in 0..double_rounds {
        quarter(x, 0, 4, 8, 12);
        quarter(x, 1, 5, 9, 13);
        quarter(x, 2, 6, 10, 14);
        quarter(x, 3, 7, 11, 15);
        quarter(x, 0, 5, 10, 15);
        quarter(x, 1, 6, 11, 12);
        quarter(x, 2, 7, 8, 13);
        quarter(x, 3, 4, 9, 14);
    }
}

/// Block `counter` of the stream under `key` into `out` (16 words).
fn block(key: &[u32; 8], counter: u64, out: &mut [u32]) {
    let mut state = [0u32; BLOCK];
    state[..4].copy_from_slice(&CONSTANTS);
    state[4..12].copy_from_slice(key);
    state[12] = counter as u32;
    state[13] = (counter >> 32) as u32;
    let mut x = state;
    permute(&mut x, DOUBLE_ROUNDS);
    for ((o, w), s) in out.iter_mut().zip(x).zip(state) {
        *o = w.wrapping_add(s);
    }
}

impl RngCore for ChaCha12 {
    fn next_u32(&mut self) -> u32 {
        if self.index >= BUFFER {
            self.refill(0);
        }
        self.index += 1;
        self.buffer[self.index - 1]
    }

    fn next_u64(&mut self) -> u64 {
        let pair = |w: &[u32], i: usize| u64::from(w[i + 1]) << 32 | u64::from(w[i]);
        match self.index {
            i if i + 1 < BUFFER => {
                self.index += 2;
                pair(&self.buffer, i)
            }
            i if i >= BUFFER => {
                self.refill(2);
                pair(&self.buffer, 0)
            }
            _ => {
                // The last word of this refill is the low half, the first of the next the high.
                let low = u64::from(self.buffer[BUFFER - 1]);
                self.refill(1);
                u64::from(self.buffer[0]) << 32 | low
            }
        }
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(4) {
            let word = self.next_u32().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// RFC 8439 §2.3.2's block (ChaCha20: 10 double rounds; counter 1 and its 96-bit
    /// nonce in words 12–15), computed by the same double rounds.
    #[test]
    fn the_double_rounds_give_the_rfc_8439_block() {
        let key: [u32; 8] = core::array::from_fn(|i| u32::from_le_bytes(core::array::from_fn(|j| (4 * i + j) as u8)));
        let mut state = [0u32; BLOCK];
        state[..4].copy_from_slice(&CONSTANTS);
        state[4..12].copy_from_slice(&key);
        state[12..].copy_from_slice(&[1, 0x0900_0000, 0x4a00_0000, 0]);
        let mut x = state;
        permute(&mut x, 10);
        let out: Vec<u32> = x.iter().zip(state).map(|(w, s)| w.wrapping_add(s)).collect();
        let expected = [
            0xe4e7_f110,
            0x1559_3bd1,
            0x1fdd_0f50,
            0xc471_20a3,
            0xc7f4_d1c7,
            0x0368_c033,
            0x9aaa_2204,
            0x4e6c_d4c3,
            0x4664_82d2,
            0x09aa_9f07,
            0x05d7_c214,
            0xa202_8bd9,
            0xd19c_12b5,
            0xb94e_16de,
            0xe883_d0cb,
            0x4e3c_50a2,
        ];
        assert_eq!(out, expected);
    }

    /// The same words as `rand_chacha`'s ChaCha12Rng under every mix of `next_u32`,
    /// `next_u64` and `fill_bytes` of any length, across many refills and seeds.
    #[test]
    fn the_stream_is_rand_chachas() {
        let mut choose = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for seed in [0u64, 1, 42, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
            let mut ours = ChaCha12::seed_from_u64(seed);
            let mut theirs = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
            for step in 0..20_000 {
                match choose.random_range(0..3) {
                    0 => assert_eq!(ours.next_u32(), theirs.next_u32(), "seed {seed} step {step}"),
                    1 => assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed} step {step}"),
                    _ => {
                        let n = choose.random_range(0..=70);
                        let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
                        ours.fill_bytes(&mut a);
                        theirs.fill_bytes(&mut b);
                        assert_eq!(a, b, "seed {seed} step {step} fill of {n}");
                    }
                }
            }
        }
        let seed: [u8; 32] = core::array::from_fn(|i| (7 * i + 3) as u8);
        let (mut ours, mut theirs) = (ChaCha12::from_seed(seed), rand_chacha::ChaCha12Rng::from_seed(seed));
        for _ in 0..1000 {
            assert_eq!(ours.next_u64(), theirs.next_u64());
        }
    }
}
