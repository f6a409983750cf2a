//! The same run with a real model client, against the in-process stand-in speaking OpenAI's
//! and Anthropic's wire formats: tool definitions out, tool calls in, results back as each
//! provider expects them.

use serde_json::json;
use vouch_pipeline::{Ended, RunConfig, models, run};
use vouch_standin::{Server, Step, Wire, conversation};

fn pipeline(provider: &str, url: &str) -> String {
    format!(
        r#"
Models:
  m: {{Provider: {provider}, Endpoint: "{url}", Model: standin, ApiKeyEnv: VOUCH_TEST_NO_SUCH_KEY}}
Agents:
  - {{Name: Developer, Instructions: "You are the Developer.", Model: m, Tools: [FileSystem, Shell, Handoff]}}
  - {{Name: Tester, Instructions: "You are the Tester.", Model: m, Tools: [Shell]}}
Selection:
  Type: keyword
  Routes:
    - {{Keyword: "HANDOFF TO TESTER", Agent: Tester, Validators: [RequireWriteFile, RequireShellPass], RequiredCommandPattern: "sh test.sh", SourceAgents: [Developer]}}
    - {{Keyword: APPROVED, Agent: Tester, Validator: RequireShellPass, SourceAgents: [Tester]}}
Termination: {{Type: regex, Pattern: '(?m)^APPROVED$', AgentNames: [Tester]}}
Budget: {{MaxTurns: 8}}
"#
    )
}

fn steps() -> Vec<(&'static str, Vec<Step>)> {
    vec![
        (
            "the Developer",
            vec![
                Step::call(
                    "write_file",
                    json!({"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n"}),
                )
                .and_call("shell_run", json!({"command": "sh test.sh"})),
                Step::call("handoff", json!({"route_keyword": "HANDOFF TO TESTER"})),
            ],
        ),
        (
            "the Tester",
            vec![
                Step::call("shell_run", json!({"command": "sh test.sh"})),
                Step::say("APPROVED"),
            ],
        ),
    ]
}

fn run_against(wire: Wire, provider: &str) -> (vouch_pipeline::Summary, Vec<serde_json::Value>) {
    let server = Server::start(conversation(wire, steps()));
    let dir = crate::support::Project::new();
    std::fs::write(
        dir.path().join("pipeline.yaml"),
        pipeline(provider, &server.url()),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("test.sh"),
        ". ./calc.sh; [ \"$(add 2 3)\" = 5 ] && echo '1 passed, 0 failed'\n",
    )
    .unwrap();
    let config =
        RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let models = models::build(&config).unwrap();
    let summary = run(
        &config,
        &models,
        &dir.options("Make add() add."),
        &mut |_| {},
    )
    .unwrap();
    let bodies = server
        .seen()
        .iter()
        .map(vouch_standin::Request::json)
        .collect();
    (summary, bodies)
}

#[test]
fn an_openai_compatible_model_runs_the_pipeline() {
    let (summary, bodies) = run_against(Wire::OpenAi, "openai");
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    assert_eq!(bodies.len(), 4);
    // Tools went out as functions; the Developer's second request carries its calls' results.
    assert_eq!(bodies[0]["tools"][0]["type"], "function");
    let second = bodies[1]["messages"].as_array().unwrap();
    let results: Vec<&str> = second
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        results,
        ["wrote 31 bytes to calc.sh", "1 passed, 0 failed\n"]
    );
    assert_eq!(summary.tokens["Developer"].input, 200);
}

#[test]
fn an_anthropic_model_runs_the_pipeline() {
    let (summary, bodies) = run_against(Wire::Anthropic, "anthropic");
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    assert_eq!(bodies[0]["tools"][0]["input_schema"]["type"], "object");
    // Roles alternate: the tool results are one user message of tool_result blocks.
    let second = bodies[1]["messages"].as_array().unwrap();
    let roles: Vec<&str> = second.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    let kinds: Vec<&str> = second[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["tool_result", "tool_result"]);
}

/// The bundled four-agent pipeline, its scripted replies served by the stand-in in `wire`:
/// returns how the run ended and the agents of its turns.
fn bundled_against(wire: Wire, provider: &str) -> (Ended, Vec<String>) {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipeline");
    let replies: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(example.join("replies.yaml")).unwrap())
            .unwrap();
    let pipeline = std::fs::read_to_string(example.join("run.yaml")).unwrap();
    let config_text: serde_json::Value = serde_saphyr::from_str(&pipeline).unwrap();
    // Each agent is known to the stand-in by its instructions, which open its system prompt.
    let agents: Vec<(String, Vec<Step>)> = config_text["Orchestration"]["Agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let name = a["Name"].as_str().unwrap();
            let steps = replies["agents"][name]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| Step {
                    text: s["text"].as_str().unwrap_or_default().to_owned(),
                    calls: s["calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| (c["tool"].as_str().unwrap().to_owned(), c["args"].clone()))
                        .collect(),
                })
                .collect();
            (a["Instructions"].as_str().unwrap().to_owned(), steps)
        })
        .collect();
    let server = Server::start(conversation(
        wire,
        agents
            .iter()
            .map(|(p, s)| (p.as_str(), s.clone()))
            .collect(),
    ));
    let dir = crate::support::Project::new();
    for name in ["calc.sh", "test.sh"] {
        std::fs::copy(example.join("project").join(name), dir.path().join(name)).unwrap();
    }
    let models = format!(
        "Models:\n    demo: {{Provider: {provider}, Endpoint: \"{}\", Model: standin}}",
        server.url()
    );
    std::fs::write(
        dir.path().join("pipeline.yaml"),
        pipeline.replace(
            "Models:\n    demo: {Provider: scripted, Script: replies.yaml}",
            &models,
        ),
    )
    .unwrap();
    let config =
        RunConfig::load(&dir.path().join("pipeline.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let models = models::build(&config).unwrap();
    let mut turns = Vec::new();
    let summary = run(
        &config,
        &models,
        &dir.options("add() subtracts; make it add."),
        &mut |p| {
            if let vouch_pipeline::Progress::Turn { agent, .. } = p {
                turns.push(agent.to_owned());
            }
        },
    )
    .unwrap();
    (summary.ended, turns)
}

#[test]
fn the_bundled_four_agent_pipeline_runs_against_both_wire_formats() {
    for (wire, provider) in [(Wire::OpenAi, "openai"), (Wire::Anthropic, "anthropic")] {
        let (ended, turns) = bundled_against(wire, provider);
        assert!(
            matches!(ended, Ended::Terminated { .. }),
            "{provider}: {ended:?}"
        );
        assert_eq!(
            turns,
            ["Planner", "Developer", "Developer", "Tester", "Reviewer"],
            "{provider}: the forged handoff is corrected, then every gate passes"
        );
    }
}
