//! What vouch knows of one log format, in one value: how to read it, how to find its turns from
//! the end of a file, how its tool names map to kinds, and how to recognise it from its first
//! lines. Each format's module exports its descriptor; the registry lists them.

use std::io::Read;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::readers::common;
use crate::session::Format;
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tail::Turns;
use crate::tool::ToolKind;

/// One log format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Descriptor {
    /// The format.
    pub(crate) format: Format,
    /// How messages name it (`Claude Code`, `chat-message`).
    pub(crate) label: &'static str,
    /// Reads a whole log of the format.
    pub(crate) read: fn(&mut dyn Read, &Input<'_>, &ReadOptions) -> Result<ReadReport, Error>,
    /// Maps a tool name of the format to its kind (decision G7).
    pub(crate) tool_kind: fn(&str) -> ToolKind,
    /// How its turns are found from the end of a file; `None` when a log of the format can
    /// only be read whole.
    pub(crate) turns: Option<Turns>,
    /// How it is recognised.
    pub(crate) sniff: Sniff,
}

/// How a format is recognised from the first bytes of a log.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sniff {
    /// Returns true when the log is one JSON document of the format (checked first).
    pub(crate) document: fn(&[u8]) -> bool,
    /// Says how surely one JSON object line belongs to the format.
    pub(crate) record: fn(&Map<String, Value>) -> Match,
    /// Keys that decide a first line too long to parse, and how surely.
    pub(crate) keys: &'static [(&'static str, Match)],
}

/// How surely a line belongs to a format, least sure first. Every format's sure tests run
/// before any weak one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Match {
    /// Not this format.
    No,
    /// This format, unless another one is sure.
    Weak,
    /// This format.
    Sure,
}

impl Turns {
    /// Returns how the turns of a format of one record per line are found: by `starts_turn`,
    /// unless the file turns out to be one JSON document.
    pub(crate) const fn of_lines(starts_turn: fn(&str) -> bool) -> Turns {
        Turns {
            starts_turn,
            is_document: common::is_document,
        }
    }
}

impl Sniff {
    /// Returns how a format of one record per line, never one document, is recognised.
    pub(crate) const fn lines(
        record: fn(&Map<String, Value>) -> Match,
        keys: &'static [(&'static str, Match)],
    ) -> Sniff {
        Sniff {
            document: |_| false,
            record,
            keys,
        }
    }
}
