//! `RequireAllFilesWritten`: every file the brief names was written this session.

use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// Checks that every path in `brief.json`'s `files_to_change` was written: by a successful
/// `write_file` or `patch_file` call of the current turn, or by an earlier turn recorded in
/// `changes.json` for the active session. Paths match case-insensitively, with `./` dropped and
/// an absolute path matching the relative path it ends with (decision G8).
///
/// **Why**: `RequireWriteFile` is satisfied by any one file. A Developer that writes a helper
/// and hands off has not done the brief.
///
/// **Passes**: the brief lists `src/api/users.py` and `tests/test_users.py`; this turn patched
/// `/repo/src/api/users.py` and the change log records `tests/test_users.py`.
/// **Blocked**: `tests/test_users.py` was never written. A missing brief blocks too; an empty
/// `files_to_change` passes.
///
/// **Options**: `Validation.BriefPath`, `Validation.ChangeLogPath`.
#[derive(Debug, Clone, Copy)]
pub struct RequireAllFilesWritten;

const NAME: &str = "RequireAllFilesWritten";

impl Predicate for RequireAllFilesWritten {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let word = blocked_word(cx.keyword);
        let brief = match cx.view.brief() {
            Ok(Some(brief)) => brief,
            Ok(None) => {
                let path = cx.view.paths().brief.display();
                return Verdict::block(
                    NAME,
                    format!(
                        "{word} blocked: no brief at {path}, so the files to change are unknown.\n\
                         The Planner must write brief.json (with files_to_change) before this handoff."
                    ),
                );
            }
            Err(e) => return fail_closed(NAME, cx.keyword, "the brief", e),
        };
        let required: Vec<&str> = brief.paths_to_change().collect();
        if required.is_empty() {
            return Verdict::Pass;
        }
        let missing = match cx.view.not_written(required) {
            Ok(missing) => missing,
            Err(e) => return fail_closed(NAME, cx.keyword, "the change log", e),
        };
        if missing.is_empty() {
            return Verdict::Pass;
        }
        let list: String = missing.iter().map(|p| format!("✗ {p}\n")).collect();
        Verdict::block(
            NAME,
            format!(
                "{word} blocked: these files from brief.json were not written this session:\n\
                 {list}\
                 To resolve, either:\n\
                 A. Modify each missing file with write_file or patch_file.\n\
                 B. If a file does not actually need changes, update brief.json to remove it\n\
                 from files_to_change, then retry the handoff."
            ),
        )
    }
}
