//! Shipping a live recording to the bucket while it is written: [`LiveShipper`], a background
//! thread that every interval reads the local live directory's metadata file, sends the segment
//! bytes flushed since the last shipment as one batch object and then the manifest (two
//! requests; one, the manifest alone, when nothing new was flushed: followers see from it that
//! the writer is alive). It never touches the recorder: the server thread's `submit_tick` is the
//! same with or without it. [`LiveShipper::finish`] waits for the recorder's compaction, uploads
//! the `.reel` and removes the live objects.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tickreel::format::FRAME_HEADER_LEN;
use tickreel::storage::frames::read_prefix;
use tickreel::storage::live::{META_FILE, live_dir_for, members_of, segment_name};
use tickreel::storage::{LocalStorage, MemSource};
use tickreel::{Error, Pending, Result, SharedPending};
use tickreel_sync::sync::{Condvar, Mutex};

use super::manifest::{MAX_PIECES, Manifest, Piece};
use super::{batch_key, manifest_key};
use crate::client::ObjectStorage;
use crate::finish::Uploaded;
use crate::upload::UploadOptions;

/// The default time between two shipments: 10 s, so 6 manifests and at most 6 batch objects a
/// minute (12 requests per recording per minute).
pub const DEFAULT_SHIP_INTERVAL: Duration = Duration::from_secs(10);

/// How a [`LiveShipper`] ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShipOptions {
    /// Time between two shipments: at most two requests each (a batch and the manifest).
    pub interval: Duration,
}

impl Default for ShipOptions {
    fn default() -> Self {
        ShipOptions {
            interval: DEFAULT_SHIP_INTERVAL,
        }
    }
}

/// What a shipper has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShipStats {
    /// Manifests written (one per shipment).
    pub shipments: u64,
    /// Batch objects written.
    pub batches: u64,
    /// Requests sent (batches, manifests; failed ones too).
    pub requests: u64,
    /// Segment bytes shipped (what the local segments hold, as of the last shipment).
    pub segment_bytes: u64,
    /// Bytes sent: batches plus manifests.
    pub shipped_bytes: u64,
    /// Last tick in the bucket (of the last manifest written).
    pub last_tick: Option<u32>,
    /// Shipments that failed (retried at the next interval).
    pub errors: u64,
    pub last_error: Option<String>,
}

struct State {
    seq: u64,
    next_batch: u32,
    pieces: Vec<Piece>,
    /// Per segment: bytes in the bucket.
    shipped: BTreeMap<u32, u64>,
    stats: ShipStats,
}

struct Shared {
    storage: ObjectStorage,
    key: String,
    live: PathBuf,
    options: ShipOptions,
    state: Mutex<State>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// Ships a live recording to the bucket (see the [module documentation](self)). Dropping it
/// stops the shipping (what is in the bucket stays: a follower then reports the recording
/// ended, `tickreel recover s3://...` finishes it).
pub struct LiveShipper {
    shared: Arc<Shared>,
    thread: Option<tickreel_sync::threads::Handle>,
}

impl std::fmt::Debug for LiveShipper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveShipper")
            .field("key", &self.shared.key)
            .field("live", &self.shared.live)
            .finish_non_exhaustive()
    }
}

impl ObjectStorage {
    /// Starts shipping the live recording whose final local path is `reel` (its live directory
    /// `<reel>.live` is read; it need not exist yet) to `key` (the compacted recording's key:
    /// the live objects go under `<key>.live/`). Refuses a key that already holds a recording or
    /// live objects.
    pub fn ship_live(&self, reel: &Path, key: &str, options: ShipOptions) -> Result<LiveShipper> {
        if options.interval.is_zero() {
            return Err(Error::invalid("ship interval: must be more than 0"));
        }
        if self.head(key)?.is_some() || self.head(&manifest_key(key))?.is_some() {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{}: a recording (or a live one) is already there",
                    self.url(key)
                ),
            )));
        }
        let shared = Arc::new(Shared {
            storage: self.clone(),
            key: key.to_string(),
            live: live_dir_for(reel),
            options,
            state: Mutex::new(State {
                seq: 0,
                next_batch: 0,
                pieces: Vec::new(),
                shipped: BTreeMap::new(),
                stats: ShipStats::default(),
            }),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let s = shared.clone();
        let thread = tickreel_sync::threads::spawn("tickreel-ship", move || s.run())?;
        Ok(LiveShipper {
            shared,
            thread: Some(thread),
        })
    }
}

impl LiveShipper {
    pub fn stats(&self) -> ShipStats {
        self.shared.state.lock().stats.clone()
    }

    /// Ships now, on the calling thread (blocks on the requests): what the next interval would.
    pub fn ship_now(&self) -> Result<()> {
        self.shared.ship_counted()
    }

    /// Stops shipping; once `finish` (the recorder's `finish()`) has compacted the recording,
    /// uploads the `.reel` to the key with `options`, then removes the manifest and the batch
    /// objects, on a background thread. A failed compaction or upload leaves the live objects in
    /// the bucket (`tickreel recover` finishes them).
    pub fn finish(
        mut self,
        finish: impl Into<SharedPending<PathBuf>>,
        options: UploadOptions,
    ) -> Pending<Uploaded> {
        self.stop_thread();
        let (tx, pending) = Pending::channel("upload");
        let shared = self.shared.clone();
        let finish = finish.into();
        let job = move || {
            let finished = finish
                .wait(None)
                .expect("a wait without a limit ends with the result");
            let r = finished.and_then(|local| {
                let report = shared.storage.upload(&local, &shared.key, options)?;
                let batches = shared.state.lock().next_batch;
                remove_live_objects(&shared.storage, &shared.key, batches)?;
                Ok(Uploaded { local, report })
            });
            let _ = tx.send(r);
        };
        match tickreel_sync::threads::spawn("tickreel-ship-finish", job) {
            Ok(_) => pending,
            Err(e) => Pending::ready(Err(Error::Io(e)), "upload"),
        }
    }

    fn stop_thread(&mut self) {
        *self.shared.stop.lock() = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}

impl Drop for LiveShipper {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// Removes the manifest first (a follower then looks for the final object), then batches
/// `0..=batches` (one past those written: a batch whose manifest was never written). Returns how
/// many deletes were sent. (No listing: some stores refuse listings of some prefixes, and the
/// writer or the manifest knows the batches.)
pub(crate) fn remove_live_objects(
    storage: &ObjectStorage,
    key: &str,
    batches: u32,
) -> Result<usize> {
    storage.delete(&manifest_key(key))?;
    for n in 0..=batches {
        storage.delete(&batch_key(key, n))?;
    }
    Ok(batches as usize + 2)
}

impl Shared {
    fn run(&self) {
        loop {
            {
                let mut stop = self.stop.lock();
                if !*stop {
                    self.wake.wait_for(&mut stop, self.options.interval);
                }
                if *stop {
                    return;
                }
            }
            let _ = self.ship_counted();
        }
    }

    fn ship_counted(&self) -> Result<()> {
        let mut st = self.state.lock();
        let r = self.ship(&mut st);
        if let Err(e) = &r {
            st.stats.errors += 1;
            st.stats.last_error = Some(e.to_string());
        }
        r
    }

    /// One shipment (see the module's documentation). Nothing before the first flush.
    fn ship(&self, st: &mut State) -> Result<()> {
        let local = LocalStorage::shared();
        let members = members_of(&local);
        let meta = match members.stat(&self.live.join(META_FILE))? {
            Some(_) => members.read(&self.live.join(META_FILE))?,
            None => return Ok(()),
        };
        let (_, _, index) = read_prefix(
            &MemSource::new(meta.clone()),
            &tickreel::format::Limits::default(),
        )?;
        // Where the indexed frames of each segment end: what the metadata file vouches for.
        let mut ends: BTreeMap<u32, u64> = BTreeMap::new();
        for e in &index {
            let end = u64::from(e.segment_offset())
                + FRAME_HEADER_LEN as u64
                + u64::from(e.compressed_len);
            let x = ends.entry(e.segment()).or_default();
            *x = (*x).max(end);
        }
        let mut batch = Vec::new();
        let mut pieces = Vec::new();
        for (&seg, &end) in &ends {
            let from = st.shipped.get(&seg).copied().unwrap_or(0);
            if end <= from {
                continue;
            }
            let file = members.open(&self.live.join(segment_name(seg)))?;
            let bytes = file.read_exact_at(from, (end - from) as usize)?;
            pieces.push(Piece {
                batch: st.next_batch,
                batch_offset: batch.len() as u64,
                segment: seg,
                segment_offset: from,
                len: end - from,
            });
            batch.extend_from_slice(&bytes);
        }
        if st.pieces.len() + pieces.len() > MAX_PIECES {
            return Err(Error::limit(format!(
                "{}: more than {MAX_PIECES} shipments; the recording is too long to ship live",
                self.storage.url(&self.key)
            )));
        }
        if !batch.is_empty() {
            let len = batch.len() as u64;
            st.stats.requests += 1;
            self.storage
                .put_bytes(&batch_key(&self.key, st.next_batch), batch, true)?;
            st.next_batch += 1;
            st.stats.batches += 1;
            st.stats.shipped_bytes += len;
            st.stats.segment_bytes += len;
            for p in &pieces {
                st.shipped.insert(p.segment, p.segment_offset + p.len);
            }
            st.pieces.extend(pieces);
        }
        let manifest = Manifest {
            seq: st.seq + 1,
            interval_ms: u32::try_from(self.options.interval.as_millis()).unwrap_or(u32::MAX),
            pieces: st.pieces.clone(),
            meta,
        }
        .encode();
        let len = manifest.len() as u64;
        st.stats.requests += 1;
        self.storage
            .put_bytes(&manifest_key(&self.key), manifest, true)?;
        st.seq += 1;
        st.stats.shipments += 1;
        st.stats.shipped_bytes += len;
        st.stats.last_tick = index
            .last()
            .map(|e| e.start_tick + e.tick_count.saturating_sub(1));
        Ok(())
    }
}
