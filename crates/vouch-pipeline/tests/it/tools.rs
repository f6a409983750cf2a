//! Every tool on real files and real commands: what the model reads, the outcome, the effects.

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_json::json;
use vouch_pipeline::Workspace;
use vouch_pipeline::tools::{self, Effect, ShellPolicy, ToolContext};
use vouch_session::Outcome;

/// A context on `dir` with the change log protected and `.env` files denied.
fn cx(dir: &Path, shell: ShellPolicy) -> ToolContext {
    ToolContext {
        workspace: Workspace::new(
            dir,
            &[PathBuf::from(".fuseraft/state")],
            &["**/.env".to_owned(), ".env".to_owned()],
        )
        .unwrap(),
        shell,
        result_cap: 10_000,
        cancel: None,
        change_log: None,
        run_id: None,
        scratchpad: None,
        http: vouch_pipeline::tools::HttpRules::default(),
    }
}

fn call(cx: &ToolContext, name: &str, args: &serde_json::Value) -> tools::ToolOutput {
    tools::call(name, args, cx)
}

#[test]
fn files_are_written_read_patched_and_deleted_with_their_effects() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    let wrote = call(
        &cx,
        "write_file",
        &json!({"path": "src/lib.rs", "content": "fn a() {}\nfn b() {}\n"}),
    );
    assert_eq!(wrote.text, "wrote 20 bytes to src/lib.rs");
    assert_eq!(wrote.effects, vec![Effect::Wrote("src/lib.rs".into())]);
    let read = call(
        &cx,
        "read_file",
        &json!({"path": "src/lib.rs", "start_line": 2}),
    );
    assert_eq!(read.text, "fn b() {}\n");
    let patched = call(
        &cx,
        "patch_file",
        &json!({"path": "src/lib.rs", "old": "fn b", "new": "fn c"}),
    );
    assert_eq!(patched.outcome, Outcome::Ok);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "fn a() {}\nfn c() {}\n"
    );
    let deleted = call(&cx, "delete_file", &json!({"path": "src/lib.rs"}));
    assert_eq!(deleted.effects, vec![Effect::Deleted("src/lib.rs".into())]);
    assert!(!dir.path().join("src/lib.rs").exists());
}

#[test]
fn a_patch_needs_exactly_one_occurrence() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    std::fs::write(dir.path().join("a.txt"), "x = 1\nx = 1\n").unwrap();
    let twice = call(
        &cx,
        "patch_file",
        &json!({"path": "a.txt", "old": "x = 1", "new": "x = 2"}),
    );
    let missing = call(
        &cx,
        "patch_file",
        &json!({"path": "a.txt", "old": "y", "new": "z"}),
    );
    insta::assert_snapshot!(format!("{}\n{}", twice.text, missing.text), @r"
    [ERROR] the text to replace occurs 2 times in `a.txt`; include more of its surroundings so that it occurs once
    [ERROR] the text to replace does not occur in `a.txt` (read the file, then copy the text exactly)
    ");
    assert!(twice.effects.is_empty() && missing.effects.is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "x = 1\nx = 1\n"
    );
}

#[test]
fn escapes_and_the_change_log_are_denied() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    let absolute = outside.path().join("x.txt");
    let attempts = [
        json!({"path": "../x.txt", "content": "pwned"}),
        json!({"path": absolute.to_string_lossy(), "content": "pwned"}),
        json!({"path": "link/x.txt", "content": "pwned"}),
        json!({"path": ".fuseraft/state/changes.json", "content": "{}"}),
        json!({"path": "app/.env", "content": "KEY=1"}),
    ];
    let answers: Vec<String> = attempts
        .iter()
        .map(|a| {
            let out = call(&cx, "write_file", a);
            assert_eq!(out.outcome, Outcome::Denied, "{}", out.text);
            assert!(out.effects.is_empty());
            out.text
                .replace(&*outside.path().to_string_lossy(), "<outside>")
        })
        .collect();
    assert!(!outside.path().join("x.txt").exists());
    assert!(!dir.path().join(".fuseraft/state/changes.json").exists());
    insta::assert_snapshot!(answers.join("\n"), @r"
    [DENIED] `../x.txt` is outside the working directory
    [DENIED] `<outside>/x.txt` is outside the working directory
    [DENIED] `link/x.txt` is outside the working directory
    [DENIED] `.fuseraft/state/changes.json` is the run's own record; agents cannot write it
    [DENIED] `app/.env` is denied by the file rule `**/.env`
    ");
}

#[test]
fn commands_answer_in_the_spec_convention_with_a_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    let ok = call(&cx, "shell_run", &json!({"command": "echo hello"}));
    assert_eq!((ok.text.as_str(), ok.outcome), ("hello\n", Outcome::Ok));
    let failed = call(
        &cx,
        "shell_run",
        &json!({"command": "echo broken >&2; exit 3"}),
    );
    assert_eq!(failed.text, "[EXIT 3]\nbroken\n");
    assert_eq!(failed.outcome, Outcome::Failed { exit_code: Some(3) });
    let [Effect::Ran(receipt)] = failed.effects.as_slice() else {
        panic!("no receipt: {:?}", failed.effects)
    };
    assert_eq!(receipt.command, "echo broken >&2; exit 3");
    assert_eq!(receipt.exit_code, Some(3));
    assert_eq!(receipt.output_len, 7);
}

#[test]
fn a_command_past_its_time_is_a_timeout_and_its_process_group_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let shell = ShellPolicy {
        timeout: Duration::from_millis(500),
        ..ShellPolicy::default()
    };
    let cx = cx(dir.path(), shell);
    // The shell says its pid, its process group's id, first.
    let out = call(
        &cx,
        "shell_run",
        &json!({"command": "echo $$; (sleep 3; touch late) & echo started; sleep 30"}),
    );
    assert_eq!(out.outcome, Outcome::TimedOut);
    let mut lines = out.text.lines();
    assert_eq!(
        lines.next(),
        Some("[TIMEOUT] the command ran past 0.5 s and was killed")
    );
    let group = lines.next().unwrap().to_owned();
    assert_eq!(lines.next(), Some("started"));
    let [Effect::Ran(receipt)] = out.effects.as_slice() else {
        panic!()
    };
    assert!(receipt.timed_out && receipt.exit_code.is_none());
    // Nothing of the group is left (a killed process leaves the table a moment after the
    // signal; a group alive five seconds later was not killed), so the writer never writes.
    let ended = (0..500).any(|_| {
        let alive = std::process::Command::new("kill")
            .args(["-0", "--", &format!("-{group}")])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        if alive {
            std::thread::sleep(Duration::from_millis(10));
        }
        !alive
    });
    assert!(ended, "the process group {group} outlived its deadline");
    assert!(!dir.path().join("late").exists());
}

#[test]
fn shell_rules_and_the_environment_by_allowlist() {
    let dir = tempfile::tempdir().unwrap();
    let shell = ShellPolicy {
        deny: vec![Regex::new(r"\brm\s+-rf\b").unwrap()],
        allow: vec![Regex::new(r"^(echo|printenv|cargo)\b").unwrap()],
        env: vouch_process::EnvPolicy {
            pass: vec!["CARGO_PKG_*".to_owned(), "CARGO_MANIFEST_DIR".to_owned()],
            hidden: vec!["CARGO_MANIFEST_DIR".to_owned()],
        },
        ..ShellPolicy::default()
    };
    let cx = cx(dir.path(), shell);
    let denied = call(&cx, "shell_run", &json!({"command": "echo ok && rm -rf /"}));
    let unlisted = call(&cx, "shell_run", &json!({"command": "curl example.com"}));
    insta::assert_snapshot!(format!("{}\n{}", denied.text, unlisted.text), @r"
    [DENIED] the command matches the deny rule `\brm\s+-rf\b`
    [DENIED] the command matches no allow rule of the pipeline's Security
    ");
    assert!(denied.effects.is_empty(), "a denied command is not run");
    // Cargo sets these variables for the tests: a passed one reaches the command, a hidden
    // one never does (though passed), nor does one nobody passed (`CARGO`).
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    assert!(std::env::var_os("CARGO").is_some());
    let unpassed = call(&cx, "shell_run", &json!({"command": "printenv CARGO"}));
    assert_eq!(unpassed.text, "[EXIT 1]\n");
    let path = call(&cx, "shell_run", &json!({"command": "printenv PATH"}));
    assert_eq!(path.outcome, Outcome::Ok, "the base allowlist passes PATH");
    let shown = call(
        &cx,
        "shell_run",
        &json!({"command": "printenv CARGO_PKG_NAME"}),
    );
    assert_eq!(shown.text, "vouch-pipeline\n");
    let hidden = call(
        &cx,
        "shell_run",
        &json!({"command": "printenv CARGO_MANIFEST_DIR"}),
    );
    assert_eq!(hidden.text, "[EXIT 1]\n");
}

#[test]
fn listing_and_search_follow_gitignore_and_the_deny_rules() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    for (path, text) in [
        ("src/a.rs", "fn main() {\n    todo_later();\n}\n"),
        ("src/b.rs", "// nothing here\n"),
        ("target/debug/x.rs", "todo_later();\n"),
        (".gitignore", "target/\n"),
        (".env", "todo_later=1\n"),
    ] {
        std::fs::create_dir_all(dir.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let listed = call(&cx, "list_files", &json!({"glob": "**/*.rs"}));
    assert_eq!(listed.text, "src/a.rs\nsrc/b.rs");
    let found = call(&cx, "search", &json!({"pattern": r"todo_\w+"}));
    assert_eq!(found.text, "src/a.rs:2:     todo_later();");
    let bad = call(&cx, "search", &json!({"pattern": "("}));
    assert_eq!(bad.outcome, Outcome::Error);
}

#[test]
fn handoff_names_its_route_and_unknown_tools_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    let h = call(
        &cx,
        "handoff",
        &json!({"route_keyword": " HANDOFF TO TESTER "}),
    );
    assert_eq!(h.handoff.as_deref(), Some("HANDOFF TO TESTER"));
    let unknown = call(&cx, "rm_rf", &json!({}));
    assert!(
        unknown.text.starts_with("[ERROR] there is no tool `rm_rf`"),
        "{}",
        unknown.text
    );
    let missing = call(&cx, "write_file", &json!({"path": "a"}));
    assert_eq!(
        missing.text,
        "[ERROR] missing the string argument `content`"
    );
    for (name, _, _) in tools::TOOLS {
        assert!(tools::parameters(name).is_some(), "{name} has no schema");
    }
}

#[test]
fn a_huge_file_is_read_no_further_than_shown_and_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cx = cx(dir.path(), ShellPolicy::default());
    // A sparse file of 8 GiB: reading it whole would take the run's memory and minutes.
    let huge = std::fs::File::create(dir.path().join("huge.bin")).unwrap();
    huge.set_len(8 << 30).unwrap();
    let whole = call(&cx, "read_file", &json!({"path": "huge.bin"}));
    assert_eq!(whole.outcome, Outcome::Ok);
    assert!(whole.text.chars().count() <= 10_001 && whole.text.ends_with('…'));
    let lines = call(
        &cx,
        "read_file",
        &json!({"path": "huge.bin", "start_line": 2, "end_line": 3}),
    );
    assert_eq!(lines.text, "", "no second line in the part read");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe"))
            .status()
            .unwrap()
            .success()
    );
    let fifo = call(&cx, "read_file", &json!({"path": "pipe"}));
    assert_eq!(fifo.text, "[DENIED] `pipe` is not a regular file");
}

#[test]
fn http_reaches_only_what_the_rules_allow_and_records_each_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = vouch_standin::Server::start(|_, _| vouch_standin::Reply::text(200, "pong"));
    let url = format!("{}/ping", server.url());
    let mut c = cx(dir.path(), ShellPolicy::default());
    // The stand-in listens on 127.0.0.1: a private address, refused by default.
    let refused = tools::call("http_get", &json!({"url": url}), &c);
    assert!(refused.text.starts_with("[DENIED]"), "{}", refused.text);
    assert!(
        refused.text.contains("not a public address"),
        "{}",
        refused.text
    );
    assert_eq!(
        refused.effects.len(),
        1,
        "a refused request is recorded too"
    );
    // A host outside the allowlist is refused before any lookup.
    c.http.allowed_hosts = vec!["api.example.com".to_owned()];
    let outside = tools::call("http_get", &json!({"url": "https://example.org/"}), &c);
    assert!(
        outside.text.contains("not an allowed host"),
        "{}",
        outside.text
    );
    // Allowed: the answer comes back, and the request is evidence.
    c.http = vouch_pipeline::tools::HttpRules {
        allowed_hosts: Vec::new(),
        allow_private: true,
    };
    let ok = tools::call("http_get", &json!({"url": url}), &c);
    assert_eq!(ok.text, "HTTP 200\npong");
    assert!(
        matches!(&ok.effects[0], vouch_pipeline::tools::Effect::Tool(t) if t.tool == "http_get" && !t.is_error)
    );
    assert_eq!(server.requests(), 1);
}

#[test]
fn probe_code_execution_and_document_tools_answer_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let c = cx(dir.path(), ShellPolicy::default());
    let table: [(&str, serde_json::Value, &str); 7] = [
        (
            "probe_code",
            json!({"language": "bash", "code": "echo $((2 + 3))"}),
            "5",
        ),
        (
            "probe_assert_output",
            json!({"command": "echo hello", "expected": "hell"}),
            "PASS",
        ),
        (
            "probe_assert_output",
            json!({"command": "exit 3", "expected": "0", "matchType": "exitcode"}),
            "FAIL",
        ),
        (
            "probe_compare_outputs",
            json!({"commandA": "echo a", "commandB": "echo a"}),
            "the same",
        ),
        (
            "probe_run_hypothesis",
            json!({"hypothesis": "it greets", "command": "echo Hi there", "expectedObservation": "hi"}),
            "CONFIRMED",
        ),
        (
            "code_execution_sandbox_run",
            json!({"language": "python", "code": "print(6 * 7)"}),
            "42",
        ),
        (
            "code_execution_sandbox_run",
            json!({"language": "cobol", "code": "x"}),
            "[ERROR] vouch runs snippets in",
        ),
    ];
    for (tool, args, wanted) in table {
        let out = tools::call(tool, &args, &c);
        assert!(out.text.contains(wanted), "{tool}: {}", out.text);
    }
    // Commands a probe runs are commands of the run: receipts, evidence.
    let probed = tools::call(
        "probe_assert_output",
        &json!({"command": "echo hello", "expected": "hell"}),
        &c,
    );
    assert!(
        probed
            .effects
            .iter()
            .any(|e| matches!(e, Effect::Ran(r) if r.command == "echo hello"))
    );
    std::fs::write(
        dir.path().join("page.html"),
        "<h1>Hi</h1><script>x</script><p>a &amp; b</p>",
    )
    .unwrap();
    let doc = tools::call("document_extract_text", &json!({"path": "page.html"}), &c);
    assert_eq!(doc.text, "Hi\na & b");
    let pdf = tools::call("document_extract_text", &json!({"path": "spec.pdf"}), &c);
    assert!(pdf.text.contains("does not read `.pdf`"), "{}", pdf.text);
}
