//! Where a run keeps its own record: a state directory outside the working tree, one folder
//! per working directory — `<state root>/runs/<folder name>-<hash of its path>/` holding the
//! journal (`journal.jsonl`), the session (`session.jsonl`), the key that seals the journal
//! (`key`, mode 0600) and the working directory's path (`workdir`). The state root is
//! `--state-dir`, else `$VOUCH_STATE_DIR`, else `$XDG_STATE_HOME/vouch`, else
//! `~/.local/state/vouch`; one inside the working directory is refused, since the agents can
//! write there.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::RunError;

/// The files of one run's record.
#[derive(Debug, Clone)]
pub struct RunFiles {
    /// The run's folder in the state root.
    pub dir: PathBuf,
    /// The journal.
    pub journal: PathBuf,
    /// The session (vouch JSONL), written turn by turn.
    pub session: PathBuf,
    /// The key that seals the journal.
    pub(crate) key: [u8; 32],
}

/// Returns the state root: `explicit`, else `$VOUCH_STATE_DIR`, else `$XDG_STATE_HOME/vouch`,
/// else `$HOME/.local/state/vouch`.
pub fn state_root(explicit: Option<&Path>) -> Result<PathBuf, RunError> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("VOUCH_STATE_DIR")
        .or_else(|| var("XDG_STATE_HOME").map(|d| d.join("vouch")))
        .or_else(|| var("HOME").map(|h| h.join(".local/state/vouch")))
        .ok_or_else(|| {
            RunError::Io(
                "no place for the run's record: set VOUCH_STATE_DIR (or HOME), or pass --state-dir"
                    .into(),
            )
        })
}

/// Returns the folder of the run of `workdir` (a canonical path) under `root`.
pub fn run_dir(root: &Path, workdir: &Path) -> PathBuf {
    let digest = Sha256::digest(workdir.as_os_str().as_encoded_bytes());
    let name: String = workdir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    root.join("runs")
        .join(format!("{name}-{}", &crate::journal::hex(&digest)[..16]))
}

impl RunFiles {
    /// Makes a new record for the run of `workdir`: its folder (mode 0700, emptied of an
    /// earlier run's files) and a fresh key.
    pub(crate) fn create(root: &Path, workdir: &Path) -> Result<RunFiles, RunError> {
        let dir = run_dir(root, workdir);
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            RunError::Io(format!("cannot {what} {}: {e}", dir.display()))
        };
        std::fs::create_dir_all(&dir).map_err(|e| fail("make", &e))?;
        refuse_inside(&dir, workdir)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| fail("protect", &e))?;
        }
        let mut key = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut key))
            .map_err(|e| RunError::Io(format!("cannot make the run's key: {e}")))?;
        let key_path = dir.join("key");
        for old in ["key", "journal.jsonl", "session.jsonl"] {
            match std::fs::remove_file(dir.join(old)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(fail("clear", &e)),
            }
        }
        {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&key_path)
                .and_then(|mut f| f.write_all(&key))
                .map_err(|e| fail("write the key in", &e))?;
        }
        std::fs::write(dir.join("workdir"), workdir.as_os_str().as_encoded_bytes())
            .map_err(|e| fail("write", &e))?;
        Ok(RunFiles::at(dir, key))
    }

    /// Opens the record of the run of `workdir`.
    pub fn open(root: &Path, workdir: &Path) -> Result<RunFiles, RunError> {
        let dir = run_dir(root, workdir);
        let key_path = dir.join("key");
        let bytes = match std::fs::read(&key_path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RunError::Io(format!(
                    "no run was recorded for {} (looked in {}; hint: the state root is --state-dir, $VOUCH_STATE_DIR, $XDG_STATE_HOME/vouch or ~/.local/state/vouch)",
                    workdir.display(),
                    dir.display()
                )));
            }
            Err(e) => {
                return Err(RunError::Io(format!(
                    "cannot read {}: {e}",
                    key_path.display()
                )));
            }
        };
        let key: [u8; 32] = bytes.try_into().map_err(|_| {
            RunError::Tampered(format!(
                "the run's key {} is not the one the runner made",
                key_path.display()
            ))
        })?;
        Ok(RunFiles::at(dir, key))
    }

    fn at(dir: PathBuf, key: [u8; 32]) -> RunFiles {
        RunFiles {
            journal: dir.join("journal.jsonl"),
            session: dir.join("session.jsonl"),
            dir,
            key,
        }
    }
}

/// Refuses a run folder inside the working directory, which the agents can write.
fn refuse_inside(dir: &Path, workdir: &Path) -> Result<(), RunError> {
    let real = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    if real.starts_with(workdir) {
        return Err(RunError::Io(format!(
            "the run's record would be kept in {}, inside the working directory the agents write (hint: set --state-dir or VOUCH_STATE_DIR to a folder outside {})",
            real.display(),
            workdir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_kept_outside_and_its_key_is_private() {
        let root = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let workdir = work.path().canonicalize().unwrap();
        let files = RunFiles::create(root.path(), &workdir).unwrap();
        assert!(files.dir.starts_with(root.path()));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(files.dir.join("key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            RunFiles::open(root.path(), &workdir).unwrap().key,
            files.key
        );
        let again = RunFiles::create(root.path(), &workdir).unwrap();
        assert_ne!(again.key, files.key, "each run has a key of its own");
    }

    #[test]
    fn a_state_root_inside_the_working_directory_is_refused() {
        let work = tempfile::tempdir().unwrap();
        let workdir = work.path().canonicalize().unwrap();
        let err = RunFiles::create(&workdir.join(".state"), &workdir).unwrap_err();
        assert!(
            err.to_string().contains("inside the working directory"),
            "{err}"
        );
    }
}
