//! The SQLite backend: one connection in WAL mode behind a lock (SQLite serializes writers
//! anyway), transactions begun `IMMEDIATE` so a read never has to be upgraded.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql};

use super::sql::{Row, Sql, Val};
use super::{Backend, Migration, StoreError};

/// The migrations, in order.
const MIGRATIONS: &[Migration] = &[
    (1, "tasks", include_str!("migrations/sqlite/0001_tasks.sql")),
    (
        2,
        "schedules",
        include_str!("migrations/sqlite/0002_schedules.sql"),
    ),
    (3, "push", include_str!("migrations/sqlite/0003_push.sql")),
    (
        4,
        "settles",
        include_str!("migrations/sqlite/0004_settles.sql"),
    ),
    (
        5,
        "event times",
        include_str!("migrations/sqlite/0005_event_times.sql"),
    ),
    (
        6,
        "status",
        include_str!("migrations/sqlite/0006_status.sql"),
    ),
];

/// The SQLite backend: a connection that writes, and one that reads (WAL lets a reader see
/// the last committed state while the writer works, so reads never wait behind a write).
#[derive(Debug)]
pub(super) struct Sqlite {
    connection: Mutex<Connection>,
    reader: Mutex<Connection>,
}

fn db(e: &rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

impl Sqlite {
    /// Opens (or creates) the database at `path` and migrates it.
    pub(super) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Open(format!("{}: {e}", dir.display())))?;
        }
        let connection = Connection::open(path)
            .map_err(|e| StoreError::Open(format!("{}: {e}", path.display())))?;
        connection
            .busy_timeout(Duration::from_secs(10))
            .map_err(|e| db(&e))?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;",
            )
            .map_err(|e| db(&e))?;
        migrate(&connection)?;
        let reader = Connection::open(path)
            .map_err(|e| StoreError::Open(format!("{}: {e}", path.display())))?;
        reader
            .busy_timeout(Duration::from_secs(10))
            .map_err(|e| db(&e))?;
        Ok(Sqlite {
            connection: Mutex::new(connection),
            reader: Mutex::new(reader),
        })
    }
}

/// Applies the migrations the database has not seen, each in its own transaction.
fn migrate(connection: &Connection) -> Result<(), StoreError> {
    connection
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS vouch_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        )
        .map_err(|e| db(&e))?;
    for (version, name, statements) in MIGRATIONS {
        connection
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| db(&e))?;
        let applied: i64 = connection
            .query_row(
                "SELECT COUNT(*) FROM vouch_migrations WHERE version = ?1",
                [version],
                |r| r.get(0),
            )
            .map_err(|e| db(&e))?;
        let step = if applied == 0 {
            connection.execute_batch(statements).and_then(|()| {
                connection.execute(
                    "INSERT INTO vouch_migrations (version, name) VALUES (?1, ?2)",
                    rusqlite::params![version, name],
                )
            })
        } else {
            Ok(0)
        };
        match step {
            Ok(_) => connection.execute_batch("COMMIT").map_err(|e| db(&e))?,
            Err(e) => {
                let _ = connection.execute_batch("ROLLBACK");
                return Err(StoreError::Open(format!(
                    "migration {version} ({name}): {e}"
                )));
            }
        }
    }
    Ok(())
}

impl ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Val::Text(Some(s)) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Val::Int(Some(i)) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Val::Real(Some(f)) => ToSqlOutput::Borrowed(ValueRef::Real(*f)),
            Val::Text(None) | Val::Int(None) | Val::Real(None) => {
                ToSqlOutput::Borrowed(ValueRef::Null)
            }
        })
    }
}

/// A transaction on the one connection.
struct Tx<'c>(&'c Connection);

impl Sql for Tx<'_> {
    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, StoreError> {
        let mut statement = self.0.prepare_cached(sql).map_err(|e| db(&e))?;
        let n = statement
            .execute(rusqlite::params_from_iter(params))
            .map_err(|e| db(&e))?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.0.prepare_cached(sql).map_err(|e| db(&e))?;
        let columns = statement.column_count();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| db(&e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| db(&e))? {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                values.push(match row.get_ref(i).map_err(|e| db(&e))? {
                    ValueRef::Null => Val::Text(None),
                    ValueRef::Integer(n) => Val::Int(Some(n)),
                    ValueRef::Real(f) => Val::Real(Some(f)),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Val::Text(Some(String::from_utf8_lossy(t).into_owned()))
                    }
                });
            }
            out.push(values);
        }
        Ok(out)
    }

    fn skip_locked(&self) -> &'static str {
        ""
    }

    fn for_update(&self) -> &'static str {
        ""
    }

    fn for_share(&self) -> &'static str {
        ""
    }

    fn now_ms(&self) -> &'static str {
        "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
    }

    fn settled_events(&self) -> &'static str {
        "1 = 1"
    }
}

impl Backend for Sqlite {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let connection = self
            .connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        connection
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| db(&e))?;
        let mut tx = Tx(&connection);
        match body(&mut tx) {
            Ok(()) => connection.execute_batch("COMMIT").map_err(|e| db(&e)),
            Err(e) => {
                let _ = connection.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn read(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let reader = self
            .reader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        reader.execute_batch("BEGIN").map_err(|e| db(&e))?;
        let outcome = body(&mut Tx(&reader));
        // A read commits nothing: ending it either way releases its snapshot.
        let _ = reader.execute_batch(if outcome.is_ok() {
            "COMMIT"
        } else {
            "ROLLBACK"
        });
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan SQLite picks for `query` on a migrated store, one step per line.
    fn plan(query: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("t.db")).unwrap();
        let c = store.reader.lock().unwrap();
        let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {query}")).unwrap();
        let rows = s.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn the_status_index_serves_lists_and_counts_and_never_claims_or_tree_reads() {
        let claim = plan(
            "SELECT seq FROM tasks WHERE queued = 1 AND status = 'pending' AND waiting = 0 \
             ORDER BY priority, seq LIMIT 8",
        );
        assert!(claim.contains("tasks_ready"), "{claim}");
        let tree = plan("UPDATE tasks SET queued = 1 WHERE root_id = 'x' AND status = 'pending'");
        assert!(tree.contains("tasks_root"), "{tree}");
        let list = plan("SELECT * FROM tasks WHERE status || '' = 'failed' ORDER BY seq LIMIT 100");
        assert!(
            list.contains("tasks_status") && !list.contains("TEMP B-TREE"),
            "{list}"
        );
        let count = plan("SELECT status || '', COUNT(*) FROM tasks GROUP BY status || ''");
        assert!(count.contains("INDEX tasks_status"), "{count}");
    }
}
