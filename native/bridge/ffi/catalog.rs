//! The catalog (`crate::api::catalog`, whose entry points are generated): the C type of an open
//! catalog (its calls answer with pendings, `crate::ffi::pending`).

/// An open catalog of runs and its worker thread. Opaque: open with `tickreel_catalog_open`,
/// release with `tickreel_catalog_free`.
pub struct TickreelCatalog {
    _private: [u8; 0],
}
