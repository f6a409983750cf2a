//! Reading assertions from YAML: a test's `tool:` and `sequence:` entries, and a route's
//! `ToolCall` and `Sequence` predicates, with every problem — unknown keys, invalid patterns,
//! contradictions — reported at its place.

use serde_saphyr::Spanned;

use crate::assertions::call::{CallAssertion, Scope, ToolMatch};
use crate::assertions::matcher::{Matcher, Shape, shape};
use crate::assertions::params::{Param, Params};
use crate::assertions::sequence::SequenceAssertion;
use crate::assertions::tool::ToolName;
use crate::config::{Location, Map, Node, Reader};

/// The keys of a `tool:` entry.
pub const CALL_KEYS: &[&str] = &[
    "tool",
    "called",
    "params",
    "succeeded",
    "call_count",
    "min_calls",
    "max_calls",
    "called_after",
    "called_before",
    "nth_call_params",
    "first_call_params",
    "last_call_params",
    "agent",
    "subagent",
];

impl Reader {
    /// Reads a matcher: a bare string (read by its shape), or one of `{glob: …}`,
    /// `{regex: …, anchored: false}`, `{exact: …}`, `{contains: …}`.
    pub fn matcher(&mut self, node: &Spanned<Node>, path: &str) -> Option<Matcher> {
        let location = Location::of(node);
        if let Node::Map(_) = &node.value {
            let mut m = self.map(node, path)?;
            let mut found: Option<(&str, String, Location)> = None;
            for kind in ["glob", "regex", "exact", "contains"] {
                if let Some((n, p)) = m.get(kind)
                    && let Some(text) = self.string(n, &p)
                {
                    if found.is_some() {
                        self.error(
                            Location::of(n),
                            &p,
                            "a matcher has one of glob, regex, exact and contains",
                            None,
                        );
                    } else {
                        found = Some((kind, text, Location::of(n)));
                    }
                }
            }
            let anchored = match m.get("anchored") {
                Some((n, p)) => self.boolean(n, &p).unwrap_or(true),
                None => true,
            };
            self.unknown_keys(&m, &["glob", "regex", "exact", "contains", "anchored"]);
            let Some((kind, text, at)) = found else {
                self.error(
                    location,
                    path,
                    "a matcher needs one of glob, regex, exact or contains",
                    None,
                );
                return None;
            };
            let built = match kind {
                "glob" => Matcher::glob(&text),
                "regex" => Matcher::regex(&text, anchored),
                "exact" => Ok(Matcher::Exact(text)),
                _ => Ok(Matcher::Contains(text)),
            };
            return built
                .map_err(|e| self.error(at, path, e.to_string(), None))
                .ok();
        }
        let text = self.string(node, path)?;
        if shape(&text) == Shape::Glob && looks_like_regex(&text) {
            self.warn(
                location,
                path,
                format!("`{text}` is read as a glob"),
                Some(format!(
                    "to mean a regular expression, write `{{regex: \"{text}\", anchored: false}}`"
                )),
            );
        }
        Matcher::bare(&text)
            .map_err(|e| self.error(location, path, e.to_string(), None))
            .ok()
    }

    /// Reads `params`: a mapping of key paths to matchers.
    pub fn params(&mut self, node: &Spanned<Node>, path: &str) -> Params {
        let Node::Map(entries) = &node.value else {
            if !matches!(node.value, Node::Null) {
                self.error(
                    Location::of(node),
                    path,
                    format!(
                        "expected a mapping of parameters, found {}",
                        node.value.kind()
                    ),
                    None,
                );
            }
            return Params::default();
        };
        Params(
            entries
                .iter()
                .filter_map(|(key, value)| {
                    let p = format!("{path}.{}", key.value);
                    Some(Param {
                        key: key.value.clone(),
                        matcher: self.matcher(value, &p)?,
                    })
                })
                .collect(),
        )
    }

    /// Reads a tool name.
    pub fn tool_name(&mut self, node: &Spanned<Node>, path: &str) -> Option<ToolName> {
        let text = self.string(node, path)?;
        ToolName::new(&text)
            .map_err(|e| self.error(Location::of(node), path, e.to_string(), None))
            .ok()
    }

    /// Reads a tool and its parameters: `Read`, or `{tool: Read, params: {...}, succeeded: true}`.
    pub fn tool_match(&mut self, node: &Spanned<Node>, path: &str) -> Option<ToolMatch> {
        if !matches!(node.value, Node::Map(_)) {
            return Some(ToolMatch {
                tool: self.tool_name(node, path)?,
                params: Params::default(),
                succeeded: None,
            });
        }
        let mut m = self.map(node, path)?;
        let tool = match m.get("tool") {
            Some((n, p)) => self.tool_name(n, &p),
            None => {
                self.error(m.location, path, "a step needs a `tool`", None);
                None
            }
        };
        let params = m
            .get("params")
            .map(|(n, p)| self.params(n, &p))
            .unwrap_or_default();
        let succeeded = m.get("succeeded").and_then(|(n, p)| self.boolean(n, &p));
        self.unknown_keys(&m, &["tool", "params", "succeeded"]);
        Some(ToolMatch {
            tool: tool?,
            params,
            succeeded,
        })
    }

    /// Reads `agent:` and `subagent:` of a mapping.
    pub fn scope(&mut self, m: &mut Map<'_>) -> Scope {
        Scope {
            agent: m.get("agent").and_then(|(n, p)| self.string(n, &p)),
            subagent: m.get("subagent").and_then(|(n, p)| self.string(n, &p)),
        }
    }

    /// Reads a `tool:` entry (its keys are [`CALL_KEYS`]; the caller reports other keys),
    /// checking that its counts agree with each other and with `called`.
    pub fn call_assertion(&mut self, m: &mut Map<'_>, path: &str) -> Option<CallAssertion> {
        let tool = match m.get("tool") {
            Some((n, p)) => self.tool_name(n, &p),
            None => {
                self.error(m.location, path, "an assertion needs a `tool`", None);
                None
            }
        };
        let called = m
            .get("called")
            .and_then(|(n, p)| self.boolean(n, &p).map(|b| (b, Location::of(n), p)));
        let params = m
            .get("params")
            .map(|(n, p)| self.params(n, &p))
            .unwrap_or_default();
        let succeeded = m.get("succeeded").and_then(|(n, p)| self.boolean(n, &p));
        let mut count = |key: &str, cx: &mut Reader| {
            m.get(key)
                .and_then(|(n, p)| cx.number(n, &p).map(|v| (v, Location::of(n), p)))
        };
        let call_count = count("call_count", self);
        let min_calls = count("min_calls", self);
        let max_calls = count("max_calls", self);
        let called_after = m
            .get("called_after")
            .and_then(|(n, p)| self.tool_match(n, &p));
        let called_before = m
            .get("called_before")
            .and_then(|(n, p)| self.tool_match(n, &p));
        let mut positions = Vec::new();
        if let Some((n, p)) = m.get("first_call_params") {
            positions.push((1, self.params(n, &p)));
        }
        if let Some((n, p)) = m.get("nth_call_params") {
            positions.extend(self.nth_params(n, &p));
        }
        if let Some((n, p)) = m.get("last_call_params") {
            positions.push((0, self.params(n, &p)));
        }
        let scope = self.scope(m);
        // Contradictions are errors at load time.
        if let Some((false, at, p)) = &called {
            for (key, value) in [
                ("call_count", &call_count),
                ("min_calls", &min_calls),
                ("max_calls", &max_calls),
            ] {
                if let Some((v, _, _)) = value
                    && *v > 0
                {
                    self.error(
                        *at,
                        p,
                        format!("`called: false` contradicts `{key}: {v}`"),
                        Some("write `max_calls: 0`, or drop `called: false`".into()),
                    );
                }
            }
        }
        if let Some((true, at, p)) = &called {
            let zero = call_count.as_ref().is_some_and(|c| c.0 == 0)
                || max_calls.as_ref().is_some_and(|c| c.0 == 0);
            if zero {
                self.error(
                    *at,
                    p,
                    "`called: true` contradicts a count of 0",
                    Some("write `called: false`".into()),
                );
            }
        }
        if let (Some((lo, at, p)), Some((hi, _, _))) = (&min_calls, &max_calls)
            && lo > hi
        {
            self.error(
                *at,
                p,
                format!("`min_calls: {lo}` is more than `max_calls: {hi}`"),
                None,
            );
        }
        if let Some((c, at, p)) = &call_count {
            let below = min_calls.as_ref().is_some_and(|m| *c < m.0);
            let above = max_calls.as_ref().is_some_and(|m| *c > m.0);
            if below || above {
                self.error(
                    *at,
                    p,
                    format!("`call_count: {c}` contradicts min_calls/max_calls"),
                    None,
                );
            }
        }
        let mut assertion = CallAssertion::new(ToolMatch {
            tool: tool?,
            params,
            succeeded,
        });
        assertion.called = called.map(|c| c.0);
        assertion.call_count = call_count.map(|c| c.0);
        assertion.min_calls = min_calls.map(|c| c.0);
        assertion.max_calls = max_calls.map(|c| c.0);
        assertion.called_after = called_after;
        assertion.called_before = called_before;
        assertion.positions = positions;
        assertion.scope = scope;
        Some(assertion)
    }

    /// Reads `nth_call_params`: positions from 1 to parameters.
    fn nth_params(&mut self, node: &Spanned<Node>, path: &str) -> Vec<(u32, Params)> {
        let Node::Map(entries) = &node.value else {
            self.error(
                Location::of(node),
                path,
                "expected a mapping of call numbers (from 1) to parameters",
                None,
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let p = format!("{path}.{}", key.value);
            match key.value.trim().parse::<u32>() {
                Ok(n) if n >= 1 => out.push((n, self.params(value, &p))),
                _ => self.error(
                    Location::of(key),
                    &p,
                    format!("`{}` is not a call number", key.value),
                    Some("calls are counted from 1".into()),
                ),
            }
        }
        out.sort_by_key(|(n, _)| *n);
        out
    }

    /// Reads a `sequence:` entry's steps.
    pub fn sequence_assertion(
        &mut self,
        node: &Spanned<Node>,
        path: &str,
        scope: Scope,
    ) -> Option<SequenceAssertion> {
        let Node::Seq(items) = &node.value else {
            self.error(
                Location::of(node),
                path,
                "a sequence is a list of tools",
                None,
            );
            return None;
        };
        if items.is_empty() {
            self.error(
                Location::of(node),
                path,
                "a sequence needs at least one step",
                None,
            );
            return None;
        }
        let steps: Vec<ToolMatch> = items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| self.tool_match(item, &format!("{path}[{i}]")))
            .collect();
        (steps.len() == items.len()).then(|| SequenceAssertion::new(steps, scope))
    }
}

/// Returns true for a bare glob that was probably meant as a regular expression.
fn looks_like_regex(text: &str) -> bool {
    [".*", ".+", "\\.", "\\d", "\\s", "\\w", "|", "(?"]
        .iter()
        .any(|marker| text.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_yaml;

    fn call(yaml: &str) -> (Option<CallAssertion>, Reader) {
        let root = parse_yaml(yaml).unwrap();
        let mut r = Reader::default();
        let mut m = r.map(&root, "a").unwrap();
        let a = r.call_assertion(&mut m, "a");
        r.unknown_keys(&m, CALL_KEYS);
        (a, r)
    }

    #[test]
    fn contradictions_are_load_errors() {
        for yaml in [
            "tool: Read\ncalled: false\nmin_calls: 1",
            "tool: Read\ncalled: false\ncall_count: 2",
            "tool: Read\ncalled: true\nmax_calls: 0",
            "tool: Read\nmin_calls: 3\nmax_calls: 1",
            "tool: Read\ncall_count: 5\nmax_calls: 2",
            "tool: Read\nnth_call_params: {0: {file_path: x}}",
            "tool: Read\nparams: {file_path: {regex: \"(\"}}",
            "tool: Read\ncaled: true",
        ] {
            let (_, r) = call(yaml);
            assert!(!r.errors.is_empty(), "{yaml} should be refused");
        }
        let (a, r) =
            call("tool: Read\ncalled: false\nmax_calls: 0\nparams: {file_path: \"*.env\"}");
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert!(a.is_some());
    }

    #[test]
    fn a_bare_glob_that_looks_like_a_regex_is_a_warning() {
        let (_, r) = call("tool: Bash\nparams: {command: \"cat.*\\\\.env|less.*\"}");
        assert!(r.errors.is_empty());
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    }
}
