//! Flushes that fail (an unwritable disk), a panicking provider, calls racing a shutdown.

use super::*;

#[test]
fn failing_flushes_keep_memory_bounded_record_a_gap_and_recover() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("disk.reel");
    // The live directory cannot be created: a file is in its place.
    let live = live_dir_for(&path);
    std::fs::write(&live, b"in the way").unwrap();
    let flush = FlushPolicy {
        max_pending_bytes: 16 << 10,
        interval: Duration::from_millis(20),
        on_player_leave: true,
    };
    let rec = engine.start_recording(&path, options(flush)).unwrap();
    // About 5 bytes per player-tick compressed: 100 players x 3000 ticks is ~1.5 MB, more than
    // the 1 MiB a recording may hold while it cannot flush.
    let ticks = common::sim_ticks(100, 3000, 4);
    for (t, e) in &ticks {
        assert_eq!(rec.submit_tick(*t, &batch(e)).unwrap(), Submitted::Queued);
    }
    wait_for_empty_queue(&engine);
    let s = rec.stats();
    assert!(rec.status().is_err(), "the failure is reported");
    assert_eq!(s.flushed_tick, None);
    assert!(
        s.dropped_ticks > 0,
        "ticks past the bound are dropped, not held: {s:?}"
    );
    assert!(s.dropped_ticks < 2900, "{s:?}");
    // The disk is writable again: everything held is flushed, the dropped ticks are a gap.
    std::fs::remove_file(&live).unwrap();
    // Retried on its own (backing off up to 5 s), without a call.
    let start = Instant::now();
    while rec.stats().flushed_tick.is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(rec.stats().flushed_tick.is_some(), "{:?}", rec.stats());
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    r.verify().unwrap();
    let gaps: Vec<u32> = r
        .metadata()
        .library
        .gaps
        .iter()
        .flat_map(|g| g.from..=g.to)
        .collect();
    assert_eq!(gaps.len() as u64, s.dropped_ticks);
    let mut all = recorded_ticks(&r);
    let kept = all.len();
    all.extend(gaps);
    all.sort_unstable();
    assert_eq!(all, ticks.iter().map(|(t, _)| *t).collect::<Vec<_>>());
    assert!(kept > 100, "{kept} ticks kept");
}

#[test]
fn a_flush_that_fails_after_writing_frames_publishes_nothing_until_a_flush_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("meta-fails.reel");
    let flush = FlushPolicy {
        max_pending_bytes: usize::MAX,
        interval: NEVER,
        on_player_leave: false,
    };
    let rec = engine.start_recording(&path, options(flush)).unwrap();
    let ticks = common::sim_ticks(3, 30, 8);
    for (t, e) in &ticks[..10] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    assert_eq!(rec.stats().flushed_tick, Some(9));
    // The metadata file's temp file cannot be created: the next flush appends its frames to the
    // segment, then fails.
    let live = live_dir_for(&path);
    let blocker = live.join(".meta.tkrl.tmp");
    block(&blocker);
    for (t, e) in &ticks[10..20] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    assert!(rec.flush().is_err());
    assert_eq!(rec.stats().flushed_tick, Some(9), "nothing new is reported");
    // Readers still see the state of the last good flush.
    assert_eq!(Reader::open_live(&live).unwrap().last_tick(), Some(9));
    std::fs::remove_dir(&blocker).unwrap();
    for (t, e) in &ticks[20..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    assert_eq!(rec.stats().flushed_tick, Some(29));
    // Each tick exactly once, in the live directory and in the finished file.
    let want: Vec<u32> = ticks.iter().map(|(t, _)| *t).collect();
    assert_eq!(recorded_ticks(&Reader::open_live(&live).unwrap()), want);
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    r.verify().unwrap();
    assert_eq!(recorded_ticks(&r), want);
    for (t, state) in common::expected_states(&ticks) {
        assert_eq!(r.seek(t).unwrap().entities, state, "tick {t}");
    }
}

#[test]
fn a_panicking_snapshot_provider_retires_its_recording_and_spares_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let flush = FlushPolicy {
        max_pending_bytes: usize::MAX,
        interval: NEVER,
        on_player_leave: false,
    };
    let mut bad_opts = options(flush);
    bad_opts.chunk_policy.snapshot_interval = 20;
    bad_opts.snapshot_provider = Some(std::sync::Arc::new(|tick| {
        if tick >= 20 {
            panic!("plugin bug at tick {tick}");
        }
        Some(vec![1, 2, 3])
    }));
    let bad_path = dir.path().join("bad.reel");
    let bad = engine.start_recording(&bad_path, bad_opts).unwrap();
    let good = engine
        .start_recording(dir.path().join("good.reel"), options(flush))
        .unwrap();
    let ticks = common::sim_ticks(2, 40, 6);
    for (t, e) in &ticks[..10] {
        bad.submit_tick(*t, &batch(e)).unwrap();
        good.submit_tick(*t, &batch(e)).unwrap();
    }
    bad.flush().unwrap();
    for (t, e) in &ticks[10..] {
        let _ = bad.submit_tick(*t, &batch(e));
        good.submit_tick(*t, &batch(e)).unwrap();
    }
    // The waiting call gets the error instead of hanging; the status says what happened.
    let bad = std::sync::Arc::new(bad);
    let (tx, rx) = crossbeam_channel::bounded(1);
    let b = bad.clone();
    std::thread::spawn(move || tx.send(b.flush()));
    let err = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("flush answered")
        .unwrap_err();
    assert!(err.to_string().contains("plugin bug at tick 20"), "{err}");
    assert!(bad.status().unwrap_err().to_string().contains("plugin bug"));
    // What it flushed before stays on disk, resumable.
    assert_eq!(
        Reader::open_live(live_dir_for(&bad_path))
            .unwrap()
            .last_tick(),
        Some(9)
    );
    // The other recording on the same writer thread is unharmed.
    let out = good.finish().unwrap().wait().unwrap();
    assert_eq!(
        recorded_ticks(&Reader::open_path(out).unwrap()),
        ticks.iter().map(|(t, _)| *t).collect::<Vec<_>>()
    );
    // No tick's bytes leak from the budget (released in batches once the queue runs dry).
    let start = Instant::now();
    while engine.stats().inflight_bytes > 0 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(engine.stats().inflight_bytes, 0);
    drop(bad);
    engine.shutdown();
    // Resumed in a new engine, it continues after the last flushed tick.
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let again = engine.start_recording(&bad_path, options(flush)).unwrap();
    again.submit_tick(10, &batch(&ticks[10].1)).unwrap();
    let out = again.finish().unwrap().wait().unwrap();
    assert_eq!(Reader::open_path(out).unwrap().last_tick(), Some(10));
}

#[test]
fn calls_racing_a_shutdown_are_answered() {
    // The shutdown flushes 40 recordings with unflushed ticks (an fsync or more each), while
    // other threads finish, close, flush and abort theirs: every call returns and every handle
    // completes, with a result or an error, instead of waiting for an answer that never comes.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let ticks = common::sim_ticks(5, 30, 3);
    let flush = FlushPolicy {
        max_pending_bytes: usize::MAX,
        interval: NEVER,
        on_player_leave: false,
    };
    let recs: Vec<_> = (0..40)
        .map(|i| {
            let rec = engine
                .start_recording(dir.path().join(format!("r{i}.reel")), options(flush))
                .unwrap();
            for (t, e) in &ticks {
                rec.submit_tick(*t, &batch(e)).unwrap();
            }
            rec
        })
        .collect();
    let e = engine.clone();
    let shutdown = std::thread::spawn(move || e.shutdown());
    let mut calls = Vec::new();
    for (i, rec) in recs.into_iter().enumerate() {
        std::thread::sleep(Duration::from_millis(1));
        calls.push(std::thread::spawn(move || {
            let answered = within(move || match i % 4 {
                0 => rec.finish().map(|h| h.wait().map(|_| ())).and_then(|r| r),
                1 => rec.close(),
                2 => rec.flush().and_then(|_| rec.flush()),
                _ => rec.abort(),
            });
            answered.is_some()
        }));
    }
    let answered: Vec<bool> = calls.into_iter().map(|c| c.join().unwrap()).collect();
    shutdown.join().unwrap();
    assert!(answered.iter().all(|a| *a), "{answered:?}");
}

#[test]
fn a_finish_whose_last_flush_fails_counts_as_a_failed_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("f.reel");
    let rec = engine
        .start_recording(&path, options(FlushPolicy::default()))
        .unwrap();
    let ticks = common::sim_ticks(2, 20, 2);
    for (t, e) in &ticks[..10] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    for (t, e) in &ticks[10..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    block(&live_dir_for(&path).join(".meta.tkrl.tmp"));
    assert!(rec.finish().unwrap().wait().is_err());
    let s = engine.stats();
    assert_eq!(
        (s.compactions_pending, s.compactions_failed),
        (0, 1),
        "{s:?}"
    );
    // What was flushed before is still there.
    assert_eq!(
        Reader::open_live(live_dir_for(&path)).unwrap().last_tick(),
        Some(9)
    );
    engine.shutdown();
}

#[test]
fn an_idle_recording_retries_its_failed_flush_once_the_disk_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("idle.reel");
    let live = live_dir_for(&path);
    std::fs::write(&live, b"in the way").unwrap();
    let rec = engine
        .start_recording(
            &path,
            options(FlushPolicy {
                max_pending_bytes: usize::MAX,
                interval: Duration::from_millis(20),
                on_player_leave: false,
            }),
        )
        .unwrap();
    for (t, e) in common::sim_ticks(2, 10, 1) {
        rec.submit_tick(t, &batch(&e)).unwrap();
    }
    // The time flush fails (and fails again on its first retries); then no tick, no call.
    let start = Instant::now();
    while rec.status().is_ok() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(rec.status().is_err());
    std::thread::sleep(Duration::from_millis(300));
    std::fs::remove_file(&live).unwrap();
    let start = Instant::now();
    while rec.stats().flushed_tick.is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(rec.stats().flushed_tick, Some(9), "{:?}", rec.stats());
    rec.abort().unwrap();
}
