//! Looking tasks up by id. UUIDs are compared as 128-bit numbers, so `ABC…` and `abc…` name the
//! same task (decision T4 reads UUIDs case-insensitively); other ids compare as text.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for UUIDs: their bits are already random (v4), so folding them is enough.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct UuidHasher(u64);

impl Hasher for UuidHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached for `u128` keys; a plain multiplicative mix keeps it correct anyway.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn write_u128(&mut self, n: u128) {
        #[expect(clippy::cast_possible_truncation, reason = "folding the halves")]
        let folded = (n as u64) ^ ((n >> 64) as u64);
        self.0 = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Returns the 128-bit value of a UUID written as `8-4-4-4-12` hex digits, in either case.
pub(crate) fn uuid_bits(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let mut n: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            continue;
        }
        let d = (c as char).to_digit(16)?;
        n = (n << 4) | u128::from(d);
    }
    Some(n)
}

/// Task indexes by id.
#[derive(Debug, Default)]
pub(crate) struct IdMap<'a> {
    uuids: HashMap<u128, usize, BuildHasherDefault<UuidHasher>>,
    others: HashMap<&'a str, usize>,
}

impl<'a> IdMap<'a> {
    /// Returns an empty map sized for `n` ids.
    pub(crate) fn with_capacity(n: usize) -> IdMap<'a> {
        IdMap {
            uuids: HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default()),
            others: HashMap::new(),
        }
    }

    /// Records `id` for task `index`; returns the task that had it first, if any.
    pub(crate) fn insert(&mut self, id: &'a str, index: usize) -> Option<usize> {
        match uuid_bits(id) {
            Some(bits) => match self.uuids.entry(bits) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(index);
                    None
                }
            },
            None => match self.others.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(index);
                    None
                }
            },
        }
    }

    /// Returns the task with `id`.
    pub(crate) fn get(&self, id: &str) -> Option<usize> {
        match uuid_bits(id) {
            Some(bits) => self.uuids.get(&bits).copied(),
            None => self.others.get(id).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_match_in_either_case_and_other_ids_exactly() {
        let mut m = IdMap::with_capacity(4);
        assert_eq!(m.insert("3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c", 0), None);
        assert_eq!(m.insert("task-a", 1), None);
        assert_eq!(m.insert("3F2B8C1E-9D4A-4F6B-8A2C-1E5D7F9B0A3C", 2), Some(0));
        assert_eq!(m.get("3F2B8C1E-9d4a-4f6b-8a2c-1e5d7f9b0a3c"), Some(0));
        assert_eq!(m.get("Task-A"), None);
        assert_eq!(m.get("task-a"), Some(1));
    }
}
