//! `test-report.json`: the Tester's per-criterion results.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, parse_json, read_text};
use crate::shapes::null_as_default;

/// The Tester's report: one result per acceptance criterion, and the test files it found fake.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TestReport {
    /// One entry per criterion.
    #[serde(default, deserialize_with = "null_as_default")]
    pub results: Vec<TestResultRow>,
    /// Test files that hold no real assertions; must be empty.
    #[serde(default, deserialize_with = "null_as_default")]
    pub fake_test_files: Vec<String>,
}

/// One result of a test report.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TestResultRow {
    /// The criterion's text.
    #[serde(default, deserialize_with = "null_as_default")]
    pub criterion: String,
    /// `PASS` or `FAIL` (compared case-insensitively).
    #[serde(default, deserialize_with = "null_as_default")]
    pub status: String,
    /// The shell command that verified it.
    #[serde(default, deserialize_with = "null_as_default")]
    pub command: String,
    /// The command's exit code (informational).
    #[serde(default)]
    pub exit_code: Option<i64>,
    /// Output of a failing command.
    #[serde(default)]
    pub output: Option<String>,
}

impl TestResultRow {
    /// Returns true for a `PASS` result.
    pub fn passed(&self) -> bool {
        self.status.trim().eq_ignore_ascii_case("pass")
    }

    /// Returns true for a `FAIL` result.
    pub fn failed(&self) -> bool {
        self.status.trim().eq_ignore_ascii_case("fail")
    }
}

impl TestReport {
    /// Reads the report at `path`.
    pub fn read(path: &Path) -> Result<TestReport, Error> {
        TestReport::parse(path, &read_text(path)?)
    }

    /// Parses a report's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<TestReport, Error> {
        parse_json(path, text)
    }
}
