//! Timestamps as decision T7 defines them: accepted exactly when Python 3.11's
//! `datetime.fromisoformat` accepts the text after `Z` is replaced by `+00:00`.
//!
//! That is ISO 8601 with Python's extensions and limits: a date (`YYYY-MM-DD`, `YYYYMMDD`,
//! `YYYY-Www[-D]`, `YYYYWww[D]`), optionally followed by any single character and a time
//! (`HH[:MM[:SS[.f…]]]` or `HHMMSS`, fraction after `.` or `,`, any number of digits of which
//! six count), optionally followed by an offset (`±HH[:MM[:SS[.f…]]]`, under 24 hours). Digits
//! are ASCII, as in CPython's C implementation.

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
    // The characters, each `Z` as `+00:00`: on the stack unless the text is long.
    const UTC: [char; 6] = ['+', '0', '0', ':', '0', '0'];
    let mut stack = ['\0'; 64];
    let mut len = 0;
    let mut heap: Vec<char> = Vec::new();
    for c in text.chars() {
        let expanded: &[char] = if c == 'Z' {
            &UTC
        } else {
            std::slice::from_ref(&c)
        };
        for &e in expanded {
            if heap.is_empty() && len < stack.len() {
                stack[len] = e;
                len += 1;
            } else {
                if heap.is_empty() {
                    heap.extend_from_slice(&stack[..len]);
                }
                heap.push(e);
            }
        }
    }
    let chars: &[char] = if heap.is_empty() {
        &stack[..len]
    } else {
        &heap
    };
    if chars.len() < 7 {
        return Err(Invalid("too short for an ISO 8601 date"));
    }
    let sep = separator(chars)?;
    let (year, month, day) = date(&chars[..sep.min(chars.len())])?;
    let time = chars.get(sep + 1..).unwrap_or(&[]);
    let (h, m, s, us, offset) = if time.is_empty() {
        (0, 0, 0, 0, None)
    } else {
        time_of_day(time)?
    };
    if !(1..=9999).contains(&year) {
        return Err(Invalid("year out of range 1-9999"));
    }
    if !(1..=12).contains(&month) {
        return Err(Invalid("month out of range 1-12"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(Invalid("day out of range for the month"));
    }
    if h > 23 || m > 59 || s > 59 {
        return Err(Invalid("time out of range"));
    }
    let offset_micros = offset.unwrap_or(0);
    if offset_micros.abs() >= 86_400_000_000 {
        return Err(Invalid("offset of 24 hours or more"));
    }
    let days = days_from_civil(year, month, day);
    let micros = ((days * 86_400 + h * 3_600 + m * 60 + s) * 1_000_000 + us) - offset_micros;
    Ok(Timestamp {
        micros,
        has_offset: offset.is_some(),
    })
}

/// Where the date ends, following CPython's `_find_isoformat_datetime_separator`.
fn separator(c: &[char]) -> Parsed<usize> {
    let len = c.len();
    if len == 7 {
        return Ok(7);
    }
    if c[4] == '-' {
        if c[5] != 'W' {
            return Ok(10);
        }
        if len > 8 && c[8] == '-' {
            if len == 9 {
                return Err(Invalid("incomplete week date"));
            }
            if len > 10 && c[10].is_ascii_digit() {
                return Ok(8);
            }
            return Ok(10);
        }
        return Ok(8);
    }
    if c[4] == 'W' {
        let mut idx = 7;
        while idx < len && c[idx].is_ascii_digit() {
            idx += 1;
        }
        if idx < 9 {
            return Ok(idx);
        }
        return Ok(if idx % 2 == 0 { 7 } else { 8 });
    }
    Ok(8)
}

fn digits(c: &[char]) -> Parsed<i64> {
    if c.is_empty() || !c.iter().all(char::is_ascii_digit) {
        return Err(Invalid("expected digits"));
    }
    Ok(c.iter().fold(0, |n, d| n * 10 + i64::from(*d as u8 - b'0')))
}

fn slice(c: &[char], from: usize, len: usize) -> Parsed<&[char]> {
    c.get(from..from + len)
        .ok_or(Invalid("date or time cut short"))
}

/// Parses the date part: 7, 8 or 10 characters.
fn date(c: &[char]) -> Parsed<(i64, i64, i64)> {
    if ![7, 8, 10].contains(&c.len()) {
        return Err(Invalid("not an ISO 8601 date"));
    }
    let year = digits(slice(c, 0, 4)?)?;
    let has_sep = c[4] == '-';
    let mut pos = 4 + usize::from(has_sep);
    if c.get(pos) == Some(&'W') {
        pos += 1;
        let week = digits(slice(c, pos, 2)?)?;
        pos += 2;
        let mut weekday = 1;
        if c.len() > pos {
            if (c[pos] == '-') != has_sep {
                return Err(Invalid("inconsistent use of dash separators"));
            }
            pos += usize::from(has_sep);
            weekday = digits(slice(c, pos, 1)?)?;
        }
        return week_date(year, week, weekday);
    }
    let month = digits(slice(c, pos, 2)?)?;
    pos += 2;
    if (c.get(pos) == Some(&'-')) != has_sep {
        return Err(Invalid("inconsistent use of dash separators"));
    }
    pos += usize::from(has_sep);
    let day = digits(slice(c, pos, 2)?)?;
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

/// Parses `HH[:MM[:SS[.f…]]]` (or without colons) and the optional fraction.
fn hh_mm_ss_ff(t: &[char]) -> Parsed<[i64; 4]> {
    let mut comps = [0i64; 4];
    let mut pos = 0;
    let mut has_sep = false;
    for (comp, value) in comps.iter_mut().take(3).enumerate() {
        if t.len().saturating_sub(pos) < 2 {
            return Err(Invalid("incomplete time component"));
        }
        *value = digits(&t[pos..pos + 2])?;
        pos += 2;
        let next = t.get(pos).copied();
        if comp == 0 {
            has_sep = next == Some(':');
        }
        let Some(next) = next else { break };
        if comp >= 2 {
            break;
        }
        if has_sep && next != ':' {
            return Err(Invalid("invalid time separator"));
        }
        pos += usize::from(has_sep);
    }
    if pos < t.len() {
        if t[pos] != '.' && t[pos] != ',' {
            return Err(Invalid("invalid fraction of a second"));
        }
        pos += 1;
        let remainder = t.len() - pos;
        let counted = remainder.min(6);
        let fraction = digits(&t[pos..pos + counted])?;
        let scale = [100_000, 10_000, 1_000, 100, 10, 1];
        comps[3] = fraction * scale[counted - 1];
        if !t[pos + counted..].iter().all(char::is_ascii_digit) {
            return Err(Invalid("non-digits in the fraction of a second"));
        }
    }
    Ok(comps)
}

/// Parses the time and its offset; returns the offset in microseconds east of UTC.
fn time_of_day(t: &[char]) -> Parsed<(i64, i64, i64, i64, Option<i64>)> {
    if t.len() < 2 {
        return Err(Invalid("time too short"));
    }
    // The first `-`, else the first `+` (a `Z` is `+00:00` by now).
    let tz = t
        .iter()
        .position(|&c| c == '-')
        .or_else(|| t.iter().position(|&c| c == '+'));
    let clock = match tz {
        Some(i) => &t[..i],
        None => t,
    };
    let [hour, minute, second, micros] = hh_mm_ss_ff(clock)?;
    let offset = match tz {
        None => None,
        Some(i) => {
            let zone = &t[i + 1..];
            if [0, 1, 3].contains(&zone.len()) {
                return Err(Invalid("malformed offset"));
            }
            let [oh, om, os, ous] = hh_mm_ss_ff(zone)?;
            let magnitude = ((oh * 60 + om) * 60 + os) * 1_000_000 + ous;
            Some(if t[i] == '-' { -magnitude } else { magnitude })
        }
    };
    Ok((hour, minute, second, micros, offset))
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
        ok("2024-01-15T");
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
            "2024-01-15T09:30:00.Z",
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
