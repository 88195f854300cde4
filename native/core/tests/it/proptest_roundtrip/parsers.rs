//! No parser panics on arbitrary bytes, nor on mutations of valid encodings of every parsed
//! structure.

use super::*;

/// Valid encodings of every parsed structure, to be mutated.
struct Samples {
    header: Vec<u8>,
    index: (Vec<u8>, u32),
    metadata: Vec<u8>,
    payloads: Vec<(Vec<u8>, u8, u32)>,
    batch: Vec<u8>,
    frame: Vec<u8>,
}

fn samples() -> &'static Samples {
    static S: std::sync::OnceLock<Samples> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let header = Header {
            metadata_len: 300,
            index_len: 40,
            tick_count: 500,
            chunk_count: 3,
            ..Header::default()
        }
        .encode()
        .to_vec();
        let entries: Vec<IndexEntry> = (0..3)
            .map(|i| IndexEntry {
                start_tick: i * 200,
                tick_count: 150,
                flags: (i % 2) as u8,
                offset: 1000 + u64::from(i) * 5000,
                compressed_len: 4000 + i,
                uncompressed_len: 20_000 + i,
            })
            .collect();
        let mut meta = Metadata::default();
        meta.user
            .insert("map".into(), fastnbt::Value::String("spawn".into()));
        meta.library.entities.push(EntityInfo {
            id: 3,
            kind: 147,
            uuid: Some(uuid::Uuid::from_u128(99)),
            name: Some("Alex".into()),
        });
        meta.library.event_types.push(EventType {
            id: 5,
            name: "set_block".into(),
            version: 2,
        });
        let ticks = common::sim_ticks(5, 120, 3);
        let mut enc = ChunkEncoder::new();
        let mut payloads = Vec::new();
        for part in ticks.chunks(40) {
            let snapshot = (payloads.len() % 2 == 0).then(|| vec![1, 2, 3]);
            enc.begin(part[0].0, snapshot);
            for (t, e) in part {
                enc.push_tick(*t, e).unwrap();
            }
            let mut out = Vec::new();
            enc.encode_payload(&mut out);
            payloads.push((out, enc.flags(), 40));
        }
        let mut batch = Vec::new();
        encode_batch(&ticks[0].1, &mut batch).unwrap();
        let frame = FrameHeader::for_payload(1, 1, 0, 40, 1234, b"payload")
            .encode()
            .to_vec();
        Samples {
            header,
            index: (encode_index(&entries), entries.len() as u32),
            metadata: meta.encode().unwrap(),
            payloads,
            batch,
            frame,
        }
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0u8..8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        3 => (any::<usize>(), prop_oneof![Just(0u8), Just(0xFF), Just(0x80), Just(0x7F), any::<u8>()])
            .prop_map(|(i, v)| Mutation::Set(i, v)),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        1 => (any::<usize>(), 1usize..12).prop_map(|(i, n)| Mutation::Remove(i, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let n = b.len();
        match m {
            Mutation::Flip(i, bit) if n > 0 => b[i % n] ^= 1 << bit,
            Mutation::Set(i, v) if n > 0 => b[i % n] = *v,
            Mutation::Insert(i, v) => {
                let at = i % (n + 1);
                b.splice(at..at, v.iter().copied());
            }
            Mutation::Remove(i, k) if n > 0 => {
                let at = i % n;
                b.drain(at..(at + k).min(n));
            }
            Mutation::Truncate(i) => b.truncate(i % (n + 1)),
            _ => {}
        }
    }
    b
}

/// Runs every parser on `bytes`; each must return (Ok or Err), never panic.
fn parse_everything(bytes: &[u8], count: u32, flags: u8, start: u32, ticks: u32) {
    let limits = Limits::default();
    let _ = Header::decode(bytes);
    let _ = decode_index(bytes, count);
    let _ = Metadata::decode(bytes);
    if let Ok(c) = DecodedChunk::decode(bytes, flags, start, ticks, &limits) {
        // A payload that decodes must also be usable.
        let _ = c.ticks();
        let _ = c.state_at(start.saturating_add(ticks / 2));
        let _ = c.heap_bytes();
    }
    let _ = decode_batch(bytes);
    let _ = FrameHeader::decode(bytes);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic_on_arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        count in prop_oneof![0u32..8, any::<u32>()],
        flags in any::<u8>(),
        start in any::<u32>(),
        ticks in prop_oneof![1u32..300, any::<u32>()],
    ) {
        parse_everything(&bytes, count, flags, start, ticks);
    }

    #[test]
    fn parsers_never_panic_on_mutated_valid_input(
        which in 0usize..8,
        ms in proptest::collection::vec(mutation(), 1..6),
        start in prop_oneof![Just(0u32), any::<u32>()],
    ) {
        let s = samples();
        let limits = Limits::default();
        match which {
            0 => { let _ = Header::decode(&mutate(s.header.clone(), &ms)); }
            1 => {
                let b = mutate(s.index.0.clone(), &ms);
                let _ = decode_index(&b, s.index.1);
            }
            2 => { let _ = Metadata::decode(&mutate(s.metadata.clone(), &ms)); }
            3..=5 => {
                let (p, flags, ticks) = &s.payloads[which - 3];
                let b = mutate(p.clone(), &ms);
                // The flags and tick span come from the (checksummed) frame header; vary them too.
                for (f, t) in [(*flags, *ticks), (*flags ^ 1, *ticks), (*flags, 1), (*flags, 5000)] {
                    if let Ok(c) = DecodedChunk::decode(&b, f, start, t, &limits) {
                        let _ = c.ticks();
                        let _ = c.state_at(start.saturating_add(t / 2));
                    }
                }
            }
            6 => { let _ = decode_batch(&mutate(s.batch.clone(), &ms)); }
            _ => { let _ = FrameHeader::decode(&mutate(s.frame.clone(), &ms)); }
        }
    }
}

#[test]
fn samples_are_valid_before_mutation() {
    // Guards the mutation test: its inputs must start out valid, or it would test nothing.
    let s = samples();
    Header::decode(&s.header).unwrap();
    decode_index(&s.index.0, s.index.1).unwrap();
    Metadata::decode(&s.metadata).unwrap();
    for (p, flags, ticks) in &s.payloads {
        let c = DecodedChunk::decode(p, *flags, 0, *ticks, &Limits::default()).unwrap();
        assert!(!c.tracks.is_empty());
    }
    assert!(!decode_batch(&s.batch).unwrap().is_empty());
    FrameHeader::decode(&s.frame).unwrap();
}

/// Regression (found by `random_streams_round_trip`): a `Flags` event re-creates a removed entity
/// (as `EntityTable::apply` does for an unknown id); seeking and straight decoding must agree with
/// the input afterwards, whatever pose samples the entity had before its removal.
#[test]
fn flags_recreating_a_removed_entity() {
    let p = Pose {
        x: 5,
        y: 6,
        z: 7,
        yaw: 8,
        pitch: -1,
    };
    let q = Pose { x: 99, ..p };
    let ticks: Vec<InputTick> = vec![
        (0, vec![Event::Pose { entity: 7, pose: p }], None),
        (1, vec![Event::EntityRemove { entity: 7 }], None),
        (
            2,
            vec![Event::Flags {
                entity: 7,
                flags: 0,
            }],
            None,
        ),
        (
            3,
            vec![
                Event::EntityRemove { entity: 7 },
                Event::Flags {
                    entity: 7,
                    flags: 4,
                },
                Event::Pose { entity: 7, pose: q },
            ],
            None,
        ),
        (
            4,
            vec![
                Event::Pose { entity: 7, pose: p },
                Event::EntityRemove { entity: 7 },
                Event::Flags {
                    entity: 7,
                    flags: 1,
                },
            ],
            None,
        ),
    ];
    let policy = ChunkPolicy {
        chunk_ticks: 100,
        ..ChunkPolicy::default()
    };
    let (_dir, reader) = write_mem(&ticks, policy);
    let plain: Vec<(u32, Vec<Event>)> = ticks.iter().map(|(t, e, _)| (*t, e.clone())).collect();
    let mut table = EntityTable::default();
    let mut straight = Vec::new();
    for t in reader.ticks(0, u32::MAX) {
        let t = t.unwrap();
        for e in &t.events {
            table.apply(e);
        }
        straight.push((t.tick, table.clone()));
    }
    let expected = common::expected_states(&plain);
    assert_eq!(straight, expected, "straight decode");
    for (tick, state) in &expected {
        assert_eq!(
            &reader.seek(*tick).unwrap().entities,
            state,
            "seek to {tick}"
        );
    }
}
