//! The selections a model drives: `llm` (a model names the next agent each round) and
//! `magentic` (a manager keeps a plan and a progress ledger, picks each speaker with an
//! instruction, replans when progress stalls, and ends the run when the request is satisfied),
//! and an `llm` termination (a model says whether the task is done). Their state between
//! rounds is the router state's `selector`, journaled with every decision.

use serde_json::{Value, json};
use vouch_gate::{Magentic, json_of};
use vouch_llm::{ChatMessage, ChatRequest, ModelClient, ToolChoice, Usage};

use crate::config::{AgentConfig, ModelConfig};

/// What a model-driven selection decided.
#[derive(Debug)]
pub(crate) enum Pick {
    /// The next agent, and the note it gets.
    Next {
        /// The agent.
        agent: String,
        /// The routing note.
        note: String,
    },
    /// The request is satisfied.
    Done(String),
    /// The selection cannot go on.
    Stuck(String),
}

/// A model to ask, and how.
pub(crate) struct Asker<'a> {
    pub(crate) client: &'a dyn ModelClient,
    pub(crate) model: Option<&'a ModelConfig>,
    pub(crate) runtime: &'a tokio::runtime::Runtime,
    /// Who asks, for scripted models (`selector`, `manager`, `terminator`).
    pub(crate) role: &'a str,
}

impl Asker<'_> {
    /// Asks `prompt`; returns the answer's text and its tokens.
    fn ask(&self, system: &str, prompt: String) -> Result<(String, Usage), String> {
        let request = ChatRequest {
            system: Some(system.to_owned()),
            messages: vec![ChatMessage::User { text: prompt }],
            tools: Vec::new(),
            model: self.model.and_then(|m| m.model.clone()),
            max_tokens: self.model.map_or(2048, |m| m.max_tokens),
            temperature: self.model.and_then(|m| m.temperature),
            reasoning_effort: self.model.and_then(|m| m.reasoning_effort.clone()),
            tool_choice: ToolChoice::None,
            agent: Some(self.role.to_owned()),
        };
        let reply = self
            .runtime
            .block_on(self.client.chat(&request))
            .map_err(|e| format!("the {} model failed: {e}", self.role))?;
        Ok((reply.text, reply.usage.unwrap_or_default()))
    }
}

/// Returns the team as a prompt lists it: each agent's name and description.
fn team(agents: &[AgentConfig]) -> String {
    agents
        .iter()
        .map(|a| {
            format!(
                "- {}: {}",
                a.name,
                a.description.as_deref().unwrap_or("(no description)")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Returns the last messages of the conversation as text, newest last.
fn history(transcript: &[(Option<String>, ChatMessage)]) -> String {
    let lines: Vec<String> = transcript
        .iter()
        .filter_map(|(who, m)| match (who, m) {
            (None, ChatMessage::User { text }) => Some(format!("[user]: {text}")),
            (Some(w), ChatMessage::Assistant { text, .. }) if !text.trim().is_empty() => {
                Some(format!("[{w}]: {text}"))
            }
            _ => None,
        })
        .collect();
    let from = lines.len().saturating_sub(20);
    lines[from..].join("\n\n")
}

/// Returns the agent the text names: a line that is a name, else the first name in it.
fn named<'a>(text: &str, agents: &'a [AgentConfig]) -> Option<&'a AgentConfig> {
    let clean = |s: &str| {
        s.trim()
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_owned()
    };
    text.lines()
        .find_map(|l| {
            agents
                .iter()
                .find(|a| a.name.eq_ignore_ascii_case(&clean(l)))
        })
        .or_else(|| {
            text.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
                .find_map(|w| agents.iter().find(|a| a.name.eq_ignore_ascii_case(w)))
        })
}

/// The default prompt of an `llm` selection.
const LLM_PROMPT: &str = "Choose who speaks next in this team.\n\nAgents:\n{{$agents}}\n\nConversation so far:\n{{$history}}\n\nAnswer with the name of the next agent only.";

/// Asks an `llm` selection's model for the next agent.
pub(crate) fn llm(
    asker: &Asker<'_>,
    prompt: Option<&str>,
    agents: &[AgentConfig],
    transcript: &[(Option<String>, ChatMessage)],
    usage: &mut Usage,
) -> Pick {
    let prompt = prompt
        .unwrap_or(LLM_PROMPT)
        .replace("{{$agents}}", &team(agents))
        .replace("{{$history}}", &history(transcript));
    for _ in 0..2 {
        match asker.ask(
            "You select the next speaker of a multi-agent team.",
            prompt.clone(),
        ) {
            Ok((text, u)) => {
                *usage = *usage + u;
                if let Some(a) = named(&text, agents) {
                    return Pick::Next {
                        agent: a.name.clone(),
                        note: format!("[selection] the selector chose {}.", a.name),
                    };
                }
            }
            Err(e) => return Pick::Stuck(e),
        }
    }
    Pick::Stuck("the llm selector named no agent of the team, twice".to_owned())
}

/// Asks an `llm` termination's model whether the task is done.
pub(crate) fn done(
    asker: &Asker<'_>,
    prompt: Option<&str>,
    transcript: &[(Option<String>, ChatMessage)],
    usage: &mut Usage,
) -> Result<Option<String>, String> {
    let prompt = prompt
        .unwrap_or("Is the task below complete, judging by the conversation? Answer `yes` or `no` on the first line, then why.\n\n{{$history}}")
        .replace("{{$history}}", &history(transcript));
    let (text, u) = asker.ask(
        "You decide whether a multi-agent team has finished its task.",
        prompt,
    )?;
    *usage = *usage + u;
    let first = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    Ok(first.starts_with("yes").then(|| {
        format!(
            "the termination model says the task is done: {}",
            text.trim()
        )
    }))
}

/// The manager's state between rounds.
fn counters(state: Option<&Value>) -> (Option<String>, u64, u64, u64) {
    let v = state;
    let n = |k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    (
        v.and_then(|v| v.get("plan"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        n("rounds"),
        n("stalls"),
        n("resets"),
    )
}

/// One round of a `magentic` manager: the ledger on the conversation so far, and the next
/// speaker with its instruction. `state` is the router state's `selector`.
pub(crate) fn magentic(
    asker: &Asker<'_>,
    settings: &Magentic,
    task: &str,
    agents: &[AgentConfig],
    transcript: &[(Option<String>, ChatMessage)],
    state: &mut Option<Value>,
    usage: &mut Usage,
) -> Pick {
    let (mut plan, rounds, mut stalls, mut resets) = counters(state.as_ref());
    if rounds >= u64::from(settings.max_rounds) {
        return Pick::Done(format!(
            "the magentic manager's MaxRoundCount of {} rounds is reached",
            settings.max_rounds
        ));
    }
    let system = format!(
        "You are the manager of a team. {}\nEach round you answer with one JSON object only: \
         {{\"plan\": \"the plan, when asked for one\", \"is_request_satisfied\": {{\"answer\": true|false, \"reason\": \"...\"}}, \
         \"is_progress_being_made\": {{\"answer\": true|false}}, \"is_in_loop\": {{\"answer\": true|false}}, \
         \"next_speaker\": {{\"answer\": \"<agent name>\"}}, \"instruction_or_question\": {{\"answer\": \"what that agent should do now\"}}}}",
        settings
            .instructions
            .as_deref()
            .unwrap_or("Plan the work, then pick who acts next and tell them what to do.")
    );
    let prompt = format!(
        "Task:\n{task}\n\nTeam:\n{}\n\nPlan:\n{}\n\nConversation so far:\n{}",
        team(agents),
        plan.as_deref().unwrap_or("(none yet: write one in `plan`)"),
        history(transcript)
    );
    let mut ledger = None;
    for _ in 0..2 {
        match asker.ask(&system, prompt.clone()) {
            Ok((text, u)) => {
                *usage = *usage + u;
                if let Some(v) = json_of(&text) {
                    ledger = Some(v);
                    break;
                }
            }
            Err(e) => return Pick::Stuck(e),
        }
    }
    let Some(ledger) = ledger else {
        return Pick::Stuck(
            "the magentic manager did not answer with its JSON ledger, twice".to_owned(),
        );
    };
    let answer = |k: &str| ledger.get(k).and_then(|v| v.get("answer"));
    let flag = |k: &str| answer(k).and_then(Value::as_bool);
    if plan.is_none() {
        plan = ledger
            .get("plan")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    if flag("is_request_satisfied") == Some(true) {
        let reason = ledger
            .pointer("/is_request_satisfied/reason")
            .and_then(Value::as_str)
            .unwrap_or("the request is satisfied");
        return Pick::Done(format!(
            "the magentic manager says the request is satisfied: {reason}"
        ));
    }
    if flag("is_progress_being_made") == Some(false) || flag("is_in_loop") == Some(true) {
        stalls += 1;
    } else {
        stalls = 0;
    }
    if stalls > u64::from(settings.max_stalls) {
        resets += 1;
        stalls = 0;
        plan = None;
        if resets > u64::from(settings.max_resets) {
            return Pick::Stuck(format!(
                "the magentic manager stalled and replanned {} times (MaxResetCount {})",
                resets - 1,
                settings.max_resets
            ));
        }
    }
    let speaker = answer("next_speaker")
        .and_then(Value::as_str)
        .and_then(|n| named(n, agents));
    let Some(speaker) = speaker else {
        return Pick::Stuck("the magentic manager named no agent of the team".to_owned());
    };
    let instruction = answer("instruction_or_question")
        .and_then(Value::as_str)
        .unwrap_or("Go on with the plan.");
    *state = Some(json!({"plan": plan, "rounds": rounds + 1, "stalls": stalls, "resets": resets}));
    Pick::Next {
        agent: speaker.name.clone(),
        note: format!("[manager] {}: {instruction}", speaker.name),
    }
}
