//! Shipping a live recording to the bucket while it is written: [`LiveShipper`], a background
//! thread that every interval reads the local live directory's metadata file, sends the segment
//! bytes flushed since the last shipment as one batch object and then the manifest (two
//! requests; one, the manifest alone, when nothing new was flushed: followers see from it that
//! the writer is alive). The manifest leaves the index out (see `manifest`): what is shipped
//! stays the segment bytes plus a constant per shipment, however long the recording. It never
//! touches the recorder: the server thread's `submit_tick` is the same with or without it.
//! A shipper started on a key whose live objects are this recording's (a server restarted on a
//! resumed recording) carries on from the bucket's manifest. [`LiveShipper::finish`] waits for
//! the recorder's compaction, uploads the `.reel` and removes the live objects (listed, deleted
//! in bulk).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tickreel::format::{FRAME_HEADER_LEN, HEADER_LEN, Header};
use tickreel::storage::frames::read_prefix;
use tickreel::storage::live::{META_FILE, live_dir_for, members_of, segment_name};
use tickreel::storage::{LocalStorage, MemSource};
use tickreel::{Engine, Error, Pending, Recorder, RecorderOptions, Result, SharedPending};
use tickreel_sync::sync::{Condvar, Mutex};

use super::manifest::{MAX_BATCHES, MAX_PIECES, Manifest, encode_batch_head};
use super::{batch_key, live_prefix, manifest_key};
use crate::client::ObjectStorage;
use crate::finish::Uploaded;
use crate::upload::UploadOptions;

/// The default time between two shipments: 10 s, so 6 manifests and at most 6 batch objects a
/// minute (12 requests per recording per minute).
pub const DEFAULT_SHIP_INTERVAL: Duration = Duration::from_secs(10);

/// The longest local flush interval of a shipped recording: a tick reaches the bucket within
/// a flush and a shipping interval, and a follower sees it within a poll more
/// (`live_remote_follow_lag_ms` ≤ ship interval + 2 s needs the flush ≤ 1 s).
pub const MAX_SHIPPED_FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// `options` with a flush interval of at most [`MAX_SHIPPED_FLUSH_INTERVAL`]: how a recording
/// to be shipped is started ([`ObjectStorage::record_shipped`] does it). Flushing more often is
/// the writer thread's work (a segment append, a metadata rewrite); the server thread's
/// `submit_tick` is the same.
pub fn flush_for_shipping(mut options: RecorderOptions) -> RecorderOptions {
    options.flush.interval = options.flush.interval.min(MAX_SHIPPED_FLUSH_INTERVAL);
    options
}

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
    /// Per segment: bytes in the bucket.
    shipped: BTreeMap<u32, u64>,
    /// The recording the bucket's live objects are (set when resumed from its manifest): a
    /// local recording with another id is not shipped over them.
    recording_id: Option<[u8; 16]>,
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
    /// The key, claimed while this shipper ships (given back when it is dropped, after its
    /// thread stopped).
    _claim: Claim,
}

impl std::fmt::Debug for LiveShipper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveShipper")
            .field("key", &self.shared.key)
            .field("live", &self.shared.live)
            .finish_non_exhaustive()
    }
}

/// The keys (as URLs) a shipper of this process ships to now: a second shipper onto one of them
/// is refused (two shippers would write the same batch numbers), while a shipper started after
/// the first one stopped resumes.
static SHIPPING: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A key claimed in [`SHIPPING`], given back when the shipper goes.
struct Claim(String);

impl Claim {
    fn take(url: String) -> Option<Claim> {
        let fresh = SHIPPING.lock().insert(url.clone());
        fresh.then(|| Claim(url))
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        SHIPPING.lock().remove(&self.0);
    }
}

impl ObjectStorage {
    /// Ships the live recording `recorder` writes (already started) to `key`
    /// ([`ObjectStorage::ship_live`]), first making it durable at least every
    /// [`MAX_SHIPPED_FLUSH_INTERVAL`] ([`Recorder::flush_at_least_every`]), so that a follower
    /// sees a tick within the ship interval plus that. Refuses a stream without a file.
    pub fn ship_recorder(
        &self,
        recorder: &Recorder,
        key: &str,
        ship: ShipOptions,
    ) -> Result<LiveShipper> {
        if !recorder.is_persistent() {
            return Err(Error::InvalidState(
                "a stream without a file has no live recording to ship".into(),
            ));
        }
        if ship.interval.is_zero() {
            return Err(Error::invalid("ship interval: must be more than 0"));
        }
        recorder.flush_at_least_every(MAX_SHIPPED_FLUSH_INTERVAL)?;
        self.ship_live(recorder.path(), key, ship)
    }

    /// Starts recording at `reel` with `options` (its flush interval at most
    /// [`MAX_SHIPPED_FLUSH_INTERVAL`]: [`flush_for_shipping`]) and shipping it to `key`
    /// ([`ObjectStorage::ship_live`]; a resumed recording resumes shipping). If shipping cannot
    /// start, the recorder is dropped (its live directory stays, as after a stop).
    pub fn record_shipped(
        &self,
        engine: &Engine,
        reel: &Path,
        options: RecorderOptions,
        key: &str,
        ship: ShipOptions,
    ) -> Result<(Recorder, LiveShipper)> {
        let rec = engine.start_recording(reel, flush_for_shipping(options))?;
        let shipper = self.ship_live(reel, key, ship)?;
        Ok((rec, shipper))
    }

    /// Starts shipping the live recording whose final local path is `reel` (its live directory
    /// `<reel>.live` is read; it need not exist yet) to `key` (the compacted recording's key:
    /// the live objects go under `<key>.live/`). Refuses a key that already holds a finished
    /// recording. Live objects already under the key are resumed (the next batch number, the
    /// shipped bytes and the sequence taken from their manifest: a server restarted on a
    /// resumed recording carries on shipping it) when they are this recording's (the local
    /// metadata file names the same recording); otherwise refused.
    pub fn ship_live(&self, reel: &Path, key: &str, options: ShipOptions) -> Result<LiveShipper> {
        if options.interval.is_zero() {
            return Err(Error::invalid("ship interval: must be more than 0"));
        }
        let already = |what: &str| {
            Error::Io(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{}: {what}", self.url(key)),
            ))
        };
        let endpoint = self.inner.options.endpoint.as_deref().unwrap_or("aws");
        let Some(claim) = Claim::take(format!("{endpoint} {}", self.url(key))) else {
            return Err(already("another shipper of this process ships there now"));
        };
        if self.head(key)?.is_some() {
            return Err(already("a finished recording is already there"));
        }
        let live = live_dir_for(reel);
        let mut state = State {
            seq: 0,
            next_batch: 0,
            shipped: BTreeMap::new(),
            recording_id: None,
            stats: ShipStats::default(),
        };
        let mkey = manifest_key(key);
        if let Some(bytes) = self.get_bytes(&mkey, super::manifest::MAX_MANIFEST_BYTES)? {
            let m = Manifest::decode(&bytes, &self.url(&mkey).to_string())?;
            let theirs = Header::decode(&m.prefix)?.recording_id;
            let local = LocalStorage::shared();
            let members = members_of(&local);
            let meta = live.join(META_FILE);
            let ours = match members.stat(&meta)? {
                Some(_) => Some(Header::decode(&members.read(&meta)?)?.recording_id),
                None => None,
            };
            if ours != Some(theirs) || theirs == [0; 16] {
                return Err(already(&format!(
                    "the live objects of another recording are already there (no local live \
                     recording {} with their id to resume): recover them (`tickreel recover \
                     {}`) or remove {}",
                    live.display(),
                    self.url(key),
                    self.url(&live_prefix(key))
                )));
            }
            state.seq = m.seq;
            state.next_batch = m.batches;
            state.shipped = m.shipped.into_iter().collect();
            state.recording_id = Some(theirs);
        }
        let shared = Arc::new(Shared {
            storage: self.clone(),
            key: key.to_string(),
            live,
            options,
            state: Mutex::new(state),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let s = shared.clone();
        let thread = tickreel_sync::threads::spawn("tickreel-ship", move || s.run())?;
        Ok(LiveShipper {
            shared,
            thread: Some(thread),
            _claim: claim,
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
                remove_live_objects(&shared.storage, &shared.key)?;
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

/// Removes the manifest first (a follower then looks for the final object), then everything
/// else under `<key>.live/`, listed and deleted in bulk (batches of this shipper and of any
/// earlier one, and a batch whose manifest was never written). Returns how many objects were
/// removed.
pub(crate) fn remove_live_objects(storage: &ObjectStorage, key: &str) -> Result<usize> {
    storage.delete(&manifest_key(key))?;
    let rest = storage.delete_prefix(&live_prefix(key))?;
    Ok(1 + rest as usize)
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
        let (header, _, index) = read_prefix(
            &MemSource::new(meta.clone()),
            &tickreel::format::Limits::default(),
        )?;
        let url = || self.storage.url(&self.key);
        match st.recording_id {
            Some(id) if id != header.recording_id => {
                return Err(Error::InvalidState(format!(
                    "{}: the bucket's live objects are another recording than {}",
                    url(),
                    self.live.display()
                )));
            }
            _ => st.recording_id = Some(header.recording_id),
        }
        // The metadata file without its index: followers rebuild the index from the frames.
        let prefix_len = HEADER_LEN + header.metadata_len as usize;
        let prefix = meta[..prefix_len.min(meta.len())].to_vec();
        // Where the indexed frames of each segment end: what the metadata file vouches for.
        let mut ends: BTreeMap<u32, u64> = BTreeMap::new();
        for e in &index {
            let end = u64::from(e.segment_offset())
                + FRAME_HEADER_LEN as u64
                + u64::from(e.compressed_len);
            let x = ends.entry(e.segment()).or_default();
            *x = (*x).max(end);
        }
        let mut bytes = Vec::new();
        let mut pieces = Vec::new();
        for (&seg, &end) in &ends {
            let from = st.shipped.get(&seg).copied().unwrap_or(0);
            if end <= from {
                if end < from {
                    return Err(Error::InvalidState(format!(
                        "{}: the bucket holds {from} bytes of segment {seg}, the local \
                         recording {} only {end}",
                        url(),
                        self.live.display()
                    )));
                }
                continue;
            }
            let file = members.open(&self.live.join(segment_name(seg)))?;
            bytes.extend_from_slice(&file.read_exact_at(from, (end - from) as usize)?);
            pieces.push((seg, from, end - from));
        }
        if pieces.len() > MAX_PIECES {
            return Err(Error::limit(format!(
                "{}: {} segments in one shipment; limit {MAX_PIECES}",
                url(),
                pieces.len()
            )));
        }
        if !pieces.is_empty() {
            if st.next_batch >= MAX_BATCHES {
                return Err(Error::limit(format!(
                    "{}: more than {MAX_BATCHES} shipments; the recording is too long to ship \
                     live",
                    url()
                )));
            }
            let mut batch = encode_batch_head(&pieces);
            let segment_bytes = bytes.len() as u64;
            batch.extend_from_slice(&bytes);
            let len = batch.len() as u64;
            st.stats.requests += 1;
            self.storage
                .put_bytes(&batch_key(&self.key, st.next_batch), batch, true)?;
            st.next_batch += 1;
            st.stats.batches += 1;
            st.stats.shipped_bytes += len;
            st.stats.segment_bytes += segment_bytes;
            for (seg, from, len) in &pieces {
                st.shipped.insert(*seg, from + len);
            }
        }
        let manifest = Manifest {
            seq: st.seq + 1,
            interval_ms: u32::try_from(self.options.interval.as_millis()).unwrap_or(u32::MAX),
            batches: st.next_batch,
            shipped: st.shipped.iter().map(|(s, e)| (*s, *e)).collect(),
            prefix,
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
