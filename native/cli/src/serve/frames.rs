//! The viewer's stream: frames (every entity's position at a tick) over a tick range, made by
//! a core [`Playhead`] on the shared recording (its chunk cache serves repeated requests), and
//! one tick's full state at a seek. The browser never gets the file, only these frames.
//!
//! A frame is `{"t": TICK, "e": [[id, x, y, z, yaw(, flags)], ...]}` in the format's units (positions in
//! `pos_scale` units per block, yaw in `angle_units` per turn, both given in the answer); a
//! request asks for `count` frames from `from`, `step` recorded ticks apart, forward or backward
//! (`dir=back`).
//!
//! Neither answers the world: their playheads keep none ([`entities_only`]), so no world section
//! is decoded for them and a damaged one fails only the routes that answer the world.

use crate::json::entity_state_to_json;
use serde::Deserialize;
use serde_json::{Value, json};
use tickreel::format::EntityState;
use tickreel::format::{ANGLE_UNITS_PER_TURN, POS_SCALE};
use tickreel::play::{Playhead, PlayheadOptions, Update};

use super::error::{ApiError, ApiResult};
use super::library::{Handle, edge};

/// At most this many frames per request.
pub const MAX_FRAMES: u32 = 2048;
/// At most this many recorded ticks walked per request (`count * step`).
pub const MAX_SPAN: u64 = 20_000;

#[derive(Debug, Deserialize)]
pub struct FrameQuery {
    pub rec: String,
    /// The first frame's tick (clamped into the recording; default: its first tick, or its last
    /// one backward).
    pub from: Option<u32>,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default = "one")]
    pub step: u32,
    /// `fwd` (default) or `back`.
    pub dir: Option<String>,
}

fn one() -> u32 {
    1
}

impl FrameQuery {
    fn backward(&self) -> ApiResult<bool> {
        match self.dir.as_deref() {
            None | Some("fwd") => Ok(false),
            Some("back") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!(
                "dir={}: expected fwd or back",
                crate::errors::echo(other)
            ))),
        }
    }

    fn check(&self) -> ApiResult<()> {
        if self.count == 0 || self.count > MAX_FRAMES {
            return Err(ApiError::bad_request(format!(
                "count={}: between 1 and {MAX_FRAMES} frames per request",
                self.count
            )));
        }
        if self.step == 0 {
            return Err(ApiError::bad_request("step=0: at least 1 tick"));
        }
        let span = u64::from(self.count - 1) * u64::from(self.step);
        if span > MAX_SPAN {
            return Err(ApiError::bad_request(format!(
                "range too large: count={} x step={} spans {span} ticks, at most {MAX_SPAN} per \
                 request (ask for fewer frames or a smaller step)",
                self.count, self.step
            )));
        }
        Ok(())
    }
}

/// Appends one frame, `{"t": TICK, "e": [[id, x, y, z, yaw], ...]}`, to `out`: each entity in
/// the format's own units (1/4096 block, 1/65536 turn: exact, and about half the bytes of the
/// same numbers in decimal blocks), with its state flags ([`tickreel::format::flag`]) as a sixth
/// number when any is set.
fn write_frame(out: &mut Vec<u8>, tick: u32, entities: &[EntityState]) {
    use std::io::Write;
    let _ = write!(out, "{{\"t\":{tick},\"e\":[");
    for (i, e) in entities.iter().enumerate() {
        let [x, y, z, yaw, _] = e.pose.to_array();
        let sep = if i == 0 { "" } else { "," };
        if e.flags == 0 {
            let _ = write!(out, "{sep}[{},{x},{y},{z},{yaw}]", e.id);
        } else {
            let _ = write!(out, "{sep}[{},{x},{y},{z},{yaw},{}]", e.id, e.flags);
        }
    }
    out.extend_from_slice(b"]}");
}

/// The playheads of frames and seeks: entities only, without the world (no world section
/// decoded, no world rebuilt: [`PlayheadOptions::world`]).
fn entities_only() -> PlayheadOptions {
    PlayheadOptions {
        world: false,
        ..PlayheadOptions::default()
    }
}

/// The chunks an update could not read, as JSON (empty if none).
fn faults(u: &Update, out: &mut Vec<Value>) {
    for f in u.faults() {
        out.push(json!({
            "chunk": f.chunk,
            "start_tick": f.start_tick,
            "tick_count": f.tick_count,
            "error": f.error.to_string(),
        }));
    }
}

/// Bytes of answer gathered before they are handed on: what a request holds of its answer at
/// once (with the few pieces in flight to the client), however many entities and frames.
pub const PIECE_BYTES: usize = 64 << 10;

/// A frames answer whose request was checked and whose playhead is placed, ready to be written.
pub enum Frames {
    /// A live recording before its first flush: a small answer at once.
    Waiting(Value),
    Ready {
        ph: Box<Playhead>,
        handle: Handle,
        count: u32,
        step: u32,
        backward: bool,
    },
}

/// Checks `q` and places a playhead at its first frame: every error of the request comes here,
/// before any byte of the answer. Blocking.
pub fn start(h: &Handle, q: &FrameQuery) -> ApiResult<Frames> {
    q.check()?;
    let backward = q.backward()?;
    let view = h.rec.view();
    let (Some(first), Some(last)) = (view.reader().first_tick(), view.reader().last_tick()) else {
        return Ok(Frames::Waiting(
            json!({"frames": [], "waiting": true, "edge": edge(h)}),
        ));
    };
    let from = q.from.unwrap_or(if backward { last } else { first });
    let ph = Playhead::with_options(h.rec.clone(), from, entities_only())
        .map_err(|e| ApiError::of(&super::library::label(&h.name), e))?;
    Ok(Frames::Ready {
        ph: Box::new(ph),
        handle: h.clone(),
        count: q.count,
        step: q.step,
        backward,
    })
}

impl Frames {
    /// Writes the answer (see the module documentation) to `send` in pieces of about
    /// [`PIECE_BYTES`]; stops early, returning `false`, when `send` does (the client went away).
    /// Blocking: steps the playhead.
    pub fn write(self, send: &mut dyn FnMut(Vec<u8>) -> bool) -> bool {
        let (mut ph, h, count, step, backward) = match self {
            Frames::Waiting(v) => return send(v.to_string().into_bytes()),
            Frames::Ready {
                ph,
                handle,
                count,
                step,
                backward,
            } => (ph, handle, count, step, backward),
        };
        let mut out = Vec::with_capacity(PIECE_BYTES + 4096);
        let mut bad = Vec::new();
        let _ = std::io::Write::write_fmt(
            &mut out,
            format_args!(
                "{{\"pos_scale\":{POS_SCALE},\"angle_units\":{ANGLE_UNITS_PER_TURN},\"frames\":["
            ),
        );
        faults(ph.update(), &mut bad);
        write_frame(&mut out, ph.position(), ph.entities());
        'frames: for _ in 1..count {
            for _ in 0..step {
                let before = ph.position();
                let u = if backward {
                    ph.step_back()
                } else {
                    ph.step_forward()
                };
                faults(u, &mut bad);
                if ph.position() == before {
                    // The first or last tick (the live edge, for a live recording).
                    break 'frames;
                }
            }
            out.push(b',');
            write_frame(&mut out, ph.position(), ph.entities());
            if out.len() >= PIECE_BYTES && !send(std::mem::take(&mut out)) {
                return false;
            }
        }
        out.extend_from_slice(b"]");
        if !bad.is_empty() {
            out.extend_from_slice(b",\"faults\":");
            out.extend_from_slice(Value::Array(bad).to_string().as_bytes());
        }
        out.extend_from_slice(b",\"edge\":");
        out.extend_from_slice(edge(&h).to_string().as_bytes());
        out.push(b'}');
        send(out)
    }
}

#[derive(Debug, Deserialize)]
pub struct SeekQuery {
    pub rec: String,
    pub tick: u32,
}

/// The full state at one tick (a seek): every entity with kind, flags and pose, in the form
/// `tickreel play` prints. Blocking.
pub fn seek(h: &Handle, q: &SeekQuery) -> ApiResult<Value> {
    let view = h.rec.view();
    if view.reader().first_tick().is_none() {
        return Err(ApiError::new(
            axum::http::StatusCode::CONFLICT,
            format!("{}: no ticks yet", super::library::label(&h.name)),
        ));
    }
    let ph = Playhead::with_options(h.rec.clone(), q.tick, entities_only())
        .map_err(|e| ApiError::of(&super::library::label(&h.name), e))?;
    let entities: Vec<Value> = ph.entities().iter().map(entity_state_to_json).collect();
    Ok(json!({"tick": ph.position(), "entities": entities, "edge": edge(h)}))
}
