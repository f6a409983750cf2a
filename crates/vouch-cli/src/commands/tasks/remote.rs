//! `vouch tasks create|get|list|tree --server URL`: the command line as a client of
//! `vouch serve`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};
use vouch_server::client::{Client, ClientError};

use crate::commands::tasks::input::{self, Format};
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Where the server is, and how to prove who is asking.
#[derive(Debug, Args)]
pub(crate) struct ServerArgs {
    /// The server, e.g. http://127.0.0.1:8765
    #[arg(long, value_name = "URL")]
    server: String,

    /// Send the bearer token held by this environment variable
    #[arg(long, value_name = "NAME")]
    token_env: Option<String>,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Create a task tree on a server (`tasks.create`), and start it with --execute
///
/// The document is any form `vouch tasks validate` reads; tasks without `id` get one, a tree
/// node's children get their parent. The server validates it with every rule and answers all
/// problems at once (exit 1). Exit codes: 0 created, 1 refused, 2 unreadable or unreachable.
#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// The task document; `-` reads standard input
    #[arg(value_name = "FILE")]
    path: PathBuf,

    /// Start the tree at once (`tasks.execute`)
    #[arg(long)]
    execute: bool,

    /// Give every task of the document a new id (and move `parent_id` and `dependencies` with
    /// them), to create a tree kept as a template again
    #[arg(long)]
    new_ids: bool,

    #[command(flatten)]
    server: ServerArgs,
}

/// Show one task stored on a server (`tasks.get`)
#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The task's id
    #[arg(value_name = "ID")]
    id: String,

    #[command(flatten)]
    server: ServerArgs,
}

/// List the tasks stored on a server (`tasks.list`)
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only tasks with this status
    #[arg(long)]
    status: Option<String>,

    /// Only tasks of this user
    #[arg(long, value_name = "ID")]
    user: Option<String>,

    /// Only roots of trees
    #[arg(long)]
    roots: bool,

    /// At most this many (the server allows 1000)
    #[arg(long, default_value_t = 100)]
    limit: u64,

    /// Skip this many first
    #[arg(long, default_value_t = 0)]
    offset: u64,

    #[command(flatten)]
    server: ServerArgs,
}

/// Show the tree under a task stored on a server (`tasks.tree`)
#[derive(Debug, Args)]
pub(crate) struct TreeArgs {
    /// The task's id (a root shows its whole tree)
    #[arg(value_name = "ID")]
    id: String,

    #[command(flatten)]
    server: ServerArgs,
}

fn client(args: &ServerArgs) -> Result<Client, CommandError> {
    let token = match &args.token_env {
        None => None,
        Some(name) => Some(std::env::var(name).map_err(|_| {
            CommandError::input(format!("--token-env {name}: the variable is not set"))
        })?),
    };
    Ok(Client::new(&args.server, token))
}

/// Calls `method`; a refusal is printed (exit 1), an unreachable server is an input error.
fn call(
    args: &ServerArgs,
    method: &str,
    params: &Value,
    ui: &mut Ui,
) -> Result<Result<Value, u8>, CommandError> {
    match client(args)?.call(method, params) {
        Ok(v) => Ok(Ok(v)),
        Err(ClientError::Rpc {
            code,
            message,
            data,
        }) => {
            if args.format == Format::Json {
                let error = json!({"code": code, "message": message, "data": data});
                serde_json::to_writer_pretty(&mut ui.out, &json!({"error": error}))
                    .map_err(std::io::Error::from)?;
                writeln!(ui.out)?;
            } else {
                writeln!(ui.out, "{method} refused: {message} ({code})")?;
                let errors = data
                    .as_ref()
                    .and_then(|d| d.get("errors"))
                    .and_then(Value::as_array);
                for e in errors.into_iter().flatten() {
                    let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
                    writeln!(
                        ui.out,
                        "  {}: {} ({})",
                        text("path"),
                        text("reason"),
                        e.get("code").unwrap_or(&Value::Null)
                    )?;
                }
                if let Some(reason) = data
                    .as_ref()
                    .and_then(|d| d.get("reason").or(Some(d)))
                    .filter(|_| errors.is_none())
                {
                    let reason = reason
                        .as_str()
                        .map_or_else(|| reason.to_string(), str::to_owned);
                    writeln!(ui.out, "  {reason}")?;
                }
            }
            Ok(Err(exit_codes::CHECK_FAILED))
        }
        Err(e) => Err(CommandError::input(e.to_string())),
    }
}

fn print_json(ui: &mut Ui, value: &Value) -> Result<(), CommandError> {
    serde_json::to_writer_pretty(&mut ui.out, value).map_err(std::io::Error::from)?;
    writeln!(ui.out)?;
    Ok(())
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("-")
}

/// Runs `vouch tasks create`.
pub(crate) fn create(args: &CreateArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let name = input::display(&args.path);
    let text_in = input::read(&args.path)?;
    let mut doc: Value = serde_json::from_str(&text_in)
        .map_err(|e| CommandError::input(format!("{name}:{}:{}: {e}", e.line(), e.column())))?;
    if args.new_ids {
        super::new_ids::renew(&mut doc);
    }
    let params = match doc {
        Value::Array(_) => json!({"tasks": doc}),
        other => other,
    };
    let method = if args.execute {
        "tasks.execute"
    } else {
        "tasks.create"
    };
    let answer = match call(&args.server, method, &params, ui)? {
        Ok(v) => v,
        Err(code) => return Ok(code),
    };
    if args.server.format == Format::Json {
        print_json(ui, &answer)?;
    } else {
        let count = answer.get("count").and_then(Value::as_u64).unwrap_or(0);
        writeln!(
            ui.out,
            "created {count} task(s); root {}",
            text(&answer, "root_id")
        )?;
        if args.execute {
            writeln!(
                ui.out,
                "queued {}",
                answer.get("queued").unwrap_or(&Value::Null)
            )?;
        }
    }
    Ok(exit_codes::PASS)
}

/// Runs `vouch tasks get`.
pub(crate) fn get(args: &GetArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    match call(&args.server, "tasks.get", &json!({"task_id": args.id}), ui)? {
        Ok(task) => {
            print_json(ui, &task)?;
            Ok(exit_codes::PASS)
        }
        Err(code) => Ok(code),
    }
}

/// Runs `vouch tasks list`.
pub(crate) fn list(args: &ListArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let mut params = json!({"limit": args.limit, "offset": args.offset, "root_only": args.roots});
    if let Some(s) = &args.status {
        params["status"] = json!(s);
    }
    if let Some(u) = &args.user {
        params["user_id"] = json!(u);
    }
    let answer = match call(&args.server, "tasks.list", &params, ui)? {
        Ok(v) => v,
        Err(code) => return Ok(code),
    };
    if args.server.format == Format::Json {
        print_json(ui, &answer)?;
        return Ok(exit_codes::PASS);
    }
    let tasks = answer
        .get("tasks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for t in &tasks {
        writeln!(
            ui.out,
            "{}  {:<11}  p{}  {}",
            text(t, "id"),
            text(t, "status"),
            t.get("priority").unwrap_or(&Value::Null),
            text(t, "name")
        )?;
    }
    writeln!(
        ui.out,
        "{} of {} task(s)",
        tasks.len(),
        answer.get("total").unwrap_or(&Value::Null)
    )?;
    Ok(exit_codes::PASS)
}

/// Runs `vouch tasks tree`.
pub(crate) fn tree(args: &TreeArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let answer = match call(&args.server, "tasks.tree", &json!({"task_id": args.id}), ui)? {
        Ok(v) => v,
        Err(code) => return Ok(code),
    };
    if args.server.format == Format::Json {
        print_json(ui, &answer)?;
        return Ok(exit_codes::PASS);
    }
    let mut stack = vec![(&answer, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        let task = node.get("task").unwrap_or(&Value::Null);
        writeln!(
            ui.out,
            "{}{} [{}] {}",
            "  ".repeat(depth),
            text(task, "name"),
            text(task, "status"),
            text(task, "id")
        )?;
        if let Some(children) = node.get("children").and_then(Value::as_array) {
            stack.extend(children.iter().rev().map(|c| (c, depth + 1)));
        }
    }
    Ok(exit_codes::PASS)
}
