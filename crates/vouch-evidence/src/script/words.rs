//! One simple command, read: its words unquoted, assignments and transparent wrappers dropped,
//! and what kind of command it is — a program, a builtin that only sets things up, `set`,
//! `exit`, `trap`, or a shell running a script of its own (`bash -lc '…'`).

use brush_parser::ast::{
    CommandPrefixOrSuffixItem, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, SimpleCommand,
    SubshellCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};

/// What a simple command is, for the status of the script around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Simple {
    /// Assignments only, or builtins that set things up and succeed (`cd`, `export`, `true`).
    Setup,
    /// `set` with its arguments: may turn `errexit` or `pipefail` on or off.
    Set(Vec<String>),
    /// `false`: never succeeds.
    False,
    /// `exit` (or `return`) with what its status is.
    Exit(ExitStatus),
    /// `trap`: a handler that may replace the script's status.
    Trap,
    /// A shell running a script given on its command line.
    Shell {
        /// The script.
        script: String,
        /// `-e` (or `-o errexit`) was given.
        errexit: bool,
        /// `-o pipefail` was given.
        pipefail: bool,
    },
    /// Any other program.
    Program {
        /// Its words, unquoted, wrappers dropped.
        words: Vec<String>,
        /// It reads a here-doc or here-string.
        reads_inline_text: bool,
    },
}

/// The status an `exit` leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ExitStatus {
    /// A literal code.
    Code(u8),
    /// The status of the command before it (`exit`, `exit $?`).
    Previous,
    /// Something only known when it runs (`exit $code`).
    Unknown,
}

/// Builtins that set the shell up and succeed: not programs a report could claim.
const SETUP: &[&str] = &[
    "cd", "pushd", "popd", "export", "unset", "source", ".", "shopt", "ulimit", "umask", "alias",
    "unalias", "hash", "declare", "typeset", "local", "readonly", "true", ":",
];

/// Shells whose `-c` script vouch reads in place of the shell.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "ash"];

/// The scripts a simple command runs inside its words: `$(…)`, `` `…` `` and `<(…)`.
#[derive(Debug, Default)]
pub(super) struct Inner<'a> {
    /// Command substitutions' text.
    pub(super) substitutions: Vec<String>,
    /// Process substitutions.
    pub(super) processes: Vec<&'a SubshellCommand>,
    /// Why a word could not be read, when one could not.
    pub(super) unreadable: Option<String>,
}

/// Returns the scripts `command` runs inside its words.
pub(super) fn inner(command: &SimpleCommand) -> Inner<'_> {
    let mut inner = Inner::default();
    let items = command
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(command.suffix.iter().flat_map(|s| s.0.iter()));
    let mut raw: Vec<&str> = command
        .word_or_name
        .iter()
        .map(|w| w.value.as_str())
        .collect();
    for item in items {
        match item {
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                raw.push(&w.value);
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub)
            | CommandPrefixOrSuffixItem::IoRedirect(IoRedirect::File(
                _,
                _,
                IoFileRedirectTarget::ProcessSubstitution(_, sub),
            )) => inner.processes.push(sub),
            CommandPrefixOrSuffixItem::IoRedirect(_) => {}
        }
    }
    for word in raw
        .into_iter()
        .filter(|w| w.contains("$(") || w.contains('`'))
    {
        // Another crate's word parser, which fuzzing showed can backtrack for seconds: on the
        // worker, with the parser's deadline; a word it cannot read makes the command unreadable.
        let owned = word.to_owned();
        let parsed = super::worker::run(
            move || brush_parser::word::parse(&owned, &brush_parser::ParserOptions::default()),
            super::PARSE_DEADLINE,
        );
        match parsed {
            Ok(Ok(pieces)) => collect_substitutions(&pieces, &mut inner.substitutions),
            Ok(Err(_)) => {}
            Err(failed) => {
                inner.unreadable = Some(super::worker_failed(failed));
                break;
            }
        }
    }
    inner
}

fn collect_substitutions(pieces: &[WordPieceWithSource], out: &mut Vec<String>) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                out.push(s.clone());
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => collect_substitutions(inner, out),
            _ => {}
        }
    }
}

/// Returns the files a redirection writes (`> out.txt`, `>> log`, `&> all.log`).
pub(super) fn redirect_target(redirect: &IoRedirect) -> Option<String> {
    match redirect {
        IoRedirect::File(
            _,
            IoFileRedirectKind::Write
            | IoFileRedirectKind::Append
            | IoFileRedirectKind::Clobber
            | IoFileRedirectKind::ReadAndWrite,
            IoFileRedirectTarget::Filename(w),
        )
        | IoRedirect::OutputAndError(w, _) => Some(unquote(&w.value)),
        _ => None,
    }
}

/// Returns the files `command`'s redirections write.
pub(super) fn redirect_targets(command: &SimpleCommand) -> Vec<String> {
    command
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(command.suffix.iter().flat_map(|s| s.0.iter()))
        .filter_map(|item| match item {
            CommandPrefixOrSuffixItem::IoRedirect(r) => redirect_target(r),
            _ => None,
        })
        .collect()
}

/// Returns the files a program writes by its arguments: `tee FILE…`, the destination of
/// `cp`/`mv`/`install`/`ln`, `dd of=FILE`.
pub(super) fn program_writes(words: &[String]) -> Vec<String> {
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let args = || words[1..].iter().filter(|a| !a.starts_with('-'));
    match first.rsplit('/').next().unwrap_or(first) {
        "tee" => args().cloned().collect(),
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            args().next_back().cloned().into_iter().collect()
        }
        "dd" => words[1..]
            .iter()
            .filter_map(|a| a.strip_prefix("of=").map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Reads `command`.
pub(super) fn read(command: &SimpleCommand) -> Simple {
    let mut reads_inline_text = false;
    let mut words: Vec<String> = command
        .word_or_name
        .iter()
        .map(|w| unquote(&w.value))
        .collect();
    // Before the name come assignments (the program's environment) and redirections; after it,
    // arguments — an assignment there (`make CC=gcc`) is one too.
    for item in command.prefix.iter().flat_map(|p| p.0.iter()) {
        if is_inline_text(item) {
            reads_inline_text = true;
        }
    }
    for item in command.suffix.iter().flat_map(|s| s.0.iter()) {
        match item {
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                words.push(unquote(&w.value));
            }
            other => reads_inline_text |= is_inline_text(other),
        }
    }
    classify(strip_wrappers(words), reads_inline_text)
}

fn is_inline_text(item: &CommandPrefixOrSuffixItem) -> bool {
    matches!(
        item,
        CommandPrefixOrSuffixItem::IoRedirect(
            IoRedirect::HereDocument(..) | IoRedirect::HereString(..)
        )
    )
}

/// Drops leading `NAME=value` words and wrappers that run the rest with the same status.
fn strip_wrappers(mut words: Vec<String>) -> Vec<String> {
    loop {
        let skip = leading_assignments(&words).max(wrapper_len(&words));
        if skip == 0 || skip >= words.len() {
            return words;
        }
        words.drain(..skip);
    }
}

fn leading_assignments(words: &[String]) -> usize {
    words.iter().take_while(|w| is_assignment(w)).count()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Returns how many words a transparent wrapper at the front takes (its name and options),
/// 0 when the first word is none.
fn wrapper_len(words: &[String]) -> usize {
    let Some(first) = words.first() else {
        return 0;
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    let rest = &words[1..];
    // Options of each wrapper that take a value as the next word.
    let (valued, positional): (&[&str], usize) = match name {
        "env" => (&["-u", "-C", "-S", "--unset", "--chdir"], 0),
        "timeout" => (&["-s", "-k", "--signal", "--kill-after"], 1),
        "nice" => (&["-n", "--adjustment"], 0),
        "stdbuf" => (&["-i", "-o", "-e"], 0),
        "time" => (&["-f", "-o", "--format", "--output"], 0),
        "command" | "exec" | "nohup" | "builtin" => (&["-a"], 0),
        _ => return 0,
    };
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if !word.starts_with('-') || word == "-" {
            break;
        }
        i += if valued.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    1 + (i + positional).min(rest.len())
}

fn classify(words: Vec<String>, reads_inline_text: bool) -> Simple {
    let Some(first) = words.first() else {
        return Simple::Setup;
    };
    let name = first.rsplit('/').next().unwrap_or(first).to_owned();
    match name.as_str() {
        "set" => Simple::Set(words[1..].to_vec()),
        "false" => Simple::False,
        "trap" => Simple::Trap,
        "exit" | "return" => Simple::Exit(match words.get(1).map(String::as_str) {
            None | Some("$?") => ExitStatus::Previous,
            Some(code) => code.parse::<i64>().map_or(ExitStatus::Unknown, |c| {
                u8::try_from(c.rem_euclid(256)).map_or(ExitStatus::Unknown, ExitStatus::Code)
            }),
        }),
        n if SETUP.contains(&n) => Simple::Setup,
        n if SHELLS.contains(&n) => shell(&words).unwrap_or(Simple::Program {
            words,
            reads_inline_text,
        }),
        _ => Simple::Program {
            words,
            reads_inline_text,
        },
    }
}

/// Reads `bash [options] -c SCRIPT …`; `None` when the shell runs no `-c` script.
fn shell(words: &[String]) -> Option<Simple> {
    let (mut errexit, mut pipefail, mut command_mode) = (false, false, false);
    let mut args = words[1..].iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-o" | "+o" => {
                let on = arg.starts_with('-');
                match args.next().map(String::as_str) {
                    Some("errexit") => errexit = on,
                    Some("pipefail") => pipefail = on,
                    _ => {}
                }
            }
            "--" => break,
            a if a.starts_with("--") => {}
            a if a.starts_with('-') && a.len() > 1 => {
                command_mode |= a.contains('c');
                if a.contains('e') {
                    errexit = true;
                }
            }
            a if a.starts_with('+') && a.len() > 1 => {
                if a.contains('e') {
                    errexit = false;
                }
            }
            script if command_mode => {
                return Some(Simple::Shell {
                    script: script.to_owned(),
                    errexit,
                    pipefail,
                });
            }
            _ => return None,
        }
    }
    let script = args.next().filter(|_| command_mode)?;
    Some(Simple::Shell {
        script: script.clone(),
        errexit,
        pipefail,
    })
}

/// Removes one layer of bash quoting from a word: `'…'` literally, `"…"` with its backslash
/// escapes, `$'…'` with its C escapes, and a backslash outside quotes.
pub(super) fn unquote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    out.push(next);
                }
            }
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    out.push(c);
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&n @ ('$' | '`' | '"' | '\\')) => {
                                out.push(n);
                                chars.next();
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => out.push('\\'),
                        },
                        c => out.push(c),
                    }
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            Some('r') => out.push('\r'),
                            Some(other) => out.push(other),
                            None => {}
                        },
                        c => out.push(c),
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_come_off_one_layer() {
        assert_eq!(unquote("'a b'"), "a b");
        assert_eq!(unquote("\"a \\\"b\\\" $x\""), "a \"b\" $x");
        assert_eq!(unquote("$'a\\nb'"), "a\nb");
        assert_eq!(unquote("a\\ b"), "a b");
        assert_eq!(unquote("'echo \"x y\"'"), "echo \"x y\"");
        assert_eq!(unquote("\"unterminated"), "unterminated");
    }

    #[test]
    fn wrappers_and_assignments_come_off() {
        let w = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(strip_wrappers(w("A=1 B=2 cargo test")), w("cargo test"));
        assert_eq!(
            strip_wrappers(w("env -u X A=1 cargo test")),
            w("cargo test")
        );
        assert_eq!(strip_wrappers(w("timeout -k 5 60 npm test")), w("npm test"));
        assert_eq!(
            strip_wrappers(w("nice -n 5 go test ./...")),
            w("go test ./...")
        );
        assert_eq!(strip_wrappers(w("env")), w("env"));
        assert_eq!(strip_wrappers(w("timeout 60")), w("timeout 60"));
    }
}
