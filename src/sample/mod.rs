//! Exact samplers: [`alias`] for categorical channels, [`structured`] for the structured
//! kinds, [`unary`] for unary encoding, [`discrete`] and [`lattice`] for noise on ℤ.

pub mod alias;
pub mod discrete;
pub mod keep_or_uniform;
pub mod lattice;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd;
pub mod structured;
pub mod unary;

pub(crate) use alias::exact_of;
pub use alias::{AliasTable, ChannelSampler, DenseSampler, QuantisedChannel};
pub use keep_or_uniform::KeepOrUniform;
pub use structured::{Categorical, MixSampler, SparseSampler};
pub use unary::UnarySampler;

use crate::error::Result;
use crate::rng::Randomness;

/// Random bytes fetched a block at a time: 64 KiB, what one `crypto.getRandomValues` call
/// fills at most (fewer calls into the OS or the browser; the JS keep-or-uniform loop of
/// `benches/perturb-many/` fills the same size): 8192 64-bit words, or 16,384 32-bit ones.
pub(crate) const BLOCK_BYTES: usize = 65536;

/// The random bytes of a batch this short are held on the stack, not allocated: an
/// allocation and its release were 8 % of a one-input batch in wasm.
const STACK_BYTES: usize = 256;

/// Replaces each input x of `xs` by its draw `f(x, r)`, each from one uniform 64-bit word
/// r: the words fetched [`BLOCK_BYTES`] at a time into one buffer
/// ([`Randomness::fill_block`]: a large block straight from the source), and zeroed once
/// the batch is drawn, so that no word that decided an output outlives the call. Eight bytes a report
/// whatever x is; a seeded source gives the stream [`Randomness::fill_words`] gives, word
/// for word.
#[inline(always)]
pub(crate) fn draws<R: Randomness + ?Sized>(
    xs: &mut [u32],
    rng: &mut R,
    f: impl Fn(usize, u64) -> usize,
) -> Result<()> {
    in_blocks(xs, rng, u64::from_le_bytes, f)
}

/// Replaces each input x of `xs` by `f(x, word(bytes))`, `B` random bytes an input,
/// [`BLOCK_BYTES`] a block ([`in_blocks_with`]).
#[inline(always)]
fn in_blocks<const B: usize, W, R: Randomness + ?Sized>(
    xs: &mut [u32],
    rng: &mut R,
    word: impl Fn([u8; B]) -> W,
    f: impl Fn(usize, W) -> usize,
) -> Result<()> {
    in_blocks_with::<B, R>(xs, rng, |chunk, bytes| {
        // Indices, not iterator adapters: at the wasm build's opt-level "s" a `zip` with
        // `chunks_exact` stayed a call per word with a bounds check per byte (half of
        // `perturbMany`); here each word is one B-byte slice whose length the compiler sees.
        for i in 0..chunk.len() {
            let r = word(bytes[B * i..B * i + B].try_into().unwrap_or([0; B]));
            chunk[i] = f(chunk[i] as usize, r) as u32;
        }
    })
}

/// Runs `block_draw(inputs, bytes)` on `xs` a block at a time, with `B` random bytes an input
/// (`bytes.len() == B * inputs.len()`), [`BLOCK_BYTES`] a block, fetched straight from the
/// source into one buffer (on the stack for a short batch) that is zeroed when the batch
/// ends. `block` replaces each input by its draw from its own `B` bytes: a whole block at
/// once, so that a kernel can draw several inputs an instruction (`keep_or_uniform`'s 32-bit
/// draw in wasm SIMD).
#[inline(always)]
pub(crate) fn in_blocks_with<const B: usize, R: Randomness + ?Sized>(
    xs: &mut [u32],
    rng: &mut R,
    block_draw: impl Fn(&mut [u32], &[u8]),
) -> Result<()> {
    let inputs = BLOCK_BYTES / B;
    let len = B * inputs.min(xs.len());
    let mut stack = [0u8; STACK_BYTES];
    let mut heap;
    let block = if len <= STACK_BYTES {
        &mut stack[..len]
    } else {
        heap = alloc::vec![0u8; len];
        &mut heap[..]
    };
    let mut drawn = Ok(());
    for chunk in xs.chunks_mut(inputs) {
        let bytes = &mut block[..B * chunk.len()];
        drawn = rng.fill_block(bytes);
        if drawn.is_err() {
            break;
        }
        block_draw(chunk, bytes);
    }
    block.fill(0);
    // The zeroing is the point: it must not be dropped as a store to memory about to be freed.
    core::hint::black_box(block);
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
