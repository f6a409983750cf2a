//! The characters of 64 bytes that JSON's structure depends on, as bit masks (bit `i` stands
//! for byte `i`): the one step of the scanner that looks at every byte. On x86-64 it runs on
//! SSE2, which every x86-64 processor has, through `safe_arch`'s safe wrappers; elsewhere a
//! byte loop gives the same masks.

/// One 64-byte chunk's characters that tell where its strings are and whether they are valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Strings {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`.
    pub(crate) backslash: u64,
    /// Bytes below 0x20, which a JSON string may not hold raw.
    pub(crate) control: u64,
}

/// Applies `f` to each 16-byte part of `chunk` with its bit shift.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn parts(chunk: &[u8; 64], mut f: impl FnMut(safe_arch::m128i, usize)) {
    for (i, part) in chunk.chunks_exact(16).enumerate() {
        if let Ok(part) = <&[u8; 16]>::try_from(part) {
            f(safe_arch::load_unaligned_m128i(part), 16 * i);
        }
    }
}

/// Returns the bits of a vector comparison's result.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn bits(m: safe_arch::m128i) -> u64 {
    u64::from(safe_arch::move_mask_i8_m128i(m).cast_unsigned() & 0xffff)
}

/// Returns a vector of 16 `b`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn splat(b: u8) -> safe_arch::m128i {
    safe_arch::set_splat_i8_m128i(i8::from_ne_bytes([b]))
}

/// Returns the string characters of `chunk`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn strings(chunk: &[u8; 64]) -> Strings {
    use safe_arch::{cmp_eq_mask_i8_m128i, min_u8_m128i};
    let (quote, backslash, below_space) = (splat(b'"'), splat(b'\\'), splat(0x1f));
    let mut masks = Strings::default();
    parts(chunk, |v, shift| {
        masks.quote |= bits(cmp_eq_mask_i8_m128i(v, quote)) << shift;
        masks.backslash |= bits(cmp_eq_mask_i8_m128i(v, backslash)) << shift;
        masks.control |= bits(cmp_eq_mask_i8_m128i(min_u8_m128i(v, below_space), v)) << shift;
    });
    masks
}

/// Returns the bits of `{`, `}`, `[`, `]`, `:` and `,` in `chunk`, inside strings or not.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn operators(chunk: &[u8; 64]) -> u64 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i};
    let (open, close, colon, comma, lower) = (
        splat(b'{'),
        splat(b'}'),
        splat(b':'),
        splat(b','),
        splat(0x20),
    );
    let mut mask = 0;
    parts(chunk, |v, shift| {
        // `[` and `]` are `{` and `}` without bit 5.
        let folded = bitor_m128i(v, lower);
        let brackets = bitor_m128i(
            cmp_eq_mask_i8_m128i(folded, open),
            cmp_eq_mask_i8_m128i(folded, close),
        );
        let separators = bitor_m128i(
            cmp_eq_mask_i8_m128i(v, colon),
            cmp_eq_mask_i8_m128i(v, comma),
        );
        mask |= bits(bitor_m128i(brackets, separators)) << shift;
    });
    mask
}

/// Returns the string characters of `chunk`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) fn strings(chunk: &[u8; 64]) -> Strings {
    classify_bytes(chunk).0
}

/// Returns the bits of `{`, `}`, `[`, `]`, `:` and `,` in `chunk`, inside strings or not.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) fn operators(chunk: &[u8; 64]) -> u64 {
    classify_bytes(chunk).1
}

/// Returns the bits of the bytes of `chunk` that are `a` or `b`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn either_mask(chunk: &[u8; 64], a: u8, b: u8) -> u64 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i};
    let (a, b) = (splat(a), splat(b));
    let mut mask = 0;
    parts(chunk, |v, shift| {
        let either = bitor_m128i(cmp_eq_mask_i8_m128i(v, a), cmp_eq_mask_i8_m128i(v, b));
        mask |= bits(either) << shift;
    });
    mask
}

/// Returns the bits of the bytes of `chunk` that are `a` or `b`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) fn either_mask(chunk: &[u8; 64], a: u8, b: u8) -> u64 {
    chunk
        .iter()
        .enumerate()
        .fold(0, |mask, (i, &c)| mask | (u64::from(c == a || c == b) << i))
}

/// Returns the string characters and the operators of `chunk`, a byte at a time: the portable
/// form, and the reference the vector form is tested against.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
pub(crate) fn classify_bytes(chunk: &[u8; 64]) -> (Strings, u64) {
    let mut masks = Strings::default();
    let mut operators = 0;
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => masks.quote |= bit,
            b'\\' => masks.backslash |= bit,
            b'{' | b'}' | b'[' | b']' | b':' | b',' => operators |= bit,
            0..0x20 => masks.control |= bit,
            _ => {}
        }
    }
    (masks, operators)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_vector_form_agrees_with_the_byte_loop(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 64),
            specials in proptest::collection::vec((0usize..64, proptest::sample::select(
                b"\"\\{}[]:,nt\x00\x1f\x20\x7b\x5b\xff".to_vec())), 0..40),
        ) {
            let mut chunk = [0u8; 64];
            chunk.copy_from_slice(&bytes);
            for (i, b) in specials {
                chunk[i] = b;
            }
            proptest::prop_assert_eq!((strings(&chunk), operators(&chunk)), classify_bytes(&chunk));
            let nt = chunk
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &b)| m | (u64::from(b == b'n' || b == b't') << i));
            proptest::prop_assert_eq!(either_mask(&chunk, b'n', b't'), nt);
        }
    }
}
