//! `FilesWritten`: every file a JSON artifact lists was written this session.

use std::path::PathBuf;

use serde_json::Value;

use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// Reads the JSON file `Source` and takes the paths listed in its field `Field` (strings, or
/// objects with a `path`); holds when each was written this session — by a successful write or
/// patch call of the current turn, or by a turn of the active session in the change log. Paths
/// match as decision G8 says.
///
/// **Passes**: `Source: brief.json, Field: files_to_change` after every listed file was written.
/// **Blocked**: one was not, or the source is missing or not JSON.
///
/// **Options**: `Source`, `Field`.
#[derive(Debug, Clone)]
pub struct FilesWritten {
    /// What requires it, as messages name it (`contract TestsValid`).
    pub owner: String,
    /// `Source`.
    pub source: PathBuf,
    /// `Field`.
    pub field: String,
}

impl Predicate for FilesWritten {
    fn name(&self) -> &'static str {
        "FilesWritten"
    }

    fn describe(&self) -> String {
        format!(
            "FilesWritten (`{}` of {})",
            self.field,
            self.source.display()
        )
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let word = blocked_word(cx.keyword);
        let path = cx.view.resolve(&self.source);
        let source = self.source.display().to_string();
        let value: Value = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Verdict::block(
                    self.name(),
                    format!(
                        "{word} blocked: {} lists the files to write in {source}, which does not exist.\nWrite it first, then retry.",
                        self.owner,
                    ),
                );
            }
            Err(e) => return fail_closed(self.name(), cx.keyword, &source, &e),
            Ok(text) => match serde_json::from_str(&text) {
                Ok(value) => value,
                Err(e) => return fail_closed(self.name(), cx.keyword, &source, &e),
            },
        };
        let listed = value
            .get(&self.field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|i| i.as_str().or_else(|| i.get("path")?.as_str()))
            .map(str::trim)
            .filter(|p| !p.is_empty());
        let missing = match cx.view.not_written(listed) {
            Ok(missing) => missing,
            Err(e) => return fail_closed(self.name(), cx.keyword, "the change log", e),
        };
        if missing.is_empty() {
            return Verdict::Pass;
        }
        let list: String = missing.iter().map(|p| format!("✗ {p}\n")).collect();
        Verdict::block(
            self.name(),
            format!(
                "{word} blocked: {} requires every file in `{}` of {} to be written this session; these were not:\n\
                 {list}Write each with write_file or patch_file (or remove it from {}), then retry.",
                self.owner,
                self.field,
                self.source.display(),
                self.source.display()
            ),
        )
    }
}
