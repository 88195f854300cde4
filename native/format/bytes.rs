//! Byte-level primitives: unsigned LEB128 varints, zigzag, big-endian fixed-width integers, and a
//! bounds-checked reader. Every read returns `Error::Truncated` instead of panicking.

use crate::error::{Error, Result};

/// Maps a signed value to an unsigned one so that small magnitudes give small varints.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends `v` as an unsigned LEB128 varint (the Minecraft VarInt layout, up to 10 bytes for u64).
#[inline]
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-coded as a varint.
#[inline]
pub fn put_ivarint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, zigzag(v));
}

/// Number of bytes `put_uvarint` writes for `v`.
#[inline]
pub fn uvarint_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// A cursor over a byte slice whose reads are all bounds-checked.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        ByteReader { buf, pos: 0 }
    }
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| Error::truncated("unexpected end of data reading a byte"))?;
        self.pos += 1;
        Ok(b)
    }
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
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
    pub fn u16_be(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    #[inline]
    pub fn u32_be(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes(b.try_into().expect("4 bytes")))
    }
    #[inline]
    pub fn u64_be(&mut self) -> Result<u64> {
        let b = self.bytes(8)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }
    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn uvarint(&mut self) -> Result<u64> {
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
    pub fn uvarint32(&mut self) -> Result<u32> {
        let v = self.uvarint()?;
        u32::try_from(v).map_err(|_| Error::corrupt(format!("varint {v} does not fit in 32 bits")))
    }
    /// Reads a varint used as a length or count, rejecting values above `limit`.
    #[inline]
    pub fn len_varint(&mut self, limit: usize, what: &str) -> Result<usize> {
        let v = self.uvarint()?;
        if v > limit as u64 {
            return Err(Error::limit(format!("{what} {v} exceeds limit {limit}")));
        }
        Ok(v as usize)
    }
    #[inline]
    pub fn ivarint(&mut self) -> Result<i64> {
        Ok(unzigzag(self.uvarint()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
