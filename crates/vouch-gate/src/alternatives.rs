//! Command patterns of the validator spec: pipe-separated alternatives, each a case-insensitive
//! substring of the command (not a regular expression).

use std::fmt;

/// A `RequiredCommandPattern` or `ShellFallbackPattern`: `"go build|go test"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternatives {
    raw: String,
    parts: Vec<String>,
}

impl Alternatives {
    /// Returns the pattern written as `raw`; empty alternatives are dropped.
    pub fn new(raw: &str) -> Alternatives {
        let parts = raw
            .split('|')
            .map(|p| p.trim().to_lowercase())
            .filter(|p| !p.is_empty())
            .collect();
        Alternatives {
            raw: raw.to_owned(),
            parts,
        }
    }

    /// Returns true when `command` contains one of the alternatives, ignoring case.
    pub fn matches(&self, command: &str) -> bool {
        let command = command.to_lowercase();
        self.parts.iter().any(|p| command.contains(p.as_str()))
    }

    /// Returns the alternatives, lowercased.
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// Returns the pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// Returns true when the pattern has no alternative.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

impl fmt::Display for Alternatives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternatives_are_case_insensitive_substrings() {
        let p = Alternatives::new("go build|GO TEST| ");
        assert_eq!(p.parts().len(), 2);
        assert!(p.matches("cd x && Go Test ./..."));
        assert!(p.matches("go build -o bin/app"));
        assert!(!p.matches("go mod tidy"));
        assert!(!p.matches("go vet (g.o. test)"));
    }
}

/// A `CommandSucceeded` pattern: `|`-separated alternatives, each a list of `&&`-joined parts;
/// an alternative holds when every one of its parts is a case-insensitive substring of some
/// command that succeeded (the parts may be satisfied by separate commands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    raw: String,
    alternatives: Vec<Vec<String>>,
}

impl CommandPattern {
    /// Returns the pattern written as `raw`; empty parts are dropped.
    pub fn new(raw: &str) -> CommandPattern {
        let alternatives = raw
            .split('|')
            .map(|alt| {
                alt.split("&&")
                    .map(|p| {
                        p.split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                            .to_lowercase()
                    })
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
            })
            .filter(|alt| !alt.is_empty())
            .collect();
        CommandPattern {
            raw: raw.to_owned(),
            alternatives,
        }
    }

    /// Returns `Ok` when an alternative is satisfied by `commands`; otherwise the parts missing
    /// from the alternative that came closest.
    pub fn check<'c>(
        &self,
        commands: impl IntoIterator<Item = &'c str>,
    ) -> Result<(), Vec<String>> {
        // Each command as its script: out of a `bash -lc` wrapper, blanks collapsed.
        let commands: Vec<String> = commands
            .into_iter()
            .map(|c| crate::assertions::script(c).to_lowercase())
            .collect();
        let mut best: Option<Vec<String>> = None;
        for alt in &self.alternatives {
            let missing: Vec<String> = alt
                .iter()
                .filter(|part| !commands.iter().any(|c| c.contains(part.as_str())))
                .cloned()
                .collect();
            if missing.is_empty() {
                return Ok(());
            }
            if best.as_ref().is_none_or(|b| missing.len() < b.len()) {
                best = Some(missing);
            }
        }
        Err(best.unwrap_or_default())
    }

    /// Returns true when the pattern has no alternative.
    pub fn is_empty(&self) -> bool {
        self.alternatives.is_empty()
    }

    /// Returns true when `command` holds a part of one of the alternatives: it names what the
    /// pattern asks for, whether or not it ran it.
    pub fn mentioned_in(&self, command: &str) -> bool {
        let command = command.to_lowercase();
        self.alternatives
            .iter()
            .flatten()
            .any(|part| command.contains(part.as_str()))
    }

    /// Returns the pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }
}

#[cfg(test)]
mod pattern_tests {
    use super::*;

    #[test]
    fn and_parts_may_be_met_by_separate_commands() {
        let p = CommandPattern::new("cargo build && cargo test|make check");
        assert!(p.check(["cargo build --release", "cargo test -q"]).is_ok());
        assert!(p.check(["MAKE CHECK"]).is_ok());
        assert_eq!(p.check(["cargo build"]), Err(vec!["cargo test".to_owned()]));
        assert_eq!(p.check([]), Err(vec!["make check".to_owned()]));
        let spaced = CommandPattern::new("cargo  test");
        assert!(spaced.check(["bash -lc 'cargo   test -q'"]).is_ok());
    }
}
