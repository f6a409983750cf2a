//! Loading configurations: the spec's YAML, case-insensitive keys, every problem at once.

use std::path::Path;

use vouch_gate::{TerminationKind, ValidatorKind, parse_config};

#[test]
fn the_spec_example_loads_with_or_without_its_root() {
    let body = r#"
  Selection:
    Type: keyword
    Routes:
      - Keyword: "HANDOFF TO TESTER"
        Agent: Tester
        Validator: RequireWriteFile
        Validators:
          - RequireWriteFile
          - RequireShellPass
        RequiredCommandPattern: "go build|go test"
        SourceAgents:
          - Developer
  Termination:
    Type: composite
    MaxIterations: 40
    Strategies:
      - Type: regex
        Pattern: '(?m)^\s*APPROVED\s*$'
        AgentNames:
          - Reviewer
      - Type: maxiterations
        MaxIterations: 40
  ChangeTracking:
    Path: state/changes.json
  Validation:
    BriefPath: .fuseraft/brief.json
    TestAssertionPatterns:
      - tester::assert
      - \bexpect\b
"#;
    for text in [
        format!("Orchestration:{body}"),
        body.lines()
            .map(|l| l.strip_prefix("  ").unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"),
    ] {
        let c = parse_config(Path::new("p.yaml"), &text).unwrap();
        let route = &c.routes()[0];
        let kinds: Vec<ValidatorKind> = route.validators.iter().map(|v| v.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ValidatorKind::RequireWriteFile,
                ValidatorKind::RequireShellPass
            ],
            "Validators wins"
        );
        assert!(
            route
                .required_command_pattern
                .as_ref()
                .unwrap()
                .matches("GO TEST ./...")
        );
        let t = c.termination().unwrap();
        assert_eq!(t.kind, TerminationKind::Composite);
        assert_eq!(t.strategies[1].max_iterations, Some(40));
        assert_eq!(
            c.validation().paths.change_log,
            Path::new("state/changes.json")
        );
        assert_eq!(
            c.validation().paths.brief,
            Path::new(".fuseraft/brief.json")
        );
        assert_eq!(
            c.validation().paths.test_report,
            Path::new(".fuseraft/artifacts/test-report.json"),
            "G1 default"
        );
        assert_eq!(c.validation().test_assertion_patterns.len(), 2);
    }
}

#[test]
fn keys_match_case_insensitively() {
    let c = parse_config(
        Path::new("p.yaml"),
        "selection:\n  routes:\n    - keyword: DONE\n      validator: requireshellpass\n      sourceagents: Dev\n",
    )
    .unwrap();
    assert_eq!(c.routes()[0].keyword, "DONE");
    assert_eq!(c.routes()[0].source_agents, vec!["Dev"]);
    assert_eq!(
        c.routes()[0].validators[0].kind,
        ValidatorKind::RequireShellPass
    );
}

#[test]
fn every_problem_is_reported_at_once_with_its_place() {
    let text = r#"Selection:
  Type: keyword
  Routes:
    - Keyword: "HANDOFF TO TESTER"
      Validators: [RequireWriteFile, RequireShelPass]
      Colour: blue
    - Agent: Tester
Termination:
  Type: regex
  Pattern: '(?m)^APPROVED($'
Validation:
  TestAssertionPatterns: ['\bassert\b', '[unclosed']
  BriefPth: x
Validaton: {}
Agents: [whatever, an orchestrator keeps]
"#;
    let err = parse_config(Path::new("pipeline.yaml"), text).unwrap_err();
    insta::assert_snapshot!(err.to_string());
    assert_eq!(err.errors.len(), 7);
}

#[test]
fn broken_yaml_is_one_error_with_a_place() {
    let err = parse_config(
        Path::new("p.yaml"),
        "Selection:\n  Routes: [a, b\n  Type: keyword\n",
    )
    .unwrap_err();
    assert_eq!(err.errors.len(), 1);
    assert!(err.errors[0].location.line >= 2, "{err}");
    assert!(err.to_string().starts_with("p.yaml:"), "{err}");
}

#[test]
fn hooks_name_their_validators() {
    let c = parse_config(
        Path::new("vouch.yaml"),
        "hooks:\n  stop: [RequireShellPass, TestReportValid]\n  stuck_threshold: 5\n",
    )
    .unwrap_err();
    // `stuck_threshold` is not the key; `StuckThreshold` is.
    assert_eq!(
        c.errors[0].hint.as_deref(),
        Some("did you mean `StuckThreshold`?")
    );
    let c = parse_config(
        Path::new("vouch.yaml"),
        "hooks:\n  stop: [RequireShellPass, TestReportValid]\n  stuckthreshold: 5\n",
    )
    .unwrap();
    assert_eq!(c.hooks().stop.len(), 2);
    assert_eq!(c.hooks().stuck_threshold, 5);
}
