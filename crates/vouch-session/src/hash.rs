//! A fast hasher for maps keyed by ids from logs, which need no protection against chosen
//! collisions.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a, 64 bits.
#[derive(Debug, Clone, Copy)]
pub struct FnvHasher(u64);

impl Default for FnvHasher {
    fn default() -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A `HashMap` hashed with [`FnvHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FnvHasher>>;

/// A `HashSet` hashed with [`FnvHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FnvHasher>>;

/// Returns the FNV-1a hash of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let mut h = FnvHasher::default();
    h.write(bytes);
    h.finish()
}
