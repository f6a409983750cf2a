//! The tools a pipeline's agents call, one file each, and what every call answers: the text
//! the model reads (the validator spec's convention: `[EXIT n]`, `[ERROR]`, `[TIMEOUT]`,
//! `[DENIED]` before a failure), a structured outcome, and the effects the runner records as
//! evidence.

mod change;
mod changes;
pub(crate) mod chatroom;
mod code_execution;
mod context;
mod delete_file;
mod document;
mod git_commit;
mod handoff;
mod http;
mod intent;
mod json_get;
mod list_files;
mod output;
mod patch_file;
mod probe;
mod read_file;
mod scratchpad;
mod search;
mod shell_run;
mod snippet;
mod write_file;

pub(crate) use change::sha256_hex;
pub use change::{Change, FileChange};
pub use context::{HttpRules, ShellPolicy, ToolContext};
pub use intent::{Intent, Settled};
pub use output::{Effect, Receipt, ToolOutput};

use serde_json::Value;

/// Every tool: the name the model calls it by, its plugin (the configuration's
/// `Plugins`/`Tools` names a plugin to give an agent all of its tools), and what it does, as
/// the model's tool definitions say it.
pub const TOOLS: &[(&str, &str, &str)] = &[
    (
        "read_file",
        "FileSystem",
        "Read a file of the working directory, whole or a range of its lines.",
    ),
    (
        "list_files",
        "FileSystem",
        "List the files of the working directory, or those a glob names.",
    ),
    (
        "search",
        "FileSystem",
        "Search the files for lines matching a regular expression.",
    ),
    (
        "write_file",
        "FileSystem",
        "Write a file whole (created, or replaced).",
    ),
    (
        "patch_file",
        "FileSystem",
        "Replace one exact piece of a file; it must occur exactly once.",
    ),
    ("delete_file", "FileSystem", "Delete a file."),
    (
        "shell_run",
        "Shell",
        "Run a bash script in the working directory; its output and exit code come back.",
    ),
    (
        "git_commit",
        "Git",
        "Commit every change of the working directory.",
    ),
    (
        "handoff",
        "Handoff",
        "Hand the work to the next agent by the keyword of its route.",
    ),
    (
        "changes_read",
        "Changes",
        "Read the run's change log: what each turn wrote, deleted, ran (with exit codes) and committed, as the runner recorded it.",
    ),
    (
        "changes_read_latest",
        "Changes",
        "Read the latest entry of the run's change log: what the last turn that changed something did.",
    ),
    (
        "scratchpad_write",
        "Scratchpad",
        "Keep a note under a key, for yourself and the other agents of this run.",
    ),
    (
        "scratchpad_read",
        "Scratchpad",
        "Read the note kept under a key.",
    ),
    (
        "scratchpad_read_all",
        "Scratchpad",
        "Read every note of the scratchpad.",
    ),
    (
        "http_get",
        "Http",
        "HTTP GET of a URL; the status and the body come back.",
    ),
    ("http_post", "Http", "HTTP POST of a body to a URL."),
    ("http_put", "Http", "HTTP PUT of a body to a URL."),
    ("http_patch", "Http", "HTTP PATCH of a body to a URL."),
    ("http_delete", "Http", "HTTP DELETE of a URL."),
    (
        "http_head",
        "Http",
        "HTTP HEAD of a URL: the status and the headers.",
    ),
    (
        "probe_code",
        "Probe",
        "Run a code snippet (bash, sh, python, javascript, go) in the working directory; its output and exit code come back.",
    ),
    (
        "probe_assert_output",
        "Probe",
        "Run a command and check its output (matchType contains, equals, regex) or exit code (exitcode): PASS or FAIL with the evidence.",
    ),
    (
        "probe_compare_outputs",
        "Probe",
        "Run two commands and show their outputs side by side.",
    ),
    (
        "probe_run_hypothesis",
        "Probe",
        "Given a setup command, when a command runs, then check the expected observation in its output.",
    ),
    (
        "code_execution_check_docker",
        "CodeExecution",
        "Say how code_execution_sandbox_run runs code.",
    ),
    (
        "code_execution_sandbox_run",
        "CodeExecution",
        "Run a code snippet (bash, sh, python, javascript, go) under the run's confinement.",
    ),
    (
        "document_extract_text",
        "Document",
        "Read the text of a document: text, Markdown, CSV, JSON, YAML, XML, HTML (tags removed).",
    ),
    (
        "chatroom_send",
        "Chatroom",
        "Post a message to the run's shared board, to one agent or to All.",
    ),
    (
        "chatroom_read",
        "Chatroom",
        "Read the latest messages of the run's shared board.",
    ),
    (
        "json_get",
        "Json",
        "Read a value out of a JSON file (or JSON text) by a dot path such as `results.0.status`.",
    ),
    (
        "sub_agent_explore",
        "SubAgent",
        "Ask a read-only sub-agent a broad question about the files (which files handle X?); it explores and answers without filling your context.",
    ),
    (
        "sub_agent_locate",
        "SubAgent",
        "Ask a read-only sub-agent where a symbol is defined.",
    ),
];

/// Returns the model's definitions of the built-in tools `names` (a name that is not one is
/// left out).
pub fn specs(names: &[String]) -> Vec<vouch_llm::ToolSpec> {
    names
        .iter()
        .filter_map(|name| {
            Some(vouch_llm::ToolSpec {
                name: name.clone(),
                description: description(name)?.to_owned(),
                parameters: parameters(name)?,
            })
        })
        .collect()
}

/// Returns what tool `name` does, for the model's tool definitions.
pub fn description(name: &str) -> Option<&'static str> {
    TOOLS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, _, d)| *d)
}

/// A call prepared: answered already (a refusal, an error, or a tool that changes nothing),
/// or a change to journal and then make.
#[derive(Debug)]
pub enum Prepared {
    /// The call's answer.
    Done(ToolOutput),
    /// The change the call makes.
    Change(Change),
}

impl Prepared {
    /// Makes the change (if any) and returns the call's answer.
    pub fn finish(self, cx: &ToolContext) -> ToolOutput {
        match self {
            Prepared::Done(out) => out,
            Prepared::Change(change) => change.apply(cx),
        }
    }
}

/// Runs the tool `name` with `args` in `cx`. An unknown tool, or arguments of the wrong shape,
/// answer `[ERROR]` and change nothing.
pub fn call(name: &str, args: &Value, cx: &ToolContext) -> ToolOutput {
    prepare(name, args, cx).finish(cx)
}

/// Prepares the call of `name` with `args` in `cx`: a tool that writes, patches or deletes a
/// file or commits is planned, not run; any other runs.
pub fn prepare(name: &str, args: &Value, cx: &ToolContext) -> Prepared {
    Prepared::Done(match name {
        "write_file" => return write_file::plan(args, cx),
        "patch_file" => return patch_file::plan(args, cx),
        "delete_file" => return delete_file::plan(args, cx),
        "git_commit" => return git_commit::plan(args, cx),
        "read_file" => read_file::run(args, cx),
        "list_files" => list_files::run(args, cx),
        "search" => search::run(args, cx),
        "shell_run" => shell_run::run(args, cx),
        "handoff" => handoff::run(args),
        "changes_read" => changes::run(cx, false),
        "changes_read_latest" => changes::run(cx, true),
        "scratchpad_write" => scratchpad::run(scratchpad::Op::Write, args, cx),
        "scratchpad_read" => scratchpad::run(scratchpad::Op::Read, args, cx),
        "scratchpad_read_all" => scratchpad::run(scratchpad::Op::ReadAll, args, cx),
        "json_get" => json_get::run(args, cx),
        "probe_code" | "probe_assert_output" | "probe_compare_outputs" | "probe_run_hypothesis" => {
            probe::run(name, args, cx)
        }
        "code_execution_check_docker" | "code_execution_sandbox_run" => {
            code_execution::run(name, args, cx)
        }
        "document_extract_text" => document::run(args, cx),
        "http_get" | "http_post" | "http_put" | "http_patch" | "http_delete" | "http_head" => {
            http::run(name, args, cx)
        }
        other => ToolOutput::error(format!(
            "there is no tool `{other}` (tools: {})",
            TOOLS
                .iter()
                .map(|(n, _, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
}

/// Returns the JSON Schema of the arguments of tool `name`, for the model's tool definitions.
pub fn parameters(name: &str) -> Option<Value> {
    use serde_json::json;
    let string = |d: &str| json!({"type": "string", "description": d});
    let object = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    Some(match name {
        "read_file" => object(
            json!({"path": string("the file, relative to the working directory"),
                   "start_line": {"type": "integer", "minimum": 1, "description": "first line to read (1-based)"},
                   "end_line": {"type": "integer", "minimum": 1, "description": "last line to read"}}),
            &["path"],
        ),
        "list_files" => object(
            json!({"glob": string("files to list, as a glob (`src/**/*.rs`); all when absent")}),
            &[],
        ),
        "search" => object(
            json!({"pattern": string("a regular expression"),
                   "glob": string("files to search, as a glob; all when absent")}),
            &["pattern"],
        ),
        "write_file" => object(
            json!({"path": string("the file to write (created, or replaced whole)"),
                   "content": string("its whole new content")}),
            &["path", "content"],
        ),
        "patch_file" => object(
            json!({"path": string("the file to change"),
                   "old": string("text that occurs exactly once in the file"),
                   "new": string("what replaces it")}),
            &["path", "old", "new"],
        ),
        "delete_file" => object(json!({"path": string("the file to delete")}), &["path"]),
        "shell_run" => object(
            json!({"command": string("a bash script, run in the working directory")}),
            &["command"],
        ),
        "git_commit" => object(
            json!({"message": string("the commit message")}),
            &["message"],
        ),
        "handoff" => object(
            json!({"route_keyword": string("the keyword of the route to take (`HANDOFF TO TESTER`)")}),
            &["route_keyword"],
        ),
        "changes_read" | "changes_read_latest" | "scratchpad_read_all" => object(json!({}), &[]),
        "scratchpad_write" => object(
            json!({"key": string("the note's key"), "value": string("the note")}),
            &["key", "value"],
        ),
        "scratchpad_read" => object(json!({"key": string("the note's key")}), &["key"]),
        "json_get" => object(
            json!({"path": string("a JSON file of the working directory"),
                   "json": string("JSON text, instead of a file"),
                   "field": string("a dot path (`results.0.status`); the whole value when empty")}),
            &[],
        ),
        "http_get" | "http_delete" | "http_head" => object(
            json!({"url": string("the URL"),
                   "headers": {"type": "object", "description": "headers to send"},
                   "timeoutSeconds": {"type": "integer", "minimum": 1, "maximum": 300}}),
            &["url"],
        ),
        "http_post" | "http_put" | "http_patch" => object(
            json!({"url": string("the URL"), "body": string("the body"),
                   "contentType": string("its content type (default application/json)"),
                   "headers": {"type": "object", "description": "headers to send"},
                   "timeoutSeconds": {"type": "integer", "minimum": 1, "maximum": 300}}),
            &["url", "body"],
        ),
        "probe_code" | "code_execution_sandbox_run" => object(
            json!({"language": string("bash, sh, python, javascript or go"), "code": string("the code"),
                   "directory": string("where to run it, in the working directory")}),
            &["language", "code"],
        ),
        "probe_assert_output" => object(
            json!({"command": string("the command"), "expected": string("what its output should hold, or its exit code"),
                   "matchType": string("contains (default), equals, regex or exitcode"),
                   "directory": string("where to run it")}),
            &["command", "expected"],
        ),
        "probe_compare_outputs" => object(
            json!({"commandA": string("the first command"), "commandB": string("the second"),
                   "directory": string("where to run them")}),
            &["commandA", "commandB"],
        ),
        "probe_run_hypothesis" => object(
            json!({"hypothesis": string("what you expect"), "command": string("the command that tests it"),
                   "expectedObservation": string("text its output should hold"),
                   "setupCommand": string("a command to run first"), "directory": string("where to run them")}),
            &["hypothesis", "command", "expectedObservation"],
        ),
        "code_execution_check_docker" | "chatroom_read" => object(
            json!({"count": {"type": "integer", "minimum": 1, "description": "how many messages (chatroom_read)"}}),
            &[],
        ),
        "document_extract_text" => object(json!({"path": string("the document")}), &["path"]),
        "chatroom_send" => object(
            json!({"recipient": string("an agent's name, or All"), "message": string("the message")}),
            &["recipient", "message"],
        ),
        "sub_agent_explore" => object(
            json!({"question": string("what to find out"),
                   "format": string("`summary` (default) or `file_list`")}),
            &["question"],
        ),
        "sub_agent_locate" => object(json!({"symbol": string("the symbol to find")}), &["symbol"]),
        _ => return None,
    })
}

/// Returns the path (relative to the working directory) and content of the existing file
/// `path` a call that `verb`s it needs, or the answer refusing the call.
fn existing_file(
    cx: &ToolContext,
    path: &str,
    verb: &str,
) -> Result<(String, Vec<u8>), ToolOutput> {
    match cx.workspace.read_existing(path) {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(ToolOutput::error(format!(
            "cannot {verb} `{path}`: no such file"
        ))),
        Err(why) => Err(ToolOutput::denied(why)),
    }
}

/// Returns the string argument `key`, or the `[ERROR]` answer saying it is missing.
fn text_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolOutput> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolOutput::error(format!("missing the string argument `{key}`")))
}
