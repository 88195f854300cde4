//! What a report keeps of the world: block changes and placed events within the radius of the
//! reported player (measured where the player stands at each tick), interactions with kept
//! entities, the reported player's chat and public chat of players within the radius (never
//! another player's private or team chat), the options to keep more, and reports by UUID.

use std::time::Duration;

use tickreel::format::EntityInfo;
use tickreel::format::{BlockPos, UseTarget, channel};
use tickreel::play::Reader;
use tickreel::shadow::{ReportChat, ReportKeep, ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Event, Pose, Recorder};

use super::support::{report_meta, shadow_only, submit};

const PLAYER: u32 = 1;
const NEAR: u32 = 2;
const FAR: u32 = 3;
const FAR2: u32 = 4;

fn block(x: i32, y: i32, z: i32, state: u32, cause: Option<u32>) -> Event {
    Event::BlockChange {
        pos: BlockPos::new(x, y, z),
        state,
        cause,
        block_entity: None,
    }
}

fn chat(sender: Option<u32>, ch: u32, text: &str) -> Event {
    Event::Chat {
        sender,
        channel: ch,
        text: text.into(),
    }
}

fn custom_at(entity: Option<u32>, position: Option<[f64; 3]>, tag: u8) -> Event {
    Event::CustomAt {
        type_id: 1,
        entity,
        position: position.map(|p| {
            let q = Pose::from_f64(p[0], p[1], p[2], 0.0, 0.0);
            Box::new([q.x, q.y, q.z])
        }),
        data: vec![tag],
    }
}

/// The world events of the stream, each with whether the default report (radius 48 around
/// PLAYER) keeps it. PLAYER stands at the origin until tick 50, then at z = -100 (NEAR, 10
/// blocks east of the origin, is then 100 blocks away); FAR and FAR2 stand 200 blocks away.
fn world(t: u32) -> Vec<(Event, bool)> {
    let far = Some(FAR);
    match t {
        10 => vec![
            (block(5, 64, 5, 1, None), true),
            (block(100, 64, 0, 1, far), false),
            // beyond the radius, but the player changed it
            (block(60, 64, 0, 2, Some(PLAYER)), true),
            (block(48, 64, 0, 3, None), false), // centre 48.5 blocks away
            (block(47, 64, 0, 3, None), true),
        ],
        11 => vec![
            (
                Event::BlockChanges {
                    cause: None,
                    blocks: vec![
                        (BlockPos::new(1, 64, 1), 4),
                        (BlockPos::new(300, 64, 0), 4),
                        (BlockPos::new(2, 64, 2), 5),
                    ],
                },
                // kept cut to its two blocks near (checked on its own)
                true,
            ),
            (
                Event::BlockChanges {
                    cause: far,
                    blocks: vec![(BlockPos::new(300, 64, 0), 4)],
                },
                false,
            ),
        ],
        12 => vec![
            (custom_at(None, Some([3.0, 64.0, 0.0]), 1), true),
            (custom_at(None, Some([200.0, 64.0, 0.0]), 2), false),
            (custom_at(far, None, 3), false),
            (custom_at(Some(NEAR), None, 4), true),
            (custom_at(None, None, 5), true),
            (custom_at(far, Some([1.0, 64.0, 0.0]), 6), true),
        ],
        13 => vec![
            (
                Event::Use {
                    entity: FAR,
                    hand: 0,
                    item: 7,
                    target: UseTarget::Block(BlockPos::new(2, 64, 0)),
                },
                true,
            ),
            (
                Event::Use {
                    entity: FAR,
                    hand: 0,
                    item: 7,
                    target: UseTarget::Block(BlockPos::new(201, 64, 0)),
                },
                false,
            ),
            (
                Event::Use {
                    entity: FAR,
                    hand: 1,
                    item: 0,
                    target: UseTarget::Entity(PLAYER),
                },
                true,
            ),
            (
                Event::Use {
                    entity: FAR,
                    hand: 1,
                    item: 0,
                    target: UseTarget::Nothing,
                },
                false,
            ),
        ],
        14 => vec![
            (
                Event::Attack {
                    attacker: FAR,
                    target: PLAYER,
                },
                true,
            ),
            (
                Event::Attack {
                    attacker: FAR,
                    target: FAR2,
                },
                false,
            ),
            (
                Event::Attack {
                    attacker: NEAR,
                    target: FAR,
                },
                true,
            ),
            (
                Event::Damage {
                    entity: PLAYER,
                    amount: 300,
                    cause: 1,
                    source: far,
                },
                true,
            ),
            (
                Event::Damage {
                    entity: FAR,
                    amount: 100,
                    cause: 2,
                    source: None,
                },
                false,
            ),
            (
                Event::Damage {
                    entity: FAR2,
                    amount: 100,
                    cause: 1,
                    source: Some(NEAR),
                },
                true,
            ),
        ],
        15 => vec![
            (chat(Some(PLAYER), channel::PRIVATE, "mine, whisper"), true),
            (chat(Some(PLAYER), channel::PUBLIC, "mine, public"), true),
            (chat(Some(NEAR), channel::PUBLIC, "near, public"), true),
            (chat(Some(NEAR), channel::PRIVATE, "near, private"), false),
            (chat(Some(NEAR), channel::TEAM, "near, team"), false),
            (chat(Some(NEAR), 9, "near, the game's own channel"), false),
            (chat(far, channel::PUBLIC, "far, public"), false),
            (chat(None, channel::SYSTEM, "server broadcast"), false),
        ],
        16 => vec![
            (
                Event::Equipment {
                    entity: NEAR,
                    slot: 0,
                    item: 3,
                    count: 1,
                },
                true,
            ),
            (
                Event::Health {
                    entity: NEAR,
                    health: 1500,
                },
                true,
            ),
            (
                Event::Health {
                    entity: FAR,
                    health: 1500,
                },
                false,
            ),
            (
                Event::Swing {
                    entity: FAR,
                    hand: 0,
                },
                false,
            ),
            (
                Event::Swing {
                    entity: PLAYER,
                    hand: 0,
                },
                true,
            ),
        ],
        // The player has moved to z = -100: the same block is now far, one beside them near.
        60 => vec![
            (block(5, 64, 5, 6, None), false),
            (block(0, 64, -101, 6, None), true),
            (
                chat(Some(NEAR), channel::PUBLIC, "near before, far now"),
                false,
            ),
            (chat(Some(PLAYER), channel::PUBLIC, "moved"), true),
        ],
        _ => Vec::new(),
    }
}

fn poses(t: u32) -> Vec<Event> {
    let z = if t < 50 { 0.0 } else { -100.0 };
    let at = |id: u32, x: f64, z: f64| {
        let pose = Pose::from_f64(x, 64.0, z, 0.0, 0.0);
        if t == 0 {
            Event::EntityAdd {
                entity: id,
                kind: 1,
                pose,
            }
        } else {
            Event::Pose { entity: id, pose }
        }
    };
    let mut ev = vec![at(PLAYER, 0.0, z)];
    if t.is_multiple_of(10) {
        ev.push(at(NEAR, 10.0, 0.0));
        ev.push(at(FAR, 200.0, 0.0));
        ev.push(at(FAR2, 200.0, 5.0));
    }
    ev
}

fn stream() -> (tickreel::Engine, Recorder, ShadowBuffer) {
    let (engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(60),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    for t in 0..100 {
        let mut ev = poses(t);
        ev.extend(world(t).into_iter().map(|(e, _)| e));
        submit(&rec, t, &ev);
    }
    rec.flush().unwrap();
    (engine, rec, shadow)
}

/// The events of a report that are not poses or entity lifecycle, by tick.
fn world_events(path: &std::path::Path) -> Vec<(u32, Event)> {
    let r = Reader::open_path(path).unwrap();
    r.ticks(r.first_tick().unwrap(), r.last_tick().unwrap())
        .map(|t| t.unwrap())
        .flat_map(|t| {
            t.events
                .into_iter()
                .filter(|e| e.is_world())
                .map(move |e| (t.tick, e))
        })
        .collect()
}

fn report(shadow: &ShadowBuffer, path: &std::path::Path, keep: ReportKeep) -> Vec<(u32, Event)> {
    shadow
        .report(
            PLAYER,
            path,
            ReportOptions {
                after: Duration::ZERO,
                keep,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    world_events(path)
}

#[test]
fn a_report_keeps_the_world_near_the_player_and_interactions_with_kept_entities() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, _rec, shadow) = stream();
    let got = report(&shadow, &dir.path().join("r.reel"), ReportKeep::default());
    let want: Vec<(u32, Event)> = (0..100)
        .flat_map(|t| {
            world(t).into_iter().filter(|x| x.1).map(move |(e, _)| {
                let e = match e {
                    // cut to the blocks within the radius
                    Event::BlockChanges { cause, blocks } => Event::BlockChanges {
                        cause,
                        blocks: blocks.into_iter().filter(|b| b.0.x < 100).collect(),
                    },
                    e => e,
                };
                (t, e)
            })
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn options_keep_every_block_and_more_chat() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, _rec, shadow) = stream();
    let every: Vec<(u32, Event)> = (0..100)
        .flat_map(|t| world(t).into_iter().map(move |(e, _)| (t, e)))
        .collect();
    let texts = |evs: &[(u32, Event)]| -> Vec<String> {
        evs.iter()
            .filter_map(|(_, e)| match e {
                Event::Chat { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    };
    let is_block = |e: &Event| {
        matches!(
            e,
            Event::BlockChange { .. } | Event::BlockChanges { .. } | Event::CustomAt { .. }
        )
    };

    // Every block change and placed event, wherever it was; chat as by default.
    let got = report(
        &shadow,
        &dir.path().join("blocks.reel"),
        ReportKeep {
            all_blocks: true,
            ..ReportKeep::default()
        },
    );
    let placed = |evs: &[(u32, Event)]| -> Vec<(u32, Event)> {
        evs.iter()
            .filter(|(_, e)| is_block(e))
            .filter(|&(_, e)| !matches!(e, Event::CustomAt { data, .. } if data == &[3]))
            .cloned()
            .collect()
    };
    assert_eq!(placed(&got), placed(&every));
    assert_eq!(
        texts(&got),
        ["mine, whisper", "mine, public", "near, public", "moved"]
    );

    // Public chat of anyone, and the server's lines; never others' private or team chat.
    let got = report(
        &shadow,
        &dir.path().join("public.reel"),
        ReportKeep {
            chat: ReportChat::Public,
            ..ReportKeep::default()
        },
    );
    assert_eq!(
        texts(&got),
        [
            "mine, whisper",
            "mine, public",
            "near, public",
            "far, public",
            "server broadcast",
            "near before, far now",
            "moved"
        ]
    );
    // Everything, for a server whose rules allow it.
    let got = report(
        &shadow,
        &dir.path().join("all.reel"),
        ReportKeep {
            chat: ReportChat::All,
            ..ReportKeep::default()
        },
    );
    assert_eq!(texts(&got), texts(&every));
}

/// A player who relogs gets a new entity id: a report by UUID finds the newest one, and the
/// report names the player by UUID and name.
#[test]
fn a_report_by_uuid_takes_the_players_newest_entity() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(60),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    let uuid = uuid::Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0);
    let other = uuid::Uuid::from_u128(7);
    for (id, u) in [(5, uuid), (6, other), (9, uuid)] {
        rec.register_entity(EntityInfo {
            id,
            kind: 1,
            uuid: Some(u),
            name: Some(if u == uuid { "Steve" } else { "Alex" }.into()),
        })
        .unwrap();
    }
    for t in 0..100u32 {
        let pose = Pose::from_f64(f64::from(t) * 0.1, 64.0, 0.0, 0.0, 0.0);
        let ev = match t {
            0 => vec![
                Event::EntityAdd {
                    entity: 5,
                    kind: 1,
                    pose,
                },
                Event::EntityAdd {
                    entity: 6,
                    kind: 1,
                    pose,
                },
            ],
            40 => vec![Event::PlayerLeave { entity: 5 }],
            60 => vec![Event::EntityAdd {
                entity: 9,
                kind: 1,
                pose,
            }],
            t if t < 40 => vec![Event::Pose { entity: 5, pose }],
            t if t > 60 => vec![Event::Pose { entity: 9, pose }],
            _ => vec![],
        };
        submit(&rec, t, &ev);
    }
    rec.flush().unwrap();
    let out = dir.path().join("uuid.reel");
    let now = || ReportOptions {
        after: Duration::ZERO,
        ..ReportOptions::default()
    };
    shadow
        .report_uuid(uuid, &out, now())
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&out).unwrap();
    let m = report_meta(&r);
    assert_eq!(m.get("player"), Some(&fastnbt::Value::Int(9)));
    assert_eq!(
        m.get("player_uuid"),
        Some(&fastnbt::Value::String(uuid.to_string()))
    );
    assert_eq!(
        m.get("player_name"),
        Some(&fastnbt::Value::String("Steve".into()))
    );
    let missing = uuid::Uuid::from_u128(99);
    let e = shadow
        .report_uuid(missing, dir.path().join("none.reel"), now())
        .unwrap_err();
    assert!(e.to_string().contains(&missing.to_string()), "{e}");
}
