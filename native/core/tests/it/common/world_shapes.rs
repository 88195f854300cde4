//! Recordings whose world sections are not what their events make, as the adversarial pass of
//! issue 47 crafted them (a report-shaped file: `starts_mid_world`, blocks in its first keyframe;
//! a 100,000-block keyframe with deltas after it; a window of a stream whose keyframe is gone),
//! and files readers refuse (a delta on a delta, a delta on a chunk without a world, a delta not
//! written against its keyframe). Built with the chunker's forging calls (feature `wire`), held
//! in memory ([`reader_of`]) or written as a live recording directory ([`write_live`]).

use std::path::Path;

use tickreel::format::{BlockPos, FrameHeader, Header, IndexEntry, Limits, Metadata, WorldState};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, Chunker, Frame};
use tickreel::storage::live::{LiveDir, encode_meta_file, live_dir_for};
use tickreel::{Event, Pose};

/// The recording id of every forged recording (a live directory's segments must name it).
pub const ID: [u8; 16] = [0x47; 16];

pub fn block(x: i32, y: i32, z: i32, state: u32) -> Event {
    Event::BlockChange {
        pos: BlockPos::new(x, y, z),
        state,
        cause: None,
        block_entity: None,
    }
}

/// Entity 1 walking along x (added at `first`), and entity 2 with a health at `first`.
fn walker(t: u32, first: u32) -> Vec<Event> {
    let pose = Pose::from_f64(f64::from(t) * 0.25, 64.0, 3.0, 0.0, 0.0);
    if t == first {
        vec![
            Event::EntityAdd {
                entity: 1,
                kind: 7,
                pose,
            },
            Event::EntityAdd {
                entity: 2,
                kind: 9,
                pose,
            },
            Event::Health {
                entity: 2,
                health: 1500,
            },
        ]
    } else {
        vec![Event::Pose { entity: 1, pose }]
    }
}

/// A world of `n` edited blocks in a 100-wide slab (no event made them).
pub fn slab(n: usize) -> WorldState {
    let mut w = WorldState::new();
    for i in 0..n as i32 {
        w.apply(&block(
            i % 100,
            40 + i / 10_000,
            (i / 100) % 100,
            1 + (i as u32 % 5),
        ));
    }
    w
}

/// The frames a chunker cuts from ticks `ticks`, `each(tick, chunker)` called before each tick
/// (to forge the world) and giving the tick's events.
pub fn frames(
    policy: ChunkPolicy,
    ticks: std::ops::Range<u32>,
    mut each: impl FnMut(u32, &mut Chunker) -> Vec<Event>,
) -> Vec<Frame> {
    let mut c = Chunker::new(policy, None).unwrap();
    let mut out = Vec::new();
    for t in ticks {
        let events = each(t, &mut c);
        out.extend(c.push_tick(t, &events).unwrap());
    }
    out.extend(c.finish_chunk().unwrap());
    out
}

/// The metadata of a forged recording; `starts_mid_world` as given.
pub fn metadata(starts_mid_world: bool) -> Metadata {
    let mut m = Metadata::default();
    m.library.starts_mid_world = starts_mid_world;
    m
}

/// A header naming [`ID`].
pub fn header() -> Header {
    Header {
        recording_id: ID,
        ..Header::default()
    }
}

/// A reader of `frames` held in memory.
pub fn reader_of(frames: &[Frame], metadata: Metadata) -> Reader {
    // the span and count a file's header states (what `verify` checks)
    let mut h = header();
    if let (Some(f), Some(l)) = (frames.first(), frames.last()) {
        h.first_tick = f.header.start_tick;
        h.tick_count = (u64::from(l.header.start_tick) + u64::from(l.header.tick_count)
            - u64::from(f.header.start_tick)) as u32;
    }
    h.chunk_count = frames.len() as u32;
    Reader::from_frames(
        frames.iter().map(|f| (&f.header, &f.payload[..])),
        h,
        metadata,
        Limits::default(),
    )
    .unwrap()
}

/// Writes `frames` as the live recording directory of `reel` (`reel.live`, no writer lock):
/// what `compact`, `verify`, `dump`, `play` and a shipper read.
pub fn write_live(reel: &Path, frames: &[Frame], metadata: &Metadata) {
    let live = LiveDir::local(live_dir_for(reel));
    live.create().unwrap();
    let mut seg = live.create_segment(0, &ID).unwrap();
    let mut index = Vec::new();
    for f in frames {
        let h = f.header;
        let offset = seg.append(&h, &f.payload).unwrap();
        index.push(IndexEntry {
            start_tick: h.start_tick,
            tick_count: h.tick_count,
            flags: h.flags,
            offset,
            compressed_len: h.compressed_len,
            uncompressed_len: h.uncompressed_len,
        });
    }
    seg.sync().unwrap();
    live.write_meta(&encode_meta_file(header(), metadata, &index).unwrap(), None)
        .unwrap();
}

/// [`report_shaped`] with terrain: 4 sections from its first tick, one replaced (and one
/// added) from tick 200.
pub fn report_shaped_with_terrain() -> Vec<Frame> {
    use tickreel::format::{Section, Terrain};
    let ground = |cx: i32, cz: i32, mark: u32| {
        let states: Vec<u32> = (0..4096u32)
            .map(|i| if i / 256 < 8 { 1 } else { mark })
            .collect();
        Section::from_states(cx, 2, cz, &states).unwrap()
    };
    report_shape(|t, c| match t {
        100 => c
            .offer_terrain(Terrain::from_sections([
                ground(0, 0, 0),
                ground(0, 1, 0),
                ground(1, 0, 0),
                ground(1, 1, 0),
            ]))
            .unwrap(),
        200 => c
            .offer_terrain(Terrain::from_sections([ground(0, 0, 4), ground(5, 5, 6)]))
            .unwrap(),
        _ => {}
    })
}

/// A shadow-play report's shape: it starts mid-world (`starts_mid_world`) at tick 100 with
/// entity 3 alive before it, its first chunk's keyframe world section holding 500 blocks no
/// event of the file made, then blocks
/// edited every third tick, snapshots every 30 ticks (delta sections on that keyframe), to 399.
pub fn report_shaped() -> Vec<Frame> {
    report_shape(|_, _| {})
}

fn report_shape(mut extra: impl FnMut(u32, &mut Chunker)) -> Vec<Frame> {
    let policy = ChunkPolicy {
        chunk_ticks: 10,
        snapshot_interval: 30,
        ..ChunkPolicy::default()
    };
    frames(policy, 100..400, |t, c| {
        if t == 100 {
            // an entity alive before the first tick (a report's keyframe has such)
            let before = tickreel::format::EntityState {
                id: 3,
                kind: 54,
                flags: 0,
                pose: Pose::from_f64(-4.0, 64.0, 2.0, 90.0, 0.0),
            };
            c.resume_from(std::iter::once(before).collect(), None, None);
            c.forge_world(slab(500));
        }
        extra(t, c);
        let mut ev = walker(t, 100);
        if t % 3 == 0 {
            ev.push(block(t as i32 % 100, 40, 7, 6 + t % 4));
        }
        ev
    })
}

/// A keyframe of `blocks` blocks at tick 0 (no event made them), then `snapshots` snapshot
/// chunks of 2 ticks each, each world section saying 3 blocks changed that no event changed,
/// and one block changed by an event each tick: delta sections on the keyframe (64 per
/// keyframe at most, the writer's rule, then a new keyframe).
pub fn big_keyframe(blocks: usize, snapshots: u32) -> Vec<Frame> {
    let policy = ChunkPolicy {
        chunk_ticks: 2,
        snapshot_interval: 2,
        ..ChunkPolicy::default()
    };
    frames(policy, 0..2 * (snapshots + 1), |t, c| {
        if t == 0 {
            c.forge_world(slab(blocks));
        } else if t % 2 == 0 {
            let k = t as i32;
            c.forge_world_change(&[
                block(k % 100, 40, (k / 100) % 100, 9),
                block(k, 200, 0, 3),
                block(k % 100, 41, 5, 8),
            ]);
        }
        let mut ev = walker(t, 0);
        ev.push(block(-(t as i32), 50, 0, 1 + t % 3));
        ev
    })
}

/// A window of [`report_shaped`]'s stream whose keyframe chunk is gone (a shadow buffer's, or
/// what `recover` kept): its first chunk is a snapshot whose delta section stands on a
/// keyframe the file does not hold; the world there is unknown.
pub fn keyframe_gone() -> Vec<Frame> {
    report_shaped()
        .into_iter()
        .skip_while(|f| f.header.start_tick < 130)
        .collect()
}

/// `f` moved to start at `tick` (its frame header made right; its payload unchanged).
fn moved(f: &Frame, tick: u32) -> Frame {
    Frame {
        header: FrameHeader {
            start_tick: tick,
            ..f.header
        },
        payload: f.payload.clone(),
    }
}

/// The ticks at which [`report_shaped`]'s delta chunks stand on its keyframe at 100: chunks 3
/// (tick 130) and 6 (tick 160) carry deltas (back 30, 60).
fn is_world(f: &Frame) -> bool {
    f.header.flags & tickreel::format::FLAG_WORLD != 0
}

/// Files readers refuse, each a variant of [`report_shaped`] (name, frames): the chunk its
/// second delta stands on is a delta itself (the first delta moved to the keyframe's tick);
/// the chunk it stands on has no world section (a chunk without one moved there); a delta
/// not written against its keyframe (the keyframe replaced by another world's).
pub fn refused() -> Vec<(&'static str, Vec<Frame>)> {
    let base = report_shaped();
    let worlds: Vec<usize> = (0..base.len()).filter(|&i| is_world(&base[i])).collect();
    assert_eq!(
        worlds
            .iter()
            .map(|&i| base[i].header.start_tick)
            .collect::<Vec<_>>()[..3],
        [100, 130, 160]
    );
    let (k, d1) = (worlds[0], worlds[1]);
    // a delta on a delta: the delta of tick 130 takes the keyframe's place at tick 100
    let mut on_delta = base.clone();
    on_delta[k] = moved(&base[d1], 100);
    // a delta on a chunk without a world section: a plain chunk takes the keyframe's place
    let plain = base.iter().find(|f| !is_world(f)).unwrap();
    let mut on_plain = base.clone();
    on_plain[k] = moved(plain, 100);
    // a delta not written against its keyframe: the keyframe of another world (no forged
    // blocks), so the deltas' changes leave blocks as that keyframe has them, or take out
    // blocks it does not have
    let other = frames(
        ChunkPolicy {
            chunk_ticks: 10,
            snapshot_interval: 30,
            ..ChunkPolicy::default()
        },
        100..110,
        |t, c| {
            if t == 100 {
                let mut w = slab(500);
                // every block the deltas list, as they list it
                for t in (100..160).filter(|t| t % 3 == 0) {
                    w.apply(&block(t as i32 % 100, 40, 7, 6 + t % 4));
                }
                c.forge_world(w);
            }
            walker(t, 100)
        },
    );
    let mut inconsistent = base.clone();
    inconsistent[k] = other[0].clone();
    vec![
        ("a delta on a delta", on_delta),
        ("a delta on a chunk without a world section", on_plain),
        ("a delta not written against its keyframe", inconsistent),
    ]
}
