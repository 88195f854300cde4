//! Anonymous review: a reviewer's token gets no name or UUID of anyone in a report. Every route a
//! reviewer may call about a report (the listings, the summary, markers, frames, a seek, blocks,
//! terrain, a race, the board, the audit log, live edges, the page and its scripts; by file name
//! and by catalog name) is asked with the reviewer's token, and each answer's bytes are searched
//! for the real names and UUIDs in every encoding (plain, any case, JSON-escaped, URL-encoded,
//! 32 hex digits, NBT's four ints); a moderator's answers name them (so the search finds what
//! is there). Then the reviewer's page, in headless Chromium, opening the report from the inbox:
//! its whole document holds no real name.

use std::path::Path;

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::json;

const SUSPECT_UUID: &str = "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d";
const WITNESS_UUID: &str = "0a0b0c0d-1111-4222-8333-444455556666";
const REPORTER_UUID: &str = "11111111-2222-4333-8444-555555555555";
const SUSPECT: &str = "Alice_Suspect";
const WITNESS: &str = "Zoë_Witness";
const REVIEWER_TOKEN: &str = "reviewer-token-0123456789";
const MODERATOR_TOKEN: &str = "moderator-token-0123456789";

/// Two named players with UUIDs; the suspect says the witness's name in chat and hits them.
fn recording(path: &Path) {
    use tickreel::format::{EntityInfo, Event, channel, encode_batch};
    use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(path, RecorderOptions::default())
        .unwrap();
    for (id, name, uuid) in [(1, SUSPECT, SUSPECT_UUID), (2, WITNESS, WITNESS_UUID)] {
        rec.register_entity(EntityInfo {
            id,
            kind: 147,
            uuid: Some(uuid.parse().unwrap()),
            name: Some(name.into()),
        })
        .unwrap();
    }
    let mut batch = Vec::new();
    for t in 0..200u32 {
        let mut ev = Vec::new();
        let pose = |x: f64| Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0);
        if t == 0 {
            ev.push(Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: pose(0.0),
            });
            ev.push(Event::EntityAdd {
                entity: 2,
                kind: 147,
                pose: pose(3.0),
            });
        } else {
            ev.push(Event::Pose {
                entity: 1,
                pose: pose(f64::from(t) * 0.05),
            });
        }
        if t == 60 {
            ev.push(Event::Attack {
                attacker: 1,
                target: 2,
            });
        }
        if t == 70 {
            ev.push(Event::Chat {
                sender: Some(1),
                channel: channel::PUBLIC,
                text: format!("{WITNESS} you are next, says {SUSPECT} ({SUSPECT_UUID})"),
            });
        }
        batch.clear();
        encode_batch(&ev, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
}

/// Every way the real identities may be written in an answer, lower case.
fn forms() -> Vec<String> {
    let mut f = Vec::new();
    for name in [SUSPECT, WITNESS] {
        f.push(name.to_lowercase());
        // JSON-escaped (\u00eb) and URL-encoded
        let escaped: String = name
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    format!("\\u{:04x}", c as u32)
                }
            })
            .collect();
        f.push(escaped.to_lowercase());
        let enc: String = name
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("%{b:02x}")
                }
            })
            .collect();
        f.push(enc.to_lowercase());
        // the part of the name a page might cut it to
        f.push(name.split('_').next().unwrap().to_lowercase());
    }
    for u in [SUSPECT_UUID, WITNESS_UUID, REPORTER_UUID] {
        let u: uuid::Uuid = u.parse().unwrap();
        f.push(u.hyphenated().to_string());
        f.push(u.simple().to_string());
        let ints: Vec<String> = u
            .as_bytes()
            .chunks(4)
            .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]).to_string())
            .collect();
        f.push(format!("[{}]", ints.join(",")));
    }
    f
}

fn leaks(text: &str) -> Vec<String> {
    let low = text.to_lowercase();
    forms().into_iter().filter(|f| low.contains(f)).collect()
}

fn get(s: &Server, path: &str, token: &str) -> (u16, String) {
    let mut resp = s
        .agent()
        .get(format!("{}{path}", s.base))
        .header("Authorization", format!("Bearer {token}"))
        .call()
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    (
        resp.status().as_u16(),
        resp.body_mut().read_to_string().unwrap(),
    )
}

#[test]
fn a_reviewer_gets_no_real_name_in_any_answer_or_page() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("world.reel");
    recording(&reel);
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    ok(&[
        "catalog",
        "--db",
        &db,
        "report",
        "--reported",
        SUSPECT_UUID,
        "--name",
        SUSPECT,
        "--reporter",
        REPORTER_UUID,
        "--reason",
        "kill aura",
        "--recording",
        reel.to_str().unwrap(),
    ]);
    ok(&[
        "catalog",
        "--db",
        &db,
        "add",
        reel.to_str().unwrap(),
        "--course",
        "arena",
        "--player",
        SUSPECT_UUID,
        "--name",
        SUSPECT,
        "--entity",
        "1",
    ]);
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(
        &tokens,
        format!("rita reviewer {REVIEWER_TOKEN}\nmo moderator {MODERATOR_TOKEN}\n"),
    )
    .unwrap();
    let s = Server::start(&[
        dir.path().to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
        "--tokens-file",
        tokens.to_str().unwrap(),
    ]);
    let (st, list) = get(&s, "/api/recordings", MODERATOR_TOKEN);
    assert_eq!(st, 200, "{list}");
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let catalog_name = list["catalog"][0]["name"].as_str().unwrap().to_string();
    let mut routes = vec![
        "/".to_string(),
        "/viewer.js".into(),
        "/inbox.js".into(),
        "/inspector.js".into(),
        "/party.js".into(),
        "/desk".into(),
        "/desk.js".into(),
        "/api/desk".into(),
        "/api/recordings".into(),
        "/api/reports".into(),
        "/api/catalog/top?course=arena".into(),
        "/api/audit".into(),
    ];
    for rec in ["world.reel", catalog_name.as_str()] {
        for q in [
            "info?rec={}",
            "markers?rec={}",
            "frames?rec={}&from=0&count=200",
            "seek?rec={}&tick=70",
            "blocks?rec={}",
            "blocks?rec={}&tick=60",
            "terrain?rec={}&tick=10",
            "ghost?rec={}&entity=1&ghost_entity=2",
            "ghost?rec={}&entity=1&course=arena",
            "live?rec={}",
        ] {
            routes.push(format!("/api/{}", q.replace("{}", rec)));
        }
    }
    let mut moderator_saw = 0;
    for path in &routes {
        let (st, body) = get(&s, path, REVIEWER_TOKEN);
        assert!(st < 500, "GET {path} as a reviewer: {st} {body}");
        assert_eq!(leaks(&body), Vec::<String>::new(), "GET {path}: {body}");
        let (_, seen) = get(&s, path, MODERATOR_TOKEN);
        if !leaks(&seen).is_empty() {
            moderator_saw += 1;
        }
    }
    // the reviewer's answers are anonymized, not empty: a moderator's name the people
    let (_, info) = get(&s, "/api/info?rec=world.reel", REVIEWER_TOKEN);
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(info["entities"][0]["name"], "Suspect", "{info}");
    assert_eq!(info["entities"][1]["name"], "Player 2", "{info}");
    let (_, markers) = get(&s, "/api/markers?rec=world.reel", REVIEWER_TOKEN);
    assert!(
        markers.contains("Player 2 you are next, says Suspect (Suspect)"),
        "{markers}"
    );
    // the reports inbox is moderators'; a reviewer works from the desk's queue
    let (st, _) = get(&s, "/api/reports", REVIEWER_TOKEN);
    assert_eq!(st, 403);
    let (st, desk) = get(&s, "/api/desk", REVIEWER_TOKEN);
    assert_eq!(st, 200, "{desk}");
    let desk: serde_json::Value = serde_json::from_str(&desk).unwrap();
    assert_eq!(desk["queue"].as_array().map(Vec::len), Some(1), "{desk}");
    let queued = desk["queue"][0]["recording"].as_str().unwrap().to_string();
    assert!(
        moderator_saw >= 8,
        "a moderator's answers name the people ({moderator_saw} of {})",
        routes.len()
    );
    let (_, modinfo) = get(&s, "/api/info?rec=world.reel", MODERATOR_TOKEN);
    assert!(modinfo.contains(SUSPECT), "{modinfo}");

    // the reviewer's page: the report opened from the desk's link names nobody
    let mut b = browser();
    // the desk's link to the report's recording, as a reviewer follows it
    b.open(&format!(
        "{}/?token={REVIEWER_TOKEN}&rec={}",
        s.base,
        urlencoding(&queued)
    ))
    .unwrap();
    wait_for(
        &mut b,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
    );
    wait_for(
        &mut b,
        "window.tickreelViewer.state().shownTick !== null && window.tickreelViewer.state().markers !== null",
    );
    b.eval("window.tickreelViewer.follow(1)");
    b.eval("window.tickreelViewer.seek(70)");
    wait_for(
        &mut b,
        "document.getElementById('inspector').innerText.length > 0",
    );
    let page = b.eval(
        "document.documentElement.outerHTML + '\\n' + document.body.innerText + '\\n' + \
         [...document.querySelectorAll('input,select,option')].map(e => e.value + ' ' + e.label).join(' ')",
    );
    let page = page.as_str().unwrap();
    assert!(page.contains("Suspect"), "{page}");
    assert_eq!(leaks(page), Vec::<String>::new());
    assert_eq!(state(&mut b)["errors"], json!([]));
}

/// `s` percent-encoded for a query value.
fn urlencoding(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
