//! `Security`: what commands may run and files may be touched — vouch's rules (`ShellAllow`,
//! `ShellDeny`, `FileDeny`, `PassEnv`, ...) and fuseraft's (`FileSystemSandboxPath`,
//! `ReadFileSizeLimit`, `ChangeEnvelope`).

use std::time::Duration;

use regex::Regex;
use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Map, Node, Reader};

use crate::config::{RunSections, SandboxMode};

pub(super) fn security(r: &mut Reader, node: &Spanned<Node>, path: &str, out: &mut RunSections) {
    let Some(mut m) = r.map(node, path) else {
        return;
    };
    let regexes = |key: &str, r: &mut Reader, m: &mut Map<'_>| -> Vec<Regex> {
        m.get(key)
            .map(|(n, p)| {
                r.strings(n, &p)
                    .into_iter()
                    .filter_map(|(s, at)| r.regex(&s, at, &p))
                    .collect()
            })
            .unwrap_or_default()
    };
    out.shell.allow = regexes("ShellAllow", r, &mut m);
    out.shell.deny = regexes("ShellDeny", r, &mut m);
    if let Some((n, p)) = m.get("FileDeny") {
        for (glob, at) in r.strings(n, &p) {
            match globset::Glob::new(&glob) {
                Ok(_) => out.file_deny.push(glob),
                Err(e) => r.error(at, &p, format!("invalid glob `{glob}`: {}", e.kind()), None),
            }
        }
    }
    if let Some((n, p)) = m.get("CommandTimeoutSeconds")
        && let Some(s) = r.positive(n, &p)
    {
        out.shell.timeout = Duration::from_secs(u64::from(s));
    }
    if let Some((n, p)) = m.get("OutputCapBytes")
        && let Some(b) = r.positive(n, &p)
    {
        out.shell.output_cap = b as usize;
    }
    if let Some((n, p)) = m.get("HiddenEnv") {
        out.shell
            .env
            .hidden
            .extend(r.strings(n, &p).into_iter().map(|(s, _)| s));
    }
    if let Some((n, p)) = m.get("PassEnv") {
        for (name, at) in r.strings(n, &p) {
            let bare = name.strip_suffix('*').unwrap_or(&name);
            let valid = !bare.is_empty()
                && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && matches!(bare.as_bytes()[0], b'A'..=b'Z' | b'a'..=b'z' | b'_');
            if !valid {
                r.error(
                    at,
                    &p,
                    format!("`{name}` is not a variable name or a `PREFIX*` pattern"),
                    None,
                );
            } else if out.shell.env.hidden.contains(&name) {
                r.error(
                    at,
                    &p,
                    format!("`{name}` is a model's key: commands never see it"),
                    None,
                );
            } else {
                out.shell.env.pass.push(name);
            }
        }
    }
    if let Some((n, p)) = m.get("FileSystemSandboxPath")
        && let Some(root) = r.string(n, &p)
        && !matches!(root.trim().trim_end_matches('/'), "." | "")
    {
        r.error(
            Location::of(n),
            &p,
            format!("vouch confines every tool to the run's working directory; `FileSystemSandboxPath: {root}` would name another"),
            Some("write `.` and pass the folder as `vouch run --workdir`".into()),
        );
    }
    if let Some((n, p)) = m.get("ReadFileSizeLimit") {
        out.read_limit = r.positive(n, &p).map(|v| v as usize);
    }
    if let Some((n, p)) = m.get("ChangeEnvelope") {
        for (glob, at) in r.strings(n, &p) {
            if glob.starts_with('/') || glob.split('/').any(|c| c == "..") {
                r.error(
                    at,
                    &p,
                    format!("`{glob}` leads outside the working directory"),
                    None,
                );
                continue;
            }
            match globset::Glob::new(&glob) {
                Ok(_) => out.envelope.push(glob),
                Err(e) => r.error(at, &p, format!("invalid glob `{glob}`: {}", e.kind()), None),
            }
        }
    }
    if let Some((n, p)) = m.get("HttpAllowedHosts") {
        for (host, at) in r.strings(n, &p) {
            if host.contains('/') || host.contains("${") || host.trim().is_empty() {
                r.error(
                    at,
                    &p,
                    format!("`{host}` is not a host name"),
                    Some("a host (`api.example.com`) or a domain (`*.example.com`)".into()),
                );
            } else {
                out.http.allowed_hosts.push(host.trim().to_owned());
            }
        }
    }
    if let Some((n, p)) = m.get("AllowPrivateHosts") {
        out.http.allow_private = r.boolean(n, &p).unwrap_or(false);
    }
    if let Some((n, p)) = m.get("Sandbox") {
        out.sandbox.mode = match r.string(n, &p).map(|s| s.to_ascii_lowercase()).as_deref() {
            Some("on" | "true") | None => SandboxMode::On,
            Some("best-effort") => SandboxMode::BestEffort,
            Some("off" | "false") => SandboxMode::Off,
            Some(other) => {
                r.error(
                    Location::of(n),
                    &p,
                    format!("unknown sandbox mode `{other}`"),
                    Some("`on` (the default), `best-effort` or `off`".into()),
                );
                SandboxMode::On
            }
        };
    }
    for (key, write) in [("WritePaths", true), ("ReadPaths", false)] {
        if let Some((n, p)) = m.get(key) {
            for (path, at) in r.strings(n, &p) {
                if path.trim().is_empty() {
                    r.error(at, &p, "an empty path", None);
                } else if write {
                    out.sandbox
                        .write
                        .push(std::path::PathBuf::from(path.trim()));
                } else {
                    out.sandbox.read.push(std::path::PathBuf::from(path.trim()));
                }
            }
        }
    }
    if let Some((n, p)) = m.get("Network") {
        out.sandbox.network = match r.string(n, &p).map(|s| s.to_ascii_lowercase()).as_deref() {
            Some("allow" | "on" | "true") => true,
            Some("off" | "false") | None => false,
            Some(other) => {
                r.error(
                    Location::of(n),
                    &p,
                    format!("unknown network setting `{other}`"),
                    Some("`off` (the default) or `allow`".into()),
                );
                false
            }
        };
    }
    if let Some((n, p)) = m.get("Approve") {
        for (pattern, at) in r.strings(n, &p) {
            if let Some(re) = r.regex(&pattern, at, &p) {
                out.approve.push(re);
            }
        }
    }
    for key in ["FileSystemPermissions", "ShellPolicy"] {
        if let Some((n, p)) = m.get(key) {
            r.error(
                Location::of(n),
                &p,
                format!("fuseraft's `Security.{key}` is not supported by vouch"),
                Some(match key {
                    "ShellPolicy" => "write `ShellAllow`/`ShellDeny` regular expressions".into(),
                    _ => "write `FileDeny` globs and `ChangeEnvelope`".into(),
                }),
            );
        }
    }
    r.unknown_keys(
        &m,
        &[
            "Sandbox",
            "Approve",
            "WritePaths",
            "ReadPaths",
            "Network",
            "FileSystemSandboxPath",
            "ReadFileSizeLimit",
            "ChangeEnvelope",
            "FileSystemPermissions",
            "ShellPolicy",
            "HttpAllowedHosts",
            "AllowPrivateHosts",
            "ShellAllow",
            "ShellDeny",
            "FileDeny",
            "CommandTimeoutSeconds",
            "OutputCapBytes",
            "HiddenEnv",
            "PassEnv",
        ],
    );
}
