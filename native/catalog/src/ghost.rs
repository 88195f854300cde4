//! The board's runs as ghosts: [`Catalog::load_ghost`] looks the run up (one query) and hands
//! back the core's asynchronous [`tickreel::Pending`] ghost, loading exactly the registered tick range of the
//! run's entity, so the ghost's time and splits are the catalog's.

use std::path::PathBuf;

use tickreel::Pending;
use tickreel::ghost::{GhostRange, GhostTrack, LoadFrom};
use tickreel::{Error, Result};
use uuid::Uuid;

use crate::Catalog;
use crate::model::Placed;

/// Whose ghost: a rank on the board (1 is the best) or a player's best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GhostOf {
    Rank(u64),
    Player(Uuid),
}

impl From<u64> for GhostOf {
    fn from(rank: u64) -> GhostOf {
        GhostOf::Rank(rank)
    }
}
impl From<Uuid> for GhostOf {
    fn from(player: Uuid) -> GhostOf {
        GhostOf::Player(player)
    }
}

/// A found ghost: the place on the board, where its recording lives, and the load under way.
#[derive(Debug)]
pub struct CatalogGhost {
    pub placed: Placed,
    pub location: String,
    pub load: Pending<GhostTrack>,
}

impl Catalog {
    /// The run of `who` on `course`, with its recording's location; `None` if the board has no
    /// such rank or player.
    pub fn ghost_run(
        &self,
        course: &str,
        who: impl Into<GhostOf>,
    ) -> Result<Option<(Placed, String)>> {
        let placed = match who.into() {
            GhostOf::Rank(rank) => self.at_rank(course, rank)?,
            GhostOf::Player(player) => self.personal_best(course, player)?,
        };
        let Some(placed) = placed else {
            return Ok(None);
        };
        let Some(rec) = self.recording(placed.run.recording_id)? else {
            return Ok(None);
        };
        Ok(Some((placed, rec.location)))
    }

    /// Starts loading the ghost of `who` (`1u64`: the best; a player's UUID: their best) on
    /// `course`, from a recording on local disk. The query runs on the calling thread, the load
    /// in the background ([`Pending::poll`] never blocks). Fails with `InvalidArgument` when
    /// the board has no such rank or player.
    pub fn load_ghost(&self, course: &str, who: impl Into<GhostOf>) -> Result<CatalogGhost> {
        self.load_ghost_from(course, who, |location| {
            Ok(LoadFrom::Path(PathBuf::from(location)))
        })
    }

    /// [`Catalog::load_ghost`], opening the recording through `open` (given the recorded
    /// location): where an object-storage location becomes a range-read source.
    pub fn load_ghost_from(
        &self,
        course: &str,
        who: impl Into<GhostOf>,
        open: impl FnOnce(&str) -> Result<LoadFrom>,
    ) -> Result<CatalogGhost> {
        let who = who.into();
        let Some((placed, location)) = self.ghost_run(course, who)? else {
            let what = match who {
                GhostOf::Rank(r) => format!("rank {r}"),
                GhostOf::Player(p) => format!("a run of player {p}"),
            };
            return Err(Error::invalid(format!(
                "the board of {course} has no {what}"
            )));
        };
        let run = &placed.run;
        let load = GhostTrack::load_async(
            open(&location)?,
            run.entity,
            GhostRange::ticks(run.start_tick, run.end_tick),
        );
        Ok(CatalogGhost {
            placed,
            location,
            load,
        })
    }
}
