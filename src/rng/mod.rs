//! Randomness. The core never chooses an RNG: mechanisms take `&mut impl`
//! [`Randomness`], which every `RngCore + CryptoRng` is (its draws cannot fail) and the
//! OS pool is (its draws can: the OS may refuse, which is the `rng` error, never a
//! panic). One `perturb` serves both. This module provides the two an application
//! should use:
//!
//! * [`OsPoolRng`] (feature `std`, or the wasm build): bytes straight from the operating
//!   system / browser CSPRNG (`getrandom`; `crypto.getRandomValues` in browsers and
//!   Node), read in blocks into a pool so that a batch of a million draws costs a few
//!   hundred system calls, not a million. Nothing is derived or expanded: every byte
//!   used is a byte the OS produced.
//! * [`DeterministicRngForTesting`]: ChaCha12 from a 64-bit seed — **for tests and
//!   simulations only**; its name says so on purpose.

use rand::{CryptoRng, RngCore};

use crate::error::Result;

/// A cryptographic generator behind a trait object (the samplers' draws take one).
pub trait CryptoRngCore: RngCore + CryptoRng {}
impl<R: RngCore + CryptoRng + ?Sized> CryptoRngCore for R {}

/// The randomness a mechanism draws: uniform 64-bit words from a CSPRNG, whose source may
/// fail (the OS) or not (a generator in memory).
pub trait Randomness {
    /// One uniform 64-bit word.
    ///
    /// # Errors
    /// `rng` if the source fails.
    fn next_word(&mut self) -> Result<u64>;
    /// Fills `out` with uniform 64-bit words.
    ///
    /// # Errors
    /// `rng` if the source fails.
    fn fill_words(&mut self, out: &mut [u64]) -> Result<()>;
    /// Fills `out` with uniform bytes straight from the source (a batch's words, read
    /// little-endian eight at a time: the stream [`Self::fill_words`] gives). The OS pool
    /// hands a large block to the OS whole, without copying it through the pool, and
    /// copies a small one from the pool (one OS call per batch cost more than its draws).
    ///
    /// # Errors
    /// `rng` if the source fails.
    fn fill_block(&mut self, out: &mut [u8]) -> Result<()>;
    /// Runs `draw`, which takes a variable number of words (a rejection sampler), on an
    /// infallible view of this source, with at least `reserve` bytes made available
    /// first (so that the OS is asked, fallibly, before the draw starts).
    ///
    /// # Errors
    /// `rng` if the source fails while reserving.
    fn draw<T>(&mut self, reserve: usize, draw: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> Result<T>;
}

impl<R: RngCore + CryptoRng> Randomness for R {
    fn next_word(&mut self) -> Result<u64> {
        Ok(self.next_u64())
    }
    fn fill_words(&mut self, out: &mut [u64]) -> Result<()> {
        // One `fill_bytes` per 256 words (the stream a seeded test has always seen).
        let mut bytes = [0u8; 256 * 8];
        for chunk in out.chunks_mut(256) {
            let b = &mut bytes[..chunk.len() * 8];
            self.fill_bytes(b);
            for (w, c) in chunk.iter_mut().zip(b.chunks_exact(8)) {
                *w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            }
        }
        Ok(())
    }
    fn fill_block(&mut self, out: &mut [u8]) -> Result<()> {
        self.fill_bytes(out);
        Ok(())
    }
    fn draw<T>(&mut self, _reserve: usize, draw: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> Result<T> {
        Ok(draw(self))
    }
}
mod chacha;

/// A seeded ChaCha12 generator, for reproducible tests and simulations (the stream of
/// `rand_chacha`'s `ChaCha12Rng`; see `rng/chacha.rs` for why it is written here).
///
/// Never use it to perturb a real user's value: anyone who knows the seed knows the
/// noise. It implements `CryptoRng` only so that tests can drive the same code paths
/// as production.
#[derive(Debug, Clone)]
pub struct DeterministicRngForTesting(chacha::ChaCha12);

impl DeterministicRngForTesting {
    /// A generator fully determined by `seed`.
    pub fn seed_from_u64(seed: u64) -> Self {
        Self(rand::SeedableRng::seed_from_u64(seed))
    }
}

impl RngCore for DeterministicRngForTesting {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst)
    }
}
impl CryptoRng for DeterministicRngForTesting {}

#[cfg(feature = "std")]
pub use os::{os_rng, OsPoolRng};

#[cfg(feature = "std")]
mod os {
    use super::*;
    use crate::error::{Error, Result};

    /// Pool size: 64 KiB, the most `crypto.getRandomValues` accepts per call (fewer calls
    /// across the boundary: faster than 16 KiB in Chromium in every paired run).
    const POOL: usize = 64 * 1024;

    /// A block this long or longer goes to the OS whole ([`Randomness::fill_block`]); a
    /// shorter one is copied from the pool. An OS call has a fixed cost (in Node, a
    /// `getRandomValues` of 8 bytes took as long as one of 16 KiB: about 10 µs), so a small
    /// batch that called it for its few bytes cost ten times its draws; from half a pool on,
    /// a direct fill costs no more than the pool's share of a refill plus the copy. The
    /// choice depends only on the block's length, which is public (the batch length).
    const DIRECT_MIN: usize = POOL / 2;

    /// The OS/browser CSPRNG, read through a pool (see the module docs).
    ///
    /// Used bytes are overwritten with zeros before they are handed out again, so the
    /// pool never returns a byte twice. It is a [`Randomness`], not an `RngCore`: every
    /// draw is fallible, and a failing OS source is the `rng` error. Only inside
    /// [`Randomness::draw`], after the pool was refilled fallibly, does a rejection
    /// sampler see an infallible view (which would panic only if a single draw needed
    /// more than the reserve and the OS then failed).
    #[derive(Debug)]
    pub struct OsPoolRng {
        buf: alloc::boxed::Box<[u8; POOL]>,
        pos: usize,
    }

    /// A fresh pool on the OS / browser CSPRNG.
    pub fn os_rng() -> OsPoolRng {
        OsPoolRng { buf: alloc::boxed::Box::new([0u8; POOL]), pos: POOL }
    }

    /// `getrandom`: in wasm, `crypto.getRandomValues` on a view of the module's memory, at
    /// most 64 KiB a call (no copy through a JS array).
    fn os_fill(dst: &mut [u8]) -> Result<()> {
        getrandom::fill(dst).map_err(|e| Error::Rng { message: alloc::format!("{e}") })
    }

    impl OsPoolRng {
        fn refill(&mut self) -> Result<()> {
            os_fill(&mut self.buf[..])?;
            self.pos = 0;
            Ok(())
        }

        /// Fallible fill: the API privlift's runtime uses.
        pub fn try_fill(&mut self, dst: &mut [u8]) -> Result<()> {
            let mut off = 0;
            while off < dst.len() {
                if self.pos == POOL {
                    self.refill()?;
                }
                let n = (POOL - self.pos).min(dst.len() - off);
                dst[off..off + n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
                self.buf[self.pos..self.pos + n].fill(0);
                self.pos += n;
                off += n;
            }
            Ok(())
        }

        /// Fallible: fills `out` with uniform 64-bit words. Copies every whole word the
        /// pool holds at once and zeroes that span once (bytes left over at the end of the
        /// pool, fewer than 8, are zeroed and skipped).
        pub fn try_fill_words(&mut self, out: &mut [u64]) -> Result<()> {
            let mut done = 0;
            while done < out.len() {
                let avail = (POOL - self.pos) / 8;
                if avail == 0 {
                    self.buf[self.pos..].fill(0);
                    self.refill()?;
                    continue;
                }
                let n = avail.min(out.len() - done);
                let span = &mut self.buf[self.pos..self.pos + 8 * n];
                for (w, c) in out[done..done + n].iter_mut().zip(span.chunks_exact(8)) {
                    *w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                }
                span.fill(0);
                self.pos += 8 * n;
                done += n;
            }
            Ok(())
        }

        /// Fallible: one uniform 64-bit word.
        pub fn try_next_u64(&mut self) -> Result<u64> {
            let mut w = [0u64; 1];
            self.try_fill_words(&mut w)?;
            Ok(w[0])
        }

        /// Makes sure at least `bytes` are available without another OS call failing later
        /// in an infallible method; returns the OS error otherwise.
        pub fn ensure(&mut self, bytes: usize) -> Result<()> {
            if POOL - self.pos < bytes.min(POOL) {
                self.refill()?;
            }
            Ok(())
        }
    }

    impl Randomness for OsPoolRng {
        fn next_word(&mut self) -> Result<u64> {
            self.try_next_u64()
        }
        fn fill_words(&mut self, out: &mut [u64]) -> Result<()> {
            self.try_fill_words(out)
        }
        fn fill_block(&mut self, out: &mut [u8]) -> Result<()> {
            if out.len() >= DIRECT_MIN {
                os_fill(out)
            } else {
                self.try_fill(out)
            }
        }
        fn draw<T>(&mut self, reserve: usize, draw: impl FnOnce(&mut dyn CryptoRngCore) -> T) -> Result<T> {
            self.ensure(reserve)?;
            Ok(draw(&mut Reserved(self)))
        }
    }

    /// The infallible view of a pool that [`OsPoolRng::ensure`] just filled.
    struct Reserved<'a>(&'a mut OsPoolRng);

    impl RngCore for Reserved<'_> {
        fn next_u32(&mut self) -> u32 {
            let mut b = [0u8; 4];
            self.fill_bytes(&mut b);
            u32::from_le_bytes(b)
        }
        fn next_u64(&mut self) -> u64 {
            let mut b = [0u8; 8];
            self.fill_bytes(&mut b);
            u64::from_le_bytes(b)
        }
        fn fill_bytes(&mut self, dst: &mut [u8]) {
            if let Err(e) = self.0.try_fill(dst) {
                panic!("{e}");
            }
        }
    }
    impl CryptoRng for Reserved<'_> {}

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A small block is drawn from the pool (no OS call of its own: the pool's bytes are
        /// used and zeroed), a large one straight from the OS, leaving the pool as it was.
        #[test]
        fn os_pool_serves_small_blocks_and_passes_large_ones_through() {
            let mut r = os_rng();
            let mut small = [0u8; 8];
            r.fill_block(&mut small).unwrap();
            assert_eq!(r.pos, 8, "a one-word block must come from the pool");
            assert!(r.buf[..8].iter().all(|&b| b == 0), "the pool's used bytes must be zeroed");
            assert_ne!(small, [0; 8]);
            let mut large = vec![0u8; DIRECT_MIN];
            r.fill_block(&mut large).unwrap();
            assert_eq!(r.pos, 8, "a large block must not go through the pool");
            assert!(large.iter().any(|&b| b != 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_rng_is_reproducible() {
        let mut a = DeterministicRngForTesting::seed_from_u64(1);
        let mut b = DeterministicRngForTesting::seed_from_u64(1);
        let mut c = DeterministicRngForTesting::seed_from_u64(2);
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert_eq!(x, y);
        assert_ne!(x, z);
    }

    #[cfg(feature = "std")]
    #[test]
    fn os_pool_returns_fresh_bytes_across_refills() {
        let mut r = os_rng();
        let mut seen = std::collections::HashSet::new();
        // 3 pools' worth of words: crossing refills must not repeat words.
        for _ in 0..(3 * 64 * 1024 / 8) {
            assert!(seen.insert(r.next_word().unwrap()), "a 64-bit word repeated");
        }
        // Bulk reads after an unaligned byte read, across refills, never repeat either.
        let mut b = [0u8; 3];
        r.try_fill(&mut b).unwrap();
        let mut words = vec![0u64; 20_000];
        r.try_fill_words(&mut words).unwrap();
        for w in words {
            assert!(seen.insert(w), "a 64-bit word repeated in bulk");
        }
    }
}
