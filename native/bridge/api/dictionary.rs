//! Compression dictionaries: registering a trained zstd dictionary (`tickreel dict train`'s
//! output) with the library, so that recordings naming its id in their header can be written
//! and read (`tickreel::dictionary`).

use tickreel_bridge_macros::bridge_fn;

/// Registers a zstd dictionary and stores its id (the one its zstd header names, 1..65535) in
/// `*out_id`. The bytes are checked and copied: not a zstd dictionary, an id outside 1..65535,
/// more than 1 MiB or damaged tables is `TICKREEL_RESULT_INVALID_ARGUMENT` (or
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` for the size); other bytes under an id already registered is
/// `TICKREEL_RESULT_INVALID_STATE`; the same bytes again are harmless. Registered dictionaries
/// stay for the life of the process. A recording whose dictionary is not registered fails to
/// open with `TICKREEL_RESULT_UNSUPPORTED`, its message naming the id.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_dictionary_register",
    c_out = "out_id",
    java = "dictionaryRegister"
)]
pub fn register(bytes: &[u8]) -> tickreel::Result<u32> {
    tickreel::dictionary::register(bytes).map(u32::from)
}

/// Whether a dictionary is registered under `id` (0, no dictionary, never is).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_dictionary_is_registered",
    c_out = "out_registered",
    java = "dictionaryIsRegistered"
)]
pub fn is_registered(id: u32) -> bool {
    u16::try_from(id).is_ok_and(|id| tickreel::dictionary::registered().contains(&id))
}
