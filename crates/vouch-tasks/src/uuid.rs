//! UUID v4, as decision T4 reads the protocol's pattern: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`
//! with `y` one of `8`, `9`, `a`, `b`, hex digits in either case.

/// Hex digit values; 0xff for anything else.
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i: u8 = 0;
    while i < 10 {
        t[(b'0' + i) as usize] = i;
        i += 1;
    }
    let mut i: u8 = 0;
    while i < 6 {
        t[(b'a' + i) as usize] = 10 + i;
        t[(b'A' + i) as usize] = 10 + i;
        i += 1;
    }
    t
};

/// Reads `s` as a UUID written `8-4-4-4-12` in hex digits of either case: its 128 bits, and
/// whether it is a version 4 UUID with the RFC variant (`y` of 8, 9, a or b).
pub(crate) fn parse(s: &str) -> Option<(u128, bool)> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    // Each group on 64 bits, the digits' invalid marks OR-ed together.
    let group = |digits: &[u8]| {
        digits.iter().fold((0u64, 0u8), |(v, bad), &c| {
            let d = HEX[c as usize];
            ((v << 4) | u64::from(d & 0x0f), bad | d)
        })
    };
    let (g1, b1) = group(&b[0..8]);
    let (g2, b2) = group(&b[9..13]);
    let (g3, b3) = group(&b[14..18]);
    let (g4, b4) = group(&b[19..23]);
    let (g5, b5) = group(&b[24..36]);
    if (b1 | b2 | b3 | b4 | b5) > 0x0f {
        return None;
    }
    let hi = (g1 << 32) | (g2 << 16) | g3;
    let lo = (g4 << 48) | g5;
    let v4 = b[14] == b'4' && matches!(b[19], b'8' | b'9' | b'a' | b'b' | b'A' | b'B');
    Some(((u128::from(hi) << 64) | u128::from(lo), v4))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_uuid_v4(s: &str) -> bool {
        parse(s).is_some_and(|(_, v4)| v4)
    }

    #[test]
    fn version_and_variant_are_checked_case_insensitively() {
        assert!(is_uuid_v4("3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c"));
        assert!(is_uuid_v4("3F2B8C1E-9D4A-4F6B-BA2C-1E5D7F9B0A3C"));
        // Version 1, a bad variant, a missing dash, a stray character.
        assert!(!is_uuid_v4("3f2b8c1e-9d4a-1f6b-8a2c-1e5d7f9b0a3c"));
        assert!(!is_uuid_v4("3f2b8c1e-9d4a-4f6b-ca2c-1e5d7f9b0a3c"));
        assert!(!is_uuid_v4("3f2b8c1e9d4a-4f6b-8a2c-1e5d7f9b0a3c0"));
        assert!(!is_uuid_v4("3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3g"));
        assert!(!is_uuid_v4(""));
    }
}
