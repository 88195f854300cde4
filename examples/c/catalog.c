/*
 * The catalog from C on SQLite: writes three runs of a course (two players), registers them,
 * reads the board (top, a player's best), loads the best run's ghost through the catalog, and
 * checks the clean failures (a missing file, a NULL player); then an operator's calls: a run marked
 * invalid and valid again, a retention policy that prune applies, shadow-play reports filed and
 * closed, and a run registered straight from a recorder's finish; a network's calls: every row
 * gives its recording's location, which opens in one call, one server's board, a player's reports
 * on any server; run checks: a run too fast for its course is held off the boards until a
 * moderator clears it. Every database call runs on the
 * catalog's worker thread; this thread only polls the call handles, as a server's tick loop would.
 *
 * Usage: catalog SCRATCH_DIR
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXAMPLE_NAME "catalog"
#include "example_util.h"

/* Writes a run (example_write_run) on the map version `world` + `version` (NULL: none named). */
static void write_run_at(const char *path, uint32_t ticks, const uint8_t *world, const uint8_t *version,
                         double speed) {
    TickreelReelOptions *o = NULL;
    CHECK(tickreel_reel_options_new(&o));
    CHECK(tickreel_reel_options_set_world_id(o, world)); /* NULL: all zero */
    CHECK(tickreel_reel_options_set_world_version(o, version));
    example_write_run(path, ticks, speed, o);
    CHECK(tickreel_reel_options_free(o));
}

/* A run at 0.3 blocks a tick (a sprint). */
static void write_run_on(const char *path, uint32_t ticks, const uint8_t *world, const uint8_t *version) {
    write_run_at(path, ticks, world, version, 0.3);
}
static void write_run(const char *path, uint32_t ticks) { write_run_on(path, ticks, NULL, NULL); }

/* Polls a call until it ends (never blocking), then returns its result code; its rows go to
 * `buf`. */
static TickreelResult finish_call(TickreelPending *call, uint8_t *buf, size_t cap, size_t *len) {
    bool done = false;
    TickreelResult r;
    while ((r = tickreel_pending_poll(call, &done)) == TICKREEL_RESULT_OK && !done) sleep_ms(1);
    if (r == TICKREEL_RESULT_OK && buf) r = tickreel_pending_take_rows(call, buf, cap, len);
    CHECK(tickreel_pending_free(call));
    return r;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* One decoded run row (see rows::runs in native/bridge/api/catalog.rs). */
typedef struct {
    uint64_t rank;
    int64_t id;
    int64_t recording;
    uint8_t player[16];
    uint32_t ticks;
    char name[64];
    char server[80];    /* empty: the recording names none */
    char location[1024]; /* where its recording lives: tickreel_catalog_open_recording opens it */
    uint8_t world[16];   /* the map version it was run on (all zero: none named) */
    uint8_t world_version[16];
    uint8_t held; /* 1: a run check failed (on no board) */
} Row;

/* Copies the string at `p` (a u16 length and UTF-8 bytes) into `out`; the bytes it takes. */
static size_t string_at(const uint8_t *p, char *out, size_t cap) {
    uint16_t n = (uint16_t)(p[0] << 8 | p[1]);
    size_t copy = n < cap - 1 ? n : cap - 1;
    memcpy(out, p + 2, copy);
    out[copy] = 0;
    return 2 + (size_t)n;
}

static size_t decode(const uint8_t *p, size_t len, Row *rows, size_t max) {
    size_t n = 0, at = 0;
    while (at < len && n < max) {
        Row *r = &rows[n++];
        r->rank = be64(p + at);
        r->id = (int64_t)be64(p + at + 8);
        r->recording = (int64_t)be64(p + at + 16);
        memcpy(r->player, p + at + 24, 16);
        r->ticks = be32(p + at + 52);
        at += 8 + 8 + 8 + 16 + 16 + 8 + 8 + 1 + 8;
        uint16_t course = (uint16_t)(p[at] << 8 | p[at + 1]);
        at += 2 + course;
        at += string_at(p + at, r->name, sizeof r->name);
        at += string_at(p + at, r->server, sizeof r->server);
        at += string_at(p + at, r->location, sizeof r->location);
        memcpy(r->world, p + at, 16);
        memcpy(r->world_version, p + at + 16, 16);
        r->held = p[at + 32];
        at += 33;
    }
    return n;
}

/* A run's check state (see rows::run_check in native/bridge/api/catalog.rs): held, cleared,
 * and the code of its first reason (0: none). */
typedef struct {
    uint8_t held, cleared;
    uint32_t reasons;
    uint8_t first_reason;
    char first_name[32];
    char cleared_by[80];
} Check;

static Check decode_check(const uint8_t *p, size_t len) {
    Check c;
    memset(&c, 0, sizeof c);
    if (len < 8 + 1 + 1 + 8 + 2) return c;
    c.held = p[8];
    c.cleared = p[9];
    size_t at = 18;
    at += string_at(p + at, c.cleared_by, sizeof c.cleared_by);
    c.reasons = be32(p + at);
    at += 4;
    if (c.reasons > 0) {
        c.first_reason = p[at];
        at += 1 + 1 + 4;
        string_at(p + at, c.first_name, sizeof c.first_name);
    }
    return c;
}

/* Run checks: a run at 3 blocks a tick (60 a second) is held when registered, on no board and no
 * ghost; checked again it stays held; a moderator clears it (audited) and it leads the board. */
static void held_runs(TickreelCatalog *cat, const char *dir, const uint8_t *carol) {
    char fast[1024];
    snprintf(fast, sizeof fast, "%s/fast.reel", dir);
    write_run_at(fast, 20, NULL, NULL, 3.0);
    uint8_t buf[4096];
    size_t len = 0;
    Row rows[8];
    TickreelPending *call = NULL;
    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    CHECK(tickreel_catalog_register(cat, fast, "course-h", carol, "Carol", 1, &lap, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].held == 1, "the 60 blocks/s run is held");
    int64_t id = rows[0].id;
    CHECK(tickreel_catalog_top(cat, "course-h", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "a held run is on no board");
    CHECK(tickreel_catalog_load_ghost(cat, "course-h", 1, NULL, &call));
    expect(finish_call(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_ARGUMENT, "nor a ghost");
    CHECK(tickreel_catalog_check_run(cat, id, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    Check c = decode_check(buf, len);
    expect(c.held && !c.cleared && c.reasons == 1 && c.first_reason == 1 &&
               strcmp(c.first_name, "horizontal_speed") == 0,
           "checked again: held for its horizontal speed");
    CHECK(tickreel_catalog_clear_run(cat, id, "", &call));
    expect(finish_call(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_ARGUMENT, "a moderator has a name");
    CHECK(tickreel_catalog_clear_run(cat, id, "mod-dana", &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    c = decode_check(buf, len);
    expect(!c.held && c.cleared && strcmp(c.cleared_by, "mod-dana") == 0, "cleared by mod-dana");
    CHECK(tickreel_catalog_run_check(cat, id, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(!decode_check(buf, len).held, "the stored state says so");
    CHECK(tickreel_catalog_clear_run(cat, id, "mod-dana", &call));
    expect(finish_call(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_STATE, "a cleared run is not held");
    CHECK(tickreel_catalog_top(cat, "course-h", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].id == id && rows[0].held == 0, "cleared, it is on the board");
    /* an elytra course allows 3 blocks a tick: a run registered from now on is not held */
    call = NULL;
    expect(tickreel_catalog_set_course_limits(cat, "course-e", "rocket", 0, 0, 0, 0, 0, 0, 0, &call) ==
                   TICKREEL_RESULT_INVALID_ARGUMENT && call == NULL,
           "an unknown movement is refused");
    CHECK(tickreel_catalog_set_course_limits(cat, "course-e", "elytra", 0, 0, 0, 0, 0, 0, 0, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    CHECK(tickreel_catalog_register(cat, fast, "course-e", carol, "Carol", 1, &lap, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].held == 0, "on an elytra course it is not held");
    CHECK(tickreel_catalog_check_run(cat, 99999, &call));
    expect(finish_call(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_ARGUMENT, "no run 99999");
    printf("run checks: run %lld held for %s, cleared by %s\n", (long long)id, "horizontal_speed", "mod-dana");
}

/* The ids of the open reports (see rows::reports in native/bridge/api/catalog_admin.rs). */
static size_t open_reports(TickreelCatalog *cat, int64_t *ids, size_t max) {
    uint8_t buf[1024];
    size_t len = 0, n = 0, at = 0;
    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_reports(cat, 1, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    while (at < len && n < max) {
        expect(buf[at + 48] == 1, "an open report says so");
        ids[n++] = (int64_t)be64(buf + at);
        at += 8 + 16 + 16 + 8 + 1 + 8;
        for (int s = 0; s < 4; s++) { /* name, reason, server, location */
            at += 2 + (size_t)(buf[at] << 8 | buf[at + 1]);
        }
    }
    return n;
}

/* The network's calls: a row's recording opened from its location, one server's board, a
 * player's reports on any server or on one. */
static void network_calls(TickreelCatalog *cat, const uint8_t *alice, const uint8_t *bob) {
    uint8_t buf[4096];
    size_t len = 0;
    Row rows[8];
    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_top_on(cat, NULL, NULL, NULL, "course-7", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    size_t n = decode(buf, len, rows, 8);
    /* (prune left Alice's best alone on the board) */
    expect(n == 1 && rows[0].server[0] == 0, "the network's board; its recordings name no server");
    expect(n == 1 && strstr(rows[0].location, "/a2.reel") != NULL, "the best row gives its recording's location");
    TickreelReader *reader = NULL;
    CHECK(tickreel_catalog_open_recording(cat, rows[0].location, &reader));
    uint32_t ticks = 0;
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    expect(ticks == 201, "the best run's recording opens from its row");
    CHECK(tickreel_reader_free(reader));
    CHECK(tickreel_catalog_top_on(cat, "eu-1", NULL, NULL, "course-7", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "no run was recorded on server eu-1");
    CHECK(tickreel_catalog_personal_best_on(cat, NULL, NULL, NULL, "course-7", alice, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].rank == 1, "Alice is first on the network");
    CHECK(tickreel_catalog_personal_best_on(cat, "eu-1", NULL, NULL, "course-7", alice, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "Alice has no run on server eu-1");

    /* Bob's reports on any server: the one filed with a recording gives its location */
    CHECK(tickreel_catalog_reports_of(cat, bob, NULL, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    char name[64], reason[64], server[80], location[1024] = "";
    size_t at = 8 + 16 + 16 + 8 + 1 + 8;
    expect(len > at, "Bob has a report");
    if (len > at) {
        at += string_at(buf + at, name, sizeof name);
        at += string_at(buf + at, reason, sizeof reason);
        at += string_at(buf + at, server, sizeof server);
        at += string_at(buf + at, location, sizeof location);
        expect(at == len && strcmp(reason, "fly") == 0 && strstr(location, "/a2.reel") != NULL,
               "one report of Bob, with its recording's location");
        CHECK(tickreel_catalog_open_recording(cat, location, &reader));
        CHECK(tickreel_reader_free(reader));
    }
    CHECK(tickreel_catalog_reports_of(cat, bob, "eu-1", &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "no report of Bob on server eu-1");
    reader = NULL;
    expect(tickreel_catalog_open_recording(cat, "", &reader) == TICKREEL_RESULT_INVALID_ARGUMENT && reader == NULL,
           "a row without a recording opens nothing");
    call = NULL;
    expect(tickreel_catalog_reports_of(cat, NULL, NULL, &call) == TICKREEL_RESULT_INVALID_ARGUMENT && call == NULL,
           "a NULL player is refused");
    printf("network: rows open their recordings, %s\n", location);
}

/* Looks up a ghost with `tickreel_catalog_load_ghost_on` and waits for the lookup: its result
 * code; on success the ghost's duration in `*ticks`. */
static TickreelResult ghost_on(TickreelCatalog *cat, const uint8_t *world, const uint8_t *version, uint32_t rank,
                               const uint8_t *player, const uint8_t *playing_world, const uint8_t *playing_version,
                               bool allow_other_version, uint32_t *ticks) {
    TickreelPending *load = NULL;
    CHECK(tickreel_catalog_load_ghost_on(cat, NULL, world, version, "course-m", rank, player, playing_world,
                                         playing_version, allow_other_version, &load));
    bool done = false;
    TickreelResult r;
    while ((r = tickreel_pending_poll(load, &done)) == TICKREEL_RESULT_OK && !done) sleep_ms(1);
    TickreelGhost *ghost = NULL;
    if (r == TICKREEL_RESULT_OK) r = tickreel_pending_take_ghost(load, &ghost);
    CHECK(tickreel_pending_free(load));
    if (r != TICKREEL_RESULT_OK) return r;
    TickreelGhostInfo info;
    CHECK(tickreel_ghost_info(ghost, &info));
    *ticks = info.duration_ticks;
    CHECK(tickreel_ghost_free(ghost));
    return TICKREEL_RESULT_OK;
}

/* Boards bound to a map version: Alice set 100 ticks on the old layout (V1); on the new one (V2)
 * Bob 150 and Alice 180. Top, a player's best and a rank per version; the network's best refused
 * as a ghost on V2 (the message names both versions) unless allowed. */
static void map_versions(TickreelCatalog *cat, const char *dir, const uint8_t *alice, const uint8_t *bob) {
    static const uint8_t WORLD[16] = {0x77, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const uint8_t V1[16] = {0x71, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const uint8_t V2[16] = {0x72, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const uint32_t ticks[] = {100, 150, 180};
    const uint8_t *versions[] = {V1, V2, V2};
    const uint8_t *players[] = {alice, bob, alice};
    const char *names[] = {"Alice", "Bob", "Alice"};
    uint8_t buf[4096];
    size_t len = 0;
    Row rows[8];
    TickreelPending *call = NULL;
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/m%d.reel", dir, i);
        write_run_on(path, ticks[i], WORLD, versions[i]);
        CHECK(tickreel_catalog_register(cat, path, "course-m", players[i], names[i], 1, NULL, &call));
        CHECK(finish_call(call, buf, sizeof buf, &len));
        expect(decode(buf, len, rows, 8) == 1 && memcmp(rows[0].world, WORLD, 16) == 0 &&
                   memcmp(rows[0].world_version, versions[i], 16) == 0,
               "a registered run carries the map version it was recorded on");
    }
    CHECK(tickreel_catalog_top_on(cat, NULL, NULL, NULL, "course-m", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    size_t n = decode(buf, len, rows, 8);
    expect(n == 2 && rows[0].ticks == 100 && rows[1].ticks == 150, "any version: Alice's old 100 leads, Bob second");
    CHECK(tickreel_catalog_top_on(cat, NULL, WORLD, V2, "course-m", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    n = decode(buf, len, rows, 8);
    expect(n == 2 && memcmp(rows[0].player, bob, 16) == 0 && rows[1].ticks == 180 &&
               memcmp(rows[1].world_version, V2, 16) == 0,
           "the new version's board: Bob first, Alice's 180 second");
    CHECK(tickreel_catalog_personal_best_on(cat, NULL, WORLD, V1, "course-m", bob, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "Bob has no run on the old version");
    CHECK(tickreel_catalog_personal_best_on(cat, NULL, WORLD, V2, "course-m", alice, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].rank == 2 && rows[0].ticks == 180,
           "Alice is second on the new version");
    CHECK(tickreel_catalog_at_rank_on(cat, NULL, WORLD, V2, "course-m", 2, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1 && rows[0].ticks == 180, "rank 2 of the new version");
    CHECK(tickreel_catalog_at_rank_on(cat, NULL, WORLD, V2, "course-m", 3, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "no rank 3 on the new version");
    call = NULL;
    expect(tickreel_catalog_top_on(cat, NULL, WORLD, NULL, "course-m", 10, &call) == TICKREEL_RESULT_INVALID_ARGUMENT &&
               call == NULL,
           "a world without its version is refused");
    expect(tickreel_catalog_at_rank_on(cat, NULL, NULL, NULL, "course-m", 0, &call) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "rank 0 is refused");

    uint32_t got = 0;
    TickreelResult r = ghost_on(cat, NULL, NULL, 1, NULL, WORLD, V2, false, &got);
    const char *msg = tickreel_last_error_message();
    expect(r == TICKREEL_RESULT_INVALID_ARGUMENT, "the network's best, recorded on V1, is refused on V2");
    expect(msg && strstr(msg, "71010203-0405-0607-0809-0a0b0c0d0e0f") && strstr(msg, "72010203-0405-0607-0809-0a0b0c0d0e0f"),
           "the refusal names both versions");
    printf("refused: %s\n", msg ? msg : "(no message)");
    CHECK(ghost_on(cat, NULL, NULL, 1, NULL, WORLD, V2, true, &got));
    expect(got == 100, "allowed, the old version's ghost loads");
    CHECK(ghost_on(cat, WORLD, V2, 1, NULL, WORLD, V2, false, &got));
    expect(got == 150, "the new version's best loads on it");
    CHECK(ghost_on(cat, WORLD, V2, 0, alice, WORLD, V2, false, &got));
    expect(got == 180, "Alice's best on the new version");
    printf("map versions: the new version's ghost %u ticks\n", got);
}

/* Records entity 1 for 90 ticks (checkpoints 0 and 1 at its ends) with an engine, finishes it
 * and registers the run from the finish handle, before the file exists. */
static void register_from_finish(TickreelCatalog *cat, const char *dir, const uint8_t *player) {
    char path[1024];
    snprintf(path, sizeof path, "%s/live.reel", dir);
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(NULL, &engine)); /* the defaults */
    TickreelRecorder *rec = NULL;
    /* recorded on the game server "eu-1": the recording's metadata names it, the catalog's rows too */
    expect(tickreel_recorder_start_on(engine, "bad\nid", path, NULL, &rec) == TICKREEL_RESULT_INVALID_ARGUMENT &&
               rec == NULL,
           "a server id with a control character is refused");
    CHECK(tickreel_recorder_start_on(engine, "eu-1", path, NULL, &rec));
    TickreelBatch *b = NULL;
    CHECK(tickreel_batch_new(&b));
    for (uint32_t t = 0; t <= 90; t++) {
        CHECK(tickreel_batch_clear(b));
        if (t == 0) {
            CHECK(tickreel_batch_entity_add(b, 1, 0, 0, 64, 0, 0, 0));
            CHECK(tickreel_batch_checkpoint(b, 1, 0));
        } else {
            CHECK(tickreel_batch_pose(b, 1, t, 64, 0, 0, 0));
        }
        if (t == 90) CHECK(tickreel_batch_checkpoint(b, 1, 1));
        CHECK(tickreel_recorder_submit_batch(rec, t, b, NULL));
    }
    CHECK(tickreel_batch_free(b));
    TickreelPending *finish = NULL;
    CHECK(tickreel_recorder_finish(rec, &finish));
    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_register_finished(cat, finish, "course-9", player, "Alice", 1, &lap, &call));
    CHECK(tickreel_pending_free(finish)); /* the call keeps its own reference */
    uint8_t buf[512];
    size_t len = 0;
    CHECK(finish_call(call, buf, sizeof buf, &len));
    Row rows[2];
    size_t n = decode(buf, len, rows, 2);
    expect(n == 1 && rows[0].ticks == 90, "the run registered from its finish has 90 ticks");
    expect(n == 1 && strcmp(rows[0].server, "eu-1") == 0, "the run names the server it was recorded on");
    CHECK(tickreel_recorder_free(rec));
    CHECK(tickreel_engine_free(engine));
    printf("registered from a finish: %u ticks\n", n ? rows[0].ticks : 0);
}

/* An operator's calls on the board of main(): a1 (Alice, 300), a2 (Alice, 200), b1 (Bob, 250). */
static void operator_calls(TickreelCatalog *cat, const char *dir, const char *a1, const char *a2,
                           const uint8_t *alice, const uint8_t *bob) {
    uint8_t buf[4096];
    size_t len = 0;
    Row rows[8];
    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_top(cat, "course-7", 1, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(decode(buf, len, rows, 8) == 1, "a best run");
    int64_t best = rows[0].id, kept = rows[0].recording;

    /* an invalid run leaves the board; valid again, it is back */
    CHECK(tickreel_catalog_set_run_valid(cat, best, false, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    CHECK(tickreel_catalog_top(cat, "course-7", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    size_t n = decode(buf, len, rows, 8);
    expect(n == 2 && memcmp(rows[0].player, bob, 16) == 0 && rows[1].ticks == 300,
           "without the invalid run, Bob leads and Alice's best is her 300-tick run");
    CHECK(tickreel_catalog_set_run_valid(cat, best, true, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    CHECK(tickreel_catalog_set_run_valid(cat, 9999, true, &call));
    expect(finish_call(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_ARGUMENT, "no run 9999");

    /* retention: only rank 1 kept; prune deletes the others' files */
    call = NULL;
    expect(tickreel_catalog_set_retention(cat, "nonsense", 1, false, 0, true, &call) ==
                   TICKREEL_RESULT_INVALID_ARGUMENT && call == NULL,
           "a malformed scope is refused");
    CHECK(tickreel_catalog_set_retention(cat, "course:course-7", 1, false, 0, true, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    CHECK(tickreel_catalog_retention(cat, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    static const char scope[] = "course:course-7";
    expect(len == 2 + strlen(scope) + 8 + 1 + 8 + 1 && memcmp(buf + 2, scope, strlen(scope)) == 0 &&
               be64(buf + 2 + strlen(scope)) == 1,
           "the policy reads back");
    CHECK(tickreel_catalog_prune(cat, false, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    size_t pruned = 0;
    int kept_listed = 0;
    for (size_t at = 0; at < len; pruned++) {
        kept_listed |= (int64_t)be64(buf + at) == kept;
        at += 8 + 8 + 8;
        at += 2 + (size_t)(buf[at] << 8 | buf[at + 1]);
    }
    expect(pruned == 2 && !kept_listed, "prune deletes the two recordings the policy does not keep");
    FILE *f = fopen(a1, "rb");
    expect(f == NULL, "a pruned file is deleted");
    if (f) fclose(f);
    f = fopen(a2, "rb");
    expect(f != NULL, "the kept file stays");
    if (f) fclose(f);
    printf("retention: prune deleted %zu recordings\n", pruned);

    /* shadow-play reports: filed, listed while open, closed */
    CHECK(tickreel_catalog_add_report(cat, bob, "Bob", alice, "fly", a2, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    int64_t report = (int64_t)be64(buf);
    expect(len > 57 && (int64_t)be64(buf + 49) == kept, "the report points at its recording");
    CHECK(tickreel_catalog_add_report(cat, alice, "Alice", bob, "speed", NULL, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    int64_t ids[4];
    expect(open_reports(cat, ids, 4) == 2, "two open reports");
    CHECK(tickreel_catalog_set_report_open(cat, report, false, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    n = open_reports(cat, ids, 4);
    expect(n == 1 && ids[0] != report, "the closed report is no longer open");
    call = NULL;
    expect(tickreel_catalog_reports(cat, 7, &call) == TICKREEL_RESULT_INVALID_ARGUMENT && call == NULL,
           "an unknown report filter is refused");
    printf("reports: one closed, %zu open\n", n);

    register_from_finish(cat, dir, alice);
    network_calls(cat, alice, bob);
    map_versions(cat, dir, alice, bob);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: catalog SCRATCH_DIR\n");
        return 2;
    }
    char url[1024], a1[1024], a2[1024], b1[1024], missing[1024];
    snprintf(url, sizeof url, "sqlite:%s/runs.db", argv[1]);
    snprintf(a1, sizeof a1, "%s/a1.reel", argv[1]);
    snprintf(a2, sizeof a2, "%s/a2.reel", argv[1]);
    snprintf(b1, sizeof b1, "%s/b1.reel", argv[1]);
    snprintf(missing, sizeof missing, "%s/missing.reel", argv[1]);
    write_run(a1, 300);
    write_run(a2, 200);
    write_run(b1, 250);

    static const uint8_t ALICE[16] = {0xa1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const uint8_t BOB[16] = {0xb0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    TickreelCatalog *cat = NULL;
    CHECK(tickreel_catalog_open(url, &cat));

    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    const char *files[] = {a1, a2, b1};
    const uint8_t *players[] = {ALICE, ALICE, BOB};
    const char *names[] = {"Alice", "Alice", "Bob"};
    uint8_t buf[4096];
    size_t len = 0;
    for (int i = 0; i < 3; i++) {
        TickreelPending *call = NULL;
        CHECK(tickreel_catalog_register(cat, files[i], "course-7", players[i], names[i], 1, &lap, &call));
        CHECK(finish_call(call, buf, sizeof buf, &len));
    }

    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_top(cat, "course-7", 10, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    Row rows[8];
    size_t n = decode(buf, len, rows, 8);
    expect(n == 2, "the board has one row per player");
    expect(n == 2 && rows[0].rank == 1 && rows[0].ticks == 200 && strcmp(rows[0].name, "Alice") == 0,
           "Alice's 200-tick run is first");
    expect(n == 2 && rows[1].rank == 2 && rows[1].ticks == 250 && memcmp(rows[1].player, BOB, 16) == 0,
           "Bob is second");
    printf("top: %zu rows, #1 %s in %u ticks\n", n, n ? rows[0].name : "-", n ? rows[0].ticks : 0);

    CHECK(tickreel_catalog_personal_best(cat, "course-7", BOB, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    n = decode(buf, len, rows, 8);
    expect(n == 1 && rows[0].rank == 2, "Bob's best is rank 2");

    /* the best run's ghost, looked up and loaded off this thread */
    CHECK(tickreel_catalog_load_ghost(cat, "course-7", 1, NULL, &call));
    bool done = false;
    while (!done) {
        CHECK(tickreel_pending_poll(call, &done));
        if (!done) sleep_ms(1);
    }
    TickreelGhost *ghost = NULL;
    CHECK(tickreel_pending_take_ghost(call, &ghost));
    expect(tickreel_pending_take_rows(call, buf, sizeof buf, &len) == TICKREEL_RESULT_INVALID_STATE,
           "a ghost lookup's result is a ghost, not rows");
    CHECK(tickreel_pending_free(call));
    TickreelGhostInfo info;
    CHECK(tickreel_ghost_info(ghost, &info));
    expect(info.duration_ticks == 200, "rank 1's ghost is the 200-tick run");
    CHECK(tickreel_ghost_free(ghost));
    printf("ghost of rank 1: %u ticks\n", info.duration_ticks);

    /* clean failures */
    CHECK(tickreel_catalog_register(cat, missing, "course-7", ALICE, "Alice", 1, NULL, &call));
    TickreelResult r = finish_call(call, buf, sizeof buf, &len);
    expect(r == TICKREEL_RESULT_IO, "registering a missing file fails the call with an I/O error");
    printf("missing file: %s: %s\n", tickreel_result_name(r), tickreel_last_error_message());
    call = NULL;
    expect(tickreel_catalog_personal_best(cat, "course-7", NULL, &call) == TICKREEL_RESULT_INVALID_ARGUMENT &&
               call == NULL,
           "a NULL player is refused");
    CHECK(tickreel_catalog_load_ghost(cat, "course-7", 9, NULL, &call));
    r = finish_call(call, buf, sizeof buf, &len);
    expect(r == TICKREEL_RESULT_INVALID_ARGUMENT, "no rank 9 on the board");

    CHECK(tickreel_catalog_prune(cat, true, &call));
    CHECK(finish_call(call, buf, sizeof buf, &len));
    expect(len == 0, "no retention policy: a dry run lists nothing");

    operator_calls(cat, argv[1], a1, a2, ALICE, BOB);
    static const uint8_t CAROL[16] = {0xc0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    held_runs(cat, argv[1], CAROL);

    CHECK(tickreel_catalog_free(cat));
    expect(tickreel_handle_count() == 0, "every handle is freed");
    return example_status();
}
