/* A plugin reload, as a game server does it: the library is loaded with dlopen, used in every
 * area (engine and recorder, shadow play, reader, playhead, ghost, catalog, and object storage
 * when the S3 test server's TICKREEL_S3_BUCKET and AWS_* variables are set, as tests/c.sh does)
 * from the main thread and from two worker threads, then dlclose()d while the workers are still
 * alive. Only then do the workers end, and main ends with pthread_exit so that its own thread-exit
 * callbacks run too. Three rounds.
 *
 * What it catches: a thread-exit callback the library registered on a caller's thread. A
 * pthread-key destructor (std::thread::current(), reached through crossbeam's wake-ups or
 * fastrand's seed) runs when the thread ends, after the library is gone: SIGSEGV, as a JVM died
 * after a plugin reload. A __cxa_thread_atexit destructor (a thread_local! with Drop) makes glibc
 * keep the library mapped after dlclose: "still mapped". Either fails this program.
 *
 * Not run under the sanitizers (ASan keeps its own references to loaded libraries).
 * Usage: reload PATH/TO/libtickreel.so SCRATCH_DIR; prints "N passed, M failed" and FAIL lines. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXAMPLE_NAME "reload"
#define EXAMPLE_NO_LAST_ERROR /* the library is loaded with dlopen */
#include "example_util.h"

/* The loaded library's tickreel_last_error_message (the calling thread's last error). */
static const char *(*last_error)(void) = NULL;

/* TALLY from several threads: the counters are shared. A failure also prints the library's last
 * error on this thread. */
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
#define CHECKED(cond, ...)                                                   \
    do {                                                                     \
        int ok_ = (cond);                                                    \
        pthread_mutex_lock(&tally_lock);                                     \
        TALLY(ok_, __VA_ARGS__);                                             \
        if (!ok_ && last_error != NULL) printf("  (last error: %s)\n", last_error()); \
        pthread_mutex_unlock(&tally_lock);                                   \
    } while (0)

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
#define OK(call) ((call) == TICKREEL_RESULT_OK)

/* Waits (up to 30 s) for a poll function to say done. */
#define POLL(poll_call, done_var)                                 \
    do {                                                          \
        done_var = false;                                         \
        for (int i_ = 0; i_ < 3000 && !done_var; i_++) {          \
            if (!OK(poll_call)) break;                            \
            if (!done_var) usleep(10000);                         \
        }                                                         \
    } while (0)

static const uint32_t PLAYER = 1;
static const uint32_t TICKS = 300;

/* Where the player stands at tick t. */
static double player_x(uint32_t t) { return 10.0 + 0.25 * t; }

/* Records TICKS ticks of one walking player into `path` (a compacted .reel) and returns whether
 * every call succeeded. */
static void record(void *lib, TickreelEngine *engine, const char *path, const char *who) {
    SYM(tickreel_recorder_start);
    SYM(tickreel_recorder_submit_batch);
    SYM(tickreel_recorder_flush);
    SYM(tickreel_recorder_finish);
    SYM(tickreel_recorder_free);
    SYM(tickreel_pending_wait);
    SYM(tickreel_pending_take_path);
    SYM(tickreel_pending_free);
    SYM(tickreel_batch_new);
    SYM(tickreel_batch_clear);
    SYM(tickreel_batch_entity_add);
    SYM(tickreel_batch_pose);
    SYM(tickreel_batch_free);
    TickreelRecorder *rec = NULL;
    CHECKED(OK(p_tickreel_recorder_start(engine, path, NULL, &rec)), "%s: start %s", who, path);
    TickreelBatch *batch = NULL;
    CHECKED(OK(p_tickreel_batch_new(&batch)), "%s: batch", who);
    int ticks_ok = 1;
    for (uint32_t t = 0; t < TICKS; t++) {
        bool dropped = false;
        p_tickreel_batch_clear(batch);
        TickreelResult r = t == 0 ? p_tickreel_batch_entity_add(batch, PLAYER, 0, player_x(t), 64.0, 0.0, 0.0, 0.0)
                                  : p_tickreel_batch_pose(batch, PLAYER, player_x(t), 64.0, 0.0, 0.0, 0.0);
        ticks_ok &= OK(r) && OK(p_tickreel_recorder_submit_batch(rec, t, batch, &dropped)) && !dropped;
    }
    CHECKED(ticks_ok, "%s: %u ticks submitted", who, TICKS);
    p_tickreel_batch_free(batch);
    CHECKED(OK(p_tickreel_recorder_flush(rec)), "%s: flush", who);
    TickreelPending *finish = NULL;
    CHECKED(OK(p_tickreel_recorder_finish(rec, &finish)), "%s: finish", who);
    char out[4096];
    size_t len = 0;
    CHECKED(OK(p_tickreel_pending_wait(finish, -1, NULL)) &&
                OK(p_tickreel_pending_take_path(finish, out, sizeof out, &len)),
            "%s: finish wait", who);
    p_tickreel_pending_free(finish);
    p_tickreel_recorder_free(rec);
}

/* Shadow play: a world kept in memory, the player reported into `path`. */
static void shadow(void *lib, TickreelEngine *engine, const char *path, const char *who) {
    SYM(tickreel_shadow_options_new);
    SYM(tickreel_shadow_options_set_block_ticks);
    SYM(tickreel_shadow_options_free);
    SYM(tickreel_shadow_buffer_start);
    SYM(tickreel_shadow_buffer_report);
    SYM(tickreel_report_options_new);
    SYM(tickreel_report_options_set_after);
    SYM(tickreel_report_options_free);
    SYM(tickreel_shadow_buffer_free);
    SYM(tickreel_recorder_submit_batch);
    SYM(tickreel_recorder_flush);
    SYM(tickreel_recorder_free);
    SYM(tickreel_pending_wait);
    SYM(tickreel_pending_take_path);
    SYM(tickreel_pending_free);
    SYM(tickreel_batch_new);
    SYM(tickreel_batch_clear);
    SYM(tickreel_batch_entity_add);
    SYM(tickreel_batch_pose);
    SYM(tickreel_batch_free);
    TickreelShadowOptions *options = NULL;
    CHECKED(OK(p_tickreel_shadow_options_new(&options)), "%s: shadow options", who);
    CHECKED(OK(p_tickreel_shadow_options_set_block_ticks(options, 40)), "%s: shadow block ticks", who);
    TickreelRecorder *rec = NULL;
    TickreelShadowBuffer *buffer = NULL;
    CHECKED(OK(p_tickreel_shadow_buffer_start(engine, NULL, NULL, options, &rec, &buffer)), "%s: shadow start",
            who);
    p_tickreel_shadow_options_free(options);
    TickreelBatch *batch = NULL;
    p_tickreel_batch_new(&batch);
    int ticks_ok = 1;
    for (uint32_t t = 0; t < 120; t++) {
        bool dropped = false;
        p_tickreel_batch_clear(batch);
        if (t == 0) {
            p_tickreel_batch_entity_add(batch, PLAYER, 0, player_x(t), 64.0, 0.0, 0.0, 0.0);
        } else {
            p_tickreel_batch_pose(batch, PLAYER, player_x(t), 64.0, 0.0, 0.0, 0.0);
        }
        ticks_ok &= OK(p_tickreel_recorder_submit_batch(rec, t, batch, &dropped));
    }
    p_tickreel_batch_free(batch);
    CHECKED(ticks_ok, "%s: shadow ticks", who);
    CHECKED(OK(p_tickreel_recorder_flush(rec)), "%s: shadow flush", who);
    TickreelReportOptions *report_options = NULL;
    CHECKED(OK(p_tickreel_report_options_new(&report_options)), "%s: report options", who);
    /* the window as it is now */
    CHECKED(OK(p_tickreel_report_options_set_after(report_options, 0)), "%s: report after", who);
    TickreelPending *finish = NULL;
    CHECKED(OK(p_tickreel_shadow_buffer_report(buffer, PLAYER, path, report_options, NULL, NULL, 0, &finish)),
            "%s: report into %s", who, path);
    p_tickreel_report_options_free(report_options);
    char out[4096];
    size_t len = 0;
    CHECKED(OK(p_tickreel_pending_wait(finish, -1, NULL)) &&
                OK(p_tickreel_pending_take_path(finish, out, sizeof out, &len)),
            "%s: report written", who);
    p_tickreel_pending_free(finish);
    p_tickreel_shadow_buffer_free(buffer);
    p_tickreel_recorder_free(rec);
}

/* The reader, a playhead and a ghost on the recording at `path`. */
static void play(void *lib, const char *path, const char *who) {
    SYM(tickreel_reader_open);
    SYM(tickreel_reader_verify);
    SYM(tickreel_reader_free);
    SYM(tickreel_playhead_open);
    SYM(tickreel_playhead_seek);
    SYM(tickreel_playhead_play);
    SYM(tickreel_playhead_advance);
    SYM(tickreel_playhead_free);
    SYM(tickreel_ghost_load);
    SYM(tickreel_ghost_free);
    SYM(tickreel_ghost_cursor_new);
    SYM(tickreel_ghost_cursor_sample);
    SYM(tickreel_ghost_cursor_free);
    SYM(tickreel_ghost_load_async);
    SYM(tickreel_pending_poll);
    SYM(tickreel_pending_take_ghost);
    SYM(tickreel_pending_free);
    TickreelReader *reader = NULL;
    CHECKED(OK(p_tickreel_reader_open(path, &reader)), "%s: open %s", who, path);
    struct TickreelVerifyReport report;
    CHECKED(OK(p_tickreel_reader_verify(reader, &report)) && report.ticks == TICKS, "%s: verify", who);
    p_tickreel_reader_free(reader);

    TickreelPlayhead *ph = NULL;
    CHECKED(OK(p_tickreel_playhead_open(path, 0, &ph)), "%s: playhead", who);
    struct TickreelUpdate u;
    CHECKED(OK(p_tickreel_playhead_seek(ph, 200, &u)) && u.position == 200, "%s: seek", who);
    CHECKED(OK(p_tickreel_playhead_play(ph)), "%s: play", who);
    for (int i = 0; i < 5; i++) {
        p_tickreel_playhead_advance(ph, &u);
        usleep(20000);
    }
    CHECKED(u.position > 200, "%s: played to %u", who, u.position);
    p_tickreel_playhead_free(ph);

    TickreelGhostRange whole = {TICKREEL_GHOST_BOUND_EDGE, 0, TICKREEL_GHOST_BOUND_EDGE, 0};
    TickreelGhost *ghost = NULL;
    CHECKED(OK(p_tickreel_ghost_load(path, PLAYER, &whole, &ghost)), "%s: ghost", who);
    TickreelGhostCursor *cursor = NULL;
    CHECKED(OK(p_tickreel_ghost_cursor_new(ghost, &cursor)), "%s: cursor", who);
    struct TickreelGhostSample s;
    CHECKED(OK(p_tickreel_ghost_cursor_sample(cursor, 100.0, &s)) && s.x == player_x(100), "%s: ghost x", who);
    p_tickreel_ghost_cursor_free(cursor);
    p_tickreel_ghost_free(ghost);

    TickreelPending *load = NULL;
    CHECKED(OK(p_tickreel_ghost_load_async(path, PLAYER, &whole, &load)), "%s: ghost load", who);
    bool ready = false;
    POLL(p_tickreel_pending_poll(load, &ready), ready);
    CHECKED(ready && OK(p_tickreel_pending_take_ghost(load, &ghost)), "%s: ghost loaded", who);
    p_tickreel_ghost_free(ghost);
    p_tickreel_pending_free(load);
}

/* The catalog (SQLite): the run registered, the board read. */
static void catalog(void *lib, const char *dir, const char *path, const char *who) {
    SYM(tickreel_catalog_open);
    SYM(tickreel_catalog_register);
    SYM(tickreel_catalog_top);
    SYM(tickreel_pending_poll);
    SYM(tickreel_pending_take_rows);
    SYM(tickreel_pending_free);
    SYM(tickreel_catalog_free);
    char url[4200];
    snprintf(url, sizeof url, "sqlite:%s/runs.db", dir);
    TickreelCatalog *cat = NULL;
    CHECKED(OK(p_tickreel_catalog_open(url, &cat)), "%s: catalog %s", who, url);
    static const uint8_t PLAYER_ID[16] = {0xa1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    TickreelGhostRange whole = {TICKREEL_GHOST_BOUND_EDGE, 0, TICKREEL_GHOST_BOUND_EDGE, 0};
    TickreelPending *call = NULL;
    bool done = false;
    CHECKED(OK(p_tickreel_catalog_register(cat, path, "course", PLAYER_ID, "Alice", PLAYER, &whole, &call)),
            "%s: register", who);
    POLL(p_tickreel_pending_poll(call, &done), done);
    CHECKED(done, "%s: registered", who);
    p_tickreel_pending_free(call);
    CHECKED(OK(p_tickreel_catalog_top(cat, "course", 10, &call)), "%s: top", who);
    POLL(p_tickreel_pending_poll(call, &done), done);
    uint8_t rows[4096];
    size_t n = 0;
    CHECKED(done && OK(p_tickreel_pending_take_rows(call, rows, sizeof rows, &n)) && n > 0, "%s: the board", who);
    p_tickreel_pending_free(call);
    p_tickreel_catalog_free(cat);
}

/* A recording finished straight into object storage and read back by URL. */
static void object_storage(void *lib, TickreelEngine *engine, const char *dir, const char *who) {
    const char *bucket = getenv("TICKREEL_S3_BUCKET");
    if (bucket == NULL) {
        return;
    }
    SYM(tickreel_object_options_new);
    SYM(tickreel_object_options_free);
    SYM(tickreel_recorder_start);
    SYM(tickreel_recorder_submit_tick);
    SYM(tickreel_recorder_finish_upload);
    SYM(tickreel_recorder_free);
    SYM(tickreel_pending_poll);
    SYM(tickreel_pending_free);
    SYM(tickreel_reader_open_url);
    SYM(tickreel_reader_verify);
    SYM(tickreel_reader_free);
    char url[4200], local[4200];
    snprintf(url, sizeof url, "s3://%s/reload/%ld-%s.reel", bucket, (long)getpid(), who);
    snprintf(local, sizeof local, "%s/up.reel", dir);
    TickreelObjectOptions *options = NULL;
    CHECKED(OK(p_tickreel_object_options_new(&options)), "%s: object options", who);
    TickreelRecorder *rec = NULL;
    CHECKED(OK(p_tickreel_recorder_start(engine, local, NULL, &rec)), "%s: start %s", who, local);
    const uint8_t empty_tick[2] = {0, 0};
    for (uint32_t t = 0; t < 100; t++) {
        bool dropped = false;
        p_tickreel_recorder_submit_tick(rec, t, empty_tick, 2, &dropped);
    }
    TickreelPending *up = NULL;
    CHECKED(OK(p_tickreel_recorder_finish_upload(rec, url, options, false, true, &up)), "%s: finish and upload",
            who);
    bool done = false;
    POLL(p_tickreel_pending_poll(up, &done), done);
    CHECKED(done, "%s: upload of %s", who, url);
    p_tickreel_pending_free(up);
    p_tickreel_recorder_free(rec);
    TickreelReader *reader = NULL;
    CHECKED(OK(p_tickreel_reader_open_url(url, options, &reader)), "%s: open %s", who, url);
    struct TickreelVerifyReport report;
    CHECKED(reader != NULL && OK(p_tickreel_reader_verify(reader, &report)) && report.ticks == 100,
            "%s: verify by URL", who);
    p_tickreel_reader_free(reader);
    p_tickreel_object_options_free(options);
}

/* Every area, as one plugin thread `who` would use it, in `dir`. */
static void use_library(void *lib, const char *dir, const char *who) {
    SYM(tickreel_engine_new);
    SYM(tickreel_engine_free);
    SYM(tickreel_recorder_start);
    SYM(tickreel_last_error_message);
    CHECKED(p_tickreel_engine_new && p_tickreel_last_error_message, "%s: symbols", who);
    if (!p_tickreel_engine_new || !p_tickreel_last_error_message) {
        return;
    }
    mkdir(dir, 0777);
    char path[4096], missing[4096], report[4096];
    snprintf(path, sizeof path, "%s/run.reel", dir);
    snprintf(missing, sizeof missing, "%s/nowhere/run.reel", dir);
    snprintf(report, sizeof report, "%s/report.reel", dir);
    TickreelEngine *engine = NULL;
    CHECKED(OK(p_tickreel_engine_new(NULL, &engine)), "%s: engine", who);
    TickreelRecorder *rec = NULL;
    CHECKED(!OK(p_tickreel_recorder_start(engine, missing, NULL, &rec)), "%s: a refused path", who);
    CHECKED(strstr(p_tickreel_last_error_message(), "nowhere") != NULL, "%s: the last error names it", who);
    record(lib, engine, path, who);
    shadow(lib, engine, report, who);
    play(lib, path, who);
    catalog(lib, dir, path, who);
    object_storage(lib, engine, dir, who);
    CHECKED(OK(p_tickreel_engine_free(engine)), "%s: engine free", who);
}

/* A plugin's worker thread: uses the library, says so, and ends only when told (after the
 * library was unloaded). */
struct worker {
    pthread_t thread;
    void *lib;
    char dir[4096];
    char who[32];
};
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int workers_done = 0;
static int released = 0;

static void *worker_main(void *arg) {
    struct worker *w = arg;
    use_library(w->lib, w->dir, w->who);
    pthread_mutex_lock(&gate_lock);
    workers_done++;
    pthread_cond_broadcast(&gate_cond);
    while (!released) {
        pthread_cond_wait(&gate_cond, &gate_lock);
    }
    pthread_mutex_unlock(&gate_lock);
    return NULL; /* the thread ends: its thread-exit callbacks run now, the library long gone */
}

#define WORKERS 2

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
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines survive a crash */
    int baseline = thread_count();
    for (int round = 0; round < 3; round++) {
        void *lib = dlopen(real, RTLD_NOW | RTLD_LOCAL);
        CHECKED(lib != NULL, "dlopen: %s", dlerror());
        if (lib == NULL) {
            break;
        }
        CHECKED(mapped(real), "mapped once loaded");
        last_error = (const char *(*)(void))dlsym(lib, "tickreel_last_error_message");
        workers_done = 0;
        released = 0;
        struct worker workers[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            workers[i].lib = lib;
            snprintf(workers[i].dir, sizeof workers[i].dir, "%s/round%d-worker%d", argv[2], round, i);
            snprintf(workers[i].who, sizeof workers[i].who, "round%d-worker%d", round, i);
            CHECKED(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0, "worker %d", i);
        }
        char dir[4096], who[32];
        snprintf(dir, sizeof dir, "%s/round%d-main", argv[2], round);
        snprintf(who, sizeof who, "round%d-main", round);
        use_library(lib, dir, who);
        pthread_mutex_lock(&gate_lock);
        while (workers_done < WORKERS) {
            pthread_cond_wait(&gate_cond, &gate_lock);
        }
        pthread_mutex_unlock(&gate_lock);

        last_error = NULL;
        CHECKED(dlclose(lib) == 0, "dlclose");
        CHECKED(!mapped(real), "round %d: the library is still mapped after dlclose (a thread-local destructor "
                "on a caller's thread)", round);
        /* Now the workers end, their thread-exit callbacks run with the library unmapped. */
        pthread_mutex_lock(&gate_lock);
        released = 1;
        pthread_cond_broadcast(&gate_cond);
        pthread_mutex_unlock(&gate_lock);
        for (int i = 0; i < WORKERS; i++) {
            pthread_join(workers[i].thread, NULL);
        }
        /* The library's own threads end at most briefly after their joins; allow a second. */
        int threads = thread_count();
        for (int i = 0; i < 100 && threads > baseline; i++) {
            usleep(10000);
            threads = thread_count();
        }
        CHECKED(threads <= baseline, "round %d: %d threads after dlclose, %d before", round, threads, baseline);
    }
    int status = tally_status();
    fflush(stdout);
    if (status != 0) {
        return status;
    }
    /* Ends the main thread as a thread (its thread-exit callbacks run) rather than the process;
     * the process then exits with status 0. */
    pthread_exit(NULL);
}
