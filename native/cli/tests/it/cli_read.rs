//! The read commands (`tickreel play`, `tickreel ghost`) against the library's own answers.

use crate::common;

use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::play::Reader;
use tickreel::record::ChunkPolicy;

fn small_chunks() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 37,
        chunk_bytes: 1 << 20,
        snapshot_interval: 150,
        zstd_level: 3,
    }
}

#[test]
fn the_play_command_prints_poses_as_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sim.reel");
    let ticks = common::sim_ticks(4, 300, 6);
    common::write_reel(&path, &ticks, small_chunks());
    let reader = Reader::open_path(&path).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tickreel"))
            .arg("play")
            .arg(&path)
            .args(args)
            .output()
            .unwrap()
    };
    let parse = |out: &std::process::Output| -> Vec<serde_json::Value> {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout.clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let check_poses = |line: &serde_json::Value| {
        let tick = line["tick"].as_u64().unwrap() as u32;
        let want = reader.seek(tick).unwrap().entities;
        let got = line["entities"].as_array().unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want.iter()) {
            assert_eq!(g["id"].as_u64().unwrap() as u32, w.id);
            assert_eq!(g["x"].as_f64().unwrap(), w.pose.x_f64());
            assert_eq!(g["yaw"].as_f64().unwrap(), w.pose.yaw_deg());
        }
    };
    let lines = parse(&run(&["--from", "10", "--speed", "2", "--ticks", "5"]));
    let ticks: Vec<u64> = lines.iter().map(|l| l["tick"].as_u64().unwrap()).collect();
    assert_eq!(ticks, vec![10, 12, 14, 16, 18, 20]);
    assert_eq!(lines[0]["motion"], "jump");
    assert!(lines[1..].iter().all(|l| l["motion"] == "forward"));
    lines.iter().for_each(check_poses);

    let lines = parse(&run(&["--reverse", "--speed", "16"]));
    let last = lines.last().unwrap();
    assert_eq!(
        (last["tick"].as_u64(), last["at_edge"].as_bool()),
        (Some(0), Some(true))
    );
    assert_eq!(lines[0]["tick"].as_u64(), Some(299));
    assert_eq!(lines.len(), 1 + 299usize.div_ceil(16));
    lines.iter().for_each(check_poses);

    let out = run(&["--speed", "32"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid argument"));
}

#[test]
fn the_ghost_command_prints_csv_and_splits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cli.reel");
    common::write_reel(&path, &common::checkpoint_run(900, 9), small_chunks());
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tickreel"))
            .arg("ghost")
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = run(&[
        "--entity",
        "1",
        "--from-checkpoint",
        "0",
        "--to-checkpoint",
        "3",
        "--hz",
        "60",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "t,x,y,z,yaw,pitch");
    // 680 ticks at 20 ticks/s = 34 s; at 60 Hz: 2040 intervals, 2041 rows
    assert_eq!(lines.len() - 1, 2041);
    let g = GhostTrack::load_path(&path, 1, GhostRange::checkpoints(0, 3)).unwrap();
    for (row, line) in lines[1..].iter().enumerate().step_by(97) {
        let v: Vec<f64> = line.split(',').map(|f| f.parse().unwrap()).collect();
        assert_eq!(v.len(), 6);
        assert!((v[0] - row as f64 / 3.0).abs() < 1e-3);
        let want = g.pose_at(row as f64 / 3.0);
        for c in 0..5 {
            assert!((v[c + 1] - want[c]).abs() < 1e-3, "row {row} col {c}");
        }
    }
    let splits = run(&[
        "--entity",
        "1",
        "--from-checkpoint",
        "0",
        "--to-checkpoint",
        "3",
        "--splits",
    ]);
    assert_eq!(
        splits.lines().collect::<Vec<_>>(),
        vec![
            "checkpoint,tick,seconds",
            "0,0,0.000",
            "1,180,9.000",
            "2,400,20.000",
            "3,680,34.000"
        ]
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["ghost", "--entity", "77"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("entity 77"));
}
