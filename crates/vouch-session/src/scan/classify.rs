//! The characters of 64 bytes that JSON's structure depends on, as bit masks (bit `i` stands
//! for byte `i`): the one step of the scanner that looks at every byte. On x86-64 it runs on
//! SSE2, which every x86-64 processor has, through `safe_arch`'s safe wrappers; elsewhere a
//! byte loop gives the same masks.

/// One 64-byte chunk's characters of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Masks {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`.
    pub(crate) backslash: u64,
    /// Bytes below 0x20, which a JSON string may not hold raw.
    pub(crate) control: u64,
    /// `{`, `}`, `[`, `]`, `:` and `,`, inside strings or not.
    pub(crate) operator: u64,
}

/// Returns the masks of `chunk`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn classify(chunk: &[u8; 64]) -> Masks {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let splat = |b: u8| set_splat_i8_m128i(i8::from_ne_bytes([b]));
    let (quote, backslash, below_space) = (splat(b'"'), splat(b'\\'), splat(0x1f));
    let (open, close, colon, comma, lower) = (
        splat(b'{'),
        splat(b'}'),
        splat(b':'),
        splat(b','),
        splat(0x20),
    );
    let bits = |m| u64::from(move_mask_i8_m128i(m).cast_unsigned() & 0xffff);
    let mut masks = Masks::default();
    for (i, part) in chunk.chunks_exact(16).enumerate() {
        let Ok(part) = <&[u8; 16]>::try_from(part) else {
            continue;
        };
        let v = load_unaligned_m128i(part);
        let shift = 16 * i;
        masks.quote |= bits(cmp_eq_mask_i8_m128i(v, quote)) << shift;
        masks.backslash |= bits(cmp_eq_mask_i8_m128i(v, backslash)) << shift;
        masks.control |= bits(cmp_eq_mask_i8_m128i(min_u8_m128i(v, below_space), v)) << shift;
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
        masks.operator |= bits(bitor_m128i(brackets, separators)) << shift;
    }
    masks
}

/// Returns the masks of `chunk`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) fn classify(chunk: &[u8; 64]) -> Masks {
    classify_bytes(chunk)
}

/// Returns the bits of the bytes of `chunk` that are `byte`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(crate) fn byte_mask(chunk: &[u8; 64], byte: u8) -> u64 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let wanted = set_splat_i8_m128i(i8::from_ne_bytes([byte]));
    let mut mask = 0;
    for (i, part) in chunk.chunks_exact(16).enumerate() {
        let Ok(part) = <&[u8; 16]>::try_from(part) else {
            continue;
        };
        let equal = cmp_eq_mask_i8_m128i(load_unaligned_m128i(part), wanted);
        mask |= u64::from(move_mask_i8_m128i(equal).cast_unsigned() & 0xffff) << (16 * i);
    }
    mask
}

/// Returns the bits of the bytes of `chunk` that are `byte`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) fn byte_mask(chunk: &[u8; 64], byte: u8) -> u64 {
    chunk
        .iter()
        .enumerate()
        .fold(0, |mask, (i, &b)| mask | (u64::from(b == byte) << i))
}

/// Returns the masks of `chunk`, a byte at a time: the portable form, and the reference the
/// vector form is tested against.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
pub(crate) fn classify_bytes(chunk: &[u8; 64]) -> Masks {
    let mut masks = Masks::default();
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => masks.quote |= bit,
            b'\\' => masks.backslash |= bit,
            b'{' | b'}' | b'[' | b']' | b':' | b',' => masks.operator |= bit,
            0..0x20 => masks.control |= bit,
            _ => {}
        }
    }
    masks
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_vector_form_agrees_with_the_byte_loop(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 64),
            specials in proptest::collection::vec((0usize..64, proptest::sample::select(
                b"\"\\{}[]:,n\x00\x1f\x20\x7b\x5b\xff".to_vec())), 0..40),
        ) {
            let mut chunk = [0u8; 64];
            chunk.copy_from_slice(&bytes);
            for (i, b) in specials {
                chunk[i] = b;
            }
            proptest::prop_assert_eq!(classify(&chunk), classify_bytes(&chunk));
            let ns = chunk.iter().enumerate().fold(0u64, |m, (i, &b)| m | (u64::from(b == b'n') << i));
            proptest::prop_assert_eq!(byte_mask(&chunk, b'n'), ns);
        }
    }
}
