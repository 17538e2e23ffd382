//! An open-addressing hash map from fixed-length keys of `u64` words to `u32` values,
//! for the visited-basis and vertex-support sets of the vertex search
//! ([`super::vertex`]). no_std + alloc has no `HashMap`, and a `BTreeSet<Vec<u64>>`
//! costs an allocation per key and a pointer chase per comparison.

use alloc::vec;
use alloc::vec::Vec;

const EMPTY: u32 = u32::MAX;

/// Keys of `words` words each, stored flat; linear probing; grows at half load.
#[derive(Debug, Clone)]
pub(crate) struct KeyMap {
    words: usize,
    keys: Vec<u64>,
    vals: Vec<u32>,
    len: usize,
}

fn hash(key: &[u64]) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    for &w in key {
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
    }
    h ^ (h >> 32)
}

impl KeyMap {
    pub fn new(words: usize) -> Self {
        KeyMap { words, keys: vec![0; 64 * words], vals: vec![EMPTY; 64], len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    fn slot(&self, key: &[u64]) -> (usize, bool) {
        let mask = self.vals.len() - 1;
        let mut i = hash(key) as usize & mask;
        loop {
            if self.vals[i] == EMPTY {
                return (i, false);
            }
            if self.keys[i * self.words..(i + 1) * self.words].iter().zip(key).all(|(a, b)| a == b) {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// The value of `key`, or inserts `val` and returns `None`. Values must not be
    /// `u32::MAX`.
    pub fn get_or_insert(&mut self, key: &[u64], val: u32) -> Option<u32> {
        debug_assert_eq!(key.len(), self.words);
        let (i, found) = self.slot(key);
        if found {
            return Some(self.vals[i]);
        }
        self.keys[i * self.words..(i + 1) * self.words].copy_from_slice(key);
        self.vals[i] = val;
        self.len += 1;
        if 2 * self.len > self.vals.len() {
            self.grow();
        }
        None
    }

    /// Replaces the value of a present key.
    pub fn set(&mut self, key: &[u64], val: u32) {
        let (i, found) = self.slot(key);
        if found {
            self.vals[i] = val;
        }
    }

    fn grow(&mut self) {
        let old_keys = core::mem::take(&mut self.keys);
        let old_vals = core::mem::take(&mut self.vals);
        let cap = 2 * old_vals.len();
        self.keys = vec![0; cap * self.words];
        self.vals = vec![EMPTY; cap];
        for (i, &v) in old_vals.iter().enumerate() {
            if v != EMPTY {
                let key = &old_keys[i * self.words..(i + 1) * self.words];
                let (j, _) = self.slot(key);
                self.keys[j * self.words..(j + 1) * self.words].copy_from_slice(key);
                self.vals[j] = v;
            }
        }
    }
}

/// A set of non-zero `u64` keys (0 marks an empty slot), open addressing with linear
/// probing, growing at half load: one word and one cache line per probe, for the
/// visited-basis set when a basis and its sides fit in one word.
#[derive(Debug, Clone)]
pub(crate) struct WordSet {
    keys: Vec<u64>,
    len: usize,
}

impl WordSet {
    pub fn new() -> Self {
        WordSet { keys: vec![0; 64], len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    fn slot(keys: &[u64], key: u64) -> usize {
        let mask = keys.len() - 1;
        let mut i = hash(&[key]) as usize & mask;
        while keys[i] != 0 && keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    /// Inserts `key` (non-zero); whether it was already present.
    pub fn insert_seen(&mut self, key: u64) -> bool {
        debug_assert_ne!(key, 0);
        let i = Self::slot(&self.keys, key);
        if self.keys[i] == key {
            return true;
        }
        self.keys[i] = key;
        self.len += 1;
        if 2 * self.len > self.keys.len() {
            let cap = 2 * self.keys.len();
            let old = core::mem::replace(&mut self.keys, vec![0; cap]);
            for k in old.into_iter().filter(|&k| k != 0) {
                let j = Self::slot(&self.keys, k);
                self.keys[j] = k;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_finds_and_grows() {
        let mut m = KeyMap::new(2);
        for i in 0..1000u64 {
            assert_eq!(m.get_or_insert(&[i, i * 7], i as u32), None);
        }
        for i in 0..1000u64 {
            assert_eq!(m.get_or_insert(&[i, i * 7], 0), Some(i as u32));
        }
        assert_eq!(m.get_or_insert(&[1, 8], 5), None);
        m.set(&[1, 8], 6);
        assert_eq!(m.get_or_insert(&[1, 8], 0), Some(6));
        assert_eq!(m.len(), 1001);
    }

    #[test]
    fn word_set_inserts_finds_and_grows() {
        let mut m = WordSet::new();
        for i in 1..1000u64 {
            assert!(!m.insert_seen(i * 0x1_0001));
        }
        for i in 1..1000u64 {
            assert!(m.insert_seen(i * 0x1_0001));
        }
        assert_eq!(m.len(), 999);
    }
}
