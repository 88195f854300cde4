//! SQLite, embedded (`rusqlite` with SQLite built in): one file, WAL journal, writers queued by
//! the database's lock (every transaction begins `IMMEDIATE`, so two writers never deadlock on
//! upgrading a read lock; a busy database is waited for up to [`BUSY_TIMEOUT`]).

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior, params_from_iter};
use tickreel::Result;

use super::{Backend, Conn, Dialect, Row, TxError, Value, db_error};

/// How long a writer waits for another one's transaction before failing.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    /// Opens (creating it if missing) the database file at `path`.
    pub(crate) fn open(path: &Path) -> Result<Sqlite> {
        let err = |e: rusqlite::Error| db_error(&format!("open {}", path.display()), e, &[]);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // WAL: readers never wait for the writer. FULL: a committed transaction survives power
        // loss (prune relies on it: its deletion marks are committed before any file goes).
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err)?;
        Ok(Sqlite { conn })
    }
}

fn to_sql(v: &Value) -> SqlValue {
    match v {
        Value::Int(i) => SqlValue::Integer(*i),
        Value::Real(r) => SqlValue::Real(*r),
        Value::Text(t) => SqlValue::Text(t.clone()),
        Value::NullInt | Value::NullText | Value::NullReal => SqlValue::Null,
    }
}

fn from_sql(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::NullInt,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::Text(String::from_utf8_lossy(t).into()),
    }
}

struct SqliteConn<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    busy: &'a mut bool,
}

impl SqliteConn<'_> {
    fn fail(&mut self, what: &str, e: rusqlite::Error) -> tickreel::Error {
        if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) {
            *self.busy = true;
        }
        db_error(what, e, &[])
    }
}

impl Conn for SqliteConn<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        match self
            .tx
            .execute(sql, params_from_iter(params.iter().map(to_sql)))
        {
            Ok(n) => Ok(n as u64),
            Err(e) => Err(self.fail("statement failed", e)),
        }
    }
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let r = (|| {
            let mut stmt = self.tx.prepare_cached(sql)?;
            let n = stmt.column_count();
            let mut rows = stmt.query(params_from_iter(params.iter().map(to_sql)))?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let mut vals = Vec::with_capacity(n);
                for i in 0..n {
                    vals.push(from_sql(row.get_ref(i)?));
                }
                out.push(Row(vals));
            }
            Ok(out)
        })();
        r.map_err(|e| self.fail("query failed", e))
    }
    fn batch(&mut self, sql: &str) -> Result<()> {
        self.tx
            .execute_batch(sql)
            .map_err(|e| self.fail("statements failed", e))
    }
}

impl Backend for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn transaction(
        &mut self,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<()>,
    ) -> std::result::Result<(), TxError> {
        let mut busy = false;
        let fail = |error, retry| TxError { error, retry };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| {
                let retry = e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy);
                fail(db_error("begin a transaction", e, &[]), retry)
            })?;
        let r = f(&mut SqliteConn {
            tx: &tx,
            busy: &mut busy,
        });
        match r {
            Ok(()) => tx.commit().map_err(|e| {
                let retry = e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy);
                fail(db_error("commit", e, &[]), retry)
            }),
            // dropping the transaction rolls it back
            Err(error) => Err(fail(error, busy)),
        }
    }
}
