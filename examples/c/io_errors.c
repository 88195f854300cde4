/* I/O failures through the C API: TICKREEL_RESULT_IO, and a message naming the path. Also the
 * paths refused at the start (a missing parent, a directory given as the file: I/O errors too), and the
 * DATABASE code. Run by tests/c.sh under ASan/UBSan: `io_errors SCRATCH_DIR`; prints
 * "N passed" or FAIL lines and exits non-zero on a failure. */
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
    TALLY(tickreel_engine_free(engine) == TICKREEL_RESULT_OK, "engine free");

    TALLY(TICKREEL_RESULT_DATABASE == 12, "DATABASE is 12");
    TALLY(strcmp(tickreel_result_name(12), "TICKREEL_RESULT_DATABASE") == 0, "name of 12");

    return tally_status();
}
