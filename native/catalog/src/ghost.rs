//! The board's runs as ghosts: [`Catalog::load_ghost`] looks the run up (one query) and hands
//! back the core's asynchronous [`tickreel::Pending`] ghost, loading exactly the registered tick range of the
//! run's entity, so the ghost's time and splits are the catalog's. [`Catalog::load_ghost_on`]
//! takes the place from a [`Board`] (a server, a map version) and refuses a ghost recorded on
//! another map version than the one it is to play on, unless [`GhostLoad::allow_other_version`].

use std::path::PathBuf;

use tickreel::Pending;
use tickreel::ghost::{GhostRange, GhostTrack, LoadFrom};
use tickreel::{Error, Result};
use uuid::Uuid;

use crate::Catalog;
use crate::model::Placed;
use crate::query::{Board, MapVersion};

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

/// How a ghost of a board's place is loaded: the map version it is to play on (`None`: no
/// check), and whether a run recorded on another version (or on none) may load anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GhostLoad {
    pub playing_on: Option<MapVersion>,
    pub allow_other_version: bool,
}

impl GhostLoad {
    /// A ghost to play on `version`: one recorded on another version is refused.
    pub fn playing_on(version: MapVersion) -> GhostLoad {
        GhostLoad {
            playing_on: Some(version),
            allow_other_version: false,
        }
    }

    /// Loads a ghost recorded on another map version too.
    pub fn allow_other_version(self) -> GhostLoad {
        GhostLoad {
            allow_other_version: true,
            ..self
        }
    }

    /// `Ok` when `placed` may load: its run is on the version played, or that is allowed.
    fn check(&self, course: &str, who: GhostOf, placed: &Placed) -> Result<()> {
        let Some(playing) = self.playing_on else {
            return Ok(());
        };
        let recorded = MapVersion::of(&placed.run);
        if self.allow_other_version || recorded == Some(playing) {
            return Ok(());
        }
        let recorded = recorded.map_or_else(|| "no map version".to_owned(), |v| v.to_string());
        Err(Error::invalid(format!(
            "the ghost of {} on {course} was recorded on {recorded}, not on {playing} where it \
             is to play (allow_other_version loads it anyway)",
            describe(who)
        )))
    }
}

fn describe(who: GhostOf) -> String {
    match who {
        GhostOf::Rank(r) => format!("rank {r}"),
        GhostOf::Player(p) => format!("player {p}"),
    }
}

/// Which places of a board are raced together ([`Catalog::load_ghosts`]): its first `top`
/// places, a player's best and a chosen rank, each optional (`top` 0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GhostPicks {
    pub top: u64,
    pub player: Option<Uuid>,
    pub rank: Option<u64>,
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
        self.ghost_run_on(Board::network(), course, who)
    }

    /// [`Catalog::ghost_run`] on a [`Board`]: the rank or the player's best among its runs.
    pub fn ghost_run_on<'a>(
        &self,
        board: impl Into<Board<'a>>,
        course: &str,
        who: impl Into<GhostOf>,
    ) -> Result<Option<(Placed, String)>> {
        let board = board.into();
        let placed = match who.into() {
            GhostOf::Rank(rank) => self.at_rank_on(board, course, rank)?,
            GhostOf::Player(player) => self.personal_best_on(board, course, player)?,
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
        self.load_ghost_on(Board::network(), course, who, GhostLoad::default(), open)
    }

    /// Starts loading the ghost of `who` on `course` from the places of `board` (one server's,
    /// one map version's, ...), opening its recording through `open`. With
    /// [`GhostLoad::playing_on`] a run recorded on another map version fails with
    /// `InvalidArgument` naming both versions, unless [`GhostLoad::allow_other_version`]; so
    /// "the ghost of rank 1 of the network" is refused when it was set on an older map.
    pub fn load_ghost_on<'a>(
        &self,
        board: impl Into<Board<'a>>,
        course: &str,
        who: impl Into<GhostOf>,
        load: GhostLoad,
        open: impl FnOnce(&str) -> Result<LoadFrom>,
    ) -> Result<CatalogGhost> {
        let who = who.into();
        let Some((placed, location)) = self.ghost_run_on(board, course, who)? else {
            let what = match who {
                GhostOf::Rank(r) => format!("rank {r}"),
                GhostOf::Player(p) => format!("a run of player {p}"),
            };
            return Err(Error::invalid(format!(
                "the board of {course} has no {what}"
            )));
        };
        load.check(course, who, &placed)?;
        start(placed, location, open)
    }

    /// Starts loading the ghosts of several places of `course` at once, to race them together
    /// (a [`tickreel::ghost::GhostSet`] of their tracks, each with its own cursor): the board's
    /// first `picks.top` places, then a player's best, then a chosen rank; a run picked twice (a
    /// player's best among the top) loads once. Held runs are on no board, so never among them.
    /// Fails with `InvalidArgument` when the board has no such player or rank.
    pub fn load_ghosts(&self, course: &str, picks: GhostPicks) -> Result<Vec<CatalogGhost>> {
        let mut places = self.top(course, picks.top)?;
        for who in [
            picks.player.map(GhostOf::Player),
            picks.rank.map(GhostOf::Rank),
        ]
        .into_iter()
        .flatten()
        {
            let placed = match who {
                GhostOf::Player(p) => self.personal_best(course, p)?,
                GhostOf::Rank(r) => self.at_rank(course, r)?,
            }
            .ok_or_else(|| {
                Error::invalid(format!("the board of {course} has no {}", describe(who)))
            })?;
            if !places.iter().any(|p| p.run.id == placed.run.id) {
                places.push(placed);
            }
        }
        places
            .into_iter()
            .map(|placed| {
                let location = placed.run.location.clone();
                start(placed, location, |l| Ok(LoadFrom::Path(PathBuf::from(l))))
            })
            .collect()
    }
}

/// Starts loading `placed`'s run from its recording at `location` (opened through `open`).
fn start(
    placed: Placed,
    location: String,
    open: impl FnOnce(&str) -> Result<LoadFrom>,
) -> Result<CatalogGhost> {
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
