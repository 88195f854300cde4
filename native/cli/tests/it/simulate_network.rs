//! `tickreel simulate --network N`: three servers as separate processes on one PostgreSQL catalog
//! (the catalog tests' throwaway cluster) and one S3-protocol server (moto_server, signatures
//! checked), one of them SIGKILLed once its second session's upload is under way. Nothing
//! acknowledged is lost, the catalog never points at an object that is not in the bucket, and
//! what the killed server did not acknowledge is recoverable (in the bucket or on its disk).

// (its TLS cluster is not used here)
#[allow(dead_code)]
#[path = "../../../catalog/tests/it/common/pg.rs"]
mod pg;

use std::process::Command;

use tickreel_catalog::Catalog;
use tickreel_object::testing::{BUCKET, S3Server};

#[test]
fn a_network_with_a_server_killed_mid_upload_loses_nothing_acknowledged() {
    let s3 = S3Server::start();
    let storage = s3.storage();
    let db = pg::fresh_database();
    let dir = tempfile::tempdir().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_tickreel"));
    c.args(["simulate", "--network", "3", "--out"])
        .arg(dir.path())
        .args(["--catalog", &db, "--bucket", BUCKET])
        .args(["--ticks", "240", "--players", "4", "--sessions", "2"])
        // server 2's third upload: its second session's recording (each session uploads its
        // recording, then its report)
        .args(["--kill", "2:uploading:3"]);
    for (k, v) in s3.env() {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("killed net-2 at its uploading line 3"),
        "{stdout}"
    );
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("network "))
        .unwrap_or_else(|| panic!("no summary: {stdout}"));
    let figure = |name: &str| -> u64 {
        let words: Vec<&str> = summary.split_whitespace().collect();
        let i = words.iter().position(|w| *w == name).unwrap();
        words[i + 1].parse().unwrap()
    };
    assert_eq!(figure("servers"), 3, "{summary}");
    assert_eq!(figure("killed"), 1, "{summary}");

    // What the servers acknowledged, checked here independently of the network's own check.
    let acknowledged: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once("] acknowledged ").map(|(_, r)| r))
        .filter_map(|r| r.split_whitespace().nth(1))
        .collect();
    // servers 1 and 3: two sessions, each a recording and a report; server 2: its first session
    assert!(acknowledged.len() >= 10, "{stdout}");
    let catalog = Catalog::open(&db).unwrap();
    let recordings = catalog.recordings().unwrap();
    let listed: Vec<&str> = recordings.iter().map(|r| r.location.as_str()).collect();
    for url in &acknowledged {
        assert!(listed.contains(url), "{url} acknowledged but not listed");
    }
    let mut bytes = 0;
    for rec in &recordings {
        let key = rec
            .location
            .strip_prefix(&format!("s3://{BUCKET}/"))
            .unwrap_or_else(|| panic!("{} is not in the bucket", rec.location));
        let info = storage
            .head(key)
            .unwrap()
            .unwrap_or_else(|| panic!("the catalog points at {}, not in the bucket", rec.location));
        assert_eq!(info.size, rec.size_bytes, "{}", rec.location);
        let reader = catalog.open_recording_with(rec, &s3.options()).unwrap();
        assert_eq!(reader.last_tick(), Some(rec.last_tick), "{}", rec.location);
        assert!(rec.server.as_deref().is_some_and(|s| s.starts_with("net-")));
        bytes += rec.size_bytes;
    }
    assert_eq!(figure("recordings"), recordings.len() as u64, "{summary}");
    assert_eq!(figure("bytes"), bytes, "{summary}");
    let reports = catalog.reports(None).unwrap();
    assert_eq!(figure("reports"), reports.len() as u64, "{summary}");
    assert!(reports.len() >= 5, "{summary}");
    for r in &reports {
        let rec = catalog.open_recording_with(r, &s3.options()).unwrap();
        assert!(rec.header().tick_count > 0);
    }
    let top = catalog.top("network-course", 1000).unwrap();
    // three runs a session: servers 1 and 3 two sessions, server 2 at least one
    assert!(figure("runs") >= 15, "{summary}");
    // one place per player: three players a server (the same entities in both sessions)
    assert!(top.len() >= 9, "{summary}");
    for p in &top {
        assert!(listed.contains(&p.run.location.as_str()));
    }

    // The recording server 2 was uploading when it was killed: in the bucket (the upload
    // completed) or still on its disk (the local copy goes only after a complete upload).
    let local = dir.path().join("net-2").join("session-1.reel");
    let key = "net-2/session-1.reel";
    assert!(
        local.exists() || storage.head(key).unwrap().is_some(),
        "the killed server's recording is neither on its disk nor in the bucket"
    );
    // Its second session's report was never made: server 2 acknowledged its first session only.
    assert!(
        !listed.contains(&format!("s3://{BUCKET}/net-2/session-1.report.reel").as_str()),
        "{stdout}"
    );
}
