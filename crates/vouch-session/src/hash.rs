//! A fast hasher for maps keyed by ids from logs, which need no protection against chosen
//! collisions.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Odd constants with well-spread bits (from the golden ratio and from π).
const K1: u64 = 0x9e37_79b9_7f4a_7c15;
const K2: u64 = 0x243f_6a88_85a3_08d3;

/// A hasher that takes eight bytes per multiplication (FNV takes one), with a final mix so that
/// both the low bits (a table's bucket) and the high bits (its tags) depend on every byte.
#[derive(Debug, Clone, Copy)]
pub struct FastHasher(u64);

impl Default for FastHasher {
    fn default() -> FastHasher {
        FastHasher(K2)
    }
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(K1).rotate_left(31);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 32;
        h = h.wrapping_mul(K2);
        h ^= h >> 29;
        h = h.wrapping_mul(K1);
        h ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.add(u64::from_le_bytes(w));
        }
        // The length tells "ab" from "ab\0".
        self.add(tail(words.remainder()) ^ ((bytes.len() as u64) << 56));
    }
}

/// Returns the bytes of `rest` (fewer than eight) as one word, by at most two fixed-size reads
/// that may overlap: a copy of a length known only at run time would be a call to `memcpy`,
/// dearer than the hashing itself for the short ids and names of a log.
fn tail(rest: &[u8]) -> u64 {
    let n = rest.len();
    let half = |at: usize| {
        let mut w = [0u8; 4];
        if let Some(part) = rest.get(at..at + 4) {
            w.copy_from_slice(part);
        }
        u64::from(u32::from_le_bytes(w))
    };
    match n {
        0 => 0,
        1..4 => u64::from(rest[0]) | (u64::from(rest[n / 2]) << 8) | (u64::from(rest[n - 1]) << 16),
        _ => half(0) | (half(n - 4) << 32),
    }
}

/// A `HashMap` hashed with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashSet` hashed with [`FastHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// Returns the hash of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let mut h = FastHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_inputs_hash_apart() {
        let inputs = [
            "",
            "a",
            "ab",
            "ab\0",
            "ba",
            "toolu_01",
            "toolu_02",
            "toolu_012345678",
        ];
        let hashes: HashSet<u64> = inputs.iter().map(|s| hash(s.as_bytes())).collect();
        assert_eq!(hashes.len(), inputs.len());
    }

    #[test]
    fn each_input_bit_flips_each_output_bit_about_half_the_time() {
        let base = *b"toolu_01ABCDEFGHIJKLMNOPQRSTUVW";
        let h0 = hash(&base);
        let mut flips = [0u32; 64];
        let mut n = 0;
        for byte in 0..base.len() {
            for bit in 0..8 {
                let mut changed = base;
                changed[byte] ^= 1 << bit;
                let diff = h0 ^ hash(&changed);
                for (out, count) in flips.iter_mut().enumerate() {
                    *count += u32::from((diff >> out) & 1 == 1);
                }
                n += 1;
            }
        }
        for (out, count) in flips.iter().enumerate() {
            let share = f64::from(*count) / f64::from(n);
            assert!((0.3..0.7).contains(&share), "output bit {out}: {share}");
        }
    }
}
