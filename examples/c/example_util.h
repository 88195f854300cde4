/*
 * What the C examples share: how they report a step that went wrong. Two kinds of example:
 *
 * - a walk-through (object_storage, catalog) stops at the first call that fails: CHECK(call)
 *   exits naming the call, its result and the library's last error message; expect(ok, what)
 *   prints a FAIL line, counts it in `failures` and goes on; example_status() ends main with the
 *   summary line and the exit status;
 * - a checklist (io_errors, reload) counts every check: TALLY(cond, fmt, ...) adds to `passed`
 *   or to `failed` (printing a FAIL line with the source line and the library's last error);
 *   tally_status() prints "N passed, M failed" and gives the exit status.
 *
 * Define EXAMPLE_NAME (a string literal: the program's name in messages) before including this
 * file. An example that loads the library with dlopen cannot call it directly: it defines
 * EXAMPLE_NO_LAST_ERROR, and its FAIL lines leave the last error out.
 */
#ifndef TICKREEL_EXAMPLE_UTIL_H
#define TICKREEL_EXAMPLE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tickreel.h"

#ifndef EXAMPLE_NAME
#error "define EXAMPLE_NAME before including example_util.h"
#endif

/* --- a walk-through ---------------------------------------------------------------------- */

static int failures = 0;

#ifndef EXAMPLE_NO_LAST_ERROR
/* Exits with tickreel's message when a call fails. */
static inline void example_check(TickreelResult r, const char *what) {
    if (r != TICKREEL_RESULT_OK) {
        fprintf(stderr, EXAMPLE_NAME ": %s failed: %s: %s\n", what, tickreel_result_name(r),
                tickreel_last_error_message());
        exit(1);
    }
}
#define CHECK(call) example_check((call), #call)

/* Writes a finished recording where entity 1 runs along x for `ticks` ticks at `speed` blocks a
 * tick, checkpoints 0 and 1 at its start and end (a run of a course from checkpoint 0 to 1), with
 * the writer's options `o` (NULL: the defaults). */
static inline void example_write_run(const char *path, uint32_t ticks, double speed,
                                     TickreelReelOptions *o) {
    TickreelReelWriter *w = NULL;
    CHECK(tickreel_reel_writer_create(path, o, &w));
    TickreelBatch *b = NULL;
    CHECK(tickreel_batch_new(&b));
    for (uint32_t t = 0; t <= ticks; t++) {
        CHECK(tickreel_batch_clear(b));
        if (t == 0) {
            CHECK(tickreel_batch_entity_add(b, 1, 0, 0, 64, 0, 0, 0));
            CHECK(tickreel_batch_checkpoint(b, 1, 0));
        } else {
            CHECK(tickreel_batch_pose(b, 1, t * speed, 64, 0, 0, 0));
        }
        if (t == ticks) CHECK(tickreel_batch_checkpoint(b, 1, 1));
        CHECK(tickreel_reel_writer_write_batch(w, t, b));
    }
    CHECK(tickreel_batch_free(b));
    CHECK(tickreel_reel_writer_finish(w, NULL));
    CHECK(tickreel_reel_writer_free(w));
}
#endif

/* A failed expectation: a FAIL line, counted; the example goes on. */
static inline void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

/* The end of a walk-through's main: how many expectations failed, and its exit status. */
static inline int example_status(void) {
    if (failures) {
        fprintf(stderr, EXAMPLE_NAME ": %d checks failed\n", failures);
        return 1;
    }
    printf(EXAMPLE_NAME ": every check passed\n");
    return 0;
}

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
/* Sleeps `ms` milliseconds (a server's tick loop polling a handle). Needs _POSIX_C_SOURCE
 * 200809L (nanosleep), defined before the first include. */
static inline void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
#endif

/* --- a checklist --------------------------------------------------------------------------- */

static int passed = 0, failed = 0;

#ifdef EXAMPLE_NO_LAST_ERROR
#define TALLY_LAST_ERROR() printf("\n")
#else
#define TALLY_LAST_ERROR() printf(" (last error: %s)\n", tickreel_last_error_message())
#endif

/* Counts `cond` as passed or failed; a failure prints a FAIL line (printf-style message). */
#define TALLY(cond, ...)                        \
    do {                                        \
        if (cond) {                             \
            passed++;                           \
        } else {                                \
            failed++;                           \
            printf("FAIL line %d: ", __LINE__); \
            printf(__VA_ARGS__);                \
            TALLY_LAST_ERROR();                 \
        }                                       \
    } while (0)

/* The end of a checklist's main: the counts, and its exit status. */
static inline int tally_status(void) {
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

#endif
