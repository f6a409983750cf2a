//! fuseraft's `Probe` plugin: structured checks a tester runs — `probe_code` (a snippet),
//! `probe_assert_output` (a command's output or exit code against an expectation: PASS or
//! FAIL with the evidence), `probe_compare_outputs` (two commands side by side) and
//! `probe_run_hypothesis` (given a setup, when a command runs, then an observation). Every
//! command is a `shell_run` command with its receipt.

use serde_json::{Value, json};

use crate::tools::{Effect, ToolContext, ToolOutput, shell_run, snippet, text_arg};

/// Runs one of the probe tools.
pub(super) fn run(name: &str, args: &Value, cx: &ToolContext) -> ToolOutput {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    match name {
        "probe_code" => match (text_arg(args, "language"), text_arg(args, "code")) {
            (Ok(language), Ok(code)) => snippet::run(language, code, text("directory"), cx),
            (Err(e), _) | (_, Err(e)) => e,
        },
        "probe_assert_output" => {
            let (command, expected) = match (text_arg(args, "command"), args.get("expected")) {
                (Ok(c), Some(e)) => (c, e.as_str().map_or_else(|| e.to_string(), str::to_owned)),
                (Err(e), _) => return e,
                (_, None) => return ToolOutput::error("missing the argument `expected`"),
            };
            let how = text("matchType").unwrap_or("contains");
            let mut out = command_in(command, text("directory"), cx);
            let (code, output) = observed(&out);
            let pass = match how {
                "contains" => output.contains(&expected),
                "equals" => output.trim() == expected.trim(),
                "exitcode" => code.map(|c| c.to_string()) == Some(expected.trim().to_owned()),
                "regex" => match regex::Regex::new(&expected) {
                    Ok(re) => re.is_match(&output),
                    Err(e) => {
                        return ToolOutput::error(format!(
                            "`{expected}` is not a regular expression: {e}"
                        ));
                    }
                },
                other => {
                    return ToolOutput::error(format!(
                        "unknown matchType `{other}`: contains, equals, regex or exitcode"
                    ));
                }
            };
            out.text = format!(
                "{}: `{command}` {how} `{expected}` (exit {})\n{output}",
                if pass { "PASS" } else { "FAIL" },
                code.map_or_else(|| "none".to_owned(), |c| c.to_string())
            );
            out
        }
        "probe_compare_outputs" => match (text_arg(args, "commandA"), text_arg(args, "commandB")) {
            (Ok(a), Ok(b)) => {
                let (mut first, second) = (
                    command_in(a, text("directory"), cx),
                    command_in(b, text("directory"), cx),
                );
                let same = observed(&first).1 == observed(&second).1;
                first.text = format!(
                    "A: `{a}`\n{}\n\nB: `{b}`\n{}\n\nThe outputs are {}.",
                    first.text,
                    second.text,
                    if same { "the same" } else { "different" }
                );
                first.effects.extend(second.effects);
                first
            }
            (Err(e), _) | (_, Err(e)) => e,
        },
        "probe_run_hypothesis" => {
            let (hypothesis, command, expectation) = match (
                text_arg(args, "hypothesis"),
                text_arg(args, "command"),
                text_arg(args, "expectedObservation"),
            ) {
                (Ok(h), Ok(c), Ok(e)) => (h, c, e),
                (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => return e,
            };
            let mut effects = Vec::new();
            if let Some(setup) = text("setupCommand") {
                let prepared = command_in(setup, text("directory"), cx);
                effects.extend(prepared.effects);
            }
            let mut out = command_in(command, text("directory"), cx);
            let (_, output) = observed(&out);
            let held = output.to_lowercase().contains(&expectation.to_lowercase());
            out.text = format!(
                "Hypothesis: {hypothesis}\nWhen: `{command}`\nExpected: {expectation}\nObserved:\n{output}\nVerdict: {}",
                if held {
                    "CONFIRMED (the output holds the expected observation)"
                } else {
                    "NOT CONFIRMED"
                }
            );
            effects.extend(out.effects);
            out.effects = effects;
            out
        }
        other => ToolOutput::error(format!("there is no tool `{other}`")),
    }
}

/// Runs `command` (in `directory`) as a `shell_run` command.
fn command_in(command: &str, directory: Option<&str>, cx: &ToolContext) -> ToolOutput {
    match directory.filter(|d| !d.trim().is_empty() && d.trim() != ".") {
        Some(dir) => match cx.workspace.resolve(dir, crate::workspace::Access::Read) {
            Ok(_) => shell_run::run(
                &json!({"command": format!("cd {} && {command}", vouch_process::shell_quote(dir))}),
                cx,
            ),
            Err(why) => ToolOutput::denied(why),
        },
        None => shell_run::run(&json!({"command": command}), cx),
    }
}

/// Returns a command's exit code and output, from its receipt.
fn observed(out: &ToolOutput) -> (Option<i32>, String) {
    out.effects
        .iter()
        .find_map(|e| match e {
            Effect::Ran(r) => Some((r.exit_code, r.output.clone())),
            _ => None,
        })
        .unwrap_or((None, out.text.clone()))
}
