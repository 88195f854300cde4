//! Anonymous review: what a reviewer's requests are answered with. Every name, UUID, skin and chat
//! name of everyone in a report is replaced by a stable pseudonym — the reported player is
//! "Suspect", whoever reported them "Reporter", the other players "Player 2", "Player 3", ... in
//! the order of their entity ids — in every JSON answer a reviewer gets ([`Pseudonyms::apply`],
//! called by the routes' guard for requests whose token has the reviewer role). Moderators and
//! admins see names.
//!
//! The identities come from the recording the request names (`rec`, and `ghost` for a race):
//! its registered entities' names and UUIDs, and the catalog's reports on it (the reported
//! player and the reporter, by UUID and name); and from every report of the catalog (the
//! inbox lists them all). Each is replaced in every string of the answer (a chat line naming a
//! player, a metadata value, a location) in each form a UUID is written (hyphenated, 32 hex
//! digits, either case) and a name's (any case, and URL-encoded), and as the four-int array
//! of Minecraft's NBT; a string holding base64 whose text names one (a skin's `textures`
//! property holds the profile's name and UUID), a skin's texture address, and the value of any
//! metadata key naming a skin, texture or signature, are replaced whole. A name shorter than
//! [`NAME_MIN_CHARS`] (no Minecraft name is) is not looked for inside longer strings, only as a
//! whole string.

use base64::Engine as _;
use fastnbt::Value as Nbt;
use serde_json::Value;
use tickreel::shadow::REPORT_KEY;
use uuid::Uuid;

use super::error::ApiResult;
use super::library::{CATALOG_PREFIX, Library};

/// A name this short is replaced only where it is a whole string.
pub const NAME_MIN_CHARS: usize = 3;
/// What a skin, a texture address or a signature is replaced by.
pub const HIDDEN: &str = "(hidden)";
/// The reported player.
pub const SUSPECT: &str = "Suspect";
/// Whoever reported them.
pub const REPORTER: &str = "Reporter";

/// The pseudonyms of a reviewer's answer: the people of the recordings `recs` (their reports'
/// suspect and reporter first, then their entities by id), then the people of every report in the
/// catalog and the players of its runs (who keep a pseudonym already given). Blocking.
pub fn for_request(lib: &Library, recs: &[&str]) -> ApiResult<Pseudonyms> {
    let mut p = Pseudonyms::new();
    let reports = if lib.has_catalog() {
        lib.with_catalog(|c| c.reports(None))?
    } else {
        Vec::new()
    };
    for rec in recs {
        // a name that does not open is answered 404 by its route: nobody to hide
        let Ok(h) = lib.open(rec) else { continue };
        if lib.has_catalog() {
            let id = rec
                .strip_prefix(CATALOG_PREFIX)
                .and_then(|id| id.parse::<i64>().ok());
            let location = lib.location(rec).unwrap_or_default();
            let on = lib.with_catalog(|c| c.reports_on_recording(id, &location))?;
            for r in reports.iter().filter(|r| on.contains(&r.id)) {
                p.add(Some(&r.reported_name), Some(r.reported), Some(SUSPECT));
                p.add(None, Some(r.reporter), Some(REPORTER));
            }
        }
        let view = h.rec.view();
        let meta = view.reader().metadata();
        let mut entities: Vec<_> = meta.library.entities.iter().collect();
        entities.sort_by_key(|e| e.id);
        // a shadow-play report names its player by entity id (and UUID and name)
        if let Some(Nbt::Compound(rep)) = meta.user.get(REPORT_KEY) {
            let entity = match rep.get("player") {
                // (written as an Int of the u32 id)
                Some(Nbt::Int(i)) => Some(*i as u32),
                _ => None,
            };
            let uuid = match rep.get("player_uuid") {
                Some(Nbt::String(s)) => Uuid::parse_str(s).ok(),
                _ => None,
            };
            let name = match rep.get("player_name") {
                Some(Nbt::String(s)) => Some(s.as_str()),
                _ => None,
            };
            p.add(name, uuid, Some(SUSPECT));
            if let Some(e) = entities.iter().find(|e| Some(e.id) == entity) {
                p.add(e.name.as_deref(), e.uuid, Some(SUSPECT));
            }
        }
        for e in &entities {
            p.add(e.name.as_deref(), e.uuid, None);
        }
    }
    p.settled = true;
    for r in &reports {
        p.add(Some(&r.reported_name), Some(r.reported), Some(SUSPECT));
        p.add(None, Some(r.reporter), Some(REPORTER));
    }
    if lib.has_catalog() {
        let runs = lib.with_catalog(|c| c.recording_runs(100_000))?;
        for (_, _, player) in &runs {
            p.add(Some(player), None, None);
        }
    }
    Ok(p)
}

/// One person: what names them, and what they are called instead.
#[derive(Debug, Clone)]
struct Identity {
    names: Vec<String>,
    uuid: Option<Uuid>,
    pseudonym: String,
}

/// The identities of an answer and their pseudonyms.
#[derive(Debug, Clone, Default)]
pub struct Pseudonyms {
    people: Vec<Identity>,
    next_player: u32,
    /// The people of the answer's recordings are in: those added after keep their pseudonyms.
    settled: bool,
}

impl Pseudonyms {
    pub fn new() -> Pseudonyms {
        Pseudonyms {
            people: Vec::new(),
            // "Player 1" would be the suspect's number: the others start at 2
            next_player: 2,
            settled: false,
        }
    }

    fn find(&mut self, name: Option<&str>, uuid: Option<Uuid>) -> Option<usize> {
        self.people.iter().position(|p| {
            uuid.is_some_and(|u| p.uuid == Some(u))
                || name.is_some_and(|n| p.names.iter().any(|m| m.eq_ignore_ascii_case(n)))
        })
    }

    /// Adds a person (known by name, UUID or both) called `pseudonym`, or a player with the next
    /// number when `None`; one already known keeps their pseudonym and gains the name or UUID.
    pub fn add(&mut self, name: Option<&str>, uuid: Option<Uuid>, pseudonym: Option<&str>) {
        let name = name.map(str::trim).filter(|n| !n.is_empty());
        if name.is_none() && uuid.is_none() {
            return;
        }
        if let Some(i) = self.find(name, uuid) {
            let p = &mut self.people[i];
            if let Some(n) = name
                && !p.names.iter().any(|m| m == n)
            {
                p.names.push(n.to_string());
            }
            if p.uuid.is_none() {
                p.uuid = uuid;
            }
            // the suspect stays the suspect whoever else they are
            if pseudonym == Some(SUSPECT) && !self.settled {
                p.pseudonym = SUSPECT.to_string();
            }
            return;
        }
        let pseudonym = pseudonym.map_or_else(
            || {
                let n = self.next_player;
                self.next_player += 1;
                format!("Player {n}")
            },
            str::to_string,
        );
        self.people.push(Identity {
            names: name.map(|n| vec![n.to_string()]).unwrap_or_default(),
            uuid,
            pseudonym,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.people.is_empty()
    }

    /// Replaces every identity in `v` by its pseudonym.
    pub fn apply(&self, v: &mut Value) {
        self.walk(v);
    }

    /// `text` (a CSV or SVG answer, an export) with every identity replaced.
    pub fn apply_text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for p in &self.people {
            if let Some(u) = p.uuid {
                for form in [u.hyphenated().to_string(), u.simple().to_string()] {
                    replace_ci(&mut out, &form, &p.pseudonym);
                }
            }
            for n in p
                .names
                .iter()
                .filter(|n| n.chars().count() >= NAME_MIN_CHARS)
            {
                replace_ci(&mut out, n, &p.pseudonym);
                replace_ci(&mut out, &url_encoded(n), &p.pseudonym);
            }
        }
        out
    }

    fn walk(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Some(r) = self.string(s) {
                    *s = r;
                }
            }
            Value::Array(a) => {
                if let Some(p) = self.int_uuid(a) {
                    *v = Value::String(p);
                    return;
                }
                for x in a {
                    self.walk(x);
                }
            }
            Value::Object(o) => {
                let keys: Vec<String> = o.keys().cloned().collect();
                for k in keys {
                    let mut x = o.remove(&k).expect("a key listed");
                    if secret_key(&k) && !x.is_null() {
                        x = Value::String(HIDDEN.into());
                    } else {
                        self.walk(&mut x);
                    }
                    let k2 = self.string(&k).unwrap_or(k);
                    o.insert(k2, x);
                }
            }
            _ => {}
        }
    }

    /// The pseudonym of a UUID written as NBT's four ints (most significant first).
    fn int_uuid(&self, a: &[Value]) -> Option<String> {
        if a.len() != 4 {
            return None;
        }
        let mut bytes = [0u8; 16];
        for (i, x) in a.iter().enumerate() {
            let n = i32::try_from(x.as_i64()?).ok()?;
            bytes[i * 4..i * 4 + 4].copy_from_slice(&n.to_be_bytes());
        }
        let u = Uuid::from_bytes(bytes);
        self.people
            .iter()
            .find(|p| p.uuid == Some(u))
            .map(|p| p.pseudonym.clone())
    }

    /// `s` with every identity in it replaced, or `None` when it names nobody.
    fn string(&self, s: &str) -> Option<String> {
        if s.contains("textures.minecraft.net") {
            return Some(HIDDEN.into());
        }
        let mut out = s.to_string();
        let mut changed = false;
        for p in &self.people {
            if let Some(u) = p.uuid {
                for form in [u.hyphenated().to_string(), u.simple().to_string()] {
                    changed |= replace_ci(&mut out, &form, &p.pseudonym);
                }
            }
            for n in &p.names {
                if n.chars().count() < NAME_MIN_CHARS {
                    if out == *n {
                        out = p.pseudonym.clone();
                        changed = true;
                    }
                    continue;
                }
                changed |= replace_ci(&mut out, n, &p.pseudonym);
                let enc = url_encoded(n);
                if enc != *n {
                    changed |= replace_ci(&mut out, &enc, &p.pseudonym);
                }
            }
        }
        if !changed && self.in_base64(s) {
            return Some(HIDDEN.into());
        }
        changed.then_some(out)
    }

    /// Whether `s` is base64 whose text names someone.
    fn in_base64(&self, s: &str) -> bool {
        if s.len() < 16 {
            return false;
        }
        let engines = [
            &base64::engine::general_purpose::STANDARD,
            &base64::engine::general_purpose::STANDARD_NO_PAD,
            &base64::engine::general_purpose::URL_SAFE,
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        ];
        engines.iter().any(|e| {
            e.decode(s.trim())
                .is_ok_and(|bytes| self.string(&String::from_utf8_lossy(&bytes)).is_some())
        })
    }
}

/// A metadata key whose value is a skin, a texture or a signature.
fn secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    ["skin", "texture", "signature"]
        .iter()
        .any(|w| k.contains(w))
}

/// Replaces every occurrence of `needle` in `hay`, ignoring ASCII case; whether any was.
fn replace_ci(hay: &mut String, needle: &str, with: &str) -> bool {
    if needle.is_empty() || hay.len() < needle.len() {
        return false;
    }
    let lower = hay.to_ascii_lowercase();
    let n = needle.to_ascii_lowercase();
    if !lower.contains(&n) {
        return false;
    }
    let mut out = String::with_capacity(hay.len());
    let mut at = 0;
    while let Some(i) = lower[at..].find(&n) {
        out.push_str(&hay[at..at + i]);
        out.push_str(with);
        at += i + n.len();
    }
    out.push_str(&hay[at..]);
    *hay = out;
    true
}

/// `s` with every byte but unreserved URL characters as `%XX`.
pub fn url_encoded(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_uuids_skins_and_their_encodings_are_replaced() {
        let alice = Uuid::parse_str("11111111-2222-4333-8444-555555555555").unwrap();
        let mut p = Pseudonyms::new();
        p.add(Some("Alice_01"), Some(alice), Some(SUSPECT));
        p.add(Some("Bob Ünïcode"), None, None);
        p.add(None, Some(Uuid::from_u128(7)), Some(REPORTER));
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!(
            "{{\"profileName\":\"alice_01\",\"profileId\":\"{}\"}}",
            alice.simple()
        ));
        let ints: Vec<i32> = alice
            .as_bytes()
            .chunks(4)
            .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut v = json!({
            "name": "ALICE_01",
            "chat": "gg alice_01 and Bob Ünïcode",
            "uuid": alice.to_string().to_uppercase(),
            "simple": alice.simple().to_string(),
            "url": "/x?player=Bob%20%C3%9Cn%C3%AFcode",
            "ints": ints,
            "textures": b64.clone(),
            "meta": {"props": [b64], "skin_url": "http://textures.minecraft.net/texture/abc"},
            "reporter": Uuid::from_u128(7).to_string(),
            "Alice_01": 1,
            "stone": "minecraft:stone",
        });
        p.apply(&mut v);
        let text = v.to_string();
        for real in [
            "alice",
            "Bob",
            "1111",
            "c3%9c",
            "textures.minecraft",
            "0000000000007",
        ] {
            assert!(
                !text
                    .to_ascii_lowercase()
                    .contains(&real.to_ascii_lowercase()),
                "{real} in {text}"
            );
        }
        assert_eq!(v["name"], "Suspect");
        assert_eq!(v["chat"], "gg Suspect and Player 2");
        assert_eq!(v["ints"], "Suspect");
        assert_eq!(v["reporter"], "Reporter");
        assert_eq!(v["meta"]["props"][0], HIDDEN);
        assert_eq!(v["Suspect"], 1);
        assert_eq!(v["stone"], "minecraft:stone");
        let svg = format!("<text>alice_01</text><title>{alice}</title>");
        assert_eq!(
            p.apply_text(&svg),
            "<text>Suspect</text><title>Suspect</title>"
        );
    }

    #[test]
    fn one_person_keeps_one_pseudonym() {
        let u = Uuid::from_u128(42);
        let mut p = Pseudonyms::new();
        p.add(Some("carol"), None, None);
        p.add(Some("dave"), None, None);
        p.add(Some("Carol"), Some(u), Some(SUSPECT));
        p.add(None, Some(u), None);
        let mut v = json!(["carol", u.to_string(), "dave", "Al"]);
        p.apply(&mut v);
        assert_eq!(v, json!(["Suspect", "Suspect", "Player 3", "Al"]));
    }
}
