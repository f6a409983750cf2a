//! What strict evidence accepts as a passing run, and as the source of an expected output.
//!
//! A recorded command is a passing run when it exited 0, bash can read it, it runs a program,
//! every program in it has its status kept (nothing masks a failure: `|| true`, `; exit 0`,
//! a pipe without `pipefail`, `&`, `!`, …) and its output does not show that it ran zero
//! tests. A reported command is backed when such a run ran each of its programs.

use std::fmt;

use crate::ran_nothing::{RanNothing, ran_nothing};
use crate::receipt::{Receipt, one_line};
use crate::script::{Claim, Script};

/// Why a recorded command does not count in strict mode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// It did not exit 0.
    Failed {
        /// Its exit code, when recorded.
        exit_code: Option<i64>,
    },
    /// bash (or vouch's limits) cannot read it.
    Unreadable(String),
    /// It runs no program: only builtins such as `cd`, `true` or an assignment.
    RunsNothing,
    /// A program's status is masked.
    Masked {
        /// The program (`npm test`).
        program: String,
        /// How (`` `|| true` runs when it fails… ``).
        reason: String,
    },
    /// Its output shows that it ran no test.
    RanNothing(RanNothing),
    /// A program in it only builds, lists or skips tests (`cargo test --no-run`).
    RunsNoTest {
        /// The program.
        program: String,
        /// The flag that says so.
        flag: String,
    },
    /// Its own text holds the expected output.
    HoldsSentinel(String),
    /// A program in it prints text the agent chose.
    Prints {
        /// The program (`echo 4.0`, `cat out.txt`).
        program: String,
        /// What it prints.
        what: &'static str,
    },
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Failed {
                exit_code: Some(code),
            } => write!(f, "it failed (exit {code})"),
            Rejection::Failed { exit_code: None } => write!(f, "it did not succeed"),
            Rejection::Unreadable(why) => write!(f, "vouch cannot read it: {why}"),
            Rejection::RunsNothing => write!(f, "it runs no program"),
            Rejection::Masked { program, reason } => write!(
                f,
                "it exits 0 whatever `{}` does: {reason}",
                one_line(program)
            ),
            Rejection::RanNothing(n) => write!(
                f,
                "its output shows it ran no test ({}: `{}`)",
                n.runner,
                one_line(&n.line)
            ),
            Rejection::RunsNoTest { program, flag } => write!(
                f,
                "`{}` only builds, lists or skips tests (`{flag}`)",
                one_line(program)
            ),
            Rejection::HoldsSentinel(s) => {
                write!(f, "its own text holds the expected output \"{s}\"")
            }
            Rejection::Prints { program, what } => {
                write!(f, "`{}` {what}", one_line(program))
            }
        }
    }
}

/// Returns why `receipt`, whose command reads as `script`, is not a passing run; `Ok` when it
/// is one: it exited 0, bash can read it, every program in it keeps its status, and its output
/// does not show that it ran no test.
pub fn passing_run(receipt: &Receipt, script: &Script) -> Result<(), Rejection> {
    ran(receipt, script)?;
    if let Some(claim) = script.first_masked() {
        return Err(masked(claim));
    }
    if !script.status_is_own() {
        return Err(Rejection::RunsNothing);
    }
    tests_ran(receipt, script.claims().iter())
}

/// Returns the programs `receipt` shows succeeded — those its command (read as `script`) ran
/// with their status kept — or why it shows none: it failed, cannot be read, masks every
/// program, or ran no test. Other programs in it may be masked (`mkdir -p out; cargo test`
/// shows `cargo test` passed).
pub fn passing_programs<'a>(
    receipt: &Receipt,
    script: &'a Script,
) -> Result<Vec<&'a Claim>, Rejection> {
    ran(receipt, script)?;
    let programs: Vec<&Claim> = script.guaranteed().collect();
    if programs.is_empty() {
        return Err(script.first_masked().map_or(Rejection::RunsNothing, masked));
    }
    tests_ran(receipt, programs.iter().copied())?;
    Ok(programs)
}

/// Checks that the command exited 0 and can be read.
fn ran(receipt: &Receipt, script: &Script) -> Result<(), Rejection> {
    if !receipt.run.succeeded || receipt.run.exit_code.is_some_and(|c| c != 0) {
        return Err(Rejection::Failed {
            exit_code: receipt.run.exit_code,
        });
    }
    if let Some(why) = script.unreadable() {
        return Err(Rejection::Unreadable(why.to_owned()));
    }
    Ok(())
}

/// Flags with which a test runner builds, lists or skips tests instead of running them.
const NO_RUN_FLAGS: &[&str] = &[
    "--no-run",
    "--collect-only",
    "--co",
    "--listTests",
    "--list-tests",
    "-list",
    "--show-only",
    "--dry-run",
    "-DskipTests",
    "-DskipTests=true",
    "-Dmaven.test.skip=true",
    "--passWithNoTests",
];

/// Checks that no program only builds, lists or skips tests, and that the output does not
/// show a test run of zero tests.
fn tests_ran<'a>(
    receipt: &Receipt,
    programs: impl Iterator<Item = &'a Claim>,
) -> Result<(), Rejection> {
    for claim in programs {
        let words = claim.args();
        let flag = words
            .iter()
            .find(|w| NO_RUN_FLAGS.contains(&w.as_str()))
            .cloned()
            .or_else(|| {
                // Gradle's `-x test` excludes the test task; `vitest list` lists tests.
                claim
                    .words
                    .windows(2)
                    .find(|w| {
                        (w[0] == "-x" && w[1] == "test") || (w[0] == "vitest" && w[1] == "list")
                    })
                    .map(|w| w.join(" "))
            });
        if let Some(flag) = flag {
            return Err(Rejection::RunsNoTest {
                program: claim.text(),
                flag,
            });
        }
    }
    match ran_nothing(&receipt.full_output()) {
        Some(nothing) => Err(Rejection::RanNothing(nothing)),
        None => Ok(()),
    }
}

fn masked(claim: &Claim) -> Rejection {
    Rejection::Masked {
        program: claim.text(),
        reason: claim.masked.clone().unwrap_or_default(),
    }
}

/// Programs that print files (or their standard input).
const READERS: &[&str] = &[
    "cat", "tac", "head", "tail", "nl", "more", "less", "bat", "batcat", "sed", "awk", "gawk",
    "grep", "rg", "strings", "xxd", "od", "hexdump", "jq", "column", "sort", "uniq", "cut", "tr",
    "paste", "tee", "type", "base64", "zcat", "gunzip", "rev", "fold", "fmt", "iconv", "envsubst",
];
/// Programs that compute their output from an expression typed on the command line.
const CALCULATORS: &[&str] = &["awk", "gawk", "mawk", "nawk", "bc", "dc", "expr", "seq"];
/// Interpreters, with the options that take code on the command line.
const INLINE: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("python2", &["-c"]),
    ("node", &["-e", "-p", "--eval", "--print"]),
    ("nodejs", &["-e", "-p", "--eval", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval", "-p", "--print"]),
    ("ruby", &["-e"]),
    ("perl", &["-e", "-E"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("osascript", &["-e"]),
];

/// Returns why the output of `receipt` (read as `script`) cannot show an expected output
/// `sentinel`; `Ok` when it can: it is a passing run, its text does not hold the sentinel, and
/// no program in it prints text the agent chose — arguments (`echo`, `printf`), inline text
/// (a here-doc or here-string), code typed on the command line (`python -c`, `awk`, `bc`), or
/// a file for which `written(path)` is true (one the agent wrote this session, by a tool or by
/// a command).
pub fn sentinel_source(
    receipt: &Receipt,
    script: &Script,
    sentinel: &str,
    written: &dyn Fn(&str) -> bool,
) -> Result<(), Rejection> {
    passing_run(receipt, script)?;
    if receipt
        .run
        .command
        .to_lowercase()
        .contains(&sentinel.to_lowercase())
    {
        return Err(Rejection::HoldsSentinel(sentinel.to_owned()));
    }
    for claim in script.claims() {
        let program = claim.program();
        let what = if claim.echoes() {
            Some("prints text the command itself holds")
        } else if claim.reads_inline_text {
            Some("reads text the command itself holds (a here-doc or here-string)")
        } else if READERS.contains(&program) && claim.args().iter().any(|a| written(a)) {
            Some("prints a file the agent wrote this session")
        } else if CALCULATORS.contains(&program)
            || (program == "jq" && claim.args().iter().any(|a| a == "-n"))
            || INLINE.iter().any(|(name, flags)| {
                *name == program && claim.args().iter().any(|a| flags.contains(&a.as_str()))
            })
        {
            Some("computes its output from code typed into the command")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(Rejection::Prints {
                program: claim.text(),
                what,
            });
        }
    }
    Ok(())
}

/// Why no recorded run backs a reported command.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unbacked {
    /// The reported command itself masks a status or cannot be read.
    Report(Rejection),
    /// No recorded command runs its programs.
    NoRun,
    /// A recorded command runs them, but does not count.
    Rejected {
        /// Which of the receipts.
        receipt: usize,
        /// Why.
        why: Rejection,
    },
}

/// Returns which of `receipts` (each with its command read) backs the `reported` command:
/// the first passing run that ran each of its programs with their status kept.
pub fn backing(reported: &Script, receipts: &[(Receipt, Script)]) -> Result<usize, Unbacked> {
    if let Some(why) = reported.unreadable() {
        return Err(Unbacked::Report(Rejection::Unreadable(why.to_owned())));
    }
    if reported.claims().is_empty() {
        return Err(Unbacked::Report(Rejection::RunsNothing));
    }
    if let Some(claim) = reported.first_masked() {
        return Err(Unbacked::Report(masked(claim)));
    }
    let mut first_rejected = None;
    for (i, (receipt, script)) in receipts.iter().enumerate() {
        let runs_them = reported
            .claims()
            .iter()
            .all(|r| script.claims().iter().any(|c| c.words == r.words));
        if !runs_them {
            continue;
        }
        let why = match passing_programs(receipt, script) {
            Ok(_) if script.backs(reported) => return Ok(i),
            Ok(_) => reported
                .claims()
                .iter()
                .find_map(|r| {
                    script
                        .claims()
                        .iter()
                        .find(|c| c.words == r.words && c.masked.is_some())
                })
                .map_or(Rejection::RunsNothing, masked),
            Err(why) => why,
        };
        first_rejected.get_or_insert(Unbacked::Rejected { receipt: i, why });
    }
    Err(first_rejected.unwrap_or(Unbacked::NoRun))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changelog::{ChangeEntry, CommandRun};

    fn receipt(command: &str, exit: i64, output: &str) -> (Receipt, Script) {
        let run = CommandRun {
            command: command.into(),
            succeeded: exit == 0,
            output: output.into(),
            exit_code: Some(exit),
            ..CommandRun::default()
        };
        let entry = ChangeEntry {
            agent: "Tester".into(),
            turn_index: Some(2),
            ..ChangeEntry::default()
        };
        (Receipt::of_run(&run, &entry), Script::parse(command))
    }

    #[test]
    fn passing_runs_keep_their_own_status_and_run_tests() {
        let ok = "running 3 tests\ntest result: ok. 3 passed";
        let (r, s) = receipt("cargo test", 0, ok);
        assert_eq!(passing_run(&r, &s), Ok(()));
        let (r, s) = receipt("cargo test", 101, ok);
        assert_eq!(
            passing_run(&r, &s),
            Err(Rejection::Failed {
                exit_code: Some(101)
            })
        );
        let (r, s) = receipt("cargo test || true", 0, ok);
        assert!(matches!(passing_run(&r, &s), Err(Rejection::Masked { .. })));
        let (r, s) = receipt("cargo test nope", 0, "running 0 tests\n");
        assert!(matches!(passing_run(&r, &s), Err(Rejection::RanNothing(_))));
        let (r, s) = receipt("cd app", 0, "");
        assert_eq!(passing_run(&r, &s), Err(Rejection::RunsNothing));
    }

    #[test]
    fn sentinels_come_from_programs_that_compute_them() {
        let never = |_: &str| false;
        let wrote = |p: &str| p == "out.txt";
        let check = |command: &str, written: &dyn Fn(&str) -> bool| {
            let (r, s) = receipt(command, 0, "result: 4.0");
            sentinel_source(&r, &s, "4.0", written).map_err(|e| e.to_string())
        };
        assert_eq!(check("kiwi test_include.ki", &never), Ok(()));
        assert!(check("echo 4.0", &never).is_err());
        assert!(check("echo $((2+2)).0", &never).is_err());
        assert!(check("cat out.txt", &wrote).is_err());
        assert_eq!(check("cat expected.txt", &wrote), Ok(()));
        assert!(check("python3 -c 'print(2*2.0)'", &never).is_err());
        assert!(check("cat <<EOF\nresult\nEOF", &never).is_err());
        assert!(check("kiwi t.ki --expect 4.0", &never).is_err());
    }

    #[test]
    fn reports_are_backed_by_the_same_command() {
        let receipts = [
            receipt("cargo build --release --workspace", 0, "Finished"),
            receipt("npm test || true", 0, "Tests: 1 failed, 1 total"),
            receipt("cd app && go test ./...", 0, "ok  example.com/app 0.1s"),
        ];
        let back = |c: &str| backing(&Script::parse(c), &receipts);
        assert_eq!(back("go test ./..."), Ok(2));
        assert_eq!(
            back("cargo test --release --workspace"),
            Err(Unbacked::NoRun)
        );
        assert!(matches!(
            back("npm test"),
            Err(Unbacked::Rejected { receipt: 1, .. })
        ));
        assert!(matches!(
            back("go test ./... || true"),
            Err(Unbacked::Report(_))
        ));
    }
}
