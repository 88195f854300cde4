//! Open files of many recordings: between flushes a recording holds one (its lock file), not its
//! segment too, so a race server's thousand runs stay within the usual limit of open files.
//! (Alone in its process, `alone`: it counts the process's open file descriptors.)

use crate::{alone, common};

use tickreel::record::RecorderOptions;
use tickreel::{Engine, EngineOptions};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[test]
fn a_recording_between_flushes_holds_one_open_file() {
    if !alone::in_own_process(
        module_path!(),
        "a_recording_between_flushes_holds_one_open_file",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let options = RecorderOptions {
        flush: common::flush_when_asked(),
        ..RecorderOptions::default()
    };
    let ticks = common::sim_ticks(1, 40, 7);
    let before = open_fds();
    let n = 64;
    let recs: Vec<_> = (0..n)
        .map(|i| {
            engine
                .start_recording(dir.path().join(format!("r{i}.reel")), options.clone())
                .unwrap()
        })
        .collect();
    for part in ticks.chunks(20) {
        for rec in &recs {
            for (t, e) in part {
                rec.submit_tick(*t, &common::batch(e)).unwrap();
            }
            rec.flush().unwrap();
        }
    }
    // Every recording has its live directory, lock and segment; only the locks stay open.
    let held = open_fds() - before;
    assert!(held >= n, "the locks are held: {held}");
    assert!(held < n + 8, "{held} files open for {n} recordings");
    for rec in recs {
        assert_eq!(rec.stats().flushed_tick, Some(39));
        rec.finish().unwrap().wait().unwrap();
    }
    engine.shutdown();
    assert!(open_fds() <= before + 2);
}
