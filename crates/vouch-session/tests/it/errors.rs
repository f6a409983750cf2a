//! Input that cannot be read at all: each is one clear error, never a panic.

use vouch_session::{Error, Format, ReadOptions, read_path};

use crate::support::fixture;

fn error_for(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let err = read_path(&path, &ReadOptions::default()).unwrap_err();
    err.to_string()
        .replace(&*dir.path().to_string_lossy(), "<dir>")
}

#[test]
fn unreadable_inputs_each_get_one_line() {
    let missing = read_path(&fixture("no/such.jsonl"), &ReadOptions::default()).unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }));
    let dir = read_path(&fixture("claude"), &ReadOptions::default()).unwrap_err();
    assert!(matches!(dir, Error::IsDirectory { .. }));
    insta::assert_snapshot!(error_for(b""), @"failed to read `<dir>/log.jsonl`: the file is empty");
    insta::assert_snapshot!(error_for(b"\n \n\t\n"), @"failed to read `<dir>/log.jsonl`: the file is empty");
    insta::assert_snapshot!(error_for(b"\x7fELF\x02\x01\x01\x00\x00\x00"), @"failed to read `<dir>/log.jsonl`: it is a binary file, not a text log");
    insta::assert_snapshot!(error_for(b"{\"role\":\"user\",\"content\":\"ok\"}\n{\"role\":\"user\",\"content\":\"caf\xe9\"}\n"), @"failed to read `<dir>/log.jsonl`: line 2 is not valid UTF-8");
    insta::assert_snapshot!(error_for(b"hello world\n"), @"failed to read `<dir>/log.jsonl`: no line looks like a Claude Code, Codex, Gemini CLI, opencode, Cursor, chat-message or vouch log (hint: force a format with --log-format)");
}

#[test]
fn strict_mode_stops_at_the_first_bad_line() {
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let err = read_path(&fixture("claude/bad-lines.jsonl"), &strict).unwrap_err();
    let Error::Bad(d) = err else {
        panic!("expected a bad line, got {err}")
    };
    assert_eq!((d.line, d.column), (3, Some(2)));
    assert_eq!(d.reason, "not JSON: expected ident");
}

#[test]
fn a_forced_format_skips_detection() {
    let options = ReadOptions {
        format: Some(Format::Chat),
        ..ReadOptions::default()
    };
    // Claude records are not chat messages: nothing is read, which is an error, not an empty
    // session.
    let err = read_path(&fixture("claude/crlf.jsonl"), &options).unwrap_err();
    let Error::NoEvents {
        format, skipped, ..
    } = &err
    else {
        panic!("expected no events, got {err}")
    };
    assert_eq!((format.as_str(), *skipped), ("chat-message", 3));
    insta::assert_snapshot!(
        err.to_string().replace(&*fixture("").to_string_lossy(), ""),
        @"failed to read `claude/crlf.jsonl`: no message or tool call could be read from it as a chat-message log; 3 bad lines were skipped (hint: if it is another agent's log, force its format with --log-format)"
    );
}

/// A log from which no event is read is refused unless the format allows an empty session
/// there; Claude Code's summary-only files do.
#[test]
fn a_silent_zero_is_an_error_unless_the_format_allows_empty_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let cursor = dir.path().join("cursor.jsonl");
    std::fs::write(
        &cursor,
        "{\"role\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n",
    )
    .unwrap();
    let chat = ReadOptions {
        format: Some(Format::Chat),
        ..ReadOptions::default()
    };
    assert!(matches!(
        read_path(&cursor, &chat),
        Err(Error::NoEvents { .. })
    ));
    let codex = ReadOptions {
        format: Some(Format::Codex),
        ..ReadOptions::default()
    };
    assert!(matches!(
        read_path(&fixture("claude/flat/f-1.jsonl"), &codex),
        Err(Error::NoEvents { .. })
    ));
    let report = read_path(
        &fixture("claude/summary-only.jsonl"),
        &ReadOptions::default(),
    )
    .unwrap();
    assert!(report.session.events.is_empty());
}

#[test]
fn arbitrary_bytes_never_panic() {
    use proptest::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.jsonl");
    proptest!(ProptestConfig::with_cases(200), |(bytes in proptest::collection::vec(any::<u8>(), 0..400), format in 0usize..8)| {
        std::fs::write(&path, &bytes).unwrap();
        let format = [None, Some(Format::ClaudeCode), Some(Format::Codex), Some(Format::Chat), Some(Format::Vouch), Some(Format::Gemini), Some(Format::Opencode), Some(Format::Cursor)][format];
        let _ = read_path(&path, &ReadOptions { format, ..ReadOptions::default() });
    });
}
