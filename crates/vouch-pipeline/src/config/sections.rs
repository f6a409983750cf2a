//! The top-level keys of a pipeline beside the gates' sections and `Models`, `Agents`,
//! `Security`, `Budget`: what vouch does with each of fuseraft's — reads it, warns that it only
//! concerns fuseraft's own logs, or refuses it by name.

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Map, Node, Reader};

use crate::config::RunSections;

/// `Compaction`: how much of the conversation an agent sees once it is long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compaction {
    /// `TriggerTurnCount`: past this many agent turns, the window applies.
    pub trigger_turns: u32,
    /// `KeepRecentTurns`: the turns an agent still sees (the task always).
    pub keep_turns: u32,
}

impl Compaction {
    /// The window `ContextBudget.CutoverAt` turns on when `Compaction` sets none: the last ten
    /// turns.
    pub fn cutover() -> Compaction {
        Compaction {
            trigger_turns: 0,
            keep_turns: 10,
        }
    }
}

/// `Brownfield`: a run on an existing code base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Brownfield {
    /// `EntryPoints`: added to the task.
    pub entry_points: Vec<String>,
    /// `DiscoveryBriefPath`: the recon brief whose `in_scope_files` seed the change envelope.
    pub discovery_brief: Option<PathBuf>,
    /// `ConventionProfilePath`: a file whose text joins every agent's instructions.
    pub convention_profile: Option<PathBuf>,
    /// `SeedEnvelopeFromBrief`.
    pub seed_envelope: bool,
}

/// Keys fuseraft documents that only concern its own logs and files: read, and warned about.
const OBSERVABILITY: &[(&str, &str)] = &[
    (
        "Telemetry",
        "vouch writes no OpenTelemetry spans; its record is the run's journal and session",
    ),
    ("Output", "vouch's summary is `--format json`"),
    (
        "Events",
        "vouch's events are the run's session (`vouch session show`)",
    ),
    (
        "Checkpoint",
        "vouch journals every step and resumes with `vouch run --resume`",
    ),
    (
        "EvidenceStore",
        "vouch's evidence is the change log and session it writes itself",
    ),
    (
        "Chatroom",
        "vouch has no Chatroom plugin; no agent can post to it",
    ),
    (
        "WarnTurnTokens",
        "vouch prints each turn's tokens; it does not warn on a size",
    ),
];

/// Keys fuseraft documents that vouch does not run.
const UNSUPPORTED: &[&str] = &["Saga", "ApiProfiles", "SkillCuration", "Memory"];

/// The top-level keys this file reads.
pub(super) const KEYS: &[&str] = &[
    "Name",
    "Description",
    "SchemaVersion",
    "SystemPrompt",
    "SystemPromptPath",
    "MaxTotalTokens",
    "Compaction",
    "ContextBudget",
    "Brownfield",
    "Telemetry",
    "Output",
    "Events",
    "Checkpoint",
    "EvidenceStore",
    "Chatroom",
    "WarnTurnTokens",
    "Saga",
    "ApiProfiles",
    "SkillCuration",
    "Memory",
];

/// Reads the keys of [`KEYS`] in `top`.
pub(super) fn read(r: &mut Reader, top: &mut Map<'_>, dir: &Path, out: &mut RunSections) {
    for key in ["Name", "Description", "SchemaVersion"] {
        if let Some((n, p)) = top.get(key) {
            let _ = r.string(n, &p);
        }
    }
    let inline = top.get("SystemPrompt").and_then(|(n, p)| r.string(n, &p));
    let file = top.get("SystemPromptPath").and_then(|(n, p)| {
        let name = r.string(n, &p)?;
        match std::fs::read_to_string(dir.join(&name)) {
            Ok(text) => Some(text),
            Err(e) => {
                r.error(
                    Location::of(n),
                    &p,
                    format!("cannot read `{name}`: {e}"),
                    None,
                );
                None
            }
        }
    });
    out.system_prompt = inline.or(file);
    if let Some((n, p)) = top.get("MaxTotalTokens") {
        out.budget.max_total_tokens = r.positive(n, &p).map(u64::from);
    }
    if let Some((n, p)) = top.get("Compaction") {
        out.compaction = compaction(r, n, &p);
    }
    if let Some((n, p)) = top.get("ContextBudget")
        && let Some(mut m) = r.map(n, &p)
    {
        // A prompt past `CutoverAt` tokens compacts the view, as fuseraft does.
        if let Some((cn, cp)) = m.get("CutoverAt") {
            out.cutover_tokens = r.positive(cn, &cp).map(u64::from);
        }
        if let Some((wn, wp)) = m.get("WarnAt") {
            let _ = r.positive(wn, &wp);
            r.warn(
                Location::of(wn),
                &wp,
                "vouch prints each turn's tokens; it does not warn on a size",
                None,
            );
        }
        r.unknown_keys(&m, &["CutoverAt", "WarnAt"]);
    }
    if let Some((n, p)) = top.get("Brownfield") {
        out.brownfield = brownfield(r, n, &p);
    }
    for (key, why) in OBSERVABILITY {
        if let Some((n, p)) = top.get(key) {
            r.warn(
                Location::of(n),
                &p,
                format!("fuseraft's `{key}` is read and not used: {why}"),
                None,
            );
        }
    }
    for key in UNSUPPORTED {
        if let Some((n, p)) = top.get(key) {
            let message = format!("fuseraft's `{key}` is not supported by vouch");
            r.error(Location::of(n), &p, message, None);
        }
    }
}

/// Reads `Compaction`.
fn compaction(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Option<Compaction> {
    let mut m = r.map(node, path)?;
    let trigger_turns = m
        .get("TriggerTurnCount")
        .and_then(|(n, p)| r.positive(n, &p))
        .unwrap_or(25);
    let keep_turns = m
        .get("KeepRecentTurns")
        .and_then(|(n, p)| r.positive(n, &p))
        .unwrap_or(10);
    if let Some((n, p)) = m.get("Mode")
        && let Some(mode) = r.string(n, &p)
        && !["lossless", "intent", "window"].contains(&mode.to_ascii_lowercase().as_str())
    {
        r.error(
            Location::of(n),
            &p,
            format!("unknown compaction mode `{mode}`"),
            Some(
                "`lossless`, `intent` (vouch keeps the whole record and shows recent turns)".into(),
            ),
        );
    }
    r.unknown_keys(&m, &["TriggerTurnCount", "KeepRecentTurns", "Mode"]);
    Some(Compaction {
        trigger_turns,
        keep_turns,
    })
}

/// Reads `Brownfield`.
fn brownfield(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Option<Brownfield> {
    let mut m = r.map(node, path)?;
    let mut b = Brownfield::default();
    if let Some((n, p)) = m.get("EntryPoints") {
        b.entry_points = r.strings(n, &p).into_iter().map(|(s, _)| s).collect();
    }
    b.discovery_brief = m
        .get("DiscoveryBriefPath")
        .and_then(|(n, p)| r.string(n, &p))
        .map(PathBuf::from);
    b.convention_profile = m
        .get("ConventionProfilePath")
        .and_then(|(n, p)| r.string(n, &p))
        .map(PathBuf::from);
    if let Some((n, p)) = m.get("SeedEnvelopeFromBrief") {
        b.seed_envelope = r.boolean(n, &p).unwrap_or(false);
    }
    if b.seed_envelope && b.discovery_brief.is_none() {
        r.error(
            m.location,
            path,
            "`SeedEnvelopeFromBrief` needs a `DiscoveryBriefPath`",
            None,
        );
    }
    r.unknown_keys(
        &m,
        &[
            "EntryPoints",
            "DiscoveryBriefPath",
            "ConventionProfilePath",
            "SeedEnvelopeFromBrief",
        ],
    );
    Some(b)
}
