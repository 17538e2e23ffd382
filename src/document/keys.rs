//! A set of strings given by index, for refusing a repeat in O(1) per string: the labels
//! of an alphabet, the keys of a JSON object as it is read. Open addressing over FNV-1a
//! hashes with linear probing, grown by doubling: a sort or a tree set costs kilobytes of
//! the client module and O(k log k) string comparisons, and a linear scan per key makes a
//! hostile object of many keys quadratic.

use alloc::vec::Vec;

/// Marks an empty slot.
const EMPTY: u32 = u32::MAX;

/// The indices of the strings added so far, at their hashes' slots (the strings stay with
/// the caller: [`KeySet::insert`] is given a way to look them up).
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    slots: Vec<u32>,
    len: usize,
}

fn hash(s: &str) -> usize {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)) as usize
}

impl KeySet {
    /// Adds `key`, the string of index `len()` (the number added so far), unless an equal
    /// one was added: `key_of(i)` is the string of index `i < len()`. Whether it was new.
    pub(crate) fn insert<'a>(&mut self, key: &str, key_of: &dyn Fn(usize) -> &'a str) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            let size = (4 * (self.len + 1)).next_power_of_two();
            self.slots = alloc::vec![EMPTY; size];
            for i in 0..self.len {
                let slot = self.free_slot(key_of(i), key_of).unwrap_or(0);
                self.slots[slot] = i as u32;
            }
        }
        match self.free_slot(key, key_of) {
            Some(slot) => {
                self.slots[slot] = self.len as u32;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The empty slot where `key` goes, or `None` when an equal string is in the set.
    fn free_slot<'a>(&self, key: &str, key_of: &dyn Fn(usize) -> &'a str) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut slot = hash(key) & mask;
        loop {
            match self.slots[slot] {
                EMPTY => return Some(slot),
                i if key_of(i as usize) == key => return None,
                _ => slot = (slot + 1) & mask,
            }
        }
    }
}
