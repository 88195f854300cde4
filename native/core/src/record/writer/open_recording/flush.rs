//! Flushing one recording, in two halves: [`OpenRecording::begin_flush`] on the writer thread cuts
//! the open chunk, appends the pending frames to the segment and encodes the new metadata file,
//! without waiting for the disk; a group commit (`record::sync_round`) makes the round durable
//! and publishes the metadata file; [`OpenRecording::end_flush`] then reports the ticks flushed,
//! or puts the frames back to be written again (a failed flush is retried, backing off).

use std::sync::atomic::Ordering;
use std::time::Instant;

use crossbeam_channel::Sender;

use super::{OpenRecording, RETRY_FIRST, RETRY_MAX};
use crate::error::{Error, Result};
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::index::IndexEntry;
use crate::format::segment::PREAMBLE_LEN;
use crate::record::encode::chunker::Frame;
use crate::record::writer::sync_round::{SyncJob, commit_round};
use crate::storage::live::{MAX_SEGMENT_BYTES, SegmentWriter, encode_meta_file};

/// A flush whose round is being committed: what to report once it is durable, or to undo if not.
pub(super) struct InFlight {
    /// Index entries before the flush (the rest name its frames).
    indexed: usize,
    /// Its frames, kept until they are durable.
    frames: Vec<Frame>,
    frame_bytes: usize,
    written: u64,
    /// Dropped ticks the metadata file counts.
    dropped: u64,
    meta_was_dirty: bool,
    last_tick: Option<u32>,
    started: Instant,
    /// `Recorder::flush` calls answered when it is done.
    acks: Vec<Sender<Result<()>>>,
}

fn answer(acks: Vec<Sender<Result<()>>>, r: &Result<()>) {
    for a in acks {
        let _ = crate::threads::send(&a, r.as_ref().map(|_| ()).map_err(Error::duplicate));
    }
}

impl OpenRecording {
    fn flush_due(&self, now: Instant) -> bool {
        if let Some(at) = self.retry_at {
            // A failed flush is retried at its time, whatever triggered it.
            return now >= at;
        }
        self.flush_requested
            || self.leave_flush_at.is_some_and(|at| now >= at)
            || ((self.dirty
                || self.meta_dirty
                || self.shared.dropped.load(Ordering::Relaxed) != self.dropped_written)
                && now.duration_since(self.last_flush) >= self.opts.flush.interval)
    }

    /// Whether the recording's next flush belongs in the coming round: one is due (size, time,
    /// player leave, retry) or asked for, and none is in flight.
    pub(crate) fn wants_flush(&self, now: Instant) -> bool {
        self.shared.persist
            && self.in_flight.is_none()
            && self.resuming.is_none()
            && (!self.flush_acks.is_empty() || self.flush_due(now))
    }

    /// The periodic check: cuts a chunk an observer asks for; `true` if a flush is due.
    pub(crate) fn flush_if_due(&mut self, now: Instant) -> bool {
        if !self.opts.observers.is_empty() {
            self.cut_if_wanted(now);
        }
        self.wants_flush(now)
    }

    /// `Recorder::flush`: answered once the next flush is durable (a stream without a file hands
    /// its open chunk to its observers and is answered at once).
    pub(crate) fn request_flush(&mut self, ack: Sender<Result<()>>) {
        if self.shared.persist {
            self.flush_acks.push(ack);
        } else {
            let _ = crate::threads::send(&ack, self.flush());
        }
    }

    /// Whether a `Recorder::flush` call waits for the next flush.
    pub(crate) fn flush_asked(&self) -> bool {
        !self.flush_acks.is_empty()
    }

    /// Whether a flush of this recording is in a round being committed.
    pub(crate) fn flush_in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Starts a flush for a group commit: its job, or `None` if there is nothing to make durable
    /// (or writing failed; the flush is then retried later). `persist`: as [`Self::flush_to_disk`].
    pub(crate) fn begin_flush(&mut self, persist: bool) -> Option<SyncJob> {
        let acks = std::mem::take(&mut self.flush_acks);
        match self.prepare(persist) {
            Ok(Some(job)) => {
                if let Some(f) = &mut self.in_flight {
                    f.acks = acks;
                }
                Some(job)
            }
            Ok(None) => {
                answer(acks, &Ok(()));
                None
            }
            Err(e) => {
                self.failed(&e, Instant::now());
                answer(acks, &Err(e));
                None
            }
        }
    }

    /// Ends the flush in flight with its round's outcome: the ticks are reported flushed, or the
    /// frames go back to pending (written again, to a fresh segment, at the retry).
    pub(crate) fn end_flush(&mut self, r: Result<()>) -> Result<()> {
        let Some(f) = self.in_flight.take() else {
            return r;
        };
        match &r {
            Ok(()) => {
                self.dropped_written = f.dropped;
                self.retry_at = None;
                self.retry_wait = RETRY_FIRST;
                let sh = &self.shared;
                sh.bytes_written.fetch_add(f.written, Ordering::Relaxed);
                self.engine
                    .counters
                    .bytes_written
                    .fetch_add(f.written, Ordering::Relaxed);
                let us = f.started.elapsed().as_micros() as u64;
                sh.last_flush_us.store(us, Ordering::Relaxed);
                self.engine
                    .counters
                    .last_flush_us
                    .store(us, Ordering::Relaxed);
                sh.flushes.fetch_add(1, Ordering::Relaxed);
                if let Some(t) = f.last_tick {
                    sh.flushed_tick.store(u64::from(t), Ordering::Release);
                }
            }
            Err(e) => {
                self.index.truncate(f.indexed);
                let mut frames = f.frames;
                frames.append(&mut self.pending);
                self.pending = frames;
                self.pending_bytes += f.frame_bytes;
                self.meta_dirty |= f.meta_was_dirty;
                self.drop_segment();
                self.failed(e, f.started);
            }
        }
        answer(f.acks, &r);
        r
    }

    /// Cuts the open chunk, appends pending frames to the segment, and makes them durable with
    /// the rewritten metadata file (also when only metadata or gaps changed), on this thread.
    /// Only then are the ticks reported as flushed. A recording that never flushed and has no
    /// frames keeps everything in memory (its metadata travels with `finish`).
    pub(crate) fn flush(&mut self) -> Result<()> {
        self.flush_to_disk(false)
    }

    /// [`Self::flush`]; `persist`: write changed metadata even if nothing was flushed before (a
    /// recording closed to be resumed later keeps its metadata, ticks or not). The writer waits
    /// for a flush in flight before calling it.
    pub(super) fn flush_to_disk(&mut self, persist: bool) -> Result<()> {
        if self.in_flight.is_some() {
            return Err(Error::InvalidState(
                "a flush of this recording is being committed".into(),
            ));
        }
        let acks = std::mem::take(&mut self.flush_acks);
        let r = match self.prepare(persist) {
            Ok(None) => Ok(()),
            Ok(Some(job)) => {
                let mut out = commit_round(self.engine.storage.as_ref(), vec![job]);
                let r = out.pop().map_or(Ok(()), |(_, r)| r);
                self.end_flush(r)
            }
            Err(e) => {
                self.failed(&e, Instant::now());
                Err(e)
            }
        };
        answer(acks, &r);
        r
    }

    fn failed(&mut self, e: &Error, started: Instant) {
        self.retry_at = Some(started + self.retry_wait);
        self.retry_wait = (self.retry_wait * 2).min(RETRY_MAX);
        self.shared.set_io_error(format!("flush failed: {e}"), e);
    }

    /// Writing continues in a fresh segment after a failure; one this flush created and could
    /// not write to (a full disk) is not left behind empty, one holding frames stays for recovery
    /// to judge (it drops copies as overlapping, or truncates them as torn).
    fn drop_segment(&mut self) {
        if let Some((n, len)) = self.segment.take()
            && len <= PREAMBLE_LEN as u64
        {
            let _ = self.live.remove_segment(n);
        }
    }

    /// The writing half of a flush: `None` if there is nothing to make durable; on an error the
    /// index is as before and the frames stay pending.
    fn prepare(&mut self, persist: bool) -> Result<Option<SyncJob>> {
        self.flush_requested = false;
        self.leave_flush_at = None;
        let started = Instant::now();
        if let Some(f) = self.chunker.finish_chunk()? {
            self.add_pending(f);
        }
        self.dirty = false;
        if !self.shared.persist {
            // A stream without a file: its observers have the chunk; nothing goes to disk.
            return Ok(None);
        }
        self.last_flush = started;
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        let meta_changed = self.meta_dirty || dropped != self.dropped_written;
        if self.pending.is_empty() && (!meta_changed || (self.lock.is_none() && !persist)) {
            return Ok(None);
        }
        let indexed = self.index.len();
        let written = self.write_frames().and_then(|w| {
            self.update_library_meta();
            let meta = encode_meta_file(self.header.clone(), &self.metadata, &self.index)?;
            Ok((w, meta))
        });
        let (written, meta) = match written {
            Ok(w) => w,
            Err(e) => {
                self.index.truncate(indexed);
                self.drop_segment();
                return Err(e);
            }
        };
        self.in_flight = Some(InFlight {
            indexed,
            frames: std::mem::take(&mut self.pending),
            frame_bytes: std::mem::take(&mut self.pending_bytes),
            written,
            dropped,
            meta_was_dirty: std::mem::take(&mut self.meta_dirty),
            last_tick: self.chunker.last_tick(),
            started,
            acks: Vec::new(),
        });
        Ok(Some(SyncJob {
            id: self.shared.id,
            live: self.live.clone(),
            meta,
            fence: self.fence,
        }))
    }

    /// Creates and locks the live directory on the first flush, and appends the pending frames
    /// (not synced: the round's file-system sync makes the segments, their names and the new
    /// directory durable before the metadata file names them).
    fn write_frames(&mut self) -> Result<u64> {
        if self.lock.is_none() {
            self.live.create()?;
            self.lock = Some(self.live.lock()?);
            self.fence = Some(self.live.fence()?);
        }
        if let Some(f) = &self.fence {
            self.live.check_fence(f)?;
        }
        let mut written = 0u64;
        // Open for this flush only.
        let mut open: Option<SegmentWriter> = None;
        for f in &self.pending {
            if self.segment.is_none_or(|(_, len)| len >= MAX_SEGMENT_BYTES) {
                // The number is used up even if creating fails half way (a file left behind
                // must not make every later attempt fail).
                let n = self.next_segment;
                self.next_segment = n + 1;
                drop(open.take());
                let seg = self
                    .live
                    .create_segment_unsynced(n, &self.header.recording_id)?;
                self.segment = Some((n, seg.len()));
                open = Some(seg);
            }
            let seg = match &mut open {
                Some(seg) => seg,
                None => {
                    let (n, _) = self.segment.expect("a segment");
                    open.insert(self.live.open_segment(n)?)
                }
            };
            let offset = seg.append(&f.header, &f.payload)?;
            self.segment = Some((seg.number(), seg.len()));
            let h = f.header;
            self.index.push(IndexEntry {
                start_tick: h.start_tick,
                tick_count: h.tick_count,
                flags: h.flags,
                offset,
                compressed_len: h.compressed_len,
                uncompressed_len: h.uncompressed_len,
            });
            written += (FRAME_HEADER_LEN + f.payload.len()) as u64;
        }
        Ok(written)
    }

    pub(super) fn update_library_meta(&mut self) {
        let lib = &mut self.metadata.library;
        let c = &self.chunker;
        lib.stats.ticks_written = c.ticks_written;
        lib.stats.events = c.events;
        lib.stats.pose_samples = c.pose_samples;
        lib.stats.uncompressed_bytes = c.uncompressed_bytes;
        let gaps = self.shared.gaps.lock().clone();
        for g in gaps {
            if !lib.gaps.contains(&g) {
                // A gap may have grown since it was last written: replace the older, shorter one.
                lib.gaps.retain(|o| o.from != g.from);
                lib.gaps.push(g);
            }
        }
        lib.stats.dropped_ticks = lib.gaps.iter().map(|g| u64::from(g.to - g.from) + 1).sum();
    }
}
