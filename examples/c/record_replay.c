/*
 * record_replay.c: records a few seconds of a simulated server through the tickreel C API,
 * reopens the file, seeks, plays it back, and races a ghost, checking everything against the
 * simulation.
 *
 *   record_replay [OUTPUT_DIR]      (default: the current directory)
 *
 * Four players walk in circles at 20 ticks/s for 6 seconds: one joins late, one teleports, one
 * leaves; flags, checkpoints, a chat message (a custom event) and snapshots are recorded too.
 * The run is recorded twice: live, through an engine and a recorder (the server's way: a copy
 * and a queue push per tick, a background writer, a finish that compacts), and directly into a
 * compacted file with a writer. Both files are replayed. Then one player's run between two
 * checkpoints is loaded as a ghost and sampled at 60 Hz, and a live player trailing it gets a
 * live delta. Exits 0 when everything read back matches what was recorded (within the format's
 * precision). Last, shadow play: a world kept only in memory, two players reported from it, read
 * back with the reader.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "tickreel.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLAYERS 4
#define FIRST_TICK 1000u
#define TICKS 120u /* 6 s at 20 ticks/s */
#define CHAT_EVENT 1u
#define PLAYER_KIND 147u
#define PI 3.14159265358979323846

static const char *const NAMES[PLAYERS] = {"Alice", "Bob", "Carol", "Dave"};

static int failures = 0;

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
            CHECK(tickreel_batch_entity_add(batch, id, PLAYER_KIND, now.x, now.y, now.z, now.yaw,
                                            now.pitch));
        } else if (!now.alive && before.alive) {
            CHECK(tickreel_batch_player_leave(batch, id));
            continue;
        } else if (!now.alive) {
            continue;
        } else if (p == 2 && k == 60) {
            CHECK(tickreel_batch_teleport(batch, id, now.x, now.y, now.z, now.yaw, now.pitch));
        } else if (k % 2 == 0) {
            CHECK(tickreel_batch_pose(batch, id, now.x, now.y, now.z, now.yaw, now.pitch));
        } else { /* odd ticks: position and rotation separately, as some engines send them */
            CHECK(tickreel_batch_position(batch, id, now.x, now.y, now.z));
            CHECK(tickreel_batch_rotation(batch, id, now.yaw, now.pitch));
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

/* Records straight into a compacted file with a writer (encoding on the calling thread). */
static void record_with_writer(const char *path) {
    TickreelReelOptions *options = NULL;
    CHECK(tickreel_reel_options_new(&options));
    CHECK(tickreel_reel_options_set_chunk_ticks(options, 40)); /* small chunks, so that seeking crosses several */
    CHECK(tickreel_reel_options_set_snapshot_interval(options, 80));
    CHECK(tickreel_reel_options_set_timestamp_ms(options, 1700000000000));

    TickreelReelWriter *writer = NULL;
    CHECK(tickreel_reel_writer_create(path, options, &writer));
    CHECK(tickreel_reel_options_free(options));
    CHECK(tickreel_reel_writer_register_event_type(writer, CHAT_EVENT, "chat", 1));
    for (int p = 0; p < PLAYERS; p++) {
        CHECK(tickreel_reel_writer_register_entity(writer, (uint32_t)p + 1, PLAYER_KIND, NULL, NAMES[p]));
    }
    static const char world[] = "world snapshot v1";
    CHECK(tickreel_reel_writer_offer_snapshot(writer, (const uint8_t *)world, sizeof world - 1));

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
            CHECK(tickreel_reel_writer_write_tick(writer, FIRST_TICK + k, bytes, len));
        } else {
            CHECK(tickreel_reel_writer_write_batch(writer, FIRST_TICK + k, batch));
        }
    }
    free(bytes);
    CHECK(tickreel_batch_free(batch));

    uint64_t size = 0;
    CHECK(tickreel_reel_writer_finish(writer, &size));
    CHECK(tickreel_reel_writer_free(writer));
    printf("writer: recorded %u ticks of %d players into %s (%llu bytes)\n", TICKS, PLAYERS, path,
           (unsigned long long)size);
}

/* Encodes the batch into a growable buffer of our own, as an engine with its own encoder would. */
static size_t encode(TickreelBatch *batch, uint8_t **bytes, size_t *capacity) {
    size_t len = 0;
    TickreelResult r = tickreel_batch_bytes(batch, *bytes, *capacity, &len);
    if (r == TICKREEL_RESULT_BUFFER_TOO_SMALL) {
        free(*bytes);
        *capacity = len * 2;
        *bytes = malloc(*capacity);
        if (*bytes == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        r = tickreel_batch_bytes(batch, *bytes, *capacity, &len);
    }
    check(r, "tickreel_batch_bytes");
    return len;
}

/* Records live, as a server does: an engine with background threads, one recorder per
 * recording; each tick costs the server thread a copy and a queue push. Finishing compacts the
 * live directory into the final file on the engine's compaction worker. */
static void record_with_engine(const char *path) {
    TickreelEngineOptions *engine_options = NULL;
    CHECK(tickreel_engine_options_new(&engine_options));
    CHECK(tickreel_engine_options_set_writer_threads(engine_options, 2));
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(engine_options, &engine));
    CHECK(tickreel_engine_options_free(engine_options));

    TickreelRecorderOptions *options = NULL;
    CHECK(tickreel_recorder_options_new(&options));
    CHECK(tickreel_recorder_options_set_chunk_ticks(options, 40)); /* small chunks, so that seeking crosses several */
    CHECK(tickreel_recorder_options_set_compaction_chunk_ticks(options, 40));
    CHECK(tickreel_recorder_options_set_snapshot_interval(options, 80));
    CHECK(tickreel_recorder_options_set_timestamp_ms(options, 1700000000000));
    /* never drop here: every tick is checked */
    CHECK(tickreel_recorder_options_set_backpressure(options, TICKREEL_BACKPRESSURE_BLOCK));
    CHECK(tickreel_recorder_options_set_block_deadline(options, 5000));
    CHECK(tickreel_recorder_options_set_overwrite(options, true));
    TickreelRecorder *rec = NULL;
    CHECK(tickreel_recorder_start(engine, path, options, &rec));
    CHECK(tickreel_recorder_options_free(options));
    CHECK(tickreel_recorder_register_event_type(rec, CHAT_EVENT, "chat", 1));
    for (int p = 0; p < PLAYERS; p++) {
        CHECK(tickreel_recorder_register_entity(rec, (uint32_t)p + 1, PLAYER_KIND, NULL, NAMES[p]));
    }
    static const char world[] = "world snapshot v1";
    CHECK(tickreel_recorder_offer_snapshot(rec, (const uint8_t *)world, sizeof world - 1));

    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    uint8_t *bytes = NULL;
    size_t capacity = 0;
    for (uint32_t k = 0; k < TICKS; k++) {
        build_tick(batch, k);
        bool dropped = true;
        if (k % 3 == 0) {
            size_t len = encode(batch, &bytes, &capacity);
            CHECK(tickreel_recorder_submit_tick(rec, FIRST_TICK + k, bytes, len, &dropped));
        } else {
            CHECK(tickreel_recorder_submit_batch(rec, FIRST_TICK + k, batch, &dropped));
        }
        if (dropped) {
            fprintf(stderr, "tick %u was dropped\n", FIRST_TICK + k);
            failures++;
        }
        if (k > 0 && simulate(0, k - 1).alive && !simulate(0, k).alive) {
            CHECK(tickreel_recorder_player_left(rec, 1)); /* Alice left: make her part durable */
        }
        if (k == 59) {
            /* Mid-run: make everything so far durable (blocks; a server would do this from
             * another thread) and look at the counters. */
            CHECK(tickreel_recorder_flush(rec));
            TickreelRecorderStats stats;
            CHECK(tickreel_recorder_stats(rec, &stats));
            printf("engine: flushed through tick %u (%llu ticks submitted, %llu bytes written)\n",
                   stats.flushed_tick, (unsigned long long)stats.submitted_ticks,
                   (unsigned long long)stats.bytes_written);
            if (!stats.has_flushed_tick || stats.flushed_tick != FIRST_TICK + k ||
                stats.submitted_ticks != k + 1 || stats.dropped_ticks != 0) {
                fprintf(stderr, "unexpected recorder stats after the flush\n");
                failures++;
            }
        }
    }
    free(bytes);
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_recorder_status(rec)); /* the writer refused nothing */

    /* Finish: poll (as a server thread would, once per tick), then wait for the final path. */
    TickreelPending *finish = NULL;
    CHECK(tickreel_recorder_finish(rec, &finish));
    bool done = false;
    unsigned polls = 0;
    for (; polls < 1000 && !done; polls++) {
        CHECK(tickreel_pending_poll(finish, &done));
    }
    char final_path[4096];
    size_t len = 0;
    CHECK(tickreel_pending_wait(finish, -1, &done));
    CHECK(tickreel_pending_take_path(finish, final_path, sizeof final_path, &len));
    if (strcmp(final_path, path) != 0 || len != strlen(path)) {
        fprintf(stderr, "finished as %s, expected %s\n", final_path, path);
        failures++;
    }
    CHECK(tickreel_pending_free(finish));
    TickreelRecorderStats stats;
    CHECK(tickreel_recorder_stats(rec, &stats));
    CHECK(tickreel_recorder_free(rec));
    TickreelEngineStats engine_stats;
    CHECK(tickreel_engine_stats(engine, &engine_stats));
    /* Flushes (a group commit: two syncs) and the compacted file were made durable. */
    if (engine_stats.compactions_done != 1 || engine_stats.active_recordings != 0 ||
        engine_stats.syncs < 2) {
        fprintf(stderr, "unexpected engine stats: %llu compactions, %zu active, %llu syncs\n",
                (unsigned long long)engine_stats.compactions_done, engine_stats.active_recordings,
                (unsigned long long)engine_stats.syncs);
        failures++;
    }
    CHECK(tickreel_engine_free(engine)); /* joins the engine's threads */
    printf("engine: recorded %llu ticks of %d players into %s (%llu flushes, finished after %u "
           "polls)\n",
           (unsigned long long)stats.submitted_ticks, PLAYERS, final_path,
           (unsigned long long)stats.flushes, polls);
}

/* --- playback ------------------------------------------------------------------------------ */

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

    /* The metadata: an NBT root compound (tag 10), with the registered players' names. */
    size_t meta_len = 0;
    if (tickreel_reader_metadata(reader, NULL, 0, &meta_len) != TICKREEL_RESULT_BUFFER_TOO_SMALL) {
        fprintf(stderr, "metadata length query failed: %s\n", tickreel_last_error_message());
        failures++;
    }
    uint8_t *meta = malloc(meta_len);
    if (meta == NULL) {
        fprintf(stderr, "out of memory\n");
        failures++;
    } else {
        CHECK(tickreel_reader_metadata(reader, meta, meta_len, &meta_len));
        if (meta_len == 0 || meta[0] != 10) {
            fprintf(stderr, "metadata is not an NBT compound\n");
            failures++;
        }
        printf("metadata: %zu bytes of NBT\n", meta_len);
        free(meta);
    }

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

/* --- ghost racing --------------------------------------------------------------------------- */

#define FRAMES_PER_TICK 3 /* 60 Hz frames at 20 ticks/s */
#define BOB 2u            /* entity id of player 1 */
#define CAROL 3u          /* entity id of player 2, who teleports at +60 */

/* Bob's lap from checkpoint 1 (tick +40) to checkpoint 2 (tick +80): loaded as a ghost, sampled
 * at 60 Hz and compared with the simulation and with the recorded poses; then a live player
 * trailing it by 5 ticks gets a live delta of +0.25 s. Carol's ghost, loaded in the background,
 * holds its pose up to her teleport instead of sliding across it. */
static void race_ghost(const char *path) {
    const double pos = 0.5 / 4096.0 + 1e-9, angle = 0.5 * 360.0 / 65536.0 + 1e-9;
    TickreelGhostRange lap = {TICKREEL_GHOST_BOUND_CHECKPOINT, 1, TICKREEL_GHOST_BOUND_CHECKPOINT,
                              2};
    TickreelGhost *ghost = NULL;
    CHECK(tickreel_ghost_load(path, BOB, &lap, &ghost));
    TickreelGhostInfo info;
    CHECK(tickreel_ghost_info(ghost, &info));
    TickreelSplit splits[4];
    size_t split_count = 0;
    CHECK(tickreel_ghost_splits(ghost, splits, 4, &split_count));
    printf("ghost: %s's lap from tick %u, %u ticks (%.2f s), %zu samples, splits:", NAMES[BOB - 1],
           info.origin_tick, info.duration_ticks, info.duration_seconds, info.sample_count);
    for (size_t i = 0; i < split_count; i++) {
        printf(" #%u at +%u", splits[i].checkpoint, splits[i].tick);
    }
    printf("\n");
    if (info.entity != BOB || info.origin_tick != FIRST_TICK + 40 || info.duration_ticks != 40 ||
        info.tick_rate != 20.0 || split_count != info.split_count || split_count != 2 ||
        splits[0].checkpoint != 1 || splits[0].tick != 0 || splits[1].checkpoint != 2 ||
        splits[1].tick != 40) {
        fprintf(stderr, "unexpected ghost info\n");
        failures++;
    }

    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    TickreelGhostCursor *cursor = NULL;
    CHECK(tickreel_ghost_cursor_new(ghost, &cursor));
    unsigned frames = info.duration_ticks * FRAMES_PER_TICK;
    for (unsigned f = 0; f <= frames; f++) {
        double t = (double)f / FRAMES_PER_TICK;
        TickreelGhostSample g;
        CHECK(tickreel_ghost_cursor_sample(cursor, t, &g));
        uint32_t k = 40 + f / FRAMES_PER_TICK; /* the recorded tick at or before t */
        uint32_t want_state = f == frames ? TICKREEL_GHOST_FINISHED : TICKREEL_GHOST_RUNNING;
        if (g.state != want_state) {
            fprintf(stderr, "frame %u: ghost state %u, expected %u\n", f, g.state, want_state);
            failures++;
        }
        Player a = simulate(1, k);
        if (f % FRAMES_PER_TICK == 0) {
            /* At a recorded tick the ghost is exactly where the recording says. */
            expect_close(g.x, a.x, pos, "ghost x", k, BOB);
            expect_close(g.y, a.y, pos, "ghost y", k, BOB);
            expect_close(g.z, a.z, pos, "ghost z", k, BOB);
            expect_close(g.yaw, a.yaw, angle, "ghost yaw", k, BOB);
            expect_close(g.pitch, a.pitch, angle, "ghost pitch", k, BOB);
            if (g.flags != a.flags) {
                fprintf(stderr, "tick +%u: ghost flags 0x%x, expected 0x%x\n", k, g.flags, a.flags);
                failures++;
            }
            TickreelEntityState states[PLAYERS];
            size_t count = 0;
            CHECK(tickreel_reader_seek(reader, FIRST_TICK + k, states, PLAYERS, &count, NULL));
            for (size_t i = 0; i < count; i++) {
                if (states[i].id == BOB &&
                    (states[i].x != g.x || states[i].y != g.y || states[i].z != g.z ||
                     states[i].yaw != g.yaw || states[i].pitch != g.pitch)) {
                    fprintf(stderr, "tick +%u: ghost (%.6f, %.6f) differs from the recorded pose "
                            "(%.6f, %.6f)\n", k, g.x, g.z, states[i].x, states[i].z);
                    failures++;
                }
            }
        } else {
            /* Between ticks: on the curve between the two recorded poses (no overshoot). */
            Player b = simulate(1, k + 1);
            if (g.x < fmin(a.x, b.x) - pos || g.x > fmax(a.x, b.x) + pos ||
                g.z < fmin(a.z, b.z) - pos || g.z > fmax(a.z, b.z) + pos) {
                fprintf(stderr, "frame %u: ghost at (%.4f, %.4f) outside (%.4f, %.4f)-(%.4f, %.4f)\n",
                        f, g.x, g.z, a.x, a.z, b.x, b.z);
                failures++;
            }
        }
    }
    printf("ghost: sampled %u frames at 60 Hz\n", frames + 1);

    /* A live player running the same lap 5 ticks behind the ghost. */
    TickreelLiveDelta *delta = NULL;
    CHECK(tickreel_live_delta_new(ghost, &delta));
    CHECK(tickreel_ghost_free(ghost)); /* the cursor and the delta keep the track alive */
    double seconds = 0;
    for (uint32_t live = 5; live <= 35; live++) {
        Player me = simulate(1, 40 + live - 5);
        CHECK(tickreel_live_delta_update(delta, live, me.x, me.y, me.z, &seconds));
        if (live >= 10 && fabs(seconds - 0.25) > 0.021) {
            fprintf(stderr, "live tick %u: delta %+.3f s, expected +0.25 s\n", live, seconds);
            failures++;
        }
    }
    printf("ghost: live player trailing by 5 ticks: %+.2f s\n", seconds);
    CHECK(tickreel_live_delta_free(delta));
    CHECK(tickreel_ghost_cursor_free(cursor));

    /* Carol, loaded without blocking: poll the load as a server thread would, once per tick. */
    TickreelPending *load = NULL;
    CHECK(tickreel_ghost_load_async(path, CAROL, NULL, &load));
    bool ready = false;
    unsigned polls = 0;
    while (!ready) {
        CHECK(tickreel_pending_poll(load, &ready));
        if (!ready) {
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
            polls++;
        }
    }
    CHECK(tickreel_pending_take_ghost(load, &ghost));
    CHECK(tickreel_pending_free(load));
    CHECK(tickreel_ghost_cursor_new(ghost, &cursor));
    TickreelGhostSample before, held, after;
    CHECK(tickreel_ghost_cursor_sample(cursor, 59.0, &before));
    CHECK(tickreel_ghost_cursor_sample(cursor, 59.5, &held));
    CHECK(tickreel_ghost_cursor_sample(cursor, 60.0, &after));
    Player jump = simulate(2, 60);
    if (held.x != before.x || held.z != before.z || fabs(after.x - jump.x) > pos ||
        fabs(after.z - jump.z) > pos) {
        fprintf(stderr, "teleport: ghost at (%.3f, %.3f) / (%.3f, %.3f) / (%.3f, %.3f)\n", before.x,
                before.z, held.x, held.z, after.x, after.z);
        failures++;
    }
    printf("ghost: %s loaded in the background after %u polls; holds (%.1f, %.1f) until her "
           "teleport to (%.1f, %.1f)\n",
           NAMES[CAROL - 1], polls, held.x, held.z, after.x, after.z);
    CHECK(tickreel_ghost_cursor_free(cursor));
    CHECK(tickreel_ghost_free(ghost));
    CHECK(tickreel_reader_free(reader));
}

/* --- playhead ------------------------------------------------------------------------------- */

/* Plays the file with a playhead, once per "server tick": 2x forward to the end, then 2x in
 * reverse back to the start, checking every position and state; the final state must equal
 * tickreel_reader_seek at that tick. */
static void play(const char *path) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    uint32_t first = 0, last = 0;
    CHECK(tickreel_reader_first_tick(reader, &first));
    CHECK(tickreel_reader_last_tick(reader, &last));

    TickreelPlayhead *playhead = NULL;
    CHECK(tickreel_playhead_open(path, first, &playhead));
    CHECK(tickreel_playhead_set_speed(playhead, 2.0));
    CHECK(tickreel_playhead_play(playhead));
    TickreelEntityState frame[PLAYERS];
    size_t count = 0;
    uint32_t pos = first, calls = 0;
    TickreelUpdate u;
    while (pos < last && calls++ < 2 * TICKS) {
        /* A server would not wait; the example does, so that no advance stalls. */
        CHECK(tickreel_playhead_prepare(playhead));
        CHECK(tickreel_playhead_advance(playhead, &u));
        uint32_t want = pos + 2 < last ? pos + 2 : last;
        if (u.position != want || u.motion != TICKREEL_MOTION_FORWARD ||
            u.ticks_covered != want - pos || u.stalled || u.at_edge != (want == last)) {
            fprintf(stderr, "forward from %u: at %u (motion %u, %u ticks, stalled %d, edge %d)\n",
                    pos, u.position, u.motion, u.ticks_covered, u.stalled, u.at_edge);
            failures++;
        }
        /* The ticks the update covered, each with its events: (BE tick, BE length, batch). */
        uint8_t events[4096];
        size_t events_len = 0;
        CHECK(tickreel_playhead_ticks(playhead, events, sizeof events, &events_len));
        uint32_t covered = 0;
        for (size_t at = 0; at + 8 <= events_len; covered++) {
            uint32_t tick = (uint32_t)events[at] << 24 | (uint32_t)events[at + 1] << 16 |
                            (uint32_t)events[at + 2] << 8 | events[at + 3];
            uint32_t n = (uint32_t)events[at + 4] << 24 | (uint32_t)events[at + 5] << 16 |
                         (uint32_t)events[at + 6] << 8 | events[at + 7];
            if (tick != pos + 1 + covered) {
                fprintf(stderr, "forward from %u: tick %u in the events\n", pos, tick);
                failures++;
            }
            at += 8 + n;
        }
        if (covered != u.ticks_covered) {
            fprintf(stderr, "forward from %u: %u ticks of events, update said %u\n", pos, covered,
                    u.ticks_covered);
            failures++;
        }
        pos = u.position;
        CHECK(tickreel_playhead_entities(playhead, frame, PLAYERS, &count));
        if (count != u.entity_count) {
            fprintf(stderr, "tick %u: %zu entities, update said %u\n", pos, count, u.entity_count);
            failures++;
        }
        check_states(frame, count, pos - FIRST_TICK);
    }
    printf("playhead: 2x forward reached tick %u in %u calls\n", pos, calls);

    CHECK(tickreel_playhead_set_reverse(playhead, true));
    calls = 0;
    while (pos > first && calls++ < 2 * TICKS) {
        CHECK(tickreel_playhead_prepare(playhead));
        CHECK(tickreel_playhead_advance(playhead, &u));
        uint32_t want = pos - first > 2 ? pos - 2 : first;
        if (u.position != want || u.motion != TICKREEL_MOTION_JUMP || u.stalled) {
            fprintf(stderr, "reverse from %u: at %u (motion %u, stalled %d)\n", pos, u.position,
                    u.motion, u.stalled);
            failures++;
        }
        pos = u.position;
        CHECK(tickreel_playhead_entities(playhead, frame, PLAYERS, &count));
        check_states(frame, count, pos - FIRST_TICK);
    }
    /* One more advance at the first tick stays there. */
    CHECK(tickreel_playhead_advance(playhead, &u));
    uint32_t at_pos = 0;
    CHECK(tickreel_playhead_position(playhead, &at_pos));
    if (u.motion != TICKREEL_MOTION_STILL || !u.at_edge || at_pos != first) {
        fprintf(stderr, "at the start: motion %u, edge %d, position %u\n", u.motion, u.at_edge,
                at_pos);
        failures++;
    }
    printf("playhead: 2x reverse back to tick %u in %u calls\n", at_pos, calls);

    /* Step forward, seek into the middle, step back: the state equals the reader's there. */
    CHECK(tickreel_playhead_pause(playhead));
    CHECK(tickreel_playhead_step_forward(playhead, &u));
    CHECK(tickreel_playhead_seek(playhead, FIRST_TICK + 90, &u));
    CHECK(tickreel_playhead_step_back(playhead, &u));
    CHECK(tickreel_playhead_position(playhead, &at_pos));
    CHECK(tickreel_playhead_entities(playhead, frame, PLAYERS, &count));
    TickreelEntityState want[PLAYERS];
    size_t want_count = 0;
    uint32_t at = 0;
    CHECK(tickreel_reader_seek(reader, at_pos, want, PLAYERS, &want_count, &at));
    int same = at_pos == FIRST_TICK + 89 && count == want_count;
    for (size_t i = 0; same && i < count; i++) {
        /* Field by field: the struct has padding, which memcmp would compare too. */
        same = frame[i].id == want[i].id && frame[i].kind == want[i].kind &&
               frame[i].flags == want[i].flags && frame[i].x == want[i].x &&
               frame[i].y == want[i].y && frame[i].z == want[i].z &&
               frame[i].yaw == want[i].yaw && frame[i].pitch == want[i].pitch;
    }
    if (!same) {
        fprintf(stderr, "playhead at %u (%zu entities) differs from the reader (%zu)\n", at_pos,
                count, want_count);
        failures++;
    }
    printf("playhead: at tick %u the %zu entities equal tickreel_reader_seek's\n", at_pos, count);
    CHECK(tickreel_playhead_free(playhead));
    CHECK(tickreel_reader_free(reader));
}

/* --- shadow play ---------------------------------------------------------------------------- */

#define SHADOW_TICKS 300u
#define SHADOW_LEAVE 250u /* Alice leaves at +250 */

/* Where player p (0 Alice, 1 Bob, 2 Carol) stands k ticks into the shadowed world: Alice and Bob
 * walk side by side, Carol stays 1000 blocks away. */
static Player shadow_player(int p, uint32_t k) {
    Player s = {0};
    s.alive = p != 0 || k < SHADOW_LEAVE;
    s.x = p == 2 ? 1000.0 : 10.0 + 0.1 * k;
    s.y = 64.0;
    s.z = p == 2 ? 1000.0 : 5.0 * p;
    s.yaw = 90.0;
    return s;
}

/* Checks a report read back with the C reader: its tick range, and at `tick` who is there
 * (`want` entities, ids in `ids`) and where. */
static void check_report(const char *path, uint32_t first, uint32_t last, uint32_t tick,
                         size_t want, const uint32_t *ids) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    uint32_t got_first = 0, got_last = 0;
    CHECK(tickreel_reader_first_tick(reader, &got_first));
    CHECK(tickreel_reader_last_tick(reader, &got_last));
    CHECK(tickreel_reader_verify(reader, NULL));
    TickreelEntityState states[PLAYERS];
    size_t count = 0;
    CHECK(tickreel_reader_seek(reader, tick, states, PLAYERS, &count, NULL));
    printf("shadow: %s holds ticks %u..%u, %zu entities at tick %u\n", path, got_first, got_last,
           count, tick);
    if (got_first != first || got_last != last || count != want) {
        fprintf(stderr, "report %s: ticks %u..%u with %zu entities, expected %u..%u with %zu\n",
                path, got_first, got_last, count, first, last, want);
        failures++;
    }
    const double pos = 0.5 / 4096.0 + 1e-9;
    for (size_t i = 0; i < count && i < want; i++) {
        Player p = shadow_player((int)ids[i] - 1, tick - FIRST_TICK);
        if (states[i].id != ids[i]) {
            fprintf(stderr, "report %s: entity %u, expected %u\n", path, states[i].id, ids[i]);
            failures++;
        }
        expect_close(states[i].x, p.x, pos, "shadow x", tick - FIRST_TICK, ids[i]);
        expect_close(states[i].z, p.z, pos, "shadow z", tick - FIRST_TICK, ids[i]);
    }
    CHECK(tickreel_reader_free(reader));
}

/* Shadow play: a world streamed into memory only (no recording), its last 10 s always kept; a
 * player is reported (the window around them, with whoever came within 48 blocks, written to a
 * file on the engine's background worker), and so is one who left, within the grace period. */
static void shadow_play(const char *dir) {
    TickreelEngineOptions *engine_options = NULL;
    CHECK(tickreel_engine_options_new(&engine_options));
    /* every shadow buffer of the engine */
    CHECK(tickreel_engine_options_set_shadow_budget_bytes(engine_options, 16u << 20));
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(engine_options, &engine));
    CHECK(tickreel_engine_options_free(engine_options));

    TickreelShadowOptions *shadow_options = NULL;
    CHECK(tickreel_shadow_options_new(&shadow_options));
    CHECK(tickreel_shadow_options_set_window(shadow_options, 10000)); /* 200 ticks at 20 ticks/s */
    CHECK(tickreel_shadow_options_set_block_ticks(shadow_options, 40));
    TickreelRecorder *rec = NULL;
    TickreelShadowBuffer *shadow = NULL;
    /* NULL path: the stream is written nowhere but the buffer. */
    CHECK(tickreel_shadow_buffer_start(engine, NULL, NULL, shadow_options, &rec, &shadow));
    CHECK(tickreel_shadow_options_free(shadow_options));
    for (int p = 0; p < 3; p++) {
        CHECK(tickreel_recorder_register_entity(rec, (uint32_t)p + 1, PLAYER_KIND, NULL, NAMES[p]));
    }
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t k = 0; k < SHADOW_TICKS; k++) {
        CHECK(tickreel_batch_clear(batch));
        for (int p = 0; p < 3; p++) {
            Player now = shadow_player(p, k);
            uint32_t id = (uint32_t)p + 1;
            if (k == 0) {
                CHECK(tickreel_batch_entity_add(batch, id, PLAYER_KIND, now.x, now.y, now.z,
                                                now.yaw, now.pitch));
            } else if (p == 0 && k == SHADOW_LEAVE) {
                CHECK(tickreel_batch_player_leave(batch, id));
            } else if (now.alive && p != 2) {
                CHECK(tickreel_batch_pose(batch, id, now.x, now.y, now.z, now.yaw, now.pitch));
            }
        }
        CHECK(tickreel_recorder_submit_batch(rec, FIRST_TICK + k, batch, NULL));
        if (k == SHADOW_LEAVE) {
            CHECK(tickreel_recorder_player_left(rec, 1)); /* starts Alice's grace period */
        }
    }
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_recorder_flush(rec)); /* the report's reference: the last tick submitted */

    TickreelShadowStats stats;
    CHECK(tickreel_shadow_buffer_stats(shadow, &stats));
    TickreelEngineStats engine_stats;
    CHECK(tickreel_engine_stats(engine, &engine_stats));
    printf("shadow: %zu blocks, %zu bytes, ticks %u..%u, %zu alive, %zu departed (engine: %zu "
           "bytes)\n",
           stats.blocks, stats.bytes, stats.first_tick, stats.last_tick, stats.alive_entities,
           stats.departed_players, engine_stats.shadow_bytes);
    if (!stats.has_last_tick || stats.last_tick != FIRST_TICK + SHADOW_TICKS - 1 ||
        !stats.has_first_tick || stats.first_tick > FIRST_TICK + SHADOW_TICKS - 200 ||
        stats.alive_entities != 2 || stats.departed_players != 1 || stats.bytes == 0 ||
        engine_stats.shadow_bytes != stats.bytes) {
        fprintf(stderr, "unexpected shadow stats\n");
        failures++;
    }

    /* Report Bob now (after 0: nothing more to capture), with the reporter's reason. */
    TickreelReportOptions *report_options = NULL;
    CHECK(tickreel_report_options_new(&report_options));
    CHECK(tickreel_report_options_set_after(report_options, 0));
    const char *keys[] = {"reporter", "reason"};
    const char *values[] = {"Dave", "speed"};
    char bob_path[4096], alice_path[4096], got[4096];
    snprintf(bob_path, sizeof bob_path, "%s/report_bob.reel", dir);
    snprintf(alice_path, sizeof alice_path, "%s/report_alice.reel", dir);
    TickreelPending *bob = NULL, *alice = NULL;
    CHECK(tickreel_shadow_buffer_report(shadow, 2, bob_path, report_options, keys, values, 2, &bob));
    /* Alice left 50 ticks ago: her report holds the window before her leave. */
    CHECK(tickreel_shadow_buffer_report(shadow, 1, alice_path, report_options, NULL, NULL, 0, &alice));
    CHECK(tickreel_report_options_free(report_options));
    CHECK(tickreel_pending_wait(bob, -1, NULL));
    CHECK(tickreel_pending_take_path(bob, got, sizeof got, NULL));
    if (strcmp(got, bob_path) != 0) {
        fprintf(stderr, "report written to %s, expected %s\n", got, bob_path);
        failures++;
    }
    CHECK(tickreel_pending_wait(alice, -1, NULL));
    CHECK(tickreel_pending_free(bob));
    CHECK(tickreel_pending_free(alice));
    uint32_t last = FIRST_TICK + SHADOW_TICKS - 1;
    /* Bob's: the last 200 ticks; at the end only Bob is there (Alice left, Carol is far). */
    const uint32_t bob_only[] = {2};
    check_report(bob_path, last - 199, last, last, 1, bob_only);
    const uint32_t alice_bob[] = {1, 2};
    check_report(bob_path, last - 199, last, FIRST_TICK + 200, 2, alice_bob);
    /* Alice's: 200 ticks before her leave, through the report. */
    check_report(alice_path, FIRST_TICK + SHADOW_LEAVE - 199, last, FIRST_TICK + SHADOW_LEAVE - 1,
                 2, alice_bob);

    /* A stream without a file has nothing to finish: free (or abort) the recorder to end it. */
    TickreelPending *none = NULL;
    if (tickreel_recorder_finish(rec, &none) != TICKREEL_RESULT_INVALID_STATE || none != NULL) {
        fprintf(stderr, "finishing a stream without a file was not refused\n");
        failures++;
    }
    CHECK(tickreel_recorder_free(rec));
    CHECK(tickreel_shadow_buffer_free(shadow));
    CHECK(tickreel_engine_free(engine));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096], writer_path[4096];
    if (snprintf(path, sizeof path, "%s/record_replay.reel", dir) >= (int)sizeof path ||
        snprintf(writer_path, sizeof writer_path, "%s/record_replay_writer.reel", dir) >=
            (int)sizeof writer_path) {
        fprintf(stderr, "output path too long\n");
        return 2;
    }
    printf("tickreel %s\n", tickreel_version());
    record_with_engine(path);
    replay(path);
    record_with_writer(writer_path);
    replay(writer_path);
    race_ghost(path);
    play(path);
    shadow_play(dir);
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
