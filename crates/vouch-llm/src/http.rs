//! Posting JSON to a provider: one attempt at a time under the provider's limit, a timeout per
//! attempt, and retries of what may pass on a second try.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::error::Error;
use crate::retry::{RetryPolicy, retry_after};

/// How a client reaches its provider.
#[derive(Debug, Clone)]
pub struct Transport {
    client: reqwest::Client,
    provider: String,
    timeout: Duration,
    retry: RetryPolicy,
    limit: Arc<Semaphore>,
}

impl Transport {
    /// Returns a transport to `provider` (as messages name it), with `timeout` per attempt,
    /// `retry` on transient failures, and `limit` shared with the provider's other clients.
    pub fn new(
        provider: impl Into<String>,
        timeout: Duration,
        retry: RetryPolicy,
        limit: Arc<Semaphore>,
    ) -> Result<Transport, Error> {
        // reqwest is built without a crypto provider of its own: rustls uses ring, installed
        // once per process (a second install is refused, harmlessly).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| Error::Config(format!("cannot make an HTTP client: {e}")))?;
        Ok(Transport {
            client,
            provider: provider.into(),
            timeout,
            retry,
            limit,
        })
    }

    /// Returns the provider's name, as messages give it.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// Returns the error of an answer from this provider that cannot be read, and why.
    pub fn decode(&self, message: impl Into<String>) -> Error {
        Error::Decode {
            provider: self.provider.clone(),
            message: message.into(),
        }
    }

    /// Posts `body` to `url` with `headers`, and returns the JSON answered; retries 429, 5xx,
    /// timeouts and connection failures as the policy says.
    pub async fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &Value,
    ) -> Result<Value, Error> {
        let mut attempt = 0;
        loop {
            let (result, wait) = self.attempt(url, headers, body).await;
            match result {
                Err(e) if e.is_transient() && attempt < self.retry.max_retries => {
                    let delay = self.retry.delay(attempt, wait);
                    tracing::debug!(provider = %self.provider, attempt, ?delay, error = %e, "retrying");
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// One attempt, under the provider's limit; with the server's `Retry-After` when it sent one.
    async fn attempt(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &Value,
    ) -> (Result<Value, Error>, Option<Duration>) {
        let Ok(_permit) = self.limit.acquire().await else {
            return (
                Err(Error::Config("the provider's limit was closed".into())),
                None,
            );
        };
        let mut request = self
            .client
            .post(url)
            .timeout(self.timeout)
            .header("content-type", "application/json")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => return (Err(self.failure(&e)), None),
        };
        let status = response.status().as_u16();
        let wait = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, jiff::Timestamp::now()));
        let bytes = match response.bytes().await {
            Ok(bytes) => bytes,
            Err(e) => return (Err(self.failure(&e)), wait),
        };
        if !(200..300).contains(&status) {
            let message = error_message(&bytes);
            return (
                Err(Error::Status {
                    provider: self.provider.clone(),
                    status,
                    message,
                }),
                wait,
            );
        }
        let result = serde_json::from_slice(&bytes)
            .map_err(|e| self.decode(format!("{e}: {}", start_of(&bytes))));
        (result, wait)
    }

    fn failure(&self, e: &reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::Timeout {
                provider: self.provider.clone(),
                after: self.timeout,
            }
        } else {
            let mut message = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                message = format!("{message}: {s}");
                source = s.source();
            }
            Error::Connect {
                provider: self.provider.clone(),
                message,
            }
        }
    }
}

/// The message of an error body (`{"error": {"message": …}}` in both wire formats), or its start.
fn error_message(bytes: &[u8]) -> String {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| start_of(bytes))
}

/// The first 200 characters of a body, for messages.
fn start_of(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.trim() {
        "" => "(an empty body)".to_owned(),
        text => vouch_process::clip::head(text, 200),
    }
}
