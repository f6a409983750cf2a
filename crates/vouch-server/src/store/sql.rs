//! The little SQL both stores speak: typed parameters and values, `?` placeholders (rewritten
//! to `$n` for PostgreSQL), and one transaction's statements. The task logic is written once
//! against [`Sql`]; each backend only runs statements.

use super::StoreError;

/// A parameter or a column value. Each kind carries its own null, so that PostgreSQL learns
/// the parameter's type even when it is null.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    /// Text (JSON documents are stored as text).
    Text(Option<String>),
    /// A 64-bit integer (booleans are 0 or 1).
    Int(Option<i64>),
    /// A double.
    Real(Option<f64>),
}

impl Val {
    /// Returns the text, when it is non-null text.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Val::Text(Some(s)) => Some(s),
            _ => None,
        }
    }

    /// Returns the integer, when it is a non-null number.
    pub(crate) fn int(&self) -> Option<i64> {
        match self {
            Val::Int(Some(i)) => Some(*i),
            #[expect(
                clippy::cast_possible_truncation,
                reason = "counts and flags read as doubles by some drivers are whole"
            )]
            Val::Real(Some(f)) => Some(*f as i64),
            _ => None,
        }
    }

    /// Returns the double, when it is a non-null number.
    pub(crate) fn real(&self) -> Option<f64> {
        match self {
            Val::Real(Some(f)) => Some(*f),
            #[expect(
                clippy::cast_precision_loss,
                reason = "progress values stored as integers are 0 or 1"
            )]
            Val::Int(Some(i)) => Some(*i as f64),
            _ => None,
        }
    }
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Text(Some(s.to_owned()))
    }
}

impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Text(Some(s))
    }
}

impl From<Option<String>> for Val {
    fn from(s: Option<String>) -> Val {
        Val::Text(s)
    }
}

impl From<i64> for Val {
    fn from(i: i64) -> Val {
        Val::Int(Some(i))
    }
}

impl From<Option<i64>> for Val {
    fn from(i: Option<i64>) -> Val {
        Val::Int(i)
    }
}

impl From<Option<f64>> for Val {
    fn from(f: Option<f64>) -> Val {
        Val::Real(f)
    }
}

/// A row: its columns in the order of the query.
pub(crate) type Row = Vec<Val>;

/// One open transaction.
pub(crate) trait Sql {
    /// Runs a statement; returns how many rows it changed.
    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, StoreError>;
    /// Runs a query; returns its rows.
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Row>, StoreError>;
    /// The clause that makes a claim skip rows other workers hold (`FOR UPDATE SKIP LOCKED` on
    /// PostgreSQL; nothing on SQLite, whose writers are serialized).
    fn skip_locked(&self) -> &'static str;
    /// The clause that locks the rows a query reads until the transaction ends (`FOR UPDATE`
    /// on PostgreSQL; nothing on SQLite, whose writers are serialized).
    fn for_update(&self) -> &'static str;
    /// The clause that keeps the rows a query reads from changing until the transaction ends
    /// (`FOR SHARE` on PostgreSQL; nothing on SQLite).
    fn for_share(&self) -> &'static str;
    /// An expression for the database's clock, in milliseconds since the epoch: leases are
    /// measured by the one clock every worker shares, not each worker's own.
    fn now_ms(&self) -> &'static str;
    /// A condition on `events` that holds for the events no transaction still in flight can
    /// precede (PostgreSQL assigns `seq` at insert, not at commit); `TRUE` on SQLite, whose
    /// writers commit in the order they insert.
    fn settled_events(&self) -> &'static str;
    /// Tells the workers of other processes, when this transaction commits, that tasks became
    /// ready (PostgreSQL's `NOTIFY`); nothing on SQLite, whose workers share one process.
    fn notify_ready(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Rewrites `?` placeholders to `$1`, `$2`, … (PostgreSQL's), leaving quoted text alone.
pub(crate) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut quoted = false;
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ? AND c = '?' AND d IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c = '?' AND d IN ($2, $3)"
        );
    }
}
