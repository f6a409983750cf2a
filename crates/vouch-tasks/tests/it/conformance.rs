//! The conformance suite: `tests/conformance/*.json`, one case per file —
//! `{"description", "input" (or "input_text"), "valid", "errors": [{"code", "path", "field"}],
//! "warnings": [...], "rpc_code"?}`. Errors and warnings must match exactly (as sets of
//! code, path and field); `rpc_code` is the code of the document's JSON-RPC error.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use vouch_tasks::Issue;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    description: String,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    input_text: Option<String>,
    valid: bool,
    errors: Vec<Expected>,
    warnings: Vec<Expected>,
    #[serde(default)]
    rpc_code: Option<i32>,
}

#[derive(Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord, Clone)]
#[serde(deny_unknown_fields)]
struct Expected {
    code: i32,
    path: String,
    field: String,
}

fn seen(issues: &[Issue]) -> Vec<Expected> {
    let mut v: Vec<Expected> = issues
        .iter()
        .map(|i| Expected {
            code: i.code,
            path: i.path.clone(),
            field: i.field.clone(),
        })
        .collect();
    v.sort();
    v
}

fn run(file: &Path) -> Result<(), String> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
        .map_err(|e| format!("bad case: {e}"))?;
    let text = match (&case.input, &case.input_text) {
        (Some(v), None) => serde_json::to_string_pretty(v).unwrap(),
        (None, Some(t)) => t.clone(),
        _ => return Err("a case has either input or input_text".into()),
    };
    let report = vouch_tasks::validate_str(&text).map_err(|e| format!("not a document: {e}"))?;
    let mut expected_errors = case.errors.clone();
    expected_errors.sort();
    let mut expected_warnings = case.warnings.clone();
    expected_warnings.sort();
    let describe = || {
        format!(
            "{}\n  errors: {:#?}\n  warnings: {:#?}",
            case.description, report.errors, report.warnings
        )
    };
    if report.is_valid() != case.valid {
        return Err(format!(
            "valid: expected {}, got {}\n{}",
            case.valid,
            report.is_valid(),
            describe()
        ));
    }
    if seen(&report.errors) != expected_errors {
        return Err(format!(
            "errors: expected {expected_errors:?}, got {:?}\n{}",
            seen(&report.errors),
            describe()
        ));
    }
    if seen(&report.warnings) != expected_warnings {
        return Err(format!(
            "warnings: expected {expected_warnings:?}, got {:?}\n{}",
            seen(&report.warnings),
            describe()
        ));
    }
    if let Some(code) = case.rpc_code {
        let got = report.rpc_error().map(|e| e.code);
        if got != Some(code) {
            return Err(format!("rpc code: expected {code}, got {got:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_case_of_the_conformance_suite() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 80, "only {} cases", files.len());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            run(f)
                .err()
                .map(|e| format!("{}: {e}", f.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
