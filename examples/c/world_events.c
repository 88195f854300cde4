/*
 * world_events.c: writes every world event through the C batch functions (a block change with a
 * sign's NBT, a multi-block change, a swing, an attack, uses on nothing, an entity and a block,
 * damage, health, equipment, chat and a custom event placed at a position), names block states,
 * items and a damage cause in the palette, reads the file back and checks each event field by
 * field through the typed events of tickreel_events_decode (no varint parsing), the palette
 * names through tickreel_reader_palette_name, and that bad arguments are refused.
 *
 *   world_events [OUTPUT_DIR]      (default: the current directory)
 */
#define EXAMPLE_NAME "world_events"
#include "example_util.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define STONE 1u
#define AIR 0u
#define SIGN 7u
#define SWORD 3u
#define FALL 2u

static const uint8_t SIGN_NBT[] = {10, 0, 0, 8, 0, 4, 't', 'e', 'x', 't', 0, 2, 'h', 'i', 0};

static void write_file(const char *path) {
    TickreelReelWriter *writer = NULL;
    CHECK(tickreel_reel_writer_create(path, NULL, &writer)); /* NULL: the default options */
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_BLOCK, STONE, "minecraft:stone"));
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_BLOCK, SIGN,
                                             "minecraft:oak_sign[rotation=4]"));
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_ITEM, SWORD, "minecraft:iron_sword"));
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_DAMAGE_CAUSE, FALL, "minecraft:fall"));
    /* the same name again is fine; another name for a named id is not */
    CHECK(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_BLOCK, STONE, "minecraft:stone"));
    expect(tickreel_reel_writer_register_name(writer, TICKREEL_PALETTE_BLOCK, STONE, "minecraft:dirt") ==
               TICKREEL_RESULT_INVALID_ARGUMENT,
           "renaming a named block state is refused");
    expect(tickreel_reel_writer_register_name(writer, 9, 1, "x") == TICKREEL_RESULT_INVALID_ARGUMENT,
           "an unknown palette kind is refused");

    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    CHECK(tickreel_batch_entity_add(batch, 1, 147, 0.5, 64.0, 0.5, 0.0, 0.0));
    CHECK(tickreel_batch_entity_add(batch, 2, 147, 2.5, 64.0, 0.5, 180.0, 0.0));
    CHECK(tickreel_reel_writer_write_batch(writer, 10, batch));

    CHECK(tickreel_batch_clear(batch));
    CHECK(tickreel_batch_block_change(batch, -3, 63, 1000000, AIR, true, 1, NULL, 0));
    CHECK(tickreel_batch_block_change(batch, 4, 64, -5, SIGN, false, 0, SIGN_NBT, sizeof SIGN_NBT));
    TickreelBlockState blocks[3] = {{0, 60, 0, STONE}, {1, 60, 0, STONE}, {-7, 59, 2, AIR}};
    CHECK(tickreel_batch_block_changes(batch, false, 0, blocks, 3));
    CHECK(tickreel_batch_swing(batch, 1, TICKREEL_HAND_MAIN));
    CHECK(tickreel_batch_attack(batch, 1, 2));
    CHECK(tickreel_batch_use(batch, 2, TICKREEL_HAND_OFF, SWORD));
    CHECK(tickreel_batch_use_on_entity(batch, 1, TICKREEL_HAND_MAIN, 0, 2));
    CHECK(tickreel_batch_use_on_block(batch, 1, TICKREEL_HAND_MAIN, 0, 4, 64, -5));
    CHECK(tickreel_batch_damage(batch, 2, 350, FALL, true, 1));
    CHECK(tickreel_batch_health(batch, 2, 1650));
    CHECK(tickreel_batch_equipment(batch, 1, TICKREEL_SLOT_MAIN_HAND, SWORD, 1));
    CHECK(tickreel_batch_chat(batch, true, 1, TICKREEL_CHANNEL_PUBLIC, "gg \xc3\xa9"));
    CHECK(tickreel_batch_custom_at(batch, 500, false, 0, true, 1.5, 64.25, -2.0, (const uint8_t *)"boom", 4));

    /* refused, and the batch unchanged */
    size_t before = 0, after = 0;
    CHECK(tickreel_batch_event_count(batch, &before));
    expect(tickreel_batch_swing(batch, 1, 2) == TICKREEL_RESULT_INVALID_ARGUMENT, "hand 2 is refused");
    expect(tickreel_batch_equipment(batch, 1, 256, SWORD, 1) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "slot 256 is refused");
    expect(tickreel_batch_block_changes(batch, false, 0, blocks, 0) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a multi-block change of no block is refused");
    expect(tickreel_batch_block_changes(batch, false, 0, NULL, 3) == TICKREEL_RESULT_NULL_ARGUMENT,
           "NULL blocks with a count are refused");
    expect(tickreel_batch_chat(batch, false, 0, 0, NULL) == TICKREEL_RESULT_NULL_ARGUMENT,
           "a NULL chat text is refused");
    expect(tickreel_batch_chat(batch, false, 0, 0, "\xff") == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a chat text that is not UTF-8 is refused");
    char *long_text = malloc(4098);
    memset(long_text, 'a', 4097);
    long_text[4097] = 0;
    expect(tickreel_batch_chat(batch, false, 0, 0, long_text) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a chat text over 4096 bytes is refused");
    free(long_text);
    expect(tickreel_batch_custom_at(batch, 1, false, 0, true, NAN, 0, 0, NULL, 0) ==
               TICKREEL_RESULT_INVALID_ARGUMENT,
           "a NaN position is refused");
    CHECK(tickreel_batch_event_count(batch, &after));
    expect(before == 13 && after == before, "refused events leave the batch unchanged");

    CHECK(tickreel_reel_writer_write_batch(writer, 11, batch));
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_reel_writer_finish(writer, NULL));
    CHECK(tickreel_reel_writer_free(writer));
}

/* The events of tick 11, typed. */
static void read_back(const char *path) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));

    char name[64];
    size_t len = 0;
    CHECK(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_BLOCK, SIGN, name, sizeof name, &len));
    expect(strcmp(name, "minecraft:oak_sign[rotation=4]") == 0 && len == strlen(name), "block palette name");
    CHECK(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_ITEM, SWORD, name, sizeof name, &len));
    expect(strcmp(name, "minecraft:iron_sword") == 0, "item palette name");
    CHECK(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_DAMAGE_CAUSE, FALL, name, sizeof name, NULL));
    expect(strcmp(name, "minecraft:fall") == 0, "damage-cause palette name");
    CHECK(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_ITEM, 99, name, sizeof name, &len));
    expect(len == 0 && name[0] == 0, "an unnamed id gives the empty string");
    expect(tickreel_reader_palette_name(reader, TICKREEL_PALETTE_BLOCK, SIGN, name, 4, &len) ==
               TICKREEL_RESULT_BUFFER_TOO_SMALL && len == 30,
           "a small buffer reports the length");

    size_t n = 0;
    expect(tickreel_reader_ticks(reader, 11, 11, NULL, 0, &n) == TICKREEL_RESULT_BUFFER_TOO_SMALL || n == 0,
           "ticks length query");
    uint8_t *buf = malloc(n);
    CHECK(tickreel_reader_ticks(reader, 11, 11, buf, n, &n));
    TickreelEvents *events = NULL;
    CHECK(tickreel_events_decode(buf, n, &events));
    memset(buf, 0xAA, n); /* the decoded events do not point into the caller's bytes */
    free(buf);
    size_t count = 0;
    CHECK(tickreel_events_count(events, &count));
    expect(count == 13, "13 world events read back");

    TickreelEvent e;
    CHECK(tickreel_events_get(events, 0, &e));
    expect(e.tick == 11 && e.kind == TICKREEL_EVENT_BLOCK_CHANGE && e.has_block && e.block.x == -3 &&
               e.block.y == 63 && e.block.z == 1000000 && e.block.state == AIR && e.has_entity &&
               e.entity == 1 && !e.has_data,
           "block change broken by entity 1");
    CHECK(tickreel_events_get(events, 1, &e));
    expect(e.kind == TICKREEL_EVENT_BLOCK_CHANGE && e.block.state == SIGN && !e.has_entity && e.has_data &&
               e.data_len == sizeof SIGN_NBT && memcmp(e.data, SIGN_NBT, sizeof SIGN_NBT) == 0,
           "block change with the sign's NBT");
    CHECK(tickreel_events_get(events, 2, &e));
    expect(e.kind == TICKREEL_EVENT_BLOCK_CHANGES && e.block_count == 3 && e.blocks[0].y == 60 &&
               e.blocks[1].x == 1 && e.blocks[2].x == -7 && e.blocks[2].z == 2 && e.blocks[2].state == AIR &&
               e.blocks[0].state == STONE,
           "multi-block change");
    CHECK(tickreel_events_get(events, 3, &e));
    expect(e.kind == TICKREEL_EVENT_SWING && e.entity == 1 && e.hand == TICKREEL_HAND_MAIN, "swing");
    CHECK(tickreel_events_get(events, 4, &e));
    expect(e.kind == TICKREEL_EVENT_ATTACK && e.entity == 1 && e.has_other && e.other == 2, "attack");
    CHECK(tickreel_events_get(events, 5, &e));
    expect(e.kind == TICKREEL_EVENT_USE && e.entity == 2 && e.hand == TICKREEL_HAND_OFF && e.item == SWORD &&
               !e.has_other && !e.has_block,
           "use on nothing");
    CHECK(tickreel_events_get(events, 6, &e));
    expect(e.kind == TICKREEL_EVENT_USE && e.has_other && e.other == 2, "use on an entity");
    CHECK(tickreel_events_get(events, 7, &e));
    expect(e.kind == TICKREEL_EVENT_USE && e.has_block && e.block.x == 4 && e.block.z == -5, "use on a block");
    CHECK(tickreel_events_get(events, 8, &e));
    expect(e.kind == TICKREEL_EVENT_DAMAGE && e.entity == 2 && e.amount == 350 && e.cause == FALL &&
               e.has_other && e.other == 1,
           "damage");
    CHECK(tickreel_events_get(events, 9, &e));
    expect(e.kind == TICKREEL_EVENT_HEALTH && e.entity == 2 && e.health == 1650, "health");
    CHECK(tickreel_events_get(events, 10, &e));
    expect(e.kind == TICKREEL_EVENT_EQUIPMENT && e.slot == TICKREEL_SLOT_MAIN_HAND && e.item == SWORD &&
               e.count == 1,
           "equipment");
    CHECK(tickreel_events_get(events, 11, &e));
    expect(e.kind == TICKREEL_EVENT_CHAT && e.has_entity && e.entity == 1 && e.channel == TICKREEL_CHANNEL_PUBLIC &&
               e.data_len == 5 && memcmp(e.data, "gg \xc3\xa9", 5) == 0,
           "chat");
    CHECK(tickreel_events_get(events, 12, &e));
    expect(e.kind == TICKREEL_EVENT_CUSTOM_AT && e.type_id == 500 && !e.has_entity && e.has_position &&
               e.x == 1.5 && e.y == 64.25 && e.z == -2.0 && e.data_len == 4 && memcmp(e.data, "boom", 4) == 0,
           "custom event at a position");
    expect(tickreel_events_get(events, 13, &e) == TICKREEL_RESULT_INVALID_ARGUMENT, "index past the end");
    CHECK(tickreel_events_free(events));
    expect(tickreel_events_count(events, &count) == TICKREEL_RESULT_INVALID_HANDLE, "freed events");

    /* movement is typed too */
    (void)tickreel_reader_ticks(reader, 10, 10, NULL, 0, &n); /* the length */
    buf = malloc(n);
    CHECK(tickreel_reader_ticks(reader, 10, 10, buf, n, &n));
    CHECK(tickreel_events_decode(buf, n, &events));
    free(buf);
    CHECK(tickreel_events_get(events, 1, &e));
    expect(e.kind == TICKREEL_EVENT_ENTITY_ADD && e.entity == 2 && e.entity_kind == 147 && e.has_position &&
               e.x == 2.5 && e.has_rotation && e.yaw == 180.0,
           "entity add");
    CHECK(tickreel_events_free(events));

    /* malformed bytes are refused with a message */
    const uint8_t bad[] = {0, 0, 0, 1, 0, 0, 0, 9, 0, 1};
    events = NULL;
    expect(tickreel_events_decode(bad, sizeof bad, &events) == TICKREEL_RESULT_CORRUPT && events == NULL,
           "a tick claiming more bytes than there are is corrupt");
    const uint8_t bad_kind[] = {0, 0, 0, 1, 0, 0, 0, 4, 0, 1, 0x30, 0};
    expect(tickreel_events_decode(bad_kind, sizeof bad_kind, &events) == TICKREEL_RESULT_CORRUPT,
           "an unknown kind is corrupt");
    CHECK(tickreel_events_decode(NULL, 0, &events));
    CHECK(tickreel_events_count(events, &count));
    expect(count == 0, "no bytes, no event");
    CHECK(tickreel_events_free(events));
    CHECK(tickreel_reader_free(reader));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/world.reel", dir);
    write_file(path);
    read_back(path);
    expect(tickreel_handle_count() == 0, "every handle freed");
    return example_status();
}
