//! The cache of gradings (R6): SQLite, one row per (prompt version, criteria, graded output,
//! grader, model, sample index), so that a re-run grades nothing it graded before.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::prompt::TEMPLATE_VERSION;

/// A cache key: the SHA-256 of what decides a grading.
pub type Key = [u8; 32];

/// Returns the key of a grading: the prompt's version, the criteria, the graded output, the
/// grader, the model and the sample's index, each length-prefixed so that no two differ only
/// in where one field ends.
pub fn key(criteria: &str, output: &str, grader: &str, model: &str, sample: u32) -> Key {
    let mut hash = Sha256::new();
    for field in [TEMPLATE_VERSION, criteria, output, grader, model] {
        hash.update((field.len() as u64).to_le_bytes());
        hash.update(field.as_bytes());
    }
    hash.update(sample.to_le_bytes());
    hash.finalize().into()
}

/// A grading kept in the cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Cached {
    /// The score, clamped.
    pub score: f64,
    /// The grader's reasoning.
    pub reasoning: String,
    /// The grader's name.
    pub grader: String,
    /// The model that graded.
    pub model: String,
    /// When it was graded (RFC 3339).
    pub created: String,
}

/// What the cache holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// The database file.
    pub path: PathBuf,
    /// Gradings kept.
    pub entries: u64,
    /// Gradings per grader and model.
    pub by_grader: Vec<GraderCount>,
    /// The oldest and newest grading (RFC 3339), when there are any.
    pub oldest: Option<String>,
    /// The newest.
    pub newest: Option<String>,
    /// The size of the database file, in bytes.
    pub bytes: u64,
}

/// How many gradings of one grader and model the cache keeps.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GraderCount {
    /// The grader's name.
    pub grader: String,
    /// The model.
    pub model: String,
    /// Gradings kept.
    pub entries: u64,
}

/// Why the cache could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// SQLite refused.
    #[error("the grading cache {}: {source}", .path.display())]
    Sql {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// Its folder could not be made.
    #[error("the grading cache {}: {source}", .path.display())]
    Io {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a usable cache, and it cannot be removed either.
    #[error("{refused}; and it cannot be removed: {source}")]
    Unremovable {
        /// Why it is not usable.
        refused: Box<CacheError>,
        /// Why it cannot be removed.
        #[source]
        source: std::io::Error,
    },
}

/// How long to wait for another process's hold on the cache.
const BUSY: std::time::Duration = std::time::Duration::from_secs(5);

/// Returns true when SQLite refused because another connection held a lock.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The cache: a SQLite database, shared by the threads of a process and, through SQLite's
/// locking, by processes.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Cache {
    /// Opens the cache at `path` (conventionally `.vouch/cache.db`), creating it and its
    /// folder when missing.
    pub fn open(path: &Path) -> Result<Cache, CacheError> {
        let fail = |source| CacheError::Sql {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| CacheError::Io {
                path: path.to_owned(),
                source,
            })?;
        }
        let conn = Connection::open(path).map_err(fail)?;
        // Five seconds for another process's write to end.
        conn.busy_timeout(BUSY).map_err(fail)?;
        // Write-ahead logging: readers never wait for a writer, and a write needs no sync of
        // the whole file. Switching to it, and making the table, take locks that SQLite does
        // not wait for when several processes open a new cache at once: those are retried.
        let started = std::time::Instant::now();
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            let setup = conn
                .pragma_update(None, "journal_mode", "WAL")
                .and_then(|()| conn.pragma_update(None, "synchronous", "NORMAL"))
                .and_then(|()| {
                    conn.execute_batch(
                        "CREATE TABLE IF NOT EXISTS gradings (
                            key BLOB PRIMARY KEY,
                            score REAL NOT NULL,
                            reasoning TEXT NOT NULL,
                            grader TEXT NOT NULL,
                            model TEXT NOT NULL,
                            created TEXT NOT NULL
                        ) WITHOUT ROWID;",
                    )
                });
            match setup {
                Ok(()) => break,
                Err(e) if is_busy(&e) && started.elapsed() < BUSY => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(200));
                }
                Err(e) => return Err(fail(e)),
            }
        }
        Ok(Cache {
            path: path.to_owned(),
            conn: Mutex::new(conn),
        })
    }

    /// Returns the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn fail(&self, source: rusqlite::Error) -> CacheError {
        CacheError::Sql {
            path: self.path.clone(),
            source,
        }
    }

    /// Returns the grading kept under `key`.
    pub fn get(&self, key: &Key) -> Result<Option<Cached>, CacheError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT score, reasoning, grader, model, created FROM gradings WHERE key = ?1",
            )
            .map_err(|e| self.fail(e))?;
        stmt.query_row(params![&key[..]], |row| {
            Ok(Cached {
                score: row.get(0)?,
                reasoning: row.get(1)?,
                grader: row.get(2)?,
                model: row.get(3)?,
                created: row.get(4)?,
            })
        })
        .optional()
        .map_err(|e| self.fail(e))
    }

    /// Keeps `grading` under `key` (replacing what was there).
    pub fn put(&self, key: &Key, grading: &Cached) -> Result<(), CacheError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "INSERT OR REPLACE INTO gradings (key, score, reasoning, grader, model, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(|e| self.fail(e))?;
        stmt.execute(params![
            &key[..],
            grading.score,
            grading.reasoning,
            grading.grader,
            grading.model,
            grading.created
        ])
        .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// Returns what the cache holds.
    pub fn stats(&self) -> Result<Stats, CacheError> {
        let conn = self.conn();
        let entries: i64 = conn
            .query_row("SELECT COUNT(*) FROM gradings", [], |r| r.get(0))
            .map_err(|e| self.fail(e))?;
        let (oldest, newest): (Option<String>, Option<String>) = conn
            .query_row("SELECT MIN(created), MAX(created) FROM gradings", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(|e| self.fail(e))?;
        let mut stmt = conn
            .prepare("SELECT grader, model, COUNT(*) FROM gradings GROUP BY grader, model ORDER BY grader, model")
            .map_err(|e| self.fail(e))?;
        let by_grader = stmt
            .query_map([], |r| {
                let n: i64 = r.get(2)?;
                Ok(GraderCount {
                    grader: r.get(0)?,
                    model: r.get(1)?,
                    entries: u64::try_from(n).unwrap_or(0),
                })
            })
            .map_err(|e| self.fail(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))?;
        let bytes = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        Ok(Stats {
            path: self.path.clone(),
            entries: u64::try_from(entries).unwrap_or(0),
            by_grader,
            oldest,
            newest,
            bytes,
        })
    }

    /// Removes every grading; returns how many there were.
    pub fn clear(&self) -> Result<usize, CacheError> {
        let conn = self.conn();
        let n = conn
            .execute("DELETE FROM gradings", [])
            .map_err(|e| self.fail(e))?;
        conn.execute_batch("VACUUM").map_err(|e| self.fail(e))?;
        Ok(n)
    }

    /// Empties the cache at `path`: every grading removed, or — when the file is not a cache
    /// that can be emptied — the file and SQLite's journal files beside it removed, so that
    /// the next grading makes a new one.
    pub fn clear_at(path: &Path) -> Result<Cleared, CacheError> {
        let refused = match Cache::open(path).and_then(|cache| cache.clear()) {
            Ok(n) => return Ok(Cleared::Emptied(n)),
            Err(e) => e,
        };
        // SQLite's journal files are the database's name plus `-wal` and `-shm`.
        let beside = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        };
        for file in [path.to_owned(), beside("-wal"), beside("-shm")] {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(CacheError::Unremovable {
                        refused: Box::new(refused),
                        source: e,
                    });
                }
            }
        }
        let reason = std::error::Error::source(&refused)
            .map_or_else(|| refused.to_string(), ToString::to_string);
        Ok(Cleared::Removed { reason })
    }
}

/// What [`Cache::clear_at`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cleared {
    /// The cache was emptied of this many gradings.
    Emptied(usize),
    /// The file was not a usable cache, and was removed.
    Removed {
        /// Why it was not usable.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_change_with_every_field() {
        let base = key("c", "o", "g", "m", 0);
        assert_eq!(base, key("c", "o", "g", "m", 0));
        for other in [
            key("c2", "o", "g", "m", 0),
            key("c", "o2", "g", "m", 0),
            key("c", "o", "g2", "m", 0),
            key("c", "o", "g", "m2", 0),
            key("c", "o", "g", "m", 1),
        ] {
            assert_ne!(base, other);
        }
        // Field boundaries are part of the key.
        assert_ne!(key("ab", "c", "g", "m", 0), key("a", "bc", "g", "m", 0));
    }

    #[test]
    fn gradings_are_kept_across_openings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".vouch/cache.db");
        let k = key("c", "o", "g", "m", 0);
        let g = Cached {
            score: 8.5,
            reasoning: "fine".into(),
            grader: "g".into(),
            model: "m".into(),
            created: "2026-11-21T00:00:00Z".into(),
        };
        {
            let cache = Cache::open(&path).unwrap();
            assert_eq!(cache.get(&k).unwrap(), None);
            cache.put(&k, &g).unwrap();
        }
        let cache = Cache::open(&path).unwrap();
        assert_eq!(cache.get(&k).unwrap(), Some(g));
        let stats = cache.stats().unwrap();
        assert_eq!(stats.entries, 1);
        assert_eq!(
            stats.by_grader,
            vec![GraderCount {
                grader: "g".to_owned(),
                model: "m".to_owned(),
                entries: 1
            }]
        );
        assert_eq!(cache.clear().unwrap(), 1);
        assert_eq!(cache.stats().unwrap().entries, 0);
    }
}
