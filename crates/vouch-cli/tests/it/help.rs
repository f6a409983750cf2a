//! `--help` and `--version` read well.

use crate::support::{render, vouch};

#[test]
fn top_level_help() {
    insta::assert_snapshot!(render(&vouch(&["--help"])));
}

#[test]
fn session_help() {
    insta::assert_snapshot!(render(&vouch(&["session", "--help"])));
}

#[test]
fn session_show_help() {
    insta::assert_snapshot!(render(&vouch(&["session", "show", "--help"])));
}

#[test]
fn version() {
    let out = vouch(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("vouch {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = vouch(&["session", "show"]);
    assert_eq!(out.status.code(), Some(2));
    let out = vouch(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The subcommands `vouch <path> --help` lists (without `help`).
fn subcommands(path: &[String]) -> Vec<String> {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let text = String::from_utf8(vouch(&args).stdout).unwrap();
    let Some((_, rest)) = text.split_once("Commands:\n") else {
        return Vec::new();
    };
    rest.lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.trim().to_owned())
        .filter(|name| name != "help")
        .collect()
}

/// Every command's help, one snapshot each, in one layout: a change to any of them shows in
/// review; and every `--format` option names the page that says what JSON each prints.
#[test]
fn every_command_s_help() {
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        for sub in subcommands(&path) {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
        if path.is_empty() {
            continue;
        }
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = vouch(&args);
        assert_eq!(out.status.code(), Some(0), "{}", path.join(" "));
        let help = String::from_utf8(out.stdout).unwrap();
        if help.contains("--format <FORMAT>") {
            assert!(
                help.contains("docs/json-output.md"),
                "`vouch {} --help` does not say where its JSON is described",
                path.join(" ")
            );
        }
        insta::assert_snapshot!(format!("help_{}", path.join("_")), help);
        seen += 1;
    }
    assert!(seen >= 20, "only {seen} commands found");
}
