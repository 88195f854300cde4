//! Decoding is bounded whatever a chunk claims: a chunk payload may hold at most
//! `Limits::max_chunk_samples` pose samples, `max_chunk_events` events and `max_alive_entities`
//! keyframe entries, so that the memory one decoded chunk takes is bounded (FORMAT.md, section 12),
//! and writers cut their chunks so that they never exceed them. The peak heap is measured with the
//! test binary's counting allocator (`heap`), in a process of its own (`alone`).

use tickreel::format::DecodedChunk;
use tickreel::format::Limits;
use tickreel::format::wire::put_uvarint;
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Error, Event, Pose};

use crate::alone;
use crate::heap::peak_growth as peak_of;

/// A chunk payload with one entity sampled `samples` times, every residual 0 (the most samples a
/// payload of its size can claim).
fn sample_bomb(samples: usize) -> Vec<u8> {
    let mut p = Vec::new();
    put_uvarint(&mut p, 0); // keyframe entities
    put_uvarint(&mut p, 0); // event stream length
    put_uvarint(&mut p, 1); // moving entities
    put_uvarint(&mut p, 7); // entity id
    put_uvarint(&mut p, 1); // runs
    put_uvarint(&mut p, 0); // gap
    put_uvarint(&mut p, samples as u64); // run length
    put_uvarint(&mut p, 0); // resets
    for _ in 0..5 {
        p.push(0); // predictor
        put_uvarint(&mut p, 1); // divisor
    }
    p.resize(p.len() + samples * 5, 0);
    p
}

/// A chunk payload whose event stream holds `events` checkpoint events over `ticks` ticks.
fn event_bomb(ticks: usize, per_tick: usize) -> Vec<u8> {
    let mut stream = Vec::new();
    for rel in 0..ticks {
        put_uvarint(&mut stream, rel as u64);
        stream.extend_from_slice(&(per_tick as u16).to_be_bytes());
        for _ in 0..per_tick {
            Event::Checkpoint {
                entity: 1,
                index: 2,
            }
            .encode(&mut stream);
        }
    }
    let mut p = Vec::new();
    put_uvarint(&mut p, 0);
    put_uvarint(&mut p, stream.len() as u64);
    p.extend_from_slice(&stream);
    put_uvarint(&mut p, 0); // no movement
    p
}

#[test]
fn decoding_is_bounded_whatever_a_chunk_claims() {
    if !alone::in_own_process(
        module_path!(),
        "decoding_is_bounded_whatever_a_chunk_claims",
    ) {
        return;
    }
    let limits = Limits::default();
    let max = limits.max_chunk_samples();
    // The largest chunk a reader accepts: its decoded form stays within a small multiple of it.
    let payload = sample_bomb(max);
    let (decoded, peak) =
        peak_of(|| DecodedChunk::decode(&payload, 0, 0, max as u32, &limits).unwrap());
    assert_eq!(decoded.tracks[0].poses.len(), max);
    drop(decoded);
    assert!(peak < 32 << 20, "{max} samples took {peak} bytes to decode");
    // One sample more is refused before anything is decoded.
    let payload = sample_bomb(max + 1);
    let (r, peak) = peak_of(|| DecodedChunk::decode(&payload, 0, 0, max as u32 + 1, &limits));
    assert!(matches!(r, Err(Error::LimitExceeded(_))), "{:?}", r.err());
    assert!(peak < 1 << 20, "a refused chunk allocated {peak} bytes");

    // Events likewise.
    let max = limits.max_chunk_events();
    let payload = event_bomb(max / 65_535 + 1, 65_535);
    let (r, _) = peak_of(|| DecodedChunk::decode(&payload, 0, 0, 10, &limits));
    assert!(matches!(r, Err(Error::LimitExceeded(_))), "{:?}", r.err());
    let payload = event_bomb(4, 65_535);
    let (r, peak) = peak_of(|| DecodedChunk::decode(&payload, 0, 0, 10, &limits));
    assert_eq!(r.unwrap().records.len(), 4);
    assert!(peak < 64 << 20, "{} events took {peak} bytes", 4 * 65_535);
}

#[test]
fn writers_cut_chunks_before_the_decode_limits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crowd.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    // 60,000 entities moving every tick for 10 ticks: 600,000 samples, more than two chunks hold.
    for t in 0..10u32 {
        let events: Vec<Event> = (0..60_000u32)
            .map(|entity| Event::Pose {
                entity,
                pose: Pose {
                    x: i64::from(t) * 100 + i64::from(entity),
                    ..Pose::default()
                },
            })
            .collect();
        w.write_tick(t, &events).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    let v = r.verify().unwrap();
    assert_eq!(v.pose_samples, 600_000);
    assert!(r.index().len() >= 3, "{} chunks", r.index().len());
}
