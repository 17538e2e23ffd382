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
            let mut merged = Vec::with_capacity(last.len() + run.len());
            merge(&last, &run, &mut merged, &string_of);
            run = merged;
        }
        self.runs.push(run);
        self.len += 1;
        true
    }
}

/// The index of the first string (in list order) equal to an earlier one, in O(n log n)
/// comparisons whatever the strings, so a hostile list cannot make it quadratic: the
/// indices are sorted by their strings, stably ([`sorted_stably`]); in each run of equal
/// strings every index after the first is a repeat, and the least of those is the first
/// repeat. With all the strings read, this one sort is cheaper than the [`KeySet`]'s
/// O(n log² n) searches (three quarters of the parse of a 4096-label `krr` document, when
/// it refused its labels).
pub(crate) fn first_repeat(strings: &[&str]) -> Option<usize> {
    let order = sorted_stably(strings);
    order.windows(2).filter(|w| strings[w[0] as usize] == strings[w[1] as usize]).map(|w| w[1] as usize).min()
}

/// The indices of `strings` sorted by their strings, stably: a natural merge sort. The
/// runs already in order are found in one pass, then merged two by two until one is left:
/// O(n log r) comparisons for r runs (r ≤ n), and O(n) for a list in order. Labels often
/// come nearly in order (v0…v4095 is four runs in byte order), which a plain merge sort or
/// a heap sort would not see (a heap sort doubled the parse of that document). It is the
/// standard library's strategy in a few hundred bytes of wasm: its stable sort is about
/// 7 KB, compiled at a page's first parse (V8 compiles a wasm function at its first call:
/// `benches/wasm/cold.mjs`).
fn sorted_stably(strings: &[&str]) -> Vec<u32> {
    let n = strings.len();
    let key_of = |i: usize| strings[i];
    // bounds[k]..bounds[k + 1] is the k-th run.
    let (mut bounds, mut from, mut to) = (Vec::new(), Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        if i == 0 || strings[i - 1] > strings[i] {
            bounds.push(i);
        }
        from.push(i as u32);
    }
    bounds.push(n);
    while bounds.len() > 2 {
        // Runs 2k and 2k + 1 become run k; an odd last run is copied as it is.
        let runs = bounds.len() - 1;
        let mut merged = Vec::with_capacity(runs / 2 + 2);
        for k in (0..runs).step_by(2) {
            let (lo, mid, hi) = (bounds[k], bounds[k + 1], bounds[(k + 2).min(runs)]);
            merge(&from[lo..mid], &from[mid..hi], &mut to, &key_of);
            merged.push(lo);
        }
        merged.push(n);
        bounds = merged;
        core::mem::swap(&mut from, &mut to);
        to.clear();
    }
    from
}

/// Appends to `out` the merge of two runs of indices sorted by their strings, stably (on
/// equal strings `a`'s first).
fn merge<'a>(a: &[u32], b: &[u32], out: &mut Vec<u32>, key_of: &dyn Fn(usize) -> &'a str) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if key_of(a[i] as usize).cmp(key_of(b[j] as usize)) != Ordering::Greater {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
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
        // Every length up to 80 and repeats anywhere.
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

    /// The natural merge sort orders as the standard library's stable sort does: in order,
    /// reversed, in runs, with ties, and scrambled, at every length up to 70.
    #[test]
    fn sorted_stably_is_the_standard_stable_sort() {
        for n in 0..70usize {
            let lists: [Vec<String>; 5] = [
                (0..n).map(|i| format!("{i:03}")).collect(),
                (0..n).rev().map(|i| format!("{i:03}")).collect(),
                (0..n).map(|i| format!("v{i}")).collect(),
                (0..n).map(|i| format!("{}", i % 3)).collect(),
                (0..n).map(|i| format!("{:x}", (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) % 17)).collect(),
            ];
            for list in lists {
                let strings: Vec<&str> = list.iter().map(String::as_str).collect();
                let mut want: Vec<u32> = (0..n as u32).collect();
                want.sort_by_key(|&i| strings[i as usize]);
                assert_eq!(sorted_stably(&strings), want, "{strings:?}");
            }
        }
    }
}
