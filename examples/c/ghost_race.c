/*
 * A ghost race from C: three players' runs of a course registered in a catalog (SQLite), plus a
 * crafted run (60 blocks a second) that the run checks hold; the top two, Bob's best and rank 3
 * loaded at once into a ghost set (the crafted run never among them), each ghost with its own
 * cursor, sampled in one call per tick into this program's buffer; and the live player's splits
 * against their gold segments (the delta, a new gold, the best possible time) checked against a
 * hand-computed table.
 *
 * Usage: ghost_race SCRATCH_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_NAME "ghost_race"
#include "example_util.h"

/* Writes a run of `ticks` ticks at `speed` blocks a tick (example_write_run). */
static void write_run(const char *path, uint32_t ticks, double speed) {
    example_write_run(path, ticks, speed, NULL);
}

static void register_run(TickreelCatalog *cat, const char *path, const uint8_t *player, const char *name) {
    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    TickreelPending *call = NULL;
    CHECK(tickreel_catalog_register(cat, path, "course-g", player, name, 1, &lap, &call));
    bool done = false;
    while (!done) {
        CHECK(tickreel_pending_poll(call, &done));
    }
    uint8_t buf[1024];
    size_t len = 0;
    CHECK(tickreel_pending_take_rows(call, buf, sizeof buf, &len));
    CHECK(tickreel_pending_free(call));
}

/* Starts loading a course's ghosts (off this thread), waits for them and takes the set: the
 * lookup's or a load's failure, or OK with the set in `*set`. */
static TickreelResult load_ghosts(TickreelCatalog *cat, const char *course, uint32_t top, const uint8_t *player,
                                  uint32_t rank, TickreelGhostSet **set) {
    *set = NULL;
    TickreelPending *pending = NULL;
    TickreelResult r = tickreel_catalog_load_ghosts(cat, course, top, player, rank, &pending);
    if (r != TICKREEL_RESULT_OK) return r;
    r = tickreel_pending_wait(pending, -1, NULL);
    if (r == TICKREEL_RESULT_OK) r = tickreel_pending_take_ghost_set(pending, set);
    CHECK(tickreel_pending_free(pending));
    return r;
}

static void ghost_set(TickreelCatalog *cat, const uint8_t *bob, const uint8_t *mallory) {
    /* the top 2 (Alice 200, Bob 250), Bob's best (already there: loaded once), rank 3 (Carol) */
    TickreelGhostSet *set = NULL;
    CHECK(load_ghosts(cat, "course-g", 2, bob, 3, &set));
    uint32_t n = 0;
    CHECK(tickreel_ghost_set_len(set, &n));
    expect(n == 3, "three ghosts: the top two and rank 3 (Bob's best is among the top)");
    uint32_t want[3] = {200, 250, 300};
    for (uint32_t i = 0; i < n && i < 3; i++) {
        uint32_t d = 0;
        CHECK(tickreel_ghost_set_duration(set, i, &d));
        expect(d == want[i], "the ghosts in board order");
    }
    CHECK(tickreel_ghost_set_set_time_shift(set, 2, 10.0));

    /* a race of 320 ticks: every ghost sampled in one call per tick, into this buffer */
    double out[4 * TICKREEL_GHOST_SAMPLE_VALUES];
    uint32_t finished_at[3] = {0, 0, 0};
    for (uint32_t t = 0; t <= 320; t++) {
        uint32_t count = 0;
        CHECK(tickreel_ghost_set_sample(set, (double)t, out, sizeof out / sizeof out[0], &count));
        expect(count == n, "every ghost sampled");
        for (uint32_t i = 0; i < count && i < 3; i++) {
            const double *s = out + i * TICKREEL_GHOST_SAMPLE_VALUES;
            if (s[7] == TICKREEL_GHOST_FINISHED && !finished_at[i]) finished_at[i] = t;
        }
        if (t == 100) {
            /* Alice at 0.3 blocks a tick, 100 ticks in; Carol shifted by 10: her tick 90 */
            expect(fabs(out[1] - 30.0) < 1e-9, "Alice's ghost at x 30");
            expect(out[2 * TICKREEL_GHOST_SAMPLE_VALUES] == 90.0, "Carol's ghost at her tick 90");
        }
    }
    expect(finished_at[0] == 200 && finished_at[1] == 250 && finished_at[2] == 310,
           "each ghost finishes at its own time (Carol's 10 ticks late)");
    printf("ghost set: %u ghosts, finished at ticks %u, %u, %u\n", n, finished_at[0], finished_at[1],
           finished_at[2]);

    /* the caller's buffer is checked */
    uint32_t count = 0;
    expect(tickreel_ghost_set_sample(set, 1.0, NULL, 8, &count) == TICKREEL_RESULT_NULL_ARGUMENT,
           "a NULL buffer with a length is refused");
    expect(tickreel_ghost_set_sample(set, NAN, out, 8, &count) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a NaN time is refused");
    CHECK(tickreel_ghost_set_free(set));

    /* the crafted run is held: never among the ghosts, no one's best ghost */
    CHECK(load_ghosts(cat, "course-g", 10, NULL, 0, &set));
    CHECK(tickreel_ghost_set_len(set, &n));
    expect(n == 3, "the held run is not among the top ghosts");
    CHECK(tickreel_ghost_set_free(set));
    expect(load_ghosts(cat, "course-g", 0, mallory, 0, &set) == TICKREEL_RESULT_INVALID_ARGUMENT &&
               set == NULL,
           "a held run is no one's best ghost");
    expect(load_ghosts(cat, "course-g", 0, NULL, 4, &set) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "there is no rank 4");
}

/*
 * Route 1, 2; gold 20, 30, 30 ticks at 20 ticks a second (sum of best 80):
 *
 *   live | event        | segment | delta | new gold | best possible
 *     15 | -            |         |       |          | 80
 *     25 | -            |         |       |          | 85
 *     24 | checkpoint 2 | off the route: no split     | 84
 *     26 | checkpoint 1 | 0       | +6    | no       | 86
 *     51 | checkpoint 2 | 1       | -5    | yes      | 81
 *     90 | -            |         |       |          | 90
 *     83 | finish       | 2       | +2    | no       | 83
 *      0 | next attempt |         |       |          | 75
 */
static void gold_splits(void) {
    const uint32_t route[] = {1, 2};
    const uint32_t gold[] = {20, 30, 30};
    TickreelGoldSplits *g = NULL;
    CHECK(tickreel_gold_splits_new(route, 2, gold, 3, 20.0, &g));
    double best = 0;
    CHECK(tickreel_gold_splits_best_possible(g, 15, &best));
    expect(best == 80, "15: best possible 80");
    CHECK(tickreel_gold_splits_best_possible(g, 25, &best));
    expect(best == 85, "25: best possible 85");
    TickreelGoldSplit s;
    CHECK(tickreel_gold_splits_checkpoint(g, 2, 24, &s));
    expect(!s.split && s.best_possible_ticks == 84, "24: checkpoint 2 is off the route");
    CHECK(tickreel_gold_splits_checkpoint(g, 1, 26, &s));
    expect(s.split && s.segment == 0 && s.delta_ticks == 6 && !s.new_gold && s.best_possible_ticks == 86,
           "26: segment 0, +6, best possible 86");
    printf("gold: segment %u %+.2f s, best possible %.2f s\n", s.segment, s.delta_seconds, s.best_possible_seconds);
    CHECK(tickreel_gold_splits_checkpoint(g, 2, 51, &s));
    expect(s.split && s.segment == 1 && s.delta_ticks == -5 && s.new_gold && s.best_possible_ticks == 81,
           "51: segment 1, -5, a new gold, best possible 81");
    printf("gold: segment %u %+.2f s%s, best possible %.2f s\n", s.segment, s.delta_seconds,
           s.new_gold ? " (new gold)" : "", s.best_possible_seconds);
    CHECK(tickreel_gold_splits_best_possible(g, 90, &best));
    expect(best == 90, "90: best possible 90");
    CHECK(tickreel_gold_splits_finish(g, 83, &s));
    expect(s.split && s.segment == 2 && s.delta_ticks == 2 && !s.new_gold && s.best_possible_ticks == 83,
           "83: finish, +2, 83");
    int64_t now[3];
    uint32_t n = 0;
    CHECK(tickreel_gold_splits_gold(g, now, 3, &n));
    expect(n == 3 && now[0] == 20 && now[1] == 25 && now[2] == 30, "the new gold is kept");
    CHECK(tickreel_gold_splits_reset(g));
    CHECK(tickreel_gold_splits_best_possible(g, 0, &best));
    expect(best == 75, "next attempt: best possible 75");
    CHECK(tickreel_gold_splits_free(g));
    expect(tickreel_gold_splits_new(route, 2, gold, 2, 20.0, &g) == TICKREEL_RESULT_INVALID_ARGUMENT && g == NULL,
           "two gold times for three segments are refused");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ghost_race SCRATCH_DIR\n");
        return 2;
    }
    char url[1024], a[1024], b[1024], c[1024], m[1024];
    snprintf(url, sizeof url, "sqlite:%s/runs.db", argv[1]);
    snprintf(a, sizeof a, "%s/a.reel", argv[1]);
    snprintf(b, sizeof b, "%s/b.reel", argv[1]);
    snprintf(c, sizeof c, "%s/c.reel", argv[1]);
    snprintf(m, sizeof m, "%s/m.reel", argv[1]);
    write_run(a, 200, 0.3);
    write_run(b, 250, 0.3);
    write_run(c, 300, 0.3);
    write_run(m, 20, 3.0);

    static const uint8_t ALICE[16] = {0xa1, 1};
    static const uint8_t BOB[16] = {0xb0, 1};
    static const uint8_t CAROL[16] = {0xc0, 1};
    static const uint8_t MALLORY[16] = {0x3a, 1};
    TickreelCatalog *cat = NULL;
    CHECK(tickreel_catalog_open(url, &cat));
    register_run(cat, a, ALICE, "Alice");
    register_run(cat, b, BOB, "Bob");
    register_run(cat, c, CAROL, "Carol");
    register_run(cat, m, MALLORY, "Mallory");
    ghost_set(cat, BOB, MALLORY);
    CHECK(tickreel_catalog_free(cat));
    gold_splits();
    return example_status();
}
