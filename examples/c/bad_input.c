/*
 * bad_input.c: feeds the tickreel C API bad input and checks every result code.
 *
 *   bad_input [SCRATCH_DIR]      (default: the current directory)
 *
 * NULL pointers, zero lengths, freed, foreign and made-up handles, malformed batches, out-of-order
 * ticks, truncated, corrupt and foreign files, too-small buffers. Prints one line per check and
 * `N passed, M failed` at the end; exits non-zero if any check failed. Meant to run under
 * AddressSanitizer and UndefinedBehaviorSanitizer: none of this may crash or touch bad memory.
 */
#include "tickreel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    TickreelWriterOptions options;
    EXPECT(tickreel_writer_options_default(&options), OK);
    options.chunk_ticks = 20;
    TickreelWriter *writer = NULL;
    EXPECT(tickreel_writer_create(path, &options, &writer), OK);
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    int ok = 1;
    for (uint32_t t = 0; t < 100; t++) {
        ok &= tickreel_batch_clear(batch) == TICKREEL_RESULT_OK;
        for (uint32_t e = 1; e <= 3; e++) {
            ok &= (t == 0 ? tickreel_batch_add_entity(batch, e, 1, e, 64, t * 0.1, t, 0)
                          : tickreel_batch_add_pose(batch, e, e, 64, t * 0.1, t, 0)) ==
                  TICKREEL_RESULT_OK;
        }
        ok &= tickreel_writer_write_batch(writer, t, batch) == TICKREEL_RESULT_OK;
    }
    EXPECT_TRUE(ok);
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_writer_finish(writer, NULL), OK);
    EXPECT(tickreel_writer_free(writer), OK);
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
    EXPECT(tickreel_writer_free(NULL), OK);
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
    EXPECT(tickreel_writer_write_batch((TickreelWriter *)(void *)reader, 1, batch), INVALID_HANDLE);
    EXPECT(tickreel_reader_tick_count(reader, &ticks), OK); /* still fine after all that */

    /* Use after free and double free. */
    EXPECT(tickreel_batch_free(batch), OK);
    EXPECT(tickreel_batch_add_pose(batch, 1, 0, 0, 0, 0, 0), INVALID_HANDLE);
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
    EXPECT(tickreel_batch_add_pose(batch, 1, NAN, 0, 0, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_add_pose(batch, 1, 0, INFINITY, 0, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_add_entity(batch, 1, 1, 0, 0, 0, 0, -INFINITY), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_add_position(batch, 1, 1e300, 0, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_batch_add_rotation(batch, 1, NAN, 0), INVALID_ARGUMENT);
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
    EXPECT(tickreel_batch_add_pose(batch, 1, 1, 2, 3, 4, 5), OK);
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
    TickreelWriter *writer = (TickreelWriter *)(uintptr_t)1u; /* must be reset to NULL on failure */
    EXPECT(tickreel_writer_create(NULL, NULL, &writer), NULL_ARGUMENT);
    EXPECT_TRUE(writer == NULL);
    EXPECT(tickreel_writer_create(in_dir(path, sizeof path, "w.reel"), NULL, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_writer_create("", NULL, &writer), INVALID_ARGUMENT);
    TickreelWriterOptions options;
    EXPECT(tickreel_writer_options_default(NULL), NULL_ARGUMENT);
    EXPECT(tickreel_writer_options_default(&options), OK);
    options.tick_rate_millihz = 0;
    EXPECT(tickreel_writer_create(path, &options, &writer), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_options_default(&options), OK);
    options.chunk_ticks = 0;
    EXPECT(tickreel_writer_create(path, &options, &writer), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_options_default(&options), OK);
    options.zstd_level = 1000;
    EXPECT(tickreel_writer_create(path, &options, &writer), INVALID_ARGUMENT);

    EXPECT(tickreel_writer_create(path, NULL, &writer), OK);
    static const uint8_t empty_tick[] = {0, 0};
    static const uint8_t short_count[] = {0};
    static const uint8_t missing_event[] = {0, 1};
    static const uint8_t unknown_kind[] = {0, 1, 0x33};
    static const uint8_t truncated_pose[] = {0, 1, 0x03, 0x01, 0x02};
    static const uint8_t trailing[] = {0, 0, 0};
    EXPECT(tickreel_writer_write_tick(writer, 1, NULL, 2), NULL_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, NULL, 0), NULL_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, empty_tick, 0), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, short_count, sizeof short_count), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, missing_event, sizeof missing_event), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, unknown_kind, sizeof unknown_kind), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, truncated_pose, sizeof truncated_pose), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 1, trailing, sizeof trailing), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 5, empty_tick, sizeof empty_tick), OK);
    EXPECT(tickreel_writer_write_tick(writer, 5, empty_tick, sizeof empty_tick), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_tick(writer, 4, empty_tick, sizeof empty_tick), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_write_batch(writer, 6, NULL), NULL_ARGUMENT);
    EXPECT(tickreel_writer_offer_snapshot(writer, NULL, 3), NULL_ARGUMENT);
    EXPECT(tickreel_writer_offer_snapshot(writer, NULL, 0), OK);
    EXPECT(tickreel_writer_register_event_type(writer, 1, NULL, 1), NULL_ARGUMENT);
    EXPECT(tickreel_writer_register_event_type(writer, 1, "\xff\xfe", 1), INVALID_ARGUMENT);
    EXPECT(tickreel_writer_register_entity(writer, 1, 1, NULL, "\xc3"), INVALID_ARGUMENT);
    static const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EXPECT(tickreel_writer_register_entity(writer, 1, 1, uuid, NULL), OK);
    EXPECT(tickreel_writer_write_tick(writer, 6, empty_tick, sizeof empty_tick), OK);
    uint64_t size = 0;
    EXPECT(tickreel_writer_finish(writer, &size), OK);
    EXPECT_TRUE(size > 256);
    EXPECT(tickreel_writer_finish(writer, &size), INVALID_STATE);
    EXPECT(tickreel_writer_write_tick(writer, 7, empty_tick, sizeof empty_tick), INVALID_STATE);
    EXPECT(tickreel_writer_free(writer), OK);
    EXPECT(tickreel_writer_free(writer), INVALID_HANDLE);

    /* A file in a directory that does not exist: refused at create, before any tick is encoded. */
    EXPECT(tickreel_writer_create(in_dir(path, sizeof path, "missing/dir/x.reel"), NULL, &writer), IO);
    EXPECT_TRUE(writer == NULL);

    /* Freed without finishing: nothing is written. */
    EXPECT(tickreel_writer_create(in_dir(path, sizeof path, "abandoned.reel"), NULL, &writer), OK);
    EXPECT(tickreel_writer_write_tick(writer, 1, empty_tick, sizeof empty_tick), OK);
    EXPECT(tickreel_writer_free(writer), OK);
    TickreelReader *reader = NULL;
    EXPECT(tickreel_reader_open(path, &reader), IO);

    /* An empty recording is valid, but has no first tick and nothing to seek to. */
    EXPECT(tickreel_writer_create(in_dir(path, sizeof path, "empty.reel"), NULL, &writer), OK);
    EXPECT(tickreel_writer_finish(writer, NULL), OK);
    EXPECT(tickreel_writer_free(writer), OK);
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
    EXPECT_TRUE(tickreel_handle_count() == 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
