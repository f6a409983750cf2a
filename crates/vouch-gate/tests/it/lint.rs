//! `lint`: the repo's own configurations are clean, and a broken one shows every problem at
//! once.

use std::path::{Path, PathBuf};

use vouch_gate::lint;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Collects the YAML files under `dir` that are pipeline configurations, skipping `broken/`.
fn configs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "broken" && name != "target" && !name.starts_with('.') {
                configs(&path, out);
            }
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let sections = ["Orchestration:", "Selection:", "Hooks:", "Termination:"];
            if text
                .lines()
                .any(|l| sections.iter().any(|s| l.starts_with(s)))
            {
                out.push(path);
            }
        }
    }
}

#[test]
fn every_configuration_in_the_repo_is_clean() {
    let root = repo();
    let mut found = Vec::new();
    configs(&root.join("examples"), &mut found);
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        configs(&krate.unwrap().path().join("tests"), &mut found);
    }
    assert!(found.len() >= 2, "no configurations found: {found:?}");
    for path in &found {
        let text = std::fs::read_to_string(path).unwrap();
        let problems = lint(path, &text);
        assert!(
            problems.errors.is_empty(),
            "{}:\n{problems}",
            path.display()
        );
    }
}

#[test]
fn a_broken_configuration_shows_every_problem_in_one_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint/broken/pipeline.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut problems = lint(Path::new("pipeline.yaml"), &text);
    problems.source_text.clear();
    insta::assert_snapshot!("lint_broken", problems.to_string());
}

#[test]
fn routes_of_one_keyword_to_one_agent_add_up_and_are_not_shadowed() {
    let yaml = r"
Selection:
  Routes:
    - {Keyword: GO, Agent: B, SourceAgents: [A], Validator: RequireWriteFile}
    - {Keyword: GO, Agent: B, SourceAgents: [A], Validator: RequireShellPass}
    - {Keyword: BACK, Agent: A, SourceAgents: [B]}
    - {Keyword: GO, Agent: C, SourceAgents: [C]}
    - {Keyword: ON, Agent: C, SourceAgents: [B]}
Termination: {Type: maxiterations, MaxIterations: 10}
";
    let problems = lint(Path::new("p.yaml"), yaml);
    assert!(problems.errors.is_empty(), "{problems}");
}

#[test]
fn text_that_is_not_yaml_is_one_problem() {
    let problems = lint(Path::new("p.yaml"), "Selection: [\n");
    assert_eq!(problems.errors.len(), 1, "{problems}");
    assert!(problems.errors[0].message.starts_with("not valid YAML"));
}
