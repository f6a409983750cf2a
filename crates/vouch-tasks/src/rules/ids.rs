//! Task ids as the rules across tasks compare them, and resolving references to them. UUIDs
//! compare as 128-bit numbers, so `ABC…` and `abc…` name the same task (decision T4 reads
//! UUIDs case-insensitively); other ids compare as text.

use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// A task id: a UUID by its bits, anything else by its text. The bits are taken while the
/// task's text is in cache, so resolving a million references never touches the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IdKey<'a> {
    /// A UUID-shaped id, high and low halves.
    Uuid(u64, u64),
    /// Any other id (rare: such ids are errors already).
    Text(Box<Cow<'a, str>>),
}

impl<'a> IdKey<'a> {
    /// Returns the key of the id `text`.
    #[cfg(test)]
    pub(crate) fn new(text: Cow<'a, str>) -> IdKey<'a> {
        match crate::uuid::parse(&text) {
            Some((bits, _)) => IdKey::from_bits(bits),
            None => IdKey::Text(Box::new(text)),
        }
    }

    /// Returns the key of a UUID's bits.
    #[expect(clippy::cast_possible_truncation, reason = "splitting into halves")]
    pub(crate) fn from_bits(bits: u128) -> IdKey<'a> {
        IdKey::Uuid((bits >> 64) as u64, bits as u64)
    }

    /// Returns the id as text (a UUID in lowercase).
    pub(crate) fn text(&self) -> Cow<'_, str> {
        match self {
            IdKey::Uuid(hi, lo) => Cow::Owned(format!(
                "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                hi >> 32,
                (hi >> 16) & 0xffff,
                hi & 0xffff,
                lo >> 48,
                lo & 0xffff_ffff_ffff
            )),
            IdKey::Text(t) => Cow::Borrowed(t.as_ref()),
        }
    }
}

/// No task.
pub(crate) const NONE: u32 = u32::MAX;

/// What [`resolve`] found.
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    /// For each reference, the task it names, or [`NONE`].
    pub(crate) targets: Vec<u32>,
    /// Tasks whose id an earlier task has: (task, the first task with the id).
    pub(crate) duplicates: Vec<(usize, usize)>,
}

/// An open-addressing table from UUID to task: 4 bytes a slot, the keys kept beside it in
/// task order; read-only once built, so lookups run on every core.
struct UuidTable {
    slots: Vec<u32>,
    keys: Vec<(u64, u64)>,
    mask: usize,
}

impl UuidTable {
    fn slot_of(&self, hi: u64, lo: u64) -> usize {
        // Version 4 ids are random: folding and multiplying spreads them well enough.
        let h = (hi ^ lo.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        usize::try_from(h >> 20).unwrap_or(0) & self.mask
    }

    /// Inserts task `index`; returns the task that had the key first.
    fn insert(&mut self, hi: u64, lo: u64, index: u32) -> Option<usize> {
        let mut s = self.slot_of(hi, lo);
        loop {
            match self.slots[s] {
                NONE => {
                    self.slots[s] = index;
                    return None;
                }
                t if self.keys[t as usize] == (hi, lo) => return Some(t as usize),
                _ => s = (s + 1) & self.mask,
            }
        }
    }

    fn get(&self, hi: u64, lo: u64) -> u32 {
        let mut s = self.slot_of(hi, lo);
        loop {
            match self.slots[s] {
                NONE => return NONE,
                t if self.keys[t as usize] == (hi, lo) => return t,
                _ => s = (s + 1) & self.mask,
            }
        }
    }
}

/// Resolves `refs` against the tasks' `ids`: UUIDs through a compact table (looked up in
/// parallel for large documents), other ids through a plain map.
pub(crate) fn resolve(ids: &[Option<&IdKey<'_>>], refs: &[&IdKey<'_>]) -> Resolved {
    let mut duplicates = Vec::new();
    let mut text_ids: HashMap<&str, u32> = HashMap::new();
    let size = (ids.len() * 2).max(16).next_power_of_two();
    let mut table = UuidTable {
        slots: vec![NONE; size],
        keys: vec![(0, 0); ids.len()],
        mask: size - 1,
    };
    for (i, id) in ids.iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(NONE);
        match id {
            None => {}
            Some(IdKey::Uuid(hi, lo)) => {
                table.keys[i] = (*hi, *lo);
                if let Some(first) = table.insert(*hi, *lo, index) {
                    duplicates.push((i, first));
                }
            }
            Some(IdKey::Text(text)) => match text_ids.entry(text.as_ref().as_ref()) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    duplicates.push((i, *e.get() as usize));
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(index);
                }
            },
        }
    }
    let lookup = |id: &&IdKey<'_>| match id {
        IdKey::Uuid(hi, lo) => table.get(*hi, *lo),
        IdKey::Text(text) => text_ids
            .get(text.as_ref().as_ref())
            .copied()
            .unwrap_or(NONE),
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(8));
    let targets = if refs.len() < 65_536 || threads < 2 {
        refs.iter().map(lookup).collect()
    } else {
        refs.par_iter().map(lookup).collect()
    };
    duplicates.sort_unstable();
    Resolved {
        targets,
        duplicates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> IdKey<'_> {
        IdKey::new(Cow::Borrowed(s))
    }

    #[test]
    fn uuids_match_in_either_case_and_other_ids_exactly() {
        let ids = [
            Some(key("3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c")),
            Some(key("task-a")),
            Some(key("3F2B8C1E-9D4A-4F6B-8A2C-1E5D7F9B0A3C")),
            None,
            Some(key("task-a")),
        ];
        let ids: Vec<Option<&IdKey<'_>>> = ids.iter().map(Option::as_ref).collect();
        let refs = [
            key("3F2B8C1E-9d4a-4f6b-8a2c-1e5d7f9b0a3c"),
            key("Task-A"),
            key("task-a"),
            key("nope"),
        ];
        let r = resolve(&ids, &refs.iter().collect::<Vec<_>>());
        assert_eq!(r.targets, [0, NONE, 1, NONE]);
        assert_eq!(r.duplicates, [(2, 0), (4, 1)]);
        assert_eq!(refs[0].text(), "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c");
    }

    proptest::proptest! {
        #[test]
        fn resolution_agrees_with_a_linear_search(
            keys in proptest::collection::vec(0u8..40, 0..300),
            wanted in proptest::collection::vec(0u8..50, 0..100),
        ) {
            let name = |k: u8| format!("{:08x}-0000-4000-8000-{:012x}", u32::from(k).wrapping_mul(0x9e37_79b9), k);
            let ids: Vec<String> = keys.iter().map(|&k| name(k)).collect();
            let id_keys: Vec<IdKey<'_>> = ids.iter().map(|s| key(s)).collect();
            let id_refs: Vec<Option<&IdKey<'_>>> = id_keys.iter().map(Some).collect();
            let wanted: Vec<String> = wanted.iter().map(|&k| name(k)).collect();
            let wanted_keys: Vec<IdKey<'_>> = wanted.iter().map(|s| key(s)).collect();
            let r = resolve(&id_refs, &wanted_keys.iter().collect::<Vec<_>>());
            for (w, got) in wanted.iter().zip(&r.targets) {
                let expected = ids.iter().position(|i| i == w).map_or(NONE, |p| u32::try_from(p).unwrap_or(NONE));
                proptest::prop_assert_eq!(*got, expected);
            }
            let dups = ids.iter().enumerate().filter(|(i, id)| ids[..*i].contains(id)).count();
            proptest::prop_assert_eq!(r.duplicates.len(), dups);
        }
    }
}
