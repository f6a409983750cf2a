use proptest::prelude::*;
use serde_json::Value;

use super::*;

/// Returns the record the scanner reads from `line`, after checking that serde reads the same
/// one; `None` when the scanner declines the line.
fn both(line: &str) -> Option<Record<'_>> {
    let fast = read(line)?;
    match serde_json::from_str::<Record<'_>>(line) {
        Ok(slow) => assert_eq!(fast, slow, "{line}"),
        Err(e) => panic!("the scanner accepted a line serde refuses ({e}): {line}"),
    }
    Some(fast)
}

/// The record the scanner reads from `line`, or `None`.
fn read(line: &str) -> Option<Record<'_>> {
    let mut rec = Record::default();
    record(line, &mut Buffers::default(), &mut rec).ok()?;
    Some(rec)
}

/// Every line of every Claude Code log in `folder` and below.
fn lines_under(folder: &std::path::Path, lines: &mut Vec<String>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            lines_under(&path, lines);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            lines.extend(text.lines().map(|l| l.trim_end_matches('\r').to_owned()));
        }
    }
}

#[test]
fn the_fixtures_read_as_serde_reads_them() {
    let mut lines = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude");
    lines_under(&root, &mut lines);
    assert!(lines.len() > 50, "{} lines", lines.len());
    let mut read = 0;
    for line in &lines {
        if line.trim().is_empty() {
            continue;
        }
        let serde_reads = serde_json::from_str::<Record<'_>>(line).is_ok();
        match both(line) {
            Some(_) => read += 1,
            // Only lines serde refuses (the fixtures' bad and torn lines) are left to it.
            None => assert!(!serde_reads, "the scanner declined a good line: {line}"),
        }
    }
    assert!(read > 50, "{read}");
}

#[test]
fn a_generated_log_is_read_by_the_scanner_alone() {
    let log = vouch_loggen::ClaudeLog {
        tool_calls: 300,
        result_bytes: 700,
        fail_every: 7,
        ..Default::default()
    };
    let mut bytes = Vec::new();
    log.write(&mut bytes).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    for line in text.lines() {
        assert!(both(line).is_some(), "declined: {line}");
    }
}

#[test]
fn a_field_given_twice_is_left_to_serde() {
    for line in [
        r#"{"type":"user","type":"assistant"}"#,
        r#"{"sessionId":"a","session_id":"b"}"#,
        r#"{"type":"user","message":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
    ] {
        assert!(serde_json::from_str::<Record<'_>>(line).is_err(), "{line}");
        assert!(read(line).is_none(), "{line}");
    }
    // Keys the reader reads by hand (a message's, a result's) take the last value, as serde.
    let line = r#"{"type":"assistant","message":{"id":"a","id":"b","content":"x"}}"#;
    assert!(both(line).is_some());
}

#[test]
fn a_key_with_an_escape_where_keys_are_read_is_left_to_serde() {
    // Decoded, `typ\u0065` is `type`: serde reads it as the record's type.
    let line = r#"{"typ\u0065":"user","message":{"content":"hi"}}"#;
    let serde: Record<'_> = serde_json::from_str(line).unwrap();
    assert_eq!(serde.kind.as_deref(), Some("user"));
    assert!(read(line).is_none());
    let line = r#"{"type":"assistant","message":{"\u0069d":"m1","content":"x"}}"#;
    assert!(read(line).is_none());
}

#[test]
fn odd_shapes_read_as_serde_reads_them() {
    for line in [
        r#"{"type":"user","message":"text"}"#,
        r#"{"type":"user","message":null}"#,
        r#"{"type":"user","message":[1,2]}"#,
        r#"{"type":"user","message":{"content":{"a":1}}}"#,
        r#"{"type":"user","message":{"content":null}}"#,
        r#"{"type":"user","message":{"content":7}}"#,
        r#"{"type":"assistant","message":{"usage":{"input_tokens":-3,"output_tokens":2.5,"cache_read_input_tokens":"9","cache_creation_input_tokens":null}}}"#,
        r#"{"type":"assistant","message":{"usage":[1]}}"#,
        r#"{"type":"user","toolUseResult":"Error: no","data":null}"#,
        r#"{"type":"user","toolUseResult":{"agentId":"a1","interrupted":true}}"#,
        r#"{"type":"user","toolUseResult":null}"#,
        r#"{"type":"progress","data":{"type":"agent_progress","agentId":"x"},"parentToolUseID":"t"}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a\"b"}],"is_error":false}]}}"#,
        " { \"type\" : \"user\" , \"message\" : { \"content\" : \"hi\\u00e9\" } } ",
        r#"{"uuid":null,"isSidechain":null,"cwd":"C:\\work"}"#,
        // Keys deeper than the ones read are taken as they stand, as serde takes them.
        r#"{"type":"user","version":{"a\"b":1,"\u0041":[]},"message":{"content":"x"}}"#,
    ] {
        assert!(both(line).is_some(), "declined: {line}");
    }
}

/// A value of any kind; strings full of what needs escaping.
fn any_value() -> BoxedStrategy<Value> {
    let text = "[a-z\"\\\\\\n\\u{1}é ]{0,12}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        (-1e3f64..1e3).prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 12, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(text, inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// An object with some of `fields`, each holding what its strategy makes or, now and then, a
/// value of any kind.
fn object_of(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    fields
        .into_iter()
        .map(|(key, value)| {
            prop::option::weighted(0.5, prop_oneof![12 => value, 1 => any_value()])
                .prop_map(move |v| v.map(|v| (key.to_owned(), v)))
                .boxed()
        })
        .collect::<Vec<_>>()
        .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect()))
        .boxed()
}

/// A string full of what needs escaping, or now and then `null`.
fn text() -> BoxedStrategy<Value> {
    prop_oneof![
        8 => "[a-z_\"\\\\\\n é]{0,16}".prop_map(Value::String),
        1 => Just(Value::Null),
    ]
    .boxed()
}

fn flag() -> BoxedStrategy<Value> {
    prop_oneof![4 => any::<bool>().prop_map(Value::Bool), 1 => Just(Value::Null)].boxed()
}

fn one_of(words: &[&'static str]) -> BoxedStrategy<Value> {
    prop::sample::select(words.to_vec())
        .prop_map(Value::from)
        .boxed()
}

/// A Claude Code record: its keys, with values of the kinds Claude Code writes, and of others.
fn a_record() -> impl Strategy<Value = Value> {
    let block = object_of(vec![
        (
            "type",
            one_of(&["text", "tool_use", "tool_result", "thinking"]),
        ),
        ("text", text()),
        ("id", text()),
        ("name", text()),
        ("input", any_value()),
        ("tool_use_id", text()),
        ("content", prop_oneof![text(), any_value()].boxed()),
        ("is_error", flag()),
        ("x", any_value()),
    ]);
    let count = prop_oneof![
        4 => any::<u32>().prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => (-1e3f64..1e3).prop_map(Value::from),
    ]
    .boxed();
    let usage = object_of(vec![
        ("input_tokens", count.clone()),
        ("output_tokens", count.clone()),
        ("cache_read_input_tokens", count.clone()),
        ("cache_creation_input_tokens", count),
        ("service_tier", text()),
    ]);
    let content = prop_oneof![
        3 => prop::collection::vec(block, 0..3).prop_map(Value::Array),
        1 => text(),
    ]
    .boxed();
    let message = object_of(vec![
        ("id", text()),
        ("model", text()),
        ("content", content),
        ("usage", usage),
        ("role", text()),
    ]);
    let result = object_of(vec![
        ("agentId", text()),
        ("interrupted", flag()),
        ("stdout", text()),
    ]);
    object_of(vec![
        ("type", one_of(&["user", "assistant", "progress", "system"])),
        ("subtype", one_of(&["init", "compact"])),
        ("message", message),
        ("uuid", text()),
        ("parentUuid", text()),
        ("timestamp", text()),
        ("isSidechain", flag()),
        ("isMeta", flag()),
        ("isCompactSummary", flag()),
        ("sessionId", text()),
        ("session_id", text()),
        ("agentId", text()),
        ("toolUseResult", prop_oneof![result, text()].boxed()),
        ("data", any_value()),
        ("parentToolUseID", text()),
        ("parent_tool_use_id", text()),
        ("cwd", text()),
        ("model", text()),
        ("version", any_value()),
    ])
}

/// Returns true when `rec` has what the scanner leaves to serde by design: a key that needs an
/// escape, or a token count that is an array or an object.
fn left_to_serde(rec: &Value) -> bool {
    fn escaped_key(v: &Value) -> bool {
        match v {
            Value::Object(map) => map.iter().any(|(k, v)| {
                k.chars().any(|c| c == '"' || c == '\\' || c < ' ') || escaped_key(v)
            }),
            Value::Array(items) => items.iter().any(escaped_key),
            _ => false,
        }
    }
    let container_count = rec
        .pointer("/message/usage")
        .and_then(Value::as_object)
        .is_some_and(|usage| {
            usage
                .iter()
                .any(|(k, v)| k.ends_with("_tokens") && (v.is_object() || v.is_array()))
        });
    escaped_key(rec) || container_count
}

proptest! {
    // Many cases: a difference may need a rare pairing of fields to show.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn records_read_as_serde_reads_them(rec in a_record()) {
        // (About half the records hold a value of a kind serde refuses somewhere.)
        let line = serde_json::to_string(&rec).unwrap();
        let serde_reads = serde_json::from_str::<Record<'_>>(&line).is_ok();
        // `both` checks any record the scanner reads against serde's.
        let fast_reads = both(&line).is_some();
        if serde_reads && !fast_reads {
            prop_assert!(left_to_serde(&rec), "declined a good line: {}", line);
        }
    }

    #[test]
    fn a_damaged_record_is_never_read_otherwise_than_serde_would(
        rec in a_record(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..3,
        put in prop::option::of(prop::sample::select(
            "{}[]:,\"\\ ue0-.\u{1}".chars().collect::<Vec<_>>(),
        )),
    ) {
        let line = serde_json::to_string(&rec).unwrap();
        let chars: Vec<char> = line.chars().collect();
        let at = at.index(chars.len() + 1);
        let mut damaged: String = chars[..at].iter().collect();
        damaged.extend(put);
        damaged.extend(chars[(at + cut).min(chars.len())..].iter());
        both(&damaged);
    }
}
