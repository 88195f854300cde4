//! Forward play: the recorded ticks after the position, applied one by one into the update's
//! events and entity table.

use super::fetch::{Fetch, Mode, transient};
use super::update::TickSpan;
use super::{Direction, Motion, Playhead};
use crate::format::index::find_chunk;
use crate::play::cursor::forward_tick;

impl Playhead {
    pub(super) fn forward(&mut self, n: u32, mode: Mode) -> u32 {
        let view = self.view.clone();
        let idx = view.reader.index();
        let Some(last) = view.reader.last_tick() else {
            self.u.at_edge = true;
            return 0;
        };
        let mut moved = 0;
        let first_event = self.u.events.len();
        while moved < n {
            if self.pos >= last {
                self.u.at_edge = true;
                break;
            }
            let t = self.pos + 1;
            let k = find_chunk(idx, t).expect("a tick after the first has a chunk");
            if self.ctx.as_ref().map(|c| c.index) != Some(k) {
                match self.fetch(k, self.whole(), mode) {
                    Fetch::Ready(v) => self.enter(k, v.decoded(), None),
                    Fetch::Pending => {
                        self.stall_in_move(mode);
                        break;
                    }
                    Fetch::Failed(f) if transient(&f) => {
                        self.fault(k, f);
                        self.stall_in_move(mode);
                        break;
                    }
                    Fetch::Failed(f) => {
                        if moved == 0 {
                            // Nothing played yet in this call: jump over the unreadable chunk(s).
                            self.skip(k, f, Direction::Forward, mode);
                            return 0;
                        }
                        // Deliver what was played; the next call reports and skips the chunk.
                        break;
                    }
                }
            }
            let ctx = self.ctx.as_ref().expect("entered");
            let rel = t - ctx.chunk.start_tick;
            if rel < ctx.chunk.tick_count {
                let u = &mut self.u;
                let start = u.events.len() as u32;
                let events = &mut u.events;
                forward_tick(&ctx.chunk, &mut self.cursor, rel, &mut u.entities, |e| {
                    events.push(e.clone())
                });
                let end = u.events.len() as u32;
                if end > start {
                    u.spans.push(TickSpan {
                        tick: t,
                        start,
                        end,
                    });
                }
            }
            self.pos = t;
            moved += 1;
        }
        self.world_forward(first_event);
        if moved > 0 {
            self.u.motion = Motion::Forward;
            self.stats.ticks_forward += u64::from(moved);
        }
        if self.pos >= last {
            self.u.at_edge = true;
        }
        moved
    }
}
