//! A stand-in for the coding agents' CLIs — Claude Code, Codex CLI, Gemini CLI — for vouch's
//! tests of runs whose agents are CLIs. Linked (or copied) as `claude`, `codex` or `gemini`, it
//! takes the flags vouch passes each (and refuses any other), reads the prompt on standard
//! input, and acts out the turn its plan gives: it really writes the files and really runs the
//! commands, and records them as the real CLI does — its session log where the real one keeps
//! it (one file per session id, appended when the session is resumed) and its stream on
//! standard output.
//!
//! Environment:
//! - `STANDIN_CLI_STATE` (required): a folder for its counters and what it was asked
//!   (`<cli>.args`, one line per run; `<cli>.prompts`, prompts separated by `\n---\n`).
//! - `STANDIN_CLI_PLAN`: a JSON file `{"claude": [turn, ...], "codex": [...], "gemini": [...]}`,
//!   each turn a list of steps, taken in order by the CLI's successive runs:
//!   `{"write": {"path": P, "content": C}}`, `{"run": "sh test.sh"}`, `{"say": "text"}`,
//!   `{"sleep": seconds}` (the log written so far is on disk), `{"exit": code}`,
//!   `{"mcp": {"server": S, "tool": T}}`. A run past the plan says "Nothing more to do.".
//! - `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `HOME`: where the logs go, as for
//!   the real CLIs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

/// Which CLI it stands in for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cli {
    Claude,
    Codex,
    Gemini,
}

impl Cli {
    fn name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
        }
    }
}

/// The flags of a run.
struct Flags {
    /// The session to start (Claude's `--session-id`) or continue.
    session: Option<String>,
    resume: bool,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(why) => {
            eprintln!("standin cli: {why}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u8, String> {
    let mut args = std::env::args();
    let argv0 = args.next().unwrap_or_default();
    let cli = match Path::new(&argv0).file_name().and_then(|n| n.to_str()) {
        Some("claude") => Cli::Claude,
        Some("codex") => Cli::Codex,
        Some("gemini") => Cli::Gemini,
        other => return Err(format!("run me as claude, codex or gemini, not {other:?}")),
    };
    let args: Vec<String> = args.collect();
    let flags = parse(cli, &args)?;
    let mut prompt = String::new();
    std::io::stdin()
        .read_to_string(&mut prompt)
        .map_err(|e| format!("cannot read the prompt: {e}"))?;
    if prompt.trim().is_empty() {
        return Err("no prompt on standard input".into());
    }
    let state =
        PathBuf::from(std::env::var_os("STANDIN_CLI_STATE").ok_or("STANDIN_CLI_STATE is not set")?);
    std::fs::create_dir_all(&state).map_err(|e| e.to_string())?;
    append(
        &state.join(format!("{}.args", cli.name())),
        &format!("{}\n", args.join(" ")),
    )?;
    append(
        &state.join(format!("{}.prompts", cli.name())),
        &format!("{prompt}\n---\n"),
    )?;
    let count_file = state.join(format!("{}.count", cli.name()));
    let n: usize = std::fs::read_to_string(&count_file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    std::fs::write(&count_file, (n + 1).to_string()).map_err(|e| e.to_string())?;
    let steps = plan(cli, n)?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let mut log = match cli {
        Cli::Claude => Log::claude(&flags, &cwd)?,
        Cli::Codex => Log::codex(&flags, &cwd)?,
        Cli::Gemini => Log::gemini(&flags, &cwd)?,
    };
    log.user(&prompt)?;
    let mut last = String::new();
    for (i, step) in steps.iter().enumerate() {
        let id = format!("{}-{n}-{i}", cli.name());
        if let Some(w) = step.get("write") {
            let path = w["path"].as_str().unwrap_or("out.txt");
            let content = w["content"].as_str().unwrap_or_default();
            let abs = cwd.join(path);
            if let Some(parent) = abs.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&abs, content).map_err(|e| format!("cannot write {path}: {e}"))?;
            log.write(&id, &abs, path, content)?;
        } else if let Some(cmd) = step.get("run").and_then(Value::as_str) {
            let out = std::process::Command::new("sh")
                .args(["-c", cmd])
                .output()
                .map_err(|e| format!("cannot run {cmd}: {e}"))?;
            let code = out.status.code().unwrap_or(1);
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            log.run(&id, cmd, &text, code)?;
        } else if let Some(text) = step.get("say").and_then(Value::as_str) {
            log.say(&id, text)?;
            text.clone_into(&mut last);
        } else if let Some(m) = step.get("mcp") {
            let server = m["server"].as_str().unwrap_or("server");
            let tool = m["tool"].as_str().unwrap_or("tool");
            log.mcp(&id, server, tool)?;
        } else if let Some(s) = step.get("sleep").and_then(Value::as_u64) {
            std::thread::sleep(std::time::Duration::from_secs(s));
        } else if let Some(code) = step.get("exit").and_then(Value::as_u64) {
            log.finish(&last, false)?;
            eprintln!("standin {}: exiting with {code} as planned", cli.name());
            return Ok(u8::try_from(code).unwrap_or(1));
        } else {
            return Err(format!("unknown step {step}"));
        }
    }
    log.finish(&last, true)?;
    Ok(0)
}

/// Reads the flags `cli` takes, refusing any other.
fn parse(cli: Cli, args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags {
        session: None,
        resume: false,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    let value = |i: &mut usize| -> Result<String, String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("{} wants a value", args[*i - 1]))
    };
    if cli == Cli::Codex {
        if args.first().map(String::as_str) != Some("exec") {
            return Err("codex: expected `exec`".into());
        }
        i = 1;
    }
    // The flags without a value it must see, the flags with a value it takes, and how it is
    // told to resume.
    let (bare, valued, resume): (&[&str], &[&str], &str) = match cli {
        Cli::Claude => (
            &["-p", "--verbose"],
            &["--permission-mode", "--allowedTools", "--model"],
            "--resume",
        ),
        Cli::Codex => (
            &["--json", "--skip-git-repo-check", "-"],
            &["-C", "--sandbox", "--model"],
            "resume",
        ),
        Cli::Gemini => (&[], &["--approval-mode", "--model"], "--resume"),
    };
    while i < args.len() {
        let a = args[i].as_str();
        if bare.contains(&a) {
            seen.push(a);
        } else if valued.contains(&a) {
            value(&mut i)?;
        } else if a == resume {
            flags.session = Some(value(&mut i)?);
            flags.resume = true;
        } else if a == "--session-id" && cli == Cli::Claude {
            flags.session = Some(value(&mut i)?);
        } else if a == "--output-format" && cli != Cli::Codex {
            if value(&mut i)? != "stream-json" {
                return Err(format!(
                    "{}: --output-format must be stream-json",
                    cli.name()
                ));
            }
            seen.push(a);
        } else {
            return Err(format!("{}: unexpected argument {a}", cli.name()));
        }
        i += 1;
    }
    let wanted: &[&str] = match cli {
        Cli::Claude => &["-p", "--verbose", "--output-format"],
        Cli::Codex => &["--json", "--skip-git-repo-check", "-"],
        Cli::Gemini => &["--output-format"],
    };
    if let Some(missing) = wanted.iter().find(|w| !seen.contains(w)) {
        return Err(format!("{}: missing {missing}", cli.name()));
    }
    if cli == Cli::Claude && flags.session.is_none() {
        return Err("claude: missing --session-id or --resume".into());
    }
    Ok(flags)
}

/// Returns the steps of run `n` of `cli`.
fn plan(cli: Cli, n: usize) -> Result<Vec<Value>, String> {
    let Some(path) = std::env::var_os("STANDIN_CLI_PLAN") else {
        return Ok(vec![json!({"say": "Nothing more to do."})]);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("the plan: {e}"))?;
    let plan: Value = serde_json::from_str(&text).map_err(|e| format!("the plan: {e}"))?;
    Ok(plan[cli.name()][n]
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![json!({"say": "Nothing more to do."})]))
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A fresh UUID-shaped id.
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        std::process::id(),
        (nanos >> 48) & 0xffff,
        (nanos >> 36) & 0xfff,
        (nanos >> 24) & 0xfff,
        nanos & 0xffff_ffff_ffff
    )
}

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    // 2026-11-25T00:00:00.000Z plus the milliseconds of today, good enough for ordering.
    let ms = secs % 86_400_000;
    format!(
        "2026-11-25T{:02}:{:02}:{:02}.{:03}Z",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).map(PathBuf::from)
}

/// A session being logged: its saved log and its stream.
struct Log {
    cli: Cli,
    session: String,
    cwd: PathBuf,
    file: PathBuf,
    /// Gemini's chat, rewritten whole after each step.
    chat: Option<Value>,
    /// Tokens of the session so far (Codex counts them cumulatively).
    tokens: (u64, u64),
    /// Items of a Codex stream, numbered per run.
    item: u32,
}

impl Log {
    fn claude(flags: &Flags, cwd: &Path) -> Result<Log, String> {
        let session = flags.session.clone().unwrap_or_default();
        let config = var("CLAUDE_CONFIG_DIR")
            .or_else(|| var("HOME").map(|h| h.join(".claude")))
            .ok_or("no CLAUDE_CONFIG_DIR or HOME")?;
        let slug: String = cwd
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let dir = config.join("projects").join(slug);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let file = dir.join(format!("{session}.jsonl"));
        if flags.resume && !file.is_file() {
            eprintln!("No conversation found with session ID: {session}");
            std::process::exit(1);
        }
        if !flags.resume && file.is_file() {
            eprintln!("Error: Session ID {session} is already in use.");
            std::process::exit(1);
        }
        let log = Log {
            cli: Cli::Claude,
            session,
            cwd: cwd.to_owned(),
            file,
            chat: None,
            tokens: (0, 0),
            item: 0,
        };
        Log::stream(
            &json!({"type": "system", "subtype": "init", "session_id": log.session,
            "cwd": log.cwd, "model": "claude-standin", "tools": ["Bash", "Edit", "Write", "Read"]}),
        );
        Ok(log)
    }

    fn codex(flags: &Flags, cwd: &Path) -> Result<Log, String> {
        let home = var("CODEX_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".codex")))
            .ok_or("no CODEX_HOME or HOME")?;
        let (session, file) = if flags.resume {
            let id = flags.session.clone().unwrap_or_default();
            let Some(file) = find_rollout(&home.join("sessions"), &id) else {
                eprintln!("Error: no rollout found for thread id {id}");
                std::process::exit(1);
            };
            (id, file)
        } else {
            let id = new_id();
            let dir = home.join("sessions/2026/11/25");
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let file = dir.join(format!("rollout-2026-11-25T08-00-00-{id}.jsonl"));
            (id, file)
        };
        let tokens = if flags.resume {
            tokens_in_rollout(&file)
        } else {
            (0, 0)
        };
        let log = Log {
            cli: Cli::Codex,
            session,
            cwd: cwd.to_owned(),
            file,
            chat: None,
            tokens,
            item: 0,
        };
        if !flags.resume {
            log.save(
                &json!({"timestamp": now(), "type": "session_meta", "payload": {
                "id": log.session, "timestamp": now(), "cwd": log.cwd, "originator": "codex_exec",
                "cli_version": "0.0.0-standin", "source": "exec", "model_provider": "openai"}}),
            )?;
        }
        log.save(
            &json!({"timestamp": now(), "type": "turn_context", "payload": {
            "cwd": log.cwd, "model": "codex-standin", "approval_policy": "never",
            "sandbox_policy": {"type": "workspace-write"}}}),
        )?;
        Log::stream(&json!({"type": "thread.started", "thread_id": log.session}));
        Log::stream(&json!({"type": "turn.started"}));
        Ok(log)
    }

    fn gemini(flags: &Flags, cwd: &Path) -> Result<Log, String> {
        let home = var("GEMINI_CLI_HOME")
            .or_else(|| var("HOME"))
            .ok_or("no GEMINI_CLI_HOME or HOME")?;
        let project: u64 = cwd
            .to_string_lossy()
            .bytes()
            .fold(1_469_598_103_934_665_603, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
            });
        let chats = home.join(format!(".gemini/tmp/{project:016x}/chats"));
        std::fs::create_dir_all(&chats).map_err(|e| e.to_string())?;
        let (session, file, chat) = if flags.resume {
            let id = flags.session.clone().unwrap_or_default();
            let short = id.get(..8).unwrap_or(&id).to_owned();
            let found = std::fs::read_dir(&chats).ok().and_then(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .find(|p| p.to_string_lossy().contains(&short))
            });
            let Some(file) = found else {
                eprintln!("Error resuming session: no session {id} found");
                std::process::exit(1);
            };
            let chat: Value = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .ok_or("an unreadable chat")?;
            (id, file, chat)
        } else {
            let id = new_id();
            let file = chats.join(format!("session-2026-11-25T08-00-{}.json", &id[..8]));
            let chat = json!({"sessionId": id, "projectHash": format!("{project:016x}"),
                "startTime": now(), "lastUpdated": now(), "messages": []});
            (id, file, chat)
        };
        let log = Log {
            cli: Cli::Gemini,
            session,
            cwd: cwd.to_owned(),
            file,
            chat: Some(chat),
            tokens: (0, 0),
            item: 0,
        };
        Log::stream(
            &json!({"type": "init", "timestamp": now(), "session_id": log.session,
            "model": "gemini-standin"}),
        );
        Ok(log)
    }

    /// Prints a line of the stream.
    fn stream(value: &Value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    }

    /// Appends a line to the saved log (Claude, Codex).
    fn save(&self, value: &Value) -> Result<(), String> {
        append(&self.file, &format!("{value}\n"))
    }

    /// Writes Gemini's chat whole, with `message` added.
    fn save_chat(&mut self, message: Value) -> Result<(), String> {
        let Some(chat) = &mut self.chat else {
            return Ok(());
        };
        if let Some(messages) = chat["messages"].as_array_mut() {
            messages.push(message);
        }
        chat["lastUpdated"] = json!(now());
        // Gemini CLI writes its keys in this order, the session's id first.
        let text = format!(
            "{{\"sessionId\":{},\"projectHash\":{},\"startTime\":{},\"lastUpdated\":{},\"messages\":{}}}",
            chat["sessionId"],
            chat["projectHash"],
            chat["startTime"],
            chat["lastUpdated"],
            chat["messages"]
        );
        let tmp = self.file.with_extension("tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &self.file))
            .map_err(|e| e.to_string())
    }

    /// A Claude log record around `message`.
    fn claude_record(&self, kind: &str, message: &Value, extra: Option<Value>) -> Value {
        let mut record = json!({"type": kind, "sessionId": self.session, "uuid": new_id(),
            "timestamp": now(), "cwd": self.cwd, "version": "2.0.0-standin", "message": message.clone()});
        if let Some(extra) = extra {
            record["toolUseResult"] = extra;
        }
        record
    }

    fn user(&mut self, prompt: &str) -> Result<(), String> {
        match self.cli {
            Cli::Claude => {
                let r =
                    self.claude_record("user", &json!({"role": "user", "content": prompt}), None);
                self.save(&r)
            }
            Cli::Codex => {
                self.save(&json!({"timestamp": now(), "type": "event_msg",
                    "payload": {"type": "user_message", "message": prompt}}))?;
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": prompt}]}}),
                )
            }
            Cli::Gemini => {
                Self::stream(
                    &json!({"type": "message", "timestamp": now(), "role": "user",
                    "content": prompt}),
                );
                self.save_chat(json!({"id": new_id(), "timestamp": now(), "type": "user",
                    "content": prompt}))
            }
        }
    }

    /// An assistant's tool call and its result, in Claude's log and stream.
    fn claude_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        output: &str,
        error: bool,
    ) -> Result<(), String> {
        self.tokens = (self.tokens.0 + 100, self.tokens.1 + 20);
        let call = self.claude_record(
            "assistant",
            &json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
                "model": "claude-standin",
                "content": [{"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}],
                "usage": {"input_tokens": 100, "output_tokens": 20}}),
            None,
        );
        let result = self.claude_record(
            "user",
            &json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("toolu_{id}"), "content": output, "is_error": error}]}),
            Some(json!({"stdout": output, "stderr": "", "interrupted": false})),
        );
        self.save(&call)?;
        self.save(&result)?;
        Self::stream(
            &json!({"type": "assistant", "message": call["message"], "session_id": self.session}),
        );
        Self::stream(
            &json!({"type": "user", "message": result["message"], "session_id": self.session}),
        );
        Ok(())
    }

    fn write(&mut self, id: &str, abs: &Path, rel: &str, content: &str) -> Result<(), String> {
        match self.cli {
            Cli::Claude => self.claude_call(
                id,
                "Write",
                &json!({"file_path": abs, "content": content}),
                &format!("File created successfully at: {}", abs.display()),
                false,
            ),
            Cli::Codex => {
                let patch = format!(
                    "*** Begin Patch\n*** Add File: {rel}\n{}\n*** End Patch",
                    content
                        .lines()
                        .map(|l| format!("+{l}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "custom_tool_call", "name": "apply_patch", "input": patch,
                    "call_id": format!("call_{id}")}}),
                )?;
                self.save(&json!({"timestamp": now(), "type": "event_msg", "payload": {
                    "type": "patch_apply_end", "call_id": format!("call_{id}"), "success": true,
                    "stdout": format!("Success. Updated the following files:\nA {rel}\n"), "stderr": "",
                    "changes": {rel: {"add": {"content": content}}}}}))?;
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "custom_tool_call_output", "call_id": format!("call_{id}"),
                    "output": "Success. Updated the following files."}}),
                )?;
                self.codex_item(json!({"type": "file_change", "status": "completed",
                    "changes": [{"path": abs, "kind": "add"}]}));
                Ok(())
            }
            Cli::Gemini => self.gemini_call(
                id,
                "write_file",
                &json!({"file_path": abs, "content": content}),
                &format!(
                    "Successfully created and wrote to new file: {}.",
                    abs.display()
                ),
                "success",
            ),
        }
    }

    fn run(&mut self, id: &str, cmd: &str, output: &str, code: i32) -> Result<(), String> {
        match self.cli {
            Cli::Claude => self.claude_call(
                id,
                "Bash",
                &json!({"command": cmd, "description": "Run it"}),
                output,
                code != 0,
            ),
            Cli::Codex => {
                let call_id = format!("call_{id}");
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "function_call", "name": "exec_command",
                    "arguments": json!({"cmd": cmd}).to_string(), "call_id": call_id}}),
                )?;
                self.save(
                    &json!({"timestamp": now(), "type": "event_msg", "payload": {
                    "type": "exec_command_end", "call_id": call_id,
                    "command": ["bash", "-lc", cmd], "exit_code": code,
                    "aggregated_output": output, "stdout": output, "stderr": ""}}),
                )?;
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "function_call_output", "call_id": call_id,
                    "output": format!("Process exited with code {code}\nOutput:\n{output}")}}),
                )?;
                self.codex_item(json!({"type": "command_execution",
                    "command": format!("bash -lc '{cmd}'"), "aggregated_output": output,
                    "exit_code": code, "status": if code == 0 { "completed" } else { "failed" }}));
                Ok(())
            }
            Cli::Gemini => self.gemini_call(
                id,
                "run_shell_command",
                &json!({"command": cmd}),
                &format!("Command: {cmd}\nOutput: {output}\nExit Code: {code}"),
                "success",
            ),
        }
    }

    fn mcp(&mut self, id: &str, server: &str, tool: &str) -> Result<(), String> {
        match self.cli {
            Cli::Claude => self.claude_call(
                id,
                &format!("mcp__{server}__{tool}"),
                &json!({"q": "standin"}),
                "ok",
                false,
            ),
            Cli::Codex => {
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "function_call", "name": format!("mcp__{server}__{tool}"),
                    "arguments": "{\"q\":\"standin\"}", "call_id": format!("call_{id}")}}),
                )?;
                self.save(&json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "function_call_output", "call_id": format!("call_{id}"), "output": "ok"}}))?;
                self.codex_item(json!({"type": "mcp_tool_call", "server": server, "tool": tool,
                    "arguments": {"q": "standin"}, "status": "completed", "result": {"content": []}}));
                Ok(())
            }
            Cli::Gemini => self.gemini_call(
                id,
                &format!("mcp__{server}__{tool}"),
                &json!({"q": "standin"}),
                "ok",
                "success",
            ),
        }
    }

    fn say(&mut self, id: &str, text: &str) -> Result<(), String> {
        match self.cli {
            Cli::Claude => {
                self.tokens = (self.tokens.0 + 100, self.tokens.1 + 20);
                let r = self.claude_record(
                    "assistant",
                    &json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
                        "model": "claude-standin", "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": 100, "output_tokens": 20}}),
                    None,
                );
                self.save(&r)?;
                Self::stream(
                    &json!({"type": "assistant", "message": r["message"], "session_id": self.session}),
                );
                Ok(())
            }
            Cli::Codex => {
                self.save(
                    &json!({"timestamp": now(), "type": "event_msg", "payload": {
                    "type": "agent_message", "message": text}}),
                )?;
                self.save(
                    &json!({"timestamp": now(), "type": "response_item", "payload": {
                    "type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": text}]}}),
                )?;
                self.codex_item(json!({"type": "agent_message", "text": text}));
                Ok(())
            }
            Cli::Gemini => {
                Self::stream(
                    &json!({"type": "message", "timestamp": now(), "role": "assistant",
                    "content": text, "delta": true}),
                );
                self.save_chat(json!({"id": new_id(), "timestamp": now(), "type": "gemini",
                    "content": text, "model": "gemini-standin",
                    "tokens": {"input": 100, "output": 20, "cached": 0, "thoughts": 0, "tool": 0, "total": 120}}))
            }
        }
    }

    fn codex_item(&mut self, mut item: Value) {
        self.tokens = (self.tokens.0 + 100, self.tokens.1 + 20);
        item["id"] = json!(format!("item_{}", self.item));
        self.item += 1;
        Self::stream(&json!({"type": "item.completed", "item": item}));
    }

    fn gemini_call(
        &mut self,
        id: &str,
        name: &str,
        args: &Value,
        output: &str,
        status: &str,
    ) -> Result<(), String> {
        let call_id = format!("{name}-{id}");
        Self::stream(
            &json!({"type": "tool_use", "timestamp": now(), "tool_name": name,
            "tool_id": call_id, "parameters": args}),
        );
        Self::stream(
            &json!({"type": "tool_result", "timestamp": now(), "tool_id": call_id,
            "status": status, "output": output}),
        );
        self.save_chat(json!({"id": new_id(), "timestamp": now(), "type": "gemini", "content": "",
            "model": "gemini-standin",
            "tokens": {"input": 100, "output": 20, "cached": 0, "thoughts": 0, "tool": 0, "total": 120},
            "toolCalls": [{"id": call_id, "name": name, "args": args, "status": status,
                "timestamp": now(),
                "result": [{"functionResponse": {"id": call_id, "name": name,
                    "response": {"output": output}}}]}]}))
    }

    fn finish(&mut self, last: &str, ok: bool) -> Result<(), String> {
        match self.cli {
            Cli::Claude => {
                Self::stream(
                    &json!({"type": "result", "subtype": if ok { "success" } else { "error_during_execution" },
                    "is_error": !ok, "result": last, "session_id": self.session,
                    "usage": {"input_tokens": self.tokens.0, "output_tokens": self.tokens.1}}),
                );
                Ok(())
            }
            Cli::Codex => {
                self.save(&json!({"timestamp": now(), "type": "event_msg", "payload": {
                    "type": "token_count", "info": {"total_token_usage": {
                        "input_tokens": self.tokens.0, "cached_input_tokens": 0,
                        "output_tokens": self.tokens.1, "total_tokens": self.tokens.0 + self.tokens.1}}}}))?;
                Self::stream(&json!({"type": "turn.completed", "usage": {
                    "input_tokens": self.tokens.0, "cached_input_tokens": 0, "output_tokens": self.tokens.1}}));
                Ok(())
            }
            Cli::Gemini => {
                Self::stream(&json!({"type": "result", "timestamp": now(),
                    "status": if ok { "success" } else { "error" },
                    "stats": {"total_tokens": 120, "input_tokens": 100, "output_tokens": 20}}));
                Ok(())
            }
        }
    }
}

/// Returns the rollout of thread `id` beneath `sessions`.
fn find_rollout(sessions: &Path, id: &str) -> Option<PathBuf> {
    let mut stack = vec![sessions.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(&format!("-{id}.jsonl")))
            {
                return Some(path);
            }
        }
    }
    None
}

/// Returns the last cumulative token count of a rollout.
fn tokens_in_rollout(file: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let t = &v["payload"]["info"]["total_token_usage"];
            Some((t["input_tokens"].as_u64()?, t["output_tokens"].as_u64()?))
        })
        .next_back()
        .unwrap_or((0, 0))
}
