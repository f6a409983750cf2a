use proptest::prelude::*;

use super::*;

/// Returns the texts of the programs whose status the script keeps.
fn kept(text: &str) -> Vec<String> {
    Script::parse(text).guaranteed().map(Claim::text).collect()
}

/// Returns each program with its masking reason.
fn masked(text: &str) -> Vec<(String, String)> {
    Script::parse(text)
        .claims()
        .iter()
        .filter_map(|c| Some((c.text(), c.masked.clone()?)))
        .collect()
}

#[test]
fn plain_commands_keep_their_status() {
    assert_eq!(kept("cargo test --workspace"), ["cargo test --workspace"]);
    assert_eq!(kept("cd app && cargo test"), ["cargo test"]);
    assert_eq!(kept("RUST_LOG=debug cargo test"), ["cargo test"]);
    assert_eq!(kept("env CI=1 timeout 600 npm test"), ["npm test"]);
    assert_eq!(kept("bash -lc 'cd x && go test ./...'"), ["go test ./..."]);
    assert_eq!(kept("/bin/bash -c \"pytest -q 'a b'\""), ["pytest -q a b"]);
    assert_eq!(
        kept("cargo build && cargo test"),
        ["cargo build", "cargo test"]
    );
    assert_eq!(
        kept("set -o pipefail; cargo test | tee log"),
        ["cargo test", "tee log"]
    );
    assert_eq!(
        kept("set -e\ncargo build\ncargo test"),
        ["cargo build", "cargo test"]
    );
    assert_eq!(
        kept("bash -ec 'cargo build; cargo test'"),
        ["cargo build", "cargo test"]
    );
    assert_eq!(kept("cargo test || exit 1"), ["cargo test"]);
    assert_eq!(
        kept("cargo test || exit 1; echo done"),
        ["cargo test", "echo done"]
    );
    assert_eq!(kept("cargo test; exit $?"), ["cargo test"]);
    assert_eq!(kept("(cd app && npm test)"), ["npm test"]);
    assert_eq!(kept("npm test # the whole suite"), ["npm test"]);
    assert!(Script::parse("cargo test").status_is_own());
}

#[test]
fn masking_constructs_lose_the_status() {
    for text in [
        "npm test || true",
        "npm test || :",
        "npm test || exit 0",
        "npm test; true",
        "npm test; exit 0",
        "npm test | tail -5",
        "npm test 2>&1 | tee out.log",
        "! npm test",
        "npm test &",
        "(npm test &)",
        "(npm test); echo done",
        "if npm test; then echo ok; fi",
        "for i in 1; do npm test; done",
        "while npm test; do break; done",
        "f() { npm test; }",
        "trap 'exit 0' EXIT; npm test",
        "set -e; set +e; npm test; echo done",
        "bash -ec 'set +e; npm test; echo done'",
        "npm test && echo ok || echo failed",
        "echo $(npm test)",
        "exit 0; npm test",
    ] {
        let script = Script::parse(text);
        assert!(
            !script.guaranteed().any(|c| c.text() == "npm test"),
            "{text}: {:?}",
            script.claims()
        );
        // `$(…)` computes an input: the outer `echo` keeps its own status.
        assert!(
            script.status_is_own() == text.starts_with("echo $("),
            "{text}"
        );
    }
}

#[test]
fn masking_reasons_name_the_construct() {
    insta::assert_debug_snapshot!(
        [
            "npm test || true",
            "npm test | tail -5",
            "npm test; exit 0",
            "! npm test",
            "npm test &",
            "if npm test; then :; fi",
            "trap 'exit 0' EXIT; npm test",
            "exit 0; npm test",
        ]
        .map(|t| (t, masked(t)))
    );
}

#[test]
fn quoted_and_commented_commands_are_not_run() {
    assert_eq!(kept("echo cargo test"), ["echo cargo test"]);
    assert_eq!(kept("printf 'cargo test\\n'"), ["printf cargo test\\n"]);
    assert_eq!(kept("true # cargo test"), Vec::<String>::new());
    assert_eq!(kept("cat <<EOF\ncargo test\nEOF"), ["cat"]);
    assert!(Script::parse("cat <<EOF\ncargo test\nEOF").claims()[0].reads_inline_text);
    assert_eq!(
        kept("python -c 'import os; os.system(\"cargo test\")'").len(),
        1
    );
}

#[test]
fn a_script_backs_a_report_of_the_same_commands() {
    let backs =
        |recorded: &str, reported: &str| Script::parse(recorded).backs(&Script::parse(reported));
    assert!(backs("cargo test --workspace", "cargo  test   --workspace"));
    assert!(backs("cd app && RUST_LOG=1 cargo test", "cargo test"));
    assert!(backs("bash -lc 'cargo test'", "cargo test"));
    assert!(backs("cargo build && cargo test", "cargo test"));
    assert!(!backs(
        "cargo build --release --workspace",
        "cargo test --release --workspace"
    ));
    assert!(!backs("echo go test ./...", "go test ./..."));
    assert!(!backs("npm test || true", "npm test"));
    assert!(!backs("cargo test", "cargo test --release"));
    assert!(!backs("cargo test", "cd app"));
    assert!(!backs("cargo test", ""));
}

#[test]
fn unreadable_scripts_say_why() {
    let script = Script::parse("cargo test 'unterminated");
    assert!(script.unreadable().is_some());
    assert!(!script.status_is_own());
    let deep = format!("{}true{}", "(".repeat(100), ")".repeat(100));
    assert!(
        Script::parse(&deep)
            .unreadable()
            .unwrap_or_default()
            .contains("nests")
    );
    let shells = (0..12).fold("cargo test".to_owned(), |s, _| {
        format!("bash -c {}", shell_quote(&s))
    });
    assert!(!Script::parse(&shells).status_is_own());
}

#[test]
fn a_command_the_parser_takes_too_long_over_is_unreadable() {
    // Found by the fuzzer: the parser backtracks for many seconds over this one.
    // The second, in the word parser that finds `$(…)` inside arguments.
    for name in ["slow-command.bin", "slow-word.bin"] {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let slow = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&slow);
        let started = std::time::Instant::now();
        let script = Script::parse(&text);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{name}"
        );
        assert!(
            script
                .unreadable()
                .unwrap_or_default()
                .contains("longer than"),
            "{name}: {:?}",
            script.unreadable()
        );
    }
}

#[test]
fn inputs_the_parser_cannot_hold_are_unreadable() {
    // Found by the fuzzer: a descriptor number past u32 made the parser panic.
    let script = Script::parse("pytest -q tests/ | eb 77777777777<> x");
    assert!(
        script
            .unreadable()
            .unwrap_or_default()
            .contains("descriptor")
    );
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A command a test runner might be asked to run.
fn command() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "cargo test",
            "pytest -q",
            "go test ./...",
            "npm test",
            "npx jest",
            "npx vitest run",
            "mvn test",
            "gradle test",
            "dotnet test",
            "bundle exec rspec",
            "phpunit",
            "ctest",
        ]),
        "[a-z_]{0,8}",
    )
        .prop_map(|(c, arg)| {
            if arg.is_empty() {
                c.to_owned()
            } else {
                format!("{c} {arg}")
            }
        })
}

/// Wraps a command in a construct that discards its status.
fn masking(cmd: &str, way: usize, other: &str) -> String {
    match way % 16 {
        0 => format!("{cmd} || true"),
        1 => format!("{cmd} || :"),
        2 => format!("{cmd} || exit 0"),
        3 => format!("{cmd}; true"),
        4 => format!("{cmd}; exit 0"),
        5 => format!("set +e; {cmd}; {other}"),
        6 => format!("{cmd} | {other}"),
        7 => format!("! {cmd}"),
        8 => format!("{cmd} &"),
        9 => format!("({cmd}); {other}"),
        10 => format!("if {cmd}; then {other}; fi"),
        11 => format!("bash -c {}", shell_quote(&format!("{cmd} || true"))),
        12 => format!("{cmd} && {other} || {other}"),
        13 => format!("echo {cmd}"),
        14 => format!("true # {cmd}"),
        _ => format!("cat <<EOF\n{cmd}\nEOF"),
    }
}

proptest! {
    #[test]
    fn a_masked_command_is_never_a_passing_run(cmd in command(), way in 0usize..16, other in "(echo done|tee log|grep ok|wc -l)") {
        let text = masking(&cmd, way, &other);
        let script = Script::parse(&text);
        prop_assert!(!script.guaranteed().any(|c| c.text() == cmd), "{text}: {:?}", script.claims());
        prop_assert!(!script.backs(&Script::parse(&cmd)), "{text}");
    }

    #[test]
    fn the_parser_never_panics(text in "\\PC{0,200}") {
        let _ = Script::parse(&text);
    }

    #[test]
    fn shell_syntax_soup_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "cargo test", "|", "||", "&&", ";", "&", "(", ")", "{", "}", "!", "if", "then", "fi",
        "'", "\"", "$(", "`", "<<EOF\n", "\nEOF\n", "bash -c", "set -e", "exit", "#", "\\",
    ]), 0..30)) {
        let _ = Script::parse(&parts.join(" "));
    }
}
