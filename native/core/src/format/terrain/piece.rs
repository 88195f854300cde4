//! The terrain piece of a chunk frame: a set of sections re-packed into a body (one byte per
//! block where the palette allows), compressed with zstd at a high level and stored in a zstd
//! skippable frame in front of the chunk's payload (FORMAT.md §6.1). Bytes only: no I/O.

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};

use super::section::pack;
use super::{MAX_SECTION_BITS, MAX_SECTION_PALETTE, SECTION_BLOCKS, Section, Terrain, bits_for};

/// Magic of the skippable frame that holds a chunk's terrain piece (the last of zstd's 16
/// skippable magics; padding uses the first), written little-endian as zstd's frames are.
pub(crate) const TERRAIN_SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
/// The first bytes of a terrain piece's content.
pub(crate) const TERRAIN_MAGIC: [u8; 4] = *b"TKTR";
/// The zstd level terrain is compressed with (measured: `tickreel bench --only terrain`).
pub const TERRAIN_ZSTD_LEVEL: i32 = 19;

/// An upper bound of the bytes a section takes in the coded body (a buffer's capacity).
fn body_bound(s: &Section) -> usize {
    let idx = match s.palette.len() {
        1 => 0,
        2..=256 => SECTION_BLOCKS,
        _ => 2 * SECTION_BLOCKS,
    };
    3 * 5 + 1 + 3 + 5 * s.palette.len() + idx
}

/// The exact length of the body [`encode_body`] writes for `t`, computed without writing it:
/// what a reader bounds (`Limits::max_terrain_bytes`, FORMAT.md §6.1), so that a writer refuses
/// exactly the terrain readers refuse, no more.
pub(crate) fn body_len(t: &Terrain) -> usize {
    use crate::format::bytes::{uvarint_len, zigzag};
    let mut n = uvarint_len(t.len() as u64);
    let mut prev = (0i64, 0i64, 0i64);
    for s in t.sections() {
        let (x, z, y) = (i64::from(s.cx), i64::from(s.cz), i64::from(s.cy));
        n += uvarint_len(zigzag(x - prev.0))
            + uvarint_len(zigzag(z - prev.1))
            + uvarint_len(zigzag(y - prev.2));
        prev = (x, z, y);
        n += 1 + uvarint_len(s.palette.len() as u64);
        n += s
            .palette
            .iter()
            .map(|&p| uvarint_len(u64::from(p)))
            .sum::<usize>();
        n += match s.palette.len() {
            1 => 0,
            2..=256 => SECTION_BLOCKS,
            _ => 2 * SECTION_BLOCKS,
        };
    }
    n
}

/// The terrain's body, uncompressed (FORMAT.md §6.1): the sections' headers (position deltas,
/// bits, palette), then the indices of every section with more than one palette entry, one byte
/// each for a palette of at most 256 entries, else two (big-endian).
pub fn encode_body(t: &Terrain) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.sections().map(body_bound).sum());
    put_uvarint(&mut out, t.len() as u64);
    let mut prev = (0i64, 0i64, 0i64);
    for s in t.sections() {
        let (x, z, y) = (i64::from(s.cx), i64::from(s.cz), i64::from(s.cy));
        put_ivarint(&mut out, x - prev.0);
        put_ivarint(&mut out, z - prev.1);
        put_ivarint(&mut out, y - prev.2);
        prev = (x, z, y);
        out.push(s.bits);
        put_uvarint(&mut out, s.palette.len() as u64);
        for &p in &s.palette {
            put_uvarint(&mut out, u64::from(p));
        }
    }
    for s in t.sections().filter(|s| s.palette.len() > 1) {
        let wide = s.palette.len() > 256;
        for i in s.indices() {
            if wide {
                out.extend_from_slice(&i.to_be_bytes());
            } else {
                out.push(i as u8);
            }
        }
    }
    out
}

/// Decodes a body written by [`encode_body`], checking everything before allocating from it.
// used by the `wire` front (tests, fuzzing) and the unit tests; the library decodes pieces
#[cfg_attr(not(feature = "wire"), allow(dead_code))]
pub fn decode_body(body: &[u8], limits: &Limits) -> Result<Terrain> {
    decode_body_where(body, limits, &mut |_| true)
}

/// [`decode_body`] keeping only the sections whose position (`cx`, `cz`, `cy`: the terrain's
/// order) `keep` accepts: every section is checked as [`decode_body`] checks it, the others are
/// not built (nor their palettes held). `keep` is asked once per section, in the body's order,
/// before any section is built.
pub(crate) fn decode_body_where(
    body: &[u8],
    limits: &Limits,
    keep: &mut dyn FnMut((i32, i32, i32)) -> bool,
) -> Result<Terrain> {
    let mut r = ByteReader::new(body);
    // A section header takes at least 5 bytes.
    let n = r.len_varint(r.remaining() / 5, "terrain section count")?;
    if n > limits.max_terrain_sections() {
        return Err(Error::limit(format!(
            "terrain of {n} sections; limit {}",
            limits.max_terrain_sections()
        )));
    }
    let mut heads = Vec::with_capacity(n);
    let mut prev = (0i64, 0i64, 0i64);
    for i in 0..n {
        // A delta of up to 64 bits on a position of 32: the sum may not fit 64 bits either.
        let outside = || Error::corrupt(format!("terrain section {i} lies outside 32 bits"));
        let mut next = |from: i64| -> Result<i64> {
            from.checked_add(r.ivarint()?)
                .filter(|v| i32::try_from(*v).is_ok())
                .ok_or_else(outside)
        };
        let x = next(prev.0)?;
        let z = next(prev.1)?;
        let y = next(prev.2)?;
        if i > 0 && (x, z, y) <= prev {
            return Err(Error::corrupt(format!(
                "terrain section {i} is not after the previous one"
            )));
        }
        prev = (x, z, y);
        let bits = r.u8()?;
        let p = r.len_varint(r.remaining().min(MAX_SECTION_PALETTE), "section palette")?;
        // the palette of a section not kept is read, not held
        let kept = keep((x as i32, z as i32, y as i32));
        let mut palette = Vec::with_capacity(if kept { p } else { 0 });
        for _ in 0..p {
            let state = r.uvarint32()?;
            if kept {
                palette.push(state);
            }
        }
        heads.push((
            x as i32,
            y as i32,
            z as i32,
            bits,
            p,
            kept.then_some(palette),
        ));
    }
    let mut t = Terrain::default();
    let mut indices = vec![0u16; SECTION_BLOCKS];
    for (cx, cy, cz, bits, p, palette) in heads {
        if p == 0 {
            return Err(Error::corrupt(format!(
                "terrain section ({cx}, {cy}, {cz}) has an empty palette"
            )));
        }
        if p > 1 {
            let wide = p > 256;
            let raw = r.bytes(SECTION_BLOCKS * if wide { 2 } else { 1 })?;
            for (i, slot) in indices.iter_mut().enumerate() {
                *slot = if wide {
                    u16::from_be_bytes([raw[2 * i], raw[2 * i + 1]])
                } else {
                    u16::from(raw[i])
                };
                if *slot as usize >= p {
                    return Err(Error::corrupt(format!(
                        "terrain section ({cx}, {cy}, {cz}): block {i} indexes entry {slot} of a palette of {p}"
                    )));
                }
            }
        }
        let min = bits_for(p);
        if (p == 1 && bits != 0) || (p > 1 && !(min..=MAX_SECTION_BITS).contains(&bits)) {
            return Err(Error::corrupt(format!(
                "terrain section ({cx}, {cy}, {cz}): {bits} bits for a palette of {p}"
            )));
        }
        let Some(palette) = palette else {
            continue;
        };
        let s = Section {
            cx,
            cy,
            cz,
            packed: if p > 1 {
                pack(&indices, bits)
            } else {
                Vec::new()
            },
            palette,
            bits,
        };
        t.sections.insert(s.key(), std::sync::Arc::new(s));
    }
    if !r.is_empty() {
        return Err(Error::corrupt(format!(
            "terrain body has {} bytes left over",
            r.remaining()
        )));
    }
    Ok(t)
}

/// The terrain piece: a zstd skippable frame (magic [`TERRAIN_SKIPPABLE_MAGIC`], u32 LE content
/// length) whose content is [`TERRAIN_MAGIC`], `varint` body length and the body compressed by
/// zstd at `level` (padded, like a chunk payload, to the expansion rule of
/// [`crate::format::limits`]). Refuses a body over `limits.max_terrain_bytes()`.
pub fn encode_piece(t: &Terrain, level: i32, limits: &Limits) -> Result<Vec<u8>> {
    let body = encode_body(t);
    if body.len() > limits.max_terrain_bytes() {
        return Err(Error::limit(format!(
            "terrain of {} bytes coded; limit {}",
            body.len(),
            limits.max_terrain_bytes()
        )));
    }
    let mut z = zstd::bulk::compress(&body, level)?;
    crate::format::frame::pad_payload(&mut z, body.len());
    let mut content = Vec::with_capacity(z.len() + 16);
    content.extend_from_slice(&TERRAIN_MAGIC);
    put_uvarint(&mut content, body.len() as u64);
    content.extend_from_slice(&z);
    let mut out = Vec::with_capacity(content.len() + 8);
    out.extend_from_slice(&TERRAIN_SKIPPABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(content.len())
            .map_err(|_| Error::limit("terrain piece over 4 GiB"))?
            .to_le_bytes(),
    );
    out.extend_from_slice(&content);
    Ok(out)
}

/// The terrain piece at the front of a chunk's compressed payload (a chunk with
/// [`crate::format::FLAG_TERRAIN`]): its content, still compressed.
pub fn piece_of(payload: &[u8]) -> Result<&[u8]> {
    let mut r = ByteReader::new(payload);
    let magic = u32::from_le_bytes(r.bytes(4)?.try_into().expect("4 bytes"));
    if magic != TERRAIN_SKIPPABLE_MAGIC {
        return Err(Error::corrupt(format!(
            "a chunk flagged with terrain starts with {magic:#010x}, not the terrain frame"
        )));
    }
    let len = u32::from_le_bytes(r.bytes(4)?.try_into().expect("4 bytes")) as usize;
    if len > r.remaining() {
        return Err(Error::truncated(format!(
            "terrain frame of {len} bytes in {} bytes of payload",
            r.remaining()
        )));
    }
    r.bytes(len)
}

/// Decodes a terrain piece's content ([`piece_of`]): the body length within
/// `limits.max_terrain_bytes()` and the expansion rule, both checked before decompressing.
pub fn decode_piece(content: &[u8], limits: &Limits) -> Result<Terrain> {
    decode_piece_where(content, limits, &mut |_| true)
}

/// [`decode_piece`] keeping only the sections `keep` accepts ([`decode_body_where`]).
pub(crate) fn decode_piece_where(
    content: &[u8],
    limits: &Limits,
    keep: &mut dyn FnMut((i32, i32, i32)) -> bool,
) -> Result<Terrain> {
    let mut r = ByteReader::new(content);
    if r.bytes(4)? != TERRAIN_MAGIC {
        return Err(Error::corrupt("terrain frame without its magic"));
    }
    let len = r.len_varint(limits.max_terrain_bytes(), "terrain body length")?;
    let z = r.rest();
    crate::format::limits::check_expansion(
        u32::try_from(z.len()).unwrap_or(u32::MAX),
        len as u32,
        0,
    )
    .map_err(|e| Error::limit(format!("terrain: {e}")))?;
    let body = zstd::bulk::Decompressor::new()?
        .decompress(z, len)
        .map_err(|e| Error::corrupt(format!("terrain body: {e}")))?;
    if body.len() != len {
        return Err(Error::corrupt(format!(
            "terrain body decompressed to {} bytes, expected {len}",
            body.len()
        )));
    }
    decode_body_where(&body, limits, keep)
}

#[cfg(test)]
mod tests {
    use super::super::section::varied;
    use super::*;

    #[test]
    fn body_and_piece_round_trip() {
        let t = Terrain::from_sections([
            varied(0, -4, 0, 3),
            varied(0, -3, 0, 40),
            varied(-1, 2, 5, 300),
            Section::single(0, 5, 0, 0),
            Section::single(1, 5, -7, 12),
        ]);
        let limits = Limits::default();
        assert_eq!(decode_body(&encode_body(&t), &limits).unwrap(), t);
        let piece = encode_piece(&t, 3, &limits).unwrap();
        // zstd's decompression steps over the piece.
        let mut framed = piece.clone();
        framed.extend_from_slice(&zstd::bulk::compress(b"payload", 3).unwrap());
        assert_eq!(zstd::bulk::decompress(&framed, 100).unwrap(), b"payload");
        assert_eq!(
            decode_piece(piece_of(&framed).unwrap(), &limits).unwrap(),
            t
        );
        assert_eq!(
            t.block(-16 + 3, 2 * 16, 5 * 16),
            Some(t.section(-1, 2, 5).unwrap().state(3, 0, 0))
        );
        assert_eq!(t.block(5, 5 * 16 + 15, 3), Some(0));
        assert_eq!(t.block(5, 6 * 16, 3), None);
        // A 5-bit section keeps its bits.
        let mut wide = varied(3, 3, 3, 20);
        assert_eq!(wide.bits, 5);
        let idx = wide.indices();
        wide.bits = 7;
        wide.packed = pack(&idx, 7);
        wide.validate().unwrap();
        let t = Terrain::from_sections([wide]);
        assert_eq!(decode_body(&encode_body(&t), &limits).unwrap(), t);
    }

    #[test]
    fn body_len_is_the_coded_length() {
        let mut big = Section::single(-300, 5, 70_000, 0);
        big.palette = (0..4096).map(|i| i * 40).collect();
        big.bits = 12;
        big.packed = pack(&(0..4096u16).collect::<Vec<_>>(), 12);
        big.validate().unwrap();
        for t in [
            Terrain::default(),
            Terrain::from_sections([varied(0, -4, 0, 3), Section::single(1, 5, -7, 300)]),
            Terrain::from_sections([big, varied(-1, 2, 5, 300), varied(9, 9, 9, 256)]),
        ] {
            assert_eq!(body_len(&t), encode_body(&t).len());
        }
    }

    #[test]
    fn crafted_bodies_refused() {
        let limits = Limits::default();
        let t = Terrain::from_sections([varied(0, 0, 0, 20), varied(0, 1, 0, 2)]);
        let body = encode_body(&t);
        // Truncation at every byte, and a byte too many.
        for n in 0..body.len() {
            assert!(decode_body(&body[..n], &limits).is_err(), "cut at {n}");
        }
        let mut long = body.clone();
        long.push(0);
        assert!(decode_body(&long, &limits).is_err());
        // An index outside the palette (the second section has 2 entries).
        let mut b = body.clone();
        let last = b.len() - 1;
        b[last] = 2;
        let e = decode_body(&b, &limits).unwrap_err().to_string();
        assert!(e.contains("indexes entry 2"), "{e}");
        // A count claiming more sections than the bytes hold.
        let mut b = Vec::new();
        put_uvarint(&mut b, 1 << 40);
        assert!(decode_body(&b, &limits).is_err());
        // Sections out of order.
        let mut b = Vec::new();
        put_uvarint(&mut b, 2);
        for _ in 0..2 {
            b.extend_from_slice(&[0, 0, 0, 0, 1, 1]);
        }
        let e = decode_body(&b, &limits).unwrap_err().to_string();
        assert!(e.contains("not after"), "{e}");
        // A piece claiming a body over the limit, or over the expansion rule.
        let small = Limits {
            max_chunk_bytes: 1 << 14,
            ..Limits::default()
        };
        let piece = encode_piece(&t, 3, &limits).unwrap();
        let e = decode_piece(piece_of(&piece).unwrap(), &small).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        let mut forged = TERRAIN_MAGIC.to_vec();
        put_uvarint(&mut forged, 1 << 20);
        forged.extend_from_slice(&zstd::bulk::compress(&vec![0u8; 1 << 20], 19).unwrap());
        let e = decode_piece(&forged, &limits).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        // A skippable frame claiming more than the payload.
        let mut p = piece.clone();
        p.truncate(p.len() - 1);
        assert!(matches!(piece_of(&p), Err(Error::Truncated(_))));
        assert!(piece_of(&p[8..]).is_err());
    }
}
