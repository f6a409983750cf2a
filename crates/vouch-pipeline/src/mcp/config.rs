//! Reading `McpServers`: `[{Name, Transport: stdio|http, Command, Args, Env, Url, Headers,
//! TimeoutSeconds}]`, fuseraft's spelling.

use std::time::Duration;

use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Node, Reader};

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio {
        /// `Command`.
        command: String,
        /// `Args`.
        args: Vec<String>,
        /// `Env`: variables the server gets beside the shell's allowlist.
        env: Vec<(String, String)>,
    },
    /// Streamable HTTP.
    Http {
        /// `Url` (`${VAR}` expanded when it connects).
        url: String,
        /// `Headers` (`${VAR}` expanded when it connects).
        headers: Vec<(String, String)>,
    },
}

/// One entry of `McpServers`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServer {
    /// `Name`: what agents list in `Plugins`.
    pub name: String,
    /// How it is reached.
    pub transport: McpTransport,
    /// `TimeoutSeconds`: each call's limit, and the start's (default 60).
    pub timeout: Duration,
    /// Where it was declared.
    pub location: Location,
}

impl McpServer {
    /// A stdio server `name` started as `command` with `args`, calls limited to `timeout`.
    pub fn stdio(name: &str, command: &str, args: &[&str], timeout: Duration) -> McpServer {
        McpServer {
            name: name.to_owned(),
            transport: McpTransport::Stdio {
                command: command.to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                env: Vec::new(),
            },
            timeout,
            location: Location::default(),
        }
    }
}

/// Reads `McpServers`.
pub(crate) fn servers(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Vec<McpServer> {
    let Node::Seq(items) = &node.value else {
        r.error(
            Location::of(node),
            path,
            "expected a list of MCP servers",
            None,
        );
        return Vec::new();
    };
    let mut out: Vec<McpServer> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(mut m) = r.map(item, &p) else {
            continue;
        };
        let name = m.get("Name").and_then(|(n, pp)| r.string(n, &pp));
        let transport = m.get("Transport").and_then(|(n, pp)| {
            Some((r.string(n, &pp)?.to_ascii_lowercase(), Location::of(n), pp))
        });
        let command = m.get("Command").and_then(|(n, pp)| r.string(n, &pp));
        let args = m
            .get("Args")
            .map(|(n, pp)| r.strings(n, &pp).into_iter().map(|(s, _)| s).collect())
            .unwrap_or_default();
        let url = m.get("Url").and_then(|(n, pp)| r.string(n, &pp));
        let pairs = |key: &str,
                     r: &mut Reader,
                     m: &mut vouch_gate::yaml::Map<'_>|
         -> Vec<(String, String)> {
            let Some((n, pp)) = m.get(key) else {
                return Vec::new();
            };
            let Some(map) = r.map(n, &pp) else {
                return Vec::new();
            };
            map.entries()
                .iter()
                .filter_map(|(k, v)| {
                    Some((k.value.clone(), r.string(v, &format!("{pp}.{}", k.value))?))
                })
                .collect()
        };
        let env = pairs("Env", r, &mut m);
        let headers = pairs("Headers", r, &mut m);
        if let Some((n, pp)) = m.get("TransportMode")
            && let Some(mode) = r.string(n, &pp)
            && !mode.eq_ignore_ascii_case("streamable-http")
        {
            r.error(
                Location::of(n),
                &pp,
                format!("vouch speaks streamable HTTP to MCP servers, not `{mode}`"),
                Some("write `TransportMode: streamable-http`, or leave it out".into()),
            );
        }
        if let Some((n, pp)) = m.get("OAuth") {
            r.error(
                Location::of(n),
                &pp,
                "fuseraft's MCP `OAuth` login is not supported by vouch: a run has no person at a browser",
                Some("send a bearer token in `Headers: {Authorization: \"Bearer ${TOKEN}\"}`".into()),
            );
        }
        let timeout = m
            .get("TimeoutSeconds")
            .and_then(|(n, pp)| r.positive(n, &pp))
            .map_or(Duration::from_secs(60), |s| {
                Duration::from_secs(u64::from(s))
            });
        r.unknown_keys(
            &m,
            &[
                "Name",
                "Transport",
                "Command",
                "Args",
                "Env",
                "Url",
                "Headers",
                "TransportMode",
                "OAuth",
                "TimeoutSeconds",
            ],
        );
        let Some(name) = name.filter(|n| !n.trim().is_empty()) else {
            r.error(m.location, &p, "an MCP server needs a `Name`", None);
            continue;
        };
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            r.error(
                m.location,
                &p,
                format!("the MCP server name `{name}` may hold letters, digits, `-` and `_` only"),
                None,
            );
            continue;
        }
        if out.iter().any(|s| s.name.eq_ignore_ascii_case(&name)) {
            r.error(
                m.location,
                &p,
                format!("MCP server `{name}` is declared twice"),
                None,
            );
            continue;
        }
        let kind = transport
            .as_ref()
            .map_or(if url.is_some() { "http" } else { "stdio" }, |(t, ..)| {
                t.as_str()
            });
        let transport = match (kind, command, url) {
            ("stdio", Some(command), None) => McpTransport::Stdio { command, args, env },
            ("http" | "streamable-http", None, Some(url)) => McpTransport::Http { url, headers },
            ("stdio", _, _) => {
                r.error(
                    m.location,
                    &p,
                    format!("the stdio MCP server `{name}` needs a `Command` (and no `Url`)"),
                    None,
                );
                continue;
            }
            ("http" | "streamable-http", _, _) => {
                r.error(
                    m.location,
                    &p,
                    format!("the HTTP MCP server `{name}` needs a `Url` (and no `Command`)"),
                    None,
                );
                continue;
            }
            (other, _, _) => {
                let (at, tp) = transport
                    .as_ref()
                    .map_or((m.location, p.clone()), |(_, at, tp)| (*at, tp.clone()));
                r.error(
                    at,
                    &tp,
                    format!("unknown MCP transport `{other}`"),
                    Some("`stdio` or `http`".into()),
                );
                continue;
            }
        };
        out.push(McpServer {
            name,
            transport,
            timeout,
            location: m.location,
        });
    }
    out
}

/// Why `${VAR}` in a server's URL or header could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExpandError {
    /// A `${` without its `}`.
    #[error("`{text}` has an unclosed `${{`")]
    Unclosed { text: String },
    /// A variable the environment does not set.
    #[error("the environment variable {var} is not set")]
    Unset { var: String },
}

/// Expands `${VAR}` in `text` from the environment; a variable that is not set is an error
/// naming it.
pub(crate) fn expand(text: &str) -> Result<String, ExpandError> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(ExpandError::Unclosed {
                text: text.to_owned(),
            });
        };
        let var = &after[..end];
        match std::env::var(var) {
            Ok(v) => out.push_str(&v),
            Err(_) => {
                return Err(ExpandError::Unset {
                    var: var.to_owned(),
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_and_a_missing_one_is_named() {
        assert_eq!(
            expand("Bearer ${PATH}").map(|s| s.starts_with("Bearer /")),
            Ok(true)
        );
        assert_eq!(expand("plain"), Ok("plain".to_owned()));
        assert_eq!(
            expand("${VOUCH_TEST_SURELY_UNSET_VAR}").map_err(|e| e.to_string()),
            Err("the environment variable VOUCH_TEST_SURELY_UNSET_VAR is not set".to_owned())
        );
    }
}
