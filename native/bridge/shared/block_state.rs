//! The block of a multi-block change as C passes and reads it: plain data, which the neutral
//! layer's batch and event operations take and give as it is (so it depends on nothing).
//! `build.rs` hands this file to cbindgen beside `ffi/` (and `crate::ffi::world` re-exports it).

/// A block and its new state: one block of a multi-block change (`tickreel_batch_block_changes`,
/// `TickreelEvent.blocks`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelBlockState {
    /// Block x.
    pub x: i32,
    /// Block y.
    pub y: i32,
    /// Block z.
    pub z: i32,
    /// The new state: an id of the recording's block palette.
    pub state: u32,
}
