/*
 * bad_input.c: feeds the tickreel C API bad input and checks every result code.
 *
 *   bad_input [SCRATCH_DIR]      (default: the current directory)
 *
 * NULL pointers, zero lengths, freed, foreign and made-up handles, malformed batches, out-of-order
 * ticks, truncated, corrupt and foreign files, too-small buffers; for the live recorder also bad
 * options, ticks after a finish, a double finish, an abort, a recorder outliving its engine, a
 * finish that fails; for shadow play bad options, radii and metadata, unknown players, reports
 * before the first tick and after the engine's shutdown; for ghosts bad ranges, missing entities
 * and checkpoints, non-finite times. Prints one line per check and
 * `N passed, M failed` at the end; exits non-zero if any check failed. Meant to run under
 * AddressSanitizer and UndefinedBehaviorSanitizer: none of this may crash or touch bad memory.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "tickreel.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* access */

static int passed = 0, failed = 0;

static void expect(TickreelResult got, TickreelResult want, const char *what) {
    if (got == want) {
        passed++;
        printf("ok    %-64s %s\n", what, tickreel_result_name(got));
    } else {
        failed++;
        char msg[512];
        tickreel_last_error(msg, sizeof msg);
        printf("FAIL  %-64s got %s, expected %s (last error: %s)\n", what,
               tickreel_result_name(got), tickreel_result_name(want), msg);
    }
}
#define EXPECT(call, code) expect((call), TICKREEL_RESULT_##code, #call)

static void expect_true(int cond, const char *what) {
    if (cond) {
        passed++;
        printf("ok    %s\n", what);
    } else {
        failed++;
        printf("FAIL  %s\n", what);
    }
}
#define EXPECT_TRUE(cond) expect_true((cond), #cond)

static char dir[2048];

static const char *in_dir(char *buf, size_t len, const char *name) {
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* Reads a whole file into memory (the caller frees it). */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc(size > 0 ? (size_t)size : 1u);
    if (bytes == NULL || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)size;
    return bytes;
}

static void spill(const char *path, const uint8_t *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* Writes a small valid recording: 3 entities over 100 ticks, 20-tick chunks. */
static void write_good_file(const char *path) {
    TickreelReelOptions *options = NULL;
    EXPECT(tickreel_reel_options_new(&options), OK);
    EXPECT(tickreel_reel_options_set_chunk_ticks(options, 20), OK);
    TickreelReelWriter *writer = NULL;
    EXPECT(tickreel_reel_writer_create(path, options, &writer), OK);
    EXPECT(tickreel_reel_options_free(options), OK);
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    int ok = 1;
    for (uint32_t t = 0; t < 100; t++) {
        ok &= tickreel_batch_clear(batch) == TICKREEL_RESULT_OK;
        for (uint32_t e = 1; e <= 3; e++) {
            ok &= (t == 0 ? tickreel_batch_entity_add(batch, e, 1, e, 64, t * 0.1, t, 0)
                          : tickreel_batch_pose(batch, e, e, 64, t * 0.1, t, 0)) ==
                  TICKREEL_RESULT_OK;
        }
        ok &= tickreel_reel_writer_write_batch(writer, t, batch) == TICKREEL_RESULT_OK;
    }
    EXPECT_TRUE(ok);
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_reel_writer_finish(writer, NULL), OK);
    EXPECT(tickreel_reel_writer_free(writer), OK);
}

static void last_error_and_names(void) {
    puts("-- last error, result names");
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(NULL), NULL_ARGUMENT);
    EXPECT_TRUE(tickreel_last_error_code() == TICKREEL_RESULT_NULL_ARGUMENT);
    char small[8];
    size_t full = tickreel_last_error(small, sizeof small);
    EXPECT_TRUE(full > 7 && strlen(small) == 7);
    EXPECT_TRUE(full == strlen(tickreel_last_error_message()));
    EXPECT_TRUE(tickreel_last_error(NULL, 0) == full);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "out_batch") != NULL);
    /* Success leaves the last error alone. */
    EXPECT(tickreel_batch_new(&batch), OK);
    EXPECT_TRUE(tickreel_last_error_code() == TICKREEL_RESULT_NULL_ARGUMENT);
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT_TRUE(strcmp(tickreel_result_name(TICKREEL_RESULT_CORRUPT), "TICKREEL_RESULT_CORRUPT") == 0);
    EXPECT_TRUE(strcmp(tickreel_result_name(12345), "TICKREEL_RESULT_UNKNOWN") == 0);
}

static void bad_handles(const char *good_file) {
    puts("-- handles: NULL, freed, foreign, made up");
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    EXPECT(tickreel_batch_flags(NULL, 1, 0), NULL_ARGUMENT);
    EXPECT(tickreel_batch_free(NULL), OK);
    EXPECT(tickreel_reel_writer_free(NULL), OK);
    EXPECT(tickreel_reader_free(NULL), OK);
    TickreelBatch *made_up = (TickreelBatch *)(uintptr_t)0xdeadbeefu;
    EXPECT(tickreel_batch_clear(made_up), INVALID_HANDLE);
    EXPECT(tickreel_batch_free(made_up), INVALID_HANDLE);

    TickreelReader *reader = NULL;
    EXPECT(tickreel_reader_open(good_file, &reader), OK);
    /* A reader handle where a batch is expected, and the other way round. */
    EXPECT(tickreel_batch_clear((TickreelBatch *)(void *)reader), INVALID_HANDLE);
    EXPECT(tickreel_batch_free((TickreelBatch *)(void *)reader), INVALID_HANDLE);
    uint32_t ticks = 0;
    EXPECT(tickreel_reader_tick_count((TickreelReader *)(void *)batch, &ticks), INVALID_HANDLE);
    EXPECT(tickreel_reel_writer_write_batch((TickreelReelWriter *)(void *)reader, 1, batch), INVALID_HANDLE);
    EXPECT(tickreel_reader_tick_count(reader, &ticks), OK); /* still fine after all that */

    /* Use after free and double free. */
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_batch_pose(batch, 1, 0, 0, 0, 0, 0), INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "freed") != NULL);
    EXPECT(tickreel_batch_free(batch), INVALID_HANDLE);
    /* A new batch may reuse the slot; the stale handle must still be refused. */
    TickreelBatch *again = NULL;
    EXPECT(tickreel_batch_new(&again), OK);
    EXPECT_TRUE(again != batch);
    EXPECT(tickreel_batch_clear(batch), INVALID_HANDLE);
    EXPECT(tickreel_batch_clear(again), OK);
    EXPECT(tickreel_batch_free(again), OK);
    EXPECT(tickreel_reader_free(reader), OK);
    EXPECT(tickreel_reader_tick_count(reader, &ticks), INVALID_HANDLE);
    EXPECT(tickreel_reader_free(reader), INVALID_HANDLE);
}

static void bad_batches(void) {
    puts("-- batch builder");
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    EXPECT(tickreel_batch_pose(batch, 1, NAN, 0, 0, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_pose(batch, 1, 0, INFINITY, 0, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_entity_add(batch, 1, 1, 0, 0, 0, 0, -INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_position(batch, 1, 1e300, 0, 0), INVALID_ARGUMENT);
    /* The core's one range policy, with a short message (no 301-digit number). */
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "x is 1e300 blocks") != NULL);
    EXPECT_TRUE(strlen(tickreel_last_error_message()) < 120);
    EXPECT(tickreel_batch_position(batch, 1, 0, 0, -1.2e15), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "z is -1.2e15 blocks") != NULL);
    EXPECT(tickreel_batch_pose(batch, 1, 0, 0, 0, 0, NAN), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "pitch must be a finite number (got NaN)") != NULL);
    EXPECT(tickreel_batch_rotation(batch, 1, NAN, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_teleport(batch, 1, 0, 0, NAN, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_velocity(batch, 1, 0, 0, INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_custom(batch, 7, NULL, 5), NULL_ARGUMENT);
    size_t huge_len = (1u << 20) + 1;
    uint8_t *huge = calloc(huge_len, 1);
    EXPECT_TRUE(huge != NULL);
    EXPECT(tickreel_batch_custom(batch, 7, huge, huge_len), LIMIT_EXCEEDED);
    free(huge);
    size_t count = 99;
    EXPECT(tickreel_batch_event_count(batch, &count), OK);
    EXPECT_TRUE(count == 0); /* refused events left nothing behind */
    EXPECT(tickreel_batch_event_count(batch, NULL), NULL_ARGUMENT);

    EXPECT(tickreel_batch_custom(batch, 7, NULL, 0), OK); /* empty payload: NULL allowed */
    EXPECT(tickreel_batch_pose(batch, 1, 1, 2, 3, 4, 5), OK);
    size_t len = 0;
    EXPECT(tickreel_batch_bytes(batch, NULL, 0, &len), BUFFER_TOO_SMALL);
    EXPECT_TRUE(len > 4);
    uint8_t tiny[4];
    size_t len2 = 0;
    EXPECT(tickreel_batch_bytes(batch, tiny, sizeof tiny, &len2), BUFFER_TOO_SMALL);
    EXPECT_TRUE(len2 == len);
    EXPECT(tickreel_batch_bytes(batch, NULL, 64, &len2), NULL_ARGUMENT);
    EXPECT(tickreel_batch_bytes(batch, tiny, sizeof tiny, NULL), NULL_ARGUMENT);
    uint8_t buf[64];
    EXPECT(tickreel_batch_bytes(batch, buf, sizeof buf, &len2), OK);
    EXPECT_TRUE(len2 == len && buf[0] == 0 && buf[1] == 2);
    EXPECT(tickreel_batch_free(batch), OK);
}

static void bad_writes(void) {
    puts("-- writer");
    char path[4096];
    TickreelReelWriter *writer = (TickreelReelWriter *)(uintptr_t)1u; /* must be reset to NULL on failure */
    EXPECT(tickreel_reel_writer_create(NULL, NULL, &writer), NULL_ARGUMENT);
    EXPECT_TRUE(writer == NULL);
    EXPECT(tickreel_reel_writer_create(in_dir(path, sizeof path, "w.reel"), NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_create("", NULL, &writer), INVALID_ARGUMENT);
    TickreelReelOptions *options = NULL;
    EXPECT(tickreel_reel_options_new(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reel_options_set_chunk_ticks(NULL, 10), NULL_ARGUMENT);
    EXPECT(tickreel_reel_options_new(&options), OK);
    EXPECT(tickreel_reel_options_set_dictionary_id(options, 70000), INVALID_ARGUMENT); /* over 16 bits */
    EXPECT(tickreel_reel_options_set_tick_rate_millihz(options, 0), OK); /* the create checks */
    EXPECT(tickreel_reel_writer_create(path, options, &writer), INVALID_ARGUMENT);
    EXPECT_TRUE(writer == NULL);
    EXPECT(tickreel_reel_options_free(options), OK);
    EXPECT(tickreel_reel_options_new(&options), OK);
    EXPECT(tickreel_reel_options_set_chunk_ticks(options, 0), OK);
    EXPECT(tickreel_reel_writer_create(path, options, &writer), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_options_set_chunk_ticks(options, 20), OK); /* the same handle, repaired */
    EXPECT(tickreel_reel_options_set_zstd_level(options, 1000), OK);
    EXPECT(tickreel_reel_writer_create(path, options, &writer), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_options_free(options), OK);
    EXPECT(tickreel_reel_options_free(options), INVALID_HANDLE);
    EXPECT(tickreel_reel_writer_create(path, options, &writer), INVALID_HANDLE); /* freed options */

    EXPECT(tickreel_reel_writer_create(path, NULL, &writer), OK);
    static const uint8_t empty_tick[] = {0, 0};
    static const uint8_t short_count[] = {0};
    static const uint8_t missing_event[] = {0, 1};
    static const uint8_t unknown_kind[] = {0, 1, 0x33};
    static const uint8_t truncated_pose[] = {0, 1, 0x03, 0x01, 0x02};
    static const uint8_t trailing[] = {0, 0, 0};
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, NULL, 2), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, NULL, 0), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, empty_tick, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, short_count, sizeof short_count), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, missing_event, sizeof missing_event), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, unknown_kind, sizeof unknown_kind), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, truncated_pose, sizeof truncated_pose), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, trailing, sizeof trailing), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 5, empty_tick, sizeof empty_tick), OK);
    EXPECT(tickreel_reel_writer_write_tick(writer, 5, empty_tick, sizeof empty_tick), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_tick(writer, 4, empty_tick, sizeof empty_tick), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_write_batch(writer, 6, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_offer_snapshot(writer, NULL, 3), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_offer_snapshot(writer, NULL, 0), OK);
    EXPECT(tickreel_reel_writer_register_event_type(writer, 1, NULL, 1), NULL_ARGUMENT);
    EXPECT(tickreel_reel_writer_register_event_type(writer, 1, "\xff\xfe", 1), INVALID_ARGUMENT);
    EXPECT(tickreel_reel_writer_register_entity(writer, 1, 1, NULL, "\xc3"), INVALID_ARGUMENT);
    static const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EXPECT(tickreel_reel_writer_register_entity(writer, 1, 1, uuid, NULL), OK);
    EXPECT(tickreel_reel_writer_write_tick(writer, 6, empty_tick, sizeof empty_tick), OK);
    uint64_t size = 0;
    EXPECT(tickreel_reel_writer_finish(writer, &size), OK);
    EXPECT_TRUE(size > 256);
    EXPECT(tickreel_reel_writer_finish(writer, &size), INVALID_STATE);
    EXPECT(tickreel_reel_writer_write_tick(writer, 7, empty_tick, sizeof empty_tick), INVALID_STATE);
    EXPECT(tickreel_reel_writer_free(writer), OK);
    EXPECT(tickreel_reel_writer_free(writer), INVALID_HANDLE);

    /* A file in a directory that does not exist: refused at create, before any tick is encoded. */
    EXPECT(tickreel_reel_writer_create(in_dir(path, sizeof path, "missing/dir/x.reel"), NULL, &writer), IO);
    EXPECT_TRUE(writer == NULL);

    /* Freed without finishing: nothing is written. */
    EXPECT(tickreel_reel_writer_create(in_dir(path, sizeof path, "abandoned.reel"), NULL, &writer), OK);
    EXPECT(tickreel_reel_writer_write_tick(writer, 1, empty_tick, sizeof empty_tick), OK);
    EXPECT(tickreel_reel_writer_free(writer), OK);
    TickreelReader *reader = NULL;
    EXPECT(tickreel_reader_open(path, &reader), IO);

    /* An empty recording is valid, but has no first tick and nothing to seek to. */
    EXPECT(tickreel_reel_writer_create(in_dir(path, sizeof path, "empty.reel"), NULL, &writer), OK);
    EXPECT(tickreel_reel_writer_finish(writer, NULL), OK);
    EXPECT(tickreel_reel_writer_free(writer), OK);
    EXPECT(tickreel_reader_open(path, &reader), OK);
    uint32_t tick = 0, ticks = 1;
    size_t count = 0;
    EXPECT(tickreel_reader_tick_count(reader, &ticks), OK);
    EXPECT_TRUE(ticks == 0);
    EXPECT(tickreel_reader_first_tick(reader, &tick), INVALID_STATE);
    EXPECT(tickreel_reader_last_tick(reader, &tick), INVALID_STATE);
    EXPECT(tickreel_reader_seek(reader, 0, NULL, 0, &count, NULL), INVALID_STATE);
    EXPECT(tickreel_reader_verify(reader, NULL), OK);
    EXPECT(tickreel_reader_free(reader), OK);
}

static void bad_reads(const char *good_file) {
    puts("-- reader");
    char path[4096];
    TickreelReader *reader = (TickreelReader *)(uintptr_t)1u;
    EXPECT(tickreel_reader_open(NULL, &reader), NULL_ARGUMENT);
    EXPECT_TRUE(reader == NULL);
    EXPECT(tickreel_reader_open(good_file, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reader_open(in_dir(path, sizeof path, "no-such-file.reel"), &reader), IO);
    EXPECT(tickreel_reader_open(dir, &reader), IO); /* a directory */

    size_t len = 0;
    uint8_t *bytes = slurp(good_file, &len);
    EXPECT_TRUE(len > 512);

    spill(in_dir(path, sizeof path, "short.reel"), bytes, 100);
    EXPECT(tickreel_reader_open(path, &reader), TRUNCATED);
    spill(in_dir(path, sizeof path, "half.reel"), bytes, len / 2);
    EXPECT(tickreel_reader_open(path, &reader), TRUNCATED);
    EXPECT_TRUE(reader == NULL);
    spill(in_dir(path, sizeof path, "zero.reel"), bytes, 0);
    EXPECT(tickreel_reader_open(path, &reader), TRUNCATED);

    uint8_t *junk = malloc(len);
    memset(junk, 'x', len);
    spill(in_dir(path, sizeof path, "junk.reel"), junk, len);
    EXPECT(tickreel_reader_open(path, &reader), CORRUPT);
    free(junk);

    bytes[60] ^= 0x40; /* inside the header: its checksum no longer matches */
    spill(in_dir(path, sizeof path, "bad-header.reel"), bytes, len);
    EXPECT(tickreel_reader_open(path, &reader), CORRUPT);
    bytes[60] ^= 0x40;

    bytes[len - 10] ^= 0x55; /* inside the last chunk: found when it is read */
    spill(in_dir(path, sizeof path, "bad-chunk.reel"), bytes, len);
    EXPECT(tickreel_reader_open(path, &reader), OK);
    EXPECT(tickreel_reader_verify(reader, NULL), CORRUPT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "chunk") != NULL);
    TickreelEntityState states[3];
    size_t count = 0;
    uint32_t at = 0;
    EXPECT(tickreel_reader_seek(reader, 99, states, 3, &count, &at), CORRUPT);
    EXPECT(tickreel_reader_seek(reader, 0, states, 3, &count, &at), OK); /* other chunks are fine */
    EXPECT(tickreel_reader_free(reader), OK);
    free(bytes);

    EXPECT(tickreel_reader_open(good_file, &reader), OK);
    EXPECT(tickreel_reader_verify(reader, NULL), OK);
    EXPECT(tickreel_reader_tick_count(reader, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reader_tick_rate(reader, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_reader_seek(reader, 50, states, 3, NULL, &at), NULL_ARGUMENT);
    EXPECT(tickreel_reader_seek(reader, 50, NULL, 3, &count, &at), NULL_ARGUMENT);
    count = 0;
    EXPECT(tickreel_reader_seek(reader, 50, states, 2, &count, &at), BUFFER_TOO_SMALL);
    EXPECT_TRUE(count == 3 && at == 50);
    count = 0;
    EXPECT(tickreel_reader_seek(reader, 50, NULL, 0, &count, NULL), BUFFER_TOO_SMALL);
    EXPECT_TRUE(count == 3);
    EXPECT(tickreel_reader_seek(reader, 50, states, 3, &count, NULL), OK);
    EXPECT_TRUE(count == 3 && states[0].id == 1 && states[2].id == 3);
    EXPECT_TRUE(fabs(states[1].x - 2.0) < 1e-9 && fabs(states[1].z - 5.0) < 0.001);
    EXPECT(tickreel_reader_free(reader), OK);
}

static void nap_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static const uint8_t EMPTY_TICK[] = {0, 0};
/* A tick holding one custom event (a chat line), encoded by the batch builder in main(). */
static uint8_t CHAT_TICK[64];
static size_t CHAT_LEN = 0;

static void encode_chat_tick(void) {
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    EXPECT(tickreel_batch_custom(batch, 1, (const uint8_t *)"hi", 2), OK);
    EXPECT(tickreel_batch_bytes(batch, CHAT_TICK, sizeof CHAT_TICK, &CHAT_LEN), OK);
    EXPECT(tickreel_batch_free(batch), OK);
}

static void submit_chat(TickreelRecorder *rec, uint32_t tick, const char *what) {
    expect(tickreel_recorder_submit_tick(rec, tick, CHAT_TICK, CHAT_LEN, NULL), TICKREEL_RESULT_OK,
           what);
}

/* Waits for a finish and returns its result (the final path in `buf`). */
static TickreelResult wait_finish(TickreelRecorder *rec, char *buf, size_t len) {
    TickreelPending *finish = NULL;
    TickreelResult r = tickreel_recorder_finish(rec, &finish);
    if (r != TICKREEL_RESULT_OK) {
        return r;
    }
    r = tickreel_pending_wait(finish, -1, NULL);
    if (r == TICKREEL_RESULT_OK) {
        r = tickreel_pending_take_path(finish, buf, len, NULL);
    }
    tickreel_pending_free(finish);
    return r;
}

static void bad_engine(void) {
    puts("-- engine");
    TickreelEngine *engine = (TickreelEngine *)(uintptr_t)1u; /* must be reset to NULL on failure */
    TickreelEngineOptions *eo = NULL;
    EXPECT(tickreel_engine_new(NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_engine_options_new(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_engine_options_new(&eo), OK);
    EXPECT(tickreel_engine_options_set_writer_threads(eo, 0), OK);
    EXPECT(tickreel_engine_new(eo, &engine), INVALID_ARGUMENT);
    EXPECT_TRUE(engine == NULL);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "writer_threads") != NULL);
    EXPECT(tickreel_engine_options_set_writer_threads(eo, 1000), OK);
    EXPECT(tickreel_engine_new(eo, &engine), INVALID_ARGUMENT);
    EXPECT(tickreel_engine_options_set_writer_threads(eo, 1), OK);
    EXPECT(tickreel_engine_options_set_queue_capacity(eo, 0), OK);
    EXPECT(tickreel_engine_new(eo, &engine), INVALID_ARGUMENT);
    EXPECT(tickreel_engine_options_free(eo), OK);
    EXPECT(tickreel_engine_options_free(NULL), OK);
    EXPECT(tickreel_engine_free(NULL), OK);
    EXPECT(tickreel_recorder_free(NULL), OK);
    EXPECT(tickreel_pending_free(NULL), OK);
    EXPECT(tickreel_engine_new(NULL, &engine), OK);
    TickreelEngineStats es;
    EXPECT(tickreel_engine_stats(engine, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_engine_stats(NULL, &es), NULL_ARGUMENT);
    EXPECT(tickreel_engine_stats(engine, &es), OK);
    EXPECT_TRUE(es.active_recordings == 0 && es.compactions_done == 0);
    EXPECT(tickreel_engine_stats((TickreelEngine *)(uintptr_t)0xdeadbeefu, &es), INVALID_HANDLE);
    EXPECT(tickreel_engine_free(engine), OK);
    EXPECT(tickreel_engine_free(engine), INVALID_HANDLE);
    EXPECT(tickreel_engine_stats(engine, &es), INVALID_HANDLE);
}

static void bad_recorder(void) {
    puts("-- recorder");
    char path[4096], other[4096], got[4096];
    TickreelEngine *engine = NULL;
    EXPECT(tickreel_engine_new(NULL, &engine), OK);
    in_dir(path, sizeof path, "live.reel");

    TickreelRecorder *rec = (TickreelRecorder *)(uintptr_t)1u;
    EXPECT(tickreel_recorder_start(engine, NULL, NULL, &rec), NULL_ARGUMENT);
    EXPECT_TRUE(rec == NULL);
    EXPECT(tickreel_recorder_start(engine, path, NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_start(NULL, path, NULL, &rec), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_start(engine, "", NULL, &rec), INVALID_ARGUMENT);
    TickreelRecorderOptions *ro = NULL;
    EXPECT(tickreel_recorder_options_new(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_options_set_overwrite(NULL, true), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_options_set_overwrite((TickreelRecorderOptions *)(void *)engine, true),
           INVALID_HANDLE);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    /* A choice out of its constants: the setter refuses it, naming itself. */
    EXPECT(tickreel_recorder_options_set_backpressure(ro, 42), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "backpressure 42") != NULL);
    /* Values out of the core's ranges: the start refuses them, naming the setter's option. */
    EXPECT(tickreel_recorder_options_set_zstd_level(ro, 1000), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "zstd_level") != NULL);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_flush_interval(ro, 0), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "flush_interval must be positive") != NULL);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_tick_rate_millihz(ro, 0), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_compaction_chunk_ticks(ro, 0), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_max_batch_bytes(ro, 1), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), INVALID_ARGUMENT);
    /* Options are read at the start, not held: the same handle, changed, starts the next one. */
    EXPECT_TRUE(rec == NULL);
    /* An engine handle where a recorder is expected, and the other way round. */
    EXPECT(tickreel_recorder_flush((TickreelRecorder *)(void *)engine), INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "engine handle, not a recorder") != NULL);

    EXPECT(tickreel_recorder_options_set_max_batch_bytes(ro, 1024), OK);
    EXPECT(tickreel_recorder_start(engine, path, ro, &rec), OK);
    EXPECT(tickreel_engine_free((TickreelEngine *)(void *)rec), INVALID_HANDLE);
    TickreelRecorder *twice = NULL;
    EXPECT(tickreel_recorder_start(engine, path, ro, &twice), LOCKED);
    EXPECT_TRUE(twice == NULL);

    static const uint8_t short_count[] = {0};
    static const uint8_t unknown_kind[] = {0, 1, 0x33};
    static const uint8_t truncated_pose[] = {0, 1, 0x03, 0x01, 0x02};
    bool dropped = true;
    EXPECT(tickreel_recorder_submit_tick(rec, 1, NULL, 2, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, NULL, 0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, EMPTY_TICK, 0, NULL), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, short_count, sizeof short_count, NULL),
           INVALID_ARGUMENT);
    uint8_t *big = calloc(2000, 1);
    EXPECT_TRUE(big != NULL);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, big, 2000, NULL), INVALID_ARGUMENT);
    free(big);
    EXPECT(tickreel_recorder_submit_tick((TickreelRecorder *)(uintptr_t)0xdeadbeefu, 1, EMPTY_TICK,
                                         2, NULL),
           INVALID_HANDLE);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, CHAT_TICK, CHAT_LEN, &dropped), OK);
    EXPECT_TRUE(!dropped);
    EXPECT(tickreel_recorder_submit_tick(rec, 1, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_submit_tick(rec, 0, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_ARGUMENT);
    /* Malformed batches pass the O(1) checks of the server thread; the writer refuses them. */
    EXPECT(tickreel_recorder_submit_tick(rec, 2, unknown_kind, sizeof unknown_kind, NULL), OK);
    EXPECT(tickreel_recorder_submit_tick(rec, 3, truncated_pose, sizeof truncated_pose, NULL), OK);
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    EXPECT(tickreel_batch_entity_add(batch, 1, 1, 0.5, 64, 0.5, 0, 0), OK);
    EXPECT(tickreel_recorder_submit_batch(rec, 4, NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_submit_batch(rec, 4, (TickreelBatch *)(void *)rec, NULL),
           INVALID_HANDLE);
    EXPECT(tickreel_recorder_submit_batch(NULL, 4, batch, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_submit_batch(rec, 5, batch, &dropped), OK);
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_recorder_submit_batch(rec, 6, batch, NULL), INVALID_HANDLE);
    EXPECT(tickreel_recorder_offer_snapshot(rec, NULL, 3), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_offer_snapshot(rec, NULL, 0), OK);
    EXPECT(tickreel_recorder_register_event_type(rec, 1, NULL, 1), NULL_ARGUMENT);
    EXPECT(tickreel_recorder_register_event_type(rec, 1, "\xff\xfe", 1), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_register_entity(rec, 1, 1, NULL, "\xc3"), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_register_entity(rec, 1, 1, NULL, "Alice"), OK);
    EXPECT(tickreel_recorder_player_left(rec, 1), OK);
    EXPECT(tickreel_recorder_stats(rec, NULL), NULL_ARGUMENT);

    /* After a flush, the writer has looked at every tick: the malformed ones are reported. */
    EXPECT(tickreel_recorder_flush(rec), OK);
    EXPECT(tickreel_recorder_status(rec), INVALID_STATE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "refused") != NULL);
    TickreelRecorderStats st;
    EXPECT(tickreel_recorder_stats(rec, &st), OK);
    EXPECT_TRUE(st.submitted_ticks == 4 && st.rejected_ticks == 2 && st.dropped_ticks == 0);
    EXPECT_TRUE(st.has_flushed_tick && st.flushed_tick == 5);

    /* Finish, then everything but stats, status and free is refused. */
    EXPECT(tickreel_recorder_finish(rec, NULL), NULL_ARGUMENT);
    TickreelPending *finish = NULL, *again = (TickreelPending *)(uintptr_t)1u;
    EXPECT(tickreel_recorder_finish(rec, &finish), OK);
    EXPECT(tickreel_recorder_finish(rec, &again), INVALID_STATE);
    EXPECT_TRUE(again == NULL);
    EXPECT(tickreel_recorder_submit_tick(rec, 9, EMPTY_TICK, sizeof EMPTY_TICK, NULL), INVALID_STATE);
    EXPECT(tickreel_recorder_flush(rec), INVALID_STATE);
    EXPECT(tickreel_recorder_player_left(rec, 1), INVALID_STATE);
    EXPECT(tickreel_recorder_offer_snapshot(rec, NULL, 0), INVALID_STATE);
    EXPECT(tickreel_recorder_abort(rec), INVALID_STATE);
    EXPECT(tickreel_recorder_stats(rec, &st), OK);
    bool done = false;
    EXPECT(tickreel_pending_poll(finish, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_pending_poll((TickreelPending *)(void *)rec, &done), INVALID_HANDLE);
    size_t len = 0;
    EXPECT(tickreel_pending_wait(finish, -1, &done), OK);
    EXPECT_TRUE(done);
    EXPECT(tickreel_pending_take_path(finish, NULL, 0, &len), OK); /* a length query */
    EXPECT_TRUE(len == strlen(path));
    char tiny[4];
    EXPECT(tickreel_pending_take_path(finish, tiny, sizeof tiny, &len), BUFFER_TOO_SMALL);
    EXPECT(tickreel_pending_take_path(finish, NULL, 16, &len), NULL_ARGUMENT);
    EXPECT(tickreel_pending_take_path(finish, got, sizeof got, NULL), OK);
    EXPECT_TRUE(strcmp(got, path) == 0);
    TickreelGhost *not_a_ghost = (TickreelGhost *)(uintptr_t)1u;
    EXPECT(tickreel_pending_take_ghost(finish, &not_a_ghost), INVALID_STATE); /* another kind */
    EXPECT_TRUE(not_a_ghost == NULL && strstr(tickreel_last_error_message(), "holds a path") != NULL);
    EXPECT(tickreel_pending_poll(finish, &done), OK);
    EXPECT_TRUE(done);
    EXPECT(tickreel_pending_free(finish), OK);
    EXPECT(tickreel_pending_free(finish), INVALID_HANDLE);
    EXPECT(tickreel_pending_poll(finish, &done), INVALID_HANDLE);
    EXPECT(tickreel_recorder_free(rec), OK);
    EXPECT(tickreel_recorder_free(rec), INVALID_HANDLE);
    EXPECT(tickreel_recorder_submit_tick(rec, 10, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_HANDLE);
    TickreelReader *reader = NULL;
    uint32_t first = 0, last = 0;
    EXPECT(tickreel_reader_open(path, &reader), OK);
    EXPECT(tickreel_reader_verify(reader, NULL), OK);
    EXPECT(tickreel_reader_first_tick(reader, &first), OK);
    EXPECT(tickreel_reader_last_tick(reader, &last), OK);
    EXPECT_TRUE(first == 1 && last == 5);
    EXPECT(tickreel_reader_free(reader), OK);
    /* A finished file is not replaced unless asked to: a file in the way, at its path. */
    EXPECT(tickreel_recorder_start(engine, path, NULL, &rec), IO);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "already exists (a finished recording)") != NULL);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), path) != NULL);

    /* Abort: the recording is thrown away. */
    in_dir(other, sizeof other, "aborted.reel");
    EXPECT(tickreel_recorder_start(engine, other, NULL, &rec), OK);
    submit_chat(rec, 1, "submit before abort");
    EXPECT(tickreel_recorder_flush(rec), OK);
    EXPECT(tickreel_recorder_abort(rec), OK);
    EXPECT(tickreel_recorder_abort(rec), INVALID_STATE);
    EXPECT(tickreel_recorder_finish(rec, &finish), INVALID_STATE);
    EXPECT(tickreel_recorder_free(rec), OK);
    EXPECT(tickreel_reader_open(other, &reader), IO);

    /* Freed while open: closed, not finished; starting again with RESUME resumes it (the default
     * would set it aside and start fresh). */
    in_dir(other, sizeof other, "resumed.reel");
    TickreelRecorderOptions *resume_ro = NULL;
    EXPECT(tickreel_recorder_options_new(&resume_ro), OK);
    EXPECT(tickreel_recorder_options_set_on_existing(resume_ro, TICKREEL_ON_EXISTING_RESUME), OK);
    EXPECT(tickreel_recorder_start(engine, other, resume_ro, &rec), OK);
    submit_chat(rec, 1, "submit 1");
    submit_chat(rec, 3, "submit 3");
    EXPECT(tickreel_recorder_flush(rec), OK);
    EXPECT(tickreel_recorder_free(rec), OK);
    TickreelResult r = TICKREEL_RESULT_LOCKED;
    for (int i = 0; i < 10000 && r == TICKREEL_RESULT_LOCKED; i++) { /* 20 s at most */
        r = tickreel_recorder_start(engine, other, resume_ro, &rec); /* until the writer closed it */
        if (r == TICKREEL_RESULT_LOCKED) {
            nap_ms(2);
        }
    }
    expect(r, TICKREEL_RESULT_OK, "tickreel_recorder_start resumes a freed recording");
    EXPECT(tickreel_recorder_options_free(resume_ro), OK);
    /* Recovered on a thread of its own: where it ends is known once that is done. */
    bool has_tick = false;
    uint32_t resumed_tick = 0;
    EXPECT(tickreel_recorder_wait_resumed(rec, 30000, &has_tick, &resumed_tick), OK);
    EXPECT_TRUE(has_tick && resumed_tick == 3);
    EXPECT(tickreel_recorder_submit_tick(rec, 2, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_ARGUMENT);
    submit_chat(rec, 4, "submit 4 after the resume");
    EXPECT(wait_finish(rec, got, sizeof got), OK);
    EXPECT(tickreel_recorder_free(rec), OK);
    EXPECT(tickreel_reader_open(other, &reader), OK);
    EXPECT(tickreel_reader_first_tick(reader, &first), OK);
    EXPECT(tickreel_reader_last_tick(reader, &last), OK);
    EXPECT_TRUE(first == 1 && last == 4);
    EXPECT(tickreel_reader_free(reader), OK);

    /* A recording whose directory does not exist is refused when it starts (before, its finish
     * failed and a run that never flushed was lost). */
    in_dir(other, sizeof other, "missing/dir/x.reel");
    rec = NULL;
    EXPECT(tickreel_recorder_start(engine, other, NULL, &rec), IO);
    EXPECT_TRUE(rec == NULL);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "does not exist") != NULL);

    /* The drop policy: a dropped tick is an outcome, not an error; the counters agree. */
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_backpressure(ro, TICKREEL_BACKPRESSURE_DROP), OK);
    in_dir(other, sizeof other, "dropping.reel");
    EXPECT(tickreel_recorder_start(engine, other, ro, &rec), OK);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    uint64_t queued = 0, drops = 0;
    int ok = 1;
    for (uint32_t t = 0; t < 2000; t++) {
        dropped = false;
        ok &= tickreel_recorder_submit_tick(rec, t, EMPTY_TICK, sizeof EMPTY_TICK, &dropped) ==
              TICKREEL_RESULT_OK;
        drops += dropped ? 1u : 0u;
        queued += dropped ? 0u : 1u;
    }
    EXPECT_TRUE(ok);
    EXPECT(tickreel_recorder_stats(rec, &st), OK);
    EXPECT_TRUE(st.submitted_ticks == queued && st.dropped_ticks == drops);
    EXPECT(tickreel_recorder_abort(rec), OK);
    EXPECT(tickreel_recorder_free(rec), OK);

    /* A recorder outliving its engine: the engine's shutdown closes it; later calls are refused. */
    in_dir(other, sizeof other, "orphan.reel");
    EXPECT(tickreel_recorder_start(engine, other, NULL, &rec), OK);
    submit_chat(rec, 1, "submit before the engine goes");
    EXPECT(tickreel_engine_free(engine), OK);
    EXPECT(tickreel_recorder_submit_tick(rec, 2, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_STATE);
    EXPECT(tickreel_recorder_flush(rec), INVALID_STATE);
    EXPECT(tickreel_recorder_finish(rec, &finish), INVALID_STATE);
    EXPECT(tickreel_recorder_free(rec), OK);
    EXPECT(tickreel_recorder_start(engine, other, NULL, &rec), INVALID_HANDLE);
    EXPECT(tickreel_engine_free(engine), INVALID_HANDLE);
}

/* Waits for a report's handle and frees it; returns the wait's result. */
static TickreelResult wait_report(TickreelPending *finish) {
    TickreelResult r = tickreel_pending_wait(finish, -1, NULL);
    tickreel_pending_free(finish);
    return r;
}

static void bad_shadow(void) {
    puts("-- shadow play");
    char path[4096], other[4096];
    TickreelEngine *engine = NULL;
    EXPECT(tickreel_engine_new(NULL, &engine), OK);
    TickreelShadowOptions *so = NULL;
    TickreelReportOptions *ro = NULL;
    EXPECT(tickreel_shadow_options_new(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_report_options_new(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_options_set_window(NULL, 1000), NULL_ARGUMENT);
    EXPECT(tickreel_report_options_set_after((TickreelReportOptions *)(void *)engine, 0), INVALID_HANDLE);
    EXPECT(tickreel_shadow_options_new(&so), OK);
    EXPECT(tickreel_report_options_new(&ro), OK);
    EXPECT(tickreel_report_options_set_chat(ro, 3), INVALID_ARGUMENT); /* not a TICKREEL_REPORT_CHAT_* */
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "chat 3 is none of") != NULL);

    /* Starting: NULL outputs, bad handles, bad options. Outputs are reset to NULL on failure. */
    TickreelRecorder *rec = (TickreelRecorder *)(uintptr_t)1u;
    TickreelShadowBuffer *shadow = (TickreelShadowBuffer *)(uintptr_t)1u;
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, NULL, NULL, &shadow), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, NULL, &rec, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_start(NULL, NULL, NULL, NULL, &rec, &shadow), NULL_ARGUMENT);
    EXPECT_TRUE(rec == NULL && shadow == NULL);
    EXPECT(tickreel_shadow_buffer_start((TickreelEngine *)(uintptr_t)0xdeadbeefu, NULL, NULL, NULL, &rec,
                                 &shadow),
           INVALID_HANDLE);
    EXPECT(tickreel_shadow_buffer_start(engine, "", NULL, NULL, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT(tickreel_shadow_options_set_window(so, 0), OK); /* the start checks */
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "the shadow window must be positive") != NULL);
    EXPECT(tickreel_shadow_options_set_window(so, 86400001), OK); /* over a day */
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT(tickreel_shadow_options_set_window(so, 300000), OK);
    EXPECT(tickreel_shadow_options_set_grace(so, 86400001), OK);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "window and grace are at most a day") != NULL);
    EXPECT(tickreel_shadow_options_set_grace(so, 120000), OK);
    EXPECT(tickreel_shadow_options_set_block_ticks(so, 0), OK);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT(tickreel_shadow_options_set_block_ticks(so, 200), OK);
    EXPECT(tickreel_shadow_options_set_max_bytes(so, 0), OK); /* a limit must be positive */
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "max_bytes") != NULL);
    EXPECT(tickreel_shadow_options_free(so), OK);
    EXPECT(tickreel_shadow_options_new(&so), OK);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, (TickreelShadowOptions *)(void *)ro, &rec, &shadow),
           INVALID_HANDLE); /* report options where shadow options go */
    TickreelRecorderOptions *rec_options = NULL;
    EXPECT(tickreel_recorder_options_new(&rec_options), OK);
    EXPECT(tickreel_recorder_options_set_tick_rate_millihz(rec_options, 0), OK);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, rec_options, so, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT_TRUE(rec == NULL && shadow == NULL);
    EXPECT(tickreel_recorder_options_free(rec_options), OK);
    EXPECT_TRUE(tickreel_handle_count() == 3); /* the engine and two options: nothing half-started */
    /* a server id with a control character, or over 64 bytes, is refused as by tickreel_recorder_start_on */
    EXPECT(tickreel_shadow_buffer_start_on(engine, "bad\nid", NULL, NULL, NULL, &rec, &shadow), INVALID_ARGUMENT);
    EXPECT_TRUE(rec == NULL && shadow == NULL);
    EXPECT(tickreel_shadow_buffer_start_on(engine,
               "0123456789012345678901234567890123456789012345678901234567890123x", NULL, NULL, NULL, &rec, &shadow),
           INVALID_ARGUMENT);
    EXPECT_TRUE(tickreel_handle_count() == 3);

    EXPECT(tickreel_shadow_options_set_block_ticks(so, 10), OK);
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, so, &rec, &shadow), OK);
    EXPECT(tickreel_shadow_options_free(so), OK); /* the buffer keeps its copy */
    in_dir(path, sizeof path, "shadow_report.reel");
    TickreelPending *finish = (TickreelPending *)(uintptr_t)1u;
    EXPECT(tickreel_report_options_set_after(ro, 0), OK);
    /* Before the stream's first tick there is nothing to report. */
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, NULL, 0, &finish), INVALID_STATE);
    EXPECT_TRUE(finish == NULL);
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    int ok = 1;
    for (uint32_t t = 0; t < 50; t++) {
        ok &= tickreel_batch_clear(batch) == TICKREEL_RESULT_OK;
        ok &= (t == 0 ? tickreel_batch_entity_add(batch, 1, 1, t * 0.1, 64, 0, 0, 0)
                      : tickreel_batch_pose(batch, 1, t * 0.1, 64, 0, 0, 0)) ==
              TICKREEL_RESULT_OK;
        ok &= tickreel_recorder_submit_batch(rec, t, batch, NULL) == TICKREEL_RESULT_OK;
    }
    EXPECT_TRUE(ok);
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_recorder_flush(rec), OK);

    /* Reports: NULL and bad arguments, unknown players, bad options and metadata. */
    EXPECT(tickreel_shadow_buffer_report(NULL, 1, path, ro, NULL, NULL, 0, &finish), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, NULL, ro, NULL, NULL, 0, &finish), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, "", ro, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, NULL, 0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report((TickreelShadowBuffer *)(void *)rec, 1, path, ro, NULL, NULL, 0,
                                  &finish),
           INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "recorder handle, not a shadow") != NULL);
    EXPECT(tickreel_shadow_buffer_report(shadow, 99, path, ro, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "entity 99") != NULL);
    EXPECT_TRUE(finish == NULL);
    TickreelReportOptions *bad = NULL;
    EXPECT(tickreel_report_options_new(&bad), OK);
    EXPECT(tickreel_report_options_set_radius(bad, NAN), OK); /* the report checks */
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "radius") != NULL);
    EXPECT(tickreel_report_options_set_radius(bad, -1.0), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT(tickreel_report_options_set_radius(bad, INFINITY), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT(tickreel_report_options_free(bad), OK);
    EXPECT(tickreel_report_options_new(&bad), OK);
    EXPECT(tickreel_report_options_set_after(bad, 86400001), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "before and after are at most a day") != NULL);
    EXPECT(tickreel_report_options_set_after(bad, 0), OK);
    EXPECT(tickreel_report_options_set_before(bad, 86400001), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT(tickreel_report_options_set_before(bad, 1000), OK);
    EXPECT(tickreel_report_options_set_zstd_level(bad, 1000), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), INVALID_ARGUMENT);
    EXPECT(tickreel_report_options_free(bad), OK);
    const char *reserved[] = {"player"}, *value[] = {"x"}, *null_value[] = {NULL};
    const char *not_utf8[] = {"\xff\xfe"};
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, reserved, value, 1, &finish),
           INVALID_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, value, 1, &finish), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, value, null_value, 1, &finish),
           NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, value, not_utf8, 1, &finish),
           INVALID_ARGUMENT);
    EXPECT_TRUE(finish == NULL);
    EXPECT_TRUE(access(path, F_OK) != 0); /* nothing was written by a refused report */

    /* A good report (every entity: a NaN radius set before is ignored), then one onto it. */
    EXPECT(tickreel_report_options_new(&bad), OK);
    EXPECT(tickreel_report_options_set_after(bad, 0), OK);
    EXPECT(tickreel_report_options_set_radius(bad, NAN), OK);
    EXPECT(tickreel_report_options_set_every_entity(bad, true), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, bad, NULL, NULL, 0, &finish), OK);
    EXPECT(tickreel_report_options_free(bad), OK); /* the report keeps its copy */
    EXPECT(wait_report(finish), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, NULL, 0, &finish), OK);
    EXPECT(wait_report(finish), IO); /* a file in the way, as for a finished recording */
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "already exists") != NULL);
    EXPECT(tickreel_report_options_set_overwrite(ro, true), OK);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, NULL, 0, &finish), OK);
    EXPECT(wait_report(finish), OK);
    in_dir(other, sizeof other, "missing/dir/report.reel");
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, other, ro, NULL, NULL, 0, &finish), OK);
    EXPECT(wait_report(finish), IO);
    TickreelReader *reader = NULL;
    uint32_t first = 0, last = 0;
    EXPECT(tickreel_reader_open(path, &reader), OK);
    EXPECT(tickreel_reader_first_tick(reader, &first), OK);
    EXPECT(tickreel_reader_last_tick(reader, &last), OK);
    EXPECT_TRUE(first == 0 && last == 49);
    EXPECT(tickreel_reader_free(reader), OK);

    TickreelShadowStats st;
    bool attached = false;
    EXPECT(tickreel_shadow_buffer_stats(shadow, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_stats(NULL, &st), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_stats(shadow, &st), OK);
    EXPECT_TRUE(st.has_last_tick && st.last_tick == 49 && st.reports_started == 4);
    EXPECT(tickreel_shadow_buffer_attached(shadow, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_shadow_buffer_attached(shadow, &attached), OK);
    EXPECT_TRUE(attached);

    /* A stream without a file: no finish. The engine's shutdown ends it; reports made after it
     * are refused, and no stream starts on the freed engine. */
    EXPECT(tickreel_recorder_finish(rec, &finish), INVALID_STATE);
    EXPECT_TRUE(finish == NULL);
    EXPECT(tickreel_engine_free(engine), OK);
    EXPECT(tickreel_shadow_buffer_attached(shadow, &attached), OK);
    EXPECT_TRUE(!attached);
    EXPECT(tickreel_recorder_submit_tick(rec, 50, EMPTY_TICK, sizeof EMPTY_TICK, NULL),
           INVALID_STATE);
    in_dir(other, sizeof other, "after_shutdown.reel");
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, other, ro, NULL, NULL, 0, &finish), INVALID_STATE);
    EXPECT_TRUE(finish == NULL);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "shut down") != NULL);
    EXPECT_TRUE(access(other, F_OK) != 0);
    TickreelRecorder *rec2 = NULL;
    TickreelShadowBuffer *shadow2 = NULL;
    EXPECT(tickreel_shadow_buffer_start(engine, NULL, NULL, NULL, &rec2, &shadow2), INVALID_HANDLE);
    EXPECT(tickreel_recorder_free(rec), OK);

    /* Freed: every call is refused, for ever. */
    EXPECT(tickreel_shadow_buffer_free(NULL), OK);
    EXPECT(tickreel_shadow_buffer_free((TickreelShadowBuffer *)(uintptr_t)0xdeadbeefu), INVALID_HANDLE);
    EXPECT(tickreel_shadow_buffer_free(shadow), OK);
    EXPECT(tickreel_shadow_buffer_free(shadow), INVALID_HANDLE);
    EXPECT(tickreel_shadow_buffer_stats(shadow, &st), INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "already freed") != NULL);
    EXPECT(tickreel_shadow_buffer_report(shadow, 1, path, ro, NULL, NULL, 0, &finish), INVALID_HANDLE);
    EXPECT(tickreel_shadow_buffer_attached(shadow, &attached), INVALID_HANDLE);
    EXPECT(tickreel_report_options_free(ro), OK);
}

static void bad_ghosts(const char *good_file) {
    puts("-- ghosts");
    char path[4096];
    TickreelGhost *ghost = (TickreelGhost *)(uintptr_t)1u;
    EXPECT(tickreel_ghost_load(NULL, 1, NULL, &ghost), NULL_ARGUMENT);
    EXPECT_TRUE(ghost == NULL);
    EXPECT(tickreel_ghost_load(good_file, 1, NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_load(in_dir(path, sizeof path, "no-such-file.reel"), 1, NULL, &ghost), IO);
    EXPECT(tickreel_ghost_load(in_dir(path, sizeof path, "short.reel"), 1, NULL, &ghost), TRUNCATED);
    EXPECT(tickreel_ghost_load(good_file, 99, NULL, &ghost), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "no pose") != NULL);
    TickreelGhostRange range = {7, 0, 0, 0};
    EXPECT(tickreel_ghost_load(good_file, 1, &range, &ghost), INVALID_ARGUMENT);
    range = (TickreelGhostRange){TICKREEL_GHOST_BOUND_EDGE, 0, TICKREEL_GHOST_BOUND_CHECKPOINT, 3};
    EXPECT(tickreel_ghost_load(good_file, 1, &range, &ghost), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "checkpoint 3") != NULL);
    EXPECT(tickreel_ghost_load_from_reader(NULL, 1, NULL, &ghost), NULL_ARGUMENT);

    range = (TickreelGhostRange){TICKREEL_GHOST_BOUND_TICK, 10, TICKREEL_GHOST_BOUND_TICK, 60};
    EXPECT(tickreel_ghost_load(good_file, 1, &range, &ghost), OK);
    TickreelGhostInfo info;
    EXPECT(tickreel_ghost_info(ghost, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_info(ghost, &info), OK);
    EXPECT_TRUE(info.entity == 1 && info.origin_tick == 10 && info.duration_ticks == 50);
    size_t count = 99;
    EXPECT(tickreel_ghost_splits(ghost, NULL, 4, &count), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_splits(ghost, NULL, 0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_splits(ghost, NULL, 0, &count), OK);
    EXPECT_TRUE(count == 0);

    TickreelGhostCursor *cursor = NULL;
    EXPECT(tickreel_ghost_cursor_new(ghost, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_cursor_new((TickreelGhost *)(uintptr_t)0xdeadbeefu, &cursor), INVALID_HANDLE);
    EXPECT_TRUE(cursor == NULL);
    EXPECT(tickreel_ghost_cursor_new(ghost, &cursor), OK);
    TickreelGhostSample s;
    EXPECT(tickreel_ghost_cursor_sample(cursor, 1.0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_ghost_cursor_sample((TickreelGhostCursor *)(void *)ghost, 1.0, &s), INVALID_HANDLE);
    EXPECT(tickreel_ghost_cursor_sample(cursor, NAN, &s), OK);
    EXPECT_TRUE(s.state == TICKREEL_GHOST_NOT_STARTED);
    EXPECT(tickreel_ghost_cursor_sample(cursor, -INFINITY, &s), OK);
    EXPECT_TRUE(s.state == TICKREEL_GHOST_NOT_STARTED && s.x == 1.0);
    EXPECT(tickreel_ghost_cursor_sample(cursor, INFINITY, &s), OK);
    EXPECT_TRUE(s.state == TICKREEL_GHOST_FINISHED && fabs(s.z - 6.0) < 0.001);
    EXPECT(tickreel_ghost_cursor_sample(cursor, 20.0, &s), OK);
    EXPECT_TRUE(s.state == TICKREEL_GHOST_RUNNING && fabs(s.z - 3.0) < 0.001 && fabs(s.yaw - 30.0) < 0.01);
    EXPECT(tickreel_ghost_cursor_set_time_shift(cursor, INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_ghost_cursor_set_time_shift(cursor, NAN), INVALID_ARGUMENT);
    EXPECT(tickreel_ghost_cursor_set_time_shift(cursor, 5.0), OK);
    EXPECT(tickreel_ghost_cursor_sample(cursor, 25.0, &s), OK);
    EXPECT_TRUE(fabs(s.z - 3.0) < 0.001);

    TickreelLiveDelta *delta = NULL;
    double secs = 0;
    EXPECT(tickreel_live_delta_new(ghost, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_live_delta_new((TickreelGhost *)(void *)cursor, &delta), INVALID_HANDLE);
    EXPECT(tickreel_live_delta_new(ghost, &delta), OK);
    EXPECT(tickreel_live_delta_update(delta, NAN, 1, 64, 0, &secs), INVALID_ARGUMENT);
    EXPECT(tickreel_live_delta_update(delta, 1, 1, INFINITY, 0, &secs), INVALID_ARGUMENT);
    /* The core's one finiteness check: names the argument, short message, same text as Java's. */
    EXPECT_TRUE(strcmp(tickreel_last_error_message(),
                       "invalid argument: y must be a finite number (got inf)") == 0);
    EXPECT(tickreel_live_delta_update(delta, 1, 1, 64, 0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_live_delta_update((TickreelLiveDelta *)(void *)cursor, 1, 1, 64, 0, &secs),
           INVALID_HANDLE);
    EXPECT(tickreel_live_delta_set_time_shift(delta, -INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_live_delta_update(delta, 30, 1, 64, 2.0, &secs), OK); /* the ghost's +10 spot */
    EXPECT_TRUE(fabs(secs - 1.0) < 0.05);
    EXPECT(tickreel_live_delta_reset(delta), OK);

    /* The ghost's handle may go first: the cursor and the delta keep its data. */
    EXPECT(tickreel_ghost_free(ghost), OK);
    EXPECT(tickreel_ghost_free(ghost), INVALID_HANDLE);
    EXPECT(tickreel_ghost_info(ghost, &info), INVALID_HANDLE);
    TickreelGhostCursor *none = (TickreelGhostCursor *)(uintptr_t)1u;
    EXPECT(tickreel_ghost_cursor_new(ghost, &none), INVALID_HANDLE);
    EXPECT_TRUE(none == NULL);
    EXPECT(tickreel_ghost_cursor_sample(cursor, 20.0, &s), OK);
    EXPECT(tickreel_live_delta_update(delta, 31, 1, 64, 2.1, &secs), OK);
    EXPECT(tickreel_live_delta_free(delta), OK);
    EXPECT(tickreel_live_delta_free(delta), INVALID_HANDLE);
    EXPECT(tickreel_ghost_free(NULL), OK);
    EXPECT(tickreel_ghost_cursor_free(NULL), OK);
    EXPECT(tickreel_live_delta_free(NULL), OK);
    EXPECT(tickreel_pending_free(NULL), OK);

    /* Loading in the background: errors come with the result, at the poll and the take. */
    TickreelPending *load = (TickreelPending *)(uintptr_t)1u;
    bool ready = false;
    EXPECT(tickreel_ghost_load_async(NULL, 1, NULL, &load), NULL_ARGUMENT);
    EXPECT_TRUE(load == NULL);
    EXPECT(tickreel_ghost_load_async(good_file, 1, &(TickreelGhostRange){9, 0, 0, 0}, &load),
           INVALID_ARGUMENT);
    EXPECT(tickreel_ghost_load_async(in_dir(path, sizeof path, "no-such-file.reel"), 1, NULL,
                                     &load),
           OK);
    EXPECT(tickreel_pending_poll(load, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_pending_take_ghost(load, NULL), NULL_ARGUMENT);
    TickreelResult polled = TICKREEL_RESULT_OK;
    for (int i = 0; i < 5000 && !ready; i++) {
        polled = tickreel_pending_poll(load, &ready);
        if (!ready) {
            nap_ms(1);
        }
    }
    EXPECT_TRUE(ready && polled == TICKREEL_RESULT_IO);
    EXPECT(tickreel_pending_take_ghost(load, &ghost), IO);
    EXPECT_TRUE(ghost == NULL);
    EXPECT(tickreel_pending_take_ghost(load, &ghost), IO); /* every time it is asked */
    EXPECT(tickreel_pending_wait(load, 0, &ready), IO);
    EXPECT(tickreel_pending_poll((TickreelPending *)(void *)cursor, &ready), INVALID_HANDLE);
    EXPECT(tickreel_pending_free(load), OK);
    EXPECT(tickreel_pending_free(load), INVALID_HANDLE);
    /* Freed while it runs: cancelled. */
    EXPECT(tickreel_ghost_load_async(good_file, 2, NULL, &load), OK);
    EXPECT(tickreel_pending_free(load), OK);
    EXPECT(tickreel_ghost_cursor_free(cursor), OK);
}

static void bad_playheads(const char *good_file) {
    puts("-- playheads");
    char path[4096];
    TickreelPlayhead *playhead = (TickreelPlayhead *)(uintptr_t)1u;
    EXPECT(tickreel_playhead_open(NULL, 0, &playhead), NULL_ARGUMENT);
    EXPECT_TRUE(playhead == NULL);
    EXPECT(tickreel_playhead_open(good_file, 0, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_open(in_dir(path, sizeof path, "no-such-file.reel"), 0, &playhead), IO);
    EXPECT(tickreel_playhead_open(in_dir(path, sizeof path, "short.reel"), 0, &playhead), TRUNCATED);
    EXPECT_TRUE(playhead == NULL);

    /* NULL and never-returned handles. */
    TickreelUpdate info;
    EXPECT(tickreel_playhead_advance(NULL, &info), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_play(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(NULL, 1.0), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_free(NULL), OK);
    EXPECT(tickreel_playhead_pause((TickreelPlayhead *)(uintptr_t)0x1234u), INVALID_HANDLE);

    EXPECT(tickreel_playhead_open(good_file, 500, &playhead), OK); /* clamped to the last tick */
    uint32_t pos = 0;
    EXPECT(tickreel_playhead_position(playhead, &pos), OK);
    EXPECT_TRUE(pos == 99);
    EXPECT(tickreel_playhead_position(playhead, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_advance(playhead, NULL), OK); /* out_info is optional */

    /* Speeds outside 0.25..16 and NaN are refused; the limits themselves are fine. */
    EXPECT(tickreel_playhead_set_speed(playhead, 0.2), INVALID_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(playhead, 16.5), INVALID_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(playhead, -1.0), INVALID_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(playhead, NAN), INVALID_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(playhead, INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_playhead_set_speed(playhead, 0.25), OK);
    EXPECT(tickreel_playhead_set_speed(playhead, 16.0), OK);

    /* Entities: NULL count, NULL array with a capacity, a buffer too small. */
    TickreelEntityState states[3];
    size_t count = 0;
    EXPECT(tickreel_playhead_entities(playhead, states, 3, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_entities(playhead, NULL, 3, &count), NULL_ARGUMENT);
    EXPECT(tickreel_playhead_entities(playhead, NULL, 0, &count), BUFFER_TOO_SMALL);
    EXPECT_TRUE(count == 3);
    count = 0;
    states[0].id = 77;
    EXPECT(tickreel_playhead_entities(playhead, states, 2, &count), BUFFER_TOO_SMALL);
    EXPECT_TRUE(count == 3 && states[0].id == 77); /* nothing written */
    EXPECT(tickreel_playhead_entities(playhead, states, 3, &count), OK);
    EXPECT_TRUE(count == 3 && states[0].id == 1 && states[2].id == 3);

    /* Edges: stepping past either end stays there; a seek past the end clamps. */
    EXPECT(tickreel_playhead_step_forward(playhead, &info), OK);
    EXPECT_TRUE(info.position == 99 && info.motion == TICKREEL_MOTION_STILL && info.at_edge);
    EXPECT(tickreel_playhead_seek(playhead, 0, &info), OK);
    EXPECT_TRUE(info.position == 0 && info.motion == TICKREEL_MOTION_JUMP);
    EXPECT(tickreel_playhead_step_back(playhead, &info), OK);
    EXPECT_TRUE(info.position == 0 && info.motion == TICKREEL_MOTION_STILL);
    EXPECT(tickreel_playhead_seek(playhead, UINT32_MAX, &info), OK);
    EXPECT_TRUE(info.position == 99 && info.entity_count == 3);

    /* A reader handle is not a playhead handle, and the other way round. */
    TickreelReader *reader = NULL;
    EXPECT(tickreel_reader_open(good_file, &reader), OK);
    EXPECT(tickreel_playhead_play((TickreelPlayhead *)reader), INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "reader handle") != NULL);
    EXPECT(tickreel_reader_verify((TickreelReader *)playhead, NULL), INVALID_HANDLE);
    EXPECT(tickreel_playhead_free((TickreelPlayhead *)reader), INVALID_HANDLE);
    EXPECT(tickreel_reader_free(reader), OK);

    /* Freed: every call, a second free included, is refused. */
    EXPECT(tickreel_playhead_free(playhead), OK);
    EXPECT(tickreel_playhead_free(playhead), INVALID_HANDLE);
    EXPECT(tickreel_playhead_advance(playhead, &info), INVALID_HANDLE);
    EXPECT(tickreel_playhead_seek(playhead, 5, &info), INVALID_HANDLE);
    EXPECT(tickreel_playhead_set_reverse(playhead, true), INVALID_HANDLE);
    EXPECT(tickreel_playhead_entities(playhead, states, 3, &count), INVALID_HANDLE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "already freed") != NULL);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    char good[4096];
    in_dir(good, sizeof good, "good.reel");
    write_good_file(good);
    last_error_and_names();
    bad_handles(good);
    bad_batches();
    bad_writes();
    bad_reads(good);
    encode_chat_tick();
    bad_engine();
    bad_recorder();
    bad_shadow();
    bad_ghosts(good);
    bad_playheads(good);
    EXPECT_TRUE(tickreel_handle_count() == 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
