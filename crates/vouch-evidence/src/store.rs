//! Updating a file safely: an exclusive lock on a sidecar `.lock` file serializes writers across
//! processes, and the new content is written to a temporary file in the same folder and renamed
//! over the old one, so a reader sees the old file or the new one, never half of either.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// Replaces the content of `path` with what `update` makes of its current content (`None` when
/// the file does not exist yet), holding an exclusive lock for the whole read-modify-write.
pub fn update<T>(
    path: &Path,
    update: impl FnOnce(Option<&str>) -> Result<(String, T), Error>,
) -> Result<T, Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(|source| Error::Write {
        path: dir.clone(),
        source,
    })?;
    let lock_path = lock_path(path);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|source| Error::Lock {
            path: lock_path.clone(),
            source,
        })?;
    lock.lock().map_err(|source| Error::Lock {
        path: lock_path.clone(),
        source,
    })?;
    let result = (|| {
        let current = match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        let (content, value) = update(current.as_deref())?;
        write_atomically(path, &dir, content.as_bytes())?;
        Ok(value)
    })();
    // Closing the lock file releases the lock; an unlock error leaves nothing to do.
    let _ = lock.unlock();
    result
}

/// Writes `bytes` to `path` by writing a temporary file in `dir` and renaming it.
pub fn write_atomically(path: &Path, dir: &Path, bytes: &[u8]) -> Result<(), Error> {
    let write_err = |source| Error::Write {
        path: path.to_owned(),
        source,
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
    tmp.write_all(bytes).map_err(write_err)?;
    tmp.as_file().sync_data().map_err(write_err)?;
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

/// Returns the lock file that guards `path`.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(std::ffi::OsStr::to_os_string)
        .unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}
