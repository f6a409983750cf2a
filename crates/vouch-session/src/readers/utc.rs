//! The timestamps agents write on every record, `2026-01-01T00:00:02.002Z`, read without a
//! general parser: a log of two hundred thousand records parses as many. Any other spelling
//! (an offset, a leap second, fewer digits) is left to jiff.

use jiff::Timestamp;

/// Reads `YYYY-MM-DDTHH:MM:SS[.fraction]Z`; `None` for anything else, including dates that do
/// not exist.
pub(crate) fn timestamp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || *b.last()? != b'Z' {
        return None;
    }
    let year = digits(&b[0..4])?;
    let (month, day) = (digits(&b[5..7])?, digits(&b[8..10])?);
    let (hour, minute, second) = (
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
    );
    let fraction = &b[19..b.len() - 1];
    let nanos = match fraction {
        [] => 0,
        [b'.', rest @ ..] if (1..=9).contains(&rest.len()) => {
            digits(rest)? * 10i64.pow(9 - u32::try_from(rest.len()).ok()?)
        }
        _ => return None,
    };
    // jiff checks the date (no 30 February) and counts the days.
    let narrow = |n: i64| i8::try_from(n).ok();
    let at = jiff::civil::DateTime::new(
        i16::try_from(year).ok()?,
        narrow(month)?,
        narrow(day)?,
        narrow(hour)?,
        narrow(minute)?,
        narrow(second)?,
        i32::try_from(nanos).ok()?,
    )
    .ok()?;
    jiff::tz::TimeZone::UTC.to_timestamp(at).ok()
}

/// The number `bytes` spell in decimal digits only.
fn digits(bytes: &[u8]) -> Option<i64> {
    bytes.iter().try_fold(0i64, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn jiff(s: &str) -> Option<Timestamp> {
        s.parse().ok()
    }

    #[test]
    fn reads_what_agents_write_and_leaves_the_rest() {
        for s in [
            "2026-01-01T00:00:02.002Z",
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59.999999999Z",
            "2000-03-01T12:00:00.5Z",
            "0001-01-01T00:00:00Z",
        ] {
            assert_eq!(timestamp(s), jiff(s), "{s}");
            assert!(timestamp(s).is_some(), "{s}");
        }
        // Past the end of jiff's range: neither reads it.
        assert_eq!(
            timestamp("9999-12-31T23:59:59Z"),
            jiff("9999-12-31T23:59:59Z")
        );
        for s in [
            "2023-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:60Z",
            "2026-01-01T00:00:00+01:00",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567891Z",
            "2026-1-01T00:00:00Z",
        ] {
            assert_eq!(timestamp(s), None, "{s}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_jiff(
            year in 1i64..=9999, month in 1i64..=12, day in 1i64..=31,
            hour in 0i64..=23, minute in 0i64..=59, second in 0i64..=59,
            digits in 0usize..=9, fraction in 0u32..1_000_000_000,
        ) {
            let frac = if digits == 0 {
                String::new()
            } else {
                format!(".{fraction:09}")[..=digits].to_owned()
            };
            let s = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{frac}Z");
            match timestamp(&s) {
                Some(t) => prop_assert_eq!(Some(t), jiff(&s)),
                None => prop_assert!(jiff(&s).is_none(), "{}", s),
            }
        }
    }
}
