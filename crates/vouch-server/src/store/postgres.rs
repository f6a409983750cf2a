//! The PostgreSQL backend, for several worker processes: a small pool of connections, claims
//! with `FOR UPDATE SKIP LOCKED`, migrations under an advisory lock so workers starting
//! together apply each once. A transaction that loses a deadlock or a serialization race is
//! run again (up to three times).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, NoTls, Statement};

use super::sql::{Row, Sql, Val, numbered};
use super::{Backend, Migration, StoreError};

/// The migrations, in order.
const MIGRATIONS: &[Migration] = &[
    (
        1,
        "tasks",
        include_str!("migrations/postgres/0001_tasks.sql"),
    ),
    (
        2,
        "event transactions",
        include_str!("migrations/postgres/0002_event_transactions.sql"),
    ),
    (
        3,
        "schedules",
        include_str!("migrations/postgres/0003_schedules.sql"),
    ),
    (4, "push", include_str!("migrations/postgres/0004_push.sql")),
    (
        5,
        "settles",
        include_str!("migrations/postgres/0005_settles.sql"),
    ),
    (
        6,
        "event times",
        include_str!("migrations/postgres/0006_event_times.sql"),
    ),
    (
        7,
        "status",
        include_str!("migrations/postgres/0007_status.sql"),
    ),
];

/// Connections kept for reuse.
const POOL: usize = 8;

/// How often the listening connection looks at the stop flag.
const LISTEN_TICK: Duration = Duration::from_millis(250);

/// How long a lost listening connection waits before connecting again.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// A connection and the statements prepared on it, by text.
struct Conn {
    client: Client,
    prepared: HashMap<String, Statement>,
}

/// The PostgreSQL backend.
pub(super) struct Postgres {
    config: postgres::Config,
    idle: Mutex<Vec<Conn>>,
}

/// How long connecting may take, and how long a statement or a lock wait may: no call to the
/// database waits without end (a worker cut off from it is stopped by its lease watchdog, and
/// its calls fail instead of hanging).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The server's `statement_timeout`, `lock_timeout` and `idle_in_transaction_session_timeout`.
const SERVER_TIMEOUTS: &str =
    "-c statement_timeout=30000 -c lock_timeout=15000 -c idle_in_transaction_session_timeout=60000";
/// How long sent data may stay unacknowledged, and when an idle connection is probed.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(15);
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres").finish_non_exhaustive()
    }
}

fn db(e: &postgres::Error) -> StoreError {
    StoreError::Database(e.as_db_error().map_or_else(
        || e.to_string(),
        |d| format!("{}: {}", d.code().code(), d.message()),
    ))
}

impl Postgres {
    /// Connects to `url` and migrates the database.
    pub(super) fn connect(url: &str) -> Result<Postgres, StoreError> {
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e: postgres::Error| StoreError::Open(e.to_string()))?;
        let options = match config.get_options() {
            Some(theirs) => format!("{theirs} {SERVER_TIMEOUTS}"),
            None => SERVER_TIMEOUTS.to_owned(),
        };
        config
            .options(&options)
            .connect_timeout(CONNECT_TIMEOUT)
            .tcp_user_timeout(TCP_USER_TIMEOUT)
            .keepalives(true)
            .keepalives_idle(KEEPALIVE_IDLE);
        let backend = Postgres {
            config,
            idle: Mutex::new(Vec::new()),
        };
        let mut conn = backend.conn()?;
        migrate(&mut conn.client)?;
        backend.put(conn);
        Ok(backend)
    }

    /// The idle connections (a panic elsewhere does not lose them).
    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn conn(&self) -> Result<Conn, StoreError> {
        let idle = self.idle().pop();
        match idle {
            Some(c) if !c.client.is_closed() => Ok(c),
            _ => self
                .config
                .connect(NoTls)
                .map(|client| Conn {
                    client,
                    prepared: HashMap::new(),
                })
                .map_err(|e| StoreError::Open(db(&e).to_string())),
        }
    }

    fn put(&self, conn: Conn) {
        let mut idle = self.idle();
        if idle.len() < POOL && !conn.client.is_closed() {
            idle.push(conn);
        }
    }
}

/// Applies the migrations the database has not seen, under an advisory lock.
fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client.transaction().map_err(|e| db(&e))?;
    tx.batch_execute(
        "SELECT pg_advisory_xact_lock(7468297); \
         CREATE TABLE IF NOT EXISTS vouch_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)",
    )
    .map_err(|e| db(&e))?;
    for (version, name, statements) in MIGRATIONS {
        let applied = tx
            .query_one(
                "SELECT COUNT(*) FROM vouch_migrations WHERE version = $1",
                &[version],
            )
            .map_err(|e| db(&e))?
            .get::<_, i64>(0);
        if applied == 0 {
            tx.batch_execute(statements).map_err(|e| {
                StoreError::Open(format!("migration {version} ({name}): {}", db(&e)))
            })?;
            tx.execute(
                "INSERT INTO vouch_migrations (version, name) VALUES ($1, $2)",
                &[version, name],
            )
            .map_err(|e| db(&e))?;
        }
    }
    tx.commit().map_err(|e| db(&e))
}

impl ToSql for Val {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Val::Text(Some(s)) => s.to_sql(ty, out),
            Val::Int(Some(i)) => i.to_sql(ty, out),
            Val::Real(Some(f)) => f.to_sql(ty, out),
            Val::Text(None) | Val::Int(None) | Val::Real(None) => Ok(IsNull::Yes),
        }
    }

    fn accepts(ty: &Type) -> bool {
        <String as ToSql>::accepts(ty) || <i64 as ToSql>::accepts(ty) || <f64 as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}

/// A transaction on one pooled connection, and that connection's prepared statements.
struct Tx<'c, 't> {
    tx: &'t mut postgres::Transaction<'c>,
    prepared: &'t mut HashMap<String, Statement>,
}

impl Tx<'_, '_> {
    /// Returns `sql` prepared, once per connection.
    fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let statement = self.tx.prepare(&numbered(sql)).map_err(|e| db(&e))?;
        self.prepared.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

fn params(values: &[Val]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

impl Sql for Tx<'_, '_> {
    fn exec(&mut self, sql: &str, values: &[Val]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.tx
            .execute(&statement, &params(values))
            .map_err(|e| db(&e))
    }

    fn query(&mut self, sql: &str, values: &[Val]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let rows = self
            .tx
            .query(&statement, &params(values))
            .map_err(|e| db(&e))?;
        rows.iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| {
                        let ty = row.columns()[i].type_();
                        let v = if *ty == Type::INT8 {
                            Val::Int(row.try_get(i).map_err(|e| db(&e))?)
                        } else if *ty == Type::INT4 {
                            Val::Int(
                                row.try_get::<_, Option<i32>>(i)
                                    .map_err(|e| db(&e))?
                                    .map(i64::from),
                            )
                        } else if *ty == Type::FLOAT8 {
                            Val::Real(row.try_get(i).map_err(|e| db(&e))?)
                        } else {
                            Val::Text(row.try_get(i).map_err(|e| db(&e))?)
                        };
                        Ok(v)
                    })
                    .collect()
            })
            .collect()
    }

    fn skip_locked(&self) -> &'static str {
        "FOR UPDATE SKIP LOCKED"
    }

    fn for_update(&self) -> &'static str {
        "FOR UPDATE"
    }

    fn for_share(&self) -> &'static str {
        "FOR SHARE"
    }

    fn now_ms(&self) -> &'static str {
        "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
    }

    fn settled_events(&self) -> &'static str {
        "tx < pg_snapshot_xmin(pg_current_snapshot())"
    }

    fn notify_ready(&mut self) -> Result<(), StoreError> {
        self.exec("SELECT pg_notify('vouch_ready', '')", &[])
            .map(|_| ())
    }
}

/// SQLSTATEs worth running a transaction again for: serialization failure, deadlock.
fn retryable(e: &StoreError) -> bool {
    matches!(e, StoreError::Database(m) if m.starts_with("40001") || m.starts_with("40P01"))
}

/// True when the connection was lost (terminated by the server, the server restarting, the
/// socket closed): a read is run again on a new connection; a write is not, since it may
/// have committed.
fn connection_lost(e: &StoreError) -> bool {
    match e {
        StoreError::Open(_) => true,
        StoreError::Database(m) => {
            m.starts_with("57P0")
                || m.starts_with("08")
                || m.contains("connection closed")
                || m.contains("error communicating with the server")
        }
        StoreError::Corrupt(_) => false,
    }
}

impl Backend for Postgres {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn listen(&self, stop: &AtomicBool, ready: &dyn Fn()) {
        let mut lost = false;
        while !stop.load(Ordering::SeqCst) {
            let mut client = match self.config.connect(NoTls) {
                Ok(c) => c,
                Err(e) => {
                    if !lost {
                        tracing::warn!(error = %db(&e), "the connection that wakes workers is lost; polling until it is back");
                        lost = true;
                    }
                    std::thread::sleep(LISTEN_RETRY);
                    continue;
                }
            };
            if let Err(e) = client.batch_execute("LISTEN vouch_ready") {
                tracing::warn!(error = %db(&e), "LISTEN failed");
                std::thread::sleep(LISTEN_RETRY);
                continue;
            }
            if lost {
                tracing::info!("the connection that wakes workers is back");
                lost = false;
            }
            // What happened while no connection listened is found by a look at once.
            ready();
            while !stop.load(Ordering::SeqCst) && !client.is_closed() {
                let mut notifications = client.notifications();
                let next = notifications.timeout_iter(LISTEN_TICK).next();
                match next {
                    Ok(Some(_)) => {
                        // Those that came together wake the workers once.
                        let _ = notifications.iter().count();
                        ready();
                    }
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!(error = %db(&e), "the connection that wakes workers is lost; polling until it is back");
                        lost = true;
                        break;
                    }
                }
            }
        }
    }

    fn read(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        up_to_three_tries(connection_lost, |tries| {
            let outcome = self.transaction(body);
            // A connection cut is tried again at once on a new one; only a server that cannot
            // be reached (restarting) is given time.
            if let Err(StoreError::Open(_)) = &outcome
                && tries < 3
            {
                std::thread::sleep(Duration::from_millis(100 * tries));
            }
            outcome
        })
    }

    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        up_to_three_tries(retryable, |_| {
            let mut conn = self.conn()?;
            let outcome = (|| {
                let Conn { client, prepared } = &mut conn;
                let mut tx = client.transaction().map_err(|e| db(&e))?;
                body(&mut Tx {
                    tx: &mut tx,
                    prepared,
                })?;
                tx.commit().map_err(|e| db(&e))
            })();
            if let Err(e) = &outcome {
                // A failed statement may have left its prepared siblings behind: start afresh.
                conn.prepared.clear();
                if connection_lost(e) {
                    // The idle connections most likely went with this one (a restart ends them
                    // all): each would fail its next caller in turn.
                    self.idle().clear();
                }
            }
            self.put(conn);
            outcome
        })
    }
}

/// Runs `attempt` (given its try's number, from 1) until it succeeds, fails with an error
/// `again` does not accept, or has been tried three times.
fn up_to_three_tries(
    again: fn(&StoreError) -> bool,
    mut attempt: impl FnMut(u64) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut tries = 0;
    loop {
        tries += 1;
        match attempt(tries) {
            Err(e) if tries < 3 && again(&e) => {}
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_a_restart_a_read_answers_on_its_first_call() {
        let pg = vouch_standin::postgres::Cluster::start()
            .unwrap_or_else(|e| panic!("a PostgreSQL cluster is needed: {e}"));
        let backend = Postgres::connect(pg.url()).unwrap();
        // Four idle connections, as a busy server keeps; a restart ends them all.
        let conns: Vec<Conn> = (0..4).map(|_| backend.conn().unwrap()).collect();
        for conn in conns {
            backend.put(conn);
        }
        pg.restart().unwrap();
        let mut answered = false;
        backend
            .read(&mut |sql| {
                sql.exec("SELECT 1", &[])?;
                answered = true;
                Ok(())
            })
            .unwrap();
        assert!(answered);
    }
}
