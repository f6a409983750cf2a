//! Every assertion kind on a hand-written Claude Code session (`fixtures/sessions/work.jsonl`):
//! the agent read `/proj/.env`, read and edited `src/main.ts`, ran `npm test` (failing), sent a
//! `linter` subagent that ran Grep, ran the tests again (passing), wrote `hello.js`, and
//! answered in Russian.

use crate::support::{render, rows};

fn verdicts(assertions: &str) -> Vec<bool> {
    rows("work.jsonl", assertions)
        .iter()
        .map(|r| r.passed)
        .collect()
}

#[test]
fn a_glob_over_a_path_catches_a_dotfile_in_any_folder() {
    // The peer tries `*.env` as a regex, which it is not, then compares it exactly: it never
    // matches `/proj/.env`.
    let rows = rows(
        "work.jsonl",
        "  - tool: Read\n    called: false\n    params:\n      file_path: \"*.env\"\n",
    );
    assert!(!rows[0].passed);
    insta::assert_snapshot!(render(&rows), @r"
    FAIL [line 4] Read not called with file_path glob *.env
        called 1 time: Read /proj/.env (line 2)
    ");
}

#[test]
fn a_forbidden_write_fails_when_the_file_was_written() {
    let rows = rows(
        "work.jsonl",
        "  - tool: Write\n    called: false\n    params:\n      file_path: \"*.js\"\n  - tool: Write\n    called: false\n    params:\n      file_path: \"*.py\"\n",
    );
    insta::assert_snapshot!(render(&rows), @r"
    FAIL [line 4] Write not called with file_path glob *.js
        called 1 time: Write /proj/hello.js (line 18)
    PASS [line 8] Write not called with file_path glob *.py
    ");
}

#[test]
fn matchers_by_shape_and_by_name() {
    let assertions = r#"
  - tool: Bash
    params: {command: "npm test*"}
  - tool: Bash
    params: {command: "^npm\\s+test$"}
  - tool: Bash
    params: {command: {regex: "reporter", anchored: false}}
  - tool: Bash
    params: {command: {contains: "--reporter=dot"}}
  - tool: Bash
    params: {command: {exact: "npm test"}}
  - tool: Bash
    params: {command: "yarn test"}
  - tool: Grep
    params: {pattern: {exact: "console\\.log"}}
"#;
    assert_eq!(
        verdicts(assertions),
        [true, true, true, true, true, false, true]
    );
}

#[test]
fn shell_commands_are_compared_with_their_spaces_collapsed() {
    // The second run was `npm   test  -- --reporter=dot`.
    let assertions = "  - tool: Bash\n    params: {command: \"npm test -- --reporter=dot\"}\n";
    assert_eq!(verdicts(assertions), [true]);
}

#[test]
fn tool_names_ignore_case_and_know_other_agents_names() {
    let assertions = "  - tool: read\n  - tool: shell\n    min_calls: 2\n  - tool: exec_command\n  - tool: mcp__github__create_pr\n";
    let rows = rows("work.jsonl", assertions);
    assert_eq!(
        rows.iter().map(|r| r.passed).collect::<Vec<_>>(),
        [true, true, true, false]
    );
    insta::assert_snapshot!(rows[3].reason.as_deref().unwrap_or_default(), @"mcp__github__create_pr was never called");
}

#[test]
fn outcomes() {
    let assertions = r#"
  - tool: Bash
    params: {command: "npm test"}
    succeeded: true
  - tool: Bash
    params: {command: "npm test"}
    succeeded: false
  - tool: Bash
    params: {command: {exact: "npm test"}}
    succeeded: true
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r#"
    FAIL [line 5] Bash called with command exactly "npm test", succeeding
        Bash was called 1 time with command exactly "npm test", and none succeeded: Bash npm test [error] (line 8)
    PASS [line 8] Bash called with command exactly "npm test", failing
    FAIL [line 11] Bash called with command exactly "npm test", succeeding
        Bash was called 1 time with command exactly "npm test", and none succeeded: Bash npm test [error] (line 8)
    "#);
}

#[test]
fn counts() {
    let assertions = r"
  - tool: Bash
    call_count: 2
  - tool: Read
    min_calls: 3
  - tool: Bash
    max_calls: 1
  - tool: Edit
    min_calls: 1
    max_calls: 1
";
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] Bash called exactly 2 times
    FAIL [line 7] Read called at least 3 times
        called 2 times, expected at least 3 times: Read /proj/.env (line 2); Read /proj/src/main.ts (line 4)
    FAIL [line 9] Bash called at most 1 time
        called 2 times, expected at most 1 time: Bash npm test [error] (line 8); Bash npm test -- --reporter=dot (line 16)
    PASS [line 11] Edit called at least 1 time at most 1 time
    ");
}

#[test]
fn order_after_the_first_and_before_the_last() {
    let assertions = r"
  - tool: Edit
    called_after: Read
  - tool: Write
    called_after: {tool: Bash, succeeded: true}
  - tool: Read
    called_after: Edit
  - tool: Read
    called_before: Edit
  - tool: Bash
    called_before: Edit
  - tool: Edit
    called_after: WebFetch
";
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] Edit called, after the first Read
    PASS [line 7] Write called, after the first Bash that succeeded
    FAIL [line 9] Read called, after the first Edit
        called before the first Edit (Edit /proj/src/main.ts (line 6)): Read /proj/.env (line 2); Read /proj/src/main.ts (line 4)
    PASS [line 11] Read called, before the last Edit
    FAIL [line 13] Bash called, before the last Edit
        called after the last Edit (Edit /proj/src/main.ts (line 6)): Bash npm test [error] (line 8); Bash npm test -- --reporter=dot (line 16)
    FAIL [line 15] Edit called, after the first WebFetch
        WebFetch was never called
    ");
}

#[test]
fn positions() {
    let assertions = r#"
  - tool: Read
    first_call_params: {file_path: "*/src/*"}
  - tool: Read
    last_call_params: {file_path: "*/src/*"}
  - tool: Bash
    nth_call_params:
      2: {command: "*reporter*"}
      3: {command: "*"}
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    FAIL [line 5] Read called, 1st call with file_path glob */src/*
        the 1st call (Read /proj/.env (line 2)) has file_path = /proj/.env, expected file_path glob */src/*
    PASS [line 7] Read called, last call with file_path glob */src/*
    FAIL [line 9] Bash called, 2nd call with command glob *reporter*, 3rd call with command glob *
        there is no 3rd call of Bash: it was called 2 times
    ");
}

#[test]
fn subagent_scope() {
    let assertions = r"
  - tool: Grep
    subagent: linter
  - tool: Grep
    subagent: reviewer
  - tool: Bash
    subagent: linter
    called: false
";
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] Grep called in subagent linter
    FAIL [line 7] Grep called in subagent reviewer
        Grep was never called
    PASS [line 9] Bash not called in subagent linter
    ");
}

#[test]
fn sequences() {
    let assertions = r#"
  - sequence: [Read, Edit, {tool: Bash, succeeded: true}, Write]
  - sequence: [Write, Read]
  - sequence:
      - {tool: Read, params: {file_path: "*.env"}}
      - {tool: Bash, params: {command: "npm test*"}, succeeded: false}
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] in order: Read → Edit → Bash that succeeded → Write
    FAIL [line 6] in order: Write → Read
        1 of 2 steps happened; the next, Read, never came after Write /proj/hello.js (line 18)
    PASS [line 7] in order: Read with file_path glob *.env → Bash with command glob npm test* that failed
    ");
}

#[test]
fn descriptions_replace_the_generated_text_and_rows_keep_the_tests_order() {
    let assertions = r#"
  - tool: Write
    description: "Пишет файл ✓"
  - tool: Read
    called: false
    description: "Never reads secrets — «.env»"
  - sequence: [Read, Edit]
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] Пишет файл ✓
    FAIL [line 7] Never reads secrets — «.env»
        called 2 times: Read /proj/.env (line 2); Read /proj/src/main.ts (line 4)
    PASS [line 10] in order: Read → Edit
    ");
}

#[test]
fn failure_messages_cut_long_multibyte_values_on_character_boundaries() {
    // The edit's new text has `é` (two bytes); a long value is cut to 80 characters.
    let assertions = r#"
  - tool: Edit
    params: {new_string: "*bonjour*"}
  - tool: Write
    last_call_params: {content: "*bonjour*"}
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    FAIL [line 5] Edit called with new_string glob *bonjour*
        Edit was called 1 time, never with new_string glob *bonjour*: new_string = export const greet = () => 'héllo';
    FAIL [line 7] Write called, last call with content glob *bonjour*
        the last call (Write /proj/hello.js (line 18)) has content = console.log('héllo'); // éééééééééééééééééééééééééééééééééééééééééééééééééééééé…, expected content glob *bonjour*
    ");
}

#[test]
fn gates_in_tests() {
    let assertions = r#"
  - gate: {CommandSucceeded: {Pattern: "npm test"}}
  - gate: {FileExists: {Path: "sessions/work.jsonl"}}
  - gate: {FileExists: {Path: "hello.js"}}
    description: "hello.js is on disk"
"#;
    let rows = rows("work.jsonl", assertions);
    insta::assert_snapshot!(render(&rows), @r"
    PASS [line 5] gate CommandSucceeded `npm test`
    PASS [line 6] gate FileExists sessions/work.jsonl
    FAIL [line 7] hello.js is on disk
        Completion blocked: the test requires hello.js to exist, and it does not.
        Write it with write_file, then retry.
    ");
}

#[test]
fn a_review_without_a_grader_fails_loudly() {
    let rows = rows(
        "work.jsonl",
        "  - stdout:\n      review: \"Says that the tests pass\"\n",
    );
    assert!(!rows[0].passed);
    insta::assert_snapshot!(render(&rows), @r#"
    FAIL [line 4] stdout review: "Says that the tests pass"
        no grader configured: stdout reviews are graded by an LLM, and none is configured (vouch.yaml `graders:`)
    "#);
}
