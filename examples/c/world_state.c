/*
 * world_state.c: the world at a tick from C, without parsing anything. Writes a recording whose
 * world events place a sign (with its NBT), change it to stone, place a second block, set a
 * player's health and put a sword in their hand; then reads the world at a tick
 * (tickreel_reader_world_at: blocks, a block lookup with the sign's NBT, block entities, entities,
 * equipment), seeks a playhead forward and back and checks each update's world changes
 * (tickreel_playhead_world_changes: before and after of each block, health and slot), and takes
 * the playhead's world (tickreel_playhead_world_state). Then records a shadow-play stream in which
 * the player (registered with a UUID) and someone far away chat and break blocks, and reports the
 * player by UUID twice: with the default keeping (only what is near the player) and with
 * keep_all_blocks and TICKREEL_REPORT_CHAT_ALL.
 *
 *   world_state [OUTPUT_DIR]      (default: the current directory)
 */
#define EXAMPLE_NAME "world_state"
#include "example_util.h"

#include <stdbool.h>
#include <string.h>

#define STONE 1u
#define SIGN 7u
#define GLASS 9u
#define SWORD 3u

static const uint8_t SIGN_NBT[] = {10, 0, 0, 8, 0, 4, 't', 'e', 'x', 't', 0, 2, 'h', 'i', 0};

/* Ticks 0..59 of player 1: the sign at tick 10, health 2000 at 5 and 1500 at 35, the sword at 20,
 * the sign turned to stone at 30, glass at tick 40. */
static void write_file(const char *path) {
    TickreelReelOptions *options = NULL;
    CHECK(tickreel_reel_options_new(&options));
    CHECK(tickreel_reel_options_set_chunk_ticks(options, 10));
    CHECK(tickreel_reel_options_set_snapshot_interval(options, 20));
    TickreelReelWriter *writer = NULL;
    CHECK(tickreel_reel_writer_create(path, options, &writer));
    CHECK(tickreel_reel_options_free(options));
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_BLOCK, SIGN, "minecraft:oak_sign"));
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t t = 0; t < 60; t++) {
        CHECK(tickreel_batch_clear(batch));
        double x = t * 0.1;
        if (t == 0) {
            CHECK(tickreel_batch_entity_add(batch, 1, 147, x, 64.0, 0.0, 0.0, 0.0));
        } else {
            CHECK(tickreel_batch_pose(batch, 1, x, 64.0, 0.0, 0.0, 0.0));
        }
        if (t == 5) CHECK(tickreel_batch_health(batch, 1, 2000));
        if (t == 10) CHECK(tickreel_batch_block_change(batch, 1, 64, -2, SIGN, true, 1, SIGN_NBT, sizeof SIGN_NBT));
        if (t == 20) CHECK(tickreel_batch_equipment(batch, 1, TICKREEL_SLOT_MAIN_HAND, SWORD, 1));
        if (t == 30) CHECK(tickreel_batch_block_change(batch, 1, 64, -2, STONE, true, 1, NULL, 0));
        if (t == 35) CHECK(tickreel_batch_health(batch, 1, 1500));
        if (t == 40) CHECK(tickreel_batch_block_change(batch, -3, 70, 9, GLASS, false, 0, NULL, 0));
        CHECK(tickreel_reel_writer_write_batch(writer, t, batch));
    }
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_reel_writer_finish(writer, NULL));
    CHECK(tickreel_reel_writer_free(writer));
}

static void world_at(const char *path) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    TickreelWorldState *world = NULL;
    CHECK(tickreel_reader_world_at(reader, 25, &world));
    TickreelWorldStateInfo info;
    CHECK(tickreel_world_state_info(world, &info));
    printf("world at tick %u: %zu blocks, %zu block entities, %zu entities, %zu slots%s\n", info.tick,
           info.block_count, info.block_entity_count, info.entity_count, info.equipment_count,
           info.complete ? "" : " (incomplete)");
    expect(info.tick == 25 && info.complete && info.block_count == 1 && info.block_entity_count == 1,
           "the sign and its block entity at tick 25");

    size_t count = 0;
    expect(tickreel_world_state_blocks(world, NULL, 0, &count) == TICKREEL_RESULT_BUFFER_TOO_SMALL && count == 1,
           "a count query: one edited block");
    TickreelBlockState blocks[4];
    CHECK(tickreel_world_state_blocks(world, blocks, 4, &count));
    char name[64];
    CHECK(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_BLOCK, blocks[0].state, name, sizeof name, NULL));
    printf("  block (%d, %d, %d) = %u (%s)\n", blocks[0].x, blocks[0].y, blocks[0].z, blocks[0].state, name);
    expect(blocks[0].x == 1 && blocks[0].y == 64 && blocks[0].z == -2 && strcmp(name, "minecraft:oak_sign") == 0,
           "the sign, named by the palette");

    TickreelBlockAt at;
    CHECK(tickreel_world_state_block(world, 1, 64, -2, &at));
    expect(at.edited && at.state == SIGN && at.block_entity_len == sizeof SIGN_NBT &&
               memcmp(at.block_entity, SIGN_NBT, sizeof SIGN_NBT) == 0,
           "a lookup gives the sign's state and NBT");
    CHECK(tickreel_world_state_block(world, 0, 0, 0, &at));
    expect(!at.edited && at.block_entity == NULL, "a block no event touched is not edited");
    TickreelBlockEntity entities_nbt[1];
    CHECK(tickreel_world_state_block_entities(world, entities_nbt, 1, &count));
    expect(count == 1 && entities_nbt[0].z == -2 && entities_nbt[0].data_len == sizeof SIGN_NBT,
           "the block entity list");

    TickreelEntityWorld entities[2];
    CHECK(tickreel_world_state_entities(world, entities, 2, &count));
    expect(count == 1 && entities[0].entity == 1 && entities[0].has_health && entities[0].health == 2000 &&
               entities[0].equipment_count == 1,
           "the player's health and one slot");
    TickreelEquipment slots[1];
    CHECK(tickreel_world_state_equipment(world, slots, 1, &count));
    expect(count == 1 && slots[0].slot == TICKREEL_SLOT_MAIN_HAND && slots[0].item == SWORD && slots[0].count == 1,
           "the sword in the main hand");
    expect(tickreel_world_state_info(world, NULL) == TICKREEL_RESULT_NULL_ARGUMENT, "a NULL out-pointer is refused");
    CHECK(tickreel_world_state_free(world));
    expect(tickreel_world_state_info(world, &info) == TICKREEL_RESULT_INVALID_HANDLE, "a freed world state is refused");
    CHECK(tickreel_reader_free(reader));
}

/* The last update's world changes, into `changes` (room for 8). */
static size_t world_changes(TickreelPlayhead *playhead, TickreelWorldChange *changes) {
    size_t count = 0;
    TickreelResult r = tickreel_playhead_world_changes(playhead, changes, 8, &count);
    expect(r == TICKREEL_RESULT_OK, "the world changes fit");
    return count;
}

static const TickreelWorldChange *find(const TickreelWorldChange *c, size_t n, uint32_t kind, int32_t x) {
    for (size_t i = 0; i < n; i++) {
        if (c[i].kind == kind && (kind != TICKREEL_WORLD_CHANGE_BLOCK || c[i].x == x)) return &c[i];
    }
    return NULL;
}

static void seek(const char *path) {
    TickreelPlayhead *playhead = NULL;
    CHECK(tickreel_playhead_open(path, 0, &playhead));
    TickreelUpdate update;
    TickreelWorldChange changes[8];
    CHECK(tickreel_playhead_seek(playhead, 45, &update));
    size_t n = world_changes(playhead, changes);
    printf("seek 0 -> 45: %zu world changes\n", n);
    const TickreelWorldChange *glass = find(changes, n, TICKREEL_WORLD_CHANGE_BLOCK, -3);
    const TickreelWorldChange *sign = find(changes, n, TICKREEL_WORLD_CHANGE_BLOCK, 1);
    const TickreelWorldChange *health = find(changes, n, TICKREEL_WORLD_CHANGE_HEALTH, 0);
    const TickreelWorldChange *slot = find(changes, n, TICKREEL_WORLD_CHANGE_EQUIPMENT, 0);
    expect(n == 4 && glass && !glass->has_before && glass->has_after && glass->after == GLASS,
           "the glass appears");
    expect(sign && !sign->has_before && sign->after == STONE, "the sign's place is stone");
    expect(health && !health->has_before && health->after == 1500, "health 1500");
    expect(slot && slot->slot == TICKREEL_SLOT_MAIN_HAND && slot->after == SWORD && slot->after_count == 1,
           "the sword");

    CHECK(tickreel_playhead_seek(playhead, 25, &update));
    n = world_changes(playhead, changes);
    printf("seek 45 -> 25: %zu world changes\n", n);
    glass = find(changes, n, TICKREEL_WORLD_CHANGE_BLOCK, -3);
    sign = find(changes, n, TICKREEL_WORLD_CHANGE_BLOCK, 1);
    health = find(changes, n, TICKREEL_WORLD_CHANGE_HEALTH, 0);
    expect(glass && glass->has_before && glass->before == GLASS && !glass->has_after,
           "back before tick 40 the glass is no longer edited");
    expect(sign && sign->before == STONE && sign->after == SIGN, "the sign is back");
    expect(health && health->before == 1500 && health->after == 2000, "health back to 2000");

    TickreelWorldState *world = NULL;
    CHECK(tickreel_playhead_world_state(playhead, &world));
    TickreelWorldStateInfo info;
    CHECK(tickreel_world_state_info(world, &info));
    TickreelBlockAt at;
    CHECK(tickreel_world_state_block(world, 1, 64, -2, &at));
    expect(info.tick == 25 && info.block_count == 1 && at.state == SIGN && at.block_entity_len == sizeof SIGN_NBT,
           "the playhead's world at 25 has the sign");
    CHECK(tickreel_world_state_free(world));
    size_t small = 0;
    expect(tickreel_playhead_world_changes(playhead, changes, 1, &small) == TICKREEL_RESULT_BUFFER_TOO_SMALL &&
               small == n,
           "too small a buffer gets the count");
    CHECK(tickreel_playhead_free(playhead));
}

/* What a report holds: chat lines and block changes, counted from its typed events. */
static void report_contents(const char *path, size_t *chat, size_t *blocks) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    uint32_t first = 0, last = 0;
    CHECK(tickreel_reader_first_tick(reader, &first));
    CHECK(tickreel_reader_last_tick(reader, &last));
    size_t len = 0;
    tickreel_reader_ticks(reader, first, last, NULL, 0, &len);
    uint8_t *buf = malloc(len ? len : 1);
    CHECK(tickreel_reader_ticks(reader, first, last, buf, len, &len));
    TickreelEvents *events = NULL;
    CHECK(tickreel_events_decode(buf, len, &events));
    size_t count = 0;
    CHECK(tickreel_events_count(events, &count));
    *chat = *blocks = 0;
    for (size_t i = 0; i < count; i++) {
        TickreelEvent e;
        CHECK(tickreel_events_get(events, i, &e));
        if (e.kind == TICKREEL_EVENT_CHAT) (*chat)++;
        if (e.kind == TICKREEL_EVENT_BLOCK_CHANGE) (*blocks)++;
    }
    CHECK(tickreel_events_free(events));
    free(buf);
    CHECK(tickreel_reader_free(reader));
}

static void report_by_uuid(const char *dir) {
    static const uint8_t UUID[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                     0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
    TickreelEngine *engine = NULL;
    CHECK(tickreel_engine_new(NULL, &engine));
    TickreelRecorder *recorder = NULL;
    TickreelShadowBuffer *shadow = NULL;
    CHECK(tickreel_shadow_buffer_start(engine, NULL, NULL, NULL, &recorder, &shadow));
    CHECK(tickreel_recorder_register_entity(recorder, 1, 147, UUID, "Steve"));
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t t = 0; t < 40; t++) {
        CHECK(tickreel_batch_clear(batch));
        if (t == 0) {
            CHECK(tickreel_batch_entity_add(batch, 1, 147, 0.0, 64.0, 0.0, 0.0, 0.0));
            CHECK(tickreel_batch_entity_add(batch, 2, 147, 0.0, 64.0, 500.0, 0.0, 0.0));
        } else {
            CHECK(tickreel_batch_pose(batch, 1, t * 0.1, 64.0, 0.0, 0.0, 0.0));
            CHECK(tickreel_batch_pose(batch, 2, t * 0.1, 64.0, 500.0, 0.0, 0.0));
        }
        if (t == 20) {
            CHECK(tickreel_batch_chat(batch, true, 1, TICKREEL_CHANNEL_PRIVATE, "psst"));
            CHECK(tickreel_batch_chat(batch, true, 2, TICKREEL_CHANNEL_PRIVATE, "not for staff"));
            CHECK(tickreel_batch_block_change(batch, 2, 63, 1, STONE, true, 1, NULL, 0));
            CHECK(tickreel_batch_block_change(batch, 2, 63, 501, STONE, true, 2, NULL, 0));
        }
        CHECK(tickreel_recorder_submit_batch(recorder, t, batch, NULL));
    }
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_recorder_flush(recorder));

    TickreelReportOptions *options = NULL;
    CHECK(tickreel_report_options_new(&options)); /* keeps the chat and blocks near the player */
    CHECK(tickreel_report_options_set_after(options, 0));
    char near[4096], all[4096];
    snprintf(near, sizeof near, "%s/near.reel", dir);
    snprintf(all, sizeof all, "%s/all.reel", dir);
    TickreelPending *finish = NULL;
    CHECK(tickreel_shadow_buffer_report_uuid(shadow, UUID, near, options, NULL, NULL, 0, &finish));
    CHECK(tickreel_pending_wait(finish, -1, NULL));
    CHECK(tickreel_pending_free(finish));
    CHECK(tickreel_report_options_set_keep_all_blocks(options, true));
    CHECK(tickreel_report_options_set_chat(options, TICKREEL_REPORT_CHAT_ALL));
    CHECK(tickreel_shadow_buffer_report_uuid(shadow, UUID, all, options, NULL, NULL, 0, &finish));
    CHECK(tickreel_pending_wait(finish, -1, NULL));
    CHECK(tickreel_pending_free(finish));
    size_t chat = 0, blocks = 0;
    report_contents(near, &chat, &blocks);
    printf("report by UUID, radius 48: %zu chat lines, %zu block changes\n", chat, blocks);
    expect(chat == 1 && blocks == 1, "only the player's chat and the block beside them");
    report_contents(all, &chat, &blocks);
    printf("report by UUID, everything kept: %zu chat lines, %zu block changes\n", chat, blocks);
    expect(chat == 2 && blocks == 2, "every chat line and block change");

    static const uint8_t NOBODY[16] = {0};
    expect(tickreel_shadow_buffer_report_uuid(shadow, NOBODY, near, options, NULL, NULL, 0, &finish) ==
               TICKREEL_RESULT_INVALID_ARGUMENT && finish == NULL,
           "a UUID the buffer holds nothing of is refused");
    expect(tickreel_report_options_set_chat(options, 7) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "an unknown chat choice is refused");
    CHECK(tickreel_report_options_free(options));
    CHECK(tickreel_recorder_free(recorder));
    CHECK(tickreel_shadow_buffer_free(shadow));
    CHECK(tickreel_engine_free(engine));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/world_state.reel", dir);
    write_file(path);
    world_at(path);
    seek(path);
    report_by_uuid(dir);
    expect(tickreel_handle_count() == 0, "every handle freed");
    return example_status();
}
