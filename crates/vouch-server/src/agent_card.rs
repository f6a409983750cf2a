//! The A2A agent card (`GET /.well-known/agent-card`, the interface page's SHOULD): who this
//! node is, where it answers, what it can do — the protocol's methods as skills, streaming (the
//! event stream at `GET /events/{root_id}`, or `tasks.execute` answered as a stream) and push
//! notifications (`configuration.push_notification_config`).

use serde_json::{Value, json};

/// The methods offered as skills: (id, name, what it does).
const SKILLS: &[(&str, &str, &str)] = &[
    (
        "tasks.execute",
        "Execute Task Tree",
        "Execute a task tree by its dependencies and priorities, with evidence-checking executors",
    ),
    (
        "tasks.create",
        "Create Tasks",
        "Create a task or a task tree, validated with every rule of the protocol",
    ),
    ("tasks.get", "Get Task", "Read a task"),
    (
        "tasks.update",
        "Update Task",
        "Change a task's fields within the protocol's state table",
    ),
    (
        "tasks.list",
        "List Tasks",
        "List tasks by status and user, paged",
    ),
    (
        "tasks.tree",
        "Task Tree",
        "Read the task hierarchy under a task",
    ),
    (
        "tasks.cancel",
        "Cancel Task",
        "Cancel a task and what depends on it",
    ),
    (
        "tasks.copy",
        "Copy Task",
        "Copy a task or a subtree for re-execution",
    ),
];

/// Returns the card of the node answering at `url`.
pub(crate) fn card(url: &str) -> Value {
    let skills: Vec<Value> = SKILLS
        .iter()
        .map(|(id, name, description)| {
            json!({"id": id, "name": name, "description": description,
                   "tags": ["task", "orchestration", "workflow"]})
        })
        .collect();
    json!({
        "name": "vouch",
        "description": "The task protocol's engine: task trees validated, executed and checked on their evidence",
        "url": url,
        "version": env!("CARGO_PKG_VERSION"),
        "protocol_version": "1.0",
        "capabilities": {"streaming": true, "push_notifications": true},
        "default_input_modes": ["application/json"],
        "default_output_modes": ["application/json"],
        "skills": skills,
    })
}
