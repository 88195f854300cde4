/* I/O failures through the C API: TICKREEL_RESULT_IO, and a message naming the path. Also the
 * paths refused at the start (a missing parent, a directory given as the file: I/O errors too), and the
 * DATABASE code, and a restart where a live recording exists (on_existing). Run by tests/c.sh under ASan/UBSan: `io_errors SCRATCH_DIR`; prints
 * "N passed" or FAIL lines and exits non-zero on a failure. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, for sleep_ms */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXAMPLE_NAME "io_errors"
#include "example_util.h"

int main(int argc, char **argv) {
    if (argc < 2 || strlen(argv[1]) > 1900) {
        fprintf(stderr, "usage: io_errors SCRATCH_DIR\n");
        return 2;
    }
    char runs[2048], path[4096];
    snprintf(runs, sizeof runs, "%s/runs", argv[1]);
    snprintf(path, sizeof path, "%s/run.reel", runs);
    if (mkdir(runs, 0755) != 0) {
        perror("mkdir");
        return 2;
    }

    TickreelEngine *engine = NULL;
    TALLY(tickreel_engine_new(NULL, &engine) == TICKREEL_RESULT_OK, "engine");

    /* Refused at the start, as I/O errors at their path: a missing parent directory, a directory
     * given as the file. */
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/nowhere/run.reel", argv[1]);
    TickreelRecorder *rec = NULL;
    TickreelResult r = tickreel_recorder_start(engine, missing, NULL, &rec);
    TALLY(r == TICKREEL_RESULT_IO && rec == NULL, "missing parent: %s", tickreel_result_name(r));
    TALLY(strstr(tickreel_last_error_message(), "nowhere") != NULL, "the message names the path");
    r = tickreel_recorder_start(engine, runs, NULL, &rec);
    TALLY(r == TICKREEL_RESULT_IO && rec == NULL, "a directory: %s", tickreel_result_name(r));
    TALLY(strstr(tickreel_last_error_message(), "is a directory") != NULL, "the message says why");

    /* A flush that fails: the directory is replaced by a file before the first flush. */
    r = tickreel_recorder_start(engine, path, NULL, &rec);
    TALLY(r == TICKREEL_RESULT_OK, "start: %s", tickreel_result_name(r));
    if (rec != NULL) {
        TALLY(rmdir(runs) == 0, "rmdir");
        FILE *f = fopen(runs, "w");
        TALLY(f != NULL, "a file where the directory was");
        if (f != NULL) {
            fputs("not a directory", f);
            fclose(f);
        }
        const uint8_t empty_tick[2] = {0, 0}; /* a batch: its event count, big-endian, here 0 */
        bool dropped = true;
        r = tickreel_recorder_submit_tick(rec, 0, empty_tick, sizeof empty_tick, &dropped);
        TALLY(r == TICKREEL_RESULT_OK && !dropped, "submit: %s", tickreel_result_name(r));
        r = tickreel_recorder_flush(rec);
        TALLY(r == TICKREEL_RESULT_IO, "flush: %s", tickreel_result_name(r));
        TALLY(tickreel_last_error_code() == TICKREEL_RESULT_IO, "last error code");
        TALLY(strstr(tickreel_last_error_message(), runs) != NULL, "the flush's message names %s", runs);
        r = tickreel_recorder_status(rec);
        TALLY(r == TICKREEL_RESULT_IO, "status: %s", tickreel_result_name(r));
        TALLY(strstr(tickreel_last_error_message(), runs) != NULL, "the status's message names %s", runs);
        TALLY(tickreel_recorder_abort(rec) == TICKREEL_RESULT_OK, "abort");
        TALLY(tickreel_recorder_free(rec) == TICKREEL_RESULT_OK, "free");
    }

    /* A server restarted while its recording's live directory exists: refused when asked to, or
     * the old recording kept aside (STEM.previous-1.reel.live) and a new one started at tick 0. */
    char restart[4096], side[4096];
    snprintf(restart, sizeof restart, "%s/restart.reel", argv[1]);
    snprintf(side, sizeof side, "%s/restart.previous-1.reel.live", argv[1]);
    const uint8_t tick0[2] = {0, 0};
    bool was_dropped = false;
    rec = NULL;
    r = tickreel_recorder_start(engine, restart, NULL, &rec); /* the defaults */
    TALLY(r == TICKREEL_RESULT_OK, "first run: %s", tickreel_result_name(r));
    if (rec != NULL) {
        for (uint32_t t = 0; t < 10; t++) {
            tickreel_recorder_submit_tick(rec, t, tick0, sizeof tick0, &was_dropped);
        }
        TALLY(tickreel_recorder_flush(rec) == TICKREEL_RESULT_OK, "first run flushed");
        TALLY(tickreel_recorder_free(rec) == TICKREEL_RESULT_OK, "first run stopped unfinished");
    }
    TickreelRecorderOptions *ro = NULL;
    TALLY(tickreel_recorder_options_new(&ro) == TICKREEL_RESULT_OK, "recorder options");
    TALLY(tickreel_recorder_options_set_on_existing(ro, TICKREEL_ON_EXISTING_REFUSE) == TICKREEL_RESULT_OK,
          "on_existing REFUSE");
    rec = NULL;
    r = TICKREEL_RESULT_LOCKED;
    /* The writer releases the path once it has closed the freed recording: until then, LOCKED. */
    for (int i = 0; i < 10000 && r == TICKREEL_RESULT_LOCKED; i++) { /* 20 s at most */
        r = tickreel_recorder_start(engine, restart, ro, &rec);
        if (r == TICKREEL_RESULT_LOCKED) {
            sleep_ms(2);
        }
    }
    TALLY(r == TICKREEL_RESULT_IO && rec == NULL, "refused restart: %s", tickreel_result_name(r));
    TALLY(strstr(tickreel_last_error_message(), "on_existing") != NULL, "the refusal says what to set");
    r = tickreel_recorder_options_set_on_existing(ro, 7);
    TALLY(r == TICKREEL_RESULT_INVALID_ARGUMENT, "on_existing 7: %s", tickreel_result_name(r));
    TALLY(strstr(tickreel_last_error_message(), "on_existing 7") != NULL, "the setter names itself");
    TALLY(tickreel_recorder_options_free(ro) == TICKREEL_RESULT_OK, "recorder options freed");
    /* The defaults (START_FRESH): the old recording set aside, tick 0 taken. */
    r = tickreel_recorder_start(engine, restart, NULL, &rec);
    TALLY(r == TICKREEL_RESULT_OK, "fresh restart: %s", tickreel_result_name(r));
    if (rec != NULL) {
        r = tickreel_recorder_submit_tick(rec, 0, tick0, sizeof tick0, &was_dropped);
        TALLY(r == TICKREEL_RESULT_OK && !was_dropped, "tick 0 after a fresh restart: %s", tickreel_result_name(r));
        struct stat st;
        TALLY(stat(side, &st) == 0 && S_ISDIR(st.st_mode), "the old recording kept at %s", side);
        TALLY(tickreel_recorder_abort(rec) == TICKREEL_RESULT_OK, "abort the fresh one");
        TALLY(tickreel_recorder_free(rec) == TICKREEL_RESULT_OK, "free the fresh one");
    }
    TALLY(tickreel_engine_free(engine) == TICKREEL_RESULT_OK, "engine free");

    TALLY(TICKREEL_RESULT_DATABASE == 12, "DATABASE is 12");
    TALLY(strcmp(tickreel_result_name(12), "TICKREEL_RESULT_DATABASE") == 0, "name of 12");

    return tally_status();
}
