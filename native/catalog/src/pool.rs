//! The connections of one catalog: up to `max` of them, opened when calls overlap and kept for
//! the next calls. PostgreSQL's come from the URL's `pool_max` ([`crate::url::PgOptions`]); an
//! SQLite file has one (its writers take turns anyway). A call that finds every connection busy
//! and the pool full waits for one to come back.

use std::sync::{Condvar, Mutex, MutexGuard};

use tickreel::Result;

use crate::backend::{Backend, Dialect};

type Connect = Box<dyn Fn() -> Result<Box<dyn Backend>> + Send + Sync>;

pub(crate) struct Pool {
    state: Mutex<State>,
    returned: Condvar,
    max: usize,
    connect: Connect,
    dialect: Dialect,
}

struct State {
    idle: Vec<Box<dyn Backend>>,
    /// Connections open: idle and lent.
    open: usize,
}

/// A connection lent by the pool, handed back when dropped.
pub(crate) struct Lent<'a> {
    pool: &'a Pool,
    conn: Option<Box<dyn Backend>>,
}

impl std::ops::Deref for Lent<'_> {
    type Target = Box<dyn Backend>;
    fn deref(&self) -> &Box<dyn Backend> {
        self.conn.as_ref().expect("lent until dropped")
    }
}

impl std::ops::DerefMut for Lent<'_> {
    fn deref_mut(&mut self) -> &mut Box<dyn Backend> {
        self.conn.as_mut().expect("lent until dropped")
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        // a panic inside a transaction rolled it back: the connection is still usable
        if let Some(c) = self.conn.take() {
            self.pool.lock().idle.push(c);
            self.pool.returned.notify_one();
        }
    }
}

impl Pool {
    /// A pool of at most `max` connections made by `connect`, starting with `first`.
    pub(crate) fn new(first: Box<dyn Backend>, max: usize, connect: Connect) -> Pool {
        Pool {
            dialect: first.dialect(),
            state: Mutex::new(State {
                idle: vec![first],
                open: 1,
            }),
            returned: Condvar::new(),
            max: max.max(1),
            connect,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Which database the connections reach.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// How many connections are open now.
    pub(crate) fn open(&self) -> usize {
        self.lock().open
    }

    /// An idle connection, a new one while fewer than `max` are open, else the first one handed
    /// back.
    pub(crate) fn take(&self) -> Result<Lent<'_>> {
        let mut state = self.lock();
        loop {
            if let Some(conn) = state.idle.pop() {
                return Ok(Lent {
                    pool: self,
                    conn: Some(conn),
                });
            }
            if state.open < self.max {
                state.open += 1;
                drop(state);
                return match (self.connect)() {
                    Ok(conn) => Ok(Lent {
                        pool: self,
                        conn: Some(conn),
                    }),
                    Err(e) => {
                        self.lock().open -= 1;
                        self.returned.notify_one();
                        Err(e)
                    }
                };
            }
            state = self.returned.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }
}
