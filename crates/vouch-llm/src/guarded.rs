//! One HTTP request an agent or a task asked for, bounded every way its author could get wrong
//! or abuse: a timeout, an answer read no further than a cap, no redirects followed, an
//! allowlist of hosts when one is given, and — unless allowed — no private, loopback,
//! link-local or otherwise non-public address (a cloud's metadata service at 169.254.169.254
//! among them). The host is resolved once, checked, and the request sent to the address
//! checked, so a name that resolves differently the second time cannot lead it elsewhere.
//! Used by `vouch serve`'s `http` executor and by `vouch run`'s `Http` plugin.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// A request to make.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Fetch {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The URL.
    pub url: String,
    /// Headers to send.
    pub headers: Vec<(String, String)>,
    /// The body, when there is one.
    pub body: Option<String>,
    /// The whole request's limit.
    pub timeout: Duration,
    /// The most bytes of the answer kept; the rest is not read.
    pub max_body: usize,
    /// Reaches private, loopback and link-local addresses too.
    pub allow_private: bool,
    /// Hosts the request may reach (any public host when empty).
    pub allowed_hosts: Vec<String>,
}

impl Fetch {
    /// A `GET` of `url`: 30 s, 1 MiB, public addresses only, any host.
    pub fn get(url: impl Into<String>) -> Fetch {
        Fetch {
            method: "GET".to_owned(),
            url: url.into(),
            headers: Vec::new(),
            body: None,
            timeout: Duration::from_secs(30),
            max_body: 1 << 20,
            allow_private: false,
            allowed_hosts: Vec::new(),
        }
    }
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The body, up to the cap.
    pub body: Vec<u8>,
    /// True when the body was longer than the cap.
    pub truncated: bool,
    /// The response's headers.
    pub headers: Vec<(String, String)>,
}

/// Why a request was not made or failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Not an http(s) URL with a host.
    #[error("`{0}` is not an http or https URL with a host")]
    NotUrl(String),
    /// The host is not in the allowlist.
    #[error("{host} is not an allowed host (allowed: {allowed})")]
    HostNotAllowed {
        /// The host.
        host: String,
        /// The allowlist.
        allowed: String,
    },
    /// The host could not be resolved.
    #[error("cannot resolve {host}: {why}")]
    Resolve {
        /// The host.
        host: String,
        /// Why.
        why: String,
    },
    /// The host resolves to a non-public address.
    #[error("{url} resolves to {address}, which is not a public address")]
    Private {
        /// The URL.
        url: String,
        /// The address.
        address: IpAddr,
    },
    /// No answer in time.
    #[error("no answer from {url} within {seconds} s")]
    Timeout {
        /// The URL.
        url: String,
        /// The limit.
        seconds: f64,
    },
    /// The request failed.
    #[error("request to {url} failed: {why}")]
    Failed {
        /// The URL.
        url: String,
        /// Why.
        why: String,
    },
}

/// Makes the request.
pub async fn fetch(f: &Fetch) -> Result<Fetched, FetchError> {
    let url = reqwest::Url::parse(&f.url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| FetchError::NotUrl(f.url.clone()))?;
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return Err(FetchError::NotUrl(f.url.clone()));
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    if !f.allowed_hosts.is_empty()
        && !f.allowed_hosts.iter().any(|h| {
            h.eq_ignore_ascii_case(&host)
                || h.strip_prefix("*.").is_some_and(|d| {
                    host.to_ascii_lowercase()
                        .ends_with(&format!(".{}", d.to_ascii_lowercase()))
                })
        })
    {
        return Err(FetchError::HostNotAllowed {
            host,
            allowed: f.allowed_hosts.join(", "),
        });
    }
    let lookup =
        tokio::time::timeout(f.timeout, tokio::net::lookup_host((host.clone(), port))).await;
    let resolved = match lookup {
        Ok(Ok(addrs)) => addrs.collect::<Vec<SocketAddr>>(),
        Ok(Err(e)) => {
            return Err(FetchError::Resolve {
                host,
                why: e.to_string(),
            });
        }
        Err(_) => {
            return Err(FetchError::Resolve {
                host,
                why: "it took too long".to_owned(),
            });
        }
    };
    if !f.allow_private
        && let Some(private) = resolved.iter().find(|a| !public(a.ip()))
    {
        return Err(FetchError::Private {
            url: f.url.clone(),
            address: private.ip(),
        });
    }
    let Some(target) = resolved.first().copied() else {
        return Err(FetchError::Resolve {
            host,
            why: "no address".to_owned(),
        });
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let failed = |why: String| FetchError::Failed {
        url: f.url.clone(),
        why,
    };
    let client = reqwest::Client::builder()
        .timeout(f.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, target)
        .build()
        .map_err(|e| failed(format!("cannot make an HTTP client: {e}")))?;
    let method = reqwest::Method::from_bytes(f.method.to_ascii_uppercase().as_bytes())
        .map_err(|_| failed(format!("`{}` is not an HTTP method", f.method)))?;
    let mut request = client.request(method, url);
    for (k, v) in &f.headers {
        request = request.header(k.as_str(), v.as_str());
    }
    if let Some(body) = &f.body {
        request = request.body(body.clone());
    }
    let mut response = request.send().await.map_err(|e| {
        if e.is_timeout() {
            FetchError::Timeout {
                url: f.url.clone(),
                seconds: f.timeout.as_secs_f64(),
            }
        } else {
            failed(e.to_string())
        }
    })?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
        .collect();
    let mut body: Vec<u8> = Vec::new();
    let mut total: u64 = 0;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                total += chunk.len() as u64;
                let room = f.max_body.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                // Past the cap the rest is not read: the connection is dropped.
                if body.len() >= f.max_body && chunk.len() > room {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => return Err(failed(format!("reading the answer failed: {e}"))),
        }
    }
    let truncated = total > body.len() as u64;
    Ok(Fetched {
        status,
        body,
        truncated,
        headers,
    })
}

/// Returns true when `ip` is a public address: not loopback, private, link-local, unique-local,
/// carrier-grade NAT, documentation, benchmarking, unspecified, broadcast or multicast, nor an
/// IPv4 address of those mapped into IPv6.
pub fn public(ip: IpAddr) -> bool {
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

    #[test]
    fn a_host_outside_the_allowlist_is_refused_before_any_lookup() {
        let mut f = Fetch::get("https://example.org/x");
        f.allowed_hosts = vec!["api.example.com".to_owned(), "*.github.com".to_owned()];
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        assert!(matches!(
            rt.block_on(fetch(&f)),
            Err(FetchError::HostNotAllowed { .. })
        ));
    }
}
