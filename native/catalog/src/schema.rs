//! The schema and its versioned migrations. `tickreel_schema` records each applied version; a
//! catalog opened by a newer build is upgraded in one transaction (PostgreSQL: under an advisory
//! lock, so that two servers starting at once do not both migrate), and one written by a newer
//! build than this one is refused. Migrations are never edited once released: a change is a new
//! version.
//!
//! - Version 1: recordings, runs, splits, shadow-play reports.
//! - Version 2: the board (`bests`: each player's best valid run of each course, kept by
//!   registration so that the top N is an index range), the deletion mark of recordings
//!   (`deleting_ms`: a recording being pruned is listed nowhere), retention policies.
//! - Version 3: who decided on a report and when (`reviewed_by`, `reviewed_ms`; the statuses
//!   `reviewed` and `actioned` beside `open` and `closed`).
//! - Version 4: the reported player's figures on each report row (the analysis of the report's
//!   recording: blocks broken and placed, attacks made and received, most attacks in one second,
//!   reach max and p99, top horizontal speed, largest rotation in one tick), so that staff can
//!   sort reports before watching one. Rows filed before are `NULL` there (unknown), as are
//!   rows without a recording. Plain `ALTER TABLE ... ADD COLUMN` on both databases: nothing is
//!   rewritten, an older build refuses the upgraded catalog (its version is newer).
//! - Version 5: a network of servers. The server that recorded it (`server`, from the
//!   recording's metadata, FORMAT.md section 4) on recordings, runs and reports; the world id
//!   and version on runs and the world version on recordings (the recording's header), so that
//!   a run is known with the map it was run on. Indexes for the network's questions: a course's
//!   runs on one server, a player's reports on any server. Rows registered before hold `NULL`
//!   there (no server, world version unknown); a run's world is copied from its recording.
//! - Version 6: the audit log of staff views of reports (`report_views`: who by their staff
//!   token's name, what report or recording, the action, when; [`crate::audit`]). A new table
//!   only: nothing existing changes.
//! - Version 7: the index of a course's runs on one map version (`runs_by_version`: course,
//!   world, world version, then board order), so that a map version's board (as a server's, by
//!   `runs_by_server`) reads its first runs in order instead of all the course's runs. An index
//!   only; on PostgreSQL the catalog's tables are then analysed (as after every upgrade), so
//!   that the new index is planned with the rows a catalog already holds.
//! - Version 8: run checks before the board ([`crate::checks`]). On runs: `held` (1: a check
//!   failed, kept off every board and ghost until a moderator clears it; rows registered before
//!   are 0, as they were on the board), the recording's SHA-256 taken at registration
//!   (`recording_sha256`, `NULL` for rows registered before: their file's hash is not known)
//!   and who cleared the run and when (`cleared_by`, `cleared_ms`). New tables: the reasons a
//!   run is held (`run_holds`: the check, the first tick, what was seen), each course's limits
//!   (`course_limits`; a course without a row is checked with the sprinting preset's) and the
//!   audit log of moderators' actions on held runs (`run_reviews`). Plain `ADD COLUMN`s with a
//!   constant default on both databases: nothing is rewritten.
//! - Version 9: the review desk ([`crate::review`]). Staff members kept in the catalog (`staff`:
//!   name, role, the SHA-256 of their token, never the token), the review rule
//!   (`review_rules`: how many reviewers a report is assigned to, majority or a moderator's
//!   decision, the calibration threshold), who a report is assigned to
//!   (`report_assignments`), each reviewer's vote (`report_votes`: verdict, note, bookmarked
//!   ticks, whether it counted), and on reports the verdict with who decided and when
//!   (`verdict`, `verdict_by`, `verdict_ms`) and a calibration case's known outcome
//!   (`known_verdict`, `known_by`). The retention of reports by verdict (`verdict_retention`),
//!   and a detail on audit rows (`report_views.detail`: a vote's verdict, say). Rows filed
//!   before have no verdict (`NULL`): nothing is rewritten.

use tickreel::{Error, Result};

use crate::backend::{Conn, Dialect};

/// The schema version this build creates and understands.
pub const SCHEMA_VERSION: i64 = 9;

/// One version's statements. `{id}` is the dialect's auto-numbered primary key.
struct Migration {
    version: i64,
    name: &'static str,
    sql: &'static str,
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "recordings, runs, splits, reports",
        sql: "
CREATE TABLE recordings (
    id {id},
    location TEXT NOT NULL UNIQUE,
    recording_uuid TEXT,
    world TEXT,
    started_ms BIGINT NOT NULL,
    first_tick BIGINT NOT NULL,
    last_tick BIGINT NOT NULL,
    tick_rate DOUBLE PRECISION NOT NULL,
    size_bytes BIGINT NOT NULL,
    entity_count BIGINT NOT NULL,
    summary TEXT NOT NULL,
    registered_ms BIGINT NOT NULL
);
CREATE TABLE runs (
    id {id},
    recording_id BIGINT NOT NULL REFERENCES recordings (id),
    course TEXT NOT NULL,
    player TEXT NOT NULL,
    player_name TEXT NOT NULL,
    entity BIGINT NOT NULL,
    start_tick BIGINT NOT NULL,
    end_tick BIGINT NOT NULL,
    ticks BIGINT NOT NULL,
    tick_rate DOUBLE PRECISION NOT NULL,
    achieved_ms BIGINT NOT NULL,
    valid BIGINT NOT NULL,
    flags BIGINT NOT NULL
);
CREATE INDEX runs_by_course ON runs (course, ticks, achieved_ms, id);
CREATE INDEX runs_by_player ON runs (player, achieved_ms);
CREATE INDEX runs_by_recording ON runs (recording_id);
CREATE TABLE splits (
    run_id BIGINT NOT NULL REFERENCES runs (id),
    seq BIGINT NOT NULL,
    checkpoint BIGINT NOT NULL,
    tick BIGINT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE reports (
    id {id},
    reported TEXT NOT NULL,
    reported_name TEXT NOT NULL,
    reporter TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    status TEXT NOT NULL,
    recording_id BIGINT REFERENCES recordings (id)
);
CREATE INDEX reports_by_status ON reports (status, created_ms);
CREATE INDEX reports_by_recording ON reports (recording_id);
",
    },
    Migration {
        version: 2,
        name: "the board of bests, deletion marks, retention policies",
        sql: "
CREATE TABLE bests (
    course TEXT NOT NULL,
    player TEXT NOT NULL,
    run_id BIGINT NOT NULL REFERENCES runs (id),
    ticks BIGINT NOT NULL,
    achieved_ms BIGINT NOT NULL,
    PRIMARY KEY (course, player)
);
CREATE INDEX bests_board ON bests (course, ticks, achieved_ms, run_id);
CREATE INDEX bests_by_run ON bests (run_id);
INSERT INTO bests (course, player, run_id, ticks, achieved_ms)
SELECT course, player, id, ticks, achieved_ms FROM (
    SELECT course, player, id, ticks, achieved_ms, ROW_NUMBER() OVER (
        PARTITION BY course, player ORDER BY ticks, achieved_ms, id) AS n
    FROM runs WHERE valid = 1
) ranked WHERE n = 1;
ALTER TABLE recordings ADD COLUMN deleting_ms BIGINT;
CREATE TABLE retention (
    scope TEXT PRIMARY KEY,
    keep_top BIGINT,
    keep_bests BIGINT NOT NULL,
    keep_days BIGINT,
    keep_open_reports BIGINT NOT NULL
);
",
    },
    Migration {
        version: 3,
        name: "who reviewed a report, and when",
        sql: "
ALTER TABLE reports ADD COLUMN reviewed_by TEXT;
ALTER TABLE reports ADD COLUMN reviewed_ms BIGINT;
",
    },
    Migration {
        version: 4,
        name: "the reported player's figures on report rows",
        sql: "
ALTER TABLE reports ADD COLUMN blocks_broken BIGINT;
ALTER TABLE reports ADD COLUMN blocks_placed BIGINT;
ALTER TABLE reports ADD COLUMN attacks BIGINT;
ALTER TABLE reports ADD COLUMN attacked BIGINT;
ALTER TABLE reports ADD COLUMN attacks_per_second_max BIGINT;
ALTER TABLE reports ADD COLUMN reach_max DOUBLE PRECISION;
ALTER TABLE reports ADD COLUMN reach_p99 DOUBLE PRECISION;
ALTER TABLE reports ADD COLUMN speed_max DOUBLE PRECISION;
ALTER TABLE reports ADD COLUMN rotation_max DOUBLE PRECISION;
",
    },
    Migration {
        version: 5,
        name: "servers, and the world version of runs",
        sql: "
ALTER TABLE recordings ADD COLUMN server TEXT;
ALTER TABLE recordings ADD COLUMN world_version TEXT;
ALTER TABLE runs ADD COLUMN server TEXT;
ALTER TABLE runs ADD COLUMN world TEXT;
ALTER TABLE runs ADD COLUMN world_version TEXT;
ALTER TABLE reports ADD COLUMN server TEXT;
UPDATE runs SET world = (SELECT g.world FROM recordings g WHERE g.id = runs.recording_id);
CREATE INDEX runs_by_server ON runs (course, server, ticks, achieved_ms, id);
CREATE INDEX reports_by_reported ON reports (reported, created_ms);
CREATE INDEX reports_by_server ON reports (server, created_ms);
",
    },
    Migration {
        version: 6,
        name: "the audit log of staff views of reports",
        sql: "
CREATE TABLE report_views (
    id {id},
    at_ms BIGINT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    report_id BIGINT,
    recording TEXT NOT NULL
);
CREATE INDEX report_views_by_time ON report_views (at_ms, id);
CREATE INDEX report_views_by_report ON report_views (report_id, at_ms);
",
    },
    Migration {
        version: 7,
        name: "the index of a course's runs on one map version",
        sql: "
CREATE INDEX runs_by_version ON runs (course, world, world_version, ticks, achieved_ms, id);
",
    },
    Migration {
        version: 8,
        name: "run checks: held runs, their reasons, course limits, moderators' clears",
        sql: "
ALTER TABLE runs ADD COLUMN held BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN recording_sha256 TEXT;
ALTER TABLE runs ADD COLUMN cleared_by TEXT;
ALTER TABLE runs ADD COLUMN cleared_ms BIGINT;
CREATE INDEX runs_held ON runs (held, achieved_ms);
CREATE TABLE run_holds (
    run_id BIGINT NOT NULL REFERENCES runs (id),
    reason TEXT NOT NULL,
    tick BIGINT,
    detail TEXT NOT NULL,
    PRIMARY KEY (run_id, reason)
);
CREATE TABLE course_limits (
    course TEXT PRIMARY KEY,
    movement TEXT NOT NULL,
    horizontal_tick DOUBLE PRECISION NOT NULL,
    horizontal_second DOUBLE PRECISION NOT NULL,
    up_tick DOUBLE PRECISION NOT NULL,
    down_tick DOUBLE PRECISION NOT NULL,
    up_second DOUBLE PRECISION NOT NULL,
    down_second DOUBLE PRECISION NOT NULL,
    teleports TEXT NOT NULL,
    checkpoints BIGINT NOT NULL
);
CREATE TABLE run_reviews (
    id {id},
    at_ms BIGINT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    run_id BIGINT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX run_reviews_by_time ON run_reviews (at_ms, id);
",
    },
    Migration {
        version: 9,
        name: "the review desk: staff, assignments, votes, verdicts, calibration, retention by verdict",
        sql: "
CREATE TABLE staff (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    added_ms BIGINT NOT NULL
);
CREATE TABLE review_rules (
    scope TEXT PRIMARY KEY,
    reviewers BIGINT NOT NULL,
    rule TEXT NOT NULL,
    min_agreement DOUBLE PRECISION NOT NULL,
    min_known BIGINT NOT NULL
);
CREATE TABLE report_assignments (
    report_id BIGINT NOT NULL REFERENCES reports (id),
    reviewer TEXT NOT NULL,
    assigned_ms BIGINT NOT NULL,
    PRIMARY KEY (report_id, reviewer)
);
CREATE INDEX report_assignments_by_reviewer ON report_assignments (reviewer, assigned_ms);
CREATE TABLE report_votes (
    report_id BIGINT NOT NULL REFERENCES reports (id),
    reviewer TEXT NOT NULL,
    verdict TEXT NOT NULL,
    note TEXT,
    ticks TEXT NOT NULL,
    counted BIGINT NOT NULL,
    voted_ms BIGINT NOT NULL,
    PRIMARY KEY (report_id, reviewer)
);
CREATE INDEX report_votes_by_reviewer ON report_votes (reviewer, voted_ms);
ALTER TABLE reports ADD COLUMN verdict TEXT;
ALTER TABLE reports ADD COLUMN verdict_by TEXT;
ALTER TABLE reports ADD COLUMN verdict_ms BIGINT;
ALTER TABLE reports ADD COLUMN known_verdict TEXT;
ALTER TABLE reports ADD COLUMN known_by TEXT;
ALTER TABLE report_views ADD COLUMN detail TEXT;
CREATE TABLE verdict_retention (
    verdict TEXT PRIMARY KEY,
    keep_days BIGINT
);
",
    },
];

/// The tables PostgreSQL analyses after an upgrade: its planner would otherwise plan the
/// catalog's questions on the statistics of before (or none, until autovacuum's next pass).
const ANALYSED: &str = "ANALYZE recordings, runs, bests, reports";

/// What [`migrate`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    /// The version found (0: an empty database).
    pub from: i64,
    /// The version now.
    pub to: i64,
}

fn id_column(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite => "INTEGER PRIMARY KEY",
        Dialect::Postgres => "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    }
}

/// The version recorded in the database (0 when it has no schema table yet).
pub(crate) fn current_version(c: &mut dyn Conn) -> Result<i64> {
    let exists = match c.dialect() {
        Dialect::Sqlite => c.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tickreel_schema'",
            &[],
        )?,
        Dialect::Postgres => c.query(
            "SELECT 1 FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = 'tickreel_schema'",
            &[],
        )?,
    };
    if exists.is_empty() {
        return Ok(0);
    }
    c.one("SELECT COALESCE(MAX(version), 0) FROM tickreel_schema", &[])?
        .int(0)
}

/// Brings the schema up to `target` (at most [`SCHEMA_VERSION`]), in the caller's transaction.
pub(crate) fn migrate(c: &mut dyn Conn, target: i64, now_ms: i64) -> Result<Migrated> {
    if c.dialect() == Dialect::Postgres {
        // one migrating server at a time; released at the end of the transaction
        c.execute("SELECT pg_advisory_xact_lock(7291746505)", &[])?;
    }
    let from = current_version(c)?;
    if from > SCHEMA_VERSION {
        return Err(Error::Unsupported(format!(
            "the catalog's schema is version {from}, newer than this build's {SCHEMA_VERSION}: \
             upgrade tickreel"
        )));
    }
    if from == 0 {
        c.batch(
            "CREATE TABLE tickreel_schema (
                version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)",
        )?;
    }
    let id = id_column(c.dialect());
    for m in MIGRATIONS
        .iter()
        .filter(|m| m.version > from && m.version <= target)
    {
        c.batch(&m.sql.replace("{id}", id))?;
        c.execute(
            "INSERT INTO tickreel_schema (version, name, applied_ms) VALUES ($1, $2, $3)",
            &[m.version.into(), m.name.into(), now_ms.into()],
        )?;
    }
    if c.dialect() == Dialect::Postgres && from > 0 && target > from {
        c.batch(ANALYSED)?;
    }
    Ok(Migrated {
        from,
        to: target.max(from),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_from_one_without_gaps() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.name);
        }
        assert_eq!(MIGRATIONS.last().unwrap().version, SCHEMA_VERSION);
    }
}
