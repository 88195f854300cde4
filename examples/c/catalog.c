/*
 * The catalog from C on SQLite: writes three runs of a course (two players), registers them,
 * reads the board (top, a player's best), loads the best run's ghost through the catalog, and
 * checks the clean failures (a missing file, a NULL player). Every database call runs on the
 * catalog's worker thread; this thread only polls the call handles, as a server's tick loop would.
 *
 * Usage: catalog SCRATCH_DIR
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tickreel.h"

static int failures = 0;

static void check(TickreelResult r, const char *what) {
    if (r != TICKREEL_RESULT_OK) {
        fprintf(stderr, "catalog: %s failed: %s: %s\n", what, tickreel_result_name(r),
                tickreel_last_error_message());
        exit(1);
    }
}
#define CHECK(call) check((call), #call)

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Writes a finished recording where entity 1 runs for `ticks` ticks, checkpoints 0 and 1 at its
 * start and end. */
static void write_run(const char *path, uint32_t ticks) {
    TickreelReelOptions o;
    CHECK(tickreel_reel_options_default(&o));
    TickreelReelWriter *w = NULL;
    CHECK(tickreel_reel_writer_create(path, &o, &w));
    TickreelBatch *b = NULL;
    CHECK(tickreel_batch_new(&b));
    for (uint32_t t = 0; t <= ticks; t++) {
        CHECK(tickreel_batch_clear(b));
        if (t == 0) {
            CHECK(tickreel_batch_add_entity(b, 1, 0, 0, 64, 0, 0, 0));
            CHECK(tickreel_batch_checkpoint(b, 1, 0));
        } else {
            CHECK(tickreel_batch_add_pose(b, 1, t * 0.3, 64, 0, 0, 0));
        }
        if (t == ticks) CHECK(tickreel_batch_checkpoint(b, 1, 1));
        CHECK(tickreel_reel_writer_write_batch(w, t, b));
    }
    CHECK(tickreel_batch_free(b));
    uint64_t size = 0;
    CHECK(tickreel_reel_writer_finish(w, &size));
    CHECK(tickreel_reel_writer_free(w));
}

/* Polls a call until it ends (never blocking), then returns its result code; its rows go to
 * `buf`. */
static TickreelResult finish_call(TickreelCatalogCall *call, uint8_t *buf, size_t cap, size_t *len) {
    bool done = false;
    while (!done) {
        CHECK(tickreel_catalog_call_poll(call, &done));
        if (!done) sleep_ms(1);
    }
    TickreelResult r = buf ? tickreel_catalog_call_rows(call, buf, cap, len) : TICKREEL_RESULT_OK;
    CHECK(tickreel_catalog_call_free(call));
    return r;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* One decoded run row (see rows::runs in native/bridge/api/catalog.rs). */
typedef struct {
    uint64_t rank;
    uint8_t player[16];
    uint32_t ticks;
    char name[64];
} Row;

static size_t decode(const uint8_t *p, size_t len, Row *rows, size_t max) {
    size_t n = 0, at = 0;
    while (at < len && n < max) {
        Row *r = &rows[n++];
        r->rank = be64(p + at);
        memcpy(r->player, p + at + 24, 16);
        r->ticks = be32(p + at + 52);
        at += 8 + 8 + 8 + 16 + 16 + 8 + 8 + 1 + 8;
        uint16_t course = (uint16_t)(p[at] << 8 | p[at + 1]);
        at += 2 + course;
        uint16_t name = (uint16_t)(p[at] << 8 | p[at + 1]);
        size_t copy = name < sizeof r->name - 1 ? name : sizeof r->name - 1;
        memcpy(r->name, p + at + 2, copy);
        r->name[copy] = 0;
        at += 2 + name;
    }
    return n;
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
        TickreelCatalogCall *call = NULL;
        CHECK(tickreel_catalog_register(cat, files[i], "course-7", players[i], names[i], 1, &lap, &call));
        CHECK(finish_call(call, buf, sizeof buf, &len));
    }

    TickreelCatalogCall *call = NULL;
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
        CHECK(tickreel_catalog_call_poll(call, &done));
        if (!done) sleep_ms(1);
    }
    TickreelGhostLoad *load = NULL;
    CHECK(tickreel_catalog_call_ghost_load(call, &load));
    TickreelGhostLoad *again = NULL;
    expect(tickreel_catalog_call_ghost_load(call, &again) == TICKREEL_RESULT_INVALID_STATE && again == NULL,
           "a ghost load is taken once");
    CHECK(tickreel_catalog_call_free(call));
    bool ready = false;
    while (!ready) {
        CHECK(tickreel_ghost_load_poll(load, &ready));
        if (!ready) sleep_ms(1);
    }
    TickreelGhost *ghost = NULL;
    CHECK(tickreel_ghost_load_take(load, &ghost));
    TickreelGhostInfo info;
    CHECK(tickreel_ghost_info(ghost, &info));
    expect(info.duration_ticks == 200, "rank 1's ghost is the 200-tick run");
    CHECK(tickreel_ghost_free(ghost));
    CHECK(tickreel_ghost_load_free(load));
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

    CHECK(tickreel_catalog_free(cat));
    expect(tickreel_handle_count() == 0, "every handle is freed");
    if (failures) {
        fprintf(stderr, "catalog: %d checks failed\n", failures);
        return 1;
    }
    printf("catalog: every check passed\n");
    return 0;
}
