//! Getting chunk data: from what the playhead already holds, from the shared cache, or through the
//! prefetch pool, blocking or not; and asking the pool ahead of time for what the next calls need.

use std::sync::Arc;

use super::{Direction, Playhead};
use crate::error::Error;
use crate::format::chunk::DecodedChunk;
use crate::format::index::{FLAG_CUSTOM_EVENTS, find_chunk, rebuild_range};
use crate::play::cache::{Cached, Fault, Lookup, Part};
use crate::play::cursor::ReverseLog;
use crate::play::prefetch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Blocking,
    NonBlocking,
}

#[derive(Debug, Clone)]
pub(super) enum Fetch {
    Ready(Cached),
    Pending,
    Failed(Fault),
}

/// Data gathered before a move: `(chunk, part)` and what the cache had, found by key in constant
/// time (a rebuild gathers up to `MAX_CHUNKS_PER_SNAPSHOT` chunks and looks each one up: a linear
/// search made that quadratic).
#[derive(Debug, Default)]
pub(super) struct Gathered {
    pub(super) items: Vec<(usize, Part, Fetch)>,
    at: rustc_hash::FxHashMap<(usize, Part), usize>,
}

impl Gathered {
    pub(super) fn get(&self, chunk: usize, part: Part) -> Option<&Fetch> {
        self.at.get(&(chunk, part)).map(|&i| &self.items[i].2)
    }
    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.at.clear();
    }
    /// Heap bytes of its buffers.
    pub(super) fn heap_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<(usize, Part, Fetch)>()
            + self.at.capacity() * (std::mem::size_of::<((usize, Part), usize)>() + 1)
    }
    /// The chunk gathered as `part` (the playhead's [`Playhead::whole`]).
    pub(super) fn decoded(&self, chunk: usize, part: Part) -> Option<Arc<DecodedChunk>> {
        match self.get(chunk, part) {
            Some(Fetch::Ready(v)) => Some(v.clone().decoded()),
            _ => None,
        }
    }
    /// The reverse log gathered as `part` (the playhead's [`Playhead::reverse_part`]).
    pub(super) fn reverse(&self, chunk: usize, part: Part) -> Option<Arc<ReverseLog>> {
        match self.get(chunk, part) {
            Some(Fetch::Ready(v)) => Some(v.clone().reverse()),
            _ => None,
        }
    }
    pub(super) fn any_pending(&self) -> bool {
        self.items
            .iter()
            .any(|(_, _, f)| matches!(f, Fetch::Pending))
    }
}

/// A transient fault (I/O, queue full) is retried rather than skipped.
pub(super) fn transient(f: &Fault) -> bool {
    matches!(**f, Error::Io(_) | Error::NotReady(_))
}

impl Playhead {
    /// What the playhead plays of a chunk: [`Part::Decoded`], or [`Part::Entities`] without
    /// the world ([`super::PlayheadOptions::world`]).
    pub(super) fn whole(&self) -> Part {
        if self.options.world {
            Part::Decoded
        } else {
            Part::Entities
        }
    }

    /// The reverse log of what it plays: [`Part::Reverse`], or [`Part::EntitiesReverse`]
    /// without the world.
    pub(super) fn reverse_part(&self) -> Part {
        if self.options.world {
            Part::Reverse
        } else {
            Part::EntitiesReverse
        }
    }

    pub(super) fn fetch(&self, chunk: usize, part: Part, mode: Mode) -> Fetch {
        let key = self.view.key(chunk, part);
        let cache = self.rec.cache();
        match mode {
            Mode::Blocking => {
                match cache.get_blocking(key, || prefetch::load(&self.view, cache, key)) {
                    Ok(v) => Fetch::Ready(v),
                    Err(f) => Fetch::Failed(f),
                }
            }
            Mode::NonBlocking => match self.rec.prefetch().request(&self.view, cache, key) {
                Lookup::Ready(v) => Fetch::Ready(v),
                Lookup::Failed(f) => Fetch::Failed(f),
                Lookup::Pending | Lookup::Absent => Fetch::Pending,
            },
        }
    }

    /// Hands `part` of `chunks` (those it does not hold) to the prefetch pool before a blocking
    /// move decodes its own chunk: a cold seek's world rebuild reads the chunks from the
    /// snapshot up to the position's, and a worker reads them while this thread decodes the
    /// position's chunk (on two cores the seek costs about the larger of the two instead of
    /// their sum). The blocking [`Playhead::gather`] after it then runs on this thread those
    /// still queued (a busy or full pool costs nothing but the queueing) and waits only for
    /// those a worker is running. Any playhead does it, with or without
    /// [`super::PlayheadOptions::prefetch`] (which asks for the chunks ahead of the position).
    pub(super) fn hand_off(&self, chunks: std::ops::Range<usize>, part: Part) {
        for i in chunks {
            if self.held(i, part).is_none() {
                let _ = self.fetch(i, part, Mode::NonBlocking);
            }
        }
    }

    /// Fetches every item of `self.gathered` (in the given mode).
    pub(super) fn gather(&mut self, keys: impl Iterator<Item = (usize, Part)>, mode: Mode) {
        let mut g = std::mem::take(&mut self.gathered);
        g.clear();
        for (k, part) in keys {
            if g.at.contains_key(&(k, part)) {
                continue;
            }
            // A rebuild takes the whole chunk where the move wants it whole anyway (the keys
            // name the move's chunks first): no second decode without movement.
            if part == Part::World
                && (g.at.contains_key(&(k, self.whole())) || self.held(k, self.whole()).is_some())
            {
                continue;
            }
            let f = match self.held(k, part) {
                Some(v) => Fetch::Ready(v),
                None => self.fetch(k, part, mode),
            };
            g.at.insert((k, part), g.items.len());
            g.items.push((k, part, f));
        }
        self.gathered = g;
    }

    /// Data this playhead already holds (its current chunk and reverse log, the chunks of its
    /// last world rebuild): no need to ask the cache.
    pub(super) fn held(&self, k: usize, part: Part) -> Option<Cached> {
        if let Some(c) = &self.ctx
            && c.index == k
        {
            // Its chunk is what it plays (whole, or without the world), which serves a world
            // rebuild too when it is whole.
            if part == self.whole() || (part == Part::World && self.options.world) {
                return Some(Cached::Decoded(c.chunk.clone()));
            }
            if part == self.reverse_part()
                && let Some(l) = &c.log
            {
                return Some(Cached::Reverse(l.clone()));
            }
        }
        // The memo is sorted by chunk (a rebuild fills it in order); a whole chunk serves
        // `World` too, a chunk without movement only `World`.
        let j = self.rb_memo.binary_search_by_key(&k, |(i, _, _)| *i).ok()?;
        let (_, held, c) = &self.rb_memo[j];
        match (part, held) {
            (Part::Decoded, Part::Decoded) | (Part::World, _) => Some(Cached::Decoded(c.clone())),
            _ => None,
        }
    }

    /// Asks the prefetch pool for what the next calls will need.
    pub(super) fn prefetch_ahead(&mut self) {
        if !self.options.prefetch {
            return;
        }
        let view = self.view.clone();
        let idx = view.reader.index();
        let Some(k) = find_chunk(idx, self.pos) else {
            return;
        };
        let has_log = self
            .ctx
            .as_ref()
            .is_some_and(|c| c.index == k && c.log.is_some());
        let anchor = (view.id(), k, self.direction, has_log);
        if self.prefetch_anchor == Some(anchor) {
            return;
        }
        self.prefetch_anchor = Some(anchor);
        match self.direction {
            Direction::Forward => {
                let ahead = if self.speed.at_least(4) { 2 } else { 1 };
                for j in 1..=ahead {
                    if k + j < idx.len() {
                        let _ = self.fetch(k + j, self.whole(), Mode::NonBlocking);
                    }
                }
            }
            Direction::Backward => {
                if !has_log {
                    let _ = self.fetch(k, self.reverse_part(), Mode::NonBlocking);
                }
                if k > 0 {
                    let _ = self.fetch(k - 1, self.reverse_part(), Mode::NonBlocking);
                }
                // The chunks of the world rebuilds reverse play may need (none without it).
                let rebuilds = [Some(k), k.checked_sub(1)].into_iter().flatten();
                for kk in rebuilds.filter(|_| self.options.world) {
                    if idx[kk].flags & FLAG_CUSTOM_EVENTS != 0 {
                        let (s, e) = rebuild_range(idx, idx[kk].start_tick);
                        for i in s..=e {
                            let _ = self.fetch(i, Part::Decoded, Mode::NonBlocking);
                        }
                    }
                }
            }
        }
    }
}
