//! [`ObjectSource`]: one object read through range requests, as the core's [`Source`].
//!
//! Nothing is requested until the first read (so a ghost load given a source opens it on its own
//! thread). The first read of a reader (the 256 KiB prefix) is one request, which also tells the
//! object's size; a longer prefix costs one more request for the bytes past it. A chunk read
//! fetches the chunk and `readahead` bytes after it in one request, kept in a small cache of
//! ranges, so the following chunks (what playback prefetches, what a ghost load or `verify` reads
//! next) cost nothing. Reads of a range already being fetched by another thread wait for that
//! request instead of sending their own.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::OnceLock;

use bytes::Bytes;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, ObjectStore};
use tickreel::storage::Source;
use tickreel::{Error, Result};
use tickreel_sync::sync::{Condvar, Mutex};

use crate::client::{ObjectStorage, object_path};
use crate::url::ObjectUrl;

/// An object opened for range reads.
pub struct ObjectSource {
    storage: ObjectStorage,
    url: ObjectUrl,
    path: ObjectPath,
    size: OnceLock<u64>,
    state: Mutex<State>,
    fetched: Condvar,
}

#[derive(Default)]
struct State {
    /// Fetched ranges, most recently used first.
    cached: VecDeque<(u64, Bytes)>,
    /// Ranges being fetched by some thread.
    in_flight: Vec<Range<u64>>,
}

impl std::fmt::Debug for ObjectSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectSource")
            .field("url", &self.url.to_string())
            .field("size", &self.size.get())
            .finish_non_exhaustive()
    }
}

impl ObjectSource {
    /// A source over `key` (no request yet).
    pub fn new(storage: &ObjectStorage, key: &str) -> Result<ObjectSource> {
        let url = storage.url(key);
        Ok(ObjectSource {
            path: object_path(&url)?,
            storage: storage.clone(),
            url,
            size: OnceLock::new(),
            state: Mutex::new(State::default()),
            fetched: Condvar::new(),
        })
    }

    pub fn url(&self) -> &ObjectUrl {
        &self.url
    }

    /// The bytes `offset..end` (`end` past the object's end: up to its end), from the cache, a
    /// request in flight, or one new request.
    fn read_range(&self, offset: u64, end: u64) -> Result<Vec<u8>> {
        let mut st = self.state.lock();
        loop {
            let size = self.size.get().copied();
            let end = size.map_or(end, |s| end.min(s));
            if size.is_some_and(|s| offset >= s) {
                return Ok(Vec::new());
            }
            if let Some(b) = cached_slice(&mut st.cached, offset, end, size) {
                return Ok(b);
            }
            if st
                .in_flight
                .iter()
                .any(|r| r.start <= offset && (end <= r.end || size.is_some_and(|s| r.end >= s)))
            {
                self.fetched.wait(&mut st);
                continue;
            }
            // Fetch what is missing: from the end of a cached range holding `offset`, if any.
            let (head, from) = match cached_prefix(&st.cached, offset) {
                Some((bytes, upto)) => (bytes, upto),
                None => (Bytes::new(), offset),
            };
            let want = end.max(offset.saturating_add(self.storage.options().readahead as u64));
            let to = size.map_or(want, |s| want.min(s));
            st.in_flight.push(from..to);
            drop(st);
            let r = self.fetch(from..to);
            st = self.state.lock();
            st.in_flight.retain(|x| *x != (from..to));
            self.fetched.notify_all();
            let got = r?;
            let keep = self.storage.options().cached_ranges.max(1);
            st.cached.push_front((from, got.clone()));
            st.cached.truncate(keep);
            // `head` holds offset..from: the answer is head ++ got, cut at `end`.
            let mut out = Vec::with_capacity(head.len() + got.len());
            out.extend_from_slice(&head);
            out.extend_from_slice(&got);
            out.truncate((end - offset) as usize);
            return Ok(out);
        }
    }

    /// One range request; learns the object's size from its answer.
    fn fetch(&self, range: Range<u64>) -> Result<Bytes> {
        let store = self.storage.inner.store.clone();
        let opts = GetOptions::new().with_range(Some(GetRange::Bounded(range.clone())));
        let path = self.path.clone();
        let (bytes, size) = self.storage.run(&self.url, async move {
            let r = store.get_opts(&path, opts).await?;
            let size = r.meta.size;
            Ok((r.bytes().await?, size))
        })?;
        match self.size.get() {
            Some(&known) if known != size => {
                return Err(Error::Io(std::io::Error::other(format!(
                    "{}: the object changed while being read ({known} bytes, now {size})",
                    self.url
                ))));
            }
            _ => {
                let _ = self.size.set(size);
            }
        }
        let expect = range.end.min(size).saturating_sub(range.start);
        if bytes.len() as u64 != expect {
            return Err(Error::truncated(format!(
                "{}: asked for bytes {}..{}, got {}",
                self.url,
                range.start,
                range.end,
                bytes.len()
            )));
        }
        Ok(bytes)
    }
}

/// `offset..end` from a cached range that holds all of it (or all of what the object has).
fn cached_slice(
    cached: &mut VecDeque<(u64, Bytes)>,
    offset: u64,
    end: u64,
    size: Option<u64>,
) -> Option<Vec<u8>> {
    let i = cached.iter().position(|(s, b)| {
        let e = s + b.len() as u64;
        *s <= offset && (end <= e || size == Some(e)) && offset <= e
    })?;
    let (s, b) = cached.remove(i)?;
    let from = (offset - s) as usize;
    let to = ((end - s) as usize).min(b.len());
    let out = b[from..to].to_vec();
    cached.push_front((s, b));
    Some(out)
}

/// The cached bytes from `offset` to the end of the range holding it, and where they end.
fn cached_prefix(cached: &VecDeque<(u64, Bytes)>, offset: u64) -> Option<(Bytes, u64)> {
    cached.iter().find_map(|(s, b)| {
        let e = s + b.len() as u64;
        (*s <= offset && offset < e).then(|| (b.slice((offset - s) as usize..), e))
    })
}

impl Source for ObjectSource {
    fn len(&self) -> Result<u64> {
        if let Some(&s) = self.size.get() {
            return Ok(s);
        }
        // The open request: what a reader reads first anyway.
        self.read_range(0, tickreel::storage::frames::FIRST_READ as u64)?;
        self.size
            .get()
            .copied()
            .ok_or_else(|| Error::InvalidState(format!("{}: size unknown", self.url)))
    }

    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        self.read_range(offset, offset.saturating_add(len as u64))
    }

    fn describe(&self) -> String {
        self.url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_lookups() {
        let mut c: VecDeque<(u64, Bytes)> = VecDeque::new();
        c.push_back((10, Bytes::from_static(b"abcdef")));
        c.push_back((100, Bytes::from_static(b"xyz")));
        assert_eq!(cached_slice(&mut c, 11, 14, None).unwrap(), b"bcd");
        assert_eq!(cached_slice(&mut c, 10, 16, None).unwrap(), b"abcdef");
        assert!(cached_slice(&mut c, 12, 20, None).is_none());
        // past the object's end: what there is
        assert_eq!(cached_slice(&mut c, 101, 200, Some(103)).unwrap(), b"yz");
        assert_eq!(c.front().unwrap().0, 100, "most recently used first");
        let (head, upto) = cached_prefix(&c, 13).unwrap();
        assert_eq!((&head[..], upto), (&b"def"[..], 16));
        assert!(cached_prefix(&c, 16).is_none());
    }
}
