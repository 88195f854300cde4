//! Byte-level primitives: unsigned LEB128 varints, zigzag, big-endian fixed-width integers, and a
//! bounds-checked reader. Every read returns `Error::Truncated` instead of panicking.

use crate::error::{Error, Result};

/// Maps a signed value to an unsigned one so that small magnitudes give small varints.
#[inline]
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends `v` as an unsigned LEB128 varint (the Minecraft VarInt layout, up to 10 bytes for u64).
#[inline(always)]
pub fn put_uvarint(out: &mut Vec<u8>, v: u64) {
    if v < 1 << 56 {
        // Up to 8 bytes without a loop: spread the 7-bit groups into bytes, set the continuation
        // bits, append all 8 bytes and keep `len` of them.
        let (x, len) = encode_short(v);
        out.extend_from_slice(&x.to_le_bytes());
        out.truncate(out.len() - (8 - len));
    } else {
        put_uvarint_long(out, v);
    }
}

#[cold]
fn put_uvarint_long(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends each value zigzag-coded as a varint (the movement section's residual columns).
/// Works in blocks written through a slice, so the loop carries no `Vec` length updates.
pub(crate) fn put_ivarints(out: &mut Vec<u8>, values: &[i64]) {
    const BLOCK: usize = 64;
    for block in values.chunks(BLOCK) {
        let start = out.len();
        // every varint is at most 10 bytes; the 8-byte stores may overrun the last one by 7
        out.resize(start + block.len() * 10 + 8, 0);
        let buf = &mut out[start..];
        let mut pos = 0;
        for &v in block {
            let u = zigzag(v);
            if u < 1 << 56 {
                let (x, len) = encode_short(u);
                buf[pos..pos + 8].copy_from_slice(&x.to_le_bytes());
                pos += len;
            } else {
                let mut w = u;
                while w >= 0x80 {
                    buf[pos] = (w as u8) | 0x80;
                    w >>= 7;
                    pos += 1;
                }
                buf[pos] = w as u8;
                pos += 1;
            }
        }
        out.truncate(start + pos);
    }
}

/// The continuation bit of each of 8 bytes.
const CONTINUATION: u64 = 0x8080_8080_8080_8080;

/// Moves the 7-bit groups of `v` (< 2^56) into the low 7 bits of consecutive bytes.
#[inline(always)]
fn spread7(v: u64) -> u64 {
    let x = (v & 0x0fff_ffff) | ((v & 0x00ff_ffff_f000_0000) << 4);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x0fff_c000_0fff_c000) << 2);
    (x & 0x007f_007f_007f_007f) | ((x & 0x3f80_3f80_3f80_3f80) << 1)
}

/// The varint of `v` (< 2^56) as 8 little-endian bytes, and how many of them it uses. The length
/// comes from the highest non-zero byte of the spread groups (no division by 7).
#[inline(always)]
fn encode_short(v: u64) -> (u64, usize) {
    let x = spread7(v);
    let top = (63 - (x | 1).leading_zeros()) & !7;
    (
        x | (CONTINUATION & ((1u64 << top) - 1)),
        (top as usize >> 3) + 1,
    )
}

/// Inverse of [`spread7`]: packs the low 7 bits of each byte together.
#[inline(always)]
fn pack7(x: u64) -> u64 {
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// Appends `v` zigzag-coded as a varint.
#[inline(always)]
pub fn put_ivarint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, zigzag(v));
}

/// Number of bytes `put_uvarint` writes for `v`.
#[inline]
pub(crate) fn uvarint_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// The varint at `buf[pos..]` and its length, decoded without a loop, if it is at most 8 bytes
/// long and 8 bytes are readable there (`None` otherwise: use a checked reader).
#[inline(always)]
pub(crate) fn uvarint_short(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
    let b = buf.get(pos..pos.checked_add(8)?)?;
    let x = u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let ends = !x & CONTINUATION;
    if ends == 0 {
        return None;
    }
    let len = (ends.trailing_zeros() as usize + 1) / 8;
    // keep the bytes up to and including the last one
    Some((pack7(x & (ends ^ (ends - 1)) & !CONTINUATION), len))
}

/// A cursor over a byte slice whose reads are all bounds-checked.
#[derive(Debug, Clone)]
pub(crate) struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        ByteReader { buf, pos: 0 }
    }
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| Error::truncated("unexpected end of data reading a byte"))?;
        self.pos += 1;
        Ok(b)
    }
    #[inline]
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::truncated(format!(
                "need {n} bytes, {} left",
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    #[inline]
    pub(crate) fn u16_be(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    #[inline]
    pub(crate) fn u32_be(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes(b.try_into().expect("4 bytes")))
    }
    #[inline]
    pub(crate) fn u64_be(&mut self) -> Result<u64> {
        let b = self.bytes(8)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }
    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub(crate) fn uvarint(&mut self) -> Result<u64> {
        if let Some((v, len)) = uvarint_short(self.buf, self.pos) {
            self.pos += len;
            return Ok(v);
        }
        self.uvarint_slow()
    }

    /// The bytes not read yet.
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Skips `n` bytes already looked at through [`ByteReader::rest`].
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }

    fn uvarint_slow(&mut self) -> Result<u64> {
        let mut result: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.u8()?;
            if shift == 63 && b > 1 {
                return Err(Error::corrupt("varint overflows 64 bits"));
            }
            result |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(result);
            }
            shift += 7;
            if shift > 63 {
                return Err(Error::corrupt("varint longer than 10 bytes"));
            }
        }
    }
    /// Reads a varint that must fit in u32.
    #[inline]
    pub(crate) fn uvarint32(&mut self) -> Result<u32> {
        let v = self.uvarint()?;
        u32::try_from(v).map_err(|_| Error::corrupt(format!("varint {v} does not fit in 32 bits")))
    }
    /// Reads a varint used as a length or count, rejecting values above `limit`.
    #[inline]
    pub(crate) fn len_varint(&mut self, limit: usize, what: &str) -> Result<usize> {
        let v = self.uvarint()?;
        if v > limit as u64 {
            return Err(Error::limit(format!("{what} {v} exceeds limit {limit}")));
        }
        Ok(v as usize)
    }
    #[inline]
    pub(crate) fn ivarint(&mut self) -> Result<i64> {
        Ok(unzigzag(self.uvarint()?))
    }
    /// Reads `n` signed varints, each multiplied (wrapping) by `mul`, onto `out`: the residuals of
    /// a movement column. One-byte varints (most residuals) take a short path.
    pub(crate) fn ivarints_into(&mut self, n: usize, mul: i64, out: &mut Vec<i64>) -> Result<()> {
        out.reserve(n);
        for _ in 0..n {
            let u = match self.buf.get(self.pos) {
                Some(&b) if b < 0x80 => {
                    self.pos += 1;
                    u64::from(b)
                }
                _ => self.uvarint()?,
            };
            out.push(unzigzag(u).wrapping_mul(mul));
        }
        Ok(())
    }

    /// Skips `k` varints without decoding them: `Truncated` if fewer than `k` end in the bytes
    /// left. Cheaper than reading them; used to step over the columns of entities a decode does not
    /// want (their bytes were covered by the payload checksum).
    pub(crate) fn skip_varints(&mut self, k: usize) -> Result<()> {
        if k == 0 {
            return Ok(());
        }
        let rest = &self.buf[self.pos..];
        let mut left = k;
        // Eight bytes at a time while all their terminators (high bit clear) are wanted.
        let mut words = 0usize;
        for w in rest.chunks_exact(8) {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            let ends = (!w & 0x8080_8080_8080_8080).count_ones() as usize;
            if ends >= left {
                break;
            }
            left -= ends;
            words += 8;
        }
        for (i, &b) in rest.iter().enumerate().skip(words) {
            if b < 0x80 {
                left -= 1;
                if left == 0 {
                    self.pos += i + 1;
                    return Ok(());
                }
            }
        }
        Err(Error::Truncated(format!(
            "{left} of {k} varints past the end of the buffer"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch read of signed varints (one-byte ones on a short path) equals reading them one
    /// by one, scaled; a truncated batch is an error.
    #[test]
    fn ivarints_into_equals_reading_one_by_one() {
        let values = [0i64, -1, 63, -64, 64, 1 << 40, i64::MIN, i64::MAX, 5, -300];
        let mut buf = Vec::new();
        put_ivarints(&mut buf, &values);
        let mut out = vec![7];
        let mut r = ByteReader::new(&buf);
        r.ivarints_into(values.len(), 3, &mut out).unwrap();
        assert!(r.is_empty());
        let want: Vec<i64> = values.iter().map(|v| v.wrapping_mul(3)).collect();
        assert_eq!(out[1..], want[..]);
        let mut r = ByteReader::new(&buf[..buf.len() - 1]);
        assert!(r.ivarints_into(values.len(), 1, &mut out).is_err());
    }

    /// Skipping k varints lands where reading k of them does, for values of every length and
    /// every k (so across the eight-byte steps); fewer than k varints left is `Truncated`.
    #[test]
    fn skip_varints_lands_where_reading_does() {
        let values: Vec<u64> = (0..200u64)
            .map(|i| match i % 5 {
                0 => i,
                1 => 300 + i,
                2 => u64::MAX - i,
                3 => 1 << (i % 64),
                _ => (i * 7919) << 20,
            })
            .collect();
        let mut buf = Vec::new();
        for &v in &values {
            put_uvarint(&mut buf, v);
        }
        for k in 0..=values.len() {
            let mut read = ByteReader::new(&buf);
            for _ in 0..k {
                read.uvarint().unwrap();
            }
            let mut skip = ByteReader::new(&buf);
            skip.skip_varints(k).unwrap();
            assert_eq!(skip.position(), read.position(), "k = {k}");
        }
        let mut r = ByteReader::new(&buf);
        assert!(matches!(
            r.skip_varints(values.len() + 1),
            Err(Error::Truncated(_))
        ));
        // an unterminated varint at the end does not count
        let mut r = ByteReader::new(&[0x01, 0x80, 0x80]);
        assert!(r.skip_varints(2).is_err());
    }

    #[test]
    fn varint_round_trip_edges() {
        for v in [
            0u64,
            1,
            127,
            128,
            255,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_uvarint(&mut out, v);
            assert_eq!(out.len(), uvarint_len(v));
            let mut r = ByteReader::new(&out);
            assert_eq!(r.uvarint().unwrap(), v);
            assert!(r.is_empty());
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -4096, 4096] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        // Minecraft VarInt layout: 300 = AC 02
        let mut out = Vec::new();
        put_uvarint(&mut out, 300);
        assert_eq!(out, [0xAC, 0x02]);
    }

    #[test]
    fn fast_and_slow_varint_paths_agree() {
        // every length from 1 to 10 bytes, at the start, middle and end of a buffer
        let mut values: Vec<u64> = (0..64).flat_map(|b| [1u64 << b, (1u64 << b) - 1]).collect();
        values.extend([u64::MAX, 0x0123_4567_89ab_cdef, (1 << 56) - 1, 1 << 56, 300]);
        for &v in &values {
            let mut enc = Vec::new();
            put_uvarint(&mut enc, v);
            let mut slow = Vec::new();
            let mut w = v;
            while w >= 0x80 {
                slow.push((w as u8) | 0x80);
                w >>= 7;
            }
            slow.push(w as u8);
            assert_eq!(enc, slow, "encoding of {v}");
            for pad in [0usize, 3, 12] {
                let mut buf = enc.clone();
                buf.extend(std::iter::repeat_n(0xAA, pad));
                let mut r = ByteReader::new(&buf);
                assert_eq!(r.uvarint().unwrap(), v, "{v} with {pad} bytes after");
                assert_eq!(r.position(), enc.len());
                let mut r = ByteReader::new(&buf);
                assert_eq!(r.uvarint_slow().unwrap(), v);
            }
        }
        // a truncated varint followed by nothing, and an 11-byte one, fail on both paths
        let mut r = ByteReader::new(&[0x80; 9]);
        assert!(r.uvarint().is_err());
        let mut r = ByteReader::new(&[0xff; 16]);
        assert!(r.uvarint().is_err());
        let mut over = vec![0xff; 9];
        over.push(0x02);
        over.extend([0; 8]);
        assert!(ByteReader::new(&over).uvarint().is_err());
    }

    #[test]
    fn put_ivarints_equals_one_at_a_time() {
        let values: Vec<i64> = (0..300)
            .map(|i: i64| match i % 5 {
                0 => i,
                1 => -i * 1_000_003,
                2 => i64::MIN + i,
                3 => i64::MAX - i,
                _ => (i << 50) ^ 0x5555,
            })
            .collect();
        let mut a = vec![7u8];
        put_ivarints(&mut a, &values);
        let mut b = vec![7u8];
        for &v in &values {
            put_ivarint(&mut b, v);
        }
        assert_eq!(a, b);
    }

    #[test]
    fn varint_rejects_overlong_and_truncated() {
        let mut r = ByteReader::new(&[0x80, 0x80]);
        assert!(matches!(r.uvarint(), Err(Error::Truncated(_))));
        let bad = [0xffu8; 11];
        let mut r = ByteReader::new(&bad);
        assert!(matches!(r.uvarint(), Err(Error::Corrupt(_))));
        let mut r = ByteReader::new(&[0x05]);
        assert!(r.len_varint(4, "x").is_err());
    }
}
