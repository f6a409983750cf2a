use proptest::prelude::*;
use serde_json::json;

use super::*;

/// Answers `echo` with its params and `fail` with a protocol error; nothing else exists.
struct Echo;

impl Methods for Echo {
    fn call(&self, method: &str, params: Option<&Value>, _: Extras<'_>) -> Result<Value, Failure> {
        match method {
            "echo" => Ok(params.cloned().unwrap_or(Value::Null)),
            "fail" => Err(Failure::new(
                code::CIRCULAR_DEPENDENCY,
                Some(json!({"cycle": ["a", "b", "a"]})),
            )),
            other => Err(Failure::method_not_found(other)),
        }
    }
}

fn reply(body: &str) -> Option<Value> {
    handle(body.as_bytes(), &Echo).map(|out| serde_json::from_slice(&out).unwrap_or_default())
}

#[test]
fn every_kind_of_call_gets_the_specified_answer() {
    insta::assert_json_snapshot!([
        reply(r#"{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": 1}}"#),
        reply(r#"{"jsonrpc": "2.0", "id": "x", "method": "fail", "params": []}"#),
        reply(r#"{"jsonrpc": "2.0", "id": 2, "method": "nope"}"#),
        reply(r#"{"jsonrpc": "2.0", "method": "echo"}"#),
        reply(r#"{"jsonrpc": "2.0", "method": "nope"}"#),
        reply(r#"{"jsonrpc": "2.0", "id": 3, "method": "echo""#),
        reply(r#"{"jsonrpc": "1.0", "id": 4, "method": "echo"}"#),
        reply(r#"{"jsonrpc": "2.0", "id": 5, "method": "echo", "params": 7}"#),
        reply(r#"{"jsonrpc": "2.0", "id": [6], "method": "echo"}"#),
        reply(r#"{"jsonrpc": "2.0", "id": 7, "method": "echo", "extra": true}"#),
        reply("[]"),
        reply("[1, 2]"),
        reply(
            r#"[{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [1]}, {"jsonrpc": "2.0", "method": "echo"}, {"jsonrpc": "2.0", "id": 2, "method": "nope"}]"#
        ),
        reply(r#"[{"jsonrpc": "2.0", "method": "echo"}, {"jsonrpc": "2.0", "method": "nope"}]"#),
    ]);
}

#[test]
fn codes_have_their_messages() {
    assert_eq!(code::message(code::CANNOT_DELETE), "Cannot delete task");
    assert_eq!(code::message(code::PARSE_ERROR), "Parse error");
    assert_eq!(code::message(12345), "Internal error");
}

proptest! {
    #[test]
    fn any_body_is_answered_without_panicking(body in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = handle(&body, &Echo);
    }

    #[test]
    fn a_batch_answers_each_call_with_its_own_id(ids in proptest::collection::vec(0u32..1000, 1..20)) {
        let batch: Vec<Value> = ids
            .iter()
            .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "echo", "params": [i]}))
            .collect();
        let out = reply(&Value::Array(batch).to_string()).unwrap_or_default();
        let answers = out.as_array().cloned().unwrap_or_default();
        prop_assert_eq!(answers.len(), ids.len());
        for (answer, id) in answers.iter().zip(&ids) {
            prop_assert_eq!(&answer["id"], &json!(id));
            prop_assert_eq!(&answer["result"], &json!([id]));
        }
    }
}
