//! One top-level string of a small JSON object (a tool call's arguments), found without
//! building the object: a session of a hundred thousand calls then holds no tree of each.

use super::cursor::{Cursor, Kind};
use super::{Buffers, index};

/// What the text holds under a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// A string with no escape, as it stands in the text.
    Plain(&'a str),
    /// Nothing: the text is an object without the key.
    Absent,
    /// Something else (a string with an escape, a value of another kind, a key with an
    /// escape, a text that is not an object): the caller parses the text.
    Other,
}

/// Looks `key` up at the top of `json`, which is one valid JSON value. A key given twice is
/// read as serde_json reads it: the last one counts.
pub(crate) fn string_field<'a>(json: &'a str, key: &str) -> Lookup<'a> {
    let mut buffers = Buffers::default();
    let Ok(index) = index(json, &mut buffers) else {
        return Lookup::Other;
    };
    let mut c = Cursor::new(&index);
    if c.kind() != Ok(Kind::Object) {
        return Lookup::Other;
    }
    let mut found = Lookup::Absent;
    let walked = c.object(|c, k| {
        if k != key {
            return c.skip_other(k);
        }
        found = match c.kind()? {
            Kind::String => match c.string()? {
                std::borrow::Cow::Borrowed(s) => Lookup::Plain(s),
                std::borrow::Cow::Owned(_) => Lookup::Other,
            },
            _ => {
                c.skip()?;
                Lookup::Other
            }
        };
        Ok(())
    });
    if walked.is_err() || !c.at_end() {
        return Lookup::Other;
    }
    found
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn finds_plain_strings_and_leaves_the_rest_to_the_parser() {
        let json = r#"{"command":"cargo test","n":1,"esc":"a\nb","list":["x"],"command2":"y"}"#;
        assert_eq!(string_field(json, "command"), Lookup::Plain("cargo test"));
        assert_eq!(string_field(json, "missing"), Lookup::Absent);
        assert_eq!(string_field(json, "esc"), Lookup::Other);
        assert_eq!(string_field(json, "list"), Lookup::Other);
        assert_eq!(string_field(json, "n"), Lookup::Other);
        assert_eq!(string_field(r#""text""#, "command"), Lookup::Other);
        assert_eq!(
            string_field(r#"{"a":1,"a":"two"}"#, "a"),
            Lookup::Plain("two")
        );
        // Decoded, `\u0063ommand` is `command`.
        assert_eq!(
            string_field(r#"{"\u0063ommand":"x"}"#, "command"),
            Lookup::Other
        );
    }

    proptest! {
        #[test]
        fn agrees_with_the_parsed_value(
            fields in proptest::collection::vec(
                (proptest::sample::select(vec!["a", "b", "d\\u0061"]),
                 proptest::prop_oneof![
                    "[a-z \"\\\\\n]{0,6}".prop_map(serde_json::Value::String),
                    any::<i32>().prop_map(serde_json::Value::from),
                 ]),
                0..5),
            key in proptest::sample::select(vec!["a", "b", "da", "z"]),
        ) {
            let json = format!("{{{}}}", fields
                .iter()
                .map(|(k, v)| format!("\"{k}\":{v}"))
                .collect::<Vec<_>>()
                .join(","));
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            let parsed = value.get(key).map(serde_json::Value::as_str);
            match string_field(&json, key) {
                Lookup::Plain(s) => proptest::prop_assert_eq!(parsed, Some(Some(s))),
                Lookup::Absent => proptest::prop_assert_eq!(parsed, None),
                Lookup::Other => {}
            }
        }
    }
}
