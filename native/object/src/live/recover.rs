//! Finishing a live recording from the bucket after its writer died: download the manifest's
//! metadata file and batches into a local live directory, recover it (the core's `recover`:
//! index rebuilt from the frames, torn tails cut), compact it, upload the `.reel`, remove the
//! live objects.

use std::path::Path;

use tickreel::play::Reader;
use tickreel::record::{CompactOptions, CompactReport, RecoverReport, compact, recover};
use tickreel::storage::LocalStorage;
use tickreel::storage::live::{META_FILE, live_dir_for, segment_name};
use tickreel::{Error, Result};

use super::manifest::{MAX_MANIFEST_BYTES, Manifest};
use super::ship::remove_live_objects;
use super::{batch_key, manifest_key};
use crate::client::ObjectStorage;
use crate::options::ObjectOptions;
use crate::upload::{UploadOptions, UploadReport};
use crate::url::ObjectUrl;

/// Largest batch object downloaded (a writer's segments are at most 64 MiB).
pub const MAX_BATCH_BYTES: u64 = 256 << 20;

/// What [`recover_url`] did.
#[derive(Debug, Clone)]
pub struct RecoveredUrl {
    pub recovered: RecoverReport,
    pub compacted: CompactReport,
    pub uploaded: UploadReport,
    /// Live objects removed (manifest and batches).
    pub removed: usize,
}

/// Finishes the live recording at `url` from the bucket (see the module's documentation),
/// working in `scratch` (an existing directory; its `<name>.reel.live` and `<name>.reel` must
/// not exist). Refuses a URL with no live objects, or whose compacted object already exists.
pub fn recover_url(url: &str, options: &ObjectOptions, scratch: &Path) -> Result<RecoveredUrl> {
    let u = ObjectUrl::parse(url)?;
    let storage = ObjectStorage::new(&u.bucket, options.clone())?;
    let mkey = manifest_key(&u.key);
    let Some(bytes) = storage.get_bytes(&mkey, MAX_MANIFEST_BYTES)? else {
        return Err(Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{u}: no live recording there (no {})", storage.url(&mkey)),
        )));
    };
    if storage.head(&u.key)?.is_some() {
        return Err(Error::InvalidState(format!(
            "{u} already exists: the recording was finished; its live objects are left under {}",
            storage.url(&super::live_prefix(&u.key))
        )));
    }
    let m = Manifest::decode(&bytes, &storage.url(&mkey).to_string())?;
    let name = u.key.rsplit('/').next().unwrap_or("recording.reel");
    let reel = scratch.join(name);
    let live = live_dir_for(&reel);
    let local = LocalStorage::shared();
    if local.stat(&live)?.is_some() || local.stat(&reel)?.is_some() {
        return Err(Error::InvalidState(format!(
            "{} or {} already exists",
            live.display(),
            reel.display()
        )));
    }
    local.create_dir_all(&live)?;
    let mut meta = local.create(&live.join(META_FILE))?;
    meta.append(&m.meta)?;
    meta.sync()?;
    let mut pieces = m.pieces.clone();
    pieces.sort_by_key(|p| (p.segment, p.segment_offset));
    let mut batch: Option<(u32, Vec<u8>)> = None;
    let mut seg: Option<(u32, Box<dyn tickreel::storage::StorageFile>)> = None;
    for p in &pieces {
        if batch.as_ref().is_none_or(|(n, _)| *n != p.batch) {
            let key = batch_key(&u.key, p.batch);
            let b = storage.get_bytes(&key, MAX_BATCH_BYTES)?.ok_or_else(|| {
                Error::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{}: missing, the manifest names it", storage.url(&key)),
                ))
            })?;
            batch = Some((p.batch, b));
        }
        let (_, b) = batch.as_ref().expect("just set");
        let bytes = usize::try_from(p.batch_offset)
            .ok()
            .zip(usize::try_from(p.batch_offset + p.len).ok())
            .and_then(|(from, to)| b.get(from..to))
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "{}: shorter than the manifest says",
                    storage.url(&batch_key(&u.key, p.batch))
                ))
            })?;
        if seg.as_ref().is_none_or(|(n, _)| *n != p.segment) {
            if let Some((_, mut f)) = seg.take() {
                f.sync()?;
            }
            let f = local.create(&live.join(segment_name(p.segment)))?;
            seg = Some((p.segment, f));
        }
        let (_, f) = seg.as_mut().expect("just set");
        if f.len() != p.segment_offset {
            return Err(Error::corrupt(format!(
                "{}: segment {} has a gap at byte {} (the manifest's pieces do not follow each other)",
                storage.url(&mkey),
                p.segment,
                f.len()
            )));
        }
        f.append(bytes)?;
    }
    if let Some((_, mut f)) = seg.take() {
        f.sync()?;
    }
    let recovered = recover(&live)?;
    let reader = Reader::open_live(&live)?;
    let compacted = compact(&reader, &reel, CompactOptions::default(), &mut |_, _| {})?;
    drop(reader);
    let uploaded = storage.upload(
        &reel,
        &u.key,
        UploadOptions {
            overwrite: false,
            remove_local: true,
        },
    )?;
    let batches = m.pieces.iter().map(|p| p.batch + 1).max().unwrap_or(0);
    let removed = remove_live_objects(&storage, &u.key, batches)?;
    Ok(RecoveredUrl {
        recovered,
        compacted,
        uploaded,
        removed,
    })
}
