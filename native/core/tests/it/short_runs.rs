//! Many short runs (half of all parkour runs last under 3 s): no stray files, no stray threads,
//! and a 3-second one-player run costs at most 1 KiB. Alone in its process (`alone`) so that thread
//! counts are not disturbed by other tests.

use std::collections::BTreeMap;

use tickreel::format::encode_batch;
use tickreel::{Engine, EngineOptions, Event, RecorderOptions};

use crate::alone;

fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .collect()
}

fn batch(events: &[Event]) -> Vec<u8> {
    let mut b = Vec::new();
    encode_batch(events, &mut b).unwrap();
    b
}

#[test]
fn many_short_runs_leave_no_stray_files_or_threads() {
    if !alone::in_own_process(
        module_path!(),
        "many_short_runs_leave_no_stray_files_or_threads",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let threads_before = std::fs::read_dir("/proc/self/task").unwrap().count();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let threads_with_engine = std::fs::read_dir("/proc/self/task").unwrap().count();
    let mut sizes = Vec::new();
    let mut handles = Vec::new();
    for run in 0..1000u32 {
        let path = dir.path().join(format!("run-{run}.reel"));
        let rec = engine
            .start_recording(&path, RecorderOptions::default())
            .unwrap();
        let mut sim = tickreel_sim::Simulator::new(tickreel_sim::SimConfig {
            players: 1,
            seed: u64::from(run),
            ..Default::default()
        });
        let ticks: Vec<_> = (0..60).map(|_| sim.step()).collect(); // 3 s at 20 ticks/s
        for (t, e) in &ticks {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
        handles.push(rec.finish().unwrap());
    }
    for h in handles {
        let p = h.wait().unwrap();
        sizes.push(std::fs::metadata(p).unwrap().len());
    }
    assert_eq!(
        std::fs::read_dir("/proc/self/task").unwrap().count(),
        threads_with_engine
    );
    let names: BTreeMap<String, bool> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.file_type().unwrap().is_dir(),
            )
        })
        .collect();
    assert_eq!(
        names.len(),
        1000,
        "exactly the 1000 files, no live dirs or temp files"
    );
    assert!(names.iter().all(|(n, d)| n.ends_with(".reel") && !d));
    let max = sizes.iter().max().unwrap();
    assert!(*max <= 1024, "a 3-second one-player run costs {max} bytes");
    engine.shutdown();
    // A joined thread can stay listed for a moment while the kernel finishes its exit.
    let mut names = thread_names();
    for _ in 0..100 {
        if names.len() == threads_before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        names = thread_names();
    }
    assert_eq!(names.len(), threads_before, "threads left: {names:?}");
}
