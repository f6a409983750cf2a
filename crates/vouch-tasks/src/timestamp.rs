//! Timestamps as decision T7 defines them: accepted exactly when Python 3.11's
//! `datetime.fromisoformat` accepts the text after `Z` is replaced by `+00:00`.
//!
//! That is ISO 8601 with Python's extensions and limits: a date (`YYYY-MM-DD`, `YYYYMMDD`,
//! `YYYY-Www[-D]`, `YYYYWww[D]`), optionally followed by any single character and a time
//! (`HH[:MM[:SS]]` or `HHMMSS`, a fraction after `.` or `,` of any number of digits of which
//! six count), optionally followed by an offset (`±HH[:MM[:SS[.f…]]]`, under 24 hours). The
//! parser follows CPython 3.11's C implementation step by step, quirks included (it reads
//! `09,5` as 09:00:00.5, and accepts a bare `.` before the offset); a differential test
//! against the real `datetime.fromisoformat` on thousands of mutated strings
//! (`scripts/timestamp_diff.py`) finds no disagreement.

use std::fmt;

/// A parsed timestamp: an instant, and whether the text gave an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    /// Microseconds since 1970-01-01T00:00:00 UTC; a timestamp without offset is read as UTC.
    pub micros: i64,
    /// Whether the text carried an offset (`Z` or `±HH:MM`). Without one, UTC is assumed and
    /// a warning is due (the protocol says timestamps SHOULD be UTC).
    pub has_offset: bool,
}

/// Why a text is not a timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid(&'static str);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

type Parsed<T> = Result<T, Invalid>;

/// Parses `text` as T7 says.
pub fn parse(text: &str) -> Parsed<Timestamp> {
    let replaced;
    let text = if text.contains('Z') {
        replaced = text.replace('Z', "+00:00");
        replaced.as_str()
    } else {
        text
    };
    let b = Bytes(text.as_bytes());
    if b.len() < 7 {
        return Err(Invalid("too short for an ISO 8601 date"));
    }
    let sep = separator(b)?;
    let (year, month, day) = date(b, sep)?;
    let (mut clock, mut offset) = ([0i64; 4], None);
    if b.len() > sep {
        // The separator is any one character: skip its UTF-8 bytes.
        let width = match b.at(sep) {
            c if c & 0x80 == 0 => 1,
            c if c & 0xf0 == 0xe0 => 3,
            c if c & 0xf0 == 0xf0 => 4,
            _ => 2,
        };
        let time = Bytes(b.0.get(sep + width..).unwrap_or(&[]));
        (clock, offset) = time_of_day(time)?;
    }
    let [hour, minute, second, micros] = clock;
    if !(1..=9999).contains(&year) {
        return Err(Invalid("year out of range 1-9999"));
    }
    if !(1..=12).contains(&month) {
        return Err(Invalid("month out of range 1-12"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(Invalid("day out of range for the month"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(Invalid("time out of range"));
    }
    let offset_micros = offset.unwrap_or(0);
    if offset_micros.abs() >= 86_400_000_000 {
        return Err(Invalid("offset of 24 hours or more"));
    }
    let days = days_from_civil(year, month, day);
    let micros = ((days * 86_400 + hour * 3_600 + minute * 60 + second) * 1_000_000 + micros)
        - offset_micros;
    Ok(Timestamp {
        micros,
        has_offset: offset.is_some(),
    })
}

/// The text's bytes, read as CPython's C parser reads them: a zero past the end.
#[derive(Debug, Clone, Copy)]
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn at(self, i: usize) -> u8 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn len(self) -> usize {
        self.0.len()
    }

    /// Reads `n` ASCII digits at `from`.
    fn digits(self, from: usize, n: usize) -> Parsed<i64> {
        (from..from + n).try_fold(0i64, |v, i| match self.at(i) {
            c @ b'0'..=b'9' => Ok(v * 10 + i64::from(c - b'0')),
            _ => Err(Invalid("expected digits")),
        })
    }
}

/// Where the date ends, as CPython's `_find_isoformat_datetime_separator` decides it.
fn separator(b: Bytes<'_>) -> Parsed<usize> {
    let len = b.len();
    if len == 7 {
        return Ok(7);
    }
    if b.at(4) == b'-' {
        if b.at(5) != b'W' {
            return Ok(10);
        }
        if len > 8 && b.at(8) == b'-' {
            if len == 9 {
                return Err(Invalid("incomplete week date"));
            }
            if len > 10 && b.at(10).is_ascii_digit() {
                return Ok(8);
            }
            return Ok(10);
        }
        return Ok(8);
    }
    if b.at(4) == b'W' {
        let mut idx = 7;
        while idx < len && b.at(idx).is_ascii_digit() {
            idx += 1;
        }
        if idx < 9 {
            return Ok(idx);
        }
        return Ok(if idx % 2 == 0 { 7 } else { 8 });
    }
    Ok(8)
}

/// Parses the date, which ends at `len`.
fn date(b: Bytes<'_>, len: usize) -> Parsed<(i64, i64, i64)> {
    let year = b.digits(0, 4)?;
    let dashed = b.at(4) == b'-';
    let mut p = 4 + usize::from(dashed);
    if b.at(p) == b'W' {
        let week = b.digits(p + 1, 2)?;
        p += 3;
        let mut weekday = 1;
        if p < len {
            if dashed {
                if b.at(p) != b'-' {
                    return Err(Invalid("inconsistent use of dash separators"));
                }
                p += 1;
            }
            weekday = b.digits(p, 1)?;
        }
        return week_date(year, week, weekday);
    }
    let month = b.digits(p, 2)?;
    p += 2;
    if dashed {
        if b.at(p) != b'-' {
            return Err(Invalid("inconsistent use of dash separators"));
        }
        p += 1;
    }
    let day = b.digits(p, 2)?;
    Ok((year, month, day))
}
/// Converts an ISO week date to a calendar date.
fn week_date(year: i64, week: i64, weekday: i64) -> Parsed<(i64, i64, i64)> {
    if !(1..=9999).contains(&year) {
        return Err(Invalid("year out of range 1-9999"));
    }
    let jan1 = days_from_civil(year, 1, 1);
    // 1970-01-01 was a Thursday: weekday 4 with Monday = 1 (ISO), so ISO weekday of a day d is
    // (d + 3).rem_euclid(7) + 1.
    let jan1_weekday = (jan1 + 3).rem_euclid(7) + 1;
    let long_year = jan1_weekday == 4 || (jan1_weekday == 3 && is_leap(year));
    if !(1..=53).contains(&week) || (week == 53 && !long_year) {
        return Err(Invalid("week out of range"));
    }
    if !(1..=7).contains(&weekday) {
        return Err(Invalid("weekday out of range 1-7"));
    }
    // The Monday of week 1 is the Monday of the week holding January 4th.
    let jan4 = jan1 + 3;
    let week1_monday = jan4 - ((jan4 + 3).rem_euclid(7));
    Ok(civil_from_days(
        week1_monday + (week - 1) * 7 + (weekday - 1),
    ))
}

/// Parses `HH[:MM[:SS]]` (colons optional), a fraction after `.` or `,`, from `start` to
/// `end` of `t`, as CPython's `parse_hh_mm_ss_ff`: returns the hour, minute, second and
/// microsecond, and whether something other than digits follows (CPython's return value 1).
fn clock(t: Bytes<'_>, start: usize, end: usize) -> Parsed<([i64; 4], bool)> {
    let mut v = [0i64; 4];
    let mut p = start;
    let mut colons = true;
    for (i, value) in v.iter_mut().take(3).enumerate() {
        *value = t.digits(p, 2)?;
        p += 2;
        let c = t.at(p);
        p += 1;
        if i == 0 {
            colons = c == b':';
        }
        if p >= end {
            return Ok((v, c != 0));
        }
        if colons && c == b':' {
            // The next component follows the colon.
        } else if c == b'.' || c == b',' {
            break;
        } else if !colons {
            p -= 1;
        } else {
            return Err(Invalid("invalid time separator"));
        }
    }
    let count = end.saturating_sub(p).min(6);
    if count > 0 {
        let scale = [100_000, 10_000, 1_000, 100, 10, 1];
        v[3] = t.digits(p, count)? * scale[count - 1];
    }
    p += count;
    while t.at(p).is_ascii_digit() {
        p += 1;
    }
    Ok((v, t.at(p) != 0))
}

/// Parses the time and its offset, as CPython's `parse_isoformat_time`; returns the offset
/// in microseconds east of UTC.
fn time_of_day(t: Bytes<'_>) -> Parsed<([i64; 4], Option<i64>)> {
    if t.len() == 0 {
        return Err(Invalid("no time after the separator"));
    }
    let tz =
        t.0.iter()
            .position(|&c| matches!(c, b'Z' | b'+' | b'-'))
            .unwrap_or(t.len());
    let (time, trailing) = clock(t, 0, tz)?;
    if tz == t.len() {
        if trailing {
            return Err(Invalid("unexpected characters after the time"));
        }
        return Ok((time, None));
    }
    if t.at(tz) == b'Z' {
        if tz + 1 != t.len() {
            return Err(Invalid("characters after Z"));
        }
        return Ok((time, Some(0)));
    }
    let ([h, m, s, us], trailing) = clock(t, tz + 1, t.len())?;
    if trailing {
        return Err(Invalid("malformed offset"));
    }
    // As CPython does: an offset of zero whole seconds is UTC, whatever its fraction.
    let seconds = (h * 60 + m) * 60 + s;
    let magnitude = if seconds == 0 {
        0
    } else {
        seconds * 1_000_000 + us
    };
    Ok((
        time,
        Some(if t.at(tz) == b'-' {
            -magnitude
        } else {
            magnitude
        }),
    ))
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn ok(s: &str) -> Timestamp {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn what_python_accepts() {
        let utc = ok("2024-01-15T09:30:00Z");
        assert!(utc.has_offset);
        assert_eq!(utc, ok("2024-01-15T09:30:00+00:00"));
        assert_eq!(utc, ok("2024-01-15T10:30:00+01:00"));
        assert_eq!(utc, ok("20240115T093000Z"));
        assert_eq!(utc.micros, ok("2024-01-15 09:30").micros);
        assert!(!ok("2024-01-15T09:30:00").has_offset);
        assert_eq!(ok("2024-01-15").micros, 1_705_276_800_000_000);
        assert_eq!(ok("2024-01-15T09:30:00.5Z").micros, utc.micros + 500_000);
        assert_eq!(
            ok("2024-01-15T09:30:00,123456789Z").micros,
            utc.micros + 123_456
        );
        // Any single character separates date and time; a trailing one leaves a date.
        assert_eq!(utc.micros, ok("2024-01-15x09:30Z").micros);
        // CPython's quirks, kept: a bare decimal mark, a fraction on the hour.
        assert_eq!(utc, ok("2024-01-15T09:30:00.Z"));
        assert_eq!(
            ok("2024-01-15T09,5").micros,
            ok("2024-01-15T09:00:00.5").micros
        );
        // Week dates: 2024-W03-1 is Monday 2024-01-15.
        assert_eq!(ok("2024-W03-1").micros, ok("2024-01-15").micros);
        assert_eq!(ok("2024W031").micros, ok("2024-01-15").micros);
        assert_eq!(ok("2020-W53").micros, ok("2020-12-28").micros);
        ok("2024-02-29T23:59:59.999999-23:59");
    }

    #[test]
    fn what_python_rejects() {
        for bad in [
            "2024-1-15",
            "2024-01",
            "2024",
            "15/01/2024",
            "2024-02-30",
            "2023-02-29",
            "2024-13-01",
            "2024-01-15T24:00:00",
            "2024-01-15T09:60",
            "2024-01-15T9:30",
            "2024-01-15T09:30:00+24:00",
            "2024-01-15T09:30:00+1",
            "2024-01-15T",
            "2024-01-15T09:30:00.12a",
            "2024-01-15T09:30+01:00:0",
            "0000-01-01",
            "2021-W53",
            "２０２４-01-15",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad} should be rejected");
        }
        // An hour alone is a time.
        ok("2024-01-15T09");
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = parse(&s);
        }

        #[test]
        fn calendar_dates_round_trip(days in -719_162i64..2_932_896) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
            let text = format!("{y:04}-{m:02}-{d:02}T00:00:00Z");
            prop_assert_eq!(parse(&text).map(|t| t.micros), Ok(days * 86_400_000_000));
        }
    }
}
