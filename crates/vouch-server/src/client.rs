//! A JSON-RPC client of `vouch serve`, for `vouch tasks --server URL`: one call, answered
//! with its result or its error object.

use std::time::Duration;

use serde_json::{Value, json};

/// Why a call did not return a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered the call with an error object.
    #[error("{message} ({code})")]
    Rpc {
        /// The code.
        code: i64,
        /// The message.
        message: String,
        /// The details.
        data: Option<Value>,
    },
    /// The server could not be reached, or did not answer JSON-RPC.
    #[error("{0}")]
    Transport(String),
}

/// Returns an HTTP client with `timeout` per request. reqwest is built without a crypto
/// provider of its own: rustls uses ring, installed once per process.
pub(crate) fn http_client(timeout: Duration) -> Result<reqwest::Client, ClientError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| ClientError::Transport(format!("cannot make an HTTP client: {e}")))
}

/// A client of one server.
#[derive(Debug, Clone)]
pub struct Client {
    url: String,
    token: Option<String>,
    timeout: Duration,
}

impl Client {
    /// Returns a client of the server at `url` (`http://127.0.0.1:8765`), sending `token` as a
    /// bearer token when given.
    pub fn new(url: &str, token: Option<String>) -> Client {
        Client {
            url: url.trim_end_matches('/').to_owned(),
            token,
            timeout: Duration::from_secs(120),
        }
    }

    /// Calls `method` with `params` and returns its result.
    pub fn call(&self, method: &str, params: &Value) -> Result<Value, ClientError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Transport(e.to_string()))?;
        let answer = runtime.block_on(self.post(body.to_string()))?;
        if let Some(error) = answer.get("error") {
            return Err(ClientError::Rpc {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_owned(),
                data: error.get("data").cloned(),
            });
        }
        answer.get("result").cloned().ok_or_else(|| {
            ClientError::Transport(format!("{} answered without a result", self.url))
        })
    }

    async fn post(&self, body: String) -> Result<Value, ClientError> {
        let client = http_client(self.timeout)?;
        let mut request = client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| ClientError::Transport(format!("cannot reach {}: {e}", self.url)))?;
        let text = response.text().await.map_err(|e| {
            ClientError::Transport(format!("reading the answer of {}: {e}", self.url))
        })?;
        serde_json::from_str(&text).map_err(|e| {
            ClientError::Transport(format!(
                "{} did not answer JSON-RPC ({e}): {}",
                self.url,
                vouch_process::clip::head(&text, 200)
            ))
        })
    }
}
