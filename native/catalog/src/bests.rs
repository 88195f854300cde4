//! The board's `bests` table: each player's best listed run per course, the row a board reads.
//! Registration offers a run to it; a check that holds a run, a cleared hold and retention
//! recompute it from the runs that are still listed.

use tickreel::Result;

use crate::backend::{Conn, Value};
use crate::model::Run;

/// Puts `run` on its course's board if it beats the player's best (a single atomic upsert: two
/// writers of the same player's runs leave the better one, never two rows).
pub(crate) fn offer_best(c: &mut dyn Conn, run: &Run) -> Result<()> {
    c.execute(
        "INSERT INTO bests (course, player, run_id, ticks, achieved_ms)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (course, player) DO UPDATE SET
             run_id = excluded.run_id, ticks = excluded.ticks, achieved_ms = excluded.achieved_ms
         WHERE excluded.ticks < bests.ticks
            OR (excluded.ticks = bests.ticks AND excluded.achieved_ms < bests.achieved_ms)
            OR (excluded.ticks = bests.ticks AND excluded.achieved_ms = bests.achieved_ms
                AND excluded.run_id < bests.run_id)",
        &[
            run.course.as_str().into(),
            run.player.to_string().into(),
            run.id.into(),
            run.ticks.into(),
            run.achieved_ms.into(),
        ],
    )?;
    Ok(())
}

/// Recomputes a player's best on a course from their listed valid runs (after a run was
/// invalidated, or its recording marked for deletion).
pub(crate) fn recompute_best(c: &mut dyn Conn, course: &str, player: &str) -> Result<()> {
    let key: [Value; 2] = [course.into(), player.into()];
    c.execute("DELETE FROM bests WHERE course = $1 AND player = $2", &key)?;
    c.execute(
        "INSERT INTO bests (course, player, run_id, ticks, achieved_ms)
         SELECT r.course, r.player, r.id, r.ticks, r.achieved_ms
         FROM runs r JOIN recordings g ON g.id = r.recording_id
         WHERE r.course = $1 AND r.player = $2 AND r.valid = 1 AND r.held = 0
             AND g.deleting_ms IS NULL
         ORDER BY r.ticks, r.achieved_ms, r.id LIMIT 1",
        &key,
    )?;
    Ok(())
}
