//! PostgreSQL over the network (`postgres`, the synchronous client of `tokio-postgres`), over TLS
//! as the URL's `sslmode` says ([`super::tls`]). The connection string's password never reaches
//! an error or a log: every message is scrubbed of it, and the catalog names the server by
//! [`crate::url::CatalogUrl::redacted`].

use postgres::config::SslMode as DriverSslMode;
use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls};
use tickreel::Result;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::url::{PgOptions, SslMode};

use super::{Backend, Conn, Dialect, Row, TxError, Value, db_error};

pub(crate) struct Postgres {
    client: Client,
    /// Strings never shown (the password).
    scrub: Vec<String>,
    /// The connection's prepared statements by their SQL (see [`Statements`]).
    statements: Statements,
}

/// The statements prepared on one connection, by their SQL: each statement the catalog runs is
/// parsed (and its parameters typed) by the server once per connection, not once per call, which
/// halves the round trips of a call (a registration of 1,000 runs makes 2,000 calls) and spares
/// the server the parsing. A connection's statements outlive its transactions (PostgreSQL keeps
/// protocol-level prepared statements until the session ends, whatever a transaction does). The
/// catalog's SQL is a fixed set of texts (a few dozen, with the filters' variants), bounded here
/// anyway: past [`Statements::MAX`] the cache starts over.
#[derive(Default)]
struct Statements(std::collections::HashMap<String, postgres::Statement>);

impl Statements {
    const MAX: usize = 256;

    /// The prepared statement of `sql`, prepared in `tx` the first time.
    fn get(
        &mut self,
        tx: &mut postgres::Transaction<'_>,
        sql: &str,
    ) -> std::result::Result<postgres::Statement, postgres::Error> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = tx.prepare(sql)?;
        if self.0.len() >= Statements::MAX {
            self.0.clear();
        }
        self.0.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

impl Postgres {
    /// Connects to `url` (`postgres://user:password@host:port/db`, without the catalog's own
    /// settings) as `options` say; `redacted` names it in errors.
    pub(crate) fn connect(
        url: &str,
        options: &PgOptions,
        redacted: &str,
        scrub: Vec<String>,
    ) -> Result<Postgres> {
        let mut config: postgres::Config = url.parse().map_err(|e| {
            db_error(
                &format!("{redacted} is not a valid PostgreSQL URL"),
                e,
                &scrub,
            )
        })?;
        config.ssl_mode(match options.ssl_mode {
            SslMode::Disable => DriverSslMode::Disable,
            SslMode::Prefer => DriverSslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverSslMode::Require,
        });
        let tls = super::tls::client_config(options.ssl_mode, options.root_cert.as_deref())?;
        let connected = match tls {
            None => config.connect(NoTls),
            Some(tls) => config.connect(MakeRustlsConnect::new(tls)),
        };
        let client = connected.map_err(|e| {
            let mut what = format!("connect to {redacted}");
            if e.to_string().contains("invalid peer certificate")
                || std::error::Error::source(&e)
                    .is_some_and(|c| c.to_string().contains("invalid peer certificate"))
            {
                what.push_str(match &options.root_cert {
                    Some(_) => " (the server's certificate did not verify against sslrootcert)",
                    None => {
                        " (the server's certificate did not verify against the system's CAs: \
                         give its CA with sslrootcert=FILE)"
                    }
                });
            }
            db_error(&what, e, &scrub)
        })?;
        Ok(Postgres {
            client,
            scrub,
            statements: Statements::default(),
        })
    }
}

fn retryable(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

fn params(values: &[Value]) -> Vec<Box<dyn ToSql + Sync>> {
    values
        .iter()
        .map(|v| -> Box<dyn ToSql + Sync> {
            match v {
                Value::Int(i) => Box::new(*i),
                Value::Real(r) => Box::new(*r),
                Value::Text(t) => Box::new(t.clone()),
                Value::NullInt => Box::new(None::<i64>),
                Value::NullText => Box::new(None::<String>),
                Value::NullReal => Box::new(None::<f64>),
            }
        })
        .collect()
}

fn row_values(row: &postgres::Row) -> std::result::Result<Vec<Value>, String> {
    let mut out = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let t = col.type_();
        let v = if *t == Type::INT8 {
            row.try_get::<_, Option<i64>>(i).map(Value::from)
        } else if *t == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)
                .map(|v| Value::from(v.map(i64::from)))
        } else if *t == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)
                .map(|v| Value::from(v.map(i64::from)))
        } else if *t == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)
                .map(|v| v.map_or(Value::NullReal, Value::Real))
        } else if *t == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)
                .map(|v| Value::from(v.map(i64::from)))
        } else if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::NAME {
            row.try_get::<_, Option<String>>(i).map(Value::from)
        } else {
            return Err(format!("column {} has the unexpected type {t}", col.name()));
        };
        out.push(v.map_err(|e| e.to_string())?);
    }
    Ok(out)
}

struct PgConn<'a, 'b> {
    tx: &'a mut postgres::Transaction<'b>,
    statements: &'a mut Statements,
    retry: &'a mut bool,
    scrub: &'a [String],
}

impl PgConn<'_, '_> {
    fn fail(&mut self, what: &str, e: postgres::Error) -> tickreel::Error {
        *self.retry |= retryable(&e);
        db_error(what, e, self.scrub)
    }
}

impl Conn for PgConn<'_, '_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn execute(&mut self, sql: &str, values: &[Value]) -> Result<u64> {
        let boxed = params(values);
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
        let statement = match self.statements.get(self.tx, sql) {
            Ok(statement) => statement,
            Err(e) => return Err(self.fail("statement failed", e)),
        };
        match self.tx.execute(&statement, &refs) {
            Ok(n) => Ok(n),
            Err(e) => Err(self.fail("statement failed", e)),
        }
    }
    fn query(&mut self, sql: &str, values: &[Value]) -> Result<Vec<Row>> {
        let boxed = params(values);
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref()).collect();
        let statement = match self.statements.get(self.tx, sql) {
            Ok(statement) => statement,
            Err(e) => return Err(self.fail("query failed", e)),
        };
        let rows = match self.tx.query(&statement, &refs) {
            Ok(rows) => rows,
            Err(e) => return Err(self.fail("query failed", e)),
        };
        rows.iter()
            .map(|r| {
                row_values(r)
                    .map(Row)
                    .map_err(|m| tickreel::Error::corrupt(format!("catalog: query result: {m}")))
            })
            .collect()
    }
    fn batch(&mut self, sql: &str) -> Result<()> {
        match self.tx.batch_execute(sql) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail("statements failed", e)),
        }
    }
}

impl Backend for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn transaction(
        &mut self,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<()>,
    ) -> std::result::Result<(), TxError> {
        let scrub = self.scrub.clone();
        let mut tx = self.client.transaction().map_err(|e| TxError {
            retry: retryable(&e),
            error: db_error("begin a transaction", e, &scrub),
        })?;
        let mut retry = false;
        let r = f(&mut PgConn {
            tx: &mut tx,
            statements: &mut self.statements,
            retry: &mut retry,
            scrub: &scrub,
        });
        match r {
            Ok(()) => tx.commit().map_err(|e| TxError {
                retry: retryable(&e),
                error: db_error("commit", e, &scrub),
            }),
            Err(error) => Err(TxError { error, retry }),
        }
    }
}
