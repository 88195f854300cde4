//! World rebuilds of jump updates: which chunks they need (from the nearest snapshot at or before
//! the new position through its chunk) and filling [`super::Update`]'s rebuild from them.

use super::Playhead;
use super::fetch::{Fetch, Mode};
use crate::format::index::{FLAG_CUSTOM_EVENTS, IndexEntry, find_chunk};
use crate::play::cache::Part;

impl Playhead {
    /// Fills the world rebuild of the update from the gathered chunks `s..=e` (fetching any that
    /// were not gathered; in non-blocking mode a missing one makes the rebuild incomplete).
    /// `part`: what to read of a chunk the playhead does not hold whole already:
    /// [`Part::World`] (its events and world section, no movement) for a jump, which plays none
    /// of them; [`Part::Decoded`] for backward play, which plays through them next.
    pub(super) fn fill_rebuild(&mut self, (s, e): (usize, usize), part: Part, mode: Mode) {
        let view = self.view.clone();
        let idx = view.reader.index();
        let snap = idx[s].has_snapshot().then_some(s);
        // No snapshot within reach and not the recording's start, or a recording that starts
        // mid-world (a shadow-play report): the events before `s` are unknown (see
        // `Rebuild::cut_short`).
        let cut_short =
            snap.is_none() && (s > 0 || view.reader.metadata().library.starts_mid_world);
        self.u.rebuild = true;
        self.u.rb_snapshot_chunk = snap;
        self.u.rb_snapshot_tick = snap.map(|i| idx[i].start_tick);
        self.u.rb_chunks.clear();
        self.u.rb_cut_short = cut_short;
        self.u.rb_complete = !cut_short;
        let mut memo = std::mem::take(&mut self.rb_memo);
        memo.clear();
        for i in s..=e {
            // The whole chunk where the playhead has it already (its own position's), else
            // `part` of it (the world needs only its events and world section).
            let whole = match self.gathered.get(i, Part::Decoded) {
                Some(f @ Fetch::Ready(_)) => Some(f.clone()),
                _ => self.held(i, Part::Decoded).map(Fetch::Ready),
            };
            let (part, got) = match whole {
                Some(f) => (Part::Decoded, f),
                None => (
                    part,
                    match self.gathered.get(i, part) {
                        Some(f) => f.clone(),
                        None => match self.held(i, part) {
                            Some(v) => Fetch::Ready(v),
                            None => self.fetch(i, part, mode),
                        },
                    },
                ),
            };
            match got {
                Fetch::Ready(v) => {
                    if i == s && snap.is_some() {
                        self.u.rb_has_snapshot = true;
                    }
                    let c = v.decoded();
                    memo.push((i, part, c.clone()));
                    self.u.rb_chunks.push(c);
                }
                Fetch::Pending => self.u.rb_complete = false,
                Fetch::Failed(f) => {
                    self.u.rb_complete = false;
                    self.fault(i, f);
                }
            }
        }
        self.rb_memo = memo;
    }
}

/// Whether any chunk with custom events overlaps ticks `(lo, hi]`.
pub(super) fn custom_between(idx: &[IndexEntry], lo: u32, hi: u32) -> bool {
    if lo >= hi {
        return false;
    }
    let a = find_chunk(idx, lo + 1).unwrap_or(0);
    let b = find_chunk(idx, hi).unwrap_or(0);
    (a..=b).any(|k| {
        let e = &idx[k];
        e.flags & FLAG_CUSTOM_EVENTS != 0
            && u64::from(e.start_tick) <= u64::from(hi)
            && e.end_tick() > u64::from(lo + 1)
    })
}

#[cfg(test)]
mod tests {
    use crate::format::event::Event;
    use crate::format::index::MAX_CHUNKS_PER_SNAPSHOT;
    use crate::format::pose::Pose;
    use crate::play::playhead::{Direction, Playhead, PlayheadOptions};
    use crate::play::{PlaybackContext, Recording};
    use crate::record::{ChunkPolicy, ReelOptions, ReelWriter};

    /// A file of `n` one-tick chunks (one entity moving), written by the synchronous writer with
    /// no snapshot interval; `bounded`: as it writes (a snapshot every
    /// `MAX_CHUNKS_PER_SNAPSHOT` chunks), else carrying snapshots only (just the first chunk's,
    /// as a file of an older build or another writer).
    fn one_tick_chunks(path: &std::path::Path, n: u32, bounded: bool) {
        let mut w = ReelWriter::create(
            path,
            ReelOptions {
                chunk_policy: ChunkPolicy {
                    chunk_ticks: 1,
                    snapshot_interval: u32::MAX,
                    ..ChunkPolicy::default()
                },
                ..ReelOptions::default()
            },
        )
        .unwrap();
        if !bounded {
            w.carry_snapshots_only();
        }
        for t in 0..n {
            let pose = Pose {
                x: i64::from(t) * 100,
                ..Pose::default()
            };
            w.write_tick(t, &[Event::Pose { entity: 1, pose }]).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn one_tick_chunks_get_a_snapshot_at_least_every_max_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bounded.reel");
        one_tick_chunks(&path, 2_000, true);
        let r = crate::play::Reader::open_path(&path).unwrap();
        let idx = r.index();
        assert_eq!(idx.len(), 2_000);
        let snaps: Vec<usize> = (0..idx.len()).filter(|&i| idx[i].has_snapshot()).collect();
        assert_eq!(snaps[0], 0);
        let mut last = 0;
        for &s in &snaps[1..] {
            assert!(s - last <= MAX_CHUNKS_PER_SNAPSHOT, "{last} to {s}");
            last = s;
        }
        assert!(idx.len() - last <= MAX_CHUNKS_PER_SNAPSHOT);
        // Exactly every MAX chunks here: no other cut and no interval.
        assert_eq!(snaps[1], MAX_CHUNKS_PER_SNAPSHOT);
    }

    #[test]
    fn a_seek_in_a_file_without_snapshots_decodes_a_bounded_number_of_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nosnap.reel");
        let n = 20_000;
        one_tick_chunks(&path, n, false);
        let ctx = PlaybackContext::new(256 << 20, 1, 16);
        let rec = Recording::open_path_with(&path, &ctx).unwrap();
        assert_eq!(
            rec.view()
                .reader
                .index()
                .iter()
                .filter(|e| e.has_snapshot())
                .count(),
            1
        );
        let opts = PlayheadOptions {
            prefetch: false,
            ..PlayheadOptions::default()
        };
        // A new playhead seeks to its tick and rebuilds the world there.
        let reads = |s: crate::play::cache::CacheStats| s.decodes + s.world_decodes;
        let before = reads(rec.cache().stats());
        let p = Playhead::with_options(rec.clone(), n - 10, opts).unwrap();
        let u = p.update();
        assert_eq!(u.to, n - 10);
        assert_eq!(u.entities()[0].pose.x, i64::from(n - 10) * 100);
        match u.rebuild() {
            Some(rb) => {
                assert!(rb.cut_short());
                assert!(!rb.complete());
                assert!(rb.snapshot().is_none());
                assert_eq!(rb.snapshot_chunk(), None);
            }
            None => panic!("a new playhead rebuilds the world"),
        }
        let decodes = reads(rec.cache().stats()) - before;
        assert!(
            decodes <= MAX_CHUNKS_PER_SNAPSHOT as u64,
            "a seek decoded {decodes} chunks"
        );
        // Near the start the rebuild reaches the snapshot of the first chunk: complete.
        let p = Playhead::with_options(rec.clone(), 100, opts).unwrap();
        match p.update().rebuild() {
            Some(rb) => {
                assert!(!rb.cut_short());
                assert!(rb.complete());
                assert_eq!(rb.snapshot_chunk(), Some(0));
            }
            None => panic!("a new playhead rebuilds the world"),
        }
    }

    /// A file of 200 ticks in chunks of 10 (a snapshot every 100 ticks), entity 1 moving and a
    /// block changed every tick.
    fn world_file(path: &std::path::Path) {
        use crate::format::BlockPos;
        let mut w = ReelWriter::create(
            path,
            ReelOptions {
                chunk_policy: ChunkPolicy {
                    chunk_ticks: 10,
                    snapshot_interval: 100,
                    ..ChunkPolicy::default()
                },
                ..ReelOptions::default()
            },
        )
        .unwrap();
        for t in 0..200u32 {
            let pose = Pose {
                x: i64::from(t) * 100,
                ..Pose::default()
            };
            let mut ev = vec![Event::Pose { entity: 1, pose }];
            if t == 50 {
                ev.push(Event::EntityAdd {
                    entity: 2,
                    kind: 4,
                    pose,
                });
            }
            ev.push(Event::BlockChange {
                pos: BlockPos::new(t as i32 % 7, 64, t as i32 / 7),
                state: t % 5,
                cause: Some(1),
                block_entity: None,
            });
            w.write_tick(t, &ev).unwrap();
        }
        w.finish().unwrap();
    }

    /// A playhead without the world plays the entities a playhead with it plays (seeks, steps
    /// forward and back over every tick, reverse play across chunks and snapshots), reading
    /// every chunk without its world section (cache part `Entities`): no whole decode, no
    /// decode for a rebuild, no world kept or reported; the default playhead reads none that way.
    #[test]
    fn a_playhead_without_the_world_decodes_no_world_and_plays_the_same_entities() {
        use crate::format::BlockPos;
        use crate::play::cache::{Lookup, Part};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("world.reel");
        world_file(&path);
        let open = || {
            let ctx = PlaybackContext::new(256 << 20, 1, 16);
            Recording::open_path_with(&path, &ctx).unwrap()
        };
        let (with, without) = (open(), open());
        let opts = PlayheadOptions {
            prefetch: false,
            ..PlayheadOptions::default()
        };
        let bare = PlayheadOptions {
            world: false,
            ..opts
        };
        let mut a = Playhead::with_options(with.clone(), 95, opts).unwrap();
        let mut b = Playhead::with_options(without.clone(), 95, bare).unwrap();
        let same = |a: &Playhead, b: &Playhead, what: &str| {
            assert_eq!(a.position(), b.position(), "{what}");
            assert_eq!(a.entities(), b.entities(), "{what} at {}", a.position());
            assert_eq!(a.update().added(), b.update().added(), "{what}");
            assert_eq!(a.update().removed(), b.update().removed(), "{what}");
            assert_eq!(a.update().events(), b.update().events(), "{what}");
            assert!(b.update().faults().is_empty(), "{what}");
            assert!(b.update().rebuild().is_none(), "{what}");
            assert!(b.update().world_changes().is_empty(), "{what}");
            assert_eq!(b.world_state().block_count(), 0, "{what}");
            assert!(!b.world_complete(), "{what}");
        };
        same(&a, &b, "new at 95");
        assert_eq!(a.world_state().block_count(), 96);
        for t in [0, 199, 100, 7, 150] {
            a.seek(t).unwrap();
            b.seek(t).unwrap();
            same(&a, &b, "seek");
        }
        a.seek(0).unwrap();
        b.seek(0).unwrap();
        for _ in 0..199 {
            a.step_forward();
            b.step_forward();
            same(&a, &b, "step forward");
        }
        for _ in 0..199 {
            a.step_back();
            b.step_back();
            same(&a, &b, "step back");
        }
        a.seek(199).unwrap();
        b.seek(199).unwrap();
        for p in [&mut a, &mut b] {
            p.set_direction(Direction::Backward);
            p.set_speed(16.0).unwrap();
            p.play();
        }
        for _ in 0..13 {
            a.prepare();
            b.prepare();
            a.advance();
            b.advance();
            same(&a, &b, "reverse play");
        }
        assert!(b.block(BlockPos::new(0, 64, 0)).is_err());
        let (sa, sb) = (with.cache().stats(), without.cache().stats());
        assert!(sa.decodes > 0 && sa.world_decodes > 0, "{sa:?}");
        assert_eq!(sa.entity_decodes, 0, "{sa:?}");
        assert_eq!((sb.decodes, sb.world_decodes), (0, 0), "{sb:?}");
        assert!(sb.entity_decodes >= 20 && sb.reverse_builds >= 20, "{sb:?}");
        // What it holds has neither world nor snapshot bytes, snapshot chunks included.
        let view = without.view();
        for i in 0..20 {
            match without.cache().lookup(view.key(i, Part::Entities)) {
                Lookup::Ready(v) => {
                    let c = v.decoded();
                    assert!(c.world.is_none() && c.world_delta.is_none(), "chunk {i}");
                    assert!(c.snapshot.is_none() && !c.tracks.is_empty(), "chunk {i}");
                }
                other => panic!("chunk {i}: {other:?}"),
            }
        }
    }

    /// A cold seek's world rebuild reads the chunks from the snapshot up to the position's
    /// without their movement (cache part `World`, no track), handed to the prefetch pool while
    /// the seek decodes the position's chunk, and only that one whole; the world it gives is
    /// the reader's straight rebuild.
    #[test]
    fn a_rebuild_decodes_the_chunks_before_the_position_without_movement() {
        use crate::format::BlockPos;
        use crate::play::cache::{Lookup, Part};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("world.reel");
        let mut w = ReelWriter::create(
            &path,
            ReelOptions {
                chunk_policy: ChunkPolicy {
                    chunk_ticks: 10,
                    snapshot_interval: 100,
                    ..ChunkPolicy::default()
                },
                ..ReelOptions::default()
            },
        )
        .unwrap();
        for t in 0..200u32 {
            let pose = Pose {
                x: i64::from(t) * 100,
                ..Pose::default()
            };
            let block = Event::BlockChange {
                pos: BlockPos::new(t as i32 % 7, 64, t as i32 / 7),
                state: t % 5,
                cause: Some(1),
                block_entity: None,
            };
            w.write_tick(t, &[Event::Pose { entity: 1, pose }, block])
                .unwrap();
        }
        w.finish().unwrap();
        let ctx = PlaybackContext::new(256 << 20, 1, 16);
        let rec = Recording::open_path_with(&path, &ctx).unwrap();
        let opts = PlayheadOptions {
            prefetch: false,
            ..PlayheadOptions::default()
        };
        let p = Playhead::with_options(rec.clone(), 195, opts).unwrap();
        let view = rec.view();
        let ready = |i: usize, part: Part| match rec.cache().lookup(view.key(i, part)) {
            Lookup::Ready(v) => Some(v.decoded()),
            _ => None,
        };
        for i in 10..19 {
            let c = ready(i, Part::World).unwrap_or_else(|| panic!("chunk {i} without movement"));
            assert!(c.tracks.is_empty() && !c.records.is_empty(), "chunk {i}");
            assert!(ready(i, Part::Decoded).is_none(), "chunk {i} decoded whole");
        }
        assert!(ready(19, Part::World).is_none());
        assert!(!ready(19, Part::Decoded).unwrap().tracks.is_empty());
        let straight = view.reader.world_at(195).unwrap().world;
        assert_eq!(p.world_state(), &straight);
        assert_eq!(p.world_state().block_count(), 196);
        // The seek handed chunks 10..19 to the pool before decoding chunk 19 itself (a worker
        // or the seek ran each one once), prefetching off or not.
        assert_eq!(rec.prefetch().stats().queued, 9);
        assert_eq!(rec.cache().stats().world_decodes, 9);
        // A seek into the snapshot chunk itself (with its world section) hands over that
        // chunk's world part (which puts its world on its keyframe for the seek's own read).
        let rec =
            Recording::open_path_with(&path, &PlaybackContext::new(256 << 20, 1, 16)).unwrap();
        let p = Playhead::with_options(rec.clone(), 105, opts).unwrap();
        assert_eq!(rec.prefetch().stats().queued, 1);
        assert_eq!(p.world_state(), &view.reader.world_at(105).unwrap().world);
    }
}
