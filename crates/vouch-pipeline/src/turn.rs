//! One turn of one agent, each tool call through one pipeline, in this order:
//!
//! 1. The model is asked (its instructions, the conversation as it sees it, its tools); its
//!    reply is journaled, then added to the conversation. A reply that spends the run's token
//!    budget ends the turn there: its calls wait for a resumed run with a larger budget.
//! 2. Each call it makes, in order: past the agent's cap of calls, or a tool it was not given,
//!    it is answered `[ERROR]`/`[DENIED]`; otherwise it is prepared — a call that writes,
//!    patches or deletes a file or commits is planned, its intent journaled, and only then
//!    made; any other call runs. Its answer and effects are journaled, then recorded.
//! 3. The model is asked again with the answers, until it answers without a tool call, calls
//!    `handoff`, or reaches its cap.
//!
//! A turn the journal shows begun is finished from where it stopped: a call whose change was
//! journaled is settled from the working directory (made: answered as it would have been; not
//! made: run; neither: answered so), any other unanswered call runs again.

use vouch_llm::{ChatRequest, ModelClient, ToolCallRequest, ToolChoice, ToolSpec, Usage};

use crate::config::{AgentConfig, Compaction, ModelConfig};
use crate::conversation::RunState;
use crate::error::RunError;
use crate::journal::Record;
use crate::progress::Progress;
use crate::replay::Pending;
use crate::tools::{self, Effect, Prepared, Settled, ToolContext, ToolOutput};

/// How a turn ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TurnEnd {
    /// The model had its say: the turn is recorded and decided.
    Finished,
    /// The run was interrupted before the turn ended.
    Interrupted,
    /// The token budget was spent during the turn.
    OutOfTokens,
    /// The agent's model could not answer (after its retries).
    ModelFailed(String),
}

/// What one turn did.
#[derive(Debug)]
pub(crate) struct Turn {
    pub(crate) usage: Usage,
    pub(crate) effects: Vec<Effect>,
    pub(crate) end: TurnEnd,
}

/// What a turn runs with.
pub(crate) struct TurnContext<'a> {
    pub(crate) agent: &'a AgentConfig,
    pub(crate) client: &'a dyn ModelClient,
    pub(crate) model: Option<&'a ModelConfig>,
    pub(crate) cx: &'a ToolContext,
    pub(crate) runtime: &'a tokio::runtime::Runtime,
    /// Tokens left of the run's budget when the turn began.
    pub(crate) budget_left: Option<u64>,
    /// Side effects left before a simulated crash (crash tests only).
    pub(crate) crash_after_effects: &'a mut Option<u32>,
    /// The run's text before every agent's instructions (`SystemPrompt`, a brownfield
    /// convention profile).
    pub(crate) system: Option<&'a str>,
    /// The compaction window, when the run has one.
    pub(crate) window: Option<Compaction>,
    /// The sub-agent's model (`SubAgentModel`, else the agent's own) and its settings.
    pub(crate) sub: (&'a dyn ModelClient, Option<&'a ModelConfig>),
    /// The run's MCP servers.
    pub(crate) mcp: &'a crate::mcp::Clients,
    /// Who approves what `Security.Approve` holds.
    pub(crate) approver: &'a mut crate::approval::Approver,
}

impl RunState {
    /// Takes one turn (or finishes one the journal shows begun).
    pub(crate) fn turn(
        &mut self,
        t: &mut TurnContext<'_>,
        pending: Option<Pending>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Turn, RunError> {
        let agent = t.agent;
        let mut turn = Turn {
            usage: Usage::default(),
            effects: Vec::new(),
            end: TurnEnd::Finished,
        };
        let mut calls_made = 0u32;
        if let Some(p) = pending {
            turn.effects = p.effects;
            calls_made = p.calls_made;
            let unanswered: Vec<ToolCallRequest> = p
                .last_calls
                .iter()
                .filter(|c| !p.answered.contains(&c.id))
                .cloned()
                .collect();
            let handed_off = self.run_calls(
                t,
                &unanswered,
                &p.begun,
                &mut calls_made,
                &mut turn.effects,
                progress,
            )? || p.handed_off;
            if t.cx.cancelled() {
                turn.end = TurnEnd::Interrupted;
                return Ok(turn);
            }
            if p.recorded || p.finished || handed_off || calls_made >= agent.max_tool_calls {
                return Ok(turn);
            }
        }
        let mut specs: Vec<ToolSpec> = tools::specs(&agent.tools);
        specs.extend(mcp_tools(t).map(|tool| ToolSpec {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.schema.clone(),
        }));
        let system = match (t.system, agent.instructions.is_empty()) {
            (Some(run), false) => Some(format!("{run}\n\n{}", agent.instructions)),
            (Some(run), true) => Some(run.to_owned()),
            (None, false) => Some(agent.instructions.clone()),
            (None, true) => None,
        };
        let mut step = 0u32;
        loop {
            if t.cx.cancelled() {
                turn.end = TurnEnd::Interrupted;
                return Ok(turn);
            }
            // A resumed turn may find the budget spent before its model is asked again.
            let spent = turn.usage.input + turn.usage.output;
            if t.budget_left.is_some_and(|left| spent >= left) {
                turn.end = TurnEnd::OutOfTokens;
                return Ok(turn);
            }
            // `FunctionChoice: required` asks for a tool call in the turn's first step (later
            // steps may answer in text, or the turn could never end).
            let tool_choice = match agent.function_choice {
                ToolChoice::Required if step > 0 || calls_made > 0 => ToolChoice::Auto,
                other => other,
            };
            step += 1;
            let request = ChatRequest {
                system: system.clone(),
                messages: self.view(agent, t.window),
                tools: specs.clone(),
                model: t.model.and_then(|m| m.model.clone()),
                max_tokens: t.model.map_or(4096, |m| m.max_tokens),
                temperature: t.model.and_then(|m| m.temperature),
                reasoning_effort: t.model.and_then(|m| m.reasoning_effort.clone()),
                tool_choice,
                agent: Some(agent.name.clone()),
            };
            let reply = match t.runtime.block_on(t.client.chat(&request)) {
                Ok(reply) => reply,
                Err(e) => {
                    turn.end = TurnEnd::ModelFailed(e.to_string());
                    return Ok(turn);
                }
            };
            if let Some(u) = reply.usage {
                turn.usage = turn.usage + u;
            }
            self.journal(&Record::Step {
                agent: agent.name.clone(),
                text: reply.text.clone(),
                calls: reply.calls.clone(),
                usage: reply.usage,
            })?;
            self.apply_step(&agent.name, &reply.text, &reply.calls);
            if reply.calls.is_empty() {
                return Ok(turn);
            }
            let spent = turn.usage.input + turn.usage.output;
            if t.budget_left.is_some_and(|left| spent >= left) {
                turn.end = TurnEnd::OutOfTokens;
                return Ok(turn);
            }
            let none = std::collections::BTreeMap::new();
            let handed_off = self.run_calls(
                t,
                &reply.calls,
                &none,
                &mut calls_made,
                &mut turn.effects,
                progress,
            )?;
            if t.cx.cancelled() {
                turn.end = TurnEnd::Interrupted;
                return Ok(turn);
            }
            if handed_off || calls_made >= agent.max_tool_calls {
                return Ok(turn);
            }
        }
    }

    /// Runs the calls of a step, in order, journaling and recording each; `begun` holds the
    /// changes a stopped run journaled for some of them. Returns whether one was a `handoff`.
    fn run_calls(
        &mut self,
        t: &mut TurnContext<'_>,
        calls: &[ToolCallRequest],
        begun: &std::collections::BTreeMap<String, tools::Intent>,
        calls_made: &mut u32,
        effects: &mut Vec<Effect>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<bool, RunError> {
        let agent = t.agent;
        let mut handed_off = false;
        for call in calls {
            *calls_made += 1;
            let settled = begun.get(&call.id).map(|intent| intent.settle(t.cx));
            let mut output = match settled {
                Some(Settled::Made(out) | Settled::Neither(out)) => out,
                Some(Settled::NotMade) | None => self.answer(t, call, *calls_made)?,
            };
            handed_off |= output.handoff.is_some();
            for effect in &mut output.effects {
                if let Effect::Ran(receipt) | Effect::Git(receipt) = effect {
                    receipt.call_id = Some(call.id.clone());
                }
            }
            self.journal(&Record::Result {
                agent: agent.name.clone(),
                call_id: call.id.clone(),
                name: call.name.clone(),
                text: output.text.clone(),
                outcome: output.outcome,
                effects: output.effects.clone(),
                handoff: output.handoff.clone(),
            })?;
            let (recorded, result) =
                self.apply_result(&agent.name, call, &output.text, output.outcome);
            progress(Progress::ToolCall {
                agent: &agent.name,
                call: &recorded,
                result: &result,
            });
            effects.extend(output.effects);
            // Interrupted: the step's other calls wait for the resumed run.
            if t.cx.cancelled() {
                break;
            }
        }
        Ok(handed_off)
    }

    /// Answers one call: refused, or prepared and — for a change — journaled, then made.
    fn answer(
        &mut self,
        t: &mut TurnContext<'_>,
        call: &ToolCallRequest,
        made: u32,
    ) -> Result<ToolOutput, RunError> {
        let agent = t.agent;
        if made > agent.max_tool_calls {
            return Ok(ToolOutput::error(format!(
                "the cap of {} tool calls a turn is reached: finish the turn",
                agent.max_tool_calls
            )));
        }
        let mcp = crate::mcp::split(&call.name).is_some();
        if !(agent.tools.contains(&call.name) || mcp && mcp_tools(t).any(|m| m.name == call.name)) {
            return Ok(ToolOutput::denied(format!(
                "`{}` is not one of {}'s tools",
                call.name, agent.name
            )));
        }
        // What the policy holds for a person runs only once approved; the decision is
        // journaled, and the answer says it.
        let mut approved_note = None;
        if let Some(decided) = t.approver.decide(&agent.name, call) {
            let at = jiff::Timestamp::now().to_string();
            self.journal(&Record::Approval {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                subject: crate::approval::Approver::subject(call),
                approved: decided.approved,
                by: decided.by.clone(),
                at: at.clone(),
            })?;
            if !decided.approved {
                return Ok(ToolOutput::denied(format!(
                    "this call needs a person's approval (`Security.Approve`), and it was denied ({}, {at})",
                    decided.by
                )));
            }
            approved_note = Some(format!("\n[vouch] approved ({}, {at})", decided.by));
        }
        let mut out = self.answer_approved(t, call, mcp)?;
        if let Some(note) = approved_note {
            out.text.push_str(&note);
        }
        Ok(out)
    }

    /// Answers a call the policy let through.
    fn answer_approved(
        &mut self,
        t: &mut TurnContext<'_>,
        call: &ToolCallRequest,
        mcp: bool,
    ) -> Result<ToolOutput, RunError> {
        let agent = t.agent;
        if mcp {
            return Ok(t
                .mcp
                .call(t.runtime, &call.name, &call.arguments, t.cx.result_cap));
        }
        if call.name.starts_with("chatroom_") {
            return Ok(tools::chatroom::run(
                &call.name,
                &agent.name,
                &call.arguments,
                t.cx,
            ));
        }
        if crate::subagent::is_subagent_tool(&call.name) {
            let sub = crate::subagent::SubContext {
                agent: t.agent,
                cx: t.cx,
                runtime: t.runtime,
                sub: t.sub,
            };
            let ran = crate::subagent::run(&sub, call);
            self.sub_usage = self.sub_usage + ran.usage;
            self.journal(&Record::Subagent {
                agent: agent.name.clone(),
                call_id: call.id.clone(),
                messages: ran.messages.clone(),
            })?;
            self.apply_subagent(&agent.name, &call.id, &ran.messages);
            return Ok(ran.output);
        }
        match tools::prepare(&call.name, &call.arguments, t.cx) {
            Prepared::Done(out) => {
                if call.name == "shell_run" && !out.effects.is_empty() {
                    crash_point(t)?;
                }
                Ok(out)
            }
            Prepared::Change(change) => {
                self.journal(&Record::Begin {
                    call_id: call.id.clone(),
                    intent: change.intent(),
                })?;
                let out = change.apply(t.cx);
                crash_point(t)?;
                Ok(out)
            }
        }
    }
}

/// Returns the MCP tools the turn's agent may call: its servers' tools, filtered by its
/// `Capabilities`.
fn mcp_tools<'t>(t: &'t TurnContext<'_>) -> impl Iterator<Item = &'t crate::mcp::McpTool> {
    t.agent.mcp.iter().flat_map(move |(server, keep)| {
        t.mcp
            .tools_of(server)
            .iter()
            .filter(move |tool| keep.as_ref().is_none_or(|k| k.contains(&tool.tool)))
    })
}

/// Stops the run dead when the crash tests asked for a crash after this side effect.
fn crash_point(t: &mut TurnContext<'_>) -> Result<(), RunError> {
    if let Some(left) = t.crash_after_effects.as_mut() {
        *left = left.saturating_sub(1);
        if *left == 0 {
            return Err(RunError::Io(
                "crash injected right after a side effect (crash tests)".into(),
            ));
        }
    }
    Ok(())
}
