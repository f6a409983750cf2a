//! Loading tests from text and evaluating them on the fixture sessions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use vouch_gate::PipelineConfig;
use vouch_harness::evaluate::evaluate;
use vouch_harness::spec::parse;
use vouch_harness::{Grader, NoGrader, Row, TestFile};

/// Returns the folder of this crate's fixtures.
pub(crate) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Parses a test written in the fixtures folder (so that `session:` paths resolve there),
/// panicking with every problem when it does not load.
pub(crate) fn test(yaml: &str) -> TestFile {
    let path = fixtures().join("inline.vouch.yaml");
    parse(&path, yaml).unwrap_or_else(|e| panic!("the test does not load:\n{e}"))
}

/// Evaluates `assertions` (YAML list items) on the fixture session `session`.
pub(crate) fn rows(session: &str, assertions: &str) -> Vec<Row> {
    graded_rows(session, assertions, &NoGrader)
}

/// Evaluates `assertions` on the fixture session `session`, reviews graded by `grader`.
pub(crate) fn graded_rows(session: &str, assertions: &str, grader: &dyn Grader) -> Vec<Row> {
    let yaml = format!("name: t\nsession: sessions/{session}\nassertions:\n{assertions}");
    let test = test(&yaml);
    let log = test.session.clone().unwrap_or_default();
    let report = vouch_session::read_path(&log, &vouch_session::ReadOptions::default()).unwrap();
    let config = PipelineConfig::empty(Path::new("vouch.yaml"));
    evaluate(&test, &report, &fixtures(), &config, grader)
}

/// Renders rows as the lines a snapshot keeps: the mark, the line, the description, the reason.
pub(crate) fn render(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        let mark = if r.passed { "PASS" } else { "FAIL" };
        let _ = writeln!(out, "{mark} [line {}] {}", r.line, r.description);
        if let Some(reason) = &r.reason {
            for line in reason.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}
