//! `http`: one HTTP request, bounded every way a task's author could get wrong or abuse: its
//! timeout has a ceiling, its answer is read no further than a cap, a cancelled task or a lost
//! lease stops it at once, redirects are not followed, and — unless the server allows it — it
//! reaches no private, loopback, link-local or otherwise non-public address (a cloud's metadata
//! service at 169.254.169.254 among them). The host is resolved once, checked, and the request
//! sent to the address checked, so a name that resolves differently the second time cannot
//! lead it elsewhere.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, Value, json};

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
        let Ok(url) = reqwest::Url::parse(url_text) else {
            return failed(format!("`{url_text}` is not a URL"), Value::Null);
        };
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return failed(format!("`{url_text}` names no host"), Value::Null);
        };
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let resolved =
            match tokio::time::timeout(timeout, tokio::net::lookup_host((host.as_str(), port)))
                .await
            {
                Ok(Ok(addrs)) => addrs.collect::<Vec<SocketAddr>>(),
                Ok(Err(e)) => return failed(format!("cannot resolve {host}: {e}"), Value::Null),
                Err(_) => return failed(format!("resolving {host} took too long"), Value::Null),
            };
        let target = if self.policy.allow_private {
            resolved.first().copied()
        } else {
            if let Some(private) = resolved.iter().find(|a| !public(a.ip())) {
                return failed(
                    format!(
                        "{url_text} resolves to {}, which is not a public address (hint: start the server with --allow-private-http to reach it)",
                        private.ip()
                    ),
                    json!({"address": private.ip().to_string()}),
                );
            }
            resolved.first().copied()
        };
        let Some(target) = target else {
            return failed(format!("{host} resolves to no address"), Value::Null);
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = match reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .resolve(&host, target)
            .build()
        {
            Ok(c) => c,
            Err(e) => return failed(format!("cannot make an HTTP client: {e}"), Value::Null),
        };
        let method = string(inputs, "method")
            .unwrap_or("GET")
            .to_ascii_uppercase();
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut request = client.request(method, url.clone());
        if let Some(Value::Object(headers)) = inputs.get("headers") {
            for (k, v) in headers {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                request = request.header(k.as_str(), v);
            }
        }
        match inputs.get("body") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => request = request.body(s.clone()),
            Some(v) => {
                request = request
                    .header("content-type", "application/json")
                    .body(v.to_string());
            }
        }
        let mut response = match request.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return failed(
                    format!(
                        "no answer from {url_text} within {} s",
                        timeout.as_secs_f64()
                    ),
                    Value::Null,
                );
            }
            Err(e) => return failed(format!("request to {url_text} failed: {e}"), Value::Null),
        };
        let status = response.status().as_u16();
        let mut bytes: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    total += chunk.len() as u64;
                    let room = cap.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    // Past the cap the rest is not read: the connection is dropped.
                    if bytes.len() >= cap && chunk.len() > room {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    return failed(
                        format!("reading the answer of {url_text} failed: {e}"),
                        Value::Null,
                    );
                }
            }
        }
        let truncated = total > bytes.len() as u64;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let body = if truncated {
            Value::String(text)
        } else {
            serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text))
        };
        let mut report = json!({"status": status, "body": body});
        if truncated && let Value::Object(m) = &mut report {
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

/// Returns true when `ip` is a public address: not loopback, private, link-local, unique-local,
/// carrier-grade NAT, documentation, benchmarking, unspecified, broadcast or multicast, nor an
/// IPv4 address of those mapped into IPv6.
fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(!public(private.parse().unwrap()), "{private}");
        }
        for open in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(public(open.parse().unwrap()), "{open}");
        }
    }
}
