//! The predicate trait that validators (and, later, contract predicates and tool-call
//! assertions) implement over an [`EvidenceView`], and the verdict they give.

use std::fmt;

use vouch_evidence::EvidenceView;

/// What a gate decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The handoff or completion may proceed.
    Pass,
    /// It may not; the message is what the agent is told.
    Block(Block),
}

/// Why a gate blocked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Block {
    /// The validator (or predicate) that blocked.
    pub validator: String,
    /// The message injected into the conversation.
    pub message: String,
}

impl Verdict {
    /// Returns a block by `validator` with `message`.
    pub fn block(validator: impl Into<String>, message: impl Into<String>) -> Verdict {
        Verdict::Block(Block {
            validator: validator.into(),
            message: message.into(),
        })
    }

    /// Returns true for [`Verdict::Pass`].
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }
}

/// What a predicate is evaluated on: the evidence, and the keyword of the gate (the route's
/// keyword, or the word a completion gate uses) that messages name.
#[derive(Debug, Clone, Copy)]
pub struct GateContext<'v, 's> {
    /// The evidence.
    pub view: &'v EvidenceView<'s>,
    /// The route's keyword (`HANDOFF TO REVIEWER`), or `Completion` for a stop hook.
    pub keyword: &'v str,
}

/// A check over the evidence: a validator, a contract predicate or a tool-call assertion.
///
/// A predicate never panics and never passes on an internal error: when it cannot decide (an
/// unreadable file, a command that timed out), it blocks and says why (decision G4).
pub trait Predicate: fmt::Debug + Send + Sync {
    /// Returns the name shown when it blocks (`RequireShellPass`).
    fn name(&self) -> &str;

    /// Evaluates the predicate.
    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict;

    /// Returns how many of the session's last turns the predicate reads, or `None` when it needs
    /// the whole session. Gates read no more of a long log than their predicates need.
    fn turns_needed(&self) -> Option<usize> {
        Some(1)
    }

    /// Returns what the predicate checks, as a report's row shows it (`Read not called with
    /// file_path glob *.env`); its name by default.
    fn describe(&self) -> String {
        self.name().to_owned()
    }
}

/// Evaluates predicates in order; the first block wins (AND semantics).
pub(crate) fn evaluate_all<'p>(
    predicates: impl IntoIterator<Item = &'p dyn Predicate>,
    cx: &GateContext<'_, '_>,
) -> Verdict {
    for p in predicates {
        let verdict = p.evaluate(cx);
        if !verdict.is_pass() {
            return verdict;
        }
    }
    Verdict::Pass
}

/// Evaluates predicates as a gate decides: in order, the first block wins, and a would-be pass
/// over a session log with unreadable lines is one block naming the first of them (decisions
/// G4 and D20). Every gate — a route, a completion, the stop hook, an agent test's `gate:` —
/// decides through here, so none passes on evidence vouch could not read.
pub fn evaluate_gate<'p>(
    predicates: impl IntoIterator<Item = &'p dyn Predicate>,
    cx: &GateContext<'_, '_>,
) -> Verdict {
    match (evaluate_all(predicates, cx), cx.view.unreadable()) {
        (Verdict::Pass, Some(unreadable)) => Verdict::block(
            "vouch",
            format!(
                "{} blocked: the session log has {} line(s) vouch could not read (the first: {}).\n\
                 vouch does not let a {} through on evidence it cannot read; fix the log, then retry.",
                blocked_word(cx.keyword),
                unreadable.lines,
                unreadable.first,
                claim(cx.keyword),
            ),
        ),
        (verdict, _) => verdict,
    }
}

/// Returns the block of a gate whose session log could not be read at all (decision G4).
pub(crate) fn unreadable_session(keyword: &str, cause: &dyn std::fmt::Display) -> Verdict {
    Verdict::block(
        "vouch",
        format!(
            "{} blocked: vouch could not read the session transcript: {cause}.\n\
             vouch does not let a {} through on evidence it cannot read.",
            blocked_word(keyword),
            claim(keyword),
        ),
    )
}

/// Returns the claim a gate holds back, as its fail-closed messages name it.
fn claim(keyword: &str) -> &'static str {
    if blocked_word(keyword) == "Handoff" {
        "handoff"
    } else {
        "completion"
    }
}

/// Returns the block of a predicate that could not read its evidence (decision G4).
pub(crate) fn fail_closed(
    name: &str,
    keyword: &str,
    what: &str,
    cause: &dyn std::error::Error,
) -> Verdict {
    let mut causes = cause.to_string();
    let mut source = cause.source();
    while let Some(s) = source {
        causes.push_str(": ");
        causes.push_str(&s.to_string());
        source = s.source();
    }
    Verdict::block(
        name,
        format!(
            "{} blocked: {name} could not check {what}: {causes}.\nFix the cause, then retry; vouch does not let a handoff through on evidence it cannot read.",
            blocked_word(keyword)
        ),
    )
}

/// Returns the word that starts the messages the spec writes as `Handoff blocked:` — kept as
/// `Handoff` on routes, the keyword word of a completion gate otherwise.
pub(crate) fn blocked_word(keyword: &str) -> &str {
    if keyword.eq_ignore_ascii_case("Completion") {
        "Completion"
    } else {
        "Handoff"
    }
}
