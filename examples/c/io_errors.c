/* I/O failures through the C API: TICKREEL_RESULT_IO, and a message naming the path. Also the
 * paths refused at the start (a missing parent, a directory given as the file: I/O errors too), and the
 * DATABASE code. Run by tests/c.sh under ASan/UBSan: `io_errors SCRATCH_DIR`; prints
 * "N passed" or FAIL lines and exits non-zero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tickreel.h"

static int passed, failed;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (cond) {                                       \
            passed++;                                     \
        } else {                                          \
            failed++;                                     \
            printf("FAIL line %d: ", __LINE__);           \
            printf(__VA_ARGS__);                          \
            printf(" (last error: %s)\n", tickreel_last_error_message()); \
        }                                                 \
    } while (0)

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
    CHECK(tickreel_engine_new(NULL, &engine) == TICKREEL_RESULT_OK, "engine");

    /* Refused at the start, as I/O errors at their path: a missing parent directory, a directory
     * given as the file. */
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/nowhere/run.reel", argv[1]);
    TickreelRecorder *rec = NULL;
    TickreelResult r = tickreel_recorder_start(engine, missing, NULL, &rec);
    CHECK(r == TICKREEL_RESULT_IO && rec == NULL, "missing parent: %s", tickreel_result_name(r));
    CHECK(strstr(tickreel_last_error_message(), "nowhere") != NULL, "the message names the path");
    r = tickreel_recorder_start(engine, runs, NULL, &rec);
    CHECK(r == TICKREEL_RESULT_IO && rec == NULL, "a directory: %s", tickreel_result_name(r));
    CHECK(strstr(tickreel_last_error_message(), "is a directory") != NULL, "the message says why");

    /* A flush that fails: the directory is replaced by a file before the first flush. */
    r = tickreel_recorder_start(engine, path, NULL, &rec);
    CHECK(r == TICKREEL_RESULT_OK, "start: %s", tickreel_result_name(r));
    if (rec != NULL) {
        CHECK(rmdir(runs) == 0, "rmdir");
        FILE *f = fopen(runs, "w");
        CHECK(f != NULL, "a file where the directory was");
        if (f != NULL) {
            fputs("not a directory", f);
            fclose(f);
        }
        const uint8_t empty_tick[2] = {0, 0}; /* a batch: its event count, big-endian, here 0 */
        bool dropped = true;
        r = tickreel_recorder_submit_tick(rec, 0, empty_tick, sizeof empty_tick, &dropped);
        CHECK(r == TICKREEL_RESULT_OK && !dropped, "submit: %s", tickreel_result_name(r));
        r = tickreel_recorder_flush(rec);
        CHECK(r == TICKREEL_RESULT_IO, "flush: %s", tickreel_result_name(r));
        CHECK(tickreel_last_error_code() == TICKREEL_RESULT_IO, "last error code");
        CHECK(strstr(tickreel_last_error_message(), runs) != NULL, "the flush's message names %s", runs);
        r = tickreel_recorder_status(rec);
        CHECK(r == TICKREEL_RESULT_IO, "status: %s", tickreel_result_name(r));
        CHECK(strstr(tickreel_last_error_message(), runs) != NULL, "the status's message names %s", runs);
        CHECK(tickreel_recorder_abort(rec) == TICKREEL_RESULT_OK, "abort");
        CHECK(tickreel_recorder_free(rec) == TICKREEL_RESULT_OK, "free");
    }
    CHECK(tickreel_engine_free(engine) == TICKREEL_RESULT_OK, "engine free");

    CHECK(TICKREEL_RESULT_DATABASE == 12, "DATABASE is 12");
    CHECK(strcmp(tickreel_result_name(12), "TICKREEL_RESULT_DATABASE") == 0, "name of 12");

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
