//! Reading and writing recordings on a real S3-protocol server on loopback (`moto_server`, with
//! signatures checked): open and seek with request counts against a local straight decode, ghost
//! loading from a URL, uploads, listings, a missing object, a server stopped mid-read, wrong
//! credentials, and no credential in any error message.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::storage::Source;
use tickreel::{Error, Event};
use tickreel_object::testing::{BUCKET, S3Server};
use tickreel_object::{
    Credentials, ObjectOptions, ObjectSource, ObjectStorage, UploadOptions, load_ghost_async,
    open_url,
};
use tickreel_sim::{SimConfig, Simulator};

/// A recording of `players` simulated players over `ticks` ticks, 20 ticks a chunk.
fn write_recording(path: &Path, players: u32, ticks: u32, user_bytes: usize) -> u64 {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed: 7,
        teleport_chance: 0.002,
        churn_chance: 0.002,
        custom_event_chance: 0.05,
    });
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 20,
                zstd_level: 1,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    if user_bytes > 0 {
        let noise: Vec<i8> = (0..user_bytes).map(|i| (i * 7919 % 251) as i8).collect();
        w.set_user_metadata(
            "blob",
            fastnbt::Value::ByteArray(fastnbt::ByteArray::new(noise)),
        )
        .unwrap();
    }
    for _ in 0..ticks {
        let (t, events): (u32, Vec<Event>) = sim.step();
        w.write_tick(t, &events).unwrap();
    }
    w.finish().unwrap()
}

/// `err`'s message holds no part of the server's credentials.
fn assert_no_credentials(err: &Error, creds: &Credentials) {
    let text = format!("{err} {err:?}");
    assert!(!text.contains(&creds.access_key_id), "key id in: {text}");
    assert!(
        !text.contains(&creds.secret_access_key),
        "secret in: {text}"
    );
}

fn upload(server: &S3Server, local: &Path, key: &str) {
    server
        .storage()
        .upload(local, key, UploadOptions::default())
        .unwrap();
}

#[test]
fn open_and_seek_every_tick_match_a_local_straight_decode_within_two_requests_a_seek() {
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    let size = write_recording(&local, 40, 2400, 0);
    assert!(
        size > 512 << 10,
        "the file is larger than what the first read gets ({size})"
    );
    upload(&server, &local, "runs/run.reel");
    let local_reader = Reader::open_path(&local).unwrap();

    // readahead 0: every chunk outside the first read costs its own request
    let storage = ObjectStorage::new(
        BUCKET,
        ObjectOptions {
            readahead: 0,
            cached_ranges: 1,
            ..server.options()
        },
    )
    .unwrap();
    let source = Arc::new(ObjectSource::new(&storage, "runs/run.reel").unwrap());
    let before = storage.requests();
    let reader = Reader::open(source.clone()).unwrap();
    assert_eq!(storage.requests() - before, 1, "open is one request");
    assert_eq!(
        source.len().unwrap(),
        size,
        "the size came with the first read"
    );
    assert_eq!(storage.requests() - before, 1);
    assert_eq!(reader.index(), local_reader.index());

    let (first, last) = (reader.first_tick().unwrap(), reader.last_tick().unwrap());
    let mut ticks: Vec<u32> = (first..=last).collect();
    fastrand::Rng::with_seed(3).shuffle(&mut ticks);
    let mut most = 0;
    for &t in &ticks {
        let before = storage.requests();
        let got = reader.seek(t).unwrap();
        most = most.max(storage.requests() - before);
        assert_eq!(got, local_reader.seek(t).unwrap(), "tick {t}");
    }
    assert!(most <= 2, "a seek cost {most} requests");
    assert_eq!(
        most, 1,
        "one request per chunk: the target chunk carries its keyframe"
    );

    // the same file read straight through with the default readahead: neighbours come along
    let storage = server.storage();
    let reader = Reader::open(Arc::new(
        ObjectSource::new(&storage, "runs/run.reel").unwrap(),
    ))
    .unwrap();
    let report = reader.verify().unwrap();
    assert_eq!(report, local_reader.verify().unwrap());
    let chunks = reader.index().len() as u64;
    let straight = storage.requests();
    assert!(
        straight * 4 < chunks,
        "{straight} requests for {chunks} chunks: prefetch is coalesced"
    );
    let local_ticks: Vec<_> = local_reader
        .ticks(0, u32::MAX)
        .map(|t| t.unwrap())
        .collect();
    let remote_ticks: Vec<_> = reader.ticks(0, u32::MAX).map(|t| t.unwrap()).collect();
    assert_eq!(remote_ticks, local_ticks);
}

#[test]
fn a_prefix_longer_than_the_first_read_costs_one_more_request() {
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("big-meta.reel");
    write_recording(&local, 2, 200, 400 << 10);
    upload(&server, &local, "big-meta.reel");
    let storage = ObjectStorage::new(
        BUCKET,
        ObjectOptions {
            readahead: 0,
            ..server.options()
        },
    )
    .unwrap();
    let reader = Reader::open(Arc::new(
        ObjectSource::new(&storage, "big-meta.reel").unwrap(),
    ))
    .unwrap();
    let local_reader = Reader::open_path(&local).unwrap();
    assert!(reader.header().body_end() > 256 << 10);
    assert_eq!(
        storage.requests(),
        2,
        "the first 256 KiB, then the rest of the prefix"
    );
    assert_eq!(reader.metadata(), local_reader.metadata());
    assert_eq!(reader.verify().unwrap(), local_reader.verify().unwrap());
}

#[test]
fn a_ghost_loads_from_a_url_in_the_background() {
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("best.reel");
    write_recording(&local, 3, 1200, 0);
    upload(&server, &local, "ghosts/best.reel");
    let expected = GhostTrack::load_path(&local, 1, GhostRange::all()).unwrap();
    let mut load = load_ghost_async(
        &server.url("ghosts/best.reel"),
        &server.options(),
        1,
        GhostRange::all(),
    )
    .unwrap();
    let start = Instant::now();
    while !load.is_ready() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "ghost load hangs"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(load.try_take().unwrap().unwrap(), expected);

    // a missing object: the load fails, on its thread, naming the URL
    let mut missing = load_ghost_async(
        &server.url("ghosts/none.reel"),
        &server.options(),
        1,
        GhostRange::all(),
    )
    .unwrap();
    while !missing.is_ready() {
        std::thread::sleep(Duration::from_millis(5));
    }
    let e = missing.try_take().unwrap().unwrap_err();
    assert!(
        e.to_string()
            .contains("s3://tickreel-test/ghosts/none.reel"),
        "{e}"
    );
    assert_no_credentials(&e, server.credentials());
}

#[test]
fn uploads_refuse_to_overwrite_unless_asked_and_remove_the_local_copy_only_after_success() {
    let server = S3Server::start_lenient();
    let storage = server.storage();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.reel");
    let b = dir.path().join("b.reel");
    let size_a = write_recording(&a, 2, 300, 0);
    let size_b = write_recording(&b, 4, 300, 0);
    assert_ne!(size_a, size_b);

    let r = storage
        .upload(&a, "u/run.reel", UploadOptions::default())
        .unwrap();
    assert_eq!((r.bytes, r.parts, r.removed_local), (size_a, 0, false));
    assert!(a.exists());
    assert_eq!(storage.head("u/run.reel").unwrap().unwrap().size, size_a);

    let e = storage
        .upload(
            &b,
            "u/run.reel",
            UploadOptions {
                overwrite: false,
                remove_local: true,
            },
        )
        .unwrap_err();
    assert!(
        matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists),
        "{e}"
    );
    assert!(e.to_string().contains("the local file is kept"), "{e}");
    assert!(b.exists(), "a refused upload keeps the local file");
    assert_eq!(storage.head("u/run.reel").unwrap().unwrap().size, size_a);
    assert_no_credentials(&e, server.credentials());

    let r = storage
        .upload(
            &b,
            "u/run.reel",
            UploadOptions {
                overwrite: true,
                remove_local: true,
            },
        )
        .unwrap();
    assert!(r.removed_local && !b.exists());
    assert_eq!(storage.head("u/run.reel").unwrap().unwrap().size, size_b);

    // a file that is not there: an error, nothing uploaded
    let e = storage
        .upload(
            &dir.path().join("none.reel"),
            "u/none.reel",
            UploadOptions::default(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("none.reel"), "{e}");
    assert!(storage.head("u/none.reel").unwrap().is_none());

    let listed = storage.list("u").unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].url.to_string(), "s3://tickreel-test/u/run.reel");
    assert_eq!(listed[0].size, size_b);
}

#[test]
fn large_files_go_up_in_parts_and_read_back_byte_for_byte() {
    let server = S3Server::start();
    let storage = ObjectStorage::new(
        BUCKET,
        ObjectOptions {
            multipart_threshold: 5 << 20,
            part_size: 5 << 20,
            ..server.options()
        },
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("large.bin");
    let mut rng = fastrand::Rng::with_seed(11);
    let bytes: Vec<u8> = (0..(11 << 20) + 12_345).map(|_| rng.u8(..)).collect();
    std::fs::write(&local, &bytes).unwrap();
    let before = storage.requests();
    let r = storage
        .upload(&local, "large.bin", UploadOptions::default())
        .unwrap();
    assert_eq!(r.parts, 3);
    assert_eq!(r.bytes, bytes.len() as u64);
    // create, 3 parts, complete, and the head that checks the size (plus one that looks first)
    assert_eq!(storage.requests() - before, 1 + 1 + 3 + 1 + 1);
    let source = ObjectSource::new(&storage, "large.bin").unwrap();
    assert_eq!(source.len().unwrap(), bytes.len() as u64);
    let at = (6 << 20) - 3;
    assert_eq!(
        source.read_exact_at(at, 100_000).unwrap(),
        &bytes[at as usize..][..100_000]
    );

    let e = storage
        .upload(&local, "large.bin", UploadOptions::default())
        .unwrap_err();
    assert!(
        matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists),
        "{e}"
    );
    assert!(local.exists());
}

#[test]
fn a_missing_object_is_not_found_naming_its_url() {
    let server = S3Server::start();
    let e = open_url(&server.url("no/such.reel"), &server.options()).unwrap_err();
    assert!(
        matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound),
        "{e}"
    );
    assert!(
        e.to_string().contains("s3://tickreel-test/no/such.reel"),
        "{e}"
    );
    assert_no_credentials(&e, server.credentials());
    assert!(server.storage().head("no/such.reel").unwrap().is_none());
}

#[test]
fn a_server_stopped_mid_read_gives_a_clear_error_not_a_hang() {
    let mut server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    write_recording(&local, 40, 2400, 0);
    upload(&server, &local, "run.reel");
    let options = ObjectOptions {
        readahead: 0,
        ..server.options()
    };
    let reader = open_url(&server.url("run.reel"), &options).unwrap();
    let last = reader.last_tick().unwrap();
    reader.seek(0).unwrap();
    server.stop();
    let start = Instant::now();
    let e = reader.seek(last).unwrap_err();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert!(e.to_string().contains("s3://tickreel-test/run.reel"), "{e}");
    assert_no_credentials(&e, server.credentials());
}

#[test]
fn wrong_credentials_are_refused_and_never_printed() {
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    write_recording(&local, 2, 100, 0);
    upload(&server, &local, "run.reel");
    let right = server.credentials().clone();
    let wrong_secret = Credentials::new(right.access_key_id.clone(), "not-the-secret-at-all-0123");
    let unknown_key = Credentials::new("AKIAUNKNOWNKEY000000", right.secret_access_key.clone());
    for creds in [wrong_secret, unknown_key] {
        let options = ObjectOptions {
            credentials: Some(creds.clone()),
            ..server.options()
        };
        let e = open_url(&server.url("run.reel"), &options).unwrap_err();
        assert!(
            matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied),
            "{e}"
        );
        assert_no_credentials(&e, &creds);
        assert_no_credentials(&e, &right);
        let storage = ObjectStorage::new(BUCKET, options).unwrap();
        let e = storage
            .upload(&local, "other.reel", UploadOptions::default())
            .unwrap_err();
        assert_no_credentials(&e, &creds);
        assert!(local.exists());
        let e = storage.list("").unwrap_err();
        assert_no_credentials(&e, &creds);
    }
}

#[test]
fn threads_reading_the_same_chunks_at_once_share_one_request() {
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    let size = write_recording(&local, 40, 4000, 0);
    assert!(size > 900 << 10, "{size}");
    upload(&server, &local, "run.reel");
    let local_reader = Arc::new(Reader::open_path(&local).unwrap());
    for round in 0..5u64 {
        let storage = server.storage();
        let reader = Arc::new(
            Reader::open(Arc::new(ObjectSource::new(&storage, "run.reel").unwrap())).unwrap(),
        );
        // a chunk past the first read, and the two after it: what a playhead and its prefetch
        // threads ask for at once
        let at = (600 << 10) + round * (50 << 10);
        let first = reader.index().iter().position(|e| e.offset >= at).unwrap();
        let before = storage.requests();
        let threads: Vec<_> = (0..6)
            .map(|i| {
                let (reader, local_reader) = (reader.clone(), local_reader.clone());
                std::thread::spawn(move || {
                    // all start with the chunk the playhead needs, then its neighbours in either
                    // order (a read of a later chunk that starts first is its own request)
                    let order = if i % 2 == 0 { [0, 1, 2] } else { [0, 2, 1] };
                    for chunk in order.map(|k| first + k) {
                        let got = reader.read_chunk(chunk).unwrap();
                        assert_eq!(got, local_reader.read_chunk(chunk).unwrap());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(
            storage.requests() - before,
            1,
            "6 readers of 3 neighbouring chunks at once: one request"
        );
    }
}

#[test]
fn playback_through_a_playhead_costs_about_one_request_per_readahead() {
    use tickreel::play::{PlaybackContext, Playhead, Recording};
    let server = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    let size = write_recording(&local, 40, 4000, 0);
    upload(&server, &local, "run.reel");
    let storage = server.storage();
    let reader = Reader::open(Arc::new(ObjectSource::new(&storage, "run.reel").unwrap())).unwrap();
    let local_reader = Reader::open_path(&local).unwrap();
    let ctx = PlaybackContext::new(64 << 20, 2, 16);
    let rec = Recording::from_reader(reader, &ctx);
    let mut ph = Playhead::new_at(rec, 0).unwrap();
    ph.set_speed(4.0).unwrap();
    ph.play();
    let last = local_reader.last_tick().unwrap();
    let start = Instant::now();
    while ph.position() < last {
        assert!(start.elapsed() < Duration::from_secs(60), "playback stalls");
        ph.prepare();
        ph.advance();
        let t = ph.position();
        if t.is_multiple_of(97) {
            let want = local_reader.seek(t).unwrap().entities;
            assert_eq!(ph.entities().len(), want.len(), "tick {t}");
        }
    }
    let readahead = storage.options().readahead as u64;
    let windows = size.div_ceil(readahead);
    let requests = storage.requests();
    eprintln!("{requests} requests for {size} bytes ({windows} windows of readahead)");
    assert!(
        requests <= 2 * windows + 2,
        "{requests} requests for {} chunks, {windows} readahead windows",
        local_reader.index().len()
    );
}
