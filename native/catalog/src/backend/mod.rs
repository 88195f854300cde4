//! The two databases behind one small interface: statements with `$1, $2, ...` placeholders (the
//! same text on both: SQLite numbers `$N` parameters by first appearance, and every statement
//! here uses them in order), values of four types, and transactions that are retried when the
//! database asks for it (a serialization failure or deadlock on PostgreSQL).
//!
//! No other module of the workspace holds SQL: the statements live in [`crate::schema`],
//! [`crate::register`], [`crate::query`], [`crate::reports`] and [`crate::retain`], above this
//! interface.

#[cfg(feature = "postgres")]
pub(crate) mod postgres;
pub(crate) mod sqlite;
#[cfg(feature = "postgres")]
mod tls;

use tickreel::{Error, Result};

/// Which database a statement runs on (the few places where the SQL differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A statement parameter or a column value. Integers are `BIGINT`, reals `DOUBLE PRECISION`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    Real(f64),
    Text(String),
    /// A `NULL` of a `BIGINT` column.
    NullInt,
    /// A `NULL` of a `TEXT` column.
    NullText,
    /// A `NULL` of a `DOUBLE PRECISION` column.
    NullReal,
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<Option<i64>> for Value {
    fn from(v: Option<i64>) -> Value {
        v.map_or(Value::NullInt, Value::Int)
    }
}
impl From<Option<f64>> for Value {
    fn from(v: Option<f64>) -> Value {
        v.map_or(Value::NullReal, Value::Real)
    }
}
impl From<Option<String>> for Value {
    fn from(v: Option<String>) -> Value {
        v.map_or(Value::NullText, Value::Text)
    }
}

/// One result row.
#[derive(Debug, Clone)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value> {
        self.0
            .get(i)
            .ok_or_else(|| Error::corrupt(format!("catalog: the row has no column {i}")))
    }
    pub(crate) fn int(&self, i: usize) -> Result<i64> {
        match self.at(i)? {
            Value::Int(v) => Ok(*v),
            other => Err(Error::corrupt(format!(
                "catalog: column {i} is {other:?}, not an integer"
            ))),
        }
    }
    pub(crate) fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.at(i)? {
            Value::NullInt | Value::NullText | Value::NullReal => Ok(None),
            _ => self.int(i).map(Some),
        }
    }
    pub(crate) fn real(&self, i: usize) -> Result<f64> {
        match self.at(i)? {
            Value::Real(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            other => Err(Error::corrupt(format!(
                "catalog: column {i} is {other:?}, not a number"
            ))),
        }
    }
    pub(crate) fn opt_real(&self, i: usize) -> Result<Option<f64>> {
        match self.at(i)? {
            Value::NullInt | Value::NullText | Value::NullReal => Ok(None),
            _ => self.real(i).map(Some),
        }
    }
    pub(crate) fn text(&self, i: usize) -> Result<String> {
        match self.at(i)? {
            Value::Text(v) => Ok(v.clone()),
            other => Err(Error::corrupt(format!(
                "catalog: column {i} is {other:?}, not text"
            ))),
        }
    }
    pub(crate) fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.at(i)? {
            Value::NullInt | Value::NullText | Value::NullReal => Ok(None),
            _ => self.text(i).map(Some),
        }
    }
    /// A `u32` column (ticks, entity ids, checkpoint indices).
    pub(crate) fn u32(&self, i: usize) -> Result<u32> {
        let v = self.int(i)?;
        u32::try_from(v)
            .map_err(|_| Error::corrupt(format!("catalog: column {i} holds {v}, not a u32")))
    }
}

/// Statements inside one transaction.
pub(crate) trait Conn {
    fn dialect(&self) -> Dialect;
    /// Runs a statement; the number of rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64>;
    /// Runs a query; its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>>;
    /// Runs several statements without parameters (migrations).
    fn batch(&mut self, sql: &str) -> Result<()>;
}

impl dyn Conn + '_ {
    /// The only row of a query (an error when there is none).
    pub(crate) fn one(&mut self, sql: &str, params: &[Value]) -> Result<Row> {
        self.query(sql, params)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::InvalidState("catalog: the query returned no row".into()))
    }
}

/// Why a transaction failed: retried when `retry` (the database resolved a conflict by aborting
/// it), else returned.
pub(crate) struct TxError {
    pub(crate) error: Error,
    pub(crate) retry: bool,
}

/// An open database connection.
pub(crate) trait Backend: Send {
    fn dialect(&self) -> Dialect;
    /// Runs `f` in one transaction (writes take the database's write lock at its start on
    /// SQLite), committed when `f` returns `Ok`, rolled back otherwise.
    fn transaction(
        &mut self,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<()>,
    ) -> std::result::Result<(), TxError>;
}

/// A database error as a library error (`Error::Database`). The message holds
/// the error's causes (a server's own message is a driver error's source); `scrub` removes the
/// connection's secret from it (drivers may echo parts of a connection string).
pub(crate) fn db_error(what: &str, e: impl std::error::Error, scrub: &[String]) -> Error {
    let mut msg = format!("catalog: {what}: {e}");
    let mut cause = e.source();
    while let Some(c) = cause {
        let part = c.to_string();
        if !msg.ends_with(&part) {
            msg.push_str(": ");
            msg.push_str(&part);
        }
        cause = c.source();
    }
    for s in scrub.iter().filter(|s| !s.is_empty()) {
        msg = msg.replace(s.as_str(), "***");
    }
    Error::Database(msg)
}
