//! The preamble at the start of every segment file of a live recording: it names the recording
//! that created the segment, so that recovery, compaction and readers refuse a segment another
//! writer put into the directory (FORMAT.md, section 2). Frames follow it; their offsets stay byte
//! offsets within the segment file.
//!
//! ```text
//! 0..4   magic "TKSG"
//! 4      preamble version (1)
//! 5..8   reserved, written 0 (covered by the checksum, ignored on read)
//! 8..24  recording id (the header's, bytes 96..112 of meta.tkrl)
//! 24..32 XXH64 (seed 0) of bytes 0..24, u64 BE
//! ```
//!
//! Segments written by earlier builds have no preamble: their first frame starts at offset 0.

use xxhash_rust::xxh64::xxh64;

pub(crate) const SEGMENT_MAGIC: [u8; 4] = *b"TKSG";
pub(crate) const PREAMBLE_VERSION: u8 = 1;
pub const PREAMBLE_LEN: usize = 32;

/// The preamble of a segment created by the recording `recording_id`.
pub fn encode_preamble(recording_id: &[u8; 16]) -> [u8; PREAMBLE_LEN] {
    let mut b = [0u8; PREAMBLE_LEN];
    b[0..4].copy_from_slice(&SEGMENT_MAGIC);
    b[4] = PREAMBLE_VERSION;
    b[8..24].copy_from_slice(recording_id);
    let sum = xxh64(&b[..24], 0);
    b[24..32].copy_from_slice(&sum.to_be_bytes());
    b
}

/// What a segment file starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentStart {
    /// A valid preamble naming the recording that created the segment; frames follow it.
    Preamble([u8; 16]),
    /// No preamble (a segment of an earlier build): frames start at offset 0.
    Legacy,
    /// Fewer bytes than a preamble, all of them the beginning of one (or none at all): a segment
    /// whose creation was cut short (a crash before its first sync). It holds no frame.
    Unfinished,
    /// A preamble's magic, but a bad checksum or a version this build does not know: whose
    /// segment it is cannot be told.
    Unreadable(&'static str),
}

impl SegmentStart {
    /// Classifies a segment by its first bytes (at least `PREAMBLE_LEN` (32) of them if the file has
    /// that many).
    pub fn read(b: &[u8]) -> SegmentStart {
        let n = b.len().min(4);
        if b[..n] != SEGMENT_MAGIC[..n] {
            return SegmentStart::Legacy;
        }
        if b.len() < PREAMBLE_LEN {
            // A torn preamble: what is there must be what a writer writes before the id.
            let fixed = [PREAMBLE_VERSION, 0, 0, 0];
            let m = b.len().clamp(4, 8);
            return if b.len() <= 4 || b[4..m] == fixed[..m - 4] {
                SegmentStart::Unfinished
            } else {
                SegmentStart::Unreadable("its preamble is cut short and damaged")
            };
        }
        let stored = u64::from_be_bytes(b[24..32].try_into().expect("8"));
        if stored != xxh64(&b[..24], 0) {
            return SegmentStart::Unreadable("its preamble fails its checksum");
        }
        if b[4] != PREAMBLE_VERSION {
            return SegmentStart::Unreadable("its preamble has a version this build does not know");
        }
        SegmentStart::Preamble(b[8..24].try_into().expect("16"))
    }

    /// Where the segment's first frame may start.
    pub fn frames_offset(&self) -> usize {
        match self {
            SegmentStart::Preamble(_) => PREAMBLE_LEN,
            _ => 0,
        }
    }

    /// Whether the segment may hold frames of the recording `recording_id` (from its metadata
    /// file): one with its id in the preamble, one without a preamble only if the id is zero (a
    /// legacy recording), an unfinished one always (it holds nothing). Otherwise the reason, to
    /// name in an error or report.
    pub fn check(&self, recording_id: &[u8; 16]) -> Result<(), String> {
        let id = |b: &[u8; 16]| uuid::Uuid::from_bytes(*b).hyphenated().to_string();
        match self {
            SegmentStart::Preamble(p) if p == recording_id => Ok(()),
            SegmentStart::Preamble(p) => Err(format!(
                "it belongs to recording {}, not to this recording ({})",
                id(p),
                id(recording_id)
            )),
            SegmentStart::Legacy if *recording_id == [0; 16] => Ok(()),
            SegmentStart::Legacy => Err(format!(
                "it has no segment preamble, and this recording ({}) writes one in every segment",
                id(recording_id)
            )),
            SegmentStart::Unfinished => Ok(()),
            SegmentStart::Unreadable(why) => Err((*why).to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preambles_round_trip_and_are_told_apart_from_legacy_and_torn_segments() {
        let id = [0x5A; 16];
        let p = encode_preamble(&id);
        assert_eq!(&p[0..8], b"TKSG\x01\0\0\0");
        assert_eq!(SegmentStart::read(&p), SegmentStart::Preamble(id));
        // Frames after it do not matter.
        let mut with_frames = p.to_vec();
        with_frames.extend_from_slice(b"TKCF....");
        assert_eq!(SegmentStart::read(&with_frames), SegmentStart::Preamble(id));
        assert_eq!(SegmentStart::read(&with_frames).frames_offset(), 32);
        // Every cut short of the whole preamble: unfinished, never a legacy segment.
        // Through a Vec and `black_box`: the same loops over the array `p` crash LLVM's loop
        // unrolling in rustc 1.95 (SIGSEGV while compiling the tests at opt-level 1).
        let whole = std::hint::black_box(p.to_vec());
        for cut in 0..whole.len() {
            assert_eq!(
                SegmentStart::read(&whole[..cut]),
                SegmentStart::Unfinished,
                "{cut}"
            );
        }
        // Every flipped bit: unreadable (or, in the magic, a legacy segment whose frames will
        // not be found either).
        for i in 0..whole.len() * 8 {
            let mut bad = whole.clone();
            bad[i / 8] ^= 1 << (i % 8);
            let s = SegmentStart::read(&bad);
            assert!(
                matches!(s, SegmentStart::Unreadable(_) | SegmentStart::Legacy),
                "bit {i}: {s:?}"
            );
            if i >= 32 {
                assert!(matches!(s, SegmentStart::Unreadable(_)), "bit {i}: {s:?}");
            }
        }
        // A legacy segment starts with a frame.
        assert_eq!(SegmentStart::read(b"TKCF\x01..."), SegmentStart::Legacy);
        assert_eq!(SegmentStart::read(b"TKCF\x01...").frames_offset(), 0);
        assert_eq!(
            SegmentStart::read(b"TKSG\x02"),
            SegmentStart::Unreadable("its preamble is cut short and damaged")
        );
    }

    #[test]
    fn the_rule_accepts_own_segments_and_legacy_ones_only_for_a_legacy_recording() {
        let (a, b, zero) = ([1; 16], [2; 16], [0; 16]);
        let seg = |id: &[u8; 16]| SegmentStart::read(&encode_preamble(id));
        assert!(seg(&a).check(&a).is_ok());
        let e = seg(&a).check(&b).unwrap_err();
        assert!(e.contains("01010101-0101-0101-0101-010101010101"), "{e}");
        assert!(SegmentStart::Legacy.check(&zero).is_ok());
        assert!(SegmentStart::Legacy.check(&a).is_err());
        // A legacy recording resumed by this build writes preambles with the zero id.
        assert!(seg(&zero).check(&zero).is_ok());
        assert!(seg(&a).check(&zero).is_err());
        assert!(SegmentStart::Unfinished.check(&a).is_ok());
        assert!(SegmentStart::Unreadable("x").check(&zero).is_err());
    }
}
