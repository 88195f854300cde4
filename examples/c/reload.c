/* Loads libtickreel with dlopen, records, finishes, reads back and verifies, provokes an error,
 * finishes a second recording straight into object storage and reads it back by URL (when the S3
 * test server's TICKREEL_S3_BUCKET and AWS_* variables are set, as tests/c.sh does; its tokio
 * runtime threads must be gone too), then dlclose()s it, all on this (the main, long-lived) thread, three times: each time the
 * library must be unmapped afterwards (/proc/self/maps no longer names it). A thread-local
 * destructor registered on this thread would keep it mapped (glibc), as a plugin reload did.
 * Not run under the sanitizers (ASan keeps its own references to loaded libraries).
 * Usage: reload PATH/TO/libtickreel.so SCRATCH_DIR; prints "N passed" or FAIL lines. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXAMPLE_NAME "reload"
#define EXAMPLE_NO_LAST_ERROR /* the library is loaded with dlopen */
#include "example_util.h"

/* Whether /proc/self/maps names `path`. */
static int mapped(const char *path) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[8192];
    int found = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, path) != NULL) {
            found = 1;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return found;
}

/* The threads of this process: the entries of /proc/self/task. */
static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') {
            n++;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return n;
}

#define SYM(name) __typeof__(&name) p_##name = (__typeof__(&name))dlsym(lib, #name)

static void use_library(void *lib, const char *dir, int round) {
    SYM(tickreel_engine_new);
    SYM(tickreel_engine_free);
    SYM(tickreel_recorder_start);
    SYM(tickreel_recorder_submit_tick);
    SYM(tickreel_recorder_flush);
    SYM(tickreel_recorder_finish);
    SYM(tickreel_recorder_free);
    SYM(tickreel_finish_handle_wait);
    SYM(tickreel_finish_handle_free);
    SYM(tickreel_reader_open);
    SYM(tickreel_reader_verify);
    SYM(tickreel_reader_free);
    SYM(tickreel_last_error_message);
    TALLY(p_tickreel_engine_new && p_tickreel_reader_verify && p_tickreel_last_error_message, "symbols");
    if (!p_tickreel_engine_new || !p_tickreel_reader_verify || !p_tickreel_last_error_message) {
        return;
    }
    char path[4096], missing[4096], out[4096];
    snprintf(path, sizeof path, "%s/run%d.reel", dir, round);
    snprintf(missing, sizeof missing, "%s/nowhere/run.reel", dir);
    TickreelEngine *engine = NULL;
    TALLY(p_tickreel_engine_new(NULL, &engine) == TICKREEL_RESULT_OK, "engine");
    TickreelRecorder *rec = NULL;
    TALLY(p_tickreel_recorder_start(engine, missing, NULL, &rec) != TICKREEL_RESULT_OK, "a refused path");
    TALLY(strstr(p_tickreel_last_error_message(), "nowhere") != NULL, "the last error names it");
    TALLY(p_tickreel_recorder_start(engine, path, NULL, &rec) == TICKREEL_RESULT_OK, "start");
    const uint8_t empty_tick[2] = {0, 0};
    for (uint32_t t = 0; t < 300; t++) {
        bool dropped = false;
        TALLY(p_tickreel_recorder_submit_tick(rec, t, empty_tick, 2, &dropped) == TICKREEL_RESULT_OK && !dropped,
              "tick %u", t);
    }
    TALLY(p_tickreel_recorder_flush(rec) == TICKREEL_RESULT_OK, "flush");
    TickreelFinishHandle *finish = NULL;
    TALLY(p_tickreel_recorder_finish(rec, &finish) == TICKREEL_RESULT_OK, "finish");
    size_t len = 0;
    TALLY(p_tickreel_finish_handle_wait(finish, out, sizeof out, &len) == TICKREEL_RESULT_OK, "finish wait");
    p_tickreel_finish_handle_free(finish);
    p_tickreel_recorder_free(rec);
    TickreelReader *reader = NULL;
    TALLY(p_tickreel_reader_open(path, &reader) == TICKREEL_RESULT_OK, "open %s", path);
    struct TickreelVerifyReport report;
    TALLY(p_tickreel_reader_verify(reader, &report) == TICKREEL_RESULT_OK, "verify");
    p_tickreel_reader_free(reader);
    const char *bucket = getenv("TICKREEL_S3_BUCKET");
    if (bucket != NULL) {
        SYM(tickreel_object_options_new);
        SYM(tickreel_object_options_free);
        SYM(tickreel_recorder_finish_upload);
        SYM(tickreel_pending_upload_poll);
        SYM(tickreel_pending_upload_free);
        SYM(tickreel_reader_open_url);
        char url[4096], local[4096];
        snprintf(url, sizeof url, "s3://%s/reload/%ld-run%d.reel", bucket, (long)getpid(), round);
        snprintf(local, sizeof local, "%s/up%d.reel", dir, round);
        TickreelObjectOptions *options = NULL;
        TALLY(p_tickreel_object_options_new(&options) == TICKREEL_RESULT_OK, "object options");
        TALLY(p_tickreel_recorder_start(engine, local, NULL, &rec) == TICKREEL_RESULT_OK, "start %s", local);
        for (uint32_t t = 0; t < 100; t++) {
            bool dropped = false;
            TALLY(p_tickreel_recorder_submit_tick(rec, t, empty_tick, 2, &dropped) == TICKREEL_RESULT_OK, "tick");
        }
        TickreelPendingUpload *up = NULL;
        TALLY(p_tickreel_recorder_finish_upload(rec, url, options, false, true, &up) == TICKREEL_RESULT_OK,
              "finish and upload: %s", p_tickreel_last_error_message());
        bool done = false;
        TickreelResult r = TICKREEL_RESULT_OK;
        for (int i = 0; i < 3000 && !done && r == TICKREEL_RESULT_OK; i++) {
            r = p_tickreel_pending_upload_poll(up, &done);
            if (!done) {
                usleep(10000);
            }
        }
        TALLY(done && r == TICKREEL_RESULT_OK, "upload of %s: %s", url, p_tickreel_last_error_message());
        p_tickreel_pending_upload_free(up);
        p_tickreel_recorder_free(rec);
        reader = NULL;
        TALLY(p_tickreel_reader_open_url(url, options, &reader) == TICKREEL_RESULT_OK, "open %s: %s", url,
              p_tickreel_last_error_message());
        TALLY(reader != NULL && p_tickreel_reader_verify(reader, &report) == TICKREEL_RESULT_OK && report.ticks == 100,
              "verify by URL");
        p_tickreel_reader_free(reader);
        p_tickreel_object_options_free(options);
    }
    TALLY(p_tickreel_engine_free(engine) == TICKREEL_RESULT_OK, "engine free");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: reload LIBRARY SCRATCH_DIR\n");
        return 2;
    }
    char real[4096];
    if (realpath(argv[1], real) == NULL) {
        perror("realpath");
        return 2;
    }
    int baseline = thread_count();
    for (int round = 0; round < 3; round++) {
        void *lib = dlopen(real, RTLD_NOW | RTLD_LOCAL);
        TALLY(lib != NULL, "dlopen: %s", dlerror());
        if (lib == NULL) {
            break;
        }
        TALLY(mapped(real), "mapped once loaded");
        use_library(lib, argv[2], round);
        TALLY(dlclose(lib) == 0, "dlclose");
        TALLY(!mapped(real), "round %d: the library is still mapped after dlclose", round);
        /* Threads end asynchronously at most briefly after their joins; allow a second. */
        int threads = thread_count();
        for (int i = 0; i < 100 && threads > baseline; i++) {
            usleep(10000);
            threads = thread_count();
        }
        TALLY(threads <= baseline, "round %d: %d threads after dlclose, %d before", round, threads, baseline);
    }
    return tally_status();
}
