//! UUID v4, as decision T4 reads the protocol's pattern: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`
//! with `y` one of `8`, `9`, `a`, `b`, hex digits in either case.

/// Returns true when `s` is a UUID v4.
pub fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            14 => c == b'4',
            19 => matches!(c, b'8' | b'9' | b'a' | b'b' | b'A' | b'B'),
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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
