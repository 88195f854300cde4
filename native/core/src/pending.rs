//! The library's "result later" type with its error: [`Pending<T>`] is
//! `tickreel_sync::pending::Pending<T, Error>` (the type and its sender live in `tickreel-sync`,
//! below the core, so that object storage and the bridge share it).

use crate::Error;

/// A result another thread delivers once: polled without blocking, waited for, or awaited as a
/// future (see [`tickreel_sync::pending::Pending`]). A recording's finish, a shadow-play report,
/// a ghost load, a catalog call and an object upload each hand one back.
pub type Pending<T> = tickreel_sync::pending::Pending<T, Error>;

/// A [`Pending`] several holders share, each getting a copy of the result (see
/// [`tickreel_sync::pending::SharedPending`]): e.g. an upload that waits on a recording's finish
/// while the game polls the same finish.
pub type SharedPending<T> = tickreel_sync::pending::SharedPending<T, Error>;

/// The sending side of a [`Pending`].
pub(crate) type Sender<T> = tickreel_sync::pending::Sender<T, Error>;

impl tickreel_sync::pending::PendingError for Error {
    fn lost(what: &'static str, lost: Option<&'static str>) -> Error {
        Error::InvalidState(lost.map_or_else(
            || format!("the {what} ended without a result"),
            str::to_string,
        ))
    }

    fn taken(what: &'static str) -> Error {
        Error::InvalidState(format!("the {what}'s result was already taken"))
    }

    fn duplicate(&self) -> Error {
        Error::duplicate(self)
    }
}
