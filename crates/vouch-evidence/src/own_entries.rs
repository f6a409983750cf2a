//! The entries one writer — vouch's runner — put in a change log for its own session, kept as
//! written. The file is shared with everything that can write the working directory; the
//! writer's copy is the record. Appending checks that the file's entries of the session are
//! exactly the writer's (as JSON values: a file re-indented by a formatter is not changed),
//! and verifying a recorded run does the same: an entry added, changed, removed or reordered,
//! or the active session switched, is tampering.

use std::path::Path;

use crate::changelog::{ChangeEntry, ChangeLog, NewTurn, RawLog, entry_json};
use crate::error::{Error, parse_json};
use crate::store;

/// The entries a writer appended to a change log for its session, as written, and the change
/// log they make.
#[derive(Debug, Clone)]
pub struct OwnEntries {
    session_id: String,
    written: Vec<String>,
    /// The entries as JSON values, to compare with the file's.
    values: Vec<serde_json::Value>,
    log: ChangeLog,
}

/// What an append found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppendedEntry {
    /// The entry was appended.
    Appended,
    /// The file held it already (a run that stopped after appending it, before it could say
    /// so, appends it once).
    Present,
}

impl OwnEntries {
    /// Returns a writer's record of session `session_id`, holding `written` (entries as JSON,
    /// in order, as [`OwnEntries::entry`] made them).
    pub fn new(session_id: impl Into<String>, written: Vec<String>) -> Result<OwnEntries, Error> {
        let session_id = session_id.into();
        let mut entries = Vec::with_capacity(written.len());
        let mut values = Vec::with_capacity(written.len());
        for json in &written {
            entries.push(parse_entry(json)?);
            values.push(value(json)?);
        }
        Ok(OwnEntries {
            log: ChangeLog {
                entries,
                active_session_id: Some(session_id.clone()),
            },
            session_id,
            written,
            values,
        })
    }

    /// Returns the empty record of session `session_id`.
    pub fn empty(session_id: impl Into<String>) -> OwnEntries {
        let session_id = session_id.into();
        OwnEntries {
            log: ChangeLog {
                entries: Vec::new(),
                active_session_id: Some(session_id.clone()),
            },
            session_id,
            written: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Returns the session.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Returns the entries, as written.
    pub fn written(&self) -> &[String] {
        &self.written
    }

    /// Returns the change log the entries make, the session active: what gates decide on.
    pub fn change_log(&self) -> &ChangeLog {
        &self.log
    }

    /// Returns the JSON of `turn` as the session's entry number `turn_index`, in the
    /// orchestrators' layout (decision G9).
    pub fn entry(&self, turn: &NewTurn, turn_index: i64) -> String {
        entry_json(turn, &self.session_id, turn_index)
    }

    /// Appends `entry` to the change log at `path` under its lock, with an atomic replace —
    /// when the file's entries of the session are this record's; when they are this record's
    /// and `entry` already, nothing is written. Anything else is [`Error::Tampered`] and
    /// nothing is written. The entry joins the record either way.
    pub fn append(&mut self, path: &Path, entry: String) -> Result<AppendedEntry, Error> {
        let parsed = parse_entry(&entry)?;
        let entry_value = value(&entry)?;
        let found = store::update(path, |current| {
            let raw = RawLog::read(path, current)?;
            let mine = self.mine(&raw)?;
            let size = current.map_or(0, str::len);
            let found = if mine.len() == self.values.len() + 1
                && mine[..self.values.len()] == self.values[..]
                && mine[self.values.len()] == entry_value
            {
                AppendedEntry::Present
            } else {
                self.compare(path, &raw, &mine)?;
                AppendedEntry::Appended
            };
            let text = match found {
                AppendedEntry::Present => current.unwrap_or_default().to_owned(),
                AppendedEntry::Appended => raw.with_entry(&entry, Some(&self.session_id), size),
            };
            Ok((text, found))
        })?;
        self.written.push(entry);
        self.values.push(entry_value);
        self.log.entries.push(parsed);
        Ok(found)
    }

    /// Checks that the change log at `path` holds exactly this record's entries of the
    /// session, the session active.
    pub fn verify(&self, path: &Path) -> Result<(), Error> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.written.is_empty() => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(tampered(path, "the file is gone"));
            }
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        let raw = RawLog::read(path, text.as_deref())?;
        let mine = self.mine(&raw)?;
        self.compare(path, &raw, &mine)
    }

    /// Returns the file's entries of the session, as JSON values.
    fn mine(&self, raw: &RawLog) -> Result<Vec<serde_json::Value>, Error> {
        raw.entries
            .iter()
            .filter(|e| e.session.as_deref() == Some(self.session_id.as_str()))
            .map(|e| value(e.json.get()))
            .collect()
    }

    /// Checks the file's entries of the session against the record, and the active session.
    fn compare(&self, path: &Path, raw: &RawLog, mine: &[serde_json::Value]) -> Result<(), Error> {
        if let Some(i) = (0..mine.len().min(self.values.len())).find(|&i| mine[i] != self.values[i])
        {
            return Err(tampered(
                path,
                format!(
                    "entry {} of the run's session is not the one the runner wrote",
                    i + 1
                ),
            ));
        }
        if mine.len() > self.written.len() {
            return Err(tampered(
                path,
                format!(
                    "it holds {} of the run's session that the runner never wrote",
                    entries(mine.len() - self.written.len())
                ),
            ));
        }
        if mine.len() < self.written.len() {
            return Err(tampered(
                path,
                format!(
                    "{} the runner wrote for the run's session {} missing",
                    entries(self.written.len() - mine.len()),
                    if self.written.len() - mine.len() == 1 {
                        "is"
                    } else {
                        "are"
                    }
                ),
            ));
        }
        if !self.written.is_empty() && raw.active.as_deref() != Some(self.session_id.as_str()) {
            return Err(tampered(
                path,
                format!(
                    "its active session is `{}`, not the run's",
                    raw.active.as_deref().unwrap_or("null")
                ),
            ));
        }
        Ok(())
    }
}

/// Parses one entry as a JSON value.
fn value(json: &str) -> Result<serde_json::Value, Error> {
    parse_json(Path::new("(entry)"), json)
}

/// Parses one entry written by [`entry_json`].
fn parse_entry(json: &str) -> Result<ChangeEntry, Error> {
    parse_json(Path::new("(entry)"), json)
}

/// Returns `n entries`, or `1 entry`.
fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".to_owned()
    } else {
        format!("{n} entries")
    }
}

fn tampered(path: &Path, reason: impl Into<String>) -> Error {
    Error::Tampered {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changelog::NewCommand;

    fn turn(agent: &str) -> NewTurn {
        let mut t = NewTurn::new(agent);
        t.files_written.push("calc.sh".into());
        t.commands
            .push(NewCommand::new("sh test.sh", Some(1), "1 passed, 2 failed"));
        t
    }

    #[test]
    fn entries_append_and_verify_and_a_forged_one_is_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("changes.json");
        // Another session's entry, there before the run, is not the run's concern.
        crate::append(&path, &NewTurn::new("Someone")).unwrap();
        let mut own = OwnEntries::new("run-1", Vec::new()).unwrap();
        let first = own.entry(&turn("Developer"), 1);
        assert_eq!(own.append(&path, first).unwrap(), AppendedEntry::Appended);
        own.verify(&path).unwrap();
        assert_eq!(own.change_log().session_commands().count(), 1);
        // An agent appends an entry of the run's session that claims the tests passed.
        let mut forged = turn("Tester");
        forged.session_id = Some("run-1".into());
        forged.commands[0] = NewCommand::new("sh test.sh", Some(0), "3 passed");
        crate::append(&path, &forged).unwrap();
        let err = own.verify(&path).unwrap_err();
        assert!(matches!(err, Error::Tampered { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("1 entry of the run's session that the runner never wrote")
        );
        let next = own.entry(&turn("Tester"), 2);
        assert!(matches!(
            own.append(&path, next),
            Err(Error::Tampered { .. })
        ));
    }

    #[test]
    fn an_entry_appended_before_a_crash_is_found_not_written_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("changes.json");
        let mut own = OwnEntries::new("run-1", Vec::new()).unwrap();
        let entry = own.entry(&turn("Developer"), 1);
        own.append(&path, entry.clone()).unwrap();
        // The run restarts from a record that does not say the entry was appended.
        let mut resumed = OwnEntries::new("run-1", Vec::new()).unwrap();
        assert_eq!(
            resumed.append(&path, entry).unwrap(),
            AppendedEntry::Present
        );
        resumed.verify(&path).unwrap();
        assert_eq!(ChangeLog::read(&path).unwrap().session_entries().count(), 1);
    }

    #[test]
    fn a_changed_or_removed_entry_and_a_switched_session_are_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("changes.json");
        let mut own = OwnEntries::new("run-1", Vec::new()).unwrap();
        let entry = own.entry(&turn("Developer"), 1);
        own.append(&path, entry).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // Re-indented, the file holds the same entries.
        let pretty: serde_json::Value = serde_json::from_str(&text).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&pretty).unwrap()).unwrap();
        own.verify(&path).unwrap();
        std::fs::write(&path, text.replace("\"ExitCode\":1", "\"ExitCode\":0")).unwrap();
        assert!(
            own.verify(&path)
                .unwrap_err()
                .to_string()
                .contains("entry 1")
        );
        std::fs::write(
            &path,
            text.replace("\"ActiveSessionId\":\"run-1\"", "\"ActiveSessionId\":null"),
        )
        .unwrap();
        assert!(
            own.verify(&path)
                .unwrap_err()
                .to_string()
                .contains("active session")
        );
        std::fs::remove_file(&path).unwrap();
        assert!(own.verify(&path).unwrap_err().to_string().contains("gone"));
    }
}
