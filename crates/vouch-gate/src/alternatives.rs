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
