/*
 * dictionary.c: trained zstd dictionaries from C. Registers a dictionary (`tickreel dict train`'s
 * output), writes a recording compressed with it, reads it back; refuses crafted dictionaries;
 * and checks that a recording whose dictionary is not registered fails to open with
 * TICKREEL_RESULT_UNSUPPORTED and a message naming its id.
 *
 *   dictionary SCRATCH_DIR [DATA_DIR]   (DATA_DIR default: native/core/tests/data)
 *
 * DATA_DIR holds sample.dict (dictionary 4711) and dict-4712.reel (a recording compressed with
 * dictionary 4712, which nobody registers). Prints one line per check and `N passed, M failed`;
 * exits non-zero if any check failed. Run by tests/c.sh under ASan/UBSan.
 */
#include "tickreel.h"

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
        printf("FAIL  %-64s got %s, expected %s (last error: %s)\n", what,
               tickreel_result_name(got), tickreel_result_name(want), tickreel_last_error_message());
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

/* Writes 3 entities over 200 ticks with the given dictionary id. */
static TickreelResult write_file(const char *path, uint16_t dictionary_id) {
    TickreelReelOptions *options = NULL;
    EXPECT(tickreel_reel_options_new(&options), OK);
    EXPECT(tickreel_reel_options_set_chunk_ticks(options, 50), OK);
    EXPECT(tickreel_reel_options_set_dictionary_id(options, dictionary_id), OK);
    TickreelReelWriter *writer = NULL;
    TickreelResult r = tickreel_reel_writer_create(path, options, &writer);
    EXPECT(tickreel_reel_options_free(options), OK);
    if (r != TICKREEL_RESULT_OK) {
        return r;
    }
    TickreelBatch *batch = NULL;
    EXPECT(tickreel_batch_new(&batch), OK);
    int ok = 1;
    for (uint32_t t = 0; t < 200; t++) {
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
    r = tickreel_reel_writer_finish(writer, NULL);
    EXPECT(tickreel_reel_writer_free(writer), OK);
    return r;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dictionary SCRATCH_DIR [DATA_DIR]\n");
        return 2;
    }
    const char *data = argc > 2 ? argv[2] : "native/core/tests/data";
    char path[4096];

    puts("-- registering");
    snprintf(path, sizeof path, "%s/sample.dict", data);
    size_t len = 0;
    uint8_t *dict = slurp(path, &len);
    uint32_t id = 0;
    bool registered = true;
    EXPECT(tickreel_dictionary_is_registered(4711, &registered), OK);
    EXPECT_TRUE(!registered);
    EXPECT(tickreel_dictionary_register(dict, len, &id), OK);
    EXPECT_TRUE(id == 4711);
    /* the same bytes again: harmless */
    EXPECT(tickreel_dictionary_register(dict, len, &id), OK);
    EXPECT(tickreel_dictionary_is_registered(4711, &registered), OK);
    EXPECT_TRUE(registered);
    EXPECT(tickreel_dictionary_is_registered(0, &registered), OK);
    EXPECT_TRUE(!registered);

    puts("-- crafted dictionaries");
    EXPECT(tickreel_dictionary_register(NULL, 10, &id), NULL_ARGUMENT);
    EXPECT(tickreel_dictionary_register(dict, len, NULL), NULL_ARGUMENT);
    const uint8_t garbage[16] = "not a dictionary";
    EXPECT(tickreel_dictionary_register(garbage, sizeof garbage, &id), INVALID_ARGUMENT);
    uint8_t *crafted = malloc(len);
    memcpy(crafted, dict, len);
    /* id 70000: outside 1..65535 */
    crafted[4] = 0x70, crafted[5] = 0x11, crafted[6] = 0x01, crafted[7] = 0x00;
    EXPECT(tickreel_dictionary_register(crafted, len, &id), INVALID_ARGUMENT);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "70000") != NULL);
    /* other bytes under the id 4711 already registered */
    memcpy(crafted, dict, len);
    crafted[len - 1] ^= 0x5A;
    EXPECT(tickreel_dictionary_register(crafted, len, &id), INVALID_STATE);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "4711") != NULL);
    free(crafted);

    puts("-- a recording compressed with the dictionary");
    snprintf(path, sizeof path, "%s/dict.reel", argv[1]);
    EXPECT(write_file(path, 4711), OK);
    TickreelReader *reader = NULL;
    EXPECT(tickreel_reader_open(path, &reader), OK);
    uint32_t ticks = 0;
    EXPECT(tickreel_reader_tick_count(reader, &ticks), OK);
    EXPECT_TRUE(ticks == 200);
    TickreelVerifyReport report;
    EXPECT(tickreel_reader_verify(reader, &report), OK);
    EXPECT_TRUE(report.chunks == 4 && report.pose_samples == 600);
    EXPECT(tickreel_reader_free(reader), OK);

    puts("-- a dictionary that is not registered");
    snprintf(path, sizeof path, "%s/unregistered.reel", argv[1]);
    EXPECT(write_file(path, 4712), UNSUPPORTED);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "dictionary 4712 is not registered") != NULL);
    snprintf(path, sizeof path, "%s/dict-4712.reel", data);
    reader = NULL;
    EXPECT(tickreel_reader_open(path, &reader), UNSUPPORTED);
    EXPECT_TRUE(reader == NULL);
    EXPECT_TRUE(strstr(tickreel_last_error_message(), "dictionary 4712 is not registered") != NULL);
    printf("   message: %s\n", tickreel_last_error_message());

    puts("-- a live recording with the dictionary");
    TickreelEngine *engine = NULL;
    EXPECT(tickreel_engine_new(NULL, &engine), OK);
    TickreelRecorderOptions *ro = NULL;
    EXPECT(tickreel_recorder_options_new(&ro), OK);
    EXPECT(tickreel_recorder_options_set_dictionary_id(ro, 65536), INVALID_ARGUMENT);
    EXPECT(tickreel_recorder_options_set_dictionary_id(ro, 4712), OK);
    TickreelRecorder *recorder = NULL;
    snprintf(path, sizeof path, "%s/live-4712.reel", argv[1]);
    EXPECT(tickreel_recorder_start(engine, path, ro, &recorder), UNSUPPORTED);
    EXPECT(tickreel_recorder_options_free(ro), OK);
    EXPECT(tickreel_engine_free(engine), OK);

    free(dict);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
