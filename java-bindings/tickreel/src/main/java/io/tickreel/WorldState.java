package io.tickreel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The world at a tick as the library keeps it from world events: edited blocks (position to
 * block state, an id of the block palette: {@link Reader#paletteName}), block entities, and each
 * entity's health and equipment, and the terrain in effect (the chunk sections offered with
 * {@link Recorder#offerTerrain}), which the edited blocks override. Made by {@link
 * Reader#worldAt(int)} and {@link Playhead#worldState()}; never changes. A block no world event
 * touched is not listed: the world there is as the game had it (or as the terrain gives it).
 *
 * <p>The indexed accessors ({@link #blockX(int)}, {@link #entityHealth(int)}, {@link
 * #equipmentItem(int)}, {@link #terrainPaletteState(int, int)}, ...) and {@link #block(int, int,
 * int)} allocate nothing: the lists are read from the library once, when first used. {@link
 * #blocks()}, {@link #entities()}, {@link #terrainSections()} and {@link #blockEntity(int, int,
 * int)} build records. Close it to release the native copy at once (a
 * cleaner does it otherwise).
 */
public final class WorldState implements AutoCloseable {
    /** An edited block and its state. */
    public record Block(int x, int y, int z, int state) {}

    /** What an entity has in one equipment slot ({@code item} an id of the item palette). */
    public record Slot(int slot, int item, int count) {}

    /** One entity's health (hundredths of a health point) if a health event gave one, and its slots in use. */
    public record Entity(int entity, OptionalInt health, List<Slot> equipment) {}

    private static final int BLOCK_LONGS = 4;
    private static final int ENTITY_LONGS = 3;
    private static final int EQUIPMENT_LONGS = 4;

    private final NativeHandle handle;
    /** tick, complete, blocks, block entities, entities, equipment slots, terrain sections (layout: native/bridge/jni/world_state.rs). */
    private final long[] info;
    private long[] blocks;
    private long[] entities;
    private long[] equipment;
    private long[] terrain;

    WorldState(long h) {
        this.handle = new NativeHandle(this, h, "WorldState");
        this.info = NativeBridge.worldStateInfo(handle.get());
    }

    /** The tick this is the world at (after that tick's events). */
    public int tick() {
        return (int) info[0];
    }

    /**
     * False if the world before some chunk is unknown (a recording without a snapshot near the
     * tick, a report before its first snapshot, or a chunk a playhead could not read on its way):
     * it then holds only what the chunks read changed.
     */
    public boolean complete() {
        return info[1] != 0;
    }

    /** Edited blocks. */
    public int blockCount() {
        return (int) info[2];
    }

    /** Block entities. */
    public int blockEntityCount() {
        return (int) info[3];
    }

    /** Entities with a health or equipment. */
    public int entityCount() {
        return (int) info[4];
    }

    /** Equipment slots in use, over all entities. */
    public int equipmentCount() {
        return (int) info[5];
    }

    /** Terrain sections in effect. */
    public int terrainSectionCount() {
        return (int) info[6];
    }

    private long[] blockLongs() {
        long[] b = blocks;
        if (b == null) {
            b = NativeBridge.worldStateBlocks(handle.get());
            blocks = b;
        }
        return b;
    }

    private long[] entityLongs() {
        long[] e = entities;
        if (e == null) {
            e = NativeBridge.worldStateEntities(handle.get());
            entities = e;
        }
        return e;
    }

    private long[] equipmentLongs() {
        long[] e = equipment;
        if (e == null) {
            e = NativeBridge.worldStateEquipment(handle.get());
            equipment = e;
        }
        return e;
    }

    private long[] terrainLongs() {
        long[] t = terrain;
        if (t == null) {
            t = NativeBridge.worldStateTerrainSections(handle.get());
            terrain = t;
        }
        return t;
    }

    /** Where section {@code i}'s header starts in the native layout (native/bridge/jni/terrain.rs). */
    private int terrainAt(int i) {
        java.util.Objects.checkIndex(i, terrainSectionCount());
        return 1 + i * TerrainSection.HEADER_LONGS;
    }

    /**
     * The section x of terrain section {@code i} (0 to {@link #terrainSectionCount()} - 1, sorted
     * by x, then z, then y).
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #terrainSectionCount()}
     * @throws IllegalStateException if this world state was closed before its terrain was read
     */
    public int terrainSectionX(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o];
    }

    /** The section y of terrain section {@code i} (see {@link #terrainSectionX(int)}). */
    public int terrainSectionY(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o + 1];
    }

    /** The section z of terrain section {@code i} (see {@link #terrainSectionX(int)}). */
    public int terrainSectionZ(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o + 2];
    }

    /** The bits per index of terrain section {@code i} (0 for a section of one state; see {@link #terrainSectionX(int)}). */
    public int terrainSectionBits(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o + 3];
    }

    /** The palette length of terrain section {@code i} (see {@link #terrainSectionX(int)}). */
    public int terrainPaletteLength(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o + 4];
    }

    /** The packed longs of terrain section {@code i} (0 when its bits are 0; see {@link #terrainSectionX(int)}). */
    public int terrainPackedLength(int i) {
        int o = terrainAt(i);
        return (int) terrainLongs()[o + 5];
    }

    /**
     * Palette entry {@code j} of terrain section {@code i}: a block state (an id of the block
     * palette, as an unsigned 32-bit value; see {@link #terrainSectionX(int)}).
     *
     * @throws IndexOutOfBoundsException if {@code j} is not below {@link #terrainPaletteLength(int)}
     */
    public int terrainPaletteState(int i, int j) {
        int o = terrainAt(i);
        long[] t = terrainLongs();
        java.util.Objects.checkIndex(j, (int) t[o + 4]);
        return (int) t[(int) t[o + 6] + j];
    }

    /**
     * Packed long {@code j} of terrain section {@code i} (see {@link TerrainSection} for the
     * layout and {@link #terrainSectionX(int)}).
     *
     * @throws IndexOutOfBoundsException if {@code j} is not below {@link #terrainPackedLength(int)}
     */
    public long terrainPacked(int i, int j) {
        int o = terrainAt(i);
        long[] t = terrainLongs();
        java.util.Objects.checkIndex(j, (int) t[o + 5]);
        return t[(int) t[o + 6] + (int) t[o + 4] + j];
    }

    /** Terrain section {@code i} as a record (copies its palette and longs; see {@link #terrainSectionX(int)}). */
    public TerrainSection terrainSection(int i) {
        int o = terrainAt(i);
        long[] t = terrainLongs();
        int paletteLength = (int) t[o + 4];
        int at = (int) t[o + 6];
        int[] palette = new int[paletteLength];
        for (int j = 0; j < paletteLength; j++) {
            palette[j] = (int) t[at + j];
        }
        long[] packed = java.util.Arrays.copyOfRange(t, at + paletteLength, at + paletteLength + (int) t[o + 5]);
        return new TerrainSection((int) t[o], (int) t[o + 1], (int) t[o + 2], palette, (int) t[o + 3], packed);
    }

    /** The terrain in effect at this tick, sorted by x, then z, then y (the edited blocks override it). */
    public List<TerrainSection> terrainSections() {
        int n = terrainSectionCount();
        List<TerrainSection> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(terrainSection(i));
        }
        return Collections.unmodifiableList(out);
    }

    private int blockAt(int i) {
        java.util.Objects.checkIndex(i, blockCount());
        return i * BLOCK_LONGS;
    }

    /**
     * The x of edited block {@code i} (0 to {@link #blockCount()} - 1, sorted by position: x, then
     * y, then z).
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #blockCount()}
     * @throws IllegalStateException if this world state was closed before its blocks were read
     */
    public int blockX(int i) {
        int o = blockAt(i);
        return (int) blockLongs()[o];
    }

    /** The y of edited block {@code i} (see {@link #blockX(int)}). */
    public int blockY(int i) {
        int o = blockAt(i);
        return (int) blockLongs()[o + 1];
    }

    /** The z of edited block {@code i} (see {@link #blockX(int)}). */
    public int blockZ(int i) {
        int o = blockAt(i);
        return (int) blockLongs()[o + 2];
    }

    /** The state of edited block {@code i} (see {@link #blockX(int)}). */
    public int blockState(int i) {
        int o = blockAt(i);
        return (int) blockLongs()[o + 3];
    }

    /**
     * The state of the block at {@code x, y, z} (as an unsigned 32-bit value): the one a world
     * event gave it, else the terrain's where the recording's terrain covers it, or -1 where
     * neither does. Asks the library; allocates nothing.
     *
     * @throws IllegalStateException if this world state was closed
     */
    public long block(int x, int y, int z) {
        return NativeBridge.worldStateBlock(handle.get(), x, y, z);
    }

    /**
     * The block entity NBT (big-endian, as the block change gave it) at {@code x, y, z}, if the
     * block's last change gave one.
     *
     * @throws IllegalStateException if this world state was closed
     */
    public Optional<byte[]> blockEntity(int x, int y, int z) {
        return Optional.ofNullable(NativeBridge.worldStateBlockEntity(handle.get(), x, y, z));
    }

    private int entityAt(int i) {
        java.util.Objects.checkIndex(i, entityCount());
        return i * ENTITY_LONGS;
    }

    /**
     * The id of entity {@code i} (0 to {@link #entityCount()} - 1, sorted by id) of those with a
     * health or equipment.
     *
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #entityCount()}
     * @throws IllegalStateException if this world state was closed before its entities were read
     */
    public int entityId(int i) {
        int o = entityAt(i);
        return (int) entityLongs()[o];
    }

    /** The health of entity {@code i} in hundredths of a health point, or -1 if none was given (see {@link #entityId(int)}). */
    public int entityHealth(int i) {
        int o = entityAt(i);
        return (int) entityLongs()[o + 1];
    }

    /**
     * The equipment slots entity {@code i} has in use (see {@link #entityId(int)}): the next that
     * many entries of the equipment accessors, in order of the entities.
     */
    public int entityEquipmentCount(int i) {
        int o = entityAt(i);
        return (int) entityLongs()[o + 2];
    }

    private int equipmentAt(int j) {
        java.util.Objects.checkIndex(j, equipmentCount());
        return j * EQUIPMENT_LONGS;
    }

    /**
     * The entity of equipment entry {@code j} (0 to {@link #equipmentCount()} - 1, by entity id,
     * then slot).
     *
     * @throws IndexOutOfBoundsException if {@code j} is not below {@link #equipmentCount()}
     * @throws IllegalStateException if this world state was closed before its equipment was read
     */
    public int equipmentEntity(int j) {
        int o = equipmentAt(j);
        return (int) equipmentLongs()[o];
    }

    /** The slot of equipment entry {@code j} (a {@link Batch} slot constant or the game's own; see {@link #equipmentEntity(int)}). */
    public int equipmentSlot(int j) {
        int o = equipmentAt(j);
        return (int) equipmentLongs()[o + 1];
    }

    /** The item of equipment entry {@code j}, an id of the item palette (see {@link #equipmentEntity(int)}). */
    public int equipmentItem(int j) {
        int o = equipmentAt(j);
        return (int) equipmentLongs()[o + 2];
    }

    /** The item count of equipment entry {@code j} (see {@link #equipmentEntity(int)}). */
    public int equipmentItemCount(int j) {
        int o = equipmentAt(j);
        return (int) equipmentLongs()[o + 3];
    }

    /** Every edited block, sorted by position. */
    public List<Block> blocks() {
        int n = blockCount();
        List<Block> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Block(blockX(i), blockY(i), blockZ(i), blockState(i)));
        }
        return Collections.unmodifiableList(out);
    }

    /** Every entity with a health or equipment, sorted by id, with its slots sorted by slot. */
    public List<Entity> entities() {
        int n = entityCount();
        List<Entity> out = new ArrayList<>(n);
        for (int i = 0, j = 0; i < n; i++) {
            int slots = entityEquipmentCount(i);
            List<Slot> eq = new ArrayList<>(slots);
            for (int k = 0; k < slots; k++, j++) {
                eq.add(new Slot(equipmentSlot(j), equipmentItem(j), equipmentItemCount(j)));
            }
            int health = entityHealth(i);
            out.add(new Entity(entityId(i), health < 0 ? OptionalInt.empty() : OptionalInt.of(health),
                    Collections.unmodifiableList(eq)));
        }
        return Collections.unmodifiableList(out);
    }

    /** Releases the native copy; lists already read stay readable. Closing twice is harmless. */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return "WorldState[tick=" + tick() + (complete() ? "" : ", incomplete") + ", blocks=" + blockCount()
                + ", blockEntities=" + blockEntityCount() + ", entities=" + entityCount() + ", terrainSections="
                + terrainSectionCount() + "]";
    }
}
