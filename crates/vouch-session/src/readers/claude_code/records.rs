//! The records of a Claude Code log as serde reads them: only the keys vouch uses, borrowed
//! from the line where they can be.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};

use crate::readers::common::{self, Count};
use crate::session::Usage;

/// One line of a Claude Code log; only the keys vouch uses. Raw values are the JSON text of
/// the value as it stands in the line.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Record<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) uuid: Option<Cow<'a, str>>,
    #[serde(
        rename = "parentUuid",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) parent_uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    pub(super) is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    pub(super) is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    pub(super) is_compact_summary: Option<bool>,
    #[serde(
        rename = "sessionId",
        alias = "session_id",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) session_id: Option<Cow<'a, str>>,
    #[serde(
        rename = "agentId",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) agent_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolUseResult", default)]
    pub(super) tool_use_result: Option<ResultInfo>,
    #[serde(borrow, default, deserialize_with = "common::opt_raw")]
    pub(super) data: Option<&'a str>,
    #[serde(
        rename = "parentToolUseID",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) progress_tool_use_id: Option<Cow<'a, str>>,
    #[serde(
        rename = "parent_tool_use_id",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) model: Option<Cow<'a, str>>,
}

/// Implements a visitor's methods for numbers and booleans, each returning `$value`: the
/// tolerant fields below accept any JSON and use only some shapes of it.
macro_rules! numbers_and_bools_become {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// What a record holds under `message`: an Anthropic Messages API message, or, in a record
/// type this reader does not know, anything else.
#[derive(Debug, PartialEq)]
pub(super) enum Message<'a> {
    Api {
        id: Option<Cow<'a, str>>,
        model: Option<Cow<'a, str>>,
        content: Content<'a>,
        usage: Option<Usage>,
    },
    NotAnObject,
}

/// A message's `content`: a string, or an array of blocks.
#[derive(Debug, PartialEq)]
pub(super) enum Content<'a> {
    Missing,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Invalid,
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Message<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'a>, A::Error> {
                let (mut id, mut model, mut content) = (None, None, Content::Missing);
                let mut usage = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "id" => id = map.next_value::<Option<Cow<'de, str>>>()?,
                        "model" => model = map.next_value::<Option<Cow<'de, str>>>()?,
                        "content" => content = map.next_value::<Content<'de>>()?,
                        "usage" => usage = map.next_value::<ApiUsage>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Message::Api {
                    id,
                    model,
                    content,
                    usage,
                })
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Message<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Message::NotAnObject)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Message<'a>, E> {
                Ok(Message::NotAnObject)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Message<'a>, E> {
                Ok(Message::NotAnObject)
            }
            numbers_and_bools_become!(Message::NotAnObject);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(s)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(block) = seq.next_element::<Block<'de>>()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content::Missing)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Invalid)
            }
            numbers_and_bools_become!(Content::Invalid);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A message's `usage` (Anthropic Messages API): read when it is an object of counts, ignored
/// in any other shape.
pub(super) struct ApiUsage(pub(super) Option<Usage>);

impl<'de> Deserialize<'de> for ApiUsage {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ApiUsage;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("token usage")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ApiUsage, A::Error> {
                let mut usage = Usage::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let field = match &*key {
                        "input_tokens" => &mut usage.input,
                        "output_tokens" => &mut usage.output,
                        "cache_read_input_tokens" => &mut usage.cache_read,
                        "cache_creation_input_tokens" => &mut usage.cache_write,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *field = map.next_value::<Count>()?.0;
                }
                Ok(ApiUsage(Some(usage)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ApiUsage, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ApiUsage(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ApiUsage, E> {
                Ok(ApiUsage(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ApiUsage, E> {
                Ok(ApiUsage(None))
            }
            numbers_and_bools_become!(ApiUsage(None));
        }
        d.deserialize_any(V)
    }
}

/// A content block of a message.
#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) text: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_raw")]
    pub(super) input: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_raw")]
    pub(super) content: Option<&'a str>,
    #[serde(default)]
    pub(super) is_error: Option<bool>,
}

/// The `data` of a `progress` record; `agent_progress` links a subagent to its Task call.
#[derive(Deserialize)]
pub(super) struct ProgressData<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "common::opt_cow")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(
        rename = "agentId",
        borrow,
        default,
        deserialize_with = "common::opt_cow"
    )]
    pub(super) agent_id: Option<Cow<'a, str>>,
}

/// What vouch takes from a `toolUseResult`, which is a string or an object of any shape.
#[derive(Default, Debug, PartialEq)]
pub(super) struct ResultInfo {
    pub(super) agent_id: Option<String>,
    pub(super) interrupted: bool,
}

impl<'de> Deserialize<'de> for ResultInfo {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultInfo;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool use result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResultInfo, A::Error> {
                let mut info = ResultInfo::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "agentId" => info.agent_id = map.next_value::<Option<String>>()?,
                        "interrupted" => {
                            info.interrupted = map.next_value::<Option<bool>>()?.unwrap_or(false);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(info)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ResultInfo, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ResultInfo::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ResultInfo, E> {
                Ok(ResultInfo::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<ResultInfo, E> {
                Ok(ResultInfo::default())
            }
            numbers_and_bools_become!(ResultInfo::default());
        }
        d.deserialize_any(V)
    }
}
