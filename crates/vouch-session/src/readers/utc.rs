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
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let days = days_from_epoch(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    Timestamp::new(seconds, i32::try_from(nanos).ok()?).ok()
}

/// The number `bytes` spell in decimal digits only.
fn digits(bytes: &[u8]) -> Option<i64> {
    bytes.iter().try_fold(0i64, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
    })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given date of the proleptic Gregorian calendar: whole 400-year
/// eras of 146,097 days, counted from 1 March so that a leap day ends its year.
fn days_from_epoch(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
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
                None => prop_assert!(day > days_in_month(year, month) || jiff(&s).is_none(), "{}", s),
            }
        }
    }
}
