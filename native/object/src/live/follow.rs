//! Following a live recording in a bucket from any machine: [`ObjectLive`] is the core's
//! [`RemoteLive`] over the manifest and batch objects a [`super::LiveShipper`] writes. A poll is
//! one request (the manifest; and a `head` of the final object when there is no manifest), plus
//! one per batch object shipped since the last poll: each new batch is read whole once, to
//! rebuild the index from its frames (the manifest leaves the index out; see `super::index`),
//! at most [`BATCHES_PER_POLL`] a poll (a follower that starts late catches up over a few
//! polls). The [`KEPT_BATCHES`] newest batches stay in memory (at most [`MAX_KEPT_BATCH_BYTES`]
//! each); frames of older ones are read by range when a playhead needs them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tickreel::format::FRAME_HEADER_LEN;
use tickreel::format::IndexEntry;
use tickreel::play::{FollowOptions, LiveFollower};
use tickreel::storage::frames::FrameSource;
use tickreel::storage::remote::{RemoteLive, RemotePoll};
use tickreel::storage::{MemSource, Source};
use tickreel::{Error, Result};
use tickreel_sync::sync::Mutex;

use super::index::{ShippedIndex, rebuild_meta};
use super::manifest::{MAX_MANIFEST_BYTES, Manifest, Piece, decode_batch};
use super::recover::MAX_BATCH_BYTES;
use super::ship::DEFAULT_SHIP_INTERVAL;
use super::{batch_key, manifest_key};
use crate::client::ObjectStorage;
use crate::options::ObjectOptions;
use crate::source::ObjectSource;
use crate::url::ObjectUrl;

/// Batch objects kept open (in memory, or with their cached ranges) per followed recording.
pub const KEPT_BATCHES: usize = 16;
/// Largest batch a follower keeps in memory once read (larger ones are read again by range).
pub const MAX_KEPT_BATCH_BYTES: usize = 8 << 20;
/// Most batch objects a follower reads in one poll.
pub const BATCHES_PER_POLL: u32 = 64;

/// How long a manifest may stay the same before its writer counts as gone: three shipping
/// intervals (the writer ships at least a manifest every interval, even with nothing new).
pub const STALE_AFTER: Duration = Duration::from_secs(3 * DEFAULT_SHIP_INTERVAL.as_secs());

/// A live recording in a bucket, as the core's follower polls it.
pub struct ObjectLive {
    storage: ObjectStorage,
    key: String,
    read: Mutex<Read>,
    batches: Arc<Batches>,
}

/// What a follower has read of the bucket so far.
#[derive(Default)]
struct Read {
    /// The manifest whose batches have all been read.
    last_seq: Option<u64>,
    /// Batch objects read (`0..batches`).
    batches: u32,
    /// Their pieces, in the order read (segment order within a batch, batches in order).
    pieces: Vec<Piece>,
    index: ShippedIndex,
}

impl std::fmt::Debug for ObjectLive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl ObjectLive {
    /// The live recording whose compacted form will be `key`.
    pub fn new(storage: &ObjectStorage, key: &str) -> ObjectLive {
        ObjectLive {
            storage: storage.clone(),
            key: key.to_string(),
            read: Mutex::new(Read::default()),
            batches: Arc::new(Batches {
                storage: storage.clone(),
                key: key.to_string(),
                open: Mutex::new(BTreeMap::new()),
            }),
        }
    }
}

impl RemoteLive for ObjectLive {
    fn poll(&self) -> Result<RemotePoll> {
        let url = self.storage.url(&manifest_key(&self.key));
        let Some(bytes) = self.storage.get_bytes(&url.key, MAX_MANIFEST_BYTES)? else {
            return Ok(match self.storage.head(&self.key)? {
                Some(_) => {
                    RemotePoll::Finished(Arc::new(ObjectSource::new(&self.storage, &self.key)?))
                }
                None => RemotePoll::Nothing,
            });
        };
        let m = Manifest::decode(&bytes, &url.to_string())?;
        let mut read = self.read.lock();
        if read.last_seq == Some(m.seq) {
            return Ok(RemotePoll::Unchanged);
        }
        // The batches shipped since the last poll: their frames extend the index.
        let until = m.batches.min(read.batches.saturating_add(BATCHES_PER_POLL));
        while read.batches < until {
            let n = read.batches;
            let key = batch_key(&self.key, n);
            let what = self.storage.url(&key).to_string();
            let b = self
                .storage
                .get_bytes(&key, MAX_BATCH_BYTES)?
                .ok_or_else(|| {
                    Error::Io(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("{what}: missing, the manifest names it"),
                    ))
                })?;
            let pieces = decode_batch(n, &b, &what)?;
            let mut index = read.index.clone();
            for p in &pieces {
                let from = p.batch_offset as usize;
                index.add(p, &b[from..from + p.len as usize], &what)?;
            }
            read.index = index;
            read.pieces.extend(pieces);
            read.batches += 1;
            if b.len() <= MAX_KEPT_BATCH_BYTES {
                self.batches.keep(n, Arc::new(MemSource::new(b)));
            }
        }
        if read.batches == m.batches {
            read.last_seq = Some(m.seq);
        }
        let meta = rebuild_meta(&m.prefix, &read.index.entries, &url.to_string())?;
        let mut pieces = read.pieces.clone();
        pieces.sort_by_key(|p| (p.segment, p.segment_offset));
        Ok(RemotePoll::Live {
            meta: Arc::new(Named {
                bytes: MemSource::new(meta),
                name: url.to_string(),
            }),
            frames: Arc::new(BatchFrames {
                pieces,
                batches: self.batches.clone(),
            }),
        })
    }

    fn describe(&self) -> String {
        self.storage.url(&self.key).to_string()
    }
}

/// The metadata bytes of a manifest, named by its URL in messages.
#[derive(Debug)]
struct Named {
    bytes: MemSource,
    name: String,
}

impl Source for Named {
    fn len(&self) -> Result<u64> {
        self.bytes.len()
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        self.bytes.read_up_to(offset, len)
    }
    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// The open batch objects of one followed recording.
struct Batches {
    storage: ObjectStorage,
    key: String,
    open: Mutex<BTreeMap<u32, Arc<dyn Source>>>,
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Batches")
    }
}

impl Batches {
    fn source(&self, batch: u32) -> Result<Arc<dyn Source>> {
        if let Some(s) = self.open.lock().get(&batch) {
            return Ok(s.clone());
        }
        let s: Arc<dyn Source> = Arc::new(ObjectSource::new(
            &self.storage,
            &batch_key(&self.key, batch),
        )?);
        self.keep(batch, s.clone());
        Ok(s)
    }

    /// Keeps `source` as batch `batch`'s, the oldest going first past [`KEPT_BATCHES`]:
    /// playheads mostly read near the live edge.
    fn keep(&self, batch: u32, source: Arc<dyn Source>) {
        let mut open = self.open.lock();
        open.insert(batch, source);
        while open.len() > KEPT_BATCHES {
            let first = *open.keys().next().expect("not empty");
            open.remove(&first);
        }
    }
}

/// Frames of one manifest: index offsets `(segment << 32) | offset` found in its pieces.
#[derive(Debug)]
struct BatchFrames {
    /// Sorted by segment and offset.
    pieces: Vec<Piece>,
    batches: Arc<Batches>,
}

impl BatchFrames {
    fn piece_for(&self, segment: u32, offset: u64, len: u64) -> Option<&Piece> {
        let i = self
            .pieces
            .partition_point(|p| (p.segment, p.segment_offset) <= (segment, offset));
        let p = self.pieces.get(i.checked_sub(1)?)?;
        p.holds(segment, offset, len).then_some(p)
    }
}

impl FrameSource for BatchFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        let len = FRAME_HEADER_LEN as u64 + u64::from(e.compressed_len);
        let off = u64::from(e.segment_offset());
        let p = self.piece_for(e.segment(), off, len).ok_or_else(|| {
            Error::corrupt(format!(
                "{}: no shipped batch holds the chunk at tick {} (segment {}, offset {off})",
                self.describe(),
                e.start_tick,
                e.segment()
            ))
        })?;
        self.batches
            .source(p.batch)?
            .read_exact_at(p.batch_offset + (off - p.segment_offset), len as usize)
    }

    fn describe(&self) -> String {
        self.batches.storage.url(&self.batches.key).to_string() + " (live)"
    }
}

/// How a follower of a recording in a bucket polls.
#[derive(Debug, Clone)]
pub struct RemoteFollowOptions {
    /// Time between two polls (one request each).
    pub poll_interval: Duration,
    /// A manifest unchanged this long: the writer is gone ([`tickreel::play::FollowState::Abandoned`]).
    pub stale_after: Duration,
}

impl Default for RemoteFollowOptions {
    fn default() -> Self {
        RemoteFollowOptions {
            poll_interval: Duration::from_millis(500),
            stale_after: STALE_AFTER,
        }
    }
}

/// Follows the recording at `url` (`s3://bucket/key.reel`: its live objects while it is
/// written, then the compacted object), from any machine.
pub fn follow_url(
    url: &str,
    options: &ObjectOptions,
    follow: &RemoteFollowOptions,
) -> Result<LiveFollower> {
    let u = ObjectUrl::parse(url)?;
    let storage = ObjectStorage::new(&u.bucket, options.clone())?;
    LiveFollower::open_remote(
        Arc::new(ObjectLive::new(&storage, &u.key)),
        FollowOptions {
            poll_interval: follow.poll_interval,
            lost_after: follow.stale_after,
            ..FollowOptions::default()
        },
    )
}
