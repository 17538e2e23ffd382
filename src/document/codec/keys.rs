//! Repeated strings refused: as they arrive ([`KeySet`], the keys of a JSON object as it
//! is read), or once all are read ([`first_repeat`], a document's labels and values).
//!
//! # Why sorted runs, not a hash table
//! The strings come from the curator's document, which may be hostile. A table with a
//! fixed hash (FNV-1a, linear probing: what was here before) can be fed keys that all land
//! in one slot's chain; FNV's low bits depend only on the low bits of its state, so such
//! keys are cheap to find, and a million of them make the check quadratic (a test below
//! counts it). A keyed hash needs randomness the `no_std` core does not have, and a tree
//! set costs kilobytes of the client module. So the set is a binary counter of sorted runs
//! of indices, of distinct power-of-two lengths: a lookup bisects each run, an insert
//! merges the runs of equal length. Whatever the strings, n inserts cost O(n log² n)
//! comparisons (at most log₂ n + 1 runs, each bisected; each index is merged at most
//! log₂ n times), with one small vector per run.

use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// The indices of the strings added so far, in sorted runs (see the module docs); the
/// strings stay with the caller: [`KeySet::insert`] is given a way to look them up.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    /// Runs sorted by their strings, longest first; lengths are distinct powers of two.
    runs: Vec<Vec<u32>>,
    len: usize,
}

impl KeySet {
    /// Adds `key`, the string of index `len()` (the number added so far), unless an equal
    /// one was added: `key_of(i)` is the string of index `i < len()`. Whether it was new.
    pub(crate) fn insert<'a>(&mut self, key: &str, key_of: &dyn Fn(usize) -> &'a str) -> bool {
        let seen = |run: &Vec<u32>| run.binary_search_by(|&i| key_of(i as usize).cmp(key)).is_ok();
        if self.runs.iter().any(seen) {
            return false;
        }
        // `key` is the string of the new index: the caller keeps it only once it is new.
        let len = self.len;
        let string_of = |i: usize| if i == len { key } else { key_of(i) };
        let mut run = vec![len as u32];
        while self.runs.last().is_some_and(|last| last.len() <= run.len()) {
            let last = self.runs.pop().unwrap_or_default();
            run = merge(&last, &run, &string_of);
        }
        self.runs.push(run);
        self.len += 1;
        true
    }
}

/// The index of the first string (in list order) equal to an earlier one, in O(n log n)
/// comparisons whatever the strings, so a hostile list cannot make it quadratic: the
/// indices are sorted by their strings, stably; in each run of equal strings every index
/// after the first is a repeat, and the least of those is the first repeat. With all the
/// strings read, this one sort is cheaper than the [`KeySet`]'s O(n log² n) searches (three
/// quarters of the parse of a 4096-label `krr` document, when it refused its labels), and
/// the standard library's sort, which finds the runs already in order, cheaper than a
/// plain merge sort (or a heap sort: twice the time of that parse).
///
/// A list of at most [`PAIRWISE_MAX`] strings is compared pair by pair instead (at most
/// 496 comparisons, fewer than the sort's set-up): a page's first parse of a small
/// document then does not compile the sort's nine functions (V8 compiles a wasm function
/// at its first call; `benches/wasm/cold.mjs`).
pub(crate) fn first_repeat(strings: &[&str]) -> Option<usize> {
    if strings.len() <= PAIRWISE_MAX {
        return (1..strings.len()).find(|&j| strings[..j].contains(&strings[j]));
    }
    let mut order: Vec<usize> = (0..strings.len()).collect();
    order.sort_by_key(|&i| strings[i]);
    order.windows(2).filter(|w| strings[w[0]] == strings[w[1]]).map(|w| w[1]).min()
}

/// The longest list [`first_repeat`] compares pair by pair.
const PAIRWISE_MAX: usize = 32;

/// The sorted merge of two sorted runs of indices of distinct strings.
fn merge<'a>(a: &[u32], b: &[u32], key_of: &dyn Fn(usize) -> &'a str) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if key_of(a[i] as usize).cmp(key_of(b[j] as usize)) == Ordering::Less {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use core::cell::Cell;

    /// Inserts `keys` in order, as the readers do (`key_of` reaches only the strings added
    /// before); (the index of the first repeat, the string comparisons made).
    fn insert_all(keys: &[String]) -> (Option<usize>, usize) {
        let (mut set, calls, added) = (KeySet::default(), Cell::new(0usize), Cell::new(0usize));
        let key_of = |i: usize| {
            assert!(i < added.get(), "index {i} looked up before it was added");
            calls.set(calls.get() + 1);
            keys[i].as_str()
        };
        let repeat = keys.iter().position(|k| {
            let new = set.insert(k, &key_of);
            added.set(added.get() + usize::from(new));
            !new
        });
        (repeat, calls.get())
    }

    #[test]
    fn the_first_repeat_is_found_and_only_it() {
        let mut keys: Vec<String> = (0..1000).map(|i| format!("k{}", (i * 7919) % 1000)).collect();
        assert_eq!(insert_all(&keys).0, None);
        keys.push("k0".into());
        keys.push("k0".into());
        assert_eq!(insert_all(&keys).0, Some(1000));
        let tiny: Vec<String> = ["", "a", "", "b"].map(String::from).to_vec();
        assert_eq!(insert_all(&tiny).0, Some(2));
    }

    /// 2048 keys whose FNV-1a hashes agree in their low 13 bits (the slot of each in the
    /// old table, a quarter full): the old check made ≈ 2.1 M comparisons on them, one per
    /// key already in the chain. The sorted runs stay within their O(n log² n) bound here,
    /// as on keys in order, in reverse and at random.
    #[test]
    fn colliding_keys_cost_n_log_squared_n() {
        let fnv =
            |s: &[u8]| s.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        let (n, mask) = (2048usize, 0x1fffu64);
        let mut colliding = Vec::with_capacity(n);
        let target = fnv(b"k") & mask;
        let mut key = *b"k00000000";
        for candidate in 0u32.. {
            for (d, byte) in key[1..].iter_mut().enumerate() {
                *byte = b"0123456789abcdef"[(candidate >> (28 - 4 * d) & 0xf) as usize];
            }
            if fnv(&key) & mask == target {
                colliding.push(String::from_utf8(key.to_vec()).unwrap());
                if colliding.len() == n {
                    break;
                }
            }
        }
        let bound = {
            let log = (usize::BITS - n.leading_zeros()) as usize;
            2 * n * log * log
        };
        let in_order: Vec<String> = (0..n).map(|i| format!("{i:08}")).collect();
        let reverse: Vec<String> = in_order.iter().rev().cloned().collect();
        let random: Vec<String> =
            (0..n as u64).map(|i| format!("{:x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
        for (what, keys) in
            [("colliding", &colliding), ("in order", &in_order), ("reverse", &reverse), ("random", &random)]
        {
            let (repeat, calls) = insert_all(keys);
            assert_eq!(repeat, None, "{what}");
            assert!(calls <= bound, "{what}: {calls} comparisons for {n} keys (bound {bound})");
        }
    }

    #[test]
    fn first_repeat_agrees_with_the_quadratic_definition() {
        // Every length up to 80 (pair by pair up to PAIRWISE_MAX, sorted beyond) and
        // repeats anywhere.
        for n in 0..80usize {
            for modulus in [1, 3, 7, 64] {
                let strings: Vec<String> = (0..n).map(|i| format!("v{}", (i * 37 + n) % modulus)).collect();
                let strings: Vec<&str> = strings.iter().map(String::as_str).collect();
                let want = (0..n).find(|&i| strings[..i].contains(&strings[i]));
                assert_eq!(first_repeat(&strings), want, "{strings:?}");
            }
        }
        assert_eq!(first_repeat(&["x", "b", "a", "b", "x"]), Some(3));
    }
}
