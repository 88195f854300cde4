//! Writes a finished, compacted `.reel` file from a sequence of ticks (the synchronous writer):
//! chunks them, then hands header + metadata + index + frames to [`publish`](super::publish),
//! which writes them under a temporary name and publishes the file at its path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::metadata::{EntityInfo, EventType, Metadata, Registry};
use crate::format::palette::PaletteKind;
use crate::format::{Limits, MetadataBudget};
use crate::record::encode::chunker::{
    AdoptedChunk, COMPACTED_SNAPSHOT_SPACING, ChunkPolicy, Chunker,
};
use crate::record::file::identity::RecordingIdentity;
use crate::record::file::publish::{FrameBody, UnpublishedReel, compacted_prefix};
use crate::storage::{EntryKind, LocalStorage, Storage};

/// Options of a [`ReelWriter`].
#[derive(Debug, Clone, Default)]
pub struct ReelOptions {
    pub identity: RecordingIdentity,
    pub chunk_policy: ChunkPolicy,
}

impl ReelOptions {
    /// Defaults for a finished file: zstd level 9, chunks cut by bytes (see
    /// [`ChunkPolicy::compacted`]).
    pub fn compacted() -> ReelOptions {
        ReelOptions {
            identity: RecordingIdentity::default(),
            chunk_policy: ChunkPolicy::compacted(),
        }
    }
}

/// Writes a compacted `.reel` file.
#[derive(Debug)]
pub struct ReelWriter {
    path: PathBuf,
    options: ReelOptions,
    chunker: Chunker,
    body: FrameBody,
    metadata: Metadata,
    budget: MetadataBudget,
    registry: Registry,
    first_tick: Option<u32>,
    recording_id: [u8; 16],
}

impl ReelWriter {
    /// Starts a file at `path` (written only on [`ReelWriter::finish`]).
    pub fn create(path: impl AsRef<Path>, options: ReelOptions) -> Result<ReelWriter> {
        ReelWriter::create_in(LocalStorage::shared(), path.as_ref(), options)
    }

    /// [`ReelWriter::create`] on `storage`.
    pub fn create_in(
        storage: Arc<dyn Storage>,
        path: &Path,
        options: ReelOptions,
    ) -> Result<ReelWriter> {
        let path = path.to_path_buf();
        options.identity.validate()?;
        options.chunk_policy.validate()?;
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !storage.stat(dir)?.is_some_and(|s| s.kind == EntryKind::Dir)
        {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} is not an existing directory", dir.display()),
            )));
        }
        let dict = crate::dictionary::lookup(options.identity.dictionary_id)?;
        let mut chunker = Chunker::new(options.chunk_policy, dict.as_deref().map(|d| d.bytes()))?;
        if options.chunk_policy.cuts_as_compacted() {
            chunker.space_interval_snapshots(COMPACTED_SNAPSHOT_SPACING);
        }
        Ok(ReelWriter {
            body: FrameBody::new(storage, &path),
            path,
            options,
            chunker,
            metadata: Metadata::default(),
            budget: MetadataBudget::new(&Limits::default()),
            registry: Registry::default(),
            first_tick: None,
            recording_id: [0; 16],
        })
    }

    /// The user's metadata compound (the library's keys are kept separately). What is changed
    /// through it is checked against the metadata limit only by [`ReelWriter::finish`]; prefer
    /// [`ReelWriter::set_user_metadata`], which refuses at the call.
    pub fn user_metadata_mut(&mut self) -> &mut std::collections::HashMap<String, fastnbt::Value> {
        &mut self.metadata.user
    }

    /// Sets one key of the user's metadata compound. Refuses (`LimitExceeded`, nothing changed)
    /// what would make the metadata exceed what a reader accepts.
    pub fn set_user_metadata(
        &mut self,
        key: impl Into<String>,
        value: fastnbt::Value,
    ) -> Result<()> {
        let key = key.into();
        if key == crate::format::metadata::LIBRARY_KEY {
            return Err(Error::invalid("the metadata key \"tickreel\" is reserved"));
        }
        self.budget.user(&key, &value)?;
        self.metadata.user.insert(key, value);
        Ok(())
    }

    /// Registers an entity's identity (uuid, name) in the metadata. Refuses (`LimitExceeded`,
    /// nothing changed) what would make the metadata exceed what a reader accepts.
    pub fn register_entity(&mut self, info: EntityInfo) -> Result<()> {
        self.budget.entity(&info)?;
        self.registry.entity(&mut self.metadata.library, info);
        Ok(())
    }

    /// Registers a custom event type. Refuses what would make the metadata exceed the limit.
    pub fn register_event_type(&mut self, t: EventType) -> Result<()> {
        self.budget.event_type(&t)?;
        self.registry.event_type(&mut self.metadata.library, t);
        Ok(())
    }

    /// Names palette id `id` of `kind` in the metadata (see
    /// [`Recorder::register_name`](crate::record::Recorder::register_name)).
    pub fn register_name(&mut self, kind: PaletteKind, id: u32, name: &str) -> Result<()> {
        if self.budget.name(kind, id, name)? {
            self.metadata.library.palette.insert(kind, id, name)?;
        }
        Ok(())
    }

    /// Sets the recording id written into the header (bytes 96..112): compaction carries the
    /// source's. Without it the file has none (all zero), so that the same ticks always give the
    /// same bytes.
    pub fn set_recording_id(&mut self, id: [u8; 16]) {
        self.recording_id = id;
    }

    /// Records dropped-tick gaps (carried over by compaction).
    pub fn set_gaps(&mut self, gaps: Vec<crate::format::metadata::Gap>, dropped_ticks: u64) {
        self.metadata.library.gaps = gaps;
        self.metadata.library.stats.dropped_ticks = dropped_ticks;
    }

    /// Sets the analysis metadata (per-entity figures) written into the library keys.
    pub fn set_analysis(&mut self, analysis: fastnbt::Value) {
        self.metadata.library.analysis = Some(analysis);
    }

    /// Marks the recording as starting in the middle of a world without a snapshot at its first
    /// tick (a cut of a longer stream): rebuilds before its first snapshot are then
    /// [cut short](crate::play::Rebuild::cut_short) instead of starting from an empty world.
    /// Called before the first tick, the first chunk then takes no snapshot unless one is offered
    /// for it (an empty one would say the world there is empty, known: readers would rebuild
    /// worlds from it as complete).
    pub fn set_starts_mid_world(&mut self) {
        self.metadata.library.starts_mid_world = true;
        if self.first_tick.is_none() {
            self.chunker.start_mid_world();
        }
    }

    /// Names the game server that recorded it (FORMAT.md section 4, `server`; 1 to 64 bytes
    /// without control characters).
    pub fn set_server(&mut self, server: &str) -> Result<()> {
        crate::format::metadata::check_server_id(server)?;
        self.metadata.library.server = Some(server.to_owned());
        Ok(())
    }

    /// Supplies snapshot bytes; the next tick starts a chunk carrying them. Refuses
    /// (`LimitExceeded`, nothing changed) a snapshot over `Limits::max_snapshot_bytes`.
    pub fn offer_snapshot(&mut self, bytes: Vec<u8>) -> Result<()> {
        self.chunker.offer_snapshot(bytes)
    }

    /// Supplies terrain, the blocks of an area as chunk sections (Minecraft's layout,
    /// [`crate::format::Section`]): the next tick starts a chunk carrying it, stored once,
    /// compressed, and returned with the world from that tick on ([`crate::Reader::world_at`]).
    /// Refuses (nothing changed) invalid sections (`InvalidArgument`), a position twice, and
    /// terrain over `Limits::max_terrain_sections` / `max_terrain_bytes` (`LimitExceeded`).
    pub fn offer_terrain(&mut self, sections: Vec<crate::format::Section>) -> Result<()> {
        let t = crate::format::terrain::check_offer(sections, &crate::format::Limits::default())?;
        self.chunker.offer_terrain(t)
    }

    /// Supplies terrain as a stored terrain piece's content ([`crate::Reader::terrain_piece`]:
    /// `"TKTR"`, the body's length, the body compressed): decoded and checked as a reader
    /// decodes it (within `Limits::default()`), then stored as it is, not compressed again;
    /// the next tick starts a chunk carrying it, as with [`ReelWriter::offer_terrain`]. Refuses
    /// (nothing changed) what a reader refuses, and terrain that would take the positions ever
    /// offered past `Limits::max_terrain_sections` (`LimitExceeded`).
    pub fn offer_terrain_piece(&mut self, content: &[u8]) -> Result<()> {
        let terrain =
            crate::format::terrain::decode_piece(content, &crate::format::Limits::default())?;
        let len =
            u32::try_from(content.len()).map_err(|_| Error::limit("a terrain piece over 4 GiB"))?;
        let mut piece = Vec::with_capacity(content.len() + 8);
        piece.extend_from_slice(&crate::format::terrain::TERRAIN_SKIPPABLE_MAGIC.to_le_bytes());
        piece.extend_from_slice(&len.to_le_bytes());
        piece.extend_from_slice(content);
        self.chunker.carry_terrain_piece(piece, terrain)
    }

    /// Makes `world` the world before the next tick (edited blocks, their block entities, the
    /// entities' health and equipment), whatever the ticks before made it: the world section
    /// of the next snapshot chunk says so (offer a snapshot for the next tick to have one there).
    /// `tickreel import` sets the world a dump's `world` line gives (a recording that starts in
    /// the middle of a world, whose first snapshot holds blocks no event of it made).
    pub fn set_world(&mut self, world: &crate::format::WorldState) {
        self.chunker.carry_world(world);
    }

    /// Terrain carried over from a recording that was read back (compaction, reports).
    pub(crate) fn carry_terrain(&mut self, terrain: crate::format::Terrain) -> Result<()> {
        self.chunker.offer_terrain(terrain)
    }

    /// A terrain piece carried over by compaction as it is ([`Chunker::carry_terrain_piece`]).
    pub(crate) fn carry_terrain_piece(
        &mut self,
        piece: Vec<u8>,
        terrain: crate::format::Terrain,
    ) -> Result<()> {
        self.chunker.carry_terrain_piece(piece, terrain)
    }

    /// Whether a terrain piece in the next chunk begun must be full
    /// ([`Chunker::full_terrain_due`]).
    pub(crate) fn full_terrain_due(&self) -> bool {
        self.chunker.full_terrain_due()
    }

    /// Writes no full terrain piece, as writers did before them ([`Chunker::forge_no_full_terrain`]):
    /// for forging such files. Feature `wire`, tests only.
    #[cfg(feature = "wire")]
    pub fn forge_no_full_terrain(&mut self) {
        self.chunker.forge_no_full_terrain();
    }

    /// The world before the next tick, carried over by compaction ([`Chunker::carry_world`]).
    pub(crate) fn carry_world(&mut self, world: &crate::format::WorldState) {
        self.chunker.carry_world(world);
    }

    /// A delta world section whose keyframe the source does not hold, carried over as it is
    /// ([`Chunker::carry_world_delta`]).
    pub(crate) fn carry_world_delta(&mut self, delta: &crate::format::WorldDelta) {
        self.chunker.carry_world_delta(delta);
    }

    /// A snapshot carried over by compaction from a recording that was read back.
    pub(crate) fn carry_snapshot(&mut self, bytes: Vec<u8>) {
        self.chunker.carry_snapshot(bytes);
    }

    /// Takes no snapshot for the chunk count (`MAX_CHUNKS_PER_SNAPSHOT`): compaction and reports
    /// carry their source's snapshots, and have no bytes to put in between.
    pub(crate) fn carry_snapshots_only(&mut self) {
        self.chunker.carry_snapshots_only();
    }

    /// Starts the file with `table` alive before its first tick (a file cut out of a longer
    /// recording): the first chunk's keyframe holds them. Call before the first tick.
    pub(crate) fn start_from(&mut self, table: crate::format::state::EntityTable) {
        self.chunker.resume_from(table, None, None);
    }

    /// As [`ReelWriter::start_from`], for a file that starts in the middle of a world whose
    /// state before `first` it does not have ([`ReelWriter::set_starts_mid_world`]): the first
    /// chunk takes no (empty) snapshot of its own, which would claim an empty world; it carries
    /// one only if one is given for it.
    pub(crate) fn start_mid_world(&mut self, table: crate::format::state::EntityTable, first: u32) {
        self.set_starts_mid_world();
        self.chunker.resume_from(table, None, Some(first));
    }

    /// The last tick written.
    pub(crate) fn last_tick(&self) -> Option<u32> {
        self.chunker.last_tick()
    }

    /// Appends one tick (ticks strictly increasing; empty ticks may be skipped).
    pub fn write_tick(&mut self, tick: u32, events: &[Event]) -> Result<()> {
        if let Some(f) = self.chunker.push_tick(tick, events)? {
            self.body.push(&f)?;
        }
        self.first_tick.get_or_insert(tick);
        Ok(())
    }

    /// Writes a chunk as it is, after ending the open one (compaction's copy of a chunk that
    /// needs no re-encoding; see [`Chunker::adopt`]).
    pub(crate) fn adopt_chunk(&mut self, chunk: AdoptedChunk) -> Result<()> {
        if let Some(f) = self.chunker.adopt(&chunk)? {
            self.body.push(&f)?;
        }
        self.body.push(&chunk.frame)?;
        self.first_tick.get_or_insert(chunk.frame.header.start_tick);
        Ok(())
    }

    /// Encodes and writes one batch-encoded tick.
    pub fn write_batch(&mut self, tick: u32, batch: &[u8]) -> Result<()> {
        let events = crate::format::event::decode_batch(batch)?;
        self.write_tick(tick, &events)
    }

    /// Writes the file, publishes it at its path (replacing any file there) and returns its size
    /// in bytes. On failure nothing is left behind: no temporary file, and the path untouched.
    pub fn finish(self) -> Result<u64> {
        self.finish_unpublished()?.publish(true)
    }

    /// Writes and fsyncs the file under a temporary name next to its path, without publishing it:
    /// read or check it at [`UnpublishedReel::temp_path`], then [`UnpublishedReel::publish`] it.
    /// On failure, or if the result is dropped unpublished, the temporary file is removed.
    pub fn finish_unpublished(mut self) -> Result<UnpublishedReel> {
        if let Some(f) = self.chunker.finish_chunk()? {
            self.body.push(&f)?;
        }
        let c = &self.chunker;
        self.metadata.library.stats.ticks_written = c.ticks_written;
        self.metadata.library.stats.events = c.events;
        self.metadata.library.stats.pose_samples = c.pose_samples;
        self.metadata.library.stats.uncompressed_bytes = c.uncompressed_bytes;
        let prefix = compacted_prefix(
            &self.options.identity,
            self.recording_id,
            &self.metadata,
            &self.body.entries,
            self.first_tick.unwrap_or(0),
            self.chunker.last_tick(),
            self.body.len(),
        )?;
        self.body.write_file(&self.path, &prefix)
    }
}
