//! Delta world sections (data version 5) as a reader sees them: put on top of their keyframe's
//! world at every tick as a straight decode gives it; a keyframe that is not there or damaged
//! costs the world (said incomplete), never the movement; a chunk standing in for a keyframe
//! that is none is refused, naming both ticks.

use super::*;
use crate::format::event::Event;
use crate::format::frame::FrameHeader;
use crate::format::header::Header;
use crate::format::limits::Limits;
use crate::format::metadata::Metadata;
use crate::record::worker::compaction_worker::memory_reader;
use crate::record::{ChunkPolicy, Chunker, Frame};

fn bc(x: i32, state: u32) -> Event {
    Event::BlockChange {
        pos: BlockPos::new(x, 64, x % 7),
        state,
        cause: None,
        block_entity: None,
    }
}

/// 300 ticks, a block a tick at a new position and one edited again every third tick, in
/// 5-tick chunks with a snapshot every 10 ticks: the frames and the world after every tick.
fn frames() -> (Vec<Frame>, Vec<WorldState>) {
    let mut c = Chunker::new(
        ChunkPolicy {
            chunk_ticks: 5,
            snapshot_interval: 10,
            ..ChunkPolicy::default()
        },
        None,
    )
    .unwrap();
    let (mut out, mut worlds) = (Vec::new(), Vec::new());
    let mut w = WorldState::new();
    for t in 0..300u32 {
        let mut ev = vec![bc(t as i32, t % 5)];
        if t % 3 == 0 {
            ev.push(bc((t / 2) as i32, 9 + t % 4));
        }
        for e in &ev {
            w.apply(e);
        }
        worlds.push(w.clone());
        out.extend(c.push_tick(t, &ev).unwrap());
    }
    out.extend(c.finish_chunk().unwrap());
    (out, worlds)
}

/// Whether chunk `i` of `r` has a delta world section (decoded without the reader's help).
fn is_delta(r: &Reader, i: usize) -> bool {
    let (fh, payload) = r.read_payload(i).unwrap();
    DecodedChunk::decode_world_part(&payload, &fh, r.limits())
        .unwrap()
        .world_delta
        .is_some()
}

#[test]
fn delta_world_sections_give_the_world_of_a_straight_decode() {
    let (frames, worlds) = frames();
    let r = memory_reader(&frames, Header::default(), Metadata::default()).unwrap();
    let deltas = (0..r.index().len()).filter(|&i| is_delta(&r, i)).count();
    let keyframes = r
        .index()
        .iter()
        .enumerate()
        .filter(|&(i, e)| e.flags & crate::format::FLAG_WORLD != 0 && !is_delta(&r, i))
        .count();
    // the world grows by a block a tick: a keyframe when the delta passes a quarter of it
    assert!(
        deltas >= 10 && keyframes >= 3,
        "{deltas} deltas, {keyframes} keyframes"
    );
    for t in 0..300u32 {
        assert_eq!(r.world_at(t).unwrap().world, worlds[t as usize], "tick {t}");
    }
    for (i, e) in r.index().iter().enumerate() {
        let c = r.read_chunk(i).unwrap();
        assert!(c.world_delta.is_none());
        if e.has_snapshot() && e.start_tick > 0 {
            assert_eq!(
                *c.world.unwrap(),
                worlds[e.start_tick as usize - 1],
                "chunk {i}"
            );
        }
    }
}

#[test]
fn a_delta_without_its_keyframe_keeps_its_movement_and_its_world_is_incomplete() {
    let (frames, worlds) = frames();
    let r = memory_reader(&frames, Header::default(), Metadata::default()).unwrap();
    let d = (0..r.index().len()).rfind(|&i| is_delta(&r, i)).unwrap();
    let (fh, payload) = r.read_payload(d).unwrap();
    let back = DecodedChunk::decode_world_part(&payload, &fh, r.limits())
        .unwrap()
        .world_delta
        .unwrap()
        .back;
    let start = r.index()[d].start_tick;
    let k = r
        .index()
        .iter()
        .position(|e| e.start_tick == start - back)
        .unwrap();
    let whole = r.read_chunk(d).unwrap();
    assert!(r.world_at(start).unwrap().complete);
    // the keyframe's chunk left out of the recording (as `recover` leaves a chunk it cannot keep)
    let without: Vec<&Frame> = frames
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, f)| f)
        .collect();
    let r2 = memory_reader(without, Header::default(), Metadata::default()).unwrap();
    let d2 = r2.chunk_for_tick(start).unwrap();
    let c = r2.read_chunk(d2).unwrap();
    assert!(c.world.is_none() && c.world_delta.is_some());
    assert_eq!(
        c.records, whole.records,
        "the movement and events read as before"
    );
    let at = r2.world_at(start).unwrap();
    assert!(!at.complete);
    assert_ne!(at.world, worlds[start as usize]);
    // the keyframe's chunk damaged: it fails alone, the chunks on it keep their movement
    let mut damaged = frames.clone();
    let last = damaged[k].payload.len() - 1;
    damaged[k].payload[last] ^= 0x55;
    let r5 = memory_reader(&damaged, Header::default(), Metadata::default()).unwrap();
    assert!(matches!(r5.read_chunk(k), Err(Error::Corrupt(_))));
    let c = r5.read_chunk(d).unwrap();
    assert!(c.world.is_none() && c.world_delta.is_some());
    assert_eq!(c.records, whole.records);
    assert!(!r5.world_at(start).unwrap().complete);
    // in its place a chunk without a world section
    let mut swapped: Vec<Frame> = frames.clone();
    let plain = frames
        .iter()
        .find(|f| f.header.flags & crate::format::FLAG_WORLD == 0 && f.header.start_tick > 0)
        .unwrap();
    swapped[k] = Frame {
        header: FrameHeader {
            start_tick: start - back,
            ..plain.header
        },
        payload: plain.payload.clone(),
    };
    let r3 = memory_reader(&swapped, Header::default(), Metadata::default()).unwrap();
    let err = r3.read_chunk(d).unwrap_err();
    assert!(err.to_string().contains("without a world section"), "{err}");
    // a window of the stream (a shadow buffer's) whose first chunks are gone: the delta is
    // left as it is, its world unknown
    let mut mid = Metadata::default();
    mid.library.starts_mid_world = true;
    let r4 = memory_reader(&frames[k + 1..], Header::default(), mid).unwrap();
    let c = r4.read_chunk(r4.chunk_for_tick(start).unwrap()).unwrap();
    assert!(c.world.is_none() && c.world_delta.is_some());
}

#[test]
fn a_keyframes_world_section_is_decoded_alone_as_the_whole_chunk_has_it() {
    let (frames, worlds) = frames();
    let r = memory_reader(&frames, Header::default(), Metadata::default()).unwrap();
    let mut checked = 0;
    for i in 0..r.index().len() {
        let (fh, payload) = r.read_payload(i).unwrap();
        let part = DecodedChunk::decode_world_part(&payload, &fh, r.limits()).unwrap();
        let alone = DecodedChunk::decode_world_section(&payload, &fh, r.limits()).unwrap();
        assert_eq!(alone.world, part.world, "chunk {i}");
        assert_eq!(alone.world_delta, part.world_delta, "chunk {i}");
        assert!(alone.records.is_empty() && alone.keyframe.is_empty() && alone.tracks.is_empty());
        assert!(alone.snapshot.is_none());
        if fh.flags & crate::format::FLAG_WORLD == 0 {
            continue;
        }
        checked += 1;
        // nothing after the world section is read: the payload cut right after it decodes the
        // same world alone, while the decode that reads the events refuses it
        let end = (1..=payload.len())
            .find(|&n| DecodedChunk::decode_world_section(&payload[..n], &fh, r.limits()).is_ok())
            .unwrap();
        assert!(end < payload.len(), "chunk {i}");
        let cut = DecodedChunk::decode_world_section(&payload[..end], &fh, r.limits()).unwrap();
        assert_eq!(cut.world, part.world);
        assert_eq!(cut.world_delta, part.world_delta);
        assert!(matches!(
            DecodedChunk::decode_world_part(&payload[..end], &fh, r.limits()),
            Err(Error::Truncated(_))
        ));
        // a world section over the limits is refused alike by both
        let small = Limits {
            max_chunk_bytes: 64 * 4,
            ..Limits::default()
        };
        let a = DecodedChunk::decode_world_section(&payload, &fh, &small).map(|_| ());
        let b = DecodedChunk::decode_world_part(&payload, &fh, &small).map(|_| ());
        assert!(a.is_err(), "chunk {i}");
        assert_eq!(
            a.unwrap_err().to_string(),
            b.unwrap_err().to_string(),
            "chunk {i}"
        );
    }
    assert!(checked >= 20, "{checked}");
    // a seek's world on it, each keyframe decoded for the first time: as a straight decode
    for t in 0..300u32 {
        r.trim_caches(0);
        let k = r.chunk_for_tick(t).unwrap();
        let (s, _) = crate::format::index::rebuild_start(r.index(), k);
        let c = r.read_chunk_world(s).unwrap();
        assert!(c.world_delta.is_none(), "tick {t}");
        let start = r.index()[s].start_tick;
        let want = match start {
            0 => WorldState::new(),
            _ => worlds[start as usize - 1].clone(),
        };
        assert_eq!(*c.world.unwrap(), want, "tick {t}");
    }
}
