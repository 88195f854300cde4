//! The blocks a shadow buffer holds and which entities they cover: no threads, no I/O.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use crate::format::event::Event;
use crate::record::Frame;

/// One compressed chunk of the stream, shared with the reports that need it.
#[derive(Debug)]
pub(crate) struct Block {
    pub frame: Frame,
    pub made: Instant,
    /// Heap bytes it holds: the payload's allocation and the block itself.
    pub bytes: usize,
}

impl Block {
    pub(crate) fn new(frame: &Frame) -> Block {
        // A clone is allocated to its length: what the block holds is what it measures.
        let frame = frame.clone();
        let bytes = frame.payload.capacity() + std::mem::size_of::<Block>() + ARC_COUNTS;
        Block {
            frame,
            made: Instant::now(),
            bytes,
        }
    }
    pub(crate) fn first_tick(&self) -> u32 {
        self.frame.header.start_tick
    }
    pub(crate) fn last_tick(&self) -> u32 {
        self.frame.header.start_tick + (self.frame.header.tick_count - 1)
    }
}

/// The strong and weak counts in front of an `Arc`'s value.
const ARC_COUNTS: usize = 2 * std::mem::size_of::<usize>();

/// Why blocks left the ring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dropped {
    /// Older than the window (and every grace period) needs.
    pub expired_blocks: u64,
    /// Given up for a memory budget while still inside the window.
    pub budget_blocks: u64,
    pub budget_ticks: u64,
}

/// The retained blocks and the entities they cover.
#[derive(Debug, Default)]
pub(crate) struct Ring {
    pub blocks: VecDeque<Arc<Block>>,
    /// Sum of the blocks' `bytes`.
    pub bytes: usize,
    pub window_ticks: u32,
    pub grace_ticks: u32,
    /// The newest tick seen (possibly still in the writer's open chunk).
    pub last_tick: Option<u32>,
    /// Entities alive after `last_tick`.
    pub alive: HashSet<u32>,
    /// Entities removed, by the tick they went (kept while the ring may still hold them).
    pub removed: HashMap<u32, u32>,
    /// Players who left within their grace period, by the tick they left.
    pub departed: HashMap<u32, u32>,
    /// Every entity an event named (a pose, a teleport, ...; not its removal), by the last tick
    /// one did, kept while the ring may still hold it: a game that never sends `EntityAdd` (only
    /// poses, as the README's quick start does) still has its players in the buffer.
    pub seen: HashMap<u32, u32>,
    /// The first tick of the stream's first block: the world before it is the game's start.
    pub origin: Option<u32>,
    pub dropped: Dropped,
}

impl Ring {
    pub(crate) fn new(window_ticks: u32, grace_ticks: u32) -> Ring {
        Ring {
            window_ticks: window_ticks.max(1),
            grace_ticks,
            ..Ring::default()
        }
    }

    /// First tick still retained.
    pub(crate) fn first_tick(&self) -> Option<u32> {
        self.blocks.front().map(|b| b.first_tick())
    }

    /// Last tick in a block (ticks after it are in the writer's open chunk).
    pub(crate) fn covered_until(&self) -> Option<u32> {
        self.blocks.back().map(|b| b.last_tick())
    }

    /// A tick with its events: who is alive, who left.
    pub(crate) fn tick(&mut self, tick: u32, events: &[Event]) {
        self.last_tick = Some(tick);
        for e in events {
            match *e {
                Event::EntityAdd { entity, .. } => {
                    // Back (a player who rejoined with the same id): no longer departed.
                    self.alive.insert(entity);
                    self.removed.remove(&entity);
                    self.departed.remove(&entity);
                }
                // (one only ever seen in poses goes too: its report ends at the removal)
                Event::EntityRemove { entity }
                    if self.alive.remove(&entity) || self.seen.contains_key(&entity) =>
                {
                    self.removed.insert(entity, tick);
                }
                Event::PlayerLeave { entity } => {
                    self.alive.remove(&entity);
                    self.removed.insert(entity, tick);
                    self.departed.insert(entity, tick);
                }
                _ => {}
            }
            if let Some(entity) = e.entity()
                && !matches!(e, Event::EntityRemove { .. } | Event::PlayerLeave { .. })
            {
                self.seen.insert(entity, tick);
            }
        }
        let grace = self.grace_ticks;
        self.departed
            .retain(|_, left| tick.saturating_sub(*left) <= grace);
    }

    /// `Recorder::player_left` for `entity`: its grace period starts now.
    pub(crate) fn player_left(&mut self, entity: u32) {
        if let Some(t) = self.last_tick {
            self.departed.insert(entity, t);
        }
    }

    /// Whether the ring holds anything of `entity` (alive now, or gone at a retained tick).
    pub(crate) fn has(&self, entity: u32) -> bool {
        let held = |tick: &u32| self.first_tick().is_none_or(|first| *tick >= first);
        self.alive.contains(&entity)
            || self.removed.get(&entity).is_some_and(held)
            || self.seen.get(&entity).is_some_and(held)
    }

    /// Adds a block, then drops what the window no longer needs; the bytes freed.
    pub(crate) fn push(&mut self, block: Arc<Block>) -> usize {
        self.origin.get_or_insert(block.first_tick());
        self.bytes += block.bytes;
        self.blocks.push_back(block);
        self.expire()
    }

    /// The first tick the window needs: the window before the newest tick, and before every
    /// leave still within its grace period.
    fn needed_from(&self) -> Option<u32> {
        let last = self.last_tick?;
        let w = self.window_ticks - 1;
        let anchor = self.departed.values().copied().fold(last, u32::min);
        Some(anchor.saturating_sub(w))
    }

    /// Drops the oldest blocks while the rest still cover what the window needs.
    fn expire(&mut self) -> usize {
        let Some(need) = self.needed_from() else {
            return 0;
        };
        let mut freed = 0;
        while self.blocks.len() >= 2 && self.blocks[1].first_tick() <= need {
            freed += self.pop(false);
        }
        self.forget_removed();
        freed
    }

    /// Drops the oldest block (`budget`: for a memory budget); the bytes freed.
    pub(crate) fn pop(&mut self, budget: bool) -> usize {
        let Some(b) = self.blocks.pop_front() else {
            return 0;
        };
        self.bytes -= b.bytes;
        if budget {
            self.dropped.budget_blocks += 1;
            self.dropped.budget_ticks += u64::from(b.frame.header.tick_count);
        } else {
            self.dropped.expired_blocks += 1;
        }
        b.bytes
    }

    /// Forgets removed (and last seen) entities the ring no longer holds.
    pub(crate) fn forget_removed(&mut self) {
        if let Some(first) = self.first_tick() {
            self.removed.retain(|_, gone| *gone >= first);
            self.seen.retain(|_, last| *last >= first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::frame::FrameHeader;

    fn block(start: u32, ticks: u32) -> Arc<Block> {
        let payload = vec![0u8; 100];
        let header = FrameHeader::for_payload(0, 1, start, ticks, 100, &payload);
        Arc::new(Block::new(&Frame { header, payload }))
    }

    fn fill(r: &mut Ring, upto: u32, block_ticks: u32) {
        let mut t = r.last_tick.map_or(0, |l| l + 1);
        while t + block_ticks - 1 <= upto {
            for k in t..t + block_ticks {
                r.tick(k, &[]);
            }
            r.push(block(t, block_ticks));
            t += block_ticks;
        }
    }

    /// At least the window, at most the window plus one block.
    #[test]
    fn keeps_the_window_and_at_most_one_block_more() {
        let mut r = Ring::new(1000, 0);
        fill(&mut r, 9_999, 100);
        let span = r.covered_until().unwrap() - r.first_tick().unwrap() + 1;
        assert!((1000..1100).contains(&span), "span {span}");
        assert_eq!(r.first_tick(), Some(9000));
        assert_eq!(r.dropped.expired_blocks, 90);
        assert_eq!(r.bytes, r.blocks.iter().map(|b| b.bytes).sum::<usize>());
    }

    /// A leave within its grace keeps the window before the leave.
    #[test]
    fn a_departed_player_keeps_the_window_before_the_leave() {
        let mut r = Ring::new(1000, 500);
        fill(&mut r, 1999, 100);
        r.tick(2000, &[Event::PlayerLeave { entity: 7 }]);
        r.push(block(2000, 1));
        fill(&mut r, 2399, 100);
        // 2000 - 999 = 1001: the block starting at 1000 is still needed.
        assert_eq!(r.first_tick(), Some(1000));
        assert!(r.has(7));
        fill(&mut r, 2600, 100);
        // Grace over (2600 - 2000 > 500): back to the plain window.
        assert!(!r.departed.contains_key(&7));
        assert!(r.first_tick().unwrap() > 1500);
    }

    /// A player who rejoins with the same id is no longer departed.
    #[test]
    fn a_rejoin_ends_the_grace_period() {
        let mut r = Ring::new(100, 1000);
        let pose = crate::Pose::default();
        r.tick(
            0,
            &[Event::EntityAdd {
                entity: 7,
                kind: 1,
                pose,
            }],
        );
        r.tick(5, &[Event::PlayerLeave { entity: 7 }]);
        assert!(r.departed.contains_key(&7) && !r.alive.contains(&7));
        r.tick(
            9,
            &[Event::EntityAdd {
                entity: 7,
                kind: 1,
                pose,
            }],
        );
        assert!(!r.departed.contains_key(&7) && r.alive.contains(&7) && r.has(7));
    }
}
