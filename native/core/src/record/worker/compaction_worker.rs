//! The compaction worker: compacts each finished recording (from its live directory, or from
//! frames still in memory if it never flushed), publishes the file, then removes the live
//! directory, and completes the recording's [`Finishing`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crossbeam_channel::Receiver;

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::header::Header;
use crate::format::metadata::Metadata;
use crate::reader::{Reader, ReaderOptions};
use crate::record::encode::chunker::Frame;
use crate::record::file::compact::{CompactOptions, compact_unpublished};
use crate::record::file::publish::{publish_from_live, publish_from_memory};
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::finish::Finishing;
use crate::record::shared::panics::guarded;
use crate::storage::Storage;
use crate::storage::live::{LiveDir, WriterLock, describe_refused};

/// Work for the compaction worker.
pub(crate) enum CompactJob {
    /// A recording that was flushed to a live directory.
    Live {
        live: LiveDir,
        lock: WriterLock,
        out: PathBuf,
        options: CompactOptions,
        handle: Finishing,
    },
    /// A recording that finished before its first flush: frames still in memory.
    Memory {
        frames: Vec<Frame>,
        header: Box<Header>,
        metadata: Box<Metadata>,
        out: PathBuf,
        options: CompactOptions,
        handle: Finishing,
    },
    /// Other background work (a shadow-play report), completing `handle` with its result.
    Task {
        task: Box<dyn FnOnce() -> Result<PathBuf> + Send>,
        handle: Finishing,
    },
    Shutdown,
}

impl CompactJob {
    /// The handle the job completes (`None` for `Shutdown`).
    pub(crate) fn handle(&self) -> Option<&Finishing> {
        match self {
            CompactJob::Live { handle, .. }
            | CompactJob::Memory { handle, .. }
            | CompactJob::Task { handle, .. } => Some(handle),
            CompactJob::Shutdown => None,
        }
    }
}

/// A reader of frames held in memory, with the header and metadata they belong to.
pub(crate) fn memory_reader<'a>(
    frames: impl IntoIterator<Item = &'a Frame>,
    header: Header,
    metadata: Metadata,
) -> Result<Reader> {
    Reader::from_frames(
        frames.into_iter().map(|f| (&f.header, &f.payload[..])),
        header,
        metadata,
        Limits::default(),
    )
}

/// The compaction worker's loop.
pub(crate) fn compaction_loop(rx: Receiver<CompactJob>, engine: Arc<EngineShared>) {
    while let Ok(job) = crate::threads::recv_until(&rx, None) {
        let Some(handle) = job.handle().cloned() else {
            return; // Shutdown
        };
        // A panic in one job (a bug) fails that job's handle, not the worker.
        let result = guarded(|| compact_job(&engine.storage, job))
            .unwrap_or_else(|m| Err(Error::InvalidState(m)));
        engine
            .counters
            .compactions_pending
            .fetch_sub(1, Ordering::Relaxed);
        if result.is_ok() {
            engine
                .counters
                .compactions_done
                .fetch_add(1, Ordering::Relaxed);
        } else {
            engine
                .counters
                .compactions_failed
                .fetch_add(1, Ordering::Relaxed);
        }
        handle.complete(result);
    }
}

/// A finish does not publish a recording whose live directory holds segments of another
/// recording (a writer that raced the removal and re-creation of the directory): removing the
/// directory afterwards would either destroy them or leave it half removed. They are named, and
/// everything stays as it is: once they are moved away, the recording finishes (resume it) or
/// compacts (`tickreel compact`, which leaves them out and names them) as usual.
fn refuse_foreign_segments(reader: &Reader) -> Result<()> {
    let refused = reader.refused_segments()?;
    if refused.is_empty() {
        return Ok(());
    }
    Err(Error::InvalidState(format!(
        "the live directory holds segments that are not this recording's, left untouched: {}; \
         move them away, then finish the recording again",
        describe_refused(&refused)
    )))
}

/// Compacts and publishes one finished recording; the path of its file.
fn compact_job(storage: &Arc<dyn Storage>, job: CompactJob) -> Result<PathBuf> {
    match job {
        CompactJob::Shutdown => Err(Error::InvalidState("not a compaction".into())),
        CompactJob::Task { task, .. } => task(),
        CompactJob::Live {
            live,
            lock,
            out,
            options,
            ..
        } => {
            // The live directory is removed only once the file is published; if it cannot be
            // (another writer's file is at the path), the directory stays, unlocked.
            let mut recording_id = [0; 16];
            let compacted =
                Reader::open_live_in(live.storage(), live.path(), ReaderOptions::default())
                    .and_then(|reader| {
                        recording_id = reader.header().recording_id;
                        refuse_foreign_segments(&reader)?;
                        compact_unpublished(live.storage(), &reader, &out, options, &mut |_, _| {})
                    })
                    .and_then(|(_, file)| {
                        publish_from_live(file, &out, live.path(), options.overwrite)
                    });
            if let Err(e) = compacted {
                // Locked already says where the recording is.
                return Err(match e {
                    Error::Locked(_) => e,
                    e => e.with_context(&format!(
                        "; the recording is still in its live directory {} (compact it with \
                         `tickreel compact`, or resume it)",
                        live.path().display()
                    )),
                });
            }
            live.remove(lock, &recording_id).map(|_| out)
        }
        CompactJob::Memory {
            frames,
            header,
            metadata,
            out,
            options,
            ..
        } => {
            // On a conflict with another writer of the path, the file is kept next to it.
            memory_reader(&frames, *header, *metadata)
                .and_then(|reader| {
                    compact_unpublished(storage, &reader, &out, options, &mut |_, _| {})
                })
                .and_then(|(_, file)| publish_from_memory(file, &out, options.overwrite))
                .map(|_| out)
        }
    }
}
