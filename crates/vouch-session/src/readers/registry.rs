//! The formats vouch reads, in the order detection tries them.

use crate::readers::descriptor::Descriptor;
use crate::readers::{chat, claude_code, codex, cursor, gemini, opencode, vouch};
use crate::session::Format;
use crate::tool::ToolKind;

/// Every format's descriptor, in detection order: the most specific markers first.
pub(crate) const DESCRIPTORS: [&Descriptor; 7] = [
    &vouch::DESCRIPTOR,
    &gemini::DESCRIPTOR,
    &opencode::DESCRIPTOR,
    &cursor::DESCRIPTOR,
    &chat::DESCRIPTOR,
    &codex::DESCRIPTOR,
    &claude_code::DESCRIPTOR,
];

/// Returns the descriptor of `format`.
pub(crate) fn descriptor(format: Format) -> &'static Descriptor {
    DESCRIPTORS
        .into_iter()
        .find(|d| d.format == format)
        // Every variant of Format has a descriptor above; the registry test checks it.
        .unwrap_or(DESCRIPTORS[0])
}

/// Returns the kind of the tool that a log of `format` names `name`, by the format's own table
/// (decision G7).
pub fn tool_kind(format: Format, name: &str) -> ToolKind {
    (descriptor(format).tool_kind)(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_descriptor() {
        for format in Format::ALL {
            let found = DESCRIPTORS.iter().filter(|d| d.format == format).count();
            assert_eq!(found, 1, "{format}");
        }
        assert_eq!(DESCRIPTORS.len(), Format::ALL.len());
    }
}
