//! `tasks create --new-ids`: every task of a document given a fresh id, and every reference to
//! one (`parent_id`, `dependencies`) moved with it, so a tree kept as a template can be created
//! again on a server that already holds it.

use std::collections::HashMap;

use serde_json::Value;

/// Replaces the id of every task in `doc` (an array of tasks, `{"tasks": [...]}`, a
/// `{"task", "children"}` tree or one task) by a new v4 UUID, and the references to them.
/// References to ids the document does not define are left as they are.
pub(crate) fn renew(doc: &mut Value) {
    let mut tasks = Vec::new();
    tasks_of(doc, &mut tasks);
    let fresh: HashMap<String, String> = tasks
        .iter()
        .filter_map(|t| t.get("id").and_then(Value::as_str))
        .map(|id| (id.to_owned(), uuid::Uuid::new_v4().to_string()))
        .collect();
    for task in tasks {
        renew_refs(task, &fresh);
    }
}

/// Collects the task objects of a document, in any of its forms.
fn tasks_of<'d>(doc: &'d mut Value, out: &mut Vec<&'d mut Value>) {
    let listed =
        matches!(&*doc, Value::Object(m) if m.contains_key("tasks") && !m.contains_key("name"));
    if listed {
        if let Some(Value::Array(items)) = doc.get_mut("tasks") {
            for i in items.iter_mut() {
                node(i, out);
            }
        }
    } else if let Value::Array(items) = doc {
        for i in items.iter_mut() {
            node(i, out);
        }
    } else {
        node(doc, out);
    }
}

/// A tree node (`{"task", "children"}`) or a task.
fn node<'d>(value: &'d mut Value, out: &mut Vec<&'d mut Value>) {
    if !value.get("task").is_some_and(Value::is_object) {
        if value.is_object() {
            out.push(value);
        }
        return;
    }
    let Value::Object(m) = value else { return };
    for (key, v) in m.iter_mut() {
        match (key.as_str(), v) {
            ("task", task) => out.push(task),
            ("children", Value::Array(children)) => {
                for c in children.iter_mut() {
                    node(c, out);
                }
            }
            _ => {}
        }
    }
}

/// Moves a task's own id, its `parent_id` and its dependencies' ids to their new ids.
fn renew_refs(task: &mut Value, fresh: &HashMap<String, String>) {
    let Value::Object(m) = task else { return };
    let swap = |v: &mut Value| {
        if let Some(new) = v.as_str().and_then(|id| fresh.get(id)) {
            *v = Value::String(new.clone());
        }
    };
    for key in ["id", "parent_id"] {
        if let Some(v) = m.get_mut(key) {
            swap(v);
        }
    }
    if let Some(Value::Array(deps)) = m.get_mut("dependencies") {
        for dep in deps {
            match dep {
                Value::Object(d) => {
                    if let Some(v) = d.get_mut("id") {
                        swap(v);
                    }
                }
                other => swap(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_and_every_reference_move_together_in_each_form() {
        let list = json!([
            {"id": "r", "name": "root", "dependencies": [{"id": "a", "required": true}, "b", "elsewhere"]},
            {"id": "a", "name": "a", "parent_id": "r", "inputs": {"id": "a"}},
            {"id": "b", "name": "b", "parent_id": "r", "dependencies": ["a"]},
        ]);
        for mut doc in [
            list.clone(),
            json!({"tasks": list.clone()}),
            json!({"task": list[0], "children": [{"task": list[1]}, {"task": list[2]}]}),
        ] {
            renew(&mut doc);
            let text = doc.to_string();
            let tasks: Vec<Value> = match &doc {
                Value::Array(t) => t.clone(),
                Value::Object(m) if m.contains_key("tasks") => {
                    m["tasks"].as_array().unwrap().clone()
                }
                _ => vec![
                    doc["task"].clone(),
                    doc["children"][0]["task"].clone(),
                    doc["children"][1]["task"].clone(),
                ],
            };
            let (r, a, b) = (&tasks[0]["id"], &tasks[1]["id"], &tasks[2]["id"]);
            assert!(
                r.as_str().unwrap().len() == 36 && r != a && a != b,
                "{text}"
            );
            assert_eq!(
                tasks[0]["dependencies"],
                json!([{"id": a, "required": true}, b, "elsewhere"])
            );
            assert_eq!(tasks[1]["parent_id"], *r);
            assert_eq!(tasks[2]["dependencies"], json!([a]));
            // A task's inputs are its executor's business, never renamed.
            assert_eq!(tasks[1]["inputs"], json!({"id": "a"}));
        }
    }
}
