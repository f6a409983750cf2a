//! Configuration errors: each with its file, line, column and key path, all reported at once.

use std::fmt;
use std::path::PathBuf;

use crate::config::node::Location;

/// One problem in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigError {
    /// Where it was written.
    pub location: Location,
    /// The key path (`Selection.Routes[1].Validators[0]`).
    pub key_path: String,
    /// What is wrong, as a lowercase fragment.
    pub message: String,
    /// The next step, when there is one.
    pub hint: Option<String>,
}

/// Every problem found in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigErrors {
    /// The file.
    pub path: PathBuf,
    /// The file's text, for rendering the places.
    pub source_text: String,
    /// The problems, in the order of the file.
    pub errors: Vec<ConfigError>,
}

impl ConfigError {
    /// Returns the problem `message` at `location` (key path `key_path`), with a `hint`.
    pub fn new(
        location: Location,
        key_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> ConfigError {
        ConfigError {
            location,
            key_path: key_path.to_owned(),
            message: message.into(),
            hint,
        }
    }
}

impl ConfigErrors {
    /// Returns the problems of the file `path` whose text is `source_text`.
    pub fn new(
        path: &std::path::Path,
        source_text: &str,
        errors: Vec<ConfigError>,
    ) -> ConfigErrors {
        ConfigErrors {
            path: path.to_owned(),
            source_text: source_text.to_owned(),
            errors,
        }
    }

    /// Returns one problem with the file as a whole (it could not be read, say).
    pub fn whole(path: &std::path::Path, message: impl Into<String>) -> ConfigErrors {
        ConfigErrors::new(
            path,
            "",
            vec![ConfigError::new(Location::default(), "", message, None)],
        )
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if !self.key_path.is_empty() {
            write!(f, " (at `{}`)", self.key_path)?;
        }
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{}: {e}", self.path.display(), e.location)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// Returns the candidate closest to `name` by edit distance, when close enough to be a typo.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Returns the Levenshtein distance between two strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        let names = ["RequireShellPass", "RequireWriteFile", "RequireBrief"];
        assert_eq!(
            did_you_mean("RequireShelPass", names),
            Some("RequireShellPass")
        );
        assert_eq!(did_you_mean("requirebreif", names), Some("RequireBrief"));
        assert_eq!(did_you_mean("Nonsense", names), None);
    }
}
