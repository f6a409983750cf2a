//! Claude Code's subagents: their log files under `<session-id>/` at any depth, and how each
//! is linked to the call that started it and hung under the session holding that call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::log::Parsed;
use crate::event::{EventKind, Role};
use crate::session::Session;
use crate::tool::ToolKind;

/// Returns the `.jsonl` files under `<dir>/<session-id>/`, at any depth, sorted by path.
pub(super) fn subagent_files(session_file: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (session_file.parent(), session_file.file_stem()) else {
        return Vec::new();
    };
    let root = dir.join(stem);
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "jsonl") => {
                    files.push(path);
                }
                _ => {}
            }
        }
    }
    files.sort();
    files
}

/// Returns the subagent logs of the older, flat layout: `agent-<id>.jsonl` files beside the
/// session file whose records name the session (`sessionId`), sorted by path. A file that is
/// itself a subagent's log has none.
pub(super) fn flat_subagent_files(session_file: &Path, session_id: &str) -> Vec<PathBuf> {
    let is_agent_file = |p: &Path| {
        p.file_stem()
            .is_some_and(|s| s.to_string_lossy().starts_with("agent-"))
            && p.extension().is_some_and(|e| e == "jsonl")
    };
    if session_id.is_empty() || is_agent_file(session_file) {
        return Vec::new();
    }
    let Some(dir) = session_file.parent() else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    crate::readers::common::log_files(dir, &["jsonl"])
        .into_iter()
        .filter(|p| is_agent_file(p) && session_of(p).as_deref() == Some(session_id))
        .collect()
}

/// Returns the `sessionId` the first records of a log name, if any.
fn session_of(path: &Path) -> Option<String> {
    use std::io::Read as _;
    #[derive(serde::Deserialize)]
    struct Key {
        #[serde(rename = "sessionId", default)]
        session_id: Option<String>,
    }
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    String::from_utf8_lossy(&head)
        .lines()
        .take(16)
        .filter_map(|line| serde_json::from_str::<Key>(line).ok())
        .find_map(|k| k.session_id)
}

pub(super) fn agent_id_from_file_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem.strip_prefix("agent-")
        .map(str::to_owned)
        .unwrap_or(stem)
}

/// Links subagents to the calls that started them and hangs each under the session holding
/// that call; subagents that cannot be linked hang under the main session with no call.
pub(super) fn assemble(parsed: Parsed) -> Session {
    let Parsed {
        session: mut main,
        subagents,
        links,
    } = parsed;
    if subagents.is_empty() {
        return main;
    }
    let call_of_agent: HashMap<&str, &str> = links
        .iter()
        .map(|(a, c)| (a.as_str(), c.as_str()))
        .collect();
    // Node 0 is the main session, node i + 1 is subagents[i].
    let mut nodes: Vec<Option<Session>> = std::iter::once(None)
        .chain(subagents.into_iter().map(Some))
        .collect();
    let owner_of_call: HashMap<String, (usize, Option<String>)> = {
        let mut map = HashMap::new();
        let all = std::iter::once((0, &main)).chain(
            nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.as_ref().map(|s| (i, s))),
        );
        for (i, s) in all {
            for call in s.tool_calls() {
                let name = call.arg_str("subagent_type").map(str::to_owned);
                map.insert(call.call_id.clone(), (i, name));
            }
        }
        map
    };
    let prompt_calls: Vec<(String, String)> = std::iter::once(&main)
        .chain(nodes.iter().flatten())
        .flat_map(Session::tool_calls)
        .filter(|c| c.kind == ToolKind::Subagent)
        .filter_map(|c| Some((c.arg_str("prompt")?.trim().to_owned(), c.call_id.clone())))
        .collect();
    let mut parent = vec![0usize; nodes.len()];
    for i in 1..nodes.len() {
        let Some(sub) = nodes[i].as_mut() else {
            continue;
        };
        if sub.spawned_by.is_none() {
            sub.spawned_by = call_of_agent.get(sub.id.as_str()).map(|c| (*c).to_owned());
        }
        if sub.spawned_by.is_none() {
            let first_prompt = sub
                .events
                .iter()
                .find(|e| e.actor.role == Role::User)
                .and_then(|e| e.as_message())
                .map(str::trim);
            sub.spawned_by = first_prompt
                .and_then(|p| prompt_calls.iter().find(|(text, _)| text == p))
                .map(|(_, c)| c.clone());
        }
        if let Some((owner, name)) = sub.spawned_by.as_ref().and_then(|c| owner_of_call.get(c)) {
            if *owner != i {
                parent[i] = *owner;
            }
            if sub.name.is_none() {
                sub.name.clone_from(name);
            }
        }
    }
    // A log that claims its own descendant started it would form a cycle: such a subagent
    // hangs under the main session instead.
    for i in 1..nodes.len() {
        let mut at = parent[i];
        let mut steps = 0;
        while at != 0 && steps <= nodes.len() {
            if at == i {
                parent[i] = 0;
                break;
            }
            at = parent[at];
            steps += 1;
        }
        if steps > nodes.len() {
            parent[i] = 0;
        }
    }
    let depth = |mut i: usize| {
        let mut d = 0;
        while i != 0 {
            i = parent[i];
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (1..nodes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depth(i)));
    for i in order {
        let Some(sub) = nodes[i].take() else { continue };
        match parent[i] {
            0 => main.subagents.push(sub),
            p => {
                if let Some(owner) = nodes[p].as_mut() {
                    owner.subagents.push(sub);
                }
            }
        }
    }
    sort_subagents(&mut main);
    main
}

/// Orders subagents by the position of their spawning call, unlinked ones last, by id.
pub(super) fn sort_subagents(session: &mut Session) {
    let position: HashMap<&str, u32> = session
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) => Some((c.call_id.as_str(), e.seq)),
            _ => None,
        })
        .collect();
    let mut keyed: Vec<(u32, String, Session)> = std::mem::take(&mut session.subagents)
        .into_iter()
        .map(|s| {
            let pos = s
                .spawned_by
                .as_deref()
                .and_then(|c| position.get(c))
                .copied();
            (pos.unwrap_or(u32::MAX), s.id.clone(), s)
        })
        .collect();
    keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    session.subagents = keyed.into_iter().map(|(_, _, s)| s).collect();
    for sub in &mut session.subagents {
        sort_subagents(sub);
    }
}
