//! The members of a live directory (metadata file, segments, lock, temporary files) are never
//! followed out of it: recovery, resumption, readers and followers refuse a member that is a
//! symbolic link, a hard link from elsewhere (a file with another name) or anything but a regular
//! file with an error naming it, and leave what it points to byte for byte as it was. Only the
//! directory itself may be a symbolic link.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tickreel::play::{FollowOptions, Reader, Recording};
use tickreel::record::recover;
use tickreel::storage::is_refused_member;
use tickreel::storage::live::{LOCK_FILE, META_FILE, META_TEMP, live_dir_for, segment_name};
use tickreel::{Engine, EngineOptions};

use crate::common::batch;

/// A recording stopped without finishing: `<dir>/run.reel.live` holds its metadata file, one
/// segment and the lock file. Returns the final path.
fn unfinished(dir: &Path) -> PathBuf {
    let path = dir.join("run.reel");
    let ticks = common::sim_ticks(4, 200, 7);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    drop(rec);
    engine.shutdown();
    let live = live_dir_for(&path);
    assert!(live.join(META_FILE).is_file());
    assert!(live.join(segment_name(0)).is_file());
    path
}

/// Replaces the member `name` of `live` with a symbolic link to a file outside holding
/// `bytes` (the member's own bytes followed by more, where `bytes` is `None`). Returns the
/// outside file and its bytes.
fn link_out(live: &Path, outside: &Path, name: &str, bytes: Option<&[u8]>) -> (PathBuf, Vec<u8>) {
    let member = live.join(name);
    let bytes = match bytes {
        Some(b) => b.to_vec(),
        // (The temporary metadata file exists only during a rewrite.)
        None if !member.exists() => b"precious, outside\n".to_vec(),
        None => {
            let mut b = std::fs::read(&member).unwrap();
            // A torn tail that recovery would cut off a segment of its own.
            b.extend_from_slice(&[0xAB; 100]);
            b
        }
    };
    let target = outside.join(format!("target-{name}"));
    std::fs::write(&target, &bytes).unwrap();
    let _ = std::fs::remove_file(&member);
    std::os::unix::fs::symlink(&target, &member).unwrap();
    (target, bytes)
}

/// As [`link_out`], with a hard link: the member becomes another name of the file outside
/// (same file system: the temporary directories share one).
fn hard_link_out(
    live: &Path,
    outside: &Path,
    name: &str,
    bytes: Option<&[u8]>,
) -> (PathBuf, Vec<u8>) {
    let (target, bytes) = link_out(live, outside, name, bytes);
    let member = live.join(name);
    std::fs::remove_file(&member).unwrap();
    std::fs::hard_link(&target, &member).unwrap();
    (target, bytes)
}

/// `e` is the refusal of `member`, named in its message.
fn assert_refuses(e: &tickreel::Error, member: &Path) {
    assert_refuses_as(e, member, "symbolic link");
}

/// `e` is the refusal of `member`, named in its message, which says `what` it is.
fn assert_refuses_as(e: &tickreel::Error, member: &Path, what: &str) {
    let msg = e.to_string();
    assert!(is_refused_member(e), "not a member refusal: {msg}");
    assert!(
        msg.contains(&member.display().to_string()),
        "the message does not name {}: {msg}",
        member.display()
    );
    assert!(msg.contains(what), "{msg}");
}

/// The error resuming the recording at `path` ends with. The lock is taken when the recording
/// starts; the rest is recovered on a thread of its own and fails the recording.
fn resumption_error(path: &Path) -> tickreel::Error {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let e = match engine.start_recording(path, common::small_flush()) {
        Err(e) => e,
        Ok(rec) => rec
            .wait_resumed(Duration::from_secs(30))
            .expect_err("resumed through a member that leads out"),
    };
    engine.shutdown();
    e
}

/// Every member a recovery or resumption touches, linked out in turn.
const MEMBERS: [&str; 4] = ["seg-000000.tks", LOCK_FILE, META_FILE, META_TEMP];

#[test]
fn recovery_never_follows_a_member_out_of_the_directory() {
    for name in MEMBERS {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let live = live_dir_for(&unfinished(dir.path()));
        let (target, before) = link_out(&live, outside.path(), name, Some(b"precious, outside\n"));
        let e = recover(&live).expect_err(name);
        assert_refuses(&e, &live.join(name));
        assert_eq!(
            std::fs::read(&target).unwrap(),
            before,
            "{name}: target changed"
        );
        assert!(
            std::fs::symlink_metadata(live.join(name))
                .unwrap()
                .is_symlink()
        );
    }
}

#[test]
fn recovery_leaves_a_linked_out_segment_with_a_torn_tail_as_it_is() {
    // The target looks like the recording's own segment with a torn tail: followed, recovery
    // would cut the tail off the file outside.
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let live = live_dir_for(&unfinished(dir.path()));
    let name = segment_name(0);
    let (target, before) = link_out(&live, outside.path(), &name, None);
    let e = recover(&live).unwrap_err();
    assert_refuses(&e, &live.join(&name));
    assert_eq!(std::fs::read(&target).unwrap(), before);
}

#[test]
fn a_directory_of_only_a_linked_segment_is_refused_and_the_target_kept() {
    // The report of issue 31: `mkdir x.reel.live; ln -s FILE x.reel.live/seg-000000.tks`.
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let live = dir.path().join("x.reel.live");
    std::fs::create_dir(&live).unwrap();
    let target = outside.path().join("file");
    std::fs::write(&target, b"somebody's file, not a segment").unwrap();
    std::os::unix::fs::symlink(&target, live.join(segment_name(0))).unwrap();
    let e = recover(&live).unwrap_err();
    assert_refuses(&e, &live.join(segment_name(0)));
    assert_eq!(
        std::fs::read(&target).unwrap(),
        b"somebody's file, not a segment"
    );
}

#[test]
fn resumption_never_follows_a_member_out_of_the_directory() {
    for name in MEMBERS {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let path = unfinished(dir.path());
        let live = live_dir_for(&path);
        let (target, before) = link_out(&live, outside.path(), name, None);
        let e = resumption_error(&path);
        assert!(
            e.to_string()
                .contains(&live.join(name).display().to_string()),
            "{name}: {e}"
        );
        assert!(e.to_string().contains("symbolic link"), "{name}: {e}");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            before,
            "{name}: target changed"
        );
    }
}

#[test]
fn readers_and_followers_refuse_a_linked_out_metadata_file_or_segment() {
    for name in [META_FILE.to_string(), segment_name(0)] {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let path = unfinished(dir.path());
        let live = live_dir_for(&path);
        // A copy of the member itself: followed, it would read as the recording.
        let own = std::fs::read(live.join(&name)).unwrap();
        let (target, before) = link_out(&live, outside.path(), &name, Some(&own));

        let read = Reader::open_live(&live).and_then(|r| r.pin().map(|()| r));
        assert_refuses(&read.unwrap_err(), &live.join(&name));
        let any = Reader::open_any(&live).and_then(|r| r.pin().map(|()| r));
        assert_refuses(&any.unwrap_err(), &live.join(&name));

        let options = FollowOptions {
            background: false,
            ..FollowOptions::default()
        };
        let e = Recording::follow(&live, options.clone()).unwrap_err();
        assert_refuses(&e, &live.join(&name));
        let e = Recording::follow(&path, options).unwrap_err();
        assert_refuses(&e, &live.join(&name));
        assert_eq!(std::fs::read(&target).unwrap(), before);
    }
}

#[test]
fn a_hard_linked_member_is_refused_and_the_file_elsewhere_kept() {
    // A hard link looks like the file itself (no symbolic link to refuse): a member with another
    // name is never written, cut, locked or read. Each member in turn, for recovery,
    // resumption and the readers.
    for name in MEMBERS {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let path = unfinished(dir.path());
        let live = live_dir_for(&path);
        // The member's own bytes and a torn tail, which recovery would cut off a file of its own.
        let (target, before) = hard_link_out(&live, outside.path(), name, None);
        let e = recover(&live).expect_err(name);
        assert_refuses_as(&e, &live.join(name), "hard link");
        assert_eq!(std::fs::read(&target).unwrap(), before, "{name}: recover");

        let e = resumption_error(&path);
        assert!(e.to_string().contains("hard link"), "{name}: {e}");
        assert_eq!(std::fs::read(&target).unwrap(), before, "{name}: resume");
        if name == LOCK_FILE || name == META_TEMP {
            continue; // readers do not open these
        }
        let read = Reader::open_live(&live).and_then(|r| r.pin().map(|()| r));
        assert_refuses_as(&read.unwrap_err(), &live.join(name), "hard link");
        assert_eq!(std::fs::read(&target).unwrap(), before, "{name}: read");
    }
}

#[test]
fn a_member_that_is_a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let live = live_dir_for(&unfinished(dir.path()));
    let meta = live.join(META_FILE);
    std::fs::remove_file(&meta).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&meta).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("no mkfifo here: skipped");
        return;
    }
    let live2 = live.clone();
    let e = common::within(move || Reader::open_live(&live2).unwrap_err())
        .expect("opening a FIFO waited");
    assert!(is_refused_member(&e), "{e}");
    assert!(e.to_string().contains("FIFO"), "{e}");
    let live2 = live.clone();
    let e = common::within(move || recover(&live2).unwrap_err()).expect("recovery waited");
    assert!(is_refused_member(&e), "{e}");
}

#[test]
fn the_live_directory_itself_may_be_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let path = unfinished(dir.path());
    let live = live_dir_for(&path);
    let expected = Reader::open_live(&live).unwrap().last_tick();
    assert!(expected.is_some());
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("other.reel.live");
    std::os::unix::fs::symlink(&live, &link).unwrap();
    recover(&link).unwrap();
    let r = Reader::open_live(&link).unwrap();
    r.pin().unwrap();
    assert_eq!(r.last_tick(), expected);
}

#[test]
fn a_view_beneath_a_directory_refuses_what_it_opens_outside() {
    // `LocalStorage::beneath`, as `tickreel serve` opens the files of its folder: the check is
    // made on what was opened, so a directory on the way that is (or became) a link out is
    // refused, and a link that stays inside is followed.
    use tickreel::storage::LocalStorage;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(root.join("inner")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("inner/a.reel"), b"inside").unwrap();
    std::fs::write(outside.join("a.reel"), b"outside").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("inner"), root.join("alias")).unwrap();
    let view = LocalStorage::beneath(&root).unwrap();

    assert_eq!(view.read(&root.join("inner/a.reel")).unwrap(), b"inside");
    assert_eq!(view.read(&root.join("alias/a.reel")).unwrap(), b"inside");
    let e = view.read(&root.join("out/a.reel")).unwrap_err();
    assert_refuses_as(&e, &root.join("out/a.reel"), "outside the directory");
    // the members' view: no link even inside, and still beneath
    let members = view.members().unwrap();
    assert_eq!(members.read(&root.join("inner/a.reel")).unwrap(), b"inside");
    let e = members.read(&root.join("out/a.reel")).unwrap_err();
    assert_refuses_as(&e, &root.join("out/a.reel"), "outside the directory");
    std::os::unix::fs::symlink(root.join("inner/a.reel"), root.join("inner/b.reel")).unwrap();
    let e = members.read(&root.join("inner/b.reel")).unwrap_err();
    assert_refuses_as(&e, &root.join("inner/b.reel"), "symbolic link");
    // read-only: nothing is created, cut or locked
    assert!(view.create(&root.join("new.reel")).is_err());
    assert!(members.truncate(&root.join("inner/a.reel"), 0).is_err());
    assert!(members.lock(&root.join("inner/a.reel")).is_err());
    assert!(!root.join("new.reel").exists());
    assert_eq!(std::fs::read(root.join("inner/a.reel")).unwrap(), b"inside");
}
