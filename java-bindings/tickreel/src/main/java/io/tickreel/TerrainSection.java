package io.tickreel;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;

/**
 * One chunk section of terrain: 16×16×16 blocks at section position ({@code cx}, {@code cy},
 * {@code cz}) (block {@code x = 16·cx + lx}, likewise for y and z), exactly as the game keeps it
 * (a Paper plugin reads it from the section's {@code PalettedContainer}): a palette of block
 * states (ids of the block palette, {@link Reader#paletteName}, read as unsigned 32-bit values)
 * and, for each block, an index into it, {@code bits} per index, packed into longs as Minecraft
 * packs them (entries in y-z-x order, {@code 64 / bits} per long, the first in the lowest bits,
 * none spanning two longs). A section of one block state has a palette of one, {@code bits} 0
 * and no longs ({@link #single}).
 *
 * <p>Offered with {@link Recorder#offerTerrain} and {@link ReelWriter#offerTerrain}, read back
 * with {@link WorldState#terrainSections()}. The library checks every section when it is offered
 * (its palette of 1 to 4096 states, {@code bits} matching it, as many longs as {@code bits}
 * needs, no index past the palette); this class checks nothing but nulls. The arrays are not
 * copied: do not change them while a call uses them. {@code equals} and {@code hashCode} compare
 * the arrays' contents.
 *
 * @param cx section x (block x / 16, rounded down)
 * @param cy section y (block y / 16, rounded down)
 * @param cz section z (block z / 16, rounded down)
 * @param palette the block states the indices name (1 to 4096)
 * @param bits bits per index: 0 for a palette of one, else at least {@code max(4, ⌈log2(palette
 *     length)⌉)}, at most 16
 * @param packed the packed indices: {@code ⌈4096 / (64 / bits)⌉} longs (none when {@code bits}
 *     is 0)
 */
public record TerrainSection(int cx, int cy, int cz, int[] palette, int bits, long[] packed) {
    /** Longs of a section's header in the native layout (native/bridge/jni/terrain.rs). */
    static final int HEADER_LONGS = 7;

    /**
     * @throws NullPointerException if {@code palette} or {@code packed} is null
     */
    public TerrainSection {
        Objects.requireNonNull(palette, "palette");
        Objects.requireNonNull(packed, "packed");
    }

    /** A section of one block state everywhere. */
    public static TerrainSection single(int cx, int cy, int cz, int state) {
        return new TerrainSection(cx, cy, cz, new int[] {state}, 0, new long[0]);
    }

    /**
     * Sections as one {@code long[]}: their count, then per section {@code cx, cy, cz, bits,
     * palette length, packed length, offset}, then per section at its offset its palette (as
     * unsigned values), then its packed longs.
     */
    static long[] toNative(Collection<TerrainSection> sections) {
        Objects.requireNonNull(sections, "sections");
        int n = sections.size();
        long size = 1L + (long) HEADER_LONGS * n;
        for (TerrainSection s : sections) {
            Objects.requireNonNull(s, "a section is null");
            size += s.palette.length + s.packed.length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("terrain of " + size + " longs does not fit one array");
        }
        long[] out = new long[(int) size];
        out[0] = n;
        int head = 1;
        int at = 1 + HEADER_LONGS * n;
        for (TerrainSection s : sections) {
            out[head] = s.cx;
            out[head + 1] = s.cy;
            out[head + 2] = s.cz;
            out[head + 3] = s.bits;
            out[head + 4] = s.palette.length;
            out[head + 5] = s.packed.length;
            out[head + 6] = at;
            head += HEADER_LONGS;
            for (int state : s.palette) {
                out[at++] = Integer.toUnsignedLong(state);
            }
            System.arraycopy(s.packed, 0, out, at, s.packed.length);
            at += s.packed.length;
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TerrainSection s && cx == s.cx && cy == s.cy && cz == s.cz && bits == s.bits
                && Arrays.equals(palette, s.palette) && Arrays.equals(packed, s.packed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(cx, cy, cz, bits, Arrays.hashCode(palette), Arrays.hashCode(packed));
    }

    @Override
    public String toString() {
        return "TerrainSection[" + cx + ", " + cy + ", " + cz + ", palette=" + palette.length + ", bits=" + bits
                + ", packed=" + packed.length + "]";
    }
}
