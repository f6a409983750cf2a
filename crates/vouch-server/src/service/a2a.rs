//! What the A2A request shape adds to a call (the interface page's "A2A Protocol Methods",
//! "Streaming" and "Push Notifications"): `metadata.stream` or `params.use_streaming` asks for
//! the answer of `tasks.execute` as a Server-Sent Events stream, and
//! `configuration.push_notification_config` (beside `params`, as the page writes it, or inside
//! them, as A2A's own `MessageSendParams` does) names a callback every event of the tree is
//! posted to. Both apply to `tasks.execute` only; anything else in these members is refused by
//! name.

use std::net::ToSocketAddrs;

use serde_json::{Map, Value};

use super::Params;
use crate::rpc::{Extras, Failure};
use crate::store::PushTarget;

/// What a `tasks.execute` call asked for beyond its tasks.
#[derive(Debug, Default)]
pub(super) struct Delivery {
    /// Answer with the event stream.
    pub(super) stream: bool,
    /// The request came in the A2A shape (`metadata` or `configuration`): answers and events
    /// carry `protocol: "a2a"`.
    pub(super) a2a: bool,
    /// Where to push the tree's events.
    pub(super) push: Option<PushTarget>,
}

/// The params members this file reads (taken out before the tasks are read).
pub(super) const PARAMS_KEYS: &[&str] = &["use_streaming", "configuration"];

/// Reads what `method`'s call asks beyond its params; refuses what does not apply.
/// `allow_private` lets a callback reach private addresses (`--allow-private-http`).
pub(super) fn delivery(
    method: &str,
    p: &Params<'_>,
    extras: Extras<'_>,
    allow_private: bool,
) -> Result<Delivery, Failure> {
    let mut out = Delivery {
        a2a: extras.metadata.is_some() || extras.configuration.is_some(),
        ..Delivery::default()
    };
    if let Some(metadata) = extras.metadata {
        for (key, value) in metadata {
            match (key.as_str(), value) {
                ("stream", Value::Bool(b)) => out.stream |= *b,
                ("stream", _) => {
                    return Err(Failure::invalid_params(
                        "`metadata.stream` must be true or false",
                    ));
                }
                (other, _) => {
                    return Err(Failure::invalid_params(format!(
                        "`metadata.{other}` is not understood (vouch reads `metadata.stream`)"
                    )));
                }
            }
        }
    }
    out.stream |= p.flag("use_streaming", false)?;
    let inner = match p.get("configuration") {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => {
            return Err(Failure::invalid_params(
                "`params.configuration` must be an object",
            ));
        }
    };
    let configuration = match (extras.configuration, inner) {
        (Some(_), Some(_)) => {
            return Err(Failure::invalid_params(
                "give `configuration` beside `params` or inside them, not both",
            ));
        }
        (a, b) => a.or(b),
    };
    if let Some(configuration) = configuration {
        out.a2a = true;
        for (key, value) in configuration {
            match key.as_str() {
                "push_notification_config" | "pushNotificationConfig" => {
                    out.push = Some(push_target(value, allow_private)?);
                }
                other => {
                    return Err(Failure::invalid_params(format!(
                        "`configuration.{other}` is not understood (vouch reads `configuration.push_notification_config`)"
                    )));
                }
            }
        }
    }
    if method != "tasks.execute" && (out.stream || out.push.is_some()) {
        return Err(Failure::invalid_params(format!(
            "streaming and push notifications apply to `tasks.execute`, not `{method}`"
        )));
    }
    if out.stream && extras.in_batch {
        return Err(Failure::invalid_params(
            "a call in a batch cannot be answered with a stream: send it alone, or follow GET /events/{root_task_id}",
        ));
    }
    Ok(out)
}

/// Reads `push_notification_config`: `url` (http or https), `headers` (strings), `method`
/// (POST, the page's MUST).
fn push_target(value: &Value, allow_private: bool) -> Result<PushTarget, Failure> {
    let Value::Object(config) = value else {
        return Err(Failure::invalid_params(
            "`push_notification_config` must be an object with a `url`",
        ));
    };
    let mut url = None;
    let mut headers = Vec::new();
    for (key, value) in config {
        match (key.as_str(), value) {
            ("url", Value::String(u)) => url = Some(u.clone()),
            ("headers", Value::Object(h)) => headers = strings(h)?,
            ("headers", Value::Null) => {}
            ("method", Value::String(m)) if m.eq_ignore_ascii_case("post") => {}
            ("method", _) => {
                return Err(Failure::invalid_params(
                    "`push_notification_config.method` must be \"POST\": callbacks are HTTP POST requests",
                ));
            }
            ("url" | "headers", _) => {
                return Err(Failure::invalid_params(format!(
                    "`push_notification_config.{key}` must be {}",
                    if key == "url" {
                        "a string"
                    } else {
                        "an object of strings"
                    }
                )));
            }
            (other, _) => {
                return Err(Failure::invalid_params(format!(
                    "`push_notification_config.{other}` is not understood (vouch reads `url`, `headers`, `method`)"
                )));
            }
        }
    }
    let url =
        url.ok_or_else(|| Failure::invalid_params("`push_notification_config.url` is required"))?;
    check_url(&url, allow_private)?;
    Ok(PushTarget::new(url, headers, None))
}

fn strings(headers: &Map<String, Value>) -> Result<Vec<(String, String)>, Failure> {
    headers
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            _ => Err(Failure::invalid_params(format!(
                "`push_notification_config.headers.{k}` must be a string"
            ))),
        })
        .collect()
}

/// Refuses a callback URL that is not http(s) with a host, or — unless allowed — one whose host
/// is a non-public address now (it is checked again at each delivery).
fn check_url(url: &str, allow_private: bool) -> Result<(), Failure> {
    let parsed = reqwest::Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| {
            Failure::invalid_params(format!(
                "`push_notification_config.url` `{url}` is not an http or https URL with a host"
            ))
        })?;
    if allow_private {
        return Ok(());
    }
    let host = parsed.host_str().unwrap_or_default();
    let port = parsed.port_or_known_default().unwrap_or(80);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(addresses) = (host, port).to_socket_addrs() {
        for a in addresses {
            if !vouch_llm::guarded::public(a.ip()) {
                return Err(Failure::invalid_params(format!(
                    "the callback {url} resolves to {}, which is not a public address (start the server with --allow-private-http to allow it)",
                    a.ip()
                )));
            }
        }
    }
    Ok(())
}

/// Returns `params` without the members this file reads, so the rest reads as tasks; `None`
/// when it has none of them.
pub(super) fn without_delivery_keys(params: Option<&Value>) -> Option<Value> {
    match params {
        Some(Value::Object(m)) if PARAMS_KEYS.iter().any(|k| m.contains_key(*k)) => {
            let mut m = m.clone();
            for k in PARAMS_KEYS {
                m.remove(*k);
            }
            Some(Value::Object(m))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(
        params: &Value,
        metadata: Option<&Value>,
        configuration: Option<&Value>,
    ) -> Result<Delivery, Failure> {
        let p = Params::of(Some(params))?;
        let extras = Extras {
            metadata: metadata.and_then(Value::as_object),
            configuration: configuration.and_then(Value::as_object),
            in_batch: false,
        };
        delivery("tasks.execute", &p, extras, false)
    }

    #[test]
    fn streaming_comes_from_either_member() {
        assert!(
            read(&json!({"use_streaming": true}), None, None)
                .unwrap()
                .stream
        );
        let d = read(&json!({}), Some(&json!({"stream": true})), None).unwrap();
        assert!(d.stream && d.a2a);
        assert!(!read(&json!({}), None, None).unwrap().stream);
    }

    #[test]
    fn what_is_not_understood_is_refused_by_name() {
        let e = read(&json!({}), Some(&json!({"trace": 1})), None).unwrap_err();
        assert!(format!("{:?}", e.data).contains("metadata.trace"));
        let e = read(&json!({}), None, Some(&json!({"push_notification_config": {"url": "https://example.com/cb", "retries": 3}}))).unwrap_err();
        assert!(format!("{:?}", e.data).contains("push_notification_config.retries"));
        let e = read(&json!({}), None, Some(&json!({"push_notification_config": {"url": "https://example.com/cb", "method": "PUT"}}))).unwrap_err();
        assert!(format!("{:?}", e.data).contains("POST"));
    }

    #[test]
    fn a_private_callback_needs_the_servers_permission() {
        let config = json!({"push_notification_config": {"url": "http://127.0.0.1:9/cb"}});
        let e = read(&json!({}), None, Some(&config)).unwrap_err();
        assert!(format!("{:?}", e.data).contains("--allow-private-http"));
        let empty = json!({});
        let p = Params::of(Some(&empty)).unwrap();
        let extras = Extras {
            configuration: config.as_object(),
            ..Extras::default()
        };
        let d = delivery("tasks.execute", &p, extras, true).unwrap();
        assert_eq!(d.push.unwrap().url, "http://127.0.0.1:9/cb");
    }

    #[test]
    fn other_methods_and_batches_cannot_stream() {
        let params = json!({"task_id": "x"});
        let p = Params::of(Some(&params)).unwrap();
        let meta = json!({"stream": true});
        let extras = Extras {
            metadata: meta.as_object(),
            ..Extras::default()
        };
        assert!(delivery("tasks.get", &p, extras, false).is_err());
        let extras = Extras {
            metadata: meta.as_object(),
            in_batch: true,
            ..Extras::default()
        };
        assert!(delivery("tasks.execute", &p, extras, false).is_err());
    }
}
