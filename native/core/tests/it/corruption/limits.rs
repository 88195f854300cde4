//! Crafted lengths and counts: refused before anything is allocated from them, versions from the future, overflowing runs and offsets, nesting bombs.

use super::*;

#[test]
fn a_chunk_claiming_4_gib_uncompressed_is_refused_before_allocating() {
    let mut f = forge();
    f.chunks[0].uncompressed_len = u32::MAX;
    let err = default_limits_error(f.assemble());
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    // Just above the configured limit is refused too.
    let mut f = forge();
    f.chunks[0].uncompressed_len = (TIGHT.max_chunk_bytes + 1) as u32;
    let (_, err) = checked(f.assemble(), "just over the limit");
    assert!(matches!(err, Some(Error::LimitExceeded(_))), "{err:?}");
}

#[test]
fn a_chunk_expanding_beyond_the_ratio_is_refused_before_decompressing() {
    // A valid chunk: no keyframe, a snapshot of 60 MiB of zeros, no events, no movement. Padded as
    // a writer pads it, it reads back.
    let snapshot = 60 << 20;
    let mut payload = vec![0u8];
    put_uvarint(&mut payload, snapshot as u64);
    payload.resize(payload.len() + snapshot, 0);
    payload.extend_from_slice(&[0, 0]);
    let mut f = forge();
    f.chunks.truncate(1);
    f.chunks[0].flags = FLAG_SNAPSHOT;
    f.chunks[0].tick_count = 1;
    f.set_payload(0, &payload);
    let padded = f.chunks[0].compressed.len() as u64;
    let assemble = |f: &Forge| f.assemble_with(&|_| {}, &|_| {}, &|h| h.tick_count = 1);
    assert_eq!(
        padded,
        tickreel::format::wire::min_compressed_len(payload.len() as u64)
    );
    let r = Reader::open(Arc::new(MemSource::new(assemble(&f)))).unwrap();
    r.verify().unwrap();
    assert_eq!(r.read_chunk(0).unwrap().snapshot.unwrap().len(), snapshot);
    // The same zstd frame without its padding (valid checksums, index and frame header agreeing):
    // refused before anything of the 60 MiB is allocated, i.e. before decompressing.
    let unpadded = zstd::bulk::compress(&payload, 19).unwrap();
    assert!((unpadded.len() as u64) < padded / 100, "{}", unpadded.len());
    f.chunks[0].compressed = unpadded;
    let err = default_limits_error(assemble(&f));
    assert!(
        matches!(&err, Error::LimitExceeded(m) if m.contains("256 per compressed byte")),
        "{err:?}"
    );
    // Padded with a skippable frame one byte short of the least length: refused too.
    let mut short = zstd::bulk::compress(&payload, 3).unwrap();
    let content = padded as usize - 1 - short.len() - 8;
    short.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
    short.extend_from_slice(&(content as u32).to_le_bytes());
    short.resize(short.len() + content, 0);
    assert_eq!(short.len() as u64, padded - 1);
    f.chunks[0].compressed = short;
    let err = default_limits_error(assemble(&f));
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
}

#[test]
fn an_index_claiming_2_pow_31_chunks_is_refused_before_allocating() {
    let bytes = forge().assemble_with(&|_| {}, &|_| {}, &|h| h.chunk_count = 1 << 31);
    let err = default_limits_error(bytes);
    assert!(matches!(err, Error::Corrupt(_)), "{err:?}");
}

#[test]
fn huge_metadata_and_index_lengths_are_refused_before_allocating() {
    for (meta, index) in [(u32::MAX, None), (1 << 31, None), (u32::MAX - 1, Some(0))] {
        let bytes = forge().assemble_with(&|_| {}, &|_| {}, &|h| {
            h.metadata_len = meta;
            if let Some(i) = index {
                h.index_len = i;
            }
        });
        let err = default_limits_error(bytes);
        assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    }
    let bytes = forge().assemble_with(&|_| {}, &|_| {}, &|h| h.index_len = u32::MAX);
    let err = default_limits_error(bytes);
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    // Within the limits but longer than the file: a truncation, reading only what exists.
    let bytes = forge().assemble_with(&|_| {}, &|_| {}, &|h| h.metadata_len = 10 << 20);
    let err = default_limits_error(bytes);
    assert!(matches!(err, Error::Truncated(_)), "{err:?}");
}

#[test]
fn versions_from_the_future_are_unsupported() {
    let bytes = forge().assemble_with(&|_| {}, &|_| {}, &|h| h.version = 2);
    assert!(matches!(default_limits_error(bytes), Error::Unsupported(_)));
    let mut f = forge();
    f.chunks[2].data_version = tickreel::format::DATA_VERSION + 1;
    assert!(matches!(
        default_limits_error(f.assemble()),
        Error::Unsupported(_)
    ));
}

#[test]
fn huge_counts_and_lengths_inside_a_payload_are_refused() {
    let varint = |v: u64| {
        let mut b = Vec::new();
        put_uvarint(&mut b, v);
        b
    };
    // keyframe claiming 2^40 entities
    let mut p = varint(1 << 40);
    p.extend_from_slice(&[0; 64]);
    assert!(matches!(payload_error(&p, 10), Error::LimitExceeded(_)));
    // event stream claiming 4 GiB
    let mut p = vec![0];
    p.extend(varint(u64::from(u32::MAX)));
    p.extend_from_slice(&[0; 64]);
    assert!(matches!(payload_error(&p, 10), Error::LimitExceeded(_)));
    // a custom event claiming 2^32 bytes
    let mut stream = vec![0, 0, 1, 0x80, 1];
    stream.extend(varint(1 << 32));
    let mut p = vec![0];
    p.extend(varint(stream.len() as u64));
    p.extend(&stream);
    p.push(0);
    let err = payload_error(&p, 10);
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    // 65535 events announced in a 10-byte stream
    let stream = [0u8, 0xFF, 0xFF, 2, 1, 2, 1, 2, 1, 2];
    let mut p = vec![0, stream.len() as u8];
    p.extend(stream);
    p.push(0);
    assert!(matches!(payload_error(&p, 10), Error::Corrupt(_)));
}

#[test]
fn movement_runs_and_resets_that_overflow_are_corrupt() {
    // Sanity: the helper builds a valid payload.
    let ok = movement_payload(&[(0, 2), (3, 1)], &[0, 2], 3);
    let c = DecodedChunk::decode(&ok, 0, 0, 10, &TIGHT).unwrap();
    assert_eq!(c.tracks[0].ticks, [0, 1, 5]);
    assert_eq!(c.tracks[0].resets, [0, 2]);
    // A run gap that wraps 64 bits.
    let p = movement_payload(&[(0, 1), (u64::MAX, 1)], &[], 2);
    assert!(matches!(payload_error(&p, 10), Error::Corrupt(_)));
    // A run length that wraps 64 bits.
    let p = movement_payload(&[(2, u64::MAX - 1)], &[], 2);
    assert!(matches!(payload_error(&p, 10), Error::Corrupt(_)));
    // A reset delta that wraps 64 bits.
    let p = movement_payload(&[(0, 3)], &[1, u64::MAX], 3);
    assert!(matches!(payload_error(&p, 10), Error::Corrupt(_)));
}

#[test]
fn a_chunk_reaching_past_tick_2_pow_32_is_corrupt() {
    // One chunk of 16 ticks starting 3 ticks before the last representable tick.
    let mut f = forge();
    f.chunks.truncate(1);
    f.chunks[0].start_tick = u32::MAX - 3;
    let (_, err) = checked(f.assemble(), "chunk past u32::MAX");
    assert!(matches!(err, Some(Error::Corrupt(_))), "{err:?}");
    // The last chunk moved there, after others.
    let mut f = forge();
    let last = f.chunks.len() - 1;
    f.chunks[last].start_tick = u32::MAX - 3;
    let (_, err) = checked(f.assemble(), "last chunk past u32::MAX");
    assert!(matches!(err, Some(Error::Corrupt(_))), "{err:?}");
    // A chunk ending exactly at the last tick is fine as an index entry, but an index spanning
    // all 2^32 ticks does not fit the header's u32 tick count (no writer writes one): opening
    // says so cleanly, as verify does.
    let mut f = forge();
    f.chunks.truncate(2);
    let n = f.chunks[1].tick_count;
    f.chunks[1].start_tick = u32::MAX - (n - 1);
    let bytes = f.assemble_with(&|_| {}, &|_| {}, &|h| {
        h.first_tick = 0;
        h.tick_count = 0;
    });
    let (got, err) = checked(bytes, "chunk ending at u32::MAX");
    assert!(got.is_empty(), "refused at open");
    assert!(
        matches!(&err, Some(Error::Corrupt(m)) if m.contains("index covers ticks 0 to 4294967295")),
        "{err:?}"
    );
    // The same chunk after a first one that is not at tick 0: the header can say it.
    let mut f = forge();
    f.chunks.truncate(2);
    let n = f.chunks[1].tick_count;
    f.chunks[0].start_tick = 1000;
    f.chunks[1].start_tick = u32::MAX - (n - 1);
    let bytes = f.assemble_with(&|_| {}, &|_| {}, &|h| {
        h.first_tick = 1000;
        h.tick_count = u32::MAX - 999;
    });
    let (got, err) = checked(bytes, "chunk ending at u32::MAX after tick 1000");
    assert!(got.iter().any(|(t, _)| *t == u32::MAX), "last tick decoded");
    assert!(err.is_none(), "{err:?}");
}

#[test]
fn an_index_offset_near_2_pow_64_is_corrupt() {
    let base = forge();
    for off in [u64::MAX, u64::MAX - 36, 1 << 63] {
        let bytes = base.assemble_with(
            &|_| {},
            &|ix| {
                let mut entries = decode_index(ix, base.chunks.len() as u32).unwrap();
                entries[1].offset = off;
                *ix = encode_index(&entries);
            },
            &|_| {},
        );
        let (_, err) = checked(bytes, &format!("index offset {off}"));
        assert!(matches!(err, Some(Error::Corrupt(_))), "{err:?}");
    }
}

#[test]
fn metadata_nesting_bombs_are_refused() {
    // A valid NBT root holding 100,000 nested lists: deeper than any parser stack should go.
    let mut m = vec![10, 0, 0, 9, 0, 1, b'x', 9, 0, 0, 0, 1];
    for _ in 0..100_000 {
        m.extend_from_slice(&[9, 0, 0, 0, 1]);
    }
    let bytes = forge().assemble_with(&|meta| *meta = m.clone(), &|_| {}, &|_| {});
    let err = default_limits_error(bytes);
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    assert!(Metadata::decode(&m).is_err());
}

#[test]
fn snapshot_flag_without_snapshot_bytes_is_an_error() {
    // The frame says "snapshot" but the payload has none: the decoder reads the keyframe count as
    // a snapshot length and must fail cleanly.
    let mut f = forge();
    let i = f
        .chunks
        .iter()
        .position(|c| c.flags & FLAG_SNAPSHOT == 0)
        .unwrap();
    f.chunks[i].flags |= FLAG_SNAPSHOT;
    let (_, err) = checked(f.assemble(), "snapshot flag forged");
    assert!(err.is_some());
}
