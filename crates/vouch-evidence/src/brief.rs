//! `brief.json`: the Planner's plan of the change, read by the brief-checking validators.

use std::path::Path;

use serde::Deserialize;
use serde::de::MapAccess;

use crate::error::{Error, parse_json, read_text};
use crate::shapes::{FromStringOrMap, list_of_string_or_map, list_or_one, null_as_default};

/// The Planner's brief: what to change, and how the Tester will know it works.
///
/// Unknown fields are ignored; `files_to_change` entries may be strings or `{path, reason}`
/// objects, `acceptance_criteria` entries strings or `{criterion, test_command,
/// expected_output_contains}` objects.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Brief {
    /// The one-sentence objective.
    #[serde(default, deserialize_with = "null_as_default")]
    pub goal: String,
    /// The files the change must write.
    #[serde(default, deserialize_with = "list_of_string_or_map")]
    pub files_to_change: Vec<FileRef>,
    /// Files to read for context.
    #[serde(default, deserialize_with = "list_of_string_or_map")]
    pub files_for_context: Vec<FileRef>,
    /// The criteria the Tester verifies.
    #[serde(default, deserialize_with = "list_of_string_or_map")]
    pub acceptance_criteria: Vec<Criterion>,
    /// Limits the change must respect.
    #[serde(default, deserialize_with = "list_or_one")]
    pub constraints: Vec<serde_json::Value>,
    /// The ordered actions that carry out the change.
    #[serde(default, deserialize_with = "list_or_one")]
    pub implementation: Vec<serde_json::Value>,
}

/// A file named by a brief, with the reason it is named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileRef {
    /// The path, as the brief spells it.
    pub path: String,
    /// Why, when given.
    pub reason: Option<String>,
}

/// An acceptance criterion, possibly machine-testable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Criterion {
    /// The criterion's text.
    pub criterion: String,
    /// The command the Developer should run to verify it.
    pub test_command: Option<String>,
    /// A sentinel a successful command's output must contain (case-insensitive).
    pub expected_output_contains: Option<String>,
}

#[derive(Deserialize)]
struct FileRefObject {
    #[serde(default, deserialize_with = "null_as_default")]
    path: String,
    #[serde(default)]
    reason: Option<String>,
}

impl FromStringOrMap for FileRef {
    const EXPECTING: &'static str = "a path or a `{path, reason}` object";
    fn from_string(path: String) -> FileRef {
        FileRef { path, reason: None }
    }
    fn from_map<'de, A: MapAccess<'de>>(map: A) -> Result<FileRef, A::Error> {
        let o = FileRefObject::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(FileRef {
            path: o.path,
            reason: o.reason,
        })
    }
}

#[derive(Deserialize)]
struct CriterionObject {
    #[serde(default, deserialize_with = "null_as_default")]
    criterion: String,
    #[serde(default)]
    test_command: Option<String>,
    #[serde(default)]
    expected_output_contains: Option<String>,
}

impl FromStringOrMap for Criterion {
    const EXPECTING: &'static str =
        "a criterion or a `{criterion, test_command, expected_output_contains}` object";
    fn from_string(criterion: String) -> Criterion {
        Criterion {
            criterion,
            ..Criterion::default()
        }
    }
    fn from_map<'de, A: MapAccess<'de>>(map: A) -> Result<Criterion, A::Error> {
        let o = CriterionObject::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(Criterion {
            criterion: o.criterion,
            test_command: o.test_command.filter(|c| !c.trim().is_empty()),
            expected_output_contains: o.expected_output_contains.filter(|c| !c.is_empty()),
        })
    }
}

impl Brief {
    /// Reads the brief at `path`.
    pub fn read(path: &Path) -> Result<Brief, Error> {
        Brief::parse(path, &read_text(path)?)
    }

    /// Parses a brief's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Brief, Error> {
        parse_json(path, text)
    }

    /// Returns the paths of `files_to_change`, in order, without empty ones.
    pub fn paths_to_change(&self) -> impl Iterator<Item = &str> {
        self.files_to_change
            .iter()
            .map(|f| f.path.trim())
            .filter(|p| !p.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Brief, Error> {
        Brief::parse(Path::new("brief.json"), text)
    }

    #[test]
    fn strings_and_objects_both_read() {
        let b = parse(
            r#"{"goal": "Paginate", "files_to_change": ["a.py", {"path": "b.py", "reason": "tests"}],
                "acceptance_criteria": ["works", {"criterion": "prints 4", "test_command": "run", "expected_output_contains": "4.0"}],
                "implementation": "write a.py", "extra": {"ignored": true}}"#,
        )
        .unwrap();
        assert_eq!(
            b.paths_to_change().collect::<Vec<_>>(),
            vec!["a.py", "b.py"]
        );
        assert_eq!(
            b.acceptance_criteria[1].expected_output_contains.as_deref(),
            Some("4.0")
        );
        assert_eq!(b.implementation.len(), 1);
    }

    #[test]
    fn wrong_shapes_are_reported_with_their_path() {
        let err = parse(r#"{"goal": "x", "acceptance_criteria": ["ok", 7]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`brief.json` has the wrong shape at `$.acceptance_criteria[1]`: invalid type: integer `7`, expected a criterion or a `{criterion, test_command, expected_output_contains}` object"
        );
        let err = parse("{\"goal\": ").unwrap_err();
        assert!(matches!(err, Error::NotJson { line: 1, .. }), "{err}");
    }
}
