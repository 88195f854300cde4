//! Watching together, in headless Chromium (as `viewer_browser`): two browsers (two profiles, two
//! members) in one watch party. The controller's seek, play, speed and pause are followed by the
//! other page (its tick and what it shows, checked against the core's `Reader::seek`); the
//! follower's own playback actions are refused; the controls are handed over on request; a
//! bookmark one member makes shows on the other's page; the party ends when its last member
//! leaves. No timing threshold (the follow latency is `tickreel bench --only party`'s figure):
//! each wait is bounded.

use std::time::{Duration, Instant};

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::json;
use tickreel_bench::browser::Browser;

fn party(b: &mut Browser) -> serde_json::Value {
    b.eval("window.tickreelViewer.party.state()")
}

#[test]
fn a_watch_party_follows_its_controller_hands_over_and_shares_bookmarks() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 6, 1200);
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let mut a = browser();
    a.open(&format!("{}/?rec=sim.reel", s.base)).unwrap();
    wait_for(
        &mut a,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
    );
    let link = a.eval("window.tickreelViewer.party.start()");
    let link = link.as_str().expect("a party link").to_string();
    assert!(link.contains("?party="), "{link}");
    let id = link.split("?party=").nth(1).unwrap().to_string();
    assert_eq!(party(&mut a)["isController"], true);

    // the other member opens the link: it opens the party's recording
    let mut b = browser();
    b.open(&link).unwrap();
    wait_for(
        &mut b,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
    );
    let st = state(&mut b);
    assert_eq!(st["rec"], "sim.reel", "{st}");
    assert_eq!(st["party"]["isController"], false, "{st}");
    wait_for(
        &mut a,
        "window.tickreelViewer.party.state().members.length === 2",
    );

    // a seek of the controller: the follower's tick, and what it shows
    a.eval("window.tickreelViewer.seek(700)");
    wait_for(&mut b, "window.tickreelViewer.state().tick === 700");
    wait_for(&mut b, "window.tickreelViewer.state().shownTick === 700");
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "followed a seek"), 700);

    // play at 2x, then pause at a seek: followed
    a.eval("window.tickreelViewer.setSpeed(2)");
    a.eval("window.tickreelViewer.play(1)");
    wait_for(
        &mut b,
        "window.tickreelViewer.state().playing && window.tickreelViewer.state().speed === 2",
    );
    wait_for(&mut b, "window.tickreelViewer.state().tick > 705");
    a.eval("window.tickreelViewer.pause()");
    a.eval("window.tickreelViewer.seek(450)");
    wait_for(
        &mut b,
        "!window.tickreelViewer.state().playing && window.tickreelViewer.state().tick === 450",
    );
    wait_for(&mut b, "window.tickreelViewer.state().shownTick === 450");
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "followed a pause"), 450);

    // the follower's own actions are refused (its controls are disabled too)
    let refused = b.eval("window.tickreelViewer.seek(100).then(() => 'taken', (e) => e.message)");
    assert!(
        refused.as_str().unwrap().contains("has the controls"),
        "{refused}"
    );
    b.eval("window.tickreelViewer.play(1)");
    let st = state(&mut b);
    assert_eq!(
        (st["tick"].clone(), st["playing"].clone()),
        (json!(450), json!(false)),
        "{st}"
    );
    assert_eq!(
        b.eval("document.getElementById('play').disabled"),
        json!(true)
    );

    // control handed over on request: the follower asks, the controller's page hands over
    b.eval("window.tickreelViewer.party.ask()");
    let member_b = party(&mut b)["member"].as_u64().unwrap();
    wait_for(
        &mut a,
        &format!("window.tickreelViewer.party.state().requests.includes({member_b})"),
    );
    assert!(
        a.eval("document.getElementById('party-members').innerText")
            .as_str()
            .unwrap()
            .contains("asks for the controls")
    );
    a.eval(&format!(
        "document.querySelector('.party-hand[data-member=\"{member_b}\"]').click()"
    ));
    wait_for(&mut b, "window.tickreelViewer.party.state().isController");
    wait_for(&mut a, "!window.tickreelViewer.party.state().isController");
    b.eval("window.tickreelViewer.seek(300)");
    wait_for(&mut a, "window.tickreelViewer.state().tick === 300");
    let refused = a.eval("window.tickreelViewer.seek(900).then(() => 'taken', (e) => e.message)");
    assert!(
        refused.as_str().unwrap().contains("has the controls"),
        "{refused}"
    );

    // a bookmark with a note: on the other page
    a.eval("window.tickreelViewer.party.bookmark('watch the turn <here>', 300)");
    wait_for(
        &mut b,
        "window.tickreelViewer.party.state().bookmarks.some(m => m.note === 'watch the turn <here>' && m.tick === 300)",
    );
    let listed = b.eval("document.getElementById('party-bookmarks').innerText");
    assert!(
        listed
            .as_str()
            .unwrap()
            .contains("tick 300 · watch the turn <here> · viewer 1"),
        "{listed}"
    );
    // (a note is text, not markup)
    assert_eq!(
        b.eval("document.querySelectorAll('#party-bookmarks li *').length"),
        json!(0)
    );

    // the controller leaves (its browser closes): the controls go to the member left
    drop(b);
    let started = Instant::now();
    a.wait_until(
        "window.tickreelViewer.party.state().members.length === 1 && window.tickreelViewer.party.state().isController",
        Duration::from_secs(30),
        "JSON.stringify(window.tickreelViewer.party.state())",
    )
    .unwrap();
    eprintln!("a closed page left the party in {:?}", started.elapsed());
    // the last member leaves: the party is over
    a.eval("window.tickreelViewer.party.leave()");
    let (status, v) = s.get(&format!("/api/party/events?party={id}"));
    assert_eq!(status, 404, "{v}");
}
