//! A state-machine pipeline: a transition with a validator, a back-edge, a contract on the
//! transition into a terminal state — blocked once, then taken — and the end there.

use vouch_gate::Decision;
use vouch_pipeline::{Ended, Progress, RunConfig, models, run};

const PIPELINE: &str = r#"
Models:
  demo: {Provider: scripted, Script: script.yaml}
Agents:
  - {Name: Developer, Instructions: Fix add(), Model: demo, Tools: [FileSystem, Shell]}
  - {Name: Tester, Instructions: Test add(), Model: demo, Tools: [FileSystem, Shell]}
Contracts:
  - Name: TestsPass
    Requires:
      - CommandSucceeded: {Pattern: "sh test.sh"}
Selection:
  Type: statemachine
  States:
    - Name: Implement
      Agent: Developer
      Transitions:
        - {To: Verify, Signal: "READY FOR TEST", Validator: RequireWriteFile}
    - Name: Verify
      Agent: Tester
      Transitions:
        - {To: Implement, Signal: "BUGS FOUND"}
        - {To: Done, Signal: VERIFIED, Contract: TestsPass}
    - Name: Done
      Terminal: true
Budget: {MaxTurns: 12}
"#;

const SCRIPT: &str = r#"
agents:
  Developer:
    - calls: [{tool: patch_file, args: {path: calc.sh, old: "a - b", new: "a * b"}}]
    - text: "READY FOR TEST"
    - calls: [{tool: patch_file, args: {path: calc.sh, old: "a * b", new: "a + b"}}]
    - text: "READY FOR TEST"
  Tester:
    - calls: [{tool: shell_run, args: {command: "sh test.sh"}}]
    - text: "add 2 3 gives 6.\nBUGS FOUND"
    - text: "VERIFIED"
    - calls: [{tool: shell_run, args: {command: "sh test.sh"}}]
    - text: "VERIFIED"
"#;

#[test]
fn a_state_machine_runs_its_back_edge_and_ends_in_its_terminal_state() {
    let dir = crate::support::Project::new();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("pipeline.yaml", PIPELINE);
    write("script.yaml", SCRIPT);
    write("calc.sh", "add() { echo $(( a - b )); }\n");
    write(
        "test.sh",
        "a=2; b=3; . ./calc.sh; [ \"$(add)\" = 5 ] && echo '1 passed, 0 failed' || { echo \"got $(add)\"; exit 1; }\n",
    );
    let config =
        RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let models = models::build(&config).unwrap();
    let mut seen = Vec::new();
    let summary = run(&config, &models, &dir.options("Fix add()."), &mut |p| {
        if let Progress::Decided {
            agent, decision, ..
        } = p
        {
            seen.push(match decision {
                Decision::Route { keyword, to, .. } => {
                    format!("{agent}: {keyword} -> {}", to.as_deref().unwrap_or("-"))
                }
                Decision::Correct { validator, .. } => {
                    format!(
                        "{agent}: corrected by {}",
                        validator.as_deref().unwrap_or("-")
                    )
                }
                Decision::Terminate { reason } => format!("{agent}: end: {reason}"),
                Decision::Stuck { .. } => format!("{agent}: stuck"),
            });
        }
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            "Developer: READY FOR TEST -> Tester",
            "Tester: BUGS FOUND -> Developer",
            "Developer: READY FOR TEST -> Tester",
            "Tester: corrected by TestsPass/CommandSucceeded",
            "Tester: end: Tester wrote `VERIFIED` in state `Verify`, its transition's gates passed, and `Done` is a terminal state.",
        ]
    );
    assert!(matches!(summary.ended, Ended::Terminated { .. }));
    assert_eq!(summary.turns, 5);
}

#[test]
fn state_machine_mistakes_are_load_errors() {
    let dir = crate::support::Project::new();
    let broken = PIPELINE
        .replace(
            "{To: Implement, Signal: \"BUGS FOUND\"}",
            "{To: Implemnt, Signal: \"BUGS FOUND\"}",
        )
        .replace(
            "    - Name: Done\n      Terminal: true\n",
            "    - Name: Done\n      Terminal: true\n    - Name: Orphan\n      Agent: Tester\n",
        );
    std::fs::write(dir.path().join("pipeline.yaml"), broken).unwrap();
    std::fs::write(dir.path().join("script.yaml"), SCRIPT).unwrap();
    let errors = RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap_err();
    let messages: Vec<&str> = errors.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "transition to `Implemnt`, which `States` does not declare",
            "state `Orphan` cannot be reached from the initial state, `Implement`",
        ]
    );
}

#[test]
fn strict_evidence_is_the_runners_default_and_can_be_turned_off() {
    let dir = crate::support::Project::new();
    let path = dir.path().join("pipeline.yaml");
    std::fs::write(dir.path().join("script.yaml"), SCRIPT).unwrap();
    std::fs::write(&path, PIPELINE).unwrap();
    let strict = |path: &std::path::Path| {
        let config = RunConfig::load(path).unwrap_or_else(|e| panic!("{e}"));
        config.gates().config().validation().is_strict()
    };
    assert!(strict(&path));
    std::fs::write(&path, format!("{PIPELINE}Validation:\n  Strict: false\n")).unwrap();
    assert!(!strict(&path));
}
