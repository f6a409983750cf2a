//! The walk over a parsed script: for every program it runs, whether the script exiting 0
//! means that program succeeded, and if not, why not.
//!
//! Each construct is read as bash runs it. `a && b` exits 0 only when both did; `a || b` and
//! `a; b` exit 0 whatever `a` did (unless `b` is a failing `exit`, or `set -e` is on); a
//! pipeline's status is its last command's unless `pipefail` is on; `!`, `&`, conditions,
//! branches and loops decide their own status. Wherever a program's status is lost, the walk
//! writes down the construct that lost it.

use brush_parser::ast::{
    AndOr, AndOrList, Command, CompoundCommand, CompoundList, CompoundListItem, Pipeline, Program,
    SeparatorOperator,
};

use super::words::{self, ExitStatus, Simple};
use super::{Claim, analyse_nested};

/// The shell options that change how statuses combine.
#[derive(Debug, Clone, Copy, Default)]
struct Options {
    /// `set -e`: a failing command ends the script.
    errexit: bool,
    /// `set -o pipefail`: a pipeline fails when any of its commands does.
    pipefail: bool,
}

/// What a piece of a script does to the status.
#[derive(Debug, Clone, Default)]
struct Flow {
    /// The claims that succeeded when this piece exited 0.
    ok: Vec<usize>,
    /// It never exits 0 (`false`, `exit 1`).
    fails: bool,
    /// Its status is that of the command before it (`exit`, `exit $?`).
    echoes_previous: bool,
    /// It always ends the shell it runs in (an unconditional `exit`).
    ends: bool,
    /// When it fails, the shell ends with a failure: the shell exiting 0 means it succeeded.
    fatal: bool,
}

/// Walks a script, collecting claims.
struct Walker {
    claims: Vec<Claim>,
    /// The files the script writes: redirection targets, `tee`, `cp` destinations, …
    writes: Vec<String>,
    depth: usize,
    trapped: bool,
    /// Why the script cannot be read after all (a word the parser could not read in time).
    unreadable: Option<String>,
}

/// Returns the claims of `program`, each marked with whether its status is the script's, and
/// the files it writes; `depth` counts the `bash -c` layers around it.
pub(super) fn program(
    program: &Program,
    depth: usize,
) -> Result<(Vec<Claim>, Vec<String>), String> {
    let mut walker = Walker {
        claims: Vec::new(),
        writes: Vec::new(),
        depth,
        trapped: false,
        unreadable: None,
    };
    let mut options = Options::default();
    let flow = walker.sequence(
        program.complete_commands.iter().flat_map(|l| l.0.iter()),
        &mut options,
    );
    if let Some(why) = walker.unreadable.take() {
        return Err(why);
    }
    Ok(walker.finish(&flow))
}

impl Walker {
    /// Marks every claim: unmasked when in `flow.ok`, masked (with the reason recorded where
    /// it was lost, or a general one) otherwise.
    fn finish(mut self, flow: &Flow) -> (Vec<Claim>, Vec<String>) {
        for (i, claim) in self.claims.iter_mut().enumerate() {
            if self.trapped {
                claim.masked = Some("a `trap` in the command can replace its exit status".into());
            } else if flow.ok.contains(&i) {
                claim.masked = None;
            } else if claim.masked.is_none() {
                claim.masked = Some("its status does not decide the command's".into());
            }
        }
        (self.claims, self.writes)
    }

    /// Records `reason` for the claims `ids` that have none yet.
    fn mask(&mut self, ids: &[usize], reason: &str) {
        for &i in ids {
            if let Some(claim) = self.claims.get_mut(i)
                && claim.masked.is_none()
            {
                claim.masked = Some(reason.to_owned());
            }
        }
    }

    /// Records `reason` for every claim from index `from` on that has none yet.
    fn mask_from(&mut self, from: usize, reason: &str) {
        let ids: Vec<usize> = (from..self.claims.len()).collect();
        self.mask(&ids, reason);
    }

    /// Walks a piece whose status never decides the script's, masking all its claims.
    fn walk_masked(&mut self, reason: &str, walk: impl FnOnce(&mut Walker)) -> Flow {
        let from = self.claims.len();
        walk(self);
        self.mask_from(from, reason);
        Flow::default()
    }

    /// Walks items run one after another (`;`, newlines, `&`).
    fn sequence<'a>(
        &mut self,
        items: impl Iterator<Item = &'a CompoundListItem>,
        options: &mut Options,
    ) -> Flow {
        let mut guaranteed: Vec<usize> = Vec::new();
        let mut last: Option<Flow> = None;
        let mut ended = false;
        for CompoundListItem(list, separator) in items {
            if ended {
                self.walk_masked("it comes after an `exit`, so it never runs", |w| {
                    w.and_or(list, &mut options.clone());
                });
                continue;
            }
            let flow = if matches!(separator, SeparatorOperator::Async) {
                self.walk_masked(
                    "it runs in the background (`&`), and nothing waits for its status",
                    |w| {
                        w.and_or(list, &mut options.clone());
                    },
                )
            } else {
                self.and_or(list, options)
            };
            let mut flow = flow;
            if let Some(previous) = last.take() {
                if flow.echoes_previous {
                    flow.ok.extend(previous.ok);
                } else if previous.fatal {
                    guaranteed.extend(previous.ok);
                } else {
                    self.mask(
                        &previous.ok,
                        &format!(
                            "`{}` runs after it, and the status is that of what runs last",
                            clip(&list.to_string())
                        ),
                    );
                }
            }
            ended = flow.ends;
            last = Some(flow);
        }
        let mut flow = last.unwrap_or_default();
        flow.ok.extend(guaranteed);
        flow
    }

    /// Walks a list of pipelines joined by `&&` and `||`.
    fn and_or(&mut self, list: &AndOrList, options: &mut Options) -> Flow {
        let mut flow = self.pipeline(&list.first, options);
        let negated = list.first.bang;
        let mut last_or_fails = false;
        let mut before = list.first.to_string();
        for op in &list.additional {
            match op {
                AndOr::And(p) => {
                    let next = self.pipeline(p, options);
                    if !next.echoes_previous {
                        flow.ok.extend(next.ok);
                        flow.fails |= next.fails;
                    }
                    flow.ends = false;
                    flow.fatal = false;
                    flow.echoes_previous = false;
                    last_or_fails = false;
                    before = format!("{before} && {p}");
                }
                AndOr::Or(p) => {
                    let next = self.pipeline(p, options);
                    if next.fails || next.echoes_previous {
                        // `a || exit 1`: the list exits 0 only when `a` did.
                        self.mask(
                            &next.ok,
                            &format!("it runs only when `{}` fails", clip(&before)),
                        );
                        flow.fatal = next.ends;
                        last_or_fails = true;
                    } else {
                        self.mask(
                            &flow.ok,
                            &format!(
                                "`|| {}` runs when it fails, and its status replaces the failure",
                                clip(&p.to_string())
                            ),
                        );
                        self.mask(
                            &next.ok,
                            &format!("it runs only when `{}` fails", clip(&before)),
                        );
                        flow = Flow::default();
                        last_or_fails = false;
                    }
                    flow.ends = false;
                    flow.echoes_previous = false;
                    before = format!("{before} || {p}");
                }
            }
        }
        // `set -e` ends the script when a lone pipeline fails, or the command after the last
        // `||` does; not when a command before `&&` does.
        if options.errexit
            && ((list.additional.is_empty() && !negated) || last_or_fails)
            && !flow.echoes_previous
        {
            flow.fatal = true;
        }
        flow
    }

    /// Walks a pipeline (`a | b`, `! a`).
    fn pipeline(&mut self, pipeline: &Pipeline, options: &mut Options) -> Flow {
        if pipeline.bang {
            return self.walk_masked(
                "it is negated with `!`, so the command exits 0 when it fails",
                |w| {
                    for c in &pipeline.seq {
                        w.command(c, &mut options.clone());
                    }
                },
            );
        }
        if let [only] = pipeline.seq.as_slice() {
            return self.command(only, options);
        }
        // Each command of a longer pipeline runs in a subshell of its own.
        let flows: Vec<Flow> = pipeline
            .seq
            .iter()
            .map(|c| self.command(c, &mut options.clone()))
            .collect();
        let Some((last, earlier)) = flows.split_last() else {
            return Flow::default();
        };
        let mut flow = Flow {
            ok: last.ok.clone(),
            fails: last.fails,
            ..Flow::default()
        };
        if options.pipefail {
            for f in earlier {
                flow.ok.extend(&f.ok);
                flow.fails |= f.fails;
            }
        } else {
            let last_text = pipeline.seq.last().map(ToString::to_string);
            let reason = format!(
                "`| {}` decides the pipeline's status (pipefail is off)",
                clip(last_text.as_deref().unwrap_or(""))
            );
            for f in earlier {
                self.mask(&f.ok, &reason);
            }
        }
        flow
    }

    /// Walks one command.
    fn command(&mut self, command: &Command, options: &mut Options) -> Flow {
        match command {
            Command::Simple(simple) => {
                self.inner(&words::inner(simple), *options);
                self.writes.extend(words::redirect_targets(simple));
                self.simple(words::read(simple), options)
            }
            Command::Compound(compound, redirects) => {
                self.writes.extend(
                    redirects
                        .iter()
                        .flat_map(|r| r.0.iter())
                        .filter_map(words::redirect_target),
                );
                self.compound(compound, options)
            }
            Command::Function(f) => self.walk_masked(
                "it is inside a function definition, which does not run it",
                |w| {
                    w.compound(&f.body.0, &mut options.clone());
                },
            ),
            Command::ExtendedTest(..) => Flow::default(),
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, options: &mut Options) -> Flow {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list, options),
            CompoundCommand::Subshell(sub) => {
                let mut flow = self.list(&sub.list, &mut options.clone());
                flow.ends = false;
                flow.fatal = false;
                flow
            }
            CompoundCommand::IfClause(clause) => {
                self.walk_masked("it runs in an `if`, whose status is not its own", |w| {
                    let mut o = *options;
                    w.list(&clause.condition, &mut o);
                    w.list(&clause.then, &mut o.clone());
                    for e in clause.elses.iter().flatten() {
                        if let Some(c) = &e.condition {
                            w.list(c, &mut o.clone());
                        }
                        w.list(&e.body, &mut o.clone());
                    }
                })
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => self
                .walk_masked(
                    "it runs in a loop, whose status is that of its last round",
                    |w| {
                        w.list(&clause.0, &mut options.clone());
                        w.list(&clause.1.list, &mut options.clone());
                    },
                ),
            CompoundCommand::ForClause(clause) => self.walk_masked(
                "it runs in a loop, whose status is that of its last round",
                |w| {
                    w.list(&clause.body.list, &mut options.clone());
                },
            ),
            CompoundCommand::ArithmeticForClause(clause) => self.walk_masked(
                "it runs in a loop, whose status is that of its last round",
                |w| {
                    w.list(&clause.body.list, &mut options.clone());
                },
            ),
            CompoundCommand::CaseClause(clause) => self.walk_masked(
                "it runs in a branch of a `case`, which may not be taken",
                |w| {
                    for item in &clause.cases {
                        if let Some(list) = &item.cmd {
                            w.list(list, &mut options.clone());
                        }
                    }
                },
            ),
            CompoundCommand::Coprocess(co) => self.walk_masked(
                "it runs as a coprocess, and nothing waits for its status",
                |w| {
                    w.command(&co.body, &mut options.clone());
                },
            ),
            CompoundCommand::Arithmetic(_) => Flow::default(),
        }
    }

    /// Walks the scripts a command runs inside its words, whose statuses are lost.
    fn inner(&mut self, inner: &words::Inner<'_>, options: Options) {
        if let Some(why) = &inner.unreadable {
            self.unreadable.get_or_insert_with(|| why.clone());
            return;
        }
        let from = self.claims.len();
        for sub in &inner.processes {
            self.walk_masked(
                "it runs in a process substitution (`<(…)`), whose status is lost",
                |w| {
                    w.list(&sub.list, &mut { options });
                },
            );
        }
        for text in &inner.substitutions {
            self.walk_masked(
                "it runs in a command substitution (`$(…)`), whose status is lost",
                |w| {
                    w.simple(
                        Simple::Shell {
                            script: text.clone(),
                            errexit: false,
                            pipefail: false,
                        },
                        &mut options.clone(),
                    );
                },
            );
        }
        for claim in &mut self.claims[from..] {
            claim.inner = true;
        }
    }

    fn list(&mut self, list: &CompoundList, options: &mut Options) -> Flow {
        self.sequence(list.0.iter(), options)
    }

    fn simple(&mut self, simple: Simple, options: &mut Options) -> Flow {
        match simple {
            Simple::Setup => Flow::default(),
            Simple::Set(args) => {
                set(&args, options);
                Flow::default()
            }
            Simple::False => Flow {
                fails: true,
                ..Flow::default()
            },
            Simple::Exit(status) => Flow {
                fails: matches!(status, ExitStatus::Code(c) if c != 0),
                echoes_previous: status == ExitStatus::Previous,
                ends: true,
                ..Flow::default()
            },
            Simple::Trap => {
                self.trapped = true;
                Flow::default()
            }
            Simple::Shell {
                script,
                errexit,
                pipefail,
            } => {
                let inner = Options { errexit, pipefail };
                match analyse_nested(&script, self.depth + 1) {
                    Ok(program) => {
                        let mut nested = Walker {
                            claims: std::mem::take(&mut self.claims),
                            writes: std::mem::take(&mut self.writes),
                            depth: self.depth + 1,
                            trapped: false,
                            unreadable: None,
                        };
                        let mut o = inner;
                        let mut flow = nested.sequence(
                            program.complete_commands.iter().flat_map(|l| l.0.iter()),
                            &mut o,
                        );
                        self.claims = nested.claims;
                        self.writes = nested.writes;
                        self.trapped |= nested.trapped;
                        if self.unreadable.is_none() {
                            self.unreadable = nested.unreadable;
                        }
                        flow.ends = false;
                        flow.fatal = false;
                        flow.echoes_previous = false;
                        flow
                    }
                    Err(reason) => {
                        self.claims.push(Claim {
                            words: vec![script],
                            masked: Some(reason),
                            reads_inline_text: false,
                            inner: false,
                        });
                        Flow::default()
                    }
                }
            }
            Simple::Program {
                words,
                reads_inline_text,
            } => {
                self.writes.extend(words::program_writes(&words));
                self.claims.push(Claim {
                    words,
                    masked: None,
                    reads_inline_text,
                    inner: false,
                });
                Flow {
                    ok: vec![self.claims.len() - 1],
                    ..Flow::default()
                }
            }
        }
    }
}

/// Applies `set` arguments to the options (`-e`, `+e`, `-o pipefail`, `-euo pipefail`).
fn set(args: &[String], options: &mut Options) {
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        let on = arg.starts_with('-');
        if !on && !arg.starts_with('+') {
            continue;
        }
        let flags = &arg[1..];
        if flags.contains('e') {
            options.errexit = on;
        }
        if flags.contains('o') {
            match args.next().map(String::as_str) {
                Some("errexit") => options.errexit = on,
                Some("pipefail") => options.pipefail = on,
                _ => {}
            }
        }
    }
}

/// Returns `text` on one line, cut to a length a message can quote.
fn clip(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= 60 {
        one_line
    } else {
        format!("{}…", one_line.chars().take(59).collect::<String>())
    }
}
