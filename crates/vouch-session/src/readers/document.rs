//! Logs that are one JSON document: an array of messages, or an object holding a `messages`
//! array beside fields of the session (Gemini CLI's chat files, `opencode export`, wrapped chat
//! logs). The document is parsed once; each message is handed on with its line, and a
//! document cut short keeps the messages before the cut.

use std::borrow::Cow;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::driver::LineError;
use crate::error::{Diagnostic, DiagnosticKind, Error};
use crate::source::{Input, ReadOptions};

/// A parsed document: its messages as raw values, its other top-level fields, and what was
/// wrong with it.
pub(crate) struct Document<'a> {
    text: &'a str,
    /// The top-level fields other than `messages`, in order (none for an array).
    pub(crate) fields: Vec<(Cow<'a, str>, &'a RawValue)>,
    messages: Vec<&'a RawValue>,
    diagnostics: Vec<Diagnostic>,
}

/// Reads all of `reader`.
pub(crate) fn read_all(reader: &mut impl Read, input: &Input<'_>) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&input.display, e))?;
    Ok(bytes)
}

/// Returns `bytes` as text, or the error naming the first line that is not UTF-8.
pub(crate) fn text<'b>(bytes: &'b [u8], input: &Input<'_>) -> Result<&'b str, Error> {
    std::str::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: input.display.clone(),
        line: line_at(bytes, e.valid_up_to()),
    })
}

/// Returns the 1-based line of byte `offset`.
fn line_at(bytes: &[u8], offset: usize) -> u64 {
    1 + memchr::memchr_iter(b'\n', &bytes[..offset.min(bytes.len())]).count() as u64
}

/// Parses `text`: an array of messages, or (when `wrapped`) an object with `messages`. A
/// syntax error is fatal in strict mode; a document cut short never is.
pub(crate) fn parse<'a>(
    text: &'a str,
    input: &Input<'_>,
    options: &ReadOptions,
    wrapped: bool,
) -> Result<Document<'a>, Error> {
    let mut doc = Document {
        text,
        fields: Vec::new(),
        messages: Vec::new(),
        diagnostics: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = if wrapped {
        Wrapped {
            messages: &mut doc.messages,
            fields: &mut doc.fields,
        }
        .deserialize(&mut de)
    } else {
        de.deserialize_seq(Elements {
            out: &mut doc.messages,
        })
    };
    if let Err(e) = parsed.and_then(|()| de.end()) {
        let torn = e.is_eof();
        let (kind, reason) = if torn {
            (
                DiagnosticKind::TornLastLine,
                "the document ends early (is the file still being written?); the messages before the cut are kept".to_owned(),
            )
        } else {
            (DiagnosticKind::BadLine, LineError::json(&e).reason)
        };
        let d = Diagnostic {
            path: Some(input.display.clone()),
            line: e.line() as u64,
            column: Some(e.column() as u64),
            reason,
            kind,
        };
        if options.strict && !torn {
            return Err(Error::Bad(d));
        }
        doc.diagnostics.push(d);
    }
    Ok(doc)
}

impl<'a> Document<'a> {
    /// Returns the top-level field `key`, if the document has it.
    pub(crate) fn field(&self, key: &str) -> Option<&'a RawValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// Hands each message to `f` with its line; a message `f` refuses is reported (or, in
    /// strict mode, fatal). Returns the diagnostics of the whole document.
    pub(crate) fn each_message(
        self,
        input: &Input<'_>,
        options: &ReadOptions,
        mut f: impl FnMut(&'a RawValue, u64) -> Result<(), LineError>,
    ) -> Result<Vec<Diagnostic>, Error> {
        let mut diagnostics = self.diagnostics;
        for raw in self.messages {
            let offset = raw.get().as_ptr() as usize - self.text.as_ptr() as usize;
            let line = line_at(self.text.as_bytes(), offset);
            if let Err(e) = f(raw, line) {
                let d = Diagnostic {
                    path: Some(input.display.clone()),
                    line,
                    column: None,
                    reason: e.reason,
                    kind: DiagnosticKind::BadLine,
                };
                if options.strict {
                    return Err(Error::Bad(d));
                }
                diagnostics.push(d);
            }
        }
        Ok(diagnostics)
    }
}

/// Returns the top-level keys of a JSON object that starts `text`, in order, up to and including
/// `messages` (whose value is not read) or as far as `text` goes (it may be a prefix of the
/// file): how document formats are told apart.
pub(crate) fn top_level_keys(text: &[u8]) -> Vec<String> {
    struct Keys<'k>(&'k mut Vec<String>);
    impl<'de> Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                let last = key == "messages";
                self.0.push(key.into_owned());
                if last {
                    return Ok(());
                }
                map.next_value::<de::IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut keys = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(text);
    // A prefix ends early, and the read stops at `messages`: the error that follows says
    // nothing about the keys.
    let _ = de.deserialize_map(Keys(&mut keys));
    keys
}

/// Collects the elements of an array as raw values, keeping those read before an error.
struct Elements<'o, 'a> {
    out: &'o mut Vec<&'a RawValue>,
}

impl<'de: 'a, 'a> Visitor<'de> for Elements<'_, 'a> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            self.out.push(raw);
        }
        Ok(())
    }
}

/// Collects the `messages` of an object, and its other fields.
struct Wrapped<'o, 'a> {
    messages: &'o mut Vec<&'a RawValue>,
    fields: &'o mut Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for Wrapped<'_, 'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Wrapped<'_, 'a> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object with a `messages` array")
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "messages" {
                map.next_value_seed(Seq {
                    out: &mut *self.messages,
                })?;
            } else {
                let value = map.next_value::<&'de RawValue>()?;
                self.fields.push((key, value));
            }
        }
        Ok(())
    }
}

struct Seq<'o, 'a> {
    out: &'o mut Vec<&'a RawValue>,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for Seq<'_, 'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(Elements { out: self.out })
    }
}
