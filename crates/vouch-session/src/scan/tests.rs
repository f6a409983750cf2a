use proptest::prelude::*;
use serde::de::IgnoredAny;

use super::cursor::{Cursor, Scalar, is_number};
use super::{Buffers, index};

/// Returns the text of the one value `text` holds, as the scanner reads it, or `None` when it
/// declines the text.
fn scan(text: &str) -> Option<String> {
    let mut buffers = Buffers::default();
    let index = index(text, &mut buffers).ok()?;
    let mut c = Cursor::new(&index);
    let value = c.skip().ok()?;
    c.at_end().then(|| value.to_owned())
}

fn serde_accepts(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

#[test]
fn strings_are_found_across_chunks_and_escapes() {
    for pad in 0..70 {
        let key = "k".repeat(pad);
        for body in [
            r#"a\"b"#,
            r"a\\",
            r#"\\\"\\"#,
            r"\u00e9\n",
            "é\u{1F600}",
            "",
        ] {
            let text = format!(r#"{{"{key}":"{body}","n":[1,-2.5e3,true,null]}}"#);
            assert_eq!(scan(&text).as_deref(), Some(text.as_str()), "{text}");
        }
    }
}

#[test]
fn what_serde_refuses_the_scanner_declines() {
    for text in [
        r#"{"a":"b\q"}"#,
        r#"{"a":"b\u12"}"#,
        r#"{"a":"b\u12g4"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":"open}"#,
        r#"{"a":1}x"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":.5}"#,
        r#"{"a":-}"#,
        r#"{"a":tru}"#,
        r#"{"a" 1}"#,
        r#"{"a":1,}"#,
        r#"{"a":[1,]}"#,
        r#"{"a":[1 2]}"#,
        r"{a:1}",
        r#"{"a":1\}"#,
        r#"{"a":"x"\"}"#,
        "{\"a\":\u{1}1}",
        r#"{"a":{"b":1}"#,
        r#"{"a":1}}"#,
    ] {
        assert!(!serde_accepts(text), "serde accepts {text}");
        assert_eq!(scan(text), None, "{text}");
    }
}

#[test]
fn nesting_deeper_than_its_limit_is_left_to_serde() {
    let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
    assert_eq!(scan(&deep), None);
    let shallow = format!("{}1{}", "[".repeat(50), "]".repeat(50));
    assert_eq!(scan(&shallow).as_deref(), Some(shallow.as_str()));
}

#[test]
fn numbers_follow_json_s_grammar() {
    for n in [
        "0",
        "-0",
        "12",
        "-12.5",
        "1e9",
        "1E+9",
        "2.5e-3",
        "18446744073709551616",
    ] {
        assert!(is_number(n.as_bytes()), "{n}");
    }
    for n in [
        "", "-", "01", "1.", ".1", "1e", "1e+", "+1", "0x1", "1.2.3", "NaN",
    ] {
        assert!(!is_number(n.as_bytes()), "{n}");
    }
}

#[test]
fn a_string_with_an_escape_is_decoded_and_one_without_is_borrowed() {
    let text = r#"["plain", "a\nb\u00e9", null, false, 7]"#;
    let mut buffers = Buffers::default();
    let index = index(text, &mut buffers).unwrap();
    let mut c = Cursor::new(&index);
    let mut got = Vec::new();
    c.array(|c| {
        match c.kind()? {
            super::cursor::Kind::String => {
                let s = c.string()?;
                got.push(format!(
                    "{}:{s}",
                    matches!(s, std::borrow::Cow::Borrowed(_))
                ));
            }
            _ => got.push(format!("{:?}", c.scalar()?)),
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(
        got,
        [
            "true:plain".to_owned(),
            "false:a\nbé".to_owned(),
            format!("{:?}", Scalar::Null),
            format!("{:?}", Scalar::Bool(false)),
            format!("{:?}", Scalar::Number("7")),
        ]
    );
}

/// Any JSON value, strings full of what needs escaping.
fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let text = "[a-z\"\\\\/\\n\\t\\u{1}\\u{1f}é\\u{1F600} ]{0,80}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(text, inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Returns true when no key in `value` needs an escape.
fn keys_plain(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .all(|(k, v)| !k.chars().any(|c| c == '"' || c == '\\' || c < ' ') && keys_plain(v)),
        serde_json::Value::Array(items) => items.iter().all(keys_plain),
        _ => true,
    }
}

/// A change to a text: bytes cut out, or a character that matters to JSON put in.
fn mutation() -> impl Strategy<Value = (prop::sample::Index, usize, Option<char>)> {
    (
        any::<prop::sample::Index>(),
        0usize..4,
        prop::option::of(prop::sample::select(
            "{}[]:,\"\\ \tuenl0-.e\u{1}x".chars().collect::<Vec<_>>(),
        )),
    )
}

fn mutate(text: &str, (at, cut, put): (prop::sample::Index, usize, Option<char>)) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = at.index(chars.len() + 1);
    let mut out: String = chars[..at].iter().collect();
    out.extend(put);
    out.extend(chars[(at + cut).min(chars.len())..].iter());
    out
}

proptest! {
    #[test]
    fn every_json_value_is_read_whole(value in json(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        // The scanner leaves keys with escapes to serde; every other value it reads whole.
        match scan(&text) {
            Some(read) => prop_assert_eq!(read, text),
            None => prop_assert!(!keys_plain(&value), "declined {}", text),
        }
    }

    #[test]
    fn the_scanner_never_accepts_what_serde_refuses(value in json(), change in mutation()) {
        let text = mutate(&serde_json::to_string(&value).unwrap(), change);
        if scan(&text).is_some() {
            prop_assert!(serde_accepts(&text), "accepted {}", text);
        }
    }
}
