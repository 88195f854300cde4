//! Reading a finished recording ([`tickreel::play::Reader`]): information, metadata, seeking to
//! the state at a tick, the decoded ticks, verification.

use std::path::Path;

use crate::api::{Id, New, Released};
use crate::shared::handle::HandleType;
use tickreel::play::{self, SeekState, VerifyReport};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// An open recording (C: `TickreelReader`, Java: `Reader`); usable from many threads at once.
pub struct Reader(pub(crate) play::Reader);

impl HandleType for Reader {
    const TAG: u8 = 3;
    const NAME: &'static str = "reader";
}

/// What Java's `Header` shows (the header and the tick range).
pub struct ReaderInfo<'a>(pub &'a play::Reader);

/// The name of a palette id, or none (C: an empty string, Java: `null`).
pub struct PaletteName(pub Option<String>);

/// Most bytes one [`ticks`] call returns; the caller asks for the rest in further calls.
const MAX_TICKS_BYTES: usize = 4 << 20;

/// Opens the recording at `path` (a NUL-terminated path in the platform's encoding): a finished
/// `.reel` file, or a live recording's directory (`<name>.reel.live`: what was flushed when it is
/// opened) and stores the reader's handle in `*out_reader`. Reads and checks the header, metadata
/// and index; chunks are read when needed.
///
/// Returns `TICKREEL_RESULT_IO` if the file cannot be opened, `TICKREEL_RESULT_CORRUPT` for a file
/// that is not a tickreel recording or is damaged, `TICKREEL_RESULT_TRUNCATED` for a file cut
/// short, `TICKREEL_RESULT_UNSUPPORTED` for a newer format. On failure `*out_reader` is set to
/// NULL (when it can be written).
///
/// Thread safety: any thread. A reader may then be used from any number of threads at once.
#[bridge_fn(c = "tickreel_reader_open", c_out = "out_reader", java = "readerOpen")]
pub fn open(path: &Path) -> tickreel::Result<New<Reader>> {
    Ok(New(Reader(play::Reader::open_any(path)?)))
}

/// Closes a reader. `tickreel_reader_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same reader still running in other threads finish
/// normally (the file is closed after the last one); calls that start after this one get
/// `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_reader_free")]
pub fn free(_reader: Released<Reader>) {}

/// Stores the number of ticks the recording spans (last tick - first tick + 1; 0 when it is
/// empty) in `*out_ticks`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(c = "tickreel_reader_tick_count", c_out = "out_ticks")]
pub fn tick_count(reader: &Reader) -> u32 {
    reader.0.header().tick_count
}

fn no_ticks() -> tickreel::Error {
    tickreel::Error::InvalidState("the recording has no ticks".into())
}

/// Stores the first recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
/// recording has no ticks.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(c = "tickreel_reader_first_tick", c_out = "out_tick")]
pub fn first_tick(reader: &Reader) -> tickreel::Result<u32> {
    reader.0.first_tick().ok_or_else(no_ticks)
}

/// Stores the last recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
/// recording has no ticks.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(c = "tickreel_reader_last_tick", c_out = "out_tick")]
pub fn last_tick(reader: &Reader) -> tickreel::Result<u32> {
    reader.0.last_tick().ok_or_else(no_ticks)
}

/// Stores the number of chunks (independently decodable pieces of about 10 s) in `*out_chunks`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(c = "tickreel_reader_chunk_count", c_out = "out_chunks")]
pub fn chunk_count(reader: &Reader) -> u32 {
    u32::try_from(reader.0.index().len()).expect("the header's chunk count is a u32")
}

/// Stores the recording's tick rate in ticks per second (e.g. 20.0) in `*out_rate`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(c = "tickreel_reader_tick_rate", c_out = "out_rate")]
pub fn tick_rate(reader: &Reader) -> f64 {
    reader.0.tick_rate()
}

/// The header's fields and the tick range, for Java's `Header`.
#[bridge_fn(java = "readerInfo")]
pub fn info(reader: &Reader) -> ReaderInfo<'_> {
    ReaderInfo(&reader.0)
}

/// Copies the recording's metadata, the whole metadata section as an NBT root compound (the
/// user's keys plus the library's own `"tickreel"` compound, big-endian NBT as Minecraft writes
/// it), into `nbt`.
///
/// `*out_count` is always set to its length in bytes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
/// `*out_count` bytes. `nbt` may be NULL when `capacity` is 0, to query the length.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_metadata",
    c_out_array = "nbt",
    c_out_type = "u8",
    java = "readerMetadata"
)]
pub fn metadata(reader: &Reader) -> tickreel::Result<Vec<u8>> {
    reader.0.metadata().encode()
}

/// Computes the state of every live entity at `tick` (clamped into the recording) and copies it
/// into `states`, sorted by entity id. Decodes only the chunk holding the tick.
///
/// `*out_count` is always set to the number of entities at that tick. If it exceeds `capacity`,
/// nothing is copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room
/// for `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
/// `*out_tick` (if `out_tick` is not NULL) receives the tick actually used after clamping.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording has no ticks,
/// `TICKREEL_RESULT_CORRUPT`/`TICKREEL_RESULT_TRUNCATED` if the chunk is damaged.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_seek",
    c_out_array = "states",
    c_out_type = "TickreelEntityState",
    c_out = "out_tick",
    c_out_extra_type = "u32",
    c_out_optional,
    java = "readerSeek"
)]
pub fn seek(reader: &Reader, tick: u32) -> tickreel::Result<SeekState> {
    reader.0.seek(tick)
}

/// Copies the recorded ticks in `from..=to` into `buf`, each as a big-endian `uint32_t` tick, a
/// big-endian `uint32_t` length, then that many bytes of its events in the tick batch encoding
/// (the format `tickreel_batch_bytes` gives, FORMAT.md); ticks without events are left out. Stops
/// after the tick that crosses about 4 MiB: continue from the tick after the last one returned.
/// Empty when no tick is in the range.
///
/// `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
/// `*out_count` bytes. `buf` may be NULL when `capacity` is 0. Returns
/// `TICKREEL_RESULT_INVALID_ARGUMENT` if `to < from`, `TICKREEL_RESULT_CORRUPT` or
/// `_TRUNCATED` for a damaged chunk.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_ticks",
    c_out_array = "buf",
    c_out_type = "u8",
    java = "readerTicks"
)]
pub fn ticks(reader: &Reader, from: u32, to: u32) -> tickreel::Result<Vec<u8>> {
    if to < from {
        return Err(tickreel::Error::invalid(format!(
            "tick range {from} to {to} is empty"
        )));
    }
    let mut out = Vec::new();
    for t in reader.0.ticks(from, to) {
        let t = t?;
        crate::api::encode_ticks([(t.tick, t.events.as_slice())], &mut out)?;
        if out.len() >= MAX_TICKS_BYTES {
            break;
        }
    }
    Ok(out)
}

/// Reads and decodes every chunk, checking checksums and the consistency of header and index.
/// Stores what was checked in `*out_report` (`out_report` may be NULL).
///
/// Returns `TICKREEL_RESULT_OK` if the file is sound, `TICKREEL_RESULT_CORRUPT` or
/// `TICKREEL_RESULT_TRUNCATED` (with the damaged chunk in the message) otherwise. Reads the
/// whole file: blocks for the I/O.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_verify",
    c_out = "out_report",
    c_out_type = "TickreelVerifyReport",
    c_out_optional,
    java = "readerVerify"
)]
pub fn verify(reader: &Reader) -> tickreel::Result<VerifyReport> {
    reader.0.verify()
}

/// Copies the name of id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or
/// `_DAMAGE_CAUSE`), e.g. `"minecraft:stone"`, into `name_buf` as a NUL-terminated string, and
/// its length (without the NUL) into `*out_len` (`out_len` may be NULL). An id the recording does
/// not name gives the empty string (a name is never empty).
///
/// With `capacity` 0 nothing is copied (a length query); a buffer too small for the name and its
/// NUL returns `TICKREEL_RESULT_BUFFER_TOO_SMALL`. Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for
/// an unknown kind.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_palette_name",
    c_out_string = "name_buf",
    java = "readerPaletteName"
)]
pub fn palette_name(reader: &Reader, kind: Id, id: Id) -> tickreel::Result<PaletteName> {
    let kind = tickreel::format::PaletteKind::from_code(kind.0)?;
    Ok(PaletteName(
        reader
            .0
            .metadata()
            .library
            .palette
            .name(kind, id.0)
            .map(str::to_owned),
    ))
}

// ---- The world at a tick (world-bindings; see `crate::api::world_state`) ----

/// Rebuilds the world at `tick` (clamped into the recording) as the library keeps it from world
/// events: the world section of the nearest snapshot chunk at or before it, then every world event
/// from there through `tick` (decodes at most 256 chunks). Stores its handle in `*out_world`: read
/// it with the `tickreel_world_state_*` functions, free it with `tickreel_world_state_free`.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording has no ticks,
/// `TICKREEL_RESULT_CORRUPT`/`TICKREEL_RESULT_TRUNCATED` if a chunk is damaged. On failure
/// `*out_world` is set to NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with any other reader call.
#[bridge_fn(
    c = "tickreel_reader_world_at",
    c_out = "out_world",
    java = "readerWorldAt"
)]
pub fn world_at(
    reader: &Reader,
    tick: u32,
) -> tickreel::Result<New<crate::api::world_state::WorldState>> {
    let at = reader.0.world_at(tick)?;
    let terrain = reader.0.terrain_at(at.tick)?;
    Ok(crate::api::world_state::new(
        at.tick,
        at.complete,
        &at.world,
        terrain,
    ))
}

/// What `tickreel_reader_verify` checked.
#[bridge_struct(c = "TickreelVerifyReport", of = "tickreel::play::VerifyReport")]
pub struct VerifyReportFields {
    /// Chunks read, checksummed and decoded.
    pub chunks: u64,
    /// Ticks spanned by those chunks.
    pub ticks: u64,
    /// Pose samples decoded.
    pub pose_samples: u64,
    /// Non-pose events decoded.
    pub events: u64,
}
