//! Exact samplers: [`alias`] for categorical channels, [`structured`] for the structured
//! kinds, [`unary`] for unary encoding, [`discrete`] and [`lattice`] for noise on ℤ.

pub mod alias;
pub mod discrete;
pub mod keep_or_uniform;
pub mod lattice;
pub mod structured;
pub mod unary;

pub use alias::{AliasTable, ChannelSampler, DenseSampler, QuantisedChannel};
pub use keep_or_uniform::KeepOrUniform;
pub use structured::{Categorical, MixSampler, SparseSampler};
pub use unary::UnarySampler;

use crate::error::Result;
use crate::rng::Randomness;

/// Uniform words fetched a block at a time: 8192, the 64 KiB one `crypto.getRandomValues`
/// call fills at most (fewer calls into the OS or the browser; the JS keep-or-uniform loop
/// of `benches/perturb-many/` fills the same size).
pub(crate) const BLOCK_WORDS: usize = 8192;

/// Replaces each input x of `xs` by its draw `f(x, r)`, each from one uniform word r: the
/// words fetched [`BLOCK_WORDS`] at a time, straight from the source into one buffer
/// ([`Randomness::fill_block`]: no pool in between), and zeroed once the batch is drawn, so
/// that no word that decided an output outlives the call. Eight bytes a report whatever x
/// is; a seeded source gives the stream [`Randomness::fill_words`] gives, word for word.
#[inline(always)]
pub(crate) fn draws<R: Randomness + ?Sized>(
    xs: &mut [u32],
    rng: &mut R,
    f: impl Fn(usize, u64) -> usize,
) -> Result<()> {
    let mut block = alloc::vec![0u8; 8 * BLOCK_WORDS.min(xs.len())];
    let mut drawn = Ok(());
    for chunk in xs.chunks_mut(BLOCK_WORDS) {
        let bytes = &mut block[..8 * chunk.len()];
        drawn = rng.fill_block(bytes);
        if drawn.is_err() {
            break;
        }
        // Indices, not iterator adapters: at the wasm build's opt-level "s" a `zip` with
        // `chunks_exact` stayed a call per word with a bounds check per byte (half of
        // `perturbMany`); here each word is one 8-byte slice whose length the compiler sees.
        for i in 0..chunk.len() {
            let r = u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap_or_default());
            chunk[i] = f(chunk[i] as usize, r) as u32;
        }
    }
    block.fill(0);
    // The zeroing is the point: it must not be dropped as a store to memory about to be freed.
    core::hint::black_box(&mut block);
    drawn
}

#[cfg(test)]
pub(crate) mod tests {
    use alloc::vec::Vec;

    /// A source that returns the given words, in order, as little-endian bytes, and counts
    /// the bytes it gave.
    pub(crate) struct Words {
        words: alloc::vec::IntoIter<u64>,
        bytes: usize,
    }
    impl Words {
        pub(crate) fn new(words: Vec<u64>) -> Self {
            Words { words: words.into_iter(), bytes: 0 }
        }
        /// The bytes drawn so far.
        pub(crate) fn consumed(&self) -> usize {
            self.bytes
        }
    }
    impl rand::RngCore for Words {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            self.bytes += 8;
            self.words.next().expect("the batch drew more words than it was given")
        }
        fn fill_bytes(&mut self, dst: &mut [u8]) {
            for c in dst.chunks_mut(8) {
                c.copy_from_slice(&self.next_u64().to_le_bytes()[..c.len()]);
            }
        }
    }
    impl rand::CryptoRng for Words {}
}
