//! A Claude Code record read by the one-pass scanner ([`crate::scan`]) rather than by serde:
//! the same [`Record`] serde's reading gives, for every line the scanner can check; it declines
//! any other line, which serde then reads (and reports, when it is bad).

use std::borrow::Cow;

use super::records::{Block, Content, Message, Record, ResultInfo};
use crate::scan::cursor::{Cursor, Kind, Scalar};
use crate::scan::{Buffers, Declined, Scan, check, index};
use crate::session::Usage;

/// Reads `line` into `rec` (filled in place: a record is large, and a line is read a hundred
/// thousand times), reusing `buffers` for its index. When the scanner declines the line, `rec`
/// may hold part of it: the caller reads the line with serde into a record of its own.
pub(super) fn record<'a>(line: &'a str, buffers: &mut Buffers, rec: &mut Record<'a>) -> Scan<()> {
    let index = index(line, buffers)?;
    let mut c = Cursor::new(&index);
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "type" => rec.kind = seen.once(0, opt_string(c))?,
            "subtype" => rec.subtype = seen.once(1, opt_string(c))?,
            "message" => rec.message = seen.once(2, message(c))?,
            "uuid" => rec.uuid = seen.once(3, opt_string(c))?,
            "parentUuid" => rec.parent_uuid = seen.once(4, opt_string(c))?,
            "timestamp" => rec.timestamp = seen.once(5, opt_string(c))?,
            "isSidechain" => rec.is_sidechain = seen.once(6, opt_bool(c))?,
            "isMeta" => rec.is_meta = seen.once(7, opt_bool(c))?,
            "isCompactSummary" => rec.is_compact_summary = seen.once(8, opt_bool(c))?,
            // One field under two names, as serde's alias reads it.
            "sessionId" | "session_id" => rec.session_id = seen.once(9, opt_string(c))?,
            "agentId" => rec.agent_id = seen.once(10, opt_string(c))?,
            "toolUseResult" => rec.tool_use_result = seen.once(11, result_info(c))?,
            "data" => rec.data = seen.once(12, opt_raw(c))?,
            "parentToolUseID" => rec.progress_tool_use_id = seen.once(13, opt_string(c))?,
            "parent_tool_use_id" => rec.parent_tool_use_id = seen.once(14, opt_string(c))?,
            "cwd" => rec.cwd = seen.once(15, opt_string(c))?,
            "model" => rec.model = seen.once(16, opt_string(c))?,
            _ => c.skip_other(key)?,
        }
        Ok(())
    })?;
    check(c.at_end())
}

/// The fields already read: serde refuses a field given twice, so the scanner leaves such a
/// line to it.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn once<T>(&mut self, field: u32, value: Scan<T>) -> Scan<T> {
        let bit = 1 << field;
        check(self.0 & bit == 0)?;
        self.0 |= bit;
        value
    }
}

/// A string or `null`.
fn opt_string<'a>(c: &mut Cursor<'_, 'a, '_>) -> Scan<Option<Cow<'a, str>>> {
    match c.kind()? {
        Kind::String => c.string().map(Some),
        Kind::Scalar if c.null()? => Ok(None),
        _ => Err(Declined),
    }
}

/// `true`, `false` or `null`.
fn opt_bool(c: &mut Cursor<'_, '_, '_>) -> Scan<Option<bool>> {
    match c.scalar()? {
        Scalar::Null => Ok(None),
        Scalar::Bool(b) => Ok(Some(b)),
        Scalar::Number(_) => Err(Declined),
    }
}

/// Any value's text, `null` being none.
fn opt_raw<'a>(c: &mut Cursor<'_, 'a, '_>) -> Scan<Option<&'a str>> {
    if c.null()? {
        return Ok(None);
    }
    c.skip().map(Some)
}

/// A record's `message`: an API message when it is an object.
fn message<'a>(c: &mut Cursor<'_, 'a, '_>) -> Scan<Option<Message<'a>>> {
    if c.kind()? != Kind::Object {
        if c.null()? {
            return Ok(None);
        }
        c.skip()?;
        return Ok(Some(Message::NotAnObject));
    }
    let (mut id, mut model, mut content, mut usage) = (None, None, Content::Missing, None);
    c.object(|c, key| {
        match key {
            "id" => id = opt_string(c)?,
            "model" => model = opt_string(c)?,
            "content" => content = self::content(c)?,
            "usage" => usage = self::usage(c)?,
            _ => c.skip_other(key)?,
        }
        Ok(())
    })?;
    Ok(Some(Message::Api {
        id,
        model,
        content,
        usage,
    }))
}

/// A message's `content`.
fn content<'a>(c: &mut Cursor<'_, 'a, '_>) -> Scan<Content<'a>> {
    match c.kind()? {
        Kind::String => c.string().map(Content::Text),
        Kind::Array => {
            let mut blocks = Vec::new();
            c.array(|c| {
                blocks.push(block(c)?);
                Ok(())
            })?;
            Ok(Content::Blocks(blocks))
        }
        Kind::Scalar if c.null()? => Ok(Content::Missing),
        Kind::Object | Kind::Scalar => {
            c.skip()?;
            Ok(Content::Invalid)
        }
    }
}

/// A content block: an object with a string `type`.
fn block<'a>(c: &mut Cursor<'_, 'a, '_>) -> Scan<Block<'a>> {
    if c.kind()? != Kind::Object {
        return Err(Declined);
    }
    let mut kind = None;
    let mut block = Block::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "type" => kind = Some(seen.once(0, opt_string(c))?.ok_or(Declined)?),
            "text" => block.text = seen.once(1, opt_string(c))?,
            "id" => block.id = seen.once(2, opt_string(c))?,
            "name" => block.name = seen.once(3, opt_string(c))?,
            "input" => block.input = seen.once(4, opt_raw(c))?,
            "tool_use_id" => block.tool_use_id = seen.once(5, opt_string(c))?,
            "content" => block.content = seen.once(6, opt_raw(c))?,
            "is_error" => block.is_error = seen.once(7, opt_bool(c))?,
            _ => c.skip_other(key)?,
        }
        Ok(())
    })?;
    block.kind = kind.ok_or(Declined)?;
    Ok(block)
}

/// A message's `usage`: counts when it is an object.
fn usage(c: &mut Cursor<'_, '_, '_>) -> Scan<Option<Usage>> {
    if c.kind()? != Kind::Object {
        c.skip()?;
        return Ok(None);
    }
    let mut usage = Usage::default();
    c.object(|c, key| {
        let field = match key {
            "input_tokens" => &mut usage.input,
            "output_tokens" => &mut usage.output,
            "cache_read_input_tokens" => &mut usage.cache_read,
            "cache_creation_input_tokens" => &mut usage.cache_write,
            _ => return c.skip_other(key),
        };
        *field = count(c)?;
        Ok(())
    })?;
    Ok(Some(usage))
}

/// A token count: a whole number that fits, 0 for a string, a literal or a number of another
/// kind. Left to serde: containers (which serde reads whole) and exponents (which may overflow,
/// an error to serde); without an exponent, a number overflows only past 308 digits.
fn count(c: &mut Cursor<'_, '_, '_>) -> Scan<u64> {
    match c.kind()? {
        Kind::String => c.string().map(|_| 0),
        Kind::Scalar => match c.scalar()? {
            Scalar::Number(n) if n.len() <= 300 && !n.contains(['e', 'E']) => {
                Ok(n.parse().unwrap_or(0))
            }
            Scalar::Number(_) => Err(Declined),
            Scalar::Null | Scalar::Bool(_) => Ok(0),
        },
        Kind::Object | Kind::Array => Err(Declined),
    }
}

/// A record's `toolUseResult`: its `agentId` and `interrupted` when it is an object.
fn result_info(c: &mut Cursor<'_, '_, '_>) -> Scan<Option<ResultInfo>> {
    if c.kind()? != Kind::Object {
        if c.null()? {
            return Ok(None);
        }
        c.skip()?;
        return Ok(Some(ResultInfo::default()));
    }
    let mut info = ResultInfo::default();
    c.object(|c, key| {
        match key {
            "agentId" => info.agent_id = opt_string(c)?.map(Cow::into_owned),
            "interrupted" => info.interrupted = opt_bool(c)?.unwrap_or(false),
            _ => c.skip_other(key)?,
        }
        Ok(())
    })?;
    Ok(Some(info))
}

#[cfg(test)]
mod tests;
