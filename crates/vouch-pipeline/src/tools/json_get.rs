//! fuseraft's `Json` plugin, as vouch has it: `json_get` reads a value out of a JSON file of
//! the working directory (or of JSON text) by a dot path (`results.0.status`).

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput};
use crate::workspace::Access;

/// Answers `json_get(path | json, field)`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let text = match (
        args.get("path").and_then(Value::as_str),
        args.get("json").and_then(Value::as_str),
    ) {
        (Some(path), _) => match cx.workspace.resolve(path, Access::Read) {
            Ok(real) => match std::fs::read_to_string(&real) {
                Ok(t) => t,
                Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
            },
            Err(why) => return ToolOutput::denied(why.to_string()),
        },
        (None, Some(json)) => json.to_owned(),
        (None, None) => {
            return ToolOutput::error("give `path` (a JSON file) or `json` (JSON text)");
        }
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return ToolOutput::error(format!("not JSON: {e}")),
    };
    let field = args
        .get("field")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    let found = field
        .split('.')
        .filter(|k| !k.is_empty())
        .try_fold(&value, |v, key| match v {
            Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            other => other.get(key),
        });
    match found {
        Some(Value::String(s)) => ToolOutput::ok(s.clone()),
        Some(v) => ToolOutput::ok(serde_json::to_string_pretty(v).unwrap_or_default()),
        None => ToolOutput::error(format!("no field `{field}`")),
    }
}
