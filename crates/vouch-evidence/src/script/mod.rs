//! A recorded shell command read as bash reads it: which programs it runs, and which of them
//! must have succeeded when the whole command exited 0 — the ones whose exit status is the
//! command's own. `npm test || true` runs `npm test` but exits 0 whatever it did; strict
//! evidence needs to tell that from `npm test`.
//!
//! The parse is brush-parser's (bash syntax: pipelines, `&&`/`||`, subshells, `[[ ]]`,
//! here-docs, `$'…'`). The walk over its tree lives in [`walk`]; how one simple command is
//! read (assignments, wrappers such as `env` and `timeout`, `bash -lc '…'`) in [`words`].

mod guard;
mod walk;
mod words;
mod worker;

use std::fmt;

/// How long the parser may take over one command.
const PARSE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Programs that print their arguments.
pub(crate) const ECHOES: &[&str] = &["echo", "printf", "yes", "figlet", "banner"];

/// A shell command, analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    text: String,
    claims: Vec<Claim>,
    writes: Vec<String>,
    unreadable: Option<String>,
}

/// A program a script runs: what a report may claim it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// Its words, quotes removed, with leading variable assignments and transparent wrappers
    /// (`env`, `timeout 60`, `nice`, `command`, `exec`) dropped.
    pub words: Vec<String>,
    /// Why its exit status does not decide the script's (`` `|| true` runs when it fails``);
    /// `None` when it does: the script exiting 0 means it succeeded.
    pub masked: Option<String>,
    /// Whether it reads text the script itself holds on its standard input (a here-doc or a
    /// here-string).
    pub reads_inline_text: bool,
    /// Whether it runs inside another command's words (`$(…)`, `<(…)`): an input to that
    /// command, whose status is lost but does not stand for the script's.
    pub inner: bool,
}

impl Claim {
    /// Returns its words joined by single spaces (`cargo test --workspace`).
    pub fn text(&self) -> String {
        self.words.join(" ")
    }

    /// Returns the program's name without its directory (`echo` for `/bin/echo`).
    pub fn program(&self) -> &str {
        self.words
            .first()
            .map_or("", |w| w.rsplit('/').next().unwrap_or(w))
    }

    /// Returns its arguments.
    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or_default()
    }

    /// Returns true when the program prints its own arguments (`echo`, `printf`): whatever
    /// command it names, it runs none.
    pub fn echoes(&self) -> bool {
        ECHOES.contains(&self.program())
    }
}

impl Script {
    /// Parses and analyses `text`. Never fails: a text that cannot be parsed is a script with a
    /// reason in [`Script::unreadable`] and no claims.
    pub fn parse(text: &str) -> Script {
        let ((claims, writes), unreadable) = match analyse(text) {
            Ok(walked) => (walked, None),
            Err(reason) => ((Vec::new(), Vec::new()), Some(reason)),
        };
        Script {
            text: text.to_owned(),
            claims,
            writes,
            unreadable,
        }
    }

    /// Returns the text as recorded.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Returns every program it runs, in order.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// Returns the files it writes, as spelled: redirection targets (`> out.txt`), `tee`
    /// arguments, the destination of `cp`, `mv`, `install`, `ln`, `rsync`, and `dd of=`.
    pub fn writes(&self) -> &[String] {
        &self.writes
    }

    /// Returns why it could not be read, `None` when it could.
    pub fn unreadable(&self) -> Option<&str> {
        self.unreadable.as_deref()
    }

    /// Returns the programs that must have succeeded when the script exited 0.
    pub fn guaranteed(&self) -> impl Iterator<Item = &Claim> {
        self.claims.iter().filter(|c| c.masked.is_none())
    }

    /// Returns the first program whose status the script masks, `None` when none is; the
    /// inputs computed inside other commands' words (`$(…)`) aside.
    pub fn first_masked(&self) -> Option<&Claim> {
        self.claims.iter().find(|c| c.masked.is_some() && !c.inner)
    }

    /// Returns true when the script runs something and its exit status is that of every
    /// program it runs: it could be read, and nothing in it is masked (inputs computed inside
    /// other commands' words aside).
    pub fn status_is_own(&self) -> bool {
        self.unreadable.is_none()
            && self.claims.iter().any(|c| !c.inner)
            && self.first_masked().is_none()
    }

    /// Returns true when this script, having exited 0, shows that every program `reported`
    /// runs succeeded: `reported` runs something, and each of its programs is one this script
    /// runs with its status unmasked (same words; `cd`, assignments and wrappers aside).
    pub fn backs(&self, reported: &Script) -> bool {
        !reported.claims.is_empty()
            && reported
                .claims
                .iter()
                .all(|r| self.guaranteed().any(|c| c.words == r.words))
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses `text` and walks it.
fn analyse(text: &str) -> Result<(Vec<Claim>, Vec<String>), String> {
    walk::program(&analyse_nested(text, 0)?, 0)
}

/// Parses `text`, a script `depth` layers of `bash -c` deep, within the limits vouch reads.
fn analyse_nested(text: &str, depth: usize) -> Result<brush_parser::ast::Program, String> {
    let text = guard::admit(text, depth)?;
    let parsed = worker::run(
        move || {
            let options = brush_parser::ParserOptions::default();
            brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &options)
                .parse_program()
        },
        PARSE_DEADLINE,
    );
    match parsed {
        Ok(program) => program.map_err(|e| format!("bash cannot parse it ({e})")),
        Err(failed) => Err(worker_failed(failed)),
    }
}

/// Returns why a command is unreadable when the parser's worker gave no answer.
fn worker_failed(failed: worker::Failed) -> String {
    match failed {
        worker::Failed::Panicked => "bash's grammar as vouch reads it fails on it".to_owned(),
        worker::Failed::TooSlow => format!(
            "reading it took longer than {} s, far longer than any real command",
            PARSE_DEADLINE.as_secs()
        ),
        worker::Failed::NoThread => "vouch could not start a thread to read it".to_owned(),
    }
}

#[cfg(test)]
mod tests;
