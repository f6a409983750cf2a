//! A one-pass JSON scanner for the records a reader meets a hundred thousand times: the bytes
//! are classified 64 at a time ([`classify`]), which tells every string's extent at once, and a
//! record is then walked by its structural characters alone ([`cursor`]), so a 2 KB tool
//! output is stepped over rather than read byte by byte.
//!
//! The scanner is a fast path, not a second parser of record: it answers only for lines it can
//! fully check, and a reader gives any line it declines (`None`) to serde_json, whose errors
//! and shapes stay the reference. What it checks, so that it never accepts a line serde_json
//! would refuse: the structure (every object, array, key, colon and comma), every string (no
//! raw control character, every escape one of JSON's, `\u` with four hex digits), every
//! number and literal, and that nothing but whitespace follows the value. The line is already
//! valid UTF-8 (the driver checks it). Strings whose text a reader keeps are decoded by
//! serde_json itself when they hold an escape.

pub(crate) mod classify;
pub(crate) mod cursor;
pub(crate) mod lookup;

/// The scanner leaves the line to serde_json: it holds something the scanner does not take, or
/// is not valid JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declined;

/// What a step of the scanner gives: a value, or the line left to serde_json.
pub(crate) type Scan<T> = Result<T, Declined>;

/// Goes on when `ok`, else declines the line.
pub(crate) fn check(ok: bool) -> Scan<()> {
    if ok { Ok(()) } else { Err(Declined) }
}

/// Every other bit, from bit 1: the odd positions.
const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// The structure of one line: per 64-byte chunk, the bits of its structural characters outside
/// strings and of every quote that opens or closes one, and the bits of its backslashes.
pub(crate) struct Index<'a, 's> {
    pub(crate) text: &'a str,
    pub(crate) marks: &'s [u64],
    pub(crate) backslashes: &'s [u64],
}

/// The buffers of a line's index, kept between lines.
#[derive(Default)]
pub(crate) struct Buffers {
    marks: Vec<u64>,
    backslashes: Vec<u64>,
}

/// What the chunks before tell the next one.
#[derive(Default)]
struct Carry {
    /// 1 when the chunk's first byte is escaped.
    escape: u64,
    /// All ones when the chunk starts inside a string.
    in_string: u64,
    /// Bits of anything found wrong.
    bad: u64,
    escapes_ok: bool,
}

/// Indexes `text` into `buffers`; declines it when a string in it is not valid JSON (a raw
/// control character, an unknown escape, a backslash outside a string) or is not closed.
pub(crate) fn index<'a, 's>(text: &'a str, buffers: &'s mut Buffers) -> Scan<Index<'a, 's>> {
    let bytes = text.as_bytes();
    let Buffers { marks, backslashes } = buffers;
    marks.clear();
    backslashes.clear();
    let chunks = bytes.len().div_ceil(64);
    // Sized first and written in place: no check for room in the inner loop.
    marks.resize(chunks, 0);
    backslashes.resize(chunks, 0);
    let mut carry = Carry {
        escapes_ok: true,
        ..Carry::default()
    };
    let mut whole = bytes.chunks_exact(64);
    let mut slots = marks.iter_mut().zip(backslashes.iter_mut());
    let mut at = 0;
    for (chunk, (mark, backslash)) in whole.by_ref().zip(slots.by_ref()) {
        if let Ok(chunk) = <&[u8; 64]>::try_from(chunk) {
            (*mark, *backslash) = step(&mut carry, bytes, at, chunk);
        }
        at += 64;
    }
    let rest = whole.remainder();
    if let (false, Some((mark, backslash))) = (rest.is_empty(), slots.next()) {
        // Spaces pad the last chunk: they are none of the characters that count.
        let mut last = [b' '; 64];
        last[..rest.len()].copy_from_slice(rest);
        (*mark, *backslash) = step(&mut carry, bytes, at, &last);
    }
    let ok = carry.bad == 0 && carry.escapes_ok && carry.in_string == 0 && carry.escape == 0;
    check(ok)?;
    Ok(Index {
        text,
        marks,
        backslashes,
    })
}

/// Indexes the chunk at `at`; returns its marks and its backslashes.
#[expect(
    clippy::inline_always,
    reason = "the scanner's inner loop: left to itself the compiler calls it (20 % of a read)"
)]
#[inline(always)]
fn step(carry: &mut Carry, bytes: &[u8], at: usize, chunk: &[u8; 64]) -> (u64, u64) {
    let m = classify::strings(chunk);
    // The characters an odd run of backslashes escapes (the run may start in the chunk
    // before): the borrow of a subtraction ends each run, and runs that start on odd and on
    // even bits end on bits of opposite parity.
    let escaped = if m.backslash == 0 && carry.escape == 0 {
        0
    } else {
        let starts = m.backslash & !carry.escape;
        let ends = ((starts << 1) | ODD).wrapping_sub(starts) ^ ODD;
        let escaped = ends ^ (m.backslash | carry.escape);
        carry.escape = (ends & m.backslash) >> 63;
        escaped
    };
    let quotes = m.quote & !escaped;
    // Most chunks of a long text hold no quote that counts: they are wholly inside or outside.
    let inside = if quotes == 0 {
        carry.in_string
    } else {
        prefix_xor(quotes) ^ carry.in_string
    };
    carry.in_string = 0u64.wrapping_sub(inside >> 63);
    carry.bad |= (m.control & inside) | (m.backslash & !inside);
    // `\n`, `\t`, `\"` and `\\` are nearly all escapes: only the others are looked at one by one.
    let mut e = escaped & inside;
    if e != 0 {
        e &= !(m.quote | m.backslash | classify::either_mask(chunk, b'n', b't'));
    }
    while e != 0 {
        let i = at + e.trailing_zeros() as usize;
        carry.escapes_ok &= valid_escape(bytes, i);
        e &= e - 1;
    }
    // A chunk wholly inside a string has no structural character.
    let operators = if inside == u64::MAX {
        0
    } else {
        classify::operators(chunk) & !inside
    };
    (operators | quotes, m.backslash)
}

/// What a character after a backslash makes: 0 no escape, 1 an escape, 2 the start of `\u`.
static ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let simple = b"\"\\/bfnrt";
    let mut i = 0;
    while i < simple.len() {
        table[simple[i] as usize] = 1;
        i += 1;
    }
    table[b'u' as usize] = 2;
    table
};

/// Returns true when the character at `i`, which a backslash escapes, makes a JSON escape.
#[expect(
    clippy::inline_always,
    reason = "called for every escape in the inner loop"
)]
#[inline(always)]
fn valid_escape(bytes: &[u8], i: usize) -> bool {
    match bytes.get(i).map(|&b| ESCAPES[usize::from(b)]) {
        Some(1) => true,
        Some(2) => bytes
            .get(i + 1..i + 5)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
        _ => false,
    }
}

/// Bit `i` of the result is the parity of bits `0..=i` of `x`: 1 from an opening quote up to,
/// not including, its closing one.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

impl Index<'_, '_> {
    /// Returns the position of the first mark at or after `from`.
    pub(crate) fn next_mark(&self, from: usize) -> Option<usize> {
        let mut chunk = from / 64;
        let mut bits = self.marks.get(chunk)? & (u64::MAX << (from % 64));
        while bits == 0 {
            chunk += 1;
            bits = *self.marks.get(chunk)?;
        }
        let at = chunk * 64 + bits.trailing_zeros() as usize;
        (at < self.text.len()).then_some(at)
    }

    /// Returns true when a backslash stands in `start..end`.
    pub(crate) fn has_backslash(&self, start: usize, end: usize) -> bool {
        if start >= end {
            return false;
        }
        let (first, last) = (start / 64, (end - 1) / 64);
        (first..=last).any(|chunk| {
            let mut bits = self.backslashes.get(chunk).copied().unwrap_or(0);
            if chunk == first {
                bits &= u64::MAX << (start % 64);
            }
            if chunk == last {
                bits &= u64::MAX >> (63 - (end - 1) % 64);
            }
            bits != 0
        })
    }
}

#[cfg(test)]
mod tests;
