//! The thread infrastructure every library crate shares (the core, object storage, the catalog,
//! the bridge), below all of them:
//!
//! - [`sync`]: `Mutex` and `Condvar` with `parking_lot`'s interface over `std::sync`, which
//!   registers no thread-local destructor on a waiting thread;
//! - [`threads`]: the library's named threads, and channel waits that never leave a thread-exit
//!   callback on a caller's thread (`recv_until`, `send`, `send_until`, `wait_ready`);
//! - [`pending`]: the library's one "result later" type, [`pending::Pending`] (the core names it
//!   `tickreel::Pending<T>` with its error).
//!
//! Why it matters: a plugin's thread that ends after the plugin was reloaded (the library
//! unloaded) would otherwise call into unmapped code; see `clippy.toml` for the calls the library
//! crates may not make.

#![cfg_attr(
    not(test),
    deny(
        clippy::disallowed_methods,
        clippy::disallowed_macros,
        clippy::disallowed_types
    )
)]

pub mod pending;
pub mod sync;
pub mod threads;
