//! Coding agents' CLIs as agents of a run, through the built binary: the stand-in `claude`,
//! `codex` and `gemini` (vouch-standin-cli) take the real flags, really write and run, and
//! keep their real logs in a temporary home.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{command_in, repo, run_record};

/// A run's stage: a temporary home holding the stand-ins' state and plan, the stand-ins first
/// on `PATH`, and a copy of the bundled calculator to work in.
struct Stage {
    _temp: tempfile::TempDir,
    home: PathBuf,
    bin: PathBuf,
    work: PathBuf,
}

impl Stage {
    fn new(plan: &serde_json::Value) -> Stage {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        // The stand-ins' own state sits in the home's `.cache`, which a confined CLI may write.
        std::fs::create_dir_all(home.join(".cache/state")).unwrap();
        std::fs::write(home.join(".cache/plan.json"), plan.to_string()).unwrap();
        let bin = vouch_standin::cli::install(&temp.path().join("bin"));
        let work = temp.path().join("calc");
        std::fs::create_dir_all(&work).unwrap();
        for f in ["calc.sh", "test.sh"] {
            std::fs::copy(
                repo().join("examples/pipeline/project").join(f),
                work.join(f),
            )
            .unwrap();
        }
        Stage {
            _temp: temp,
            home,
            bin,
            work,
        }
    }

    /// The command running `vouch` with `args` on this stage.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = command_in(&self.work);
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("HOME", &self.home)
            .env("STANDIN_CLI_STATE", self.home.join(".cache/state"))
            .env("STANDIN_CLI_PLAN", self.home.join(".cache/plan.json"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .args(args);
        cmd
    }

    fn run(&self, pipeline: &Path, extra: &[&str]) -> Output {
        let pipeline = pipeline.to_str().unwrap();
        let mut args = vec![
            "run",
            pipeline,
            "--workdir",
            ".",
            "--task",
            "add() subtracts; make it add.",
        ];
        args.extend(extra);
        self.command(&args).output().unwrap()
    }

    /// What the stand-in `cli` was asked: its argument lines, or its prompts.
    fn asked(&self, cli: &str, what: &str) -> String {
        std::fs::read_to_string(self.home.join(format!(".cache/state/{cli}.{what}")))
            .unwrap_or_default()
    }

    /// Starts `vouch run` of `pipeline` (its output piped) and returns once the CLI has written
    /// the fixed calculator, inside its turn.
    fn start_until_written(&self, pipeline: &Path) -> std::process::Child {
        let child = self
            .command(&[
                "run",
                pipeline.to_str().unwrap(),
                "--workdir",
                ".",
                "--task",
                "add() subtracts; make it add.",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::fs::read_to_string(self.work.join("calc.sh")).unwrap_or_default() != FIXED {
            assert!(std::time::Instant::now() < deadline, "the CLI never wrote");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        child
    }

    /// Resumes the run of `pipeline` to its end, and checks that the stand-in Claude Code ran
    /// twice in one session: started, then resumed.
    fn resume_claude_s_session(&self, pipeline: &Path) {
        let out = self
            .command(&[
                "run",
                pipeline.to_str().unwrap(),
                "--workdir",
                ".",
                "--resume",
            ])
            .output()
            .unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(0), "{all}");
        let args = self.asked("claude", "args");
        let lines: Vec<&str> = args.lines().collect();
        assert_eq!(lines.len(), 2, "{args}");
        assert!(lines[1].contains("--resume"), "{args}");
        assert_eq!(session_of(lines[0]), session_of(lines[1]));
    }

    fn pipeline(&self, yaml: &str) -> PathBuf {
        let path = self.home.join(".cache/pipeline.yaml");
        std::fs::write(&path, yaml).unwrap();
        path
    }

    fn change_log(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.work.join(".fuseraft/state/changes.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

const FIXED: &str =
    "# The calculator: add A B prints their sum.\nadd() {\n  echo $(( $1 + $2 ))\n}\n";

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The session id a `--session-id ID` or `--resume ID` argument line names.
fn session_of(line: &str) -> &str {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "--session-id" || *w == "--resume")
        .unwrap();
    words[at + 1]
}

#[test]
fn claude_code_develops_codex_reviews_and_every_handoff_is_gated_on_their_logs() {
    let stage = Stage::new(&serde_json::json!({
        "claude": [
            [{"say": "I fixed add().\nHANDOFF TO REVIEWER"}],
            [{"write": {"path": "calc.sh", "content": FIXED}},
             {"run": "sh test.sh"},
             {"mcp": {"server": "github", "tool": "create_pull_request"}},
             {"say": "Fixed add(); the tests pass.\nHANDOFF TO REVIEWER"}]
        ],
        "codex": [[{"run": "sh test.sh"}, {"say": "The change is right.\nAPPROVED"}]]
    }));
    let html = stage.home.join(".cache/run.html");
    let out = stage.run(
        &repo().join("examples/pipeline/cli-agents.yaml"),
        &["--html", html.to_str().unwrap()],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("corrected (RequireWriteFile)"), "{all}");
    assert!(all.contains("ended: Reviewer wrote `APPROVED`"), "{all}");
    // One Claude Code session: started, then resumed with the correction.
    let args = stage.asked("claude", "args");
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.len(), 2, "{args}");
    assert!(lines[0].contains("--session-id"), "{args}");
    assert!(lines[1].contains("--resume"), "{args}");
    assert_eq!(session_of(lines[0]), session_of(lines[1]));
    let prompts = stage.asked("claude", "prompts");
    let second = prompts.split("\n---\n").nth(1).unwrap();
    assert!(
        second.starts_with("Handoff blocked: no evidence of real work this turn"),
        "{second}"
    );
    // Its log holds both turns, in the real place.
    let slug = vouch_session::locations::claude_project_slug(&stage.work.canonicalize().unwrap());
    let log = stage
        .home
        .join(".claude/projects")
        .join(slug)
        .join(format!("{}.jsonl", session_of(lines[0])));
    assert!(log.is_file(), "{}", log.display());
    // Codex ran once, in Codex's own sandbox mode.
    assert!(
        stage
            .asked("codex", "args")
            .contains("exec --json --skip-git-repo-check -C"),
        "{}",
        stage.asked("codex", "args")
    );
    // The change log: what each CLI's log says it did, recorded by vouch.
    let changes = stage.change_log();
    let entries = changes["Entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{changes}");
    assert_eq!(entries[0]["Agent"], "Developer");
    assert_eq!(entries[0]["FilesWritten"], serde_json::json!(["calc.sh"]));
    assert_eq!(entries[0]["CommandsRun"][0]["Command"], "sh test.sh");
    assert_eq!(entries[0]["CommandsRun"][0]["ExitCode"], 0);
    assert_eq!(
        entries[0]["ToolCalls"][0]["Tool"],
        "mcp__github__create_pull_request"
    );
    assert_eq!(entries[1]["Agent"], "Reviewer");
    assert_eq!(entries[1]["CommandsRun"][0]["ExitCode"], 0);
    // The run's session nests each CLI turn as a subagent of its call.
    let session = run_record(&stage.work).join("session.jsonl");
    let shown = crate::support::succeeded(
        &stage
            .command(&["session", "show", session.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert!(shown.contains("✓ claude-code"), "{shown}");
    assert!(shown.contains("✓ codex"), "{shown}");
    assert!(shown.contains("✓ Write"), "{shown}");
    assert!(shown.contains("✓ exec_command sh test.sh"), "{shown}");
    // The report, in a real browser: each CLI turn's calls nested under the CLI's call.
    let (dom, log) = crate::report::browse(&format!("file://{}", html.display()), &["--dump-dom"]);
    crate::report::assert_quiet_console(&log);
    assert_eq!(
        dom.matches("<h2 class=\"lane\"").count(),
        2,
        "a lane per agent"
    );
    let nested: Vec<&str> = dom.split("class=\"subagent").skip(1).collect();
    assert_eq!(nested.len(), 3, "a subagent per CLI turn: {dom}");
    for (i, tool) in [
        (1, "Write"),
        (1, "Bash"),
        (1, "mcp__github__create_pull_request"),
        (2, "exec_command"),
    ] {
        assert!(
            nested[i].contains(tool),
            "{tool} in CLI turn {i}: {}",
            nested[i]
        );
    }
}

#[test]
fn a_cli_that_claims_passing_tests_its_log_shows_failing_is_sent_back() {
    let stage = Stage::new(&serde_json::json!({
        "claude": [
            [{"write": {"path": "notes.txt", "content": "looked at it\n"}},
             {"run": "sh test.sh"},
             {"say": "All tests pass.\nHANDOFF TO REVIEWER"}]
        ]
    }));
    let out = stage.run(
        &repo().join("examples/pipeline/cli-agents.yaml"),
        &["--max-turns", "1"],
    );
    let all = text(&out);
    assert!(all.contains("corrected (RequireShellPass)"), "{all}");
    assert!(!all.contains("Reviewer next"), "{all}");
    // The failing run is in the change log as failed (Claude Code's log says a command failed,
    // not its exit code).
    let changes = stage.change_log();
    assert_eq!(changes["Entries"][0]["CommandsRun"][0]["succeeded"], false);
}

/// A pipeline of one Gemini CLI agent (and a cap), with `extra` keys on the agent.
fn gemini_pipeline(extra: &str) -> String {
    format!(
        "Orchestration:
  Agents:
    - Name: Developer
      Cli: gemini
      Instructions: Fix it, run `sh test.sh`, then say HANDOFF TO REVIEWER.
{extra}    - Name: Reviewer
      Cli: codex
      Instructions: Review, then APPROVED.
  Selection:
    Type: keyword
    StuckThreshold: 3
    Routes:
      - Keyword: HANDOFF TO REVIEWER
        Agent: Reviewer
        Validators: [RequireWriteFile, RequireShellPass]
        RequiredCommandPattern: sh test.sh
        SourceAgents: [Developer]
      - Keyword: APPROVED
        Agent: Reviewer
        SourceAgents: [Reviewer]
  Termination:
    Type: regex
    Pattern: '(?m)^APPROVED$'
    AgentNames: [Reviewer]
"
    )
}

#[test]
fn gemini_cli_takes_turns_in_its_own_session() {
    let stage = Stage::new(&serde_json::json!({
        "gemini": [
            [{"say": "On it.\nHANDOFF TO REVIEWER"}],
            [{"write": {"path": "calc.sh", "content": FIXED}},
             {"run": "sh test.sh"},
             {"say": "Done.\nHANDOFF TO REVIEWER"}]
        ],
        "codex": [[{"say": "APPROVED"}]]
    }));
    let pipeline = stage.pipeline(&gemini_pipeline(""));
    let out = stage.run(&pipeline, &["--max-turns", "5"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let args = stage.asked("gemini", "args");
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.len(), 2, "{args}");
    assert!(!lines[0].contains("--resume"), "{args}");
    // The second turn resumes the session the first one's stream named.
    assert!(lines[1].contains("--resume "), "{args}");
    let changes = stage.change_log();
    assert_eq!(
        changes["Entries"][0]["FilesWritten"],
        serde_json::json!(["calc.sh"])
    );
    assert_eq!(changes["Entries"][0]["CommandsRun"][0]["ExitCode"], 0);
}

/// Returns the processes whose environment names `marker`.
fn processes_with(marker: &Path) -> Vec<String> {
    let marker = marker.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let environ = entry.path().join("environ");
        if let Ok(bytes) = std::fs::read(&environ)
            && String::from_utf8_lossy(&bytes).contains(&marker)
            && entry.file_name() != std::process::id().to_string().as_str()
        {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

#[test]
fn a_hanging_cli_is_stopped_at_its_timeout_and_a_failing_one_is_a_turn_error() {
    let stage = Stage::new(&serde_json::json!({
        "gemini": [[{"sleep": 60}], [{"exit": 3}]]
    }));
    let pipeline = stage.pipeline(&gemini_pipeline("      TimeoutSeconds: 1\n"));
    let started = std::time::Instant::now();
    let out = stage.run(&pipeline, &["--max-turns", "2"]);
    let all = text(&out);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{all}"
    );
    // Both turns failed and the router saw it; the run ended by its cap, not a crash.
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("the cap of 2 turns was reached"), "{all}");
    let journal = std::fs::read_to_string(run_record(&stage.work).join("journal.jsonl")).unwrap();
    assert!(
        journal.contains("ran past its 1 s and was stopped"),
        "{journal}"
    );
    assert!(
        journal.contains("Gemini CLI exited with code 3"),
        "{journal}"
    );
    // The hung CLI's process group is gone.
    assert_eq!(processes_with(&stage.home), Vec::<String>::new());
}

/// A stage whose Claude Code writes the fix and then hangs in its first turn, and finishes in its
/// second; with the pipeline it runs.
fn interrupted_stage() -> (Stage, PathBuf) {
    let stage = Stage::new(&serde_json::json!({
        "claude": [
            [{"write": {"path": "calc.sh", "content": FIXED}}, {"sleep": 60}],
            [{"run": "sh test.sh"}, {"say": "Fixed; tests pass.\nHANDOFF TO REVIEWER"}]
        ],
        "codex": [[{"run": "sh test.sh"}, {"say": "APPROVED"}]]
    }));
    (stage, repo().join("examples/pipeline/cli-agents.yaml"))
}

#[test]
fn a_run_killed_during_a_cli_turn_resumes_the_cli_s_session_and_records_it_once() {
    let (stage, pipeline) = interrupted_stage();
    let mut child = stage.start_until_written(&pipeline);
    child.kill().unwrap();
    child.wait().unwrap();
    // The CLI outlives a run killed so; the resumed run stops it before resuming its session.
    assert!(!processes_with(&stage.home).is_empty());
    stage.resume_claude_s_session(&pipeline);
    // Resumed with the same prompt.
    let prompts = stage.asked("claude", "prompts");
    let asked: Vec<&str> = prompts.split("\n---\n").collect();
    assert_eq!(asked[0], asked[1]);
    // Recorded once: one entry per turn, the write and the command once each.
    let changes = stage.change_log();
    let entries = changes["Entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{changes}");
    assert_eq!(entries[0]["FilesWritten"], serde_json::json!(["calc.sh"]));
    assert_eq!(entries[0]["CommandsRun"].as_array().unwrap().len(), 1);
    let journal = std::fs::read_to_string(run_record(&stage.work).join("journal.jsonl")).unwrap();
    assert_eq!(journal.matches("\"record\":\"cli_turn\"").count(), 2);
    assert_eq!(processes_with(&stage.home), Vec::<String>::new());
}

#[test]
fn what_a_cli_agent_cannot_have_is_reported_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pipeline.yaml"),
        "Orchestration:
  Models:
    m: {Provider: scripted, Script: s.yaml}
  Agents:
    - Name: Developer
      Cli: cursor
    - Name: Reviewer
      Cli: claude-code
      Tools: [FileSystem]
      Permissions: yolo
    - Name: Planner
      Model: m
      TimeoutSeconds: 60
  Selection:
    Type: sequential
  Termination:
    Type: maxiterations
    MaxIterations: 3
",
    )
    .unwrap();
    let out = crate::support::vouch_in(
        dir.path(),
        &["run", "pipeline.yaml", "--workdir", ".", "--task", "x"],
    );
    insta::assert_snapshot!(crate::support::render(&out));
}

#[test]
fn ctrl_c_stops_the_cli_s_process_group_and_resume_continues_its_session() {
    let (stage, pipeline) = interrupted_stage();
    let child = stage.start_until_written(&pipeline);
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    // Nothing of the CLI outlives the interrupted run.
    assert_eq!(processes_with(&stage.home), Vec::<String>::new(), "{all}");
    stage.resume_claude_s_session(&pipeline);
    let changes = stage.change_log();
    assert_eq!(
        changes["Entries"][0]["FilesWritten"],
        serde_json::json!(["calc.sh"])
    );
}

#[test]
fn the_cli_and_what_it_runs_are_confined_by_the_run_s_sandbox() {
    let stage = Stage::new(&serde_json::json!({"claude": [[]]}));
    let outside = stage.home.parent().unwrap().join("outside.txt");
    let secret = stage.home.join(".ssh/id_rsa");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "PRIVATE KEY").unwrap();
    let plan = serde_json::json!({"claude": [[
        {"run": format!("echo leak > {}", outside.display())},
        {"run": format!("cat {}", secret.display())},
        {"say": "Tried.\nHANDOFF TO REVIEWER"}
    ]]});
    std::fs::write(stage.home.join(".cache/plan.json"), plan.to_string()).unwrap();
    let out = stage.run(
        &repo().join("examples/pipeline/cli-agents.yaml"),
        &["--max-turns", "1"],
    );
    let all = text(&out);
    assert!(!outside.exists(), "{all}");
    let changes = stage.change_log();
    let commands = changes["Entries"][0]["CommandsRun"].as_array().unwrap();
    assert_eq!(commands.len(), 2, "{changes}");
    for c in commands {
        assert_eq!(c["succeeded"], false, "{c}");
        assert!(
            c["Output"].as_str().unwrap().contains("Permission denied"),
            "{c}"
        );
    }
}

#[test]
fn a_model_planner_a_claude_code_developer_and_a_codex_reviewer_share_one_run() {
    let stage = Stage::new(&serde_json::json!({
        "claude": [[
            {"write": {"path": "calc.sh", "content": FIXED}},
            {"run": "sh test.sh"},
            {"say": "Done as planned.\nHANDOFF TO REVIEWER"}
        ]],
        "codex": [[{"run": "sh test.sh"}, {"say": "APPROVED"}]]
    }));
    std::fs::write(
        stage.home.join(".cache/replies.yaml"),
        "model: demo\nagents:\n  Planner:\n    - text: \"Change add() to add.\\nHANDOFF TO DEVELOPER\"\n",
    )
    .unwrap();
    let pipeline = stage.pipeline(
        "Orchestration:
  Models:
    demo: {Provider: scripted, Script: replies.yaml}
  Agents:
    - Name: Planner
      Model: demo
      Instructions: Plan, then HANDOFF TO DEVELOPER.
      Tools: [FileSystem]
    - Name: Developer
      Cli: claude-code
      Instructions: Do what the plan says, run `sh test.sh`, then HANDOFF TO REVIEWER.
    - Name: Reviewer
      Cli: codex
      Instructions: Review, then APPROVED.
  Selection:
    Type: keyword
    Routes:
      - {Keyword: HANDOFF TO DEVELOPER, Agent: Developer, SourceAgents: [Planner]}
      - Keyword: HANDOFF TO REVIEWER
        Agent: Reviewer
        Validators: [RequireWriteFile, RequireShellPass]
        RequiredCommandPattern: sh test.sh
        SourceAgents: [Developer]
      - {Keyword: APPROVED, Agent: Reviewer, SourceAgents: [Reviewer]}
  Termination:
    Type: regex
    Pattern: '(?m)^APPROVED$'
    AgentNames: [Reviewer]
  Budget: {MaxTurns: 6}
",
    );
    let out = stage.run(&pipeline, &[]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("3 turns, 0 corrections"), "{all}");
    // Claude Code was handed the Planner's reply.
    let prompt = stage.asked("claude", "prompts");
    assert!(
        prompt.contains("Planner says:\nChange add() to add."),
        "{prompt}"
    );
    // Tokens per agent: the CLIs' own usage records.
    assert!(all.contains("Developer 360"), "{all}");
    assert!(all.contains("Reviewer 240"), "{all}");
}
