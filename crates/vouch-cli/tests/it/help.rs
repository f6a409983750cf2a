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
