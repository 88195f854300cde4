/*
 * record_replay.c: records a few seconds of a simulated server through the tickreel C API,
 * reopens the file, seeks, and plays it back, checking every entity against the simulation.
 *
 *   record_replay [OUTPUT_DIR]      (default: the current directory)
 *
 * Four players walk in circles at 20 ticks/s for 6 seconds: one joins late, one teleports, one
 * leaves; flags, checkpoints, a chat message (a custom event) and snapshots are recorded too.
 * Exits 0 when everything read back matches what was recorded (within the format's precision).
 */
#include "tickreel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAYERS 4
#define FIRST_TICK 1000u
#define TICKS 120u /* 6 s at 20 ticks/s */
#define CHAT_EVENT 1u
#define PLAYER_KIND 147u
#define PI 3.14159265358979323846

static const char *const NAMES[PLAYERS] = {"Alice", "Bob", "Carol", "Dave"};

/* Aborts with tickreel's message when a call fails. */
static void check(TickreelResult r, const char *what) {
    if (r != TICKREEL_RESULT_OK) {
        char msg[512];
        tickreel_last_error(msg, sizeof msg);
        fprintf(stderr, "record_replay: %s failed: %s: %s\n", what, tickreel_result_name(r), msg);
        exit(1);
    }
}
#define CHECK(call) check((call), #call)

/* --- the simulated server ------------------------------------------------------------------ */

typedef struct {
    int alive;
    double x, y, z, yaw, pitch;
    uint32_t flags;
} Player;

/* Player p's state k ticks into the recording (the whole truth the file is checked against). */
static Player simulate(int p, uint32_t k) {
    Player s = {0};
    uint32_t join = p == 3 ? 30u : 0u;
    uint32_t leave = p == 0 ? 100u : TICKS;
    s.alive = k >= join && k < leave;
    double cx = 10.0 * p, cz = -5.0 * p, r = 3.0 + p;
    if (p == 2 && k >= 60) { /* teleported to another circle */
        cx = 200.0;
        cz = 200.0;
    }
    double theta = p + (2.0 * PI / (60.0 + 20.0 * p)) * (double)k;
    s.x = cx + r * cos(theta);
    s.y = 64.0 + 0.5 * p;
    s.z = cz + r * sin(theta);
    s.yaw = theta * 180.0 / PI + 90.0; /* unbounded: keeps growing past 360 */
    s.pitch = 10.0 * sin((double)k / 10.0);
    s.flags = TICKREEL_FLAG_ON_GROUND | ((k % 40u) < 20u ? TICKREEL_FLAG_SPRINTING : 0u);
    return s;
}

/* Fills one tick's events into the batch. */
static void build_tick(TickreelBatch *batch, uint32_t k) {
    CHECK(tickreel_batch_clear(batch));
    for (int p = 0; p < PLAYERS; p++) {
        Player now = simulate(p, k);
        Player before = k > 0 ? simulate(p, k - 1) : (Player){0};
        uint32_t id = (uint32_t)p + 1;
        if (now.alive && !before.alive) {
            CHECK(tickreel_batch_add_entity(batch, id, PLAYER_KIND, now.x, now.y, now.z, now.yaw,
                                            now.pitch));
        } else if (!now.alive && before.alive) {
            CHECK(tickreel_batch_player_leave(batch, id));
            continue;
        } else if (!now.alive) {
            continue;
        } else if (p == 2 && k == 60) {
            CHECK(tickreel_batch_teleport(batch, id, now.x, now.y, now.z, now.yaw, now.pitch));
        } else if (k % 2 == 0) {
            CHECK(tickreel_batch_add_pose(batch, id, now.x, now.y, now.z, now.yaw, now.pitch));
        } else { /* odd ticks: position and rotation separately, as some engines send them */
            CHECK(tickreel_batch_add_position(batch, id, now.x, now.y, now.z));
            CHECK(tickreel_batch_add_rotation(batch, id, now.yaw, now.pitch));
        }
        if (!before.alive || now.flags != before.flags) {
            CHECK(tickreel_batch_flags(batch, id, now.flags));
        }
        if (p == 1 && k > 0 && k % 40 == 0) {
            CHECK(tickreel_batch_checkpoint(batch, id, k / 40));
        }
    }
    if (k == 10) {
        static const char chat[] = "Alice: hello";
        CHECK(tickreel_batch_custom(batch, CHAT_EVENT, (const uint8_t *)chat, strlen(chat)));
    }
}

static void record(const char *path) {
    TickreelWriterOptions options;
    CHECK(tickreel_writer_options_default(&options));
    options.chunk_ticks = 40;       /* small chunks, so that seeking crosses several */
    options.snapshot_interval = 80;
    options.timestamp_ms = 1700000000000;

    TickreelWriter *writer = NULL;
    CHECK(tickreel_writer_create(path, &options, &writer));
    CHECK(tickreel_writer_register_event_type(writer, CHAT_EVENT, "chat", 1));
    for (int p = 0; p < PLAYERS; p++) {
        CHECK(tickreel_writer_register_entity(writer, (uint32_t)p + 1, PLAYER_KIND, NULL, NAMES[p]));
    }
    static const char world[] = "world snapshot v1";
    CHECK(tickreel_writer_offer_snapshot(writer, (const uint8_t *)world, sizeof world - 1));

    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    uint8_t *bytes = NULL;
    size_t capacity = 0;
    for (uint32_t k = 0; k < TICKS; k++) {
        build_tick(batch, k);
        if (k % 3 == 0) {
            /* The raw path: encode into our own buffer, as an engine with its own encoder would. */
            size_t len = 0;
            TickreelResult r = tickreel_batch_bytes(batch, bytes, capacity, &len);
            if (r == TICKREEL_RESULT_BUFFER_TOO_SMALL) {
                free(bytes);
                capacity = len * 2;
                bytes = malloc(capacity);
                if (bytes == NULL) {
                    fprintf(stderr, "out of memory\n");
                    exit(1);
                }
                r = tickreel_batch_bytes(batch, bytes, capacity, &len);
            }
            check(r, "tickreel_batch_bytes");
            CHECK(tickreel_writer_write_tick(writer, FIRST_TICK + k, bytes, len));
        } else {
            CHECK(tickreel_writer_write_batch(writer, FIRST_TICK + k, batch));
        }
    }
    free(bytes);
    CHECK(tickreel_batch_free(batch));

    uint64_t size = 0;
    CHECK(tickreel_writer_finish(writer, &size));
    CHECK(tickreel_writer_free(writer));
    printf("recorded %u ticks of %d players into %s (%llu bytes)\n", TICKS, PLAYERS, path,
           (unsigned long long)size);
}

/* --- playback ------------------------------------------------------------------------------ */

static int failures = 0;

static void expect_close(double got, double want, double tolerance, const char *what, uint32_t k,
                         uint32_t id) {
    if (fabs(got - want) > tolerance) {
        fprintf(stderr, "tick +%u entity %u: %s is %.6f, expected %.6f\n", k, id, what, got, want);
        failures++;
    }
}

/* Checks the states read back at tick FIRST_TICK + k against the simulation. */
static void check_states(const TickreelEntityState *states, size_t count, uint32_t k) {
    size_t alive = 0;
    for (int p = 0; p < PLAYERS; p++) {
        alive += simulate(p, k).alive ? 1u : 0u;
    }
    if (count != alive) {
        fprintf(stderr, "tick +%u: %zu entities, expected %zu\n", k, count, alive);
        failures++;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const TickreelEntityState *e = &states[i];
        Player want = simulate((int)e->id - 1, k);
        if (e->id < 1 || e->id > PLAYERS || !want.alive || e->kind != PLAYER_KIND ||
            e->flags != want.flags) {
            fprintf(stderr, "tick +%u: unexpected entity %u (kind %u, flags %u)\n", k, e->id,
                    e->kind, e->flags);
            failures++;
            continue;
        }
        const double pos = 0.5 / 4096.0 + 1e-9, angle = 0.5 * 360.0 / 65536.0 + 1e-9;
        expect_close(e->x, want.x, pos, "x", k, e->id);
        expect_close(e->y, want.y, pos, "y", k, e->id);
        expect_close(e->z, want.z, pos, "z", k, e->id);
        expect_close(e->yaw, want.yaw, angle, "yaw", k, e->id);
        expect_close(e->pitch, want.pitch, angle, "pitch", k, e->id);
    }
}

static void replay(const char *path) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));

    uint32_t first = 0, last = 0, ticks = 0, chunks = 0;
    double rate = 0;
    CHECK(tickreel_reader_first_tick(reader, &first));
    CHECK(tickreel_reader_last_tick(reader, &last));
    CHECK(tickreel_reader_tick_count(reader, &ticks));
    CHECK(tickreel_reader_chunk_count(reader, &chunks));
    CHECK(tickreel_reader_tick_rate(reader, &rate));
    printf("reopened: ticks %u..%u (%u ticks, %u chunks) at %.1f ticks/s\n", first, last, ticks,
           chunks, rate);
    if (first != FIRST_TICK || last != FIRST_TICK + TICKS - 1 || ticks != TICKS || chunks < 3 ||
        rate != 20.0) {
        fprintf(stderr, "unexpected recording info\n");
        failures++;
    }

    TickreelVerifyReport report;
    CHECK(tickreel_reader_verify(reader, &report));
    printf("verified: %llu chunks, %llu pose samples, %llu events\n",
           (unsigned long long)report.chunks, (unsigned long long)report.pose_samples,
           (unsigned long long)report.events);

    /* Seek into the middle: ask for the count first, then fetch with a buffer that fits. */
    uint32_t target = FIRST_TICK + 75, at = 0;
    size_t count = 0;
    TickreelResult r = tickreel_reader_seek(reader, target, NULL, 0, &count, &at);
    if (r != TICKREEL_RESULT_BUFFER_TOO_SMALL || count != PLAYERS) {
        fprintf(stderr, "size query: %s, %zu entities\n", tickreel_result_name(r), count);
        failures++;
    }
    TickreelEntityState *states = calloc(count > 0 ? count : 1, sizeof *states);
    if (states == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    CHECK(tickreel_reader_seek(reader, target, states, count, &count, &at));
    printf("seek to tick %u:\n", at);
    for (size_t i = 0; i < count; i++) {
        printf("  %-5s at (%8.3f, %6.2f, %8.3f) yaw %8.2f pitch %6.2f flags 0x%x\n",
               NAMES[states[i].id - 1], states[i].x, states[i].y, states[i].z, states[i].yaw,
               states[i].pitch, states[i].flags);
    }
    check_states(states, count, at - FIRST_TICK);
    free(states);

    /* Play back tick by tick (seek per tick, until the playhead API lands). */
    TickreelEntityState frame[PLAYERS];
    for (uint32_t tick = first; tick <= last; tick++) {
        CHECK(tickreel_reader_seek(reader, tick, frame, PLAYERS, &count, &at));
        if (at != tick) {
            fprintf(stderr, "seek to %u landed on %u\n", tick, at);
            failures++;
        }
        check_states(frame, count, tick - FIRST_TICK);
        if ((tick - first) % 20 == 0) {
            printf("  t=%u: %zu players, first is %s at (%.2f, %.2f)\n", tick, count,
                   count > 0 ? NAMES[frame[0].id - 1] : "-", count > 0 ? frame[0].x : 0.0,
                   count > 0 ? frame[0].z : 0.0);
        }
    }
    /* Seeking past the end clamps to the last tick. */
    CHECK(tickreel_reader_seek(reader, last + 1000, frame, PLAYERS, &count, &at));
    if (at != last) {
        fprintf(stderr, "seek past the end landed on %u, expected %u\n", at, last);
        failures++;
    }
    CHECK(tickreel_reader_free(reader));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    if (snprintf(path, sizeof path, "%s/record_replay.reel", dir) >= (int)sizeof path) {
        fprintf(stderr, "output path too long\n");
        return 2;
    }
    printf("tickreel %s\n", tickreel_version());
    record(path);
    replay(path);
    if (tickreel_handle_count() != 0) {
        fprintf(stderr, "%zu handles were not freed\n", tickreel_handle_count());
        failures++;
    }
    if (failures > 0) {
        fprintf(stderr, "record_replay: %d mismatches\n", failures);
        return 1;
    }
    printf("record_replay: everything played back as recorded\n");
    return 0;
}
