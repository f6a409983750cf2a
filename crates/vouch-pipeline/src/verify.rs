//! A recorded run checked end to end, for `vouch gate check` and anyone who reads a run
//! afterwards: the journal's seal verified line by line with the run's key, the run rebuilt
//! from it, and the change log's entries of the run compared with the ones the runner
//! journaled. What passes is the run as the runner recorded it: its session and its change
//! log, to decide on.

use std::path::{Path, PathBuf};

use vouch_evidence::{ChangeLog, OwnEntries};
use vouch_session::Session;

use crate::error::RunError;
use crate::journal;
use crate::replay::replay;
use crate::state::{RunFiles, state_root};

/// A recorded run whose record verified.
#[derive(Debug)]
#[non_exhaustive]
pub struct VerifiedRun {
    /// The run's id (its change-log session).
    pub run_id: String,
    /// The session, rebuilt from the journal.
    pub session: Session,
    /// The run's change-log entries as the runner wrote them, the run's session active.
    pub change_log: ChangeLog,
    /// How many records the journal holds.
    pub records: usize,
    /// How many change-log entries the run wrote.
    pub entries: usize,
    /// The journal.
    pub journal: PathBuf,
}

/// Verifies the run of `workdir`, recorded under the state root (`state_root_dir`, or the
/// default one), whose change log is `change_log` (relative to `workdir`, or absolute). A
/// record that does not verify is [`RunError::Tampered`], saying where.
pub fn verify_run(
    workdir: &Path,
    state_root_dir: Option<&Path>,
    change_log: &Path,
) -> Result<VerifiedRun, RunError> {
    let workdir = workdir
        .canonicalize()
        .map_err(|e| RunError::Io(format!("cannot read {}: {e}", workdir.display())))?;
    let files = RunFiles::open(&state_root(state_root_dir)?, &workdir)?;
    let read = journal::read(&files.journal, &files.key)?;
    let records = read.records.len();
    let replayed = replay(read.records, &workdir)?;
    let change_log = workdir.join(change_log);
    let mut own = replayed.state.own;
    // A run stopped between journaling a turn's entry and appending it may have either.
    let unappended = replayed.pending.and_then(|p| p.entry);
    if let Err(first) = own.verify(&change_log) {
        let with_last = unappended.and_then(|entry| {
            let mut written = own.written().to_vec();
            written.push(entry);
            OwnEntries::new(own.session_id(), written).ok()
        });
        match with_last {
            Some(longer) if longer.verify(&change_log).is_ok() => own = longer,
            _ => {
                return Err(match first {
                    vouch_evidence::Error::Tampered { .. } => RunError::Tampered(first.to_string()),
                    other => RunError::Evidence(other),
                });
            }
        }
    }
    Ok(VerifiedRun {
        run_id: replayed.state.run_id,
        session: replayed.state.session,
        entries: own.written().len(),
        change_log: own.change_log().clone(),
        records,
        journal: files.journal,
    })
}
