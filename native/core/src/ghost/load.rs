//! Loading a [`GhostTrack`] from a recording: chunk by chunk straight from the decoded chunks'
//! movement tracks and event records (no per-tick event vectors), stopping as soon as the run's end
//! is known. [`GhostTrack::load_async`] does the same on a background thread and hands back a
//! [`Pending`] ghost that the server thread polls without ever waiting; dropping it cancels the
//! load.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::pending::Pending;

use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::ghost::builder::{GhostOptions, RunBuilder};
use crate::ghost::range::{GhostRange, RunEnd, RunStart};
use crate::ghost::track::GhostTrack;
use crate::play::Reader;
use crate::storage::Source;

impl GhostTrack {
    /// Loads `entity`'s run in `range` from an open recording.
    pub fn load(reader: &Reader, entity: u32, range: GhostRange) -> Result<GhostTrack> {
        GhostTrack::load_with(reader, entity, range, GhostOptions::default())
    }

    /// [`GhostTrack::load`] with options.
    pub fn load_with(
        reader: &Reader,
        entity: u32,
        range: GhostRange,
        options: GhostOptions,
    ) -> Result<GhostTrack> {
        load_cancellable(reader, entity, range, options, &AtomicBool::new(false))
    }

    /// Opens the compacted file at `path` and loads `entity`'s run in `range`.
    pub fn load_path(
        path: impl AsRef<std::path::Path>,
        entity: u32,
        range: GhostRange,
    ) -> Result<GhostTrack> {
        GhostTrack::load(&Reader::open_path(path)?, entity, range)
    }

    /// Loads in the background (opening the recording there too, for a path or source). The
    /// returned result never blocks unless asked to ([`Pending::wait`]); dropping it cancels the
    /// load (between chunks) and joins its thread.
    pub fn load_async(
        from: impl Into<LoadFrom>,
        entity: u32,
        range: GhostRange,
    ) -> Pending<GhostTrack> {
        GhostTrack::load_async_with(from, entity, range, GhostOptions::default())
    }

    /// [`GhostTrack::load_async`] with options.
    pub fn load_async_with(
        from: impl Into<LoadFrom>,
        entity: u32,
        range: GhostRange,
        options: GhostOptions,
    ) -> Pending<GhostTrack> {
        spawn(from.into(), entity, range, options)
    }
}

/// Reads chunks until the run's end is known; `cancel` is checked between chunks.
fn load_cancellable(
    reader: &Reader,
    entity: u32,
    range: GhostRange,
    options: GhostOptions,
    cancel: &AtomicBool,
) -> Result<GhostTrack> {
    let index = reader.index();
    let first = match range.start {
        RunStart::Tick(a) => reader.chunk_for_tick(a).unwrap_or(0),
        _ => 0,
    };
    let mut b = RunBuilder::new(entity, reader.tick_rate());
    for (i, entry) in index.iter().enumerate().skip(first) {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::InvalidState("ghost load cancelled".into()));
        }
        if let RunEnd::Tick(end) = range.end
            && entry.start_tick > end
        {
            break;
        }
        let chunk = reader.read_chunk_entity(i, entity)?;
        feed(&mut b, &chunk, entity, i == first)?;
        if b.end_is_known(&range) {
            break;
        }
    }
    b.build(&range, &options).map_err(|e| match e {
        Error::InvalidArgument(m) => {
            Error::InvalidArgument(format!("{m} (in {})", reader.describe()))
        }
        other => other,
    })
}

/// Adds one chunk's data about `entity` to the builder.
fn feed(b: &mut RunBuilder, c: &DecodedChunk, entity: u32, first: bool) -> Result<()> {
    let start = c.start_tick;
    let track = c
        .tracks
        .binary_search_by_key(&entity, |t| t.entity)
        .ok()
        .map(|i| &c.tracks[i]);
    if first && let Ok(k) = c.keyframe.binary_search_by_key(&entity, |e| e.id) {
        // the state held at the chunk's start (a sample at that tick replaces it)
        let e = &c.keyframe[k];
        b.flags(start, e.flags);
        if track.is_none_or(|t| t.ticks.first() != Some(&0)) {
            b.held(start, e.pose)?;
        }
    }
    for rec in &c.records {
        let tick = start + rec.rel;
        for e in &rec.events {
            if e.entity() != Some(entity) {
                continue;
            }
            match *e {
                Event::Flags { flags, .. } => b.flags(tick, flags),
                Event::Checkpoint { index, .. } => b.checkpoint(tick, index),
                Event::Velocity { x, y, z, .. } => b.velocity_units(tick, x, y, z),
                Event::EntityAdd { .. } => b.appear(tick),
                _ => {}
            }
        }
    }
    if let Some(t) = track {
        b.reserve(t.ticks.len());
        let mut resets = t.resets.iter().peekable();
        for (j, (&rel, pose)) in t.ticks.iter().zip(&t.poses).enumerate() {
            if resets.next_if(|&&r| r as usize == j).is_some() {
                b.teleport(start + rel, *pose)?;
            } else {
                b.pose(start + rel, *pose)?;
            }
        }
    }
    b.seen_until((c.end_tick() - 1) as u32);
    Ok(())
}

/// Where a background load reads from.
#[derive(Debug, Clone)]
pub enum LoadFrom {
    /// A local compacted file (opened on the loader thread).
    Path(PathBuf),
    /// Any range-read source, e.g. object storage (opened on the loader thread).
    Source(Arc<dyn Source>),
    /// A recording already open.
    Reader(Arc<Reader>),
}

impl From<PathBuf> for LoadFrom {
    fn from(p: PathBuf) -> Self {
        LoadFrom::Path(p)
    }
}
impl From<&std::path::Path> for LoadFrom {
    fn from(p: &std::path::Path) -> Self {
        LoadFrom::Path(p.to_path_buf())
    }
}
impl From<&str> for LoadFrom {
    fn from(p: &str) -> Self {
        LoadFrom::Path(PathBuf::from(p))
    }
}
impl From<Arc<dyn Source>> for LoadFrom {
    fn from(s: Arc<dyn Source>) -> Self {
        LoadFrom::Source(s)
    }
}
impl From<Arc<Reader>> for LoadFrom {
    fn from(r: Arc<Reader>) -> Self {
        LoadFrom::Reader(r)
    }
}

/// What a background load's [`Pending`] keeps: dropping it cancels the load (it stops at the next
/// chunk boundary) and joins its thread, so that no loader thread outlives its result (a JVM may
/// unload the library once handles are gone).
struct LoadGuard {
    cancel: Arc<AtomicBool>,
    thread: Option<crate::threads::Handle>,
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}

/// Starts loading on a thread of its own.
fn spawn(
    from: LoadFrom,
    entity: u32,
    range: GhostRange,
    options: GhostOptions,
) -> Pending<GhostTrack> {
    let (tx, pending) = Pending::channel("ghost load");
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let job = move || {
        let r = (|| {
            let reader = match from {
                LoadFrom::Path(p) => Arc::new(Reader::open_path(p)?),
                LoadFrom::Source(s) => Arc::new(Reader::open(s)?),
                LoadFrom::Reader(r) => r,
            };
            load_cancellable(&reader, entity, range, options, &flag)
        })();
        // the result may be gone (cancelled): nobody to tell
        let _ = tx.send(r);
    };
    match crate::threads::spawn(format!("tickreel-ghost-{entity}"), job) {
        Ok(thread) => pending.keeping(LoadGuard {
            cancel,
            thread: Some(thread),
        }),
        Err(e) => Pending::ready(Err(Error::Io(e)), "ghost load"),
    }
}
