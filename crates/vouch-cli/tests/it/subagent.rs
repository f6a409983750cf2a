//! fuseraft's `SubAgent` plugin in a run: the sub-agent's calls are recorded as a subagent of
//! the calling turn — nested in `vouch session show` and in the run's HTML report.

use crate::support::vouch_env;

const PIPELINE: &str = r"
Orchestration:
  Models:
    demo: {Provider: scripted, Script: replies.yaml}
  Agents:
    - Name: Planner
      Instructions: Explore, then say DONE.
      Model: demo
      Plugins: [SubAgent]
  Selection: {Type: roundrobin}
  Termination:
    Type: composite
    MaxIterations: 2
    Strategies: [{Type: regex, Pattern: DONE}]
";

const REPLIES: &str = r#"
agents:
  Planner:
    - calls:
        - {tool: sub_agent_explore, args: {question: "What does notes.txt say?"}}
    - text: "The notes say hello.\nDONE"
  "Planner:sub":
    - calls:
        - {tool: read_file, args: {path: notes.txt}}
    - text: "notes.txt says hello."
"#;

#[test]
fn a_sub_agent_is_nested_under_its_call_in_the_session_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("notes.txt"), "hello\n").unwrap();
    std::fs::write(dir.path().join("p.yaml"), PIPELINE).unwrap();
    std::fs::write(dir.path().join("replies.yaml"), REPLIES).unwrap();
    let out = vouch_env(
        dir.path(),
        &[
            "run",
            "p.yaml",
            "--workdir",
            "work",
            "--task",
            "explore",
            "--format",
            "json",
            "--html",
            "run.html",
        ],
        &[],
    );
    let stdout = crate::support::succeeded(&out);
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let session = summary["session"].as_str().unwrap().to_owned();
    let shown = vouch_env(
        dir.path(),
        &["session", "show", &session, "--format", "json"],
        &[],
    );
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let sub = &shown["subagents"][0];
    assert_eq!(sub["name"], "Planner/explorer", "{shown}");
    assert!(
        sub["spawned_by"].as_str().is_some_and(|s| !s.is_empty()),
        "{sub}"
    );
    assert!(sub.to_string().contains("read_file"), "{sub}");
    // The parent's events after the sub-agent are still the parent's.
    assert!(
        shown["events"].to_string().contains("The notes say hello."),
        "{shown}"
    );
    let html = std::fs::read_to_string(dir.path().join("run.html")).unwrap();
    assert!(
        html.contains("class=\"subagent\""),
        "the report nests the sub-agent"
    );
    assert!(html.contains("read_file"));
}
