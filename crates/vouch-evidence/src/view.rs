//! The evidence view: a session joined with the change log and the artifacts on disk,
//! answering the questions validators ask.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use vouch_session::{
    Diagnostic, Event, EventKind, FastMap, Role, Session, ToolCall, ToolKind, ToolResult,
};

use crate::brief::Brief;
use crate::changelog::ChangeLog;
use crate::error::Error;
use crate::receipt::Receipt;
use crate::script::Script;
use crate::test_report::TestReport;

/// Where the artifacts live (relative paths resolve against the working directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactPaths {
    /// The Planner's brief.
    pub brief: PathBuf,
    /// The Tester's report.
    pub test_report: PathBuf,
    /// The change log.
    pub change_log: PathBuf,
}

impl Default for ArtifactPaths {
    /// Returns the default paths of decision G1.
    fn default() -> ArtifactPaths {
        ArtifactPaths {
            brief: PathBuf::from(".fuseraft/artifacts/brief.json"),
            test_report: PathBuf::from(".fuseraft/artifacts/test-report.json"),
            change_log: PathBuf::from(".fuseraft/state/changes.json"),
        }
    }
}

/// A tool call, with its event, its result and the session that holds them.
#[derive(Debug, Clone, Copy)]
pub struct Call<'s> {
    /// The call.
    pub call: &'s ToolCall,
    /// The event that holds the call: who made it, where in the log.
    pub event: &'s Event,
    /// Its result, linked by call id; `None` when the log holds none.
    pub result: Option<&'s ToolResult>,
    /// The session (or subagent) the call belongs to.
    pub session: &'s Session,
    /// How deep that session is: 0 for the main session, 1 for its subagents, ...
    pub depth: usize,
}

impl Call<'_> {
    /// Returns true when the call has a result whose outcome is a success.
    pub fn succeeded(&self) -> bool {
        self.result.is_some_and(|r| r.outcome.is_success())
    }

    /// Returns the full output of the call's result (empty without a result).
    pub fn output(&self) -> Result<Cow<'_, str>, vouch_session::Error> {
        match self.result {
            Some(r) => self.session.output_text(&r.output),
            None => Ok(Cow::Borrowed("")),
        }
    }
}

/// The calls of a session grouped by tool: each distinct name and kind once, with the
/// positions of its calls in [`EvidenceView::all_calls`].
#[derive(Debug, Clone, Default)]
pub struct CallIndex<'s> {
    /// Each distinct tool, as its name and kind, in the order first called.
    pub tools: Vec<(&'s str, ToolKind)>,
    /// For each entry of `tools`, the positions of its calls, ascending.
    pub positions: Vec<Vec<usize>>,
    /// For each call, its entry in `tools`.
    pub tool_of: Vec<usize>,
}

impl<'s> CallIndex<'s> {
    /// Groups `calls` by tool.
    pub fn new(calls: &[Call<'s>]) -> CallIndex<'s> {
        let mut index = CallIndex::default();
        let mut seen: FastMap<(&'s str, ToolKind), usize> = FastMap::default();
        index.tool_of.reserve(calls.len());
        for (i, c) in calls.iter().enumerate() {
            let key = (&*c.call.name, c.call.kind);
            let entry = *seen.entry(key).or_insert_with(|| {
                index.tools.push(key);
                index.positions.push(Vec::new());
                index.tools.len() - 1
            });
            index.positions[entry].push(i);
            index.tool_of.push(entry);
        }
        index
    }
}

/// A session joined with the change log and the artifacts on disk.
///
/// Artifacts are read once, on first use; a file that does not exist is `None`, a file that
/// cannot be read or parsed is an error the validator reports (fail closed, decision G4).
#[derive(Debug)]
pub struct EvidenceView<'s> {
    session: &'s Session,
    workdir: PathBuf,
    paths: ArtifactPaths,
    turn_start: usize,
    /// The session's results by call id, built on first use.
    results: OnceLock<FastMap<&'s str, &'s ToolResult>>,
    /// Every call, subagents' included, built on first use.
    calls: OnceLock<Vec<Call<'s>>>,
    /// The calls grouped by tool, built on first use.
    index: OnceLock<CallIndex<'s>>,
    /// For each call id with a result: how many results answer it and when the first was
    /// logged, built on first use.
    answers: OnceLock<FastMap<&'s str, Answers>>,
    /// How many calls carry each call id, subagents' included, built on first use.
    call_counts: OnceLock<FastMap<&'s str, usize>>,
    change_log: OnceLock<Result<Option<ChangeLog>, Error>>,
    /// The change log the caller holds (a runner's own record), read instead of the file.
    own_log: Option<&'s ChangeLog>,
    brief: OnceLock<Result<Option<Brief>, Error>>,
    test_report: OnceLock<Result<Option<TestReport>, Error>>,
    unreadable: Option<Unreadable>,
}

/// The results that answer one call id.
#[derive(Debug, Clone, Copy)]
struct Answers {
    count: usize,
    first_at: Option<jiff::Timestamp>,
}

/// Recorded commands for strict evidence: each with its command read, and the ones ignored,
/// with why.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct StrictReceipts {
    /// The receipts that count, each with its command read.
    pub kept: Vec<(Receipt, Script)>,
    /// Those ignored, each as `receipt: why`.
    pub ignored: Vec<String>,
}

/// The lines of a session log that could not be read: the evidence the view lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// How many lines could not be read (bad lines and a torn last line alike).
    pub lines: usize,
    /// The first of them, as `path:line: reason`.
    pub first: String,
}

impl Unreadable {
    /// Returns what `diagnostics` (a read's skipped lines) leave unread, `None` when nothing.
    pub fn of(diagnostics: &[Diagnostic]) -> Option<Unreadable> {
        diagnostics.first().map(|first| Unreadable {
            lines: diagnostics.len(),
            first: first.to_string(),
        })
    }
}

impl<'s> EvidenceView<'s> {
    /// Returns the view of `session`, with artifacts at `paths` under `workdir`.
    pub fn new(session: &'s Session, workdir: impl Into<PathBuf>, paths: ArtifactPaths) -> Self {
        let turn_start = session
            .events
            .iter()
            .rposition(Event::is_user_message)
            .map_or(0, |i| i + 1);
        EvidenceView {
            session,
            workdir: workdir.into(),
            paths,
            turn_start,
            results: OnceLock::new(),
            calls: OnceLock::new(),
            index: OnceLock::new(),
            answers: OnceLock::new(),
            call_counts: OnceLock::new(),
            change_log: OnceLock::new(),
            own_log: None,
            brief: OnceLock::new(),
            test_report: OnceLock::new(),
            unreadable: None,
        }
    }

    /// Returns the view with the lines the read of its session skipped (its diagnostics): a
    /// gate never passes over evidence it could not read, so the view carries them to it.
    #[must_use]
    pub fn with_diagnostics(mut self, diagnostics: &[Diagnostic]) -> Self {
        self.unreadable = Unreadable::of(diagnostics);
        self
    }

    /// Returns the view with `log` as its change log instead of the file at the configured
    /// path: a runner decides on the record it wrote itself, never on a file its agents can
    /// write.
    #[must_use]
    pub fn with_change_log(mut self, log: &'s ChangeLog) -> Self {
        self.own_log = Some(log);
        self
    }

    /// Returns the lines of the session's log that could not be read, `None` when every line
    /// was read.
    pub fn unreadable(&self) -> Option<&Unreadable> {
        self.unreadable.as_ref()
    }

    /// Returns the view with the current turn starting at event `index` instead of after the
    /// most recent user message: in a history several agents share, an agent's reply also
    /// starts where another agent stopped speaking. An index past the end leaves the turn empty.
    #[must_use]
    pub fn with_turn_start(mut self, index: usize) -> Self {
        self.turn_start = index.min(self.session.events.len());
        self
    }

    /// Returns the session.
    pub fn session(&self) -> &'s Session {
        self.session
    }

    /// Returns the working directory.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// Returns the artifact paths as configured (not resolved).
    pub fn paths(&self) -> &ArtifactPaths {
        &self.paths
    }

    /// Returns `path` resolved against the working directory.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_owned()
        } else {
            self.workdir.join(path)
        }
    }

    /// Returns the events of the current turn: those after the most recent user message
    /// (decision G5).
    pub fn turn_events(&self) -> &'s [Event] {
        &self.session.events[self.turn_start..]
    }

    /// Returns the calls of the current turn, each with its result (linked by call id), followed
    /// by the calls of the subagents those calls started.
    pub fn turn_calls(&self) -> Vec<Call<'s>> {
        calls_of(self.session, self.turn_events(), self.results())
    }

    /// Returns the shell calls of the current turn.
    pub fn turn_shell_runs(&self) -> Vec<Call<'s>> {
        self.turn_calls()
            .into_iter()
            .filter(|c| c.call.kind == ToolKind::Shell)
            .collect()
    }

    /// Returns the text of the agent's last message in the current turn.
    pub fn last_assistant_text(&self) -> Option<&'s str> {
        self.turn_events().iter().rev().find_map(|e| match &e.kind {
            EventKind::Message(m) if e.actor.role == Role::Assistant => Some(m.text.as_str()),
            _ => None,
        })
    }

    /// Returns the turns of the session, last first, each with its calls (and its subagents').
    pub fn turns_from_last(&self) -> Vec<Vec<Call<'s>>> {
        self.session
            .turns()
            .iter()
            .rev()
            .map(|t| calls_of(self.session, t.events, self.results()))
            .collect()
    }

    /// Returns the commands run this session that succeeded: those the change log recorded for
    /// the active session, then the session's own shell calls (of the part of the log read).
    pub fn successful_commands(&self) -> Result<Vec<&'_ str>, &Error> {
        let mut commands: Vec<&str> = match self.change_log()? {
            Some(log) => log
                .session_commands()
                .filter(|c| c.succeeded)
                .map(|c| c.command.as_str())
                .collect(),
            None => Vec::new(),
        };
        let all = calls_of(self.session, &self.session.events, self.results());
        commands.extend(
            all.iter()
                .filter(|c| c.call.kind == ToolKind::Shell && c.succeeded())
                .filter_map(|c| c.call.command()),
        );
        Ok(commands)
    }

    /// Returns those of `paths` that were not written this session — by a successful write or
    /// patch call of the current turn, or by a turn of the active session in the change log —
    /// comparing paths as decision G8 says.
    pub fn not_written<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str>,
    ) -> Result<Vec<&'p str>, &Error> {
        let written = self.written_paths()?;
        Ok(paths
            .into_iter()
            .filter(|p| !written.iter().any(|w| same_file(w, p)))
            .collect())
    }

    /// Returns the paths written this session, as spelled where recorded: by a successful
    /// write or patch call of the current turn, or by a turn of the active session in the
    /// change log.
    pub fn written_paths(&self) -> Result<Vec<&str>, &Error> {
        let mut written: Vec<&str> = self
            .turn_calls()
            .into_iter()
            .filter(|c| c.call.kind.writes_files() && c.succeeded())
            .flat_map(|c| c.call.touched_paths())
            .collect();
        if let Some(log) = self.change_log()? {
            written.extend(log.session_files_written());
        }
        Ok(written)
    }

    /// Returns every call of the session, in order: each call followed by the calls of the
    /// subagent it started (depth first), then the calls of subagents no call started.
    pub fn all_calls(&self) -> &[Call<'s>] {
        self.calls.get_or_init(|| {
            let mut calls = calls_of(self.session, &self.session.events, self.results());
            push_unlinked(&mut calls, self.session, 0);
            calls
        })
    }

    /// Returns [`EvidenceView::all_calls`] grouped by tool, so that a question about one tool
    /// reads only that tool's calls.
    pub fn call_index(&self) -> &CallIndex<'s> {
        self.index.get_or_init(|| CallIndex::new(self.all_calls()))
    }

    /// Returns the session's results by call id.
    fn results(&self) -> &FastMap<&'s str, &'s ToolResult> {
        self.results.get_or_init(|| self.session.results_by_call())
    }

    /// Returns how many results answer each call id, and when the first was logged.
    fn answers(&self) -> &FastMap<&'s str, Answers> {
        self.answers.get_or_init(|| {
            let mut map: FastMap<&'s str, Answers> = FastMap::default();
            for (_, session) in self.session.walk() {
                for event in &session.events {
                    if let EventKind::ToolResult(r) = &event.kind {
                        let entry = map.entry(r.call_id.as_str()).or_insert(Answers {
                            count: 0,
                            first_at: event.timestamp,
                        });
                        entry.count += 1;
                    }
                }
            }
            map
        })
    }

    /// Returns how many calls carry each call id, subagents' included.
    fn call_counts(&self) -> &FastMap<&'s str, usize> {
        self.call_counts.get_or_init(|| {
            let mut counts: FastMap<&'s str, usize> = FastMap::default();
            for (_, session) in self.session.walk() {
                for c in session.tool_calls() {
                    *counts.entry(c.call_id.as_str()).or_default() += 1;
                }
            }
            counts
        })
    }

    /// Returns the receipt of a shell call, `None` for other calls.
    pub fn receipt_of(&self, call: &Call<'s>) -> Option<Receipt> {
        let ended = self
            .answers()
            .get(call.call.call_id.as_str())
            .and_then(|a| a.first_at);
        let output = call
            .output()
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_default();
        Receipt::of_call(
            call.call,
            call.event,
            call.result.map(|r| r.outcome),
            output,
            ended,
        )
    }

    /// Returns the receipts of the shell calls among `calls` for strict evidence: a call
    /// answered by more than one result, or whose id another call shares, is ignored (which
    /// result is its own cannot be told).
    pub fn call_receipts(&self, calls: &[Call<'s>]) -> StrictReceipts {
        let mut out = StrictReceipts::default();
        for call in calls {
            let Some(receipt) = self.receipt_of(call) else {
                continue;
            };
            let sharing = self
                .call_counts()
                .get(call.call.call_id.as_str())
                .copied()
                .unwrap_or(1);
            if sharing > 1 {
                out.ignored.push(format!(
                    "{receipt}: {sharing} calls share id {}, so whose result answers it cannot be told",
                    call.call.call_id
                ));
                continue;
            }
            let answers = self
                .answers()
                .get(call.call.call_id.as_str())
                .map_or(0, |a| a.count);
            if answers > 1 {
                out.ignored.push(format!(
                    "{receipt}: {answers} results answer call {}, so which is its own cannot be told",
                    call.call.call_id
                ));
                continue;
            }
            let script = Script::parse(&receipt.run.command);
            out.kept.push((receipt, script));
        }
        out.ignored.extend(self.orphan_results());
        out
    }

    /// Returns the results that answer no call of the session, as `result …: why`.
    fn orphan_results(&self) -> Vec<String> {
        let known = self.call_counts();
        let mut orphans: Vec<String> = self
            .answers()
            .keys()
            .filter(|id| !known.contains_key(*id))
            .map(|id| format!("a result for call {id}: the session holds no call with that id"))
            .collect();
        orphans.sort();
        orphans
    }

    /// Returns the receipts of the commands the change log recorded for the active session,
    /// for strict evidence. A receipt naming a call the session read holds must match it:
    /// one naming a call that ran another command, or one answered by several results, is
    /// ignored.
    pub fn log_receipts(&self) -> Result<StrictReceipts, &Error> {
        let mut out = StrictReceipts::default();
        let Some(log) = self.change_log()? else {
            return Ok(out);
        };
        let calls = self.all_calls();
        for entry in log.session_entries() {
            for run in &entry.commands_run {
                let receipt = Receipt::of_run(run, entry);
                let script = Script::parse(&receipt.run.command);
                if let Some(id) = receipt.run.receipt.call_id.as_deref()
                    && let Some(call) = calls.iter().find(|c| c.call.call_id == id)
                {
                    let ran = call.call.command().unwrap_or_default();
                    if Script::parse(ran).claims() != script.claims() {
                        out.ignored.push(format!(
                            "{receipt}: call {id} of the session ran `{}`, not this command",
                            crate::receipt::one_line(ran)
                        ));
                        continue;
                    }
                    let answers = self.answers().get(id).map_or(0, |a| a.count);
                    if answers > 1 {
                        out.ignored.push(format!(
                            "{receipt}: {answers} results answer call {id} in the session"
                        ));
                        continue;
                    }
                }
                out.kept.push((receipt, script));
            }
        }
        Ok(out)
    }

    /// Returns the change log, or `None` when its file does not exist.
    pub fn change_log(&self) -> Result<Option<&ChangeLog>, &Error> {
        if let Some(log) = self.own_log {
            return Ok(Some(log));
        }
        let path = self.resolve(&self.paths.change_log);
        cached(&self.change_log, || read_if_exists(&path, ChangeLog::read))
    }

    /// Returns the brief, or `None` when its file does not exist.
    pub fn brief(&self) -> Result<Option<&Brief>, &Error> {
        let path = self.resolve(&self.paths.brief);
        cached(&self.brief, || read_if_exists(&path, Brief::read))
    }

    /// Returns the test report, or `None` when its file does not exist.
    pub fn test_report(&self) -> Result<Option<&TestReport>, &Error> {
        let path = self.resolve(&self.paths.test_report);
        cached(&self.test_report, || {
            read_if_exists(&path, TestReport::read)
        })
    }
}

fn cached<T>(
    cell: &OnceLock<Result<Option<T>, Error>>,
    load: impl FnOnce() -> Result<Option<T>, Error>,
) -> Result<Option<&T>, &Error> {
    match cell.get_or_init(load) {
        Ok(value) => Ok(value.as_ref()),
        Err(e) => Err(e),
    }
}

fn read_if_exists<T>(
    path: &Path,
    read: impl FnOnce(&Path) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    match read(path) {
        Ok(value) => Ok(Some(value)),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Returns the calls among `events` of `session` with their results, then those of the
/// subagents they started (depth first).
fn calls_of<'s>(
    session: &'s Session,
    events: &'s [Event],
    results: &FastMap<&'s str, &'s ToolResult>,
) -> Vec<Call<'s>> {
    let mut calls = Vec::new();
    push_calls(&mut calls, session, events, results, 0);
    calls
}

fn push_calls<'s>(
    calls: &mut Vec<Call<'s>>,
    session: &'s Session,
    events: &'s [Event],
    results: &FastMap<&'s str, &'s ToolResult>,
    depth: usize,
) {
    for event in events {
        let Some(call) = event.as_tool_call() else {
            continue;
        };
        calls.push(Call {
            call,
            event,
            result: results.get(call.call_id.as_str()).copied(),
            session,
            depth,
        });
        if let Some(sub) = session.subagent_of(&call.call_id) {
            push_calls(calls, sub, &sub.events, &sub.results_by_call(), depth + 1);
        }
    }
}

/// Appends the calls of `session`'s subagents that no call of it started (a compaction agent,
/// a subagent whose spawning call the log does not name), each with its own subagents.
fn push_unlinked<'s>(calls: &mut Vec<Call<'s>>, session: &'s Session, depth: usize) {
    for sub in &session.subagents {
        let linked = sub
            .spawned_by
            .as_deref()
            .is_some_and(|id| session.tool_calls().any(|c| c.call_id == id));
        if linked {
            push_unlinked(calls, sub, depth + 1);
        } else {
            push_calls(calls, sub, &sub.events, &sub.results_by_call(), depth + 1);
            push_unlinked(calls, sub, depth + 1);
        }
    }
}

/// Returns true when two paths name the same file (decision G8): `\` is `/`, a leading `./` is
/// dropped, case is ignored, and an absolute path matches a relative one it ends with.
pub fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (normalize(a), normalize(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    a == b || ends_with_path(&a, &b) || ends_with_path(&b, &a)
}

fn normalize(path: &str) -> String {
    let mut p = path.trim().replace('\\', "/").to_lowercase();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest.to_owned();
    }
    p
}

fn ends_with_path(long: &str, short: &str) -> bool {
    long.len() > short.len()
        && long.ends_with(short)
        && long.as_bytes()[long.len() - short.len() - 1] == b'/'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_by_the_rules_of_g8() {
        assert!(same_file("./src/main.go", "src/main.go"));
        assert!(same_file("SRC\\Main.go", "src/main.go"));
        assert!(same_file("/project/src/main.go", "src/main.go"));
        assert!(same_file("src/main.go", "/project/src/main.go"));
        assert!(!same_file("/project/mysrc/main.go", "src/main.go"));
        assert!(!same_file("src/main.go", "src/main.rs"));
        assert!(!same_file("", ""));
    }
}
