//! The 256-byte file header: the seed's fields at the seed's offsets (big-endian), plus tickreel's
//! additions in the padding. See FORMAT.md for the byte table.

use crate::error::{Error, Result};
use xxhash_rust::xxh64::xxh64;

/// Size of the header in bytes.
pub const HEADER_LEN: usize = 256;
/// Magic number at offset 0.
pub(crate) const MAGIC: [u8; 4] = *b"TKRL";
/// Format version this build writes and reads.
pub const FORMAT_VERSION: u8 = 1;
/// Highest version of the built-in event set and chunk payload layout this build writes and
/// reads (FORMAT.md section 11). A frame carries the lowest version that reads its payload: 1
/// unless it uses predictor 4 (linear in time), new in 2, or world events, new in 3 (earlier
/// readers would skip them as opaque extensions; a frame with them says 3 so that they are not
/// taken for the opaque extensions of the same kind bytes a version-2 writer may have stored), or
/// 4 for the same with block changes coded against the chunk
/// ([`crate::format::block_coding`]), 5 for a chunk with a world section (which says first
/// whether it is a keyframe or the changes since one), 6 for a chunk with block changes coded
/// from two cursors per cause, 7 for a chunk with block changes coded with the table of changed
/// positions and the stream's ticks as gaps, 8 for a chunk with block changes whose fields are
/// stored in columns, 9 from this build on for a chunk with a world section whose block lists are
/// each compressed on their own (read on first use, not at a seek).
pub const DATA_VERSION: u16 = 9;

/// Whether the file is a compacted `.reel` or the metadata file of a live (segmented) recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One file: header, metadata, index, chunk frames. Index offsets are file offsets.
    Compacted = 0,
    /// Metadata file of a live recording directory; index offsets are `(segment << 32) | offset`.
    Segmented = 1,
}

/// The decoded header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    /// The seed's flags field; unused (written 0, ignored on read).
    pub flags: u16,
    pub world_id: [u8; 16],
    pub world_version: [u8; 16],
    /// Unix milliseconds when the recording started.
    pub timestamp_ms: i64,
    /// Zstd dictionary id, 0 for none.
    pub dictionary_id: u16,
    pub metadata_len: u32,
    pub index_len: u32,
    /// Ticks spanned: last tick - first tick + 1 (0 when empty).
    pub tick_count: u32,
    pub chunk_count: u32,
    // --- additions in the padding ---
    /// Tick rate in millihertz (20 ticks/s = 20000).
    pub tick_rate_millihz: u32,
    /// The game's own data version (e.g. a Minecraft data version), opaque to tickreel.
    pub game_data_version: u32,
    /// Event/payload data version used by the writer (chunks carry their own too).
    pub data_version: u16,
    pub layout: Layout,
    /// First tick of the recording.
    pub first_tick: u32,
    /// Compacted: total file length; segmented: 0.
    pub data_end: u64,
    /// XXH64 (seed 0) of the metadata bytes followed by the index bytes.
    pub body_checksum: u64,
    /// Identifies the recording (a UUID v4's 16 bytes), so that recovery and compaction refuse
    /// segments another recording wrote into its live directory. All zero: none (files of
    /// earlier builds, and of the synchronous writer unless given one).
    pub recording_id: [u8; 16],
    /// The writer's counters that a reader cannot derive from the index (bytes 112..144).
    pub stats: HeaderStats,
}

/// The writer's counters kept in the header (bytes 112..144, u64 BE each), where they cost
/// nothing: the 256 bytes are written anyway. `uncompressed_bytes` is not among them (a reader
/// sums the index). Files of earlier builds have zero here and keep all five counters in the
/// metadata's `stats` LongArray, which a reader prefers when present (FORMAT.md §3, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeaderStats {
    /// Non-empty ticks written.
    pub ticks_written: u64,
    /// Events written, pose updates excluded.
    pub events: u64,
    /// Pose samples written.
    pub pose_samples: u64,
    /// Ticks dropped by backpressure.
    pub dropped_ticks: u64,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            version: FORMAT_VERSION,
            flags: 0,
            world_id: [0; 16],
            world_version: [0; 16],
            timestamp_ms: 0,
            dictionary_id: 0,
            metadata_len: 0,
            index_len: 0,
            tick_count: 0,
            chunk_count: 0,
            tick_rate_millihz: 20_000,
            game_data_version: 0,
            data_version: DATA_VERSION,
            layout: Layout::Compacted,
            first_tick: 0,
            data_end: 0,
            body_checksum: 0,
            recording_id: [0; 16],
            stats: HeaderStats::default(),
        }
    }
}

impl Header {
    /// Serialises to exactly 256 bytes, with the header checksum in the last 8.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&MAGIC);
        b[4] = self.version;
        b[5..7].copy_from_slice(&self.flags.to_be_bytes());
        b[7..23].copy_from_slice(&self.world_id);
        b[23..39].copy_from_slice(&self.world_version);
        b[39..47].copy_from_slice(&self.timestamp_ms.to_be_bytes());
        b[47..49].copy_from_slice(&self.dictionary_id.to_be_bytes());
        b[49..53].copy_from_slice(&self.metadata_len.to_be_bytes());
        b[53..57].copy_from_slice(&self.index_len.to_be_bytes());
        b[57..61].copy_from_slice(&self.tick_count.to_be_bytes());
        b[61..65].copy_from_slice(&self.chunk_count.to_be_bytes());
        b[65..69].copy_from_slice(&self.tick_rate_millihz.to_be_bytes());
        b[69..73].copy_from_slice(&self.game_data_version.to_be_bytes());
        b[73..75].copy_from_slice(&self.data_version.to_be_bytes());
        b[75] = self.layout as u8;
        b[76..80].copy_from_slice(&self.first_tick.to_be_bytes());
        b[80..88].copy_from_slice(&self.data_end.to_be_bytes());
        b[88..96].copy_from_slice(&self.body_checksum.to_be_bytes());
        b[96..112].copy_from_slice(&self.recording_id);
        b[112..120].copy_from_slice(&self.stats.ticks_written.to_be_bytes());
        b[120..128].copy_from_slice(&self.stats.events.to_be_bytes());
        b[128..136].copy_from_slice(&self.stats.pose_samples.to_be_bytes());
        b[136..144].copy_from_slice(&self.stats.dropped_ticks.to_be_bytes());
        let sum = xxh64(&b[..248], 0);
        b[248..256].copy_from_slice(&sum.to_be_bytes());
        b
    }

    /// Parses and checks magic, version and checksum.
    pub fn decode(b: &[u8]) -> Result<Header> {
        if b.len() < HEADER_LEN {
            return Err(Error::truncated(format!(
                "header needs {HEADER_LEN} bytes, have {}",
                b.len()
            )));
        }
        if b[0..4] != MAGIC {
            return Err(Error::corrupt("not a tickreel file (bad magic)"));
        }
        let be32 = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().expect("4"));
        let be64 = |o: usize| u64::from_be_bytes(b[o..o + 8].try_into().expect("8"));
        let stored = be64(248);
        if stored != xxh64(&b[..248], 0) {
            return Err(Error::corrupt("header checksum mismatch"));
        }
        let version = b[4];
        if version != FORMAT_VERSION {
            return Err(Error::Unsupported(format!(
                "format version {version}; this build reads version {FORMAT_VERSION}"
            )));
        }
        let layout = match b[75] {
            0 => Layout::Compacted,
            1 => Layout::Segmented,
            x => return Err(Error::corrupt(format!("unknown layout {x}"))),
        };
        Ok(Header {
            version,
            flags: u16::from_be_bytes([b[5], b[6]]),
            world_id: b[7..23].try_into().expect("16"),
            world_version: b[23..39].try_into().expect("16"),
            timestamp_ms: be64(39) as i64,
            dictionary_id: u16::from_be_bytes([b[47], b[48]]),
            metadata_len: be32(49),
            index_len: be32(53),
            tick_count: be32(57),
            chunk_count: be32(61),
            tick_rate_millihz: be32(65),
            game_data_version: be32(69),
            data_version: u16::from_be_bytes([b[73], b[74]]),
            layout,
            first_tick: be32(76),
            data_end: be64(80),
            body_checksum: be64(88),
            recording_id: b[96..112].try_into().expect("16"),
            stats: HeaderStats {
                ticks_written: be64(112),
                events: be64(120),
                pose_samples: be64(128),
                dropped_ticks: be64(136),
            },
        })
    }

    /// The recording id as a UUID, `None` if it is all zero (no id).
    pub fn recording_uuid(&self) -> Option<uuid::Uuid> {
        let id = uuid::Uuid::from_bytes(self.recording_id);
        (!id.is_nil()).then_some(id)
    }

    /// A fresh random recording id (UUID v4).
    pub(crate) fn new_recording_id() -> [u8; 16] {
        *uuid::Uuid::new_v4().as_bytes()
    }

    /// Tick rate in ticks per second.
    pub fn tick_rate(&self) -> f64 {
        f64::from(self.tick_rate_millihz) / 1000.0
    }

    /// Byte offset where the index starts.
    pub(crate) fn index_offset(&self) -> u64 {
        HEADER_LEN as u64 + u64::from(self.metadata_len)
    }

    /// Byte offset where chunk data starts (end of the index).
    pub fn body_end(&self) -> u64 {
        self.index_offset() + u64::from(self.index_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_offsets_and_round_trip() {
        let h = Header {
            world_id: [0xAA; 16],
            world_version: [0xBB; 16],
            timestamp_ms: 0x0102030405060708,
            dictionary_id: 0x0C0D,
            metadata_len: 0x11121314,
            index_len: 0x21222324,
            tick_count: 0x31323334,
            chunk_count: 0x41424344,
            recording_id: [0xCC; 16],
            stats: HeaderStats {
                ticks_written: 0x5152,
                events: 0x6162,
                pose_samples: 0x7172,
                dropped_ticks: 0x8182,
            },
            ..Header::default()
        };
        let b = h.encode();
        assert_eq!(&b[0..4], b"TKRL");
        assert_eq!(b[4], 1);
        assert_eq!(&b[7..23], &[0xAA; 16]);
        assert_eq!(&b[23..39], &[0xBB; 16]);
        assert_eq!(&b[39..47], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&b[47..49], &[0x0C, 0x0D]);
        assert_eq!(&b[49..53], &[0x11, 0x12, 0x13, 0x14]);
        assert_eq!(&b[53..57], &[0x21, 0x22, 0x23, 0x24]);
        assert_eq!(&b[57..61], &[0x31, 0x32, 0x33, 0x34]);
        assert_eq!(&b[61..65], &[0x41, 0x42, 0x43, 0x44]);
        assert_eq!(&b[96..112], &[0xCC; 16]);
        assert_eq!(&b[112..120], &[0, 0, 0, 0, 0, 0, 0x51, 0x52]);
        assert_eq!(&b[120..128], &[0, 0, 0, 0, 0, 0, 0x61, 0x62]);
        assert_eq!(&b[128..136], &[0, 0, 0, 0, 0, 0, 0x71, 0x72]);
        assert_eq!(&b[136..144], &[0, 0, 0, 0, 0, 0, 0x81, 0x82]);
        assert!(b[144..248].iter().all(|&x| x == 0), "reserved");
        assert_eq!(Header::decode(&b).unwrap(), h);
        assert_eq!(
            Header::decode(&b).unwrap().recording_uuid(),
            Some(uuid::Uuid::from_bytes([0xCC; 16]))
        );
        assert_eq!(Header::default().recording_uuid(), None);
        let mut bad = b;
        bad[100] ^= 1;
        assert!(matches!(Header::decode(&bad), Err(Error::Corrupt(_))));
    }
}
