//! Issue-18 figures: a recording in object storage, on a real S3-protocol server on loopback
//! (`moto_server`, signatures checked; see `tickreel_object::testing`): time and requests to open,
//! seek latency and requests per seek (random ticks, default options), the same seeks on the same
//! file read locally in the same run, and upload throughput (a multipart upload).
//!
//! The recording: 40 simulated players at 20 ticks/s for 6000 ticks (5 minutes), compacted
//! defaults. Loopback has no network latency: on a real store every request adds its round trip,
//! which is why the request counts are the figures that carry over.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tickreel::play::Reader;
use tickreel::record::ReelOptions;
use tickreel_object::testing::{BUCKET, S3Server};
use tickreel_object::{ObjectOptions, ObjectSource, ObjectStorage, UploadOptions};

use super::shared::{percentile, simulated_reel};
use super::{Figures, put};

fn write_recording(path: &Path, ticks: u32) {
    simulated_reel(path, 40, 18, ticks, ReelOptions::compacted()).expect("write bench file");
}

/// Times `seek` on every tick of `ticks`, in milliseconds.
fn seek_times(reader: &Reader, ticks: &[u32]) -> Vec<f64> {
    ticks
        .iter()
        .map(|&t| {
            let start = Instant::now();
            std::hint::black_box(reader.seek(t).expect("seek"));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

pub fn run(quick: bool, out: &mut Figures) {
    let server = S3Server::start();
    let dir = tempfile::tempdir().expect("bench dir");
    let local = dir.path().join("run.reel");
    write_recording(&local, if quick { 2400 } else { 6000 });
    let storage = ObjectStorage::new(BUCKET, server.options()).expect("client");
    storage
        .upload(&local, "run.reel", UploadOptions::default())
        .expect("upload bench file");
    let size = std::fs::metadata(&local).expect("bench file").len();
    out.insert("s3_file_bytes".into(), size.into());

    // open: a fresh source each time (nothing cached)
    let opens = if quick { 10 } else { 40 };
    let before = storage.requests();
    let mut open_ms: Vec<f64> = (0..opens)
        .map(|_| {
            let start = Instant::now();
            let source = Arc::new(ObjectSource::new(&storage, "run.reel").expect("source"));
            std::hint::black_box(Reader::open(source).expect("open"));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let per_open = (storage.requests() - before) as f64 / opens as f64;
    put(out, "s3_open_ms", percentile(&mut open_ms, 0.5));
    put(out, "s3_requests_per_open", per_open);

    // seeks to random ticks, after open, default options (readahead 512 KiB, 8 ranges kept)
    let remote = Reader::open(Arc::new(
        ObjectSource::new(&storage, "run.reel").expect("source"),
    ))
    .expect("open");
    let local_reader = Reader::open_path(&local).expect("open local");
    let (first, last) = (remote.first_tick().unwrap(), remote.last_tick().unwrap());
    let mut rng = fastrand::Rng::with_seed(18);
    let ticks: Vec<u32> = (0..if quick { 200 } else { 1000 })
        .map(|_| rng.u32(first..=last))
        .collect();
    let before = storage.requests();
    let mut s3 = seek_times(&remote, &ticks);
    let per_seek = (storage.requests() - before) as f64 / ticks.len() as f64;
    let mut local_ms = seek_times(&local_reader, &ticks);
    let (s3_median, local_median) = (percentile(&mut s3, 0.5), percentile(&mut local_ms, 0.5));
    put(out, "s3_seek_median_ms", s3_median);
    put(out, "s3_seek_p99_ms", percentile(&mut s3, 0.99));
    put(out, "s3_requests_per_seek", per_seek);
    put(out, "local_seek_median_ms", local_median);
    put(out, "s3_seek_vs_local_ratio", s3_median / local_median);

    // the worst case: no readahead, no cache beyond one range: every seek outside the cached
    // range is one request
    let cold = ObjectStorage::new(
        BUCKET,
        ObjectOptions {
            readahead: 0,
            cached_ranges: 1,
            ..server.options()
        },
    )
    .expect("client");
    let cold_reader = Reader::open(Arc::new(
        ObjectSource::new(&cold, "run.reel").expect("source"),
    ))
    .expect("open");
    let before = cold.requests();
    let mut cold_ms = seek_times(&cold_reader, &ticks);
    put(
        out,
        "s3_requests_per_seek_no_readahead",
        (cold.requests() - before) as f64 / ticks.len() as f64,
    );
    put(
        out,
        "s3_seek_p99_ms_no_readahead",
        percentile(&mut cold_ms, 0.99),
    );

    // upload: a multipart upload of random bytes (8 MiB parts)
    let mb = if quick { 24 } else { 64 };
    let big = dir.path().join("big.bin");
    let mut rng = fastrand::Rng::with_seed(7);
    let bytes: Vec<u8> = (0..mb << 20).map(|_| rng.u8(..)).collect();
    std::fs::write(&big, &bytes).expect("big file");
    let start = Instant::now();
    let report = storage
        .upload(&big, "big.bin", UploadOptions::default())
        .expect("multipart upload");
    let secs = start.elapsed().as_secs_f64();
    put(out, "s3_upload_mb_per_s", mb as f64 / secs);
    out.insert("s3_upload_parts".into(), report.parts.into());
}
