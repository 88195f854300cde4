/*
 * Recordings in object storage from C: records a run with an engine, finishes it straight into
 * an S3 bucket (tickreel_recorder_finish_upload), opens it again by URL and seeks, loads a ghost
 * from it by URL, writes a shadow-play report straight into the bucket
 * (tickreel_shadow_buffer_report_upload) and reads it back, and checks that a missing object and
 * wrong credentials fail cleanly, with a message that never shows the secret. A catalog's run
 * registered once its upload succeeded points at the object and opens from its row. A recording
 * shipped live (tickreel_recorder_ship_live) is followed by URL while it is written and finished
 * into one .reel, its live objects removed.
 *
 * The store comes from the usual variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP), read by tickreel_object_options_new, and
 * the bucket from TICKREEL_S3_BUCKET. tests/c.sh runs it against moto_server on loopback.
 *
 * Usage: object_storage SCRATCH_DIR
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXAMPLE_NAME "object_storage"
#include "example_util.h"

#define TICKS 300u
#define RUNNER 3u

static double x_at(uint32_t tick) { return tick * 0.5; }

/* Records RUNNER for TICKS ticks (checkpoints at 100 and 200) and finishes it into `url`. */
static TickreelPending *record_and_upload(const char *path, const char *url,
                                          TickreelObjectOptions *options) {
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(NULL, &engine)); /* the defaults */
    TickreelRecorderOptions *ro = NULL;
    CHECK(tickreel_recorder_options_new(&ro));
    CHECK(tickreel_recorder_options_set_overwrite(ro, true));
    TickreelRecorder *rec = NULL;
    CHECK(tickreel_recorder_start(engine, path, ro, &rec));
    CHECK(tickreel_recorder_options_free(ro));
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t tick = 0; tick < TICKS; tick++) {
        CHECK(tickreel_batch_clear(batch));
        if (tick == 0) {
            CHECK(tickreel_batch_entity_add(batch, RUNNER, 0, x_at(0), 64, 0, 0, 0));
        } else {
            CHECK(tickreel_batch_pose(batch, RUNNER, x_at(tick), 64, 0, 0, 0));
        }
        if (tick == 100 || tick == 200) {
            CHECK(tickreel_batch_checkpoint(batch, RUNNER, tick / 100 - 1));
        }
        CHECK(tickreel_recorder_submit_batch(rec, tick, batch, NULL));
    }
    CHECK(tickreel_batch_free(batch));
    /* a malformed URL is refused before the recording ends */
    TickreelPending *up = NULL;
    expect(tickreel_recorder_finish_upload(rec, "s3://", options, false, false, &up) ==
               TICKREEL_RESULT_INVALID_ARGUMENT && up == NULL,
           "a malformed URL is refused");
    CHECK(tickreel_recorder_finish_upload(rec, url, options, false, true, &up));
    CHECK(tickreel_recorder_free(rec));
    CHECK(tickreel_engine_free(engine));
    return up;
}

/* Ships a recording live to `url` while it is written (tickreel_recorder_ship_live), follows it
 * by URL as another machine would (tickreel_playhead_follow_url) until the shipped tick 149 is
 * there, then finishes it: one .reel at the key, and the live objects gone. */
static void ship_live_to_url(const char *dir, const char *url, TickreelObjectOptions *options) {
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(NULL, &engine)); /* the defaults */
    TickreelRecorderOptions *ro = NULL;
    CHECK(tickreel_recorder_options_new(&ro));
    CHECK(tickreel_recorder_options_set_overwrite(ro, true));
    char path[512];
    snprintf(path, sizeof path, "%s/live.reel", dir);
    TickreelRecorder *rec = NULL;
    CHECK(tickreel_recorder_start(engine, path, ro, &rec));
    CHECK(tickreel_recorder_options_free(ro));

    TickreelLiveShipper *ship = NULL;
    expect(tickreel_recorder_ship_live(rec, url, options, 0, &ship) ==
               TICKREEL_RESULT_INVALID_ARGUMENT && ship == NULL,
           "an interval of 0 is refused");
    expect(tickreel_recorder_ship_live(rec, "s3://", options, 1000, &ship) ==
               TICKREEL_RESULT_INVALID_ARGUMENT && ship == NULL,
           "a malformed URL is refused");
    /* a long interval: only ship_now ships, so this example decides what is in the bucket */
    CHECK(tickreel_recorder_ship_live(rec, url, options, 600000, &ship));

    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t tick = 0; tick < TICKS; tick++) {
        CHECK(tickreel_batch_clear(batch));
        if (tick == 0) {
            CHECK(tickreel_batch_entity_add(batch, RUNNER, 0, x_at(0), 64, 0, 0, 0));
        } else {
            CHECK(tickreel_batch_pose(batch, RUNNER, x_at(tick), 64, 0, 0, 0));
        }
        CHECK(tickreel_recorder_submit_batch(rec, tick, batch, NULL));
        if (tick == 149) {
            CHECK(tickreel_recorder_flush(rec));
            CHECK(tickreel_live_shipper_ship_now(ship));
        }
    }
    CHECK(tickreel_batch_free(batch));
    TickreelShipStats stats;
    CHECK(tickreel_live_shipper_stats(ship, &stats));
    expect(stats.has_last_tick && stats.last_tick == 149, "the bucket holds the ticks to 149");
    expect(stats.batches >= 1 && stats.requests >= 2 && stats.errors == 0,
           "one shipment: a batch and the manifest");
    printf("shipped %s: last tick %u, %llu requests, %llu segment bytes\n", url, stats.last_tick,
           (unsigned long long)stats.requests, (unsigned long long)stats.segment_bytes);

    /* the key holds a live recording: a second shipper is refused */
    TickreelLiveShipper *second = NULL;
    expect(tickreel_recorder_ship_live(rec, url, options, 1000, &second) == TICKREEL_RESULT_IO &&
               second == NULL,
           "a second shipper onto the same key is refused");

    /* a follower elsewhere sees the shipped ticks */
    TickreelPlayhead *follower = NULL;
    CHECK(tickreel_playhead_follow_url(url, options, 0, &follower));
    TickreelUpdate update;
    int waits = 0;
    for (;;) {
        CHECK(tickreel_playhead_seek(follower, 149, &update));
        if (!update.waiting && update.position == 149) break;
        expect(waits++ < 600, "the follower sees tick 149 within 30 s");
        if (waits > 600) break;
        sleep_ms(50);
    }
    TickreelEntityState states[4];
    size_t count = 0;
    CHECK(tickreel_playhead_entities(follower, states, 4, &count));
    expect(count == 1 && states[0].id == RUNNER && fabs(states[0].x - x_at(149)) < 1e-3,
           "the follower has the shipped pose at tick 149");
    CHECK(tickreel_playhead_free(follower));
    printf("followed %s: tick 149 after %d waits\n", url, waits);

    /* finish: the recording and the shipping, into one .reel */
    TickreelPending *up = NULL;
    CHECK(tickreel_live_shipper_finish(ship, rec, false, true, &up));
    bool done = false;
    while (!done) {
        CHECK(tickreel_pending_poll(up, &done));
        if (!done) sleep_ms(5);
    }
    CHECK(tickreel_pending_free(up));
    up = NULL;
    expect(tickreel_live_shipper_finish(ship, rec, false, true, &up) ==
               TICKREEL_RESULT_INVALID_STATE && up == NULL,
           "a shipper finishes once");
    expect(tickreel_live_shipper_ship_now(ship) == TICKREEL_RESULT_INVALID_STATE,
           "a finished shipper ships no more");
    CHECK(tickreel_live_shipper_free(ship));
    CHECK(tickreel_recorder_free(rec));
    CHECK(tickreel_engine_free(engine));

    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open_url(url, options, &reader));
    uint32_t ticks = 0;
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    expect(ticks == TICKS, "the uploaded .reel has every tick");
    CHECK(tickreel_reader_free(reader));
    char manifest[600];
    snprintf(manifest, sizeof manifest, "%s.live/manifest", url);
    expect(tickreel_reader_open_url(manifest, options, &reader) == TICKREEL_RESULT_IO &&
               reader == NULL && strstr(tickreel_last_error_message(), "no such object") != NULL,
           "the manifest is removed");
    char first_batch[600];
    snprintf(first_batch, sizeof first_batch, "%s.live/batch-00000000", url);
    expect(tickreel_reader_open_url(first_batch, options, &reader) == TICKREEL_RESULT_IO &&
               reader == NULL && strstr(tickreel_last_error_message(), "no such object") != NULL,
           "the shipped batch is removed");
    printf("finished %s: %u ticks, live objects removed\n", url, ticks);
}

static void wait_upload(TickreelPending *up, const char *what) {
    bool done = false;
    while (!done) {
        example_check(tickreel_pending_poll(up, &done), what);
        if (!done) sleep_ms(5);
    }
}

/* A shadow-only stream of 300 ticks (players 1 and 2 side by side); player 1 is reported
 * straight into `url`, then read back by URL. A second report onto the same object fails and
 * keeps its local file. */
static void shadow_report_to_url(const char *dir, const char *url, TickreelObjectOptions *options) {
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(NULL, &engine)); /* the defaults */
    TickreelShadowOptions *so = NULL;
    CHECK(tickreel_shadow_options_new(&so));
    CHECK(tickreel_shadow_options_set_window(so, 10000));
    CHECK(tickreel_shadow_options_set_block_ticks(so, 20));
    TickreelRecorder *rec = NULL;
    TickreelShadowBuffer *shadow = NULL;
    CHECK(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow));
    CHECK(tickreel_shadow_options_free(so));
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t tick = 0; tick < TICKS; tick++) {
        CHECK(tickreel_batch_clear(batch));
        for (uint32_t p = 1; p <= 2; p++) {
            double x = 10 + tick * 0.1;
            if (tick == 0) {
                CHECK(tickreel_batch_entity_add(batch, p, 0, x, 64, p * 3.0, 0, 0));
            } else {
                CHECK(tickreel_batch_pose(batch, p, x, 64, p * 3.0, 0, 0));
            }
        }
        CHECK(tickreel_recorder_submit_batch(rec, tick, batch, NULL));
    }
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_recorder_flush(rec));
    TickreelReportOptions *ro = NULL;
    CHECK(tickreel_report_options_new(&ro));
    CHECK(tickreel_report_options_set_after(ro, 0));
    const char *keys[] = {"reason"};
    const char *values[] = {"fly"};
    char local[1024], again[1024];
    snprintf(local, sizeof local, "%s/report.reel", dir);
    snprintf(again, sizeof again, "%s/again.reel", dir);

    TickreelPending *up = NULL;
    expect(tickreel_shadow_buffer_report_upload(shadow, 1, local, ro, keys, values, 1, "s3://",
                                                options, false, true, &up) ==
                   TICKREEL_RESULT_INVALID_ARGUMENT &&
               up == NULL,
           "a report to a malformed URL is refused");
    CHECK(tickreel_shadow_buffer_report_upload(shadow, 1, local, ro, keys, values, 1, url, options,
                                               false, true, &up));
    wait_upload(up, "the report's upload");
    uint64_t bytes = 0;
    char uploaded[512];
    CHECK(tickreel_pending_take_upload(up, uploaded, sizeof uploaded, NULL, &bytes));
    expect(strcmp(uploaded, url) == 0 && bytes > 0, "the pending gives the object's URL and size");
    CHECK(tickreel_pending_free(up));
    FILE *f = fopen(local, "rb");
    expect(f == NULL, "the local report is removed after its upload");
    if (f) fclose(f);

    /* onto the same object: the upload fails, the local report stays */
    CHECK(tickreel_shadow_buffer_report_upload(shadow, 2, again, ro, NULL, NULL, 0, url, options,
                                               false, true, &up));
    bool done = false;
    TickreelResult r = TICKREEL_RESULT_OK;
    while (!done && r == TICKREEL_RESULT_OK) {
        r = tickreel_pending_poll(up, &done);
        if (!done) sleep_ms(5);
    }
    expect(r == TICKREEL_RESULT_IO, "a report onto an existing object fails its upload");
    CHECK(tickreel_pending_free(up));
    f = fopen(again, "rb");
    expect(f != NULL, "the local report stays when its upload fails");
    if (f) fclose(f);

    CHECK(tickreel_report_options_free(ro));
    CHECK(tickreel_shadow_buffer_free(shadow));
    CHECK(tickreel_recorder_free(rec));
    CHECK(tickreel_engine_free(engine));

    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open_url(url, options, &reader));
    uint32_t ticks = 0;
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    expect(ticks == 200, "the uploaded report holds the 10 s window");
    TickreelEntityState states[4];
    size_t count = 0;
    uint32_t at = 0;
    CHECK(tickreel_reader_seek(reader, 299, states, 4, &count, &at));
    expect(count == 2 && fabs(states[0].x - (10 + 299 * 0.1)) < 1e-3,
           "the uploaded report has both players at the report's tick");
    CHECK(tickreel_reader_free(reader));

    /* A playhead over the same object: range reads on the prefetch threads, same frame. */
    TickreelPlayhead *playhead = NULL;
    CHECK(tickreel_playhead_open_url(url, options, 0, &playhead));
    TickreelUpdate u;
    CHECK(tickreel_playhead_seek(playhead, 299, &u));
    expect(u.position == 299 && u.entity_count == 2, "the playhead by URL seeks to the report's tick");
    CHECK(tickreel_playhead_entities(playhead, states, 4, &count));
    expect(count == 2 && fabs(states[0].x - (10 + 299 * 0.1)) < 1e-3,
           "the playhead by URL shows what the reader shows");
    CHECK(tickreel_playhead_free(playhead));
    printf("shadow report uploaded to %s: %llu bytes, %u ticks\n", url, (unsigned long long)bytes,
           ticks);
}

/* Polls a catalog call until it ends (never blocking) and returns its result code; its rows go to
 * `buf` (`*len` bytes). */
static TickreelResult finish_call(TickreelPending *call, uint8_t *buf, size_t cap, size_t *len) {
    bool done = false;
    TickreelResult r;
    while ((r = tickreel_pending_poll(call, &done)) == TICKREEL_RESULT_OK && !done) sleep_ms(2);
    *len = 0;
    if (r == TICKREEL_RESULT_OK) r = tickreel_pending_take_rows(call, buf, cap, len);
    CHECK(tickreel_pending_free(call));
    return r;
}

/* Whether `needle` appears in the `len` bytes at `hay`. */
static bool contains(const uint8_t *hay, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; n <= len && i <= len - n; i++) {
        if (memcmp(hay + i, needle, n) == 0) return true;
    }
    return false;
}

/* A catalog whose rows point at objects: a run registered once its upload succeeded
 * (tickreel_catalog_register_upload) gives the object's URL and opens from it
 * (tickreel_catalog_open_recording); a failed upload, a missing object and a location of another
 * scheme register nothing. */
static void catalog_rows_point_at_objects(const char *dir, const char *bucket,
                                          TickreelObjectOptions *options) {
    char db[1100], path[1100], url[512], missing[600];
    snprintf(db, sizeof db, "sqlite:%s/catalog.db", dir);
    snprintf(path, sizeof path, "%s/catalog-run.reel", dir);
    snprintf(url, sizeof url, "s3://%s/c/catalog-run-%ld.reel", bucket, (long)time(NULL));
    snprintf(missing, sizeof missing, "s3://%s/c/catalog-missing.reel", bucket);
    static const uint8_t ALICE[16] = {0xa1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    TickreelCatalog *cat = NULL;
    CHECK(tickreel_catalog_open(db, &cat));
    uint8_t rows[4096];
    size_t len = 0;
    TickreelPending *call = NULL;

    /* nothing is registered for an object that is not in the bucket, nor for another scheme */
    CHECK(tickreel_catalog_register_at(cat, missing, "lap", ALICE, "Alice", RUNNER, &lap, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_IO,
           "a missing object registers nothing");
    CHECK(tickreel_catalog_register_at(cat, "gs://bucket/a.reel", "lap", ALICE, "Alice", RUNNER,
                                       &lap, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a location of another scheme is refused");

    /* registered once the upload succeeded: the row gives the URL and opens from it */
    TickreelPending *up = record_and_upload(path, url, options);
    CHECK(tickreel_catalog_register_upload(cat, up, "lap", ALICE, "Alice", RUNNER, &lap, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_OK && contains(rows, len, url),
           "the registered run's row gives the object's URL");
    CHECK(tickreel_pending_free(up));
    CHECK(tickreel_catalog_top(cat, "lap", 10, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_OK && contains(rows, len, url),
           "the board's run points at the object");
    size_t one_run = len;
    TickreelReader *reader = NULL;
    CHECK(tickreel_catalog_open_recording(cat, url, &reader));
    uint32_t ticks = 0;
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    expect(ticks == TICKS, "the run's recording opens from its row's URL");
    CHECK(tickreel_reader_free(reader));

    /* the same key again: the upload fails (no overwrite), so nothing is registered */
    up = record_and_upload(path, url, options);
    CHECK(tickreel_catalog_register_upload(cat, up, "lap", ALICE, "Alice", RUNNER, &lap, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_IO,
           "a failed upload registers nothing");
    CHECK(tickreel_pending_free(up));
    CHECK(tickreel_catalog_top(cat, "lap", 10, &call));
    expect(finish_call(call, rows, sizeof rows, &len) == TICKREEL_RESULT_OK && len == one_run,
           "the board still holds the one run");
    CHECK(tickreel_catalog_free(cat));
    printf("catalog row points at %s, opened from it: %u ticks\n", url, ticks);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: object_storage SCRATCH_DIR\n");
        return 2;
    }
    const char *bucket = getenv("TICKREEL_S3_BUCKET");
    const char *secret = getenv("AWS_SECRET_ACCESS_KEY");
    if (bucket == NULL || secret == NULL) {
        fprintf(stderr, "object_storage: TICKREEL_S3_BUCKET and the AWS_* variables must be set "
                        "(tests/c.sh starts the S3 test server)\n");
        return 1;
    }
    TickreelObjectOptions *options = NULL;
    CHECK(tickreel_object_options_new(&options)); /* the AWS_* variables */
    CHECK(tickreel_object_options_set_timeouts(options, 2000, 10000, 20000));
    CHECK(tickreel_object_options_set_retries(options, 1, 50, 200));
    expect(tickreel_object_options_set_timeouts(options, 0, 1, 1) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a zero timeout is refused");

    char url[512], path[1024];
    snprintf(url, sizeof url, "s3://%s/c/run-%ld.reel", bucket, (long)time(NULL));
    snprintf(path, sizeof path, "%s/run.reel", argv[1]);

    /* finish, then upload; the server thread would poll once a tick */
    TickreelPending *up = record_and_upload(path, url, options);
    bool done = false;
    int polls = 0;
    while (!done) {
        CHECK(tickreel_pending_poll(up, &done));
        if (!done) {
            sleep_ms(5);
            polls++;
        }
    }
    uint64_t bytes = 0;
    CHECK(tickreel_pending_take_upload(up, NULL, 0, NULL, &bytes));
    CHECK(tickreel_pending_free(up));
    FILE *local = fopen(path, "rb");
    expect(local == NULL, "the local file is removed after the upload");
    if (local) fclose(local);
    printf("uploaded %s: %llu bytes after %d polls\n", url, (unsigned long long)bytes, polls);

    /* open by URL and seek */
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open_url(url, options, &reader));
    uint32_t ticks = 0;
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    expect(ticks == TICKS, "the uploaded recording has every tick");
    uint32_t seeks[] = {250, 7, 151};
    for (size_t i = 0; i < sizeof seeks / sizeof seeks[0]; i++) {
        TickreelEntityState states[4];
        size_t count = 0;
        uint32_t at = 0;
        CHECK(tickreel_reader_seek(reader, seeks[i], states, 4, &count, &at));
        expect(count == 1 && at == seeks[i] && states[0].id == RUNNER &&
                   fabs(states[0].x - x_at(seeks[i])) < 1e-3,
               "a seek by URL finds the recorded pose");
    }
    CHECK(tickreel_reader_free(reader));
    printf("opened %s by URL: %u ticks, 3 seeks checked\n", url, ticks);

    /* a ghost by URL, between the two checkpoints */
    TickreelGhostRange range = {TICKREEL_GHOST_BOUND_CHECKPOINT, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 1};
    TickreelPending *load = NULL;
    CHECK(tickreel_ghost_load_async_url(url, options, RUNNER, &range, &load));
    bool ready = false;
    while (!ready) {
        CHECK(tickreel_pending_poll(load, &ready));
        if (!ready) sleep_ms(5);
    }
    TickreelGhost *ghost = NULL;
    CHECK(tickreel_pending_take_ghost(load, &ghost));
    TickreelGhostInfo info;
    CHECK(tickreel_ghost_info(ghost, &info));
    expect(info.duration_ticks == 100, "the ghost spans checkpoint 0 to 1");
    CHECK(tickreel_ghost_free(ghost));
    CHECK(tickreel_pending_free(load));
    printf("ghost by URL: %u ticks\n", info.duration_ticks);

    char report_url[512];
    snprintf(report_url, sizeof report_url, "s3://%s/c/report-%ld.reel", bucket, (long)time(NULL));
    shadow_report_to_url(argv[1], report_url, options);

    catalog_rows_point_at_objects(argv[1], bucket, options);

    char live_url[512];
    snprintf(live_url, sizeof live_url, "s3://%s/c/live-%ld.reel", bucket, (long)time(NULL));
    ship_live_to_url(argv[1], live_url, options);

    /* a missing object: a clean error */
    char missing[600];
    snprintf(missing, sizeof missing, "s3://%s/c/no-such-object.reel", bucket);
    reader = NULL;
    TickreelResult r = tickreel_reader_open_url(missing, options, &reader);
    expect(r == TICKREEL_RESULT_IO && reader == NULL, "a missing object is an I/O error");
    expect(strstr(tickreel_last_error_message(), "no such object") != NULL,
           "the message says the object is missing");
    printf("missing object: %s: %s\n", tickreel_result_name(r), tickreel_last_error_message());

    /* wrong credentials: refused, the secret never shown */
    static const char wrong_secret[] = "wrong-secret-value-for-the-c-check";
    TickreelObjectOptions *wrong = NULL;
    CHECK(tickreel_object_options_new(&wrong));
    CHECK(tickreel_object_options_set_credentials(wrong, "AKIAWRONGTESTKEY0000", wrong_secret, NULL));
    CHECK(tickreel_object_options_set_retries(wrong, 0, 10, 10));
    r = tickreel_reader_open_url(url, wrong, &reader);
    expect(r != TICKREEL_RESULT_OK && reader == NULL, "wrong credentials are refused");
    const char *msg = tickreel_last_error_message();
    expect(strstr(msg, wrong_secret) == NULL && strstr(msg, secret) == NULL,
           "the message shows no secret");
    printf("wrong credentials: %s\n", tickreel_result_name(r));
    CHECK(tickreel_object_options_free(wrong));
    CHECK(tickreel_object_options_free(options));

    size_t live = 0;
    live = tickreel_handle_count();
    expect(live == 0, "every handle is freed");
    return example_status();
}
