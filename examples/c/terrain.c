/*
 * terrain.c: terrain from C. Offers two chunk sections in Minecraft's layout (one all stone, one
 * of dirt and grass with 4-bit packed indices, as a plugin reads them from a section's
 * PalettedContainer) through tickreel_reel_writer_offer_terrain, edits one block inside them,
 * then reads the world at a tick back: tickreel_world_state_block gives the terrain's block where
 * no event edited it and the edited one where an event did; tickreel_world_state_terrain_sections
 * gives the sections as offered. Also checks that bad sections are refused.
 *
 *   terrain [OUTPUT_DIR]      (default: the current directory)
 */
#define EXAMPLE_NAME "terrain"
#include "example_util.h"

#include <stdbool.h>
#include <string.h>

#define STONE 1u
#define GRASS 8u
#define DIRT 9u
#define GLASS 42u

static const uint32_t STONE_PALETTE[] = {STONE};
static const uint32_t MIXED_PALETTE[] = {DIRT, GRASS};
static uint64_t packed[256];

static TickreelTerrainSection section(int32_t cx, int32_t cy, int32_t cz, const uint32_t *palette, size_t palette_len,
                                      uint32_t bits, const uint64_t *longs, size_t longs_len) {
    TickreelTerrainSection s = {cx, cy, cz, palette, palette_len, bits, longs, longs_len};
    return s;
}

static void write_file(const char *path) {
    /* 4 bits per index, 16 per long, the first in the lowest bits: index 0 (dirt) at lx 0 of
     * every row, 1 (grass) elsewhere. */
    for (size_t i = 0; i < 256; i++) packed[i] = 0x1111111111111110ull;
    TickreelReelOptions *options = NULL;
    CHECK(tickreel_reel_options_new(&options));
    CHECK(tickreel_reel_options_set_chunk_ticks(options, 10));
    TickreelReelWriter *writer = NULL;
    CHECK(tickreel_reel_writer_create(path, options, &writer));
    CHECK(tickreel_reel_options_free(options));

    TickreelTerrainSection bad[2];
    bad[0] = section(0, 4, 0, MIXED_PALETTE, 2, 5, packed, 256);
    expect(tickreel_reel_writer_offer_terrain(writer, bad, 1) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "bits not matching the packed longs are refused");
    bad[0] = section(0, 4, 0, STONE_PALETTE, 1, 0, NULL, 0);
    bad[1] = bad[0];
    expect(tickreel_reel_writer_offer_terrain(writer, bad, 2) == TICKREEL_RESULT_INVALID_ARGUMENT,
           "a section position twice is refused");
    expect(tickreel_reel_writer_offer_terrain(writer, NULL, 1) == TICKREEL_RESULT_NULL_ARGUMENT,
           "NULL sections with a count are refused");

    TickreelTerrainSection sections[2] = {
        section(0, 4, 0, STONE_PALETTE, 1, 0, NULL, 0),
        section(1, 4, 0, MIXED_PALETTE, 2, 4, packed, 256),
    };
    CHECK(tickreel_reel_writer_offer_terrain(writer, sections, 2));
    TickreelBatch *batch = NULL;
    CHECK(tickreel_batch_new(&batch));
    for (uint32_t t = 0; t < 20; t++) {
        CHECK(tickreel_batch_clear(batch));
        if (t == 0) {
            CHECK(tickreel_batch_entity_add(batch, 1, 147, 0.0, 64.0, 0.0, 0.0, 0.0));
        } else {
            CHECK(tickreel_batch_pose(batch, 1, 0.0, 64.0, 0.0, 0.0, 0.0));
        }
        if (t == 5) CHECK(tickreel_batch_block_change(batch, 17, 64, 0, GLASS, false, 0, NULL, 0));
        CHECK(tickreel_reel_writer_write_batch(writer, t, batch));
    }
    CHECK(tickreel_batch_free(batch));
    CHECK(tickreel_reel_writer_finish(writer, NULL));
    CHECK(tickreel_reel_writer_free(writer));
}

static void read_back(const char *path) {
    TickreelReader *reader = NULL;
    CHECK(tickreel_reader_open(path, &reader));
    TickreelWorldState *world = NULL;
    CHECK(tickreel_reader_world_at(reader, 15, &world));
    TickreelWorldStateInfo info;
    CHECK(tickreel_world_state_info(world, &info));
    expect(info.terrain_section_count == 2 && info.block_count == 1, "two terrain sections, one edited block");

    TickreelBlockAt at;
    CHECK(tickreel_world_state_block(world, 3, 70, 5, &at));
    expect(at.known && !at.edited && at.state == STONE, "the stone section's block");
    CHECK(tickreel_world_state_block(world, 16, 64, 3, &at));
    expect(at.known && !at.edited && at.state == DIRT, "dirt at lx 0 of the mixed section");
    CHECK(tickreel_world_state_block(world, 18, 79, 15, &at));
    expect(at.known && !at.edited && at.state == GRASS, "grass elsewhere in it");
    CHECK(tickreel_world_state_block(world, 17, 64, 0, &at));
    expect(at.known && at.edited && at.state == GLASS, "the edited block wins over the terrain");
    CHECK(tickreel_world_state_block(world, 40, 64, 0, &at));
    expect(!at.known && !at.edited, "outside the terrain the block is unknown");

    size_t count = 0;
    expect(tickreel_world_state_terrain_sections(world, NULL, 0, &count) == TICKREEL_RESULT_BUFFER_TOO_SMALL &&
               count == 2,
           "a count query");
    TickreelTerrainSection out[2];
    CHECK(tickreel_world_state_terrain_sections(world, out, 2, &count));
    expect(count == 2 && out[0].cx == 0 && out[0].bits == 0 && out[0].palette_len == 1 &&
               out[0].palette[0] == STONE && out[0].packed == NULL,
           "the stone section as offered");
    expect(out[1].cx == 1 && out[1].cy == 4 && out[1].bits == 4 && out[1].palette_len == 2 &&
               memcmp(out[1].palette, MIXED_PALETTE, sizeof MIXED_PALETTE) == 0 && out[1].packed_len == 256 &&
               memcmp(out[1].packed, packed, sizeof packed) == 0,
           "the mixed section as offered");
    CHECK(tickreel_world_state_free(world));
    CHECK(tickreel_reader_free(reader));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/terrain.reel", dir);
    write_file(path);
    read_back(path);
    expect(tickreel_handle_count() == 0, "every handle freed");
    return example_status();
}
