//! Watching together: a watch party on one recording. One member has the controls (at first the
//! one who joined first); their play, pause, speed and seeks are the party's playback state,
//! which every member's page follows. A member asks for the controls and the controller hands
//! them over; bookmarks with notes, at ticks, are seen by the whole party.
//!
//! A member is an open event stream (`GET /api/party/events`, server-sent events, as
//! `/api/live`): it joins when the stream opens and leaves when it closes (or by
//! `{"action": "leave"}`). The stream sends `hello` (the member's id and key, the recording),
//! then `state` at each change of the playback state and `party` at each change of the members,
//! the controls, the requests for them and the bookmarks; `party` with `ended` set is its last.
//! Actions (`POST /api/party/act`) carry the member's key: only the controller's `control`
//! changes the state; only the controller hands the controls over.
//!
//! Bounded: at most [`MAX_PARTIES`] parties, [`MAX_MEMBERS`] members and [`MAX_BOOKMARKS`]
//! bookmarks of at most [`NOTE_MAX_CHARS`] characters each; a party ends when its last member
//! leaves (at once when they leave by the action, [`LEFT_GRACE`] after their stream closed, so
//! that a page reloaded keeps its party), when nobody joins it within [`JOIN_WAIT`] of its
//! creation, and [`MAX_AGE`] after it was created whatever happens.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{FutureExt, Stream};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::watch;

use super::error::{ApiError, ApiResult};

/// Parties at once on one server.
pub const MAX_PARTIES: usize = 64;
/// Members of one party at once.
pub const MAX_MEMBERS: usize = 32;
/// Bookmarks of one party.
pub const MAX_BOOKMARKS: usize = 256;
/// The longest bookmark note.
pub const NOTE_MAX_CHARS: usize = 280;
/// A party ends this long after it was created.
pub const MAX_AGE: Duration = Duration::from_secs(12 * 3600);
/// A party nobody joined ends this long after it was created.
pub const JOIN_WAIT: Duration = Duration::from_secs(60);
/// A party whose last member's stream closed ends this long after, unless someone joins.
pub const LEFT_GRACE: Duration = Duration::from_secs(10);
/// The fastest and slowest speeds (the viewer's).
pub const SPEED_MIN: f64 = 0.25;
pub const SPEED_MAX: f64 = 16.0;
/// How often an idle stream sends a comment (a closed connection is found by it).
const KEEP_ALIVE: Duration = Duration::from_secs(5);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The playback state every member follows.
#[derive(Debug, Clone, PartialEq)]
pub struct Playback {
    /// Bumped at each change; the controller's action answer names it.
    pub seq: u64,
    pub tick: f64,
    pub playing: bool,
    /// 1 forward, -1 backward.
    pub dir: i8,
    pub speed: f64,
    /// A correction sent while playing: members off by little keep their own position.
    pub sync: bool,
    /// The member whose action set it.
    pub by: u64,
}

impl Playback {
    fn json(&self) -> Value {
        json!({"seq": self.seq, "tick": self.tick, "playing": self.playing, "dir": self.dir,
            "speed": self.speed, "sync": self.sync, "by": self.by, "at_ms": now_ms()})
    }
}

#[derive(Debug, Clone)]
struct Member {
    id: u64,
    key: String,
    name: String,
}

#[derive(Debug, Clone)]
struct Bookmark {
    id: u64,
    tick: u32,
    note: String,
    by: String,
    at_ms: u64,
}

struct Party {
    rec: String,
    created: Instant,
    /// Since when it has had no member (None: it has members).
    empty_since: Option<Instant>,
    /// Whether anyone ever joined it.
    joined: bool,
    members: Vec<Member>,
    controller: Option<u64>,
    requests: Vec<u64>,
    bookmarks: Vec<Bookmark>,
    next_member: u64,
    next_bookmark: u64,
    playback: Playback,
    state_tx: watch::Sender<Arc<str>>,
    roster_tx: watch::Sender<Arc<str>>,
}

impl Party {
    fn roster(&self, ended: Option<&str>) -> Value {
        json!({
            "rec": self.rec,
            "members": self.members.iter().map(|m| json!({"id": m.id, "name": m.name})).collect::<Vec<_>>(),
            "controller": self.controller,
            "requests": self.requests,
            "bookmarks": self.bookmarks.iter().map(|b| json!({"id": b.id, "tick": b.tick,
                "note": b.note, "by": b.by, "at_ms": b.at_ms})).collect::<Vec<_>>(),
            "ended": ended,
        })
    }
    fn send_roster(&self) {
        self.roster_tx
            .send_replace(self.roster(None).to_string().into());
    }
    fn send_state(&self) {
        self.state_tx
            .send_replace(self.playback.json().to_string().into());
    }
    fn member(&self, key: &str) -> ApiResult<&Member> {
        self.members
            .iter()
            .find(|m| same(m.key.as_bytes(), key.as_bytes()))
            .ok_or_else(|| ApiError::forbidden("not a member of this party (join it first)"))
    }
    /// Why it is over at `now`, if it is.
    fn over(&self, now: Instant) -> Option<&'static str> {
        if now.duration_since(self.created) >= MAX_AGE {
            return Some("the party reached its longest time");
        }
        match self.empty_since {
            Some(t) if self.joined && now.duration_since(t) >= LEFT_GRACE => {
                Some("its last member left")
            }
            Some(t) if !self.joined && now.duration_since(t) >= JOIN_WAIT => {
                Some("nobody joined it")
            }
            _ => None,
        }
    }
    /// Removes member `id`; the controls go to the member who joined first among those left.
    fn remove(&mut self, id: u64) {
        self.members.retain(|m| m.id != id);
        self.requests.retain(|r| *r != id);
        if self.controller == Some(id) {
            self.controller = self.members.first().map(|m| m.id);
        }
        if self.members.is_empty() {
            self.empty_since = Some(Instant::now());
        }
    }
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The server's parties.
#[derive(Default)]
pub struct Parties {
    parties: Mutex<HashMap<String, Party>>,
}

/// What a member's stream holds: leaving when dropped.
struct Membership {
    parties: Arc<Parties>,
    party: String,
    member: u64,
}

impl Drop for Membership {
    fn drop(&mut self) {
        let mut all = self.parties.parties.lock();
        // (gone already when it left by the action)
        if let Some(p) = all.get_mut(&self.party)
            && p.members.iter().any(|m| m.id == self.member)
        {
            p.remove(self.member);
            p.send_roster();
        }
    }
}

/// An action of a member on a party (`POST /api/party/act`).
#[derive(Debug, Deserialize)]
pub struct Act {
    pub party: String,
    pub key: String,
    #[serde(flatten)]
    pub action: Action,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// The controller's playback state.
    Control {
        tick: f64,
        playing: bool,
        #[serde(default = "forward")]
        dir: i8,
        #[serde(default = "one")]
        speed: f64,
        #[serde(default)]
        sync: bool,
    },
    /// Asks the controller for the controls.
    Request,
    /// The controller hands the controls to member `to`.
    Hand { to: u64 },
    /// A bookmark at `tick` with a note, seen by the party.
    Bookmark { tick: u32, note: String },
    /// Leaves the party (its stream is closed by the page).
    Leave,
}

fn forward() -> i8 {
    1
}
fn one() -> f64 {
    1.0
}

impl Parties {
    /// Ends the parties over (their streams end: their senders go).
    fn sweep(all: &mut HashMap<String, Party>) {
        Parties::sweep_at(all, Instant::now());
    }

    fn sweep_at(all: &mut HashMap<String, Party>, now: Instant) {
        all.retain(|_, p| match p.over(now) {
            Some(why) => {
                p.roster_tx
                    .send_replace(p.roster(Some(why)).to_string().into());
                false
            }
            None => true,
        });
    }

    /// How many parties there are (ended ones swept first).
    pub fn len(&self) -> usize {
        let mut all = self.parties.lock();
        Parties::sweep(&mut all);
        all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A new party on recording `rec` (a name the library opened) at `tick`; its id.
    pub fn create(&self, rec: &str, tick: f64) -> ApiResult<String> {
        let mut all = self.parties.lock();
        Parties::sweep(&mut all);
        if all.len() >= MAX_PARTIES {
            return Err(ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                format!("{MAX_PARTIES} watch parties are open on this server: try again later"),
            )
            .retry_after(60));
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let playback = Playback {
            seq: 0,
            tick: tick_ok(tick)?,
            playing: false,
            dir: 1,
            speed: 1.0,
            sync: false,
            by: 0,
        };
        let now = Instant::now();
        let mut p = Party {
            rec: rec.to_string(),
            created: now,
            empty_since: Some(now),
            joined: false,
            members: Vec::new(),
            controller: None,
            requests: Vec::new(),
            bookmarks: Vec::new(),
            next_member: 1,
            next_bookmark: 1,
            playback,
            state_tx: watch::channel(Arc::from("")).0,
            roster_tx: watch::channel(Arc::from("")).0,
        };
        p.send_state();
        p.send_roster();
        p.created = now;
        all.insert(id.clone(), p);
        Ok(id)
    }

    /// Joins party `id` as `name` (the staff token's; without one, "viewer N" by the order
    /// of joining): the member's stream of events, which leaves when dropped.
    pub fn join(
        self: &Arc<Self>,
        id: &str,
        name: Option<&str>,
    ) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>> + use<>>> {
        let (hello, state_rx, roster_rx, deadline, membership) = {
            let mut all = self.parties.lock();
            Parties::sweep(&mut all);
            let p = all
                .get_mut(id)
                .ok_or_else(|| ApiError::not_found("no such watch party (it may have ended)"))?;
            if p.members.len() >= MAX_MEMBERS {
                return Err(ApiError::new(
                    axum::http::StatusCode::CONFLICT,
                    format!("the party is full: at most {MAX_MEMBERS} members"),
                ));
            }
            let member = p.next_member;
            p.next_member += 1;
            let key = uuid::Uuid::new_v4().simple().to_string();
            let name = name.map_or_else(|| format!("viewer {member}"), str::to_string);
            p.members.push(Member {
                id: member,
                key: key.clone(),
                name: name.clone(),
            });
            p.joined = true;
            p.empty_since = None;
            if p.controller.is_none() {
                p.controller = Some(member);
            }
            p.send_roster();
            let hello = json!({"party": id, "member": member, "key": key, "rec": p.rec,
                "name": name, "limits": {"members": MAX_MEMBERS, "bookmarks": MAX_BOOKMARKS,
                "note_chars": NOTE_MAX_CHARS}});
            let mut state_rx = p.state_tx.subscribe();
            let mut roster_rx = p.roster_tx.subscribe();
            state_rx.mark_changed();
            roster_rx.mark_changed();
            let deadline = tokio::time::Instant::from_std(p.created + MAX_AGE);
            let membership = Membership {
                parties: self.clone(),
                party: id.to_string(),
                member,
            };
            (hello, state_rx, roster_rx, deadline, membership)
        };
        struct Follow {
            hello: Option<Value>,
            state_rx: watch::Receiver<Arc<str>>,
            roster_rx: watch::Receiver<Arc<str>>,
            deadline: tokio::time::Instant,
            membership: Membership,
            done: bool,
        }
        let f = Follow {
            hello: Some(hello),
            state_rx,
            roster_rx,
            deadline,
            membership,
            done: false,
        };
        let s = futures::stream::unfold(f, |mut f| async move {
            if f.done {
                return None;
            }
            if let Some(h) = f.hello.take() {
                let ev = Event::default().event("hello").data(h.to_string());
                return Some((Ok(ev), f));
            }
            enum Next {
                State,
                Roster,
                Closed,
                Late,
            }
            let next = {
                let a = f.state_rx.changed().fuse();
                let b = f.roster_rx.changed().fuse();
                let c = tokio::time::sleep_until(f.deadline).fuse();
                futures::pin_mut!(a, b, c);
                futures::select_biased! {
                    r = a => if r.is_ok() { Next::State } else { Next::Closed },
                    r = b => if r.is_ok() { Next::Roster } else { Next::Closed },
                    () = c => Next::Late,
                }
            };
            match next {
                Next::State => {
                    let v = f.state_rx.borrow_and_update().clone();
                    Some((Ok(Event::default().event("state").data(&*v)), f))
                }
                Next::Roster => {
                    let v = f.roster_rx.borrow_and_update().clone();
                    Some((Ok(Event::default().event("party").data(&*v)), f))
                }
                Next::Closed => {
                    // the party was swept: its last roster (with `ended`) is the stream's end
                    f.done = true;
                    let v = f.roster_rx.borrow_and_update().clone();
                    Some((Ok(Event::default().event("party").data(&*v)), f))
                }
                Next::Late => {
                    let mut all = f.membership.parties.parties.lock();
                    Parties::sweep(&mut all);
                    drop(all);
                    // swept: the senders are gone, the next look sends the last roster
                    Some((Ok(Event::default().comment("ended")), f))
                }
            }
        });
        Ok(Sse::new(s).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
    }

    /// Member `act.key`'s action on party `act.party`; the answer names what changed.
    pub fn act(&self, act: &Act) -> ApiResult<Value> {
        let mut all = self.parties.lock();
        Parties::sweep(&mut all);
        let p = all
            .get_mut(&act.party)
            .ok_or_else(|| ApiError::not_found("no such watch party (it may have ended)"))?;
        let me = p.member(&act.key)?.clone();
        match &act.action {
            Action::Control {
                tick,
                playing,
                dir,
                speed,
                sync,
            } => {
                if p.controller != Some(me.id) {
                    return Err(ApiError::forbidden(
                        "another member has the controls: ask them for the controls",
                    ));
                }
                if !(SPEED_MIN..=SPEED_MAX).contains(speed) {
                    return Err(ApiError::bad_request(format!(
                        "speed: from {SPEED_MIN} to {SPEED_MAX}"
                    )));
                }
                if *dir != 1 && *dir != -1 {
                    return Err(ApiError::bad_request("dir: 1 or -1"));
                }
                p.playback = Playback {
                    seq: p.playback.seq + 1,
                    tick: tick_ok(*tick)?,
                    playing: *playing,
                    dir: *dir,
                    speed: *speed,
                    sync: *sync,
                    by: me.id,
                };
                p.send_state();
                Ok(json!({"seq": p.playback.seq}))
            }
            Action::Request => {
                if p.controller != Some(me.id) && !p.requests.contains(&me.id) {
                    p.requests.push(me.id);
                    p.send_roster();
                }
                Ok(json!({"requests": p.requests}))
            }
            Action::Hand { to } => {
                if p.controller != Some(me.id) {
                    return Err(ApiError::forbidden(
                        "only the controller hands the controls over",
                    ));
                }
                if !p.members.iter().any(|m| m.id == *to) {
                    return Err(ApiError::bad_request(format!(
                        "no member {to} in this party"
                    )));
                }
                p.controller = Some(*to);
                p.requests.retain(|r| r != to);
                p.send_roster();
                Ok(json!({"controller": to}))
            }
            Action::Bookmark { tick, note } => {
                let note = note.trim();
                if note.chars().count() > NOTE_MAX_CHARS || note.chars().any(char::is_control) {
                    return Err(ApiError::bad_request(format!(
                        "note: at most {NOTE_MAX_CHARS} characters, no control characters"
                    )));
                }
                if p.bookmarks.len() >= MAX_BOOKMARKS {
                    return Err(ApiError::new(
                        axum::http::StatusCode::CONFLICT,
                        format!("the party has {MAX_BOOKMARKS} bookmarks, its most"),
                    ));
                }
                let id = p.next_bookmark;
                p.next_bookmark += 1;
                p.bookmarks.push(Bookmark {
                    id,
                    tick: *tick,
                    note: note.to_string(),
                    by: me.name.clone(),
                    at_ms: now_ms(),
                });
                p.bookmarks.sort_by_key(|b| (b.tick, b.id));
                p.send_roster();
                Ok(json!({"bookmark": id}))
            }
            Action::Leave => {
                p.remove(me.id);
                if p.members.is_empty() {
                    // left by the action: over at once
                    let why = "its last member left";
                    p.roster_tx
                        .send_replace(p.roster(Some(why)).to_string().into());
                    all.remove(&act.party);
                } else {
                    p.send_roster();
                }
                Ok(json!({"left": true}))
            }
        }
    }
}

/// A tick of the playback state: finite, from 0 to the format's last tick.
fn tick_ok(t: f64) -> ApiResult<f64> {
    if t.is_finite() && (0.0..=f64::from(u32::MAX)).contains(&t) {
        Ok(t)
    } else {
        Err(ApiError::bad_request("tick: a number from 0 to 2^32 - 1"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(party: &str, key: &str, action: Action) -> Act {
        Act {
            party: party.into(),
            key: key.into(),
            action,
        }
    }

    fn add(parties: &Parties, id: &str, name: &str) -> (u64, String) {
        let mut all = parties.parties.lock();
        let p = all.get_mut(id).unwrap();
        let m = p.next_member;
        p.next_member += 1;
        let key = format!("key-{m}");
        p.members.push(Member {
            id: m,
            key: key.clone(),
            name: name.into(),
        });
        p.joined = true;
        p.empty_since = None;
        p.controller.get_or_insert(m);
        (m, key)
    }

    #[test]
    fn only_the_controller_controls_and_hands_over() {
        let parties = Parties::default();
        let id = parties.create("sim.reel", 0.0).unwrap();
        let (a, ka) = add(&parties, &id, "a");
        let (b, kb) = add(&parties, &id, "b");
        let control = |tick| Action::Control {
            tick,
            playing: true,
            dir: 1,
            speed: 2.0,
            sync: false,
        };
        assert_eq!(
            parties.act(&act(&id, &ka, control(10.0))).unwrap()["seq"],
            1
        );
        let e = parties.act(&act(&id, &kb, control(20.0))).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN);
        assert!(parties.act(&act(&id, "nobody", Action::Request)).is_err());
        parties.act(&act(&id, &kb, Action::Request)).unwrap();
        let e = parties
            .act(&act(&id, &kb, Action::Hand { to: b }))
            .unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN);
        parties.act(&act(&id, &ka, Action::Hand { to: b })).unwrap();
        assert!(parties.act(&act(&id, &ka, control(30.0))).is_err());
        assert_eq!(
            parties.act(&act(&id, &kb, control(30.0))).unwrap()["seq"],
            2
        );
        // bad speeds, directions and ticks are refused
        for bad in [
            Action::Control {
                tick: 1.0,
                playing: false,
                dir: 1,
                speed: 32.0,
                sync: false,
            },
            Action::Control {
                tick: 1.0,
                playing: false,
                dir: 0,
                speed: 1.0,
                sync: false,
            },
            control(f64::NAN),
            control(-1.0),
        ] {
            assert_eq!(
                parties.act(&act(&id, &kb, bad)).unwrap_err().status,
                axum::http::StatusCode::BAD_REQUEST
            );
        }
        // the controller leaving hands the controls to the first member left
        parties.act(&act(&id, &kb, Action::Leave)).unwrap();
        let all = parties.parties.lock();
        assert_eq!(all[&id].controller, Some(a));
    }

    #[test]
    fn parties_members_and_bookmarks_are_bounded() {
        let parties = Parties::default();
        let ids: Vec<String> = (0..MAX_PARTIES)
            .map(|_| parties.create("r", 0.0).unwrap())
            .collect();
        let e = parties.create("r", 0.0).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::SERVICE_UNAVAILABLE);
        let (_, k) = add(&parties, &ids[0], "a");
        for i in 0..MAX_BOOKMARKS {
            parties
                .act(&act(
                    &ids[0],
                    &k,
                    Action::Bookmark {
                        tick: i as u32,
                        note: "x".into(),
                    },
                ))
                .unwrap();
        }
        let more = Action::Bookmark {
            tick: 1,
            note: "x".into(),
        };
        assert_eq!(
            parties.act(&act(&ids[0], &k, more)).unwrap_err().status,
            axum::http::StatusCode::CONFLICT
        );
        let long = Action::Bookmark {
            tick: 1,
            note: "x".repeat(NOTE_MAX_CHARS + 1),
        };
        assert!(parties.act(&act(&ids[1], &k, long)).is_err());
        // leaving by the action ends a party at once: a place for a new one
        parties.act(&act(&ids[0], &k, Action::Leave)).unwrap();
        assert_eq!(parties.len(), MAX_PARTIES - 1);
        parties.create("r", 0.0).unwrap();
    }

    #[test]
    fn a_party_ends_after_its_bounds() {
        let parties = Parties::default();
        let never = parties.create("r", 0.0).unwrap();
        let left = parties.create("r", 0.0).unwrap();
        let old = parties.create("r", 0.0).unwrap();
        let (m, _) = add(&parties, &left, "a");
        add(&parties, &old, "b");
        let mut all = parties.parties.lock();
        all.get_mut(&left).unwrap().remove(m);
        let t0 = Instant::now();
        let second = Duration::from_secs(1);
        Parties::sweep_at(&mut all, t0 + LEFT_GRACE - second);
        assert_eq!(all.len(), 3);
        Parties::sweep_at(&mut all, t0 + LEFT_GRACE + second);
        assert!(!all.contains_key(&left) && all.len() == 2);
        Parties::sweep_at(&mut all, t0 + JOIN_WAIT + second);
        assert!(!all.contains_key(&never) && all.len() == 1);
        Parties::sweep_at(&mut all, t0 + MAX_AGE - second);
        assert_eq!(all.len(), 1);
        Parties::sweep_at(&mut all, t0 + MAX_AGE + second);
        assert!(all.is_empty());
    }
}
