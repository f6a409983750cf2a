//! How a value of a tool call's parameters is matched: a glob, a regular expression, an exact
//! string or a substring. A bare string in a test is read by its shape (docs/agent-tests.md):
//! a regex when it starts with `^` or ends with `$`, a glob when it holds `*`, `?`, `[` or `{`,
//! otherwise exact.

use crate::assertions::error::PatternError;
use std::fmt;

use globset::{Glob, GlobMatcher};
use regex::Regex;

/// A compiled matcher of one value.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// A glob over the whole value; `*` crosses `/`, so `*.env` matches `/proj/.env`.
    Glob {
        /// As written.
        pattern: String,
        /// Compiled.
        glob: GlobMatcher,
    },
    /// A regular expression: over the whole value when `anchored`, anywhere in it otherwise.
    Regex {
        /// As written.
        pattern: String,
        /// Compiled (with `^(?:…)$` when anchored).
        regex: Regex,
        /// Whether it must match the whole value.
        anchored: bool,
    },
    /// The value, exactly.
    Exact(String),
    /// A substring of the value.
    Contains(String),
}

/// How a bare string was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `^…` or `…$`: a regular expression.
    Regex,
    /// Holds `*`, `?`, `[` or `{`: a glob.
    Glob,
    /// Anything else: exact.
    Exact,
}

/// Returns how a bare string is read.
pub fn shape(s: &str) -> Shape {
    if s.starts_with('^') || s.ends_with('$') {
        Shape::Regex
    } else if s.contains(['*', '?', '[', '{']) {
        Shape::Glob
    } else {
        Shape::Exact
    }
}

impl Matcher {
    /// Compiles a glob.
    pub fn glob(pattern: &str) -> Result<Matcher, PatternError> {
        let glob = Glob::new(pattern)
            .map_err(|e| PatternError::new(format!("invalid glob `{pattern}`: {}", e.kind())))?;
        Ok(Matcher::Glob {
            pattern: pattern.to_owned(),
            glob: glob.compile_matcher(),
        })
    }

    /// Compiles a regular expression; `anchored` makes it match the whole value.
    pub fn regex(pattern: &str, anchored: bool) -> Result<Matcher, PatternError> {
        let source = if anchored {
            format!("^(?:{pattern})$")
        } else {
            pattern.to_owned()
        };
        let regex = Regex::new(&source).map_err(|e| {
            let detail = e.to_string();
            let last = detail.lines().last().unwrap_or("").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last);
            PatternError::new(format!("invalid regex `{pattern}`: {last}"))
        })?;
        Ok(Matcher::Regex {
            pattern: pattern.to_owned(),
            regex,
            anchored,
        })
    }

    /// Reads a bare string by its shape. A regex written with its own `^` or `$` is used as
    /// written (unanchored where it has no anchor).
    pub fn bare(s: &str) -> Result<Matcher, PatternError> {
        match shape(s) {
            Shape::Regex => Matcher::regex(s, false),
            Shape::Glob => Matcher::glob(s),
            Shape::Exact => Ok(Matcher::Exact(s.to_owned())),
        }
    }

    /// Returns true when `value` matches.
    pub fn matches(&self, value: &str) -> bool {
        match self {
            Matcher::Glob { glob, .. } => glob.is_match(value),
            Matcher::Regex { regex, .. } => regex.is_match(value),
            Matcher::Exact(s) => value == s,
            Matcher::Contains(s) => value.contains(s.as_str()),
        }
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Matcher::Glob { pattern, .. } => write!(f, "glob {pattern}"),
            Matcher::Regex {
                pattern,
                anchored: true,
                ..
            } => write!(f, "regex {pattern} (whole value)"),
            Matcher::Regex { pattern, .. } => write!(f, "regex {pattern}"),
            Matcher::Exact(s) => write!(f, "exactly {s:?}"),
            Matcher::Contains(s) => write!(f, "containing {s:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_strings_are_read_by_their_shape() {
        let m = Matcher::bare("*.env").unwrap();
        assert!(m.matches("/proj/.env") && m.matches(".env") && !m.matches("/proj/.env.example"));
        assert_eq!(m.to_string(), "glob *.env");
        let m = Matcher::bare("^cat .*\\.env$").unwrap();
        assert!(m.matches("cat /p/.env") && !m.matches("scat .env"));
        let m = Matcher::bare("https://api.example.com").unwrap();
        assert!(m.matches("https://api.example.com") && !m.matches("https://api.example.com/x"));
        assert!(Matcher::bare("[").is_err());
    }

    #[test]
    fn explicit_regexes_are_anchored_unless_told() {
        let m = Matcher::regex("cat|less", true).unwrap();
        assert!(m.matches("cat") && !m.matches("cat .env"));
        let m = Matcher::regex("cat|less", false).unwrap();
        assert!(m.matches("cat .env"));
        assert!(Matcher::regex("(", true).is_err());
    }
}
