//! The catalog (`crate::api::catalog`, whose entry points are generated): the C types of an open
//! catalog and of a call running on its worker.

/// An open catalog of runs and its worker thread. Opaque: open with `tickreel_catalog_open`,
/// release with `tickreel_catalog_free`.
pub struct TickreelCatalog {
    _private: [u8; 0],
}

/// A catalog call running on the catalog's worker. Opaque: created by the `tickreel_catalog_*`
/// queries, polled with `tickreel_catalog_call_poll`, read with `tickreel_catalog_call_rows` or
/// `tickreel_catalog_call_ghost_load`, released with `tickreel_catalog_call_free`.
pub struct TickreelCatalogCall {
    _private: [u8; 0],
}
