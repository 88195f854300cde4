package io.tickreel.minestom;

import io.tickreel.TerrainSection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import net.minestom.server.instance.Chunk;
import net.minestom.server.instance.Section;
import net.minestom.server.instance.block.Block;
import net.minestom.server.instance.palette.Palette;

/**
 * Turns a Minestom chunk's block sections into tickreel {@link TerrainSection}s: a palette of the
 * states present (block state ids, as Minestom's registry numbers them), {@code max(4,
 * ⌈log2 n⌉)} bits per index, packed as Minecraft packs them (y-z-x order, {@code 64 / bits} per
 * long, lowest bits first); a section of one state as {@link TerrainSection#single}. Reads the
 * blocks with {@code Palette.get}, so it does not depend on Minestom's internal layout.
 */
final class Terrain {
    /** Index of each block state in the section being built, -1 where absent (reset after each). */
    private final int[] indexOf = new int[Block.statesCount()];
    private final int[] palette = new int[4096];
    private final int[] indices = new int[4096];

    Terrain() {
        Arrays.fill(indexOf, -1);
    }

    /** The chunk's sections; {@code named} is called with each state they hold. */
    List<TerrainSection> sections(Chunk chunk, IntConsumer named) {
        List<TerrainSection> out = new ArrayList<>(chunk.getMaxSection() - chunk.getMinSection());
        for (int sy = chunk.getMinSection(); sy < chunk.getMaxSection(); sy++) {
            Section section = chunk.getSection(sy);
            out.add(section(chunk.getChunkX(), sy, chunk.getChunkZ(), section.blockPalette(), named));
        }
        return out;
    }

    private TerrainSection section(int cx, int cy, int cz, Palette blocks, IntConsumer named) {
        int n = 0;
        for (int y = 0, i = 0; y < 16; y++) {
            for (int z = 0; z < 16; z++) {
                for (int x = 0; x < 16; x++, i++) {
                    int state = blocks.get(x, y, z);
                    int at = indexOf[state];
                    if (at < 0) {
                        at = n++;
                        indexOf[state] = at;
                        palette[at] = state;
                    }
                    indices[i] = at;
                }
            }
        }
        for (int j = 0; j < n; j++) {
            indexOf[palette[j]] = -1;
            named.accept(palette[j]);
        }
        if (n == 1) {
            return TerrainSection.single(cx, cy, cz, palette[0]);
        }
        int bits = Math.max(4, 32 - Integer.numberOfLeadingZeros(n - 1));
        int perLong = 64 / bits;
        long[] packed = new long[(4096 + perLong - 1) / perLong];
        for (int i = 0; i < 4096; i++) {
            packed[i / perLong] |= (long) indices[i] << ((i % perLong) * bits);
        }
        return new TerrainSection(cx, cy, cz, Arrays.copyOf(palette, n), bits, packed);
    }
}
