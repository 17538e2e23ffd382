//! The hash every open-domain kind names: `"hash": "xxh32"`, `"hash_version": 1`.
//!
//! **Specification (version 1).** A value is its UTF-8 bytes, with no terminator and no
//! normalisation. `h(seed, value)` is XXH32 (Yann Collet's xxHash, 32-bit variant, as
//! specified in `doc/xxhash_spec.md` of the xxHash repository) of those bytes with the
//! 32-bit `seed`; a bucket among `g` is `h(seed, value) mod g`. The golden vectors below
//! pin it; the native build, the wasm build and the npm package reproduce them bit for bit
//! (`tests/vectors/`).
//!
//! The hash carries no privacy: every open-domain channel's leakage w.r.t. the value is
//! the leakage of the randomisation applied *after* hashing, whatever function the hash
//! is (two values that collide have equal output distributions; two that do not differ
//! exactly as two inputs of the randomiser do). A curator that picks the hash can change
//! only the estimates' accuracy.

/// The name of the hash in a document's `hash` field.
pub const NAME: &str = "xxh32";
/// The version of [`NAME`]'s specification this build implements (`hash_version`).
pub const VERSION: u64 = 1;

/// XXH32 of `value` with `seed`.
#[must_use]
pub fn xxh32(seed: u32, value: &[u8]) -> u32 {
    xxhash_rust::xxh32::xxh32(value, seed)
}

/// The bucket of `value` among `g` under seed `seed`: `xxh32(seed, value) mod g`.
///
/// # Panics
/// If `g` is 0 (every caller holds a validated `g ≥ 2`).
#[must_use]
pub fn bucket(seed: u32, value: &[u8], g: u32) -> u32 {
    xxh32(seed, value) % g
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XXH32 reference values (the xxHash repository's test vectors and python-xxhash).
    #[test]
    fn golden_vectors() {
        assert_eq!(xxh32(0, b""), 0x02CC_5D05);
        assert_eq!(xxh32(0, b"a"), 0x550D_7456);
        assert_eq!(xxh32(0, b"abc"), 0x32D1_53FF);
        assert_eq!(xxh32(0, b"Nobody inspects the spammish repetition"), 0xE229_3B2F);
        assert_eq!(xxh32(1, b""), 0x0B2C_B792);
    }

    #[test]
    fn bucket_is_the_hash_mod_g() {
        for (seed, v) in [(0u32, &b"apple"[..]), (7, b"banana"), (u32::MAX, b"\xc3\xa9t\xc3\xa9")] {
            assert_eq!(bucket(seed, v, 5), xxh32(seed, v) % 5);
            assert!(bucket(seed, v, 2) < 2);
        }
    }
}
