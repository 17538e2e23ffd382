//! A random source that counts the 64-bit words it hands out, for tests that check the
//! randomness a sampler consumes does not depend on the secret.

/// Wraps `R` and counts words (a `fill_bytes` of n bytes counts ⌈n/8⌉).
pub struct CountingRng<R>(pub R, pub usize);

impl<R: rand::RngCore> rand::RngCore for CountingRng<R> {
    fn next_u32(&mut self) -> u32 {
        self.1 += 1;
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.1 += 1;
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.1 += dst.len().div_ceil(8);
        self.0.fill_bytes(dst)
    }
}

impl<R: rand::RngCore + rand::CryptoRng> rand::CryptoRng for CountingRng<R> {}
