//! Reading YAML with places: a [`Reader`] walks a tree of [`Node`]s, collecting every problem
//! with its line, column and key path instead of stopping at the first. The pipeline
//! configuration is read with it, and so are agent test files.

use std::path::PathBuf;

use regex::Regex;
use serde_saphyr::Spanned;

use crate::alternatives::{Alternatives, CommandPattern};
use crate::config::error::{ConfigError, did_you_mean};
use crate::config::model::PredicateRef;
use crate::config::node::{Location, Node};
use crate::contracts::PredicateKind;
use crate::validators::ValidatorKind;

/// Collects the problems of a YAML document while it is read.
#[derive(Debug, Default)]
pub struct Reader {
    /// The problems found so far.
    pub errors: Vec<ConfigError>,
    /// What is allowed but probably not meant (a glob that looks like a regular expression).
    pub warnings: Vec<ConfigError>,
}

/// Parses YAML text into nodes that remember their places; a syntax error is returned with
/// its line and column.
pub fn parse_yaml(text: &str) -> Result<Spanned<Node>, ConfigError> {
    serde_saphyr::from_str::<Spanned<Node>>(text).map_err(|e| {
        let location = e.location().map_or(Location::default(), |l| Location {
            line: l.line(),
            column: l.column(),
            offset: l.span().byte_offset().and_then(|o| usize::try_from(o).ok()),
            len: None,
        });
        let message = e.to_string();
        let message = message
            .lines()
            .next()
            .unwrap_or("not valid YAML")
            .to_owned();
        ConfigError {
            location,
            key_path: String::new(),
            message: format!("not valid YAML: {message}"),
            hint: None,
        }
    })
}

/// A mapping being read, with the keys already used.
#[derive(Debug)]
pub struct Map<'a> {
    pub(crate) entries: &'a [(Spanned<String>, Spanned<Node>)],
    pub(crate) used: Vec<bool>,
    /// The mapping's key path.
    pub path: String,
    /// Where the mapping starts.
    pub location: Location,
}

impl<'a> Map<'a> {
    /// Returns the entries of the mapping, in order, as keys and values.
    pub fn entries(&self) -> &'a [(Spanned<String>, Spanned<Node>)] {
        self.entries
    }

    /// Returns the keys of the mapping, as written.
    pub fn entries_keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.value.as_str())
    }

    /// Returns the value of `key` (matched case-insensitively) and its key path.
    pub fn get(&mut self, key: &str) -> Option<(&'a Spanned<Node>, String)> {
        let i = self
            .entries
            .iter()
            .position(|(k, _)| k.value.eq_ignore_ascii_case(key))?;
        self.used[i] = true;
        Some((&self.entries[i].1, join(&self.path, key)))
    }
}

/// Joins a key path and a key.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Reader {
    /// Records a problem.
    pub fn error(
        &mut self,
        location: Location,
        key_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.errors.push(ConfigError {
            location,
            key_path: key_path.to_owned(),
            message: message.into(),
            hint,
        });
    }
    /// Records something allowed but probably not meant.
    pub fn warn(
        &mut self,
        location: Location,
        key_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.warnings.push(ConfigError {
            location,
            key_path: key_path.to_owned(),
            message: message.into(),
            hint,
        });
    }

    /// Reads `node` as a mapping; reports anything else.
    pub fn map<'a>(&mut self, node: &'a Spanned<Node>, path: &str) -> Option<Map<'a>> {
        match &node.value {
            Node::Map(entries) => Some(Map {
                entries,
                used: vec![false; entries.len()],
                path: path.to_owned(),
                location: Location::of(node),
            }),
            Node::Null => Some(Map {
                entries: &[],
                used: Vec::new(),
                path: path.to_owned(),
                location: Location::of(node),
            }),
            other => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a mapping, found {}", other.kind()),
                    None,
                );
                None
            }
        }
    }
    /// Reports the keys of `map` that were not read.
    pub fn unknown_keys(&mut self, map: &Map<'_>, known: &[&str]) {
        for (i, (key, _)) in map.entries.iter().enumerate() {
            if !map.used[i] {
                let hint = did_you_mean(&key.value, known.iter().copied())
                    .map(|k| format!("did you mean `{k}`?"));
                let message = format!("unknown key `{}`", key.value);
                self.error(
                    Location::of(key),
                    &join(&map.path, &key.value),
                    message,
                    hint,
                );
            }
        }
    }
    /// Reads a string (a scalar of another kind is read as its text).
    pub fn string(&mut self, node: &Spanned<Node>, path: &str) -> Option<String> {
        match node.value.scalar() {
            Some(s) => Some(s),
            None if matches!(node.value, Node::Null) => None,
            None => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a string, found {}", node.value.kind()),
                    None,
                );
                None
            }
        }
    }
    /// Reads a list of strings; a single string is a list of one.
    pub fn strings(&mut self, node: &Spanned<Node>, path: &str) -> Vec<(String, Location)> {
        match &node.value {
            Node::Seq(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    Some((
                        self.string(item, &format!("{path}[{i}]"))?,
                        Location::of(item),
                    ))
                })
                .collect(),
            Node::Null => Vec::new(),
            _ => self
                .string(node, path)
                .map(|s| vec![(s, Location::of(node))])
                .unwrap_or_default(),
        }
    }
    /// Reads a whole number of at least 1 (a count, a length, a time): 0, a negative number
    /// and anything else are reported with why.
    pub fn positive(&mut self, node: &Spanned<Node>, path: &str) -> Option<u32> {
        let value = match &node.value {
            Node::Int(i) => Some(*i),
            Node::Str(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        let kept = value
            .and_then(|v| u32::try_from(v).ok())
            .filter(|v| *v >= 1);
        if kept.is_none() {
            let found = match value {
                Some(v) => format!("`{v}`"),
                None => node.value.kind().to_owned(),
            };
            let why = match value {
                Some(0) => " (0 would allow nothing)",
                Some(v) if v < 0 => " (a count or a length is never negative)",
                _ => "",
            };
            self.error(
                Location::of(node),
                path,
                format!("expected a whole number of at least 1, found {found}{why}"),
                None,
            );
        }
        kept
    }

    /// Reads a whole number (0 included).
    pub fn number(&mut self, node: &Spanned<Node>, path: &str) -> Option<u32> {
        let value = match &node.value {
            Node::Int(i) => u32::try_from(*i).ok(),
            Node::Str(s) => s.trim().parse().ok(),
            _ => None,
        };
        if value.is_none() {
            self.error(
                Location::of(node),
                path,
                format!("expected a whole number, found {}", node.value.kind()),
                None,
            );
        }
        value
    }
    /// Compiles a regular expression written at `location`.
    pub fn regex(&mut self, pattern: &str, location: Location, path: &str) -> Option<Regex> {
        match Regex::new(pattern) {
            Ok(re) => Some(re),
            Err(e) => {
                let detail = e.to_string();
                let last = detail.lines().last().unwrap_or("").trim().to_owned();
                self.error(
                    location,
                    path,
                    format!("invalid regex `{pattern}`: {last}"),
                    None,
                );
                None
            }
        }
    }
    /// Reads `RequiredCommandPattern` and `ShellFallbackPattern` of a mapping.
    pub fn patterns(&mut self, m: &mut Map<'_>) -> (Option<Alternatives>, Option<Alternatives>) {
        let mut pattern = |key: &str| {
            m.get(key)
                .and_then(|(n, p)| self.string(n, &p))
                .map(|s| Alternatives::new(&s))
                .filter(|a| !a.is_empty())
        };
        (
            pattern("RequiredCommandPattern"),
            pattern("ShellFallbackPattern"),
        )
    }
    /// Reads one predicate, in any of its spellings: a bare name (`RelatedTestsPass`), a
    /// mapping of the name to its options (`FileExists: {Path: x}`), or a mapping with a
    /// `Type` beside the options (`Type: FileExists`, `Path: x`).
    pub fn predicate(&mut self, node: &Spanned<Node>, path: &str) -> Option<PredicateRef> {
        let location = Location::of(node);
        match &node.value {
            Node::Str(name) => {
                let kind = self.predicate_kind(name, location, path, None)?;
                Some(PredicateRef { kind, location })
            }
            Node::Map(entries) => {
                let typed = entries
                    .iter()
                    .any(|(k, _)| k.value.eq_ignore_ascii_case("Type"));
                if typed {
                    let mut m = self.map(node, path)?;
                    let (type_node, type_path) = m.get("Type")?;
                    let name = self.string(type_node, &type_path)?;
                    let kind =
                        self.predicate_kind(&name, Location::of(type_node), path, Some(&mut m))?;
                    Some(PredicateRef { kind, location })
                } else if let [(key, value)] = entries.as_slice() {
                    let options_path = join(path, &key.value);
                    let mut m = self.map(value, &options_path)?;
                    let kind =
                        self.predicate_kind(&key.value, Location::of(key), path, Some(&mut m))?;
                    Some(PredicateRef { kind, location })
                } else {
                    self.error(
                        location,
                        path,
                        "expected one predicate: its name, `Name: {options}`, or `Type: Name` with the options beside it",
                        None,
                    );
                    None
                }
            }
            other => {
                self.error(
                    location,
                    path,
                    format!("expected a predicate, found {}", other.kind()),
                    None,
                );
                None
            }
        }
    }
    /// Reads the options of predicate `name` from `options` (none for a bare name), reporting
    /// unknown names, missing options and unknown keys.
    pub fn predicate_kind(
        &mut self,
        name: &str,
        name_location: Location,
        path: &str,
        mut options: Option<&mut Map<'_>>,
    ) -> Option<PredicateKind> {
        let name = name.trim();
        let lower = name.to_ascii_lowercase();
        let mut text = |cx: &mut Reader, key: &str| -> Option<(String, Location)> {
            let (n, p) = options.as_deref_mut()?.get(key)?;
            cx.string(n, &p)
                .filter(|s| !s.trim().is_empty())
                .map(|s| (s, Location::of(n)))
        };
        let kind = match lower.as_str() {
            "fileswritten" => {
                let source = text(self, "Source");
                let field = text(self, "Field");
                match (source, field) {
                    (Some((source, _)), Some((field, _))) => Some(PredicateKind::FilesWritten {
                        source: PathBuf::from(source),
                        field,
                    }),
                    _ => {
                        self.missing(name_location, path, "FilesWritten", "`Source` and `Field`");
                        None
                    }
                }
            }
            "commandsucceeded" => {
                let field = text(self, "PatternField").map(|(f, _)| f.trim().to_owned());
                let source = text(self, "PatternSource").map(|(s, _)| PathBuf::from(s));
                let pattern = match text(self, "Pattern") {
                    Some((pattern, location)) => {
                        let pattern = CommandPattern::new(&pattern);
                        if pattern.is_empty() {
                            self.error(location, path, "the `Pattern` has no command in it", None);
                            None
                        } else {
                            Some(pattern)
                        }
                    }
                    None => None,
                };
                if pattern.is_none() && field.is_none() {
                    self.missing(
                        name_location,
                        path,
                        "CommandSucceeded",
                        "a `Pattern` or a `PatternField`",
                    );
                    None
                } else {
                    Some(PredicateKind::CommandSucceeded {
                        pattern,
                        field: field.map(|f| (source, f)),
                    })
                }
            }
            "fileexists" => match text(self, "Path") {
                Some((p, _)) => Some(PredicateKind::FileExists {
                    path: PathBuf::from(p),
                }),
                None => {
                    self.missing(name_location, path, "FileExists", "a `Path`");
                    None
                }
            },
            "testreport" => {
                let mut flag = |cx: &mut Reader, key: &str| -> bool {
                    options
                        .as_deref_mut()
                        .and_then(|m| m.get(key))
                        .and_then(|(n, p)| cx.boolean(n, &p))
                        .unwrap_or(true)
                };
                let no_failures = flag(self, "NoFailures");
                let has_assertions = flag(self, "HasAssertions");
                Some(PredicateKind::TestReport {
                    no_failures,
                    has_assertions,
                })
            }
            "relatedtestspass" => Some(PredicateKind::RelatedTestsPass),
            "toolcall" => match options.as_deref_mut() {
                Some(m) => self
                    .call_assertion(m, path)
                    .map(|a| PredicateKind::ToolCall(Box::new(a))),
                None => {
                    self.missing(name_location, path, "ToolCall", "a `tool`");
                    None
                }
            },
            "sequence" => {
                let steps = options.as_deref_mut().and_then(|m| m.get("steps"));
                match steps {
                    Some((n, p)) => {
                        let scope = options
                            .as_deref_mut()
                            .map(|m| self.scope(m))
                            .unwrap_or_default();
                        self.sequence_assertion(n, &p, scope)
                            .map(|a| PredicateKind::Sequence(Box::new(a)))
                    }
                    None => {
                        self.missing(name_location, path, "Sequence", "`steps`");
                        None
                    }
                }
            }
            _ => match ValidatorKind::from_name(name) {
                Some(kind) => {
                    let (required_command_pattern, shell_fallback_pattern) =
                        match options.as_deref_mut() {
                            Some(m) => self.patterns(m),
                            None => (None, None),
                        };
                    Some(PredicateKind::Validator {
                        kind,
                        required_command_pattern,
                        shell_fallback_pattern,
                    })
                }
                None => {
                    let known = PredicateKind::NAMES
                        .iter()
                        .copied()
                        .chain(ValidatorKind::ALL.iter().map(|k| k.name()));
                    let hint = did_you_mean(name, known)
                        .map(|k| format!("did you mean `{k}`?"))
                        .or_else(|| {
                            Some(format!(
                                "predicates: {}, or a validator's name",
                                PredicateKind::NAMES.join(", ")
                            ))
                        });
                    self.error(
                        name_location,
                        path,
                        format!("unknown predicate `{name}`"),
                        hint,
                    );
                    return None;
                }
            },
        };
        if let Some(m) = options {
            let typed_call_keys: Vec<&str>;
            let known: &[&str] = match kind.as_ref() {
                Some(PredicateKind::FilesWritten { .. }) => &["Type", "Source", "Field"],
                Some(PredicateKind::CommandSucceeded { .. }) => {
                    &["Type", "Pattern", "PatternField", "PatternSource"]
                }
                Some(PredicateKind::FileExists { .. }) => &["Type", "Path"],
                Some(PredicateKind::TestReport { .. }) => &["Type", "NoFailures", "HasAssertions"],
                Some(PredicateKind::Validator { .. }) => {
                    &["Type", "RequiredCommandPattern", "ShellFallbackPattern"]
                }
                Some(PredicateKind::ToolCall(_)) => {
                    typed_call_keys = std::iter::once("Type")
                        .chain(crate::assertions::CALL_KEYS.iter().copied())
                        .collect();
                    &typed_call_keys
                }
                Some(PredicateKind::Sequence(_)) => &["Type", "steps", "agent", "subagent"],
                _ => &["Type"],
            };
            let _ = m.get("Type");
            self.unknown_keys(m, known);
        }
        kind
    }
    /// Records that predicate `name` lacks `what`.
    pub fn missing(&mut self, location: Location, path: &str, name: &str, what: &str) {
        self.error(
            location,
            path,
            format!("predicate `{name}` needs {what}"),
            None,
        );
    }
    /// Reads `true` or `false`.
    pub fn boolean(&mut self, node: &Spanned<Node>, path: &str) -> Option<bool> {
        let value = match &node.value {
            Node::Bool(b) => Some(*b),
            Node::Str(s) if s.trim().eq_ignore_ascii_case("true") => Some(true),
            Node::Str(s) if s.trim().eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        };
        if value.is_none() {
            self.error(
                Location::of(node),
                path,
                format!("expected true or false, found {}", node.value.kind()),
                None,
            );
        }
        value
    }
}
