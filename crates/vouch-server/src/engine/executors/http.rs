//! `http`: one HTTP request, bounded every way a task's author could get wrong or abuse: its
//! timeout has a ceiling, its answer is read no further than a cap, a cancelled task or a lost
//! lease stops it at once, redirects are not followed, and — unless the server allows it — it
//! reaches no private, loopback, link-local or otherwise non-public address (a cloud's metadata
//! service at 169.254.169.254 among them). The host is resolved once, checked, and the request
//! sent to the address checked, so a name that resolves differently the second time cannot
//! lead it elsewhere.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, Value, json};
use vouch_llm::guarded::{self, Fetch, FetchError};

use super::{Executor, Job, failed, need_seconds, need_string, string};
use crate::store::Outcome;

/// What the `http` executor may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpPolicy {
    /// Reaches private, loopback and link-local addresses too.
    pub allow_private: bool,
    /// The most bytes of an answer kept (`inputs.max_body` may ask for less).
    pub max_body: usize,
    /// The longest timeout a task may ask for.
    pub max_timeout: Duration,
}

impl Default for HttpPolicy {
    /// Public addresses only, answers up to 1 MiB, timeouts up to 10 minutes.
    fn default() -> HttpPolicy {
        HttpPolicy {
            allow_private: false,
            max_body: 1 << 20,
            max_timeout: Duration::from_secs(600),
        }
    }
}

/// The `http` executor under its policy.
#[derive(Debug, Default)]
pub(super) struct Http {
    pub(super) policy: HttpPolicy,
}

/// How often a request in flight looks at its task's cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

impl Executor for Http {
    fn method(&self) -> &'static str {
        "http"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "url", true, &mut out);
        need_string(inputs, "method", false, &mut out);
        need_seconds(inputs, "timeout", &mut out);
        if let Some(t) = inputs.get("timeout").and_then(Value::as_f64)
            && t > self.policy.max_timeout.as_secs_f64()
        {
            out.push((
                "inputs.timeout".into(),
                format!(
                    "`timeout` is at most {} seconds",
                    self.policy.max_timeout.as_secs()
                ),
            ));
        }
        if let Some(v) = inputs.get("max_body").filter(|v| !v.is_null())
            && v.as_u64().is_none_or(|n| n == 0)
        {
            out.push((
                "inputs.max_body".into(),
                "`max_body` must be a positive number of bytes".into(),
            ));
        }
        if let Some(url) = string(inputs, "url")
            && reqwest::Url::parse(url).map_or(true, |u| {
                !matches!(u.scheme(), "http" | "https") || u.host_str().is_none()
            })
        {
            out.push((
                "inputs.url".into(),
                "`url` must be an http or https URL with a host".into(),
            ));
        }
        if let Some(m) = string(inputs, "method")
            && reqwest::Method::from_bytes(m.to_ascii_uppercase().as_bytes()).is_err()
        {
            out.push((
                "inputs.method".into(),
                format!("`{m}` is not an HTTP method"),
            ));
        }
        if inputs
            .get("headers")
            .is_some_and(|h| !h.is_null() && !h.is_object())
        {
            out.push((
                "inputs.headers".into(),
                "`headers` must be an object of strings".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => return failed(format!("cannot start an HTTP client: {e}"), Value::Null),
        };
        let cancel = &job.cancel;
        runtime.block_on(async {
            let request = self.request(&job.task.inputs);
            tokio::pin!(request);
            loop {
                tokio::select! {
                    outcome = &mut request => return outcome,
                    () = tokio::time::sleep(CANCEL_POLL) => {
                        if cancel.load(Ordering::SeqCst) {
                            return failed("the request was stopped", Value::Null);
                        }
                    }
                }
            }
        })
    }
}

impl Http {
    async fn request(&self, inputs: &Map<String, Value>) -> Outcome {
        let timeout = inputs
            .get("timeout")
            .and_then(Value::as_f64)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(Duration::from_secs(30))
            .min(self.policy.max_timeout);
        let cap = inputs
            .get("max_body")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(self.policy.max_body)
            .min(self.policy.max_body);
        let url_text = string(inputs, "url").unwrap_or_default();
        let mut fetch = Fetch::get(url_text);
        fetch.method = string(inputs, "method")
            .unwrap_or("GET")
            .to_ascii_uppercase();
        fetch.timeout = timeout;
        fetch.max_body = cap;
        fetch.allow_private = self.policy.allow_private;
        if let Some(Value::Object(headers)) = inputs.get("headers") {
            for (k, v) in headers {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                fetch.headers.push((k.clone(), v));
            }
        }
        match inputs.get("body") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => fetch.body = Some(s.clone()),
            Some(v) => {
                fetch
                    .headers
                    .push(("content-type".to_owned(), "application/json".to_owned()));
                fetch.body = Some(v.to_string());
            }
        }
        let fetched = match guarded::fetch(&fetch).await {
            Ok(f) => f,
            Err(FetchError::Private { url, address }) => {
                return failed(
                    format!(
                        "{url} resolves to {address}, which is not a public address (hint: start the server with --allow-private-http to reach it)"
                    ),
                    json!({"address": address.to_string()}),
                );
            }
            Err(e) => return failed(e.to_string(), Value::Null),
        };
        let status = fetched.status;
        let text = String::from_utf8_lossy(&fetched.body).into_owned();
        let body = if fetched.truncated {
            Value::String(text)
        } else {
            serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text))
        };
        let mut report = json!({"status": status, "body": body});
        if fetched.truncated
            && let Value::Object(m) = &mut report
        {
            m.insert("truncated".into(), Value::Bool(true));
            m.insert("max_body".into(), json!(cap));
        }
        if (200..300).contains(&status) {
            Outcome::Completed(report)
        } else {
            failed(format!("{url_text} answered HTTP {status}"), report)
        }
    }
}
