//! Finishing a live recording from the bucket after its writer died: download the manifest's
//! batches into a local live directory (one at a time) with a metadata file whose index is
//! rebuilt from their frames, recover it (the core's `recover`: index rebuilt from the frames,
//! torn tails cut), compact it, upload the `.reel`, remove the live objects (every object under
//! `<key>.live/`, listed and deleted in bulk).

use std::path::Path;

use tickreel::play::Reader;
use tickreel::record::{CompactOptions, CompactReport, RecoverReport, compact, recover};
use tickreel::storage::LocalStorage;
use tickreel::storage::live::{META_FILE, live_dir_for, segment_name};
use tickreel::{Error, Result};

use super::index::{ShippedIndex, rebuild_meta};
use super::manifest::{MAX_MANIFEST_BYTES, Manifest, decode_batch};
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
    let mut index = ShippedIndex::default();
    let mut seg: Option<(u32, Box<dyn tickreel::storage::StorageFile>)> = None;
    for n in 0..m.batches {
        let key = batch_key(&u.key, n);
        let what = storage.url(&key).to_string();
        let b = storage.get_bytes(&key, MAX_BATCH_BYTES)?.ok_or_else(|| {
            Error::Io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{what}: missing, the manifest names it"),
            ))
        })?;
        for p in decode_batch(n, &b, &what)? {
            let bytes = &b[p.batch_offset as usize..(p.batch_offset + p.len) as usize];
            // Checks that the piece follows the segment's bytes so far, and indexes its frames.
            index.add(&p, bytes, &what)?;
            if seg.as_ref().is_none_or(|(s, _)| *s != p.segment) {
                if let Some((_, mut f)) = seg.take() {
                    f.sync()?;
                }
                let path = live.join(segment_name(p.segment));
                let f = match local.stat(&path)? {
                    Some(_) => local.open_append(&path)?,
                    None => local.create(&path)?,
                };
                seg = Some((p.segment, f));
            }
            let (_, f) = seg.as_mut().expect("just set");
            if f.len() != p.segment_offset {
                return Err(Error::corrupt(format!(
                    "{what}: segment {} has a gap at byte {} (the pieces do not follow each other)",
                    p.segment,
                    f.len()
                )));
            }
            f.append(bytes)?;
        }
    }
    if let Some((_, mut f)) = seg.take() {
        f.sync()?;
    }
    let mut meta = local.create(&live.join(META_FILE))?;
    meta.append(&rebuild_meta(
        &m.prefix,
        &index.entries,
        &storage.url(&mkey).to_string(),
    )?)?;
    meta.sync()?;
    drop(meta);
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
    let removed = remove_live_objects(&storage, &u.key)?;
    Ok(RecoveredUrl {
        recovered,
        compacted,
        uploaded,
        removed,
    })
}
