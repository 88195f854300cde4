//! Recovery reads a segment in bounded pieces (issue 31): a segment that claims 16 GiB (a valid
//! preamble and frames, then a sparse run of zeros) recovers to its frames, reading about one
//! frame's reach past them, and never holds the segment in memory. Alone in its process (`alone`),
//! so that the process's peak memory (VmHWM) is this test's.

use crate::alone;
use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tickreel::format::Limits;
use tickreel::play::Reader;
use tickreel::record::{recover, recover_live_with};
use tickreel::storage::live::{
    LiveDir, list_segments, live_dir_for, scan_segment_in, segment_name,
};
use tickreel::storage::{LocalStorage, Source};
use tickreel::{Engine, EngineOptions};

use crate::common::batch;

/// A source that counts the bytes read through it.
#[derive(Debug)]
struct Counting {
    inner: Arc<dyn Source>,
    read: AtomicU64,
}

impl Source for Counting {
    fn len(&self) -> tickreel::Result<u64> {
        self.inner.len()
    }
    fn read_up_to(&self, offset: u64, len: usize) -> tickreel::Result<Vec<u8>> {
        let b = self.inner.read_up_to(offset, len)?;
        self.read.fetch_add(b.len() as u64, Ordering::Relaxed);
        Ok(b)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// The process's peak resident memory, in bytes.
fn vm_hwm() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

const ZEROS: u64 = 16 << 30;

#[test]
fn a_segment_of_16_gib_of_zeros_after_its_frames_recovers_in_bounded_memory_and_reads() {
    if !alone::in_own_process(
        module_path!(),
        "a_segment_of_16_gib_of_zeros_after_its_frames_recovers_in_bounded_memory_and_reads",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zeros.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    let ticks = common::sim_ticks(3, 300, 31);
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    drop(rec);
    engine.shutdown();

    let live = live_dir_for(&path);
    let before = Reader::open_live(&live).unwrap();
    let n = before.index().len();
    assert!(n >= 4, "{n} chunks");
    let seg = list_segments(&live).unwrap().into_iter().max().unwrap();
    let seg_path = live.join(segment_name(seg));
    let real = std::fs::metadata(&seg_path).unwrap().len();
    let in_seg = before.index().iter().filter(|e| e.segment() == seg).count();
    // Sparse: no disk is used for the zeros.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&seg_path)
        .unwrap();
    f.set_len(real + ZEROS).unwrap();
    drop(f);

    // The scan reads the frames and one frame's reach (36 bytes + the largest payload) past
    // them, in pieces of 1 MiB: not the 16 GiB.
    let max_payload = Limits::default().max_chunk_bytes as u64;
    let counting = Counting {
        inner: LocalStorage::shared().open(&seg_path).unwrap(),
        read: AtomicU64::new(0),
    };
    let scan = scan_segment_in(&counting, max_payload as usize).unwrap();
    assert_eq!(scan.frames.len(), in_seg);
    assert_eq!(scan.valid_end, real);
    assert_eq!(scan.file_len, real + ZEROS);
    let read = counting.read.load(Ordering::Relaxed);
    assert!(
        read <= real + 36 + max_payload + (2 << 20),
        "read {read} bytes of a segment of {real} bytes + 16 GiB of zeros"
    );

    // Recovery keeps every frame, cuts the zeros, and its peak memory stays far below the
    // segment's length.
    let hwm = vm_hwm();
    let report = recover(&live).unwrap();
    let grown = vm_hwm().saturating_sub(hwm);
    assert!(
        grown < 256 << 20,
        "recovery raised the peak memory by {grown} bytes"
    );
    assert_eq!(report.bytes_truncated, ZEROS);
    assert_eq!(report.chunks_kept, n);
    assert_eq!(report.bytes_skipped, 0);
    assert_eq!(std::fs::metadata(&seg_path).unwrap().len(), real);
    let after = Reader::open_live(&live).unwrap();
    after.verify().unwrap();
    assert_eq!(after.index(), before.index());
    assert_eq!(after.last_tick(), before.last_tick());
}

/// Recovery for a reader with smaller limits (`recover_live_with`, what the `live_dir` fuzz target
/// runs) leaves out the frames too large for them, as such a reader refuses them; recovery with
/// the default limits keeps them again (they are still in the segments).
#[test]
fn recovery_for_smaller_limits_leaves_out_the_frames_too_large_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("limits.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    for (t, e) in &common::sim_ticks(3, 300, 31) {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    drop(rec);
    engine.shutdown();

    let live = live_dir_for(&path);
    let index = Reader::open_live(&live).unwrap().index().to_vec();
    let largest = index.iter().map(|e| e.compressed_len).max().unwrap() as usize;
    let limits = Limits {
        max_chunk_bytes: largest - 1,
        ..Limits::default()
    };
    let too_large = index
        .iter()
        .filter(|e| {
            e.compressed_len as usize > limits.max_chunk_bytes
                || e.uncompressed_len as usize > limits.max_chunk_bytes
        })
        .count();
    assert!(too_large >= 1);
    let report = recover_live_with(&LiveDir::local(&live), &limits, &mut |_, _| {}).unwrap();
    assert_eq!(report.chunks_oversized, too_large, "{report}");
    assert_eq!(report.chunks_kept, index.len() - too_large, "{report}");
    let report = recover(&live).unwrap();
    assert_eq!(report.chunks_oversized, 0, "{report}");
    assert_eq!(report.chunks_kept, index.len(), "{report}");
}
