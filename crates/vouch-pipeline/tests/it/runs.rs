//! Whole runs with a scripted model: a forged handoff blocked then corrected, a backed one
//! routed, the end by termination; stuck after three corrections; the turn cap; the recorded
//! session and change log.

use vouch_gate::Decision;
use vouch_pipeline::{Ended, Progress, RunConfig, models, run};

use crate::support::Project;

/// The pipeline of these tests: Developer → Tester, `sh test.sh` the test command.
const PIPELINE: &str = r#"
Orchestration:
  Models:
    demo: {Provider: scripted, Script: script.yaml}
  Agents:
    - Name: Developer
      Instructions: Fix add() in calc.sh, run the tests, then write HANDOFF TO TESTER.
      Model: demo
      Tools: [FileSystem, Shell, Handoff]
    - Name: Tester
      Instructions: Run the tests; write APPROVED when they pass.
      Model: demo
      Tools: [FileSystem, Shell]
  Selection:
    Type: keyword
    Routes:
      - Keyword: "HANDOFF TO TESTER"
        Agent: Tester
        Validators: [RequireWriteFile, RequireShellPass]
        RequiredCommandPattern: "sh test.sh"
        SourceAgents: [Developer]
      - Keyword: APPROVED
        Agent: Tester
        Validator: RequireShellPass
        SourceAgents: [Tester]
  Termination:
    Type: regex
    Pattern: '(?m)^\s*APPROVED\s*$'
    AgentNames: [Tester]
  Budget: {MaxTurns: 12}
"#;

/// The honest script: a forged claim first, then the work, then the Tester's check.
const SCRIPT: &str = r#"
agents:
  Developer:
    - text: "Fixed it.\nHANDOFF TO TESTER"
    - calls:
        - {tool: patch_file, args: {path: calc.sh, old: "a - b", new: "a + b"}}
        - {tool: shell_run, args: {command: "sh test.sh"}}
    - text: "Fixed add() and the tests pass.\nHANDOFF TO TESTER"
  Tester:
    - calls:
        - {tool: shell_run, args: {command: "sh test.sh"}}
    - text: "The tests pass.\nAPPROVED"
"#;

/// A project with a broken `calc.sh` and its test, the pipeline, and `script`.
fn project(script: &str) -> Project {
    let dir = Project::new();
    let write = |name: &str, text: &str| dir.write(name, text);
    write("pipeline.yaml", PIPELINE);
    write("script.yaml", script);
    write("calc.sh", "add() { echo $(( a - b )); }\n");
    write(
        "test.sh",
        "a=2; b=3; . ./calc.sh; r=$(add); [ \"$r\" = 5 ] && echo '1 passed, 0 failed' || { echo \"add gave $r\"; exit 1; }\n",
    );
    dir
}

/// Runs the project's pipeline; returns the summary and the decisions taken, as words.
fn run_project(dir: &Project) -> (vouch_pipeline::Summary, Vec<String>) {
    let config =
        RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let models = models::build(&config).unwrap();
    let mut decisions = Vec::new();
    let summary = run(
        &config,
        &models,
        &dir.options("add() returns the difference; make it the sum."),
        &mut |p| {
            if let Progress::Decided {
                agent, decision, ..
            } = p
            {
                decisions.push(match decision {
                    Decision::Route { keyword, .. } => format!("{agent}: route {keyword}"),
                    Decision::Correct { validator, .. } => {
                        format!(
                            "{agent}: corrected by {}",
                            validator.as_deref().unwrap_or("-")
                        )
                    }
                    Decision::Terminate { .. } => format!("{agent}: terminate"),
                    Decision::Stuck { .. } => format!("{agent}: stuck"),
                });
            }
        },
    )
    .unwrap();
    (summary, decisions)
}

#[test]
fn a_forged_handoff_is_blocked_corrected_and_the_backed_one_goes_through() {
    let dir = project(SCRIPT);
    let (summary, decisions) = run_project(&dir);
    assert_eq!(
        decisions,
        [
            "Developer: corrected by RequireWriteFile",
            "Developer: route HANDOFF TO TESTER",
            "Tester: terminate",
        ]
    );
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    assert_eq!((summary.turns, summary.corrections), (3, 1));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("calc.sh")).unwrap(),
        "add() { echo $(( a + b )); }\n"
    );
    // The runner's own record: the change log and the session, read back.
    let log = vouch_evidence::ChangeLog::read(&summary.change_log).unwrap();
    let commands: Vec<(&str, &str, bool)> = log
        .entries
        .iter()
        .flat_map(|e| {
            e.commands_run
                .iter()
                .map(move |c| (e.agent.as_str(), c.command.as_str(), c.succeeded))
        })
        .collect();
    assert_eq!(
        commands,
        [
            ("Developer", "sh test.sh", true),
            ("Tester", "sh test.sh", true)
        ]
    );
    // Each command carries its receipt: the call it answers, when and how long it ran, its
    // whole output's size, hash and tail.
    let first = &log.entries[0].commands_run[0];
    let receipt = &first.receipt;
    assert_eq!(receipt.call_id.as_deref(), Some("call_developer_2_2"));
    assert_eq!(receipt.output_bytes, Some(19));
    assert_eq!(receipt.output_tail.as_deref(), Some("1 passed, 0 failed\n"));
    assert!(
        receipt.duration_ms.is_some() && receipt.started_at.is_some() && receipt.ended_at.is_some()
    );
    let sha = std::process::Command::new("sh")
        .arg("-c")
        .arg("printf '1 passed, 0 failed\\n' | sha256sum | cut -d' ' -f1")
        .output()
        .unwrap();
    assert_eq!(
        first.output_sha256.as_deref(),
        Some(String::from_utf8(sha.stdout).unwrap().trim())
    );
    let session =
        vouch_session::read_path(&summary.session, &vouch_session::ReadOptions::default())
            .unwrap()
            .session;
    assert_eq!(session.tool_calls().count(), 3);
    assert!(summary.tokens["Developer"].output > 0);
}

#[test]
fn three_forged_handoffs_in_a_row_are_stuck() {
    let dir = project(
        "agents:\n  Developer:\n    - text: \"Done.\\nHANDOFF TO TESTER\"\n    - text: \"Really done.\\nHANDOFF TO TESTER\"\n    - text: \"Done!\\nHANDOFF TO TESTER\"\n",
    );
    let (summary, decisions) = run_project(&dir);
    assert_eq!(decisions.len(), 3);
    let Ended::Stuck {
        agent,
        validator,
        failures,
        ..
    } = &summary.ended
    else {
        panic!("{:?}", summary.ended)
    };
    assert_eq!(
        (agent.as_deref(), validator.as_str(), *failures),
        (Some("Developer"), "RequireWriteFile", 3)
    );
}

#[test]
fn the_turn_cap_ends_a_run_that_does_not_end_itself() {
    let dir = project(SCRIPT);
    let config = RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap();
    let models = models::build(&config).unwrap();
    let mut options = dir.options("task");
    options.max_turns = Some(2);
    let summary = run(&config, &models, &options, &mut |_| {}).unwrap();
    assert_eq!(summary.ended, Ended::TurnCap { cap: 2 });
}

#[test]
fn the_change_log_is_not_the_agents_to_write() {
    let dir = project(
        "agents:\n  Developer:\n    - calls:\n        - {tool: write_file, args: {path: .fuseraft/state/changes.json, content: \"{}\"}}\n        - {tool: write_file, args: {path: ../outside.txt, content: x}}\n    - text: \"HANDOFF TO TESTER\"\n",
    );
    let config = RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap();
    let models = models::build(&config).unwrap();
    let mut options = dir.options("task");
    options.max_turns = Some(1);
    let mut answers = Vec::new();
    run(&config, &models, &options, &mut |p| {
        if let Progress::ToolCall { result, .. } = p {
            answers.push(result.output.preview().to_owned());
        }
    })
    .unwrap();
    assert!(
        answers.iter().all(|a| a.starts_with("[DENIED]")),
        "{answers:?}"
    );
    assert!(!dir.path().parent().unwrap().join("outside.txt").exists());
}

#[test]
fn the_token_budget_ends_a_run_cleanly() {
    let dir = project(SCRIPT);
    let text = std::fs::read_to_string(dir.path().join("pipeline.yaml")).unwrap();
    std::fs::write(
        dir.path().join("pipeline.yaml"),
        text.replace(
            "Budget: {MaxTurns: 12}",
            "Budget: {MaxTurns: 12, MaxTotalTokens: 60}",
        ),
    )
    .unwrap();
    let (summary, _) = run_project(&dir);
    let Ended::TokenBudget { tokens, budget } = summary.ended else {
        panic!("{:?}", summary.ended)
    };
    assert_eq!(budget, 60);
    assert!(tokens >= 60);
    assert_eq!(summary.turns, 2, "the budget was spent by the second turn");
}

#[test]
fn eight_runs_at_once_keep_their_evidence_apart() {
    let dirs: Vec<Project> = (0..8).map(|_| project(SCRIPT)).collect();
    let summaries: Vec<vouch_pipeline::Summary> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .iter()
            .map(|d| s.spawn(move || run_project(d).0))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut sessions = std::collections::BTreeSet::new();
    for (dir, summary) in dirs.iter().zip(&summaries) {
        assert!(
            matches!(summary.ended, Ended::Terminated { .. }),
            "{:?}",
            summary.ended
        );
        assert!(summary.change_log.starts_with(dir.path()));
        let log = vouch_evidence::ChangeLog::read(&summary.change_log).unwrap();
        // Each log holds its own run only: one session, the two turns that ran something.
        let agents: Vec<&str> = log.entries.iter().map(|e| e.agent.as_str()).collect();
        assert_eq!(agents, ["Developer", "Tester"]);
        let ids: std::collections::BTreeSet<&str> = log
            .entries
            .iter()
            .filter_map(|e| e.session_id.as_deref())
            .collect();
        assert_eq!(ids.len(), 1);
        sessions.extend(ids.into_iter().map(str::to_owned));
    }
    assert_eq!(sessions.len(), 8, "every run is a session of its own");
}

/// Returns the journal of the run in `dir`.
fn journal_of(dir: &Project) -> std::path::PathBuf {
    let workdir = dir.path().canonicalize().unwrap();
    vouch_pipeline::run_dir(dir.state(), &workdir).join("journal.jsonl")
}

#[test]
fn a_run_cut_between_its_record_and_its_decision_records_the_turn_once() {
    for appended in [false, true] {
        let dir = project(SCRIPT);
        let (whole, _) = run_project(&dir);
        assert!(matches!(whole.ended, Ended::Terminated { .. }));
        // Cut the run just after its second turn that changed something journaled its entry,
        // before the router decided on it — with the entry appended to the change log, or
        // not yet. Whole records cut from the end leave the journal's seal whole.
        let journal = journal_of(&dir);
        let text = std::fs::read_to_string(&journal).unwrap();
        let mut entries = 0;
        let mut cut = String::new();
        for line in text.lines() {
            cut.push_str(line);
            cut.push('\n');
            if line.contains("\"record\":\"recorded\"") && !line.contains("\"entry\":null") {
                entries += 1;
                if entries == 2 {
                    break;
                }
            }
        }
        std::fs::write(&journal, cut).unwrap();
        let log = dir.path().join(".fuseraft/state/changes.json");
        let mut changes: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
        if !appended {
            changes["Entries"].as_array_mut().unwrap().truncate(1);
            std::fs::write(&log, serde_json::to_string(&changes).unwrap()).unwrap();
        }
        // The scripted model starts over: resuming tells it where each agent was.
        let config = RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap();
        let models = models::build(&config).unwrap();
        let resumed =
            vouch_pipeline::resume(&config, &models, &dir.options(""), &mut |_| {}).unwrap();
        assert!(
            matches!(resumed.ended, Ended::Terminated { .. }),
            "{:?}",
            resumed.ended
        );
        let entries = vouch_evidence::ChangeLog::read(&log).unwrap().entries;
        let agents: Vec<&str> = entries.iter().map(|e| e.agent.as_str()).collect();
        assert_eq!(
            agents,
            ["Developer", "Tester"],
            "the cut turn was recorded once (appended before the cut: {appended})"
        );
    }
}

/// A project whose one agent reads a file in each of `steps` model replies, then says DONE.
fn reading_project(steps: usize, final_text: bool) -> Project {
    let dir = Project::new();
    dir.write(
        "pipeline.yaml",
        "Models:\n  m: {Provider: scripted, Script: script.yaml}\nAgents:\n  - {Name: Worker, Instructions: Work., Model: m, Tools: [FileSystem]}\nSelection:\n  Type: keyword\n  Routes:\n    - {Keyword: DONE, Agent: Worker}\nTermination: {Type: regex, Pattern: '(?m)^DONE$'}\nBudget: {MaxTurns: 3}\n",
    );
    let mut script = String::from("agents:\n  Worker:\n");
    for _ in 0..steps {
        script.push_str("    - calls: [{tool: read_file, args: {path: notes.txt}}]\n");
    }
    if final_text {
        script.push_str("    - text: DONE\n");
    }
    dir.write("script.yaml", &script);
    dir.write("notes.txt", &"the notes the worker reads\n".repeat(20));
    dir
}

/// Runs or resumes the project with a token budget; returns the summary and the calls
/// answered.
fn with_budget(dir: &Project, budget: u64, again: bool) -> (vouch_pipeline::Summary, usize) {
    let config = RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap();
    let models = models::build(&config).unwrap();
    let mut options = dir.options("Work.");
    options.max_total_tokens = Some(budget);
    let mut answered = 0;
    let go = if again { vouch_pipeline::resume } else { run };
    let summary = go(&config, &models, &options, &mut |p| {
        if let Progress::ToolCall { .. } = p {
            answered += 1;
        }
    })
    .unwrap();
    (summary, answered)
}

#[test]
fn a_turn_that_spends_the_budget_stops_there_and_resumes_with_more() {
    let dir = reading_project(10, true);
    let (stopped, answered) = with_budget(&dir, 300, false);
    let Ended::TokenBudget { tokens, budget } = stopped.ended else {
        panic!("{:?}", stopped.ended)
    };
    assert_eq!((stopped.turns, budget), (1, 300));
    assert!(
        tokens >= 300 && answered < 10,
        "{tokens} tokens, {answered} calls"
    );
    // Resumed past its budget, the run asks no model and runs nothing.
    let (again, none) = with_budget(&dir, 300, true);
    assert!(
        matches!(again.ended, Ended::TokenBudget { .. }),
        "{:?}",
        again.ended
    );
    assert_eq!(none, 0);
    // With more, the calls the last reply asked for run first, each once, and the run ends.
    let (finished, rest) = with_budget(&dir, 1_000_000, true);
    assert!(
        matches!(finished.ended, Ended::Terminated { .. }),
        "{:?}",
        finished.ended
    );
    assert_eq!(answered + rest, 10, "every call answered once");
}

#[test]
fn a_model_that_fails_mid_turn_keeps_what_the_turn_cost() {
    let dir = reading_project(2, false);
    let (summary, answered) = with_budget(&dir, 1_000_000, false);
    assert!(
        matches!(summary.ended, Ended::ModelFailed { .. }),
        "{:?}",
        summary.ended
    );
    assert_eq!(answered, 2);
    assert!(summary.tokens["Worker"].input > 0, "{:?}", summary.tokens);
}
