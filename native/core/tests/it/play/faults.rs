//! Playback when things go wrong or change: corrupt chunks, slow sources, a growing recording.

use super::*;

#[test]
fn a_corrupt_chunk_is_reported_and_skipped_in_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.reel");
    let ticks = common::sim_ticks(8, 600, 9);
    common::write_reel(&path, &ticks, common::small_policy());
    let expected = common::expected_states(&ticks);
    let bad = corrupt_chunk(&path, 5);
    let bad_range = bad.start_tick..bad.start_tick + bad.tick_count;
    let rec = Recording::open_path_with(&path, &ctx()).unwrap();
    assert!(rec.view().reader().verify().is_err());
    let index = rec.view().reader().index().to_vec();

    // Seeking into the chunk fails and leaves the playhead where it was.
    let mut ph = Playhead::new(rec.clone()).unwrap();
    let err = ph.seek(bad.start_tick + 3).unwrap_err();
    assert!(matches!(err, tickreel::Error::Corrupt(_)), "{err}");
    assert_eq!(ph.position(), 0);

    for dir in [Direction::Forward, Direction::Backward] {
        let start = if dir == Direction::Forward { 0 } else { 599 };
        let mut ph = Playhead::new_at(rec.clone(), start).unwrap();
        ph.set_direction(dir);
        ph.set_speed(3.0).unwrap();
        ph.play();
        let mut faults = Vec::new();
        let mut visited = 0;
        for _ in 0..2000 {
            ph.prepare();
            let u = ph.advance();
            assert!(!u.stalled, "prepare loads where a skip lands");
            faults.extend(u.faults().iter().map(|f| f.chunk));
            assert!(
                !bad_range.contains(&u.to) || u.motion == Motion::Still || {
                    // Backward, the ticks after the chunk's last tick are reachable from the next
                    // chunk's keyframe: only the last tick of the bad chunk may be visited.
                    dir == Direction::Backward && u.to == bad_range.end - 1
                }
            );
            assert_eq!(u.table(), expected[u.to as usize].1, "{dir:?} at {}", u.to);
            if u.motion == Motion::Jump && !u.faults().is_empty() {
                // The jump over the bad chunk rebuilds the world, incompletely if the bad
                // chunk lies between the snapshot and the new position.
                let Some(rb) = u.rebuild() else {
                    panic!("a skip rebuilds the world")
                };
                let k = find_chunk(&index, u.to).unwrap();
                let snap = snapshot_at_or_before(&index, k).unwrap();
                assert_eq!(rb.complete(), !(snap..=k).contains(&5));
            }
            visited += 1;
            if u.at_edge && u.motion == Motion::Still {
                break;
            }
        }
        assert!(visited < 2000, "reached the edge");
        assert!(faults.contains(&5), "{dir:?}: fault reported");
        assert!(faults.iter().all(|&k| k == 5));
        assert!(ph.stats().faults >= 1);
        let end = if dir == Direction::Forward { 599 } else { 0 };
        assert_eq!(ph.position(), end);
    }
}

#[test]
fn advance_reports_a_stall_instead_of_waiting_for_a_slow_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 6, 400, 4);
    let source = Arc::new(GatedSource {
        inner: FileSource::open(&path).unwrap(),
        range: Mutex::new((0, 0)),
        open: Mutex::new(true),
        cv: Condvar::new(),
    });
    let reader = Reader::open(source.clone()).unwrap();
    let index = reader.index().to_vec();
    let straight = Straight::of(&reader);
    let rec = Recording::from_reader(reader, &PlaybackContext::new(64 << 20, 1, 8));

    // Forward: chunk 1 is slow.
    source.set_gate(index[1].offset, index[2].offset);
    let mut ph = Playhead::new(rec.clone()).unwrap();
    ph.set_speed(8.0).unwrap();
    ph.play();
    let end0 = index[0].start_tick + index[0].tick_count - 1;
    let mut stalled_calls = 0;
    for _ in 0..20 {
        let u = ph.advance();
        assert!(u.to <= end0, "cannot pass the slow chunk");
        if u.stalled {
            stalled_calls += 1;
        }
    }
    assert!(stalled_calls >= 10);
    assert_eq!(ph.position(), end0);
    assert_eq!(ph.stats().stalls, stalled_calls);
    assert!(ph.update().stalled);
    source.open_gate();
    ph.prepare();
    let u = ph.advance();
    assert!(!u.stalled);
    assert_eq!(u.motion, Motion::Forward);
    assert!(u.to - u.from > 8, "catches up the owed ticks");
    assert!(u.to - u.from <= 8 + PlayheadOptions::default().max_catch_up_ticks);
    assert_eq!(&u.table(), straight.at(u.to));

    // Backward: start in a chunk carrying a snapshot (so opening there decodes nothing below
    // it); the chunk below is slow. A fresh recording, so nothing is cached yet.
    let k = (2..index.len()).find(|&k| index[k].has_snapshot()).unwrap();
    source.set_gate(index[k - 1].offset, index[k].offset);
    let reader = Reader::open(source.clone()).unwrap();
    let rec = Recording::from_reader(reader, &PlaybackContext::new(64 << 20, 1, 8));
    let mut ph = Playhead::new_at(rec.clone(), index[k].start_tick + 5).unwrap();
    ph.set_direction(Direction::Backward);
    ph.play();
    let mut stalled_calls = 0;
    for _ in 0..40 {
        let u = ph.advance();
        assert!(
            u.to >= index[k].start_tick - 1,
            "cannot undo ticks of the slow chunk"
        );
        if u.stalled {
            stalled_calls += 1;
            std::thread::yield_now();
        }
    }
    assert!(ph.update().stalled);
    assert!(stalled_calls >= 30);
    assert_eq!(ph.stats().stalls, stalled_calls);
    source.open_gate();
    ph.prepare();
    let u = ph.advance();
    assert!(!u.stalled);
    assert!(u.to < index[k].start_tick - 1);
    assert_eq!(&u.table(), straight.at(u.to));
}

#[test]
fn a_growing_recording_is_followed_and_a_switch_over_is_seamless() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 6, 500, 8);
    let source: Arc<dyn Source> = Arc::new(FileSource::open(&path).unwrap());
    let full = Reader::open(source.clone()).unwrap();
    let straight = Straight::of(&full);
    let n = full.index().len();
    let index = full.index().to_vec();
    let rec = Recording::from_reader(prefix_reader(&full, &source, 3), &ctx());
    let id0 = rec.view().id();
    // No prefetch: decode counts below are then exact.
    let opts = PlayheadOptions {
        prefetch: false,
        ..PlayheadOptions::default()
    };
    let mut ph = Playhead::with_options(rec.clone(), 0, opts).unwrap();
    ph.set_speed(4.0).unwrap();
    ph.play();
    let mut state = ph.update().table();
    let edge = index[2].start_tick + index[2].tick_count - 1;
    loop {
        let u = step_play(&mut ph);
        check_update(u, &state, &straight, &index);
        state = u.table();
        if u.at_edge {
            break;
        }
    }
    assert_eq!(ph.position(), edge);
    // At the live edge the playhead waits (no stall, no motion).
    let u = step_play(&mut ph);
    assert_eq!(
        (u.motion, u.at_edge, u.stalled),
        (Motion::Still, true, false)
    );

    // The index grows: same identity, playback continues with the new ticks.
    assert!(rec.update(prefix_reader(&full, &source, 6)));
    assert_eq!(rec.view().id(), id0);
    let u = step_play(&mut ph);
    assert_eq!(u.motion, Motion::Forward);
    check_update(u, &state, &straight, &index);
    state = u.table();
    assert_eq!(
        rec.cache().stats().decodes,
        4,
        "chunks 0..3 decoded once each"
    );

    // A reader whose index does not extend the old one gets a new identity.
    let other = prefix_reader(&full, &source, 2);
    assert!(!rec.update(other));
    assert!(rec.update(prefix_reader(&full, &source, 6)) || rec.view().id() != id0);

    // Switch-over to the compacted file: the playhead re-finds its tick (nothing to apply, not
    // a jump) and plays on from it in the same call.
    let pos = ph.position();
    let jumps = ph.stats().jumps;
    rec.switch_to(Reader::open_path(&path).unwrap());
    let u = step_play(&mut ph);
    assert_eq!((u.motion, u.from), (Motion::Forward, pos));
    assert!(u.to > pos);
    assert!(u.added().is_empty() && u.removed().is_empty());
    assert!(u.rebuild().is_none());
    check_update(u, &state, &straight, &index);
    state = u.table();
    assert_eq!(ph.stats().jumps, jumps);
    // ... then plays on to the end.
    loop {
        let u = step_play(&mut ph);
        check_update(u, &state, &straight, &index);
        state = u.table();
        if u.at_edge && u.motion == Motion::Still {
            break;
        }
    }
    assert_eq!(ph.position(), full.last_tick().unwrap());
    assert!(n > 6);
}
