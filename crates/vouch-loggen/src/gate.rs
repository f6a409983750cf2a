//! A whole project for timing a gate check: a long multi-turn session whose last turn is a
//! Reviewer's approval, a long change log, and every artifact the validators read, all in
//! order so that every validator does its full work and passes.

use std::io::{self, Write};
use std::path::Path;

use serde_json::json;

use crate::claude::ClaudeLog;

/// Parameters of a generated gate project.
#[derive(Debug, Clone)]
pub struct GateProject {
    /// Tool calls in the session before its last turn (two events each, plus messages).
    pub tool_calls: usize,
    /// A new turn every this many tool calls.
    pub turn_every: usize,
    /// Entries of `changes.json`; the last `active_entries` belong to the active session.
    pub change_entries: usize,
    /// Entries of the active session.
    pub active_entries: usize,
}

impl Default for GateProject {
    fn default() -> GateProject {
        GateProject {
            tool_calls: 47_000,
            turn_every: 40,
            change_entries: 10_000,
            active_entries: 40,
        }
    }
}

/// The configuration of the generated project: one route with every validator.
pub(crate) const PIPELINE: &str = r#"Selection:
  Type: keyword
  Routes:
    - Keyword: APPROVED
      Agent: Reviewer
      Validators:
        - RequireBrief
        - RequireShellPass
        - RequireWriteFile
        - RequireAllFilesWritten
        - RequireRelatedTestsPass
        - TestReportValid
        - RequireReviewJudgement
        - RequireAcceptanceCriteriaPassedValidator
        - BlockOnConsecutiveFail
      RequiredCommandPattern: "cargo test"
      SourceAgents: [Reviewer]
TestSelector:
  FindRelatedCommand: "echo tests/{file}"
  FullSuiteCommand: "true"
  TimeoutSeconds: 60
Validation:
  TestAssertionPatterns: ['\bassert\b', '#\[test\]']
"#;

const FILES: [&str; 4] = [
    "src/api/users.rs",
    "src/api/orders.rs",
    "src/db/schema.rs",
    "tests/api_test.rs",
];

impl GateProject {
    /// Writes the project into `dir`: `pipeline.yaml`, `session.jsonl`, the artifacts under
    /// `.fuseraft/`, and the test file the brief names.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir.join(".fuseraft/artifacts"))?;
        std::fs::create_dir_all(dir.join(".fuseraft/state"))?;
        std::fs::create_dir_all(dir.join("tests"))?;
        std::fs::write(dir.join("pipeline.yaml"), PIPELINE)?;
        std::fs::write(
            dir.join("tests/api_test.rs"),
            "#[test]\nfn lists_users() { assert!(list().len() == 3); }\n",
        )?;
        let criteria = [
            "GET /users pages results",
            "total_count is returned",
            "bad input is a 400",
        ];
        std::fs::write(
            dir.join(".fuseraft/artifacts/brief.json"),
            json!({
                "goal": "Paginate the users endpoint",
                "files_to_change": FILES.iter().map(|f| json!({"path": f, "reason": "pagination"})).collect::<Vec<_>>(),
                "acceptance_criteria": [criteria[0], criteria[1], {"criterion": criteria[2], "test_command": "cargo test bad_input", "expected_output_contains": "test result: ok"}],
                "implementation": FILES.iter().map(|f| json!({"action": "patch", "path": f})).collect::<Vec<_>>(),
            })
            .to_string(),
        )?;
        std::fs::write(
            dir.join(".fuseraft/artifacts/test-report.json"),
            json!({
                "results": criteria.iter().enumerate().map(|(i, c)| json!({"criterion": c, "status": "PASS", "command": format!("cargo test api_case_{i}"), "exit_code": 0})).collect::<Vec<_>>(),
                "fake_test_files": [],
            })
            .to_string(),
        )?;
        self.write_changes(&dir.join(".fuseraft/state/changes.json"))?;
        let mut session = io::BufWriter::new(std::fs::File::create(dir.join("session.jsonl"))?);
        ClaudeLog {
            tool_calls: self.tool_calls,
            turn_every: self.turn_every,
            fail_every: 0,
            ..ClaudeLog::default()
        }
        .write(&mut session)?;
        // The last turn: the Reviewer runs the tests and approves with a review block.
        let review = json!({"review": criteria.iter().map(|c| json!({"criterion": c, "verdict": "PASS", "evidence": "cargo test passed"})).collect::<Vec<_>>()});
        let rec = |kind: &str, message: serde_json::Value| json!({"type": kind, "sessionId": "gate", "isSidechain": false, "message": message});
        for record in [
            rec(
                "user",
                json!({"role": "user", "content": "[routing] Tester -> Reviewer"}),
            ),
            rec(
                "assistant",
                json!({"id": "m-review-1", "role": "assistant", "content": [{"type": "tool_use", "id": "review-edit", "name": "Edit", "input": {"file_path": "src/api/users.rs", "old_string": "a", "new_string": "b"}}]}),
            ),
            rec(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "review-edit", "content": "updated"}]}),
            ),
            rec(
                "assistant",
                json!({"id": "m-review-2", "role": "assistant", "content": [{"type": "tool_use", "id": "review-test", "name": "Bash", "input": {"command": "cargo test --workspace"}}]}),
            ),
            rec(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "review-test", "content": "test result: ok. 212 passed; 0 failed"}]}),
            ),
            rec(
                "assistant",
                json!({"id": "m-review-3", "role": "assistant", "content": [{"type": "text", "text": format!("Verified.\n```json\n{review}\n```\nAPPROVED")}]}),
            ),
        ] {
            serde_json::to_writer(&mut session, &record)?;
            session.write_all(b"\n")?;
        }
        session.flush()
    }

    fn write_changes(&self, path: &Path) -> io::Result<()> {
        let mut out = io::BufWriter::new(std::fs::File::create(path)?);
        out.write_all(b"{\"Entries\":[")?;
        for i in 0..self.change_entries {
            let active = i + self.active_entries >= self.change_entries;
            let session = if active {
                "active".to_owned()
            } else {
                format!("old-{}", i / 100)
            };
            let file = FILES[i % FILES.len()];
            let output = format!(
                "running 12 tests\n{}test result: ok. 12 passed; 0 failed\n",
                "test api::case ... ok\n".repeat(i % 20)
            );
            let agent = ["Developer", "Tester", "Reviewer"][i % 3];
            let entry = json!({
                "Agent": agent, "TurnIndex": i % 100 + 1,
                "Timestamp": "2026-01-01T00:00:00Z", "SessionId": session,
                "FilesWritten": [file], "FilesDeleted": [],
                "CommandsRun": [
                    {"Command": format!("cargo test api_case_{}", i % 3), "succeeded": true, "Output": output, "ExitCode": 0},
                    {"Command": "cargo build", "succeeded": true, "Output": "Finished", "ExitCode": 0}
                ],
                "GitCommits": []
            });
            if i > 0 {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut out, &entry)?;
        }
        out.write_all(b"],\"ActiveSessionId\":\"active\"}\n")?;
        out.flush()
    }
}
