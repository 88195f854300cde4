package io.tickreel.minestom;

import io.tickreel.Batch;
import io.tickreel.EntityFlags;
import io.tickreel.PaletteKind;
import io.tickreel.Pending;
import io.tickreel.Recorder;
import io.tickreel.ShadowBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.OptionalInt;
import net.minestom.server.coordinate.Pos;
import net.minestom.server.entity.EquipmentSlot;
import net.minestom.server.entity.LivingEntity;
import net.minestom.server.entity.Player;
import net.minestom.server.instance.Instance;
import net.minestom.server.instance.block.Block;
import net.minestom.server.item.ItemStack;
import net.minestom.server.item.Material;

/**
 * The recording of one instance: its recorder (which also feeds the instance's shadow buffer), the
 * batch the instance's events are copied into between two instance ticks, and the players it
 * tracks. Every method is synchronized: Minestom may call listeners from its dispatcher threads,
 * and the instance tick from the tick scheduler thread.
 *
 * <p>At each {@code InstanceTickEvent} the events gathered since the previous one (the previous
 * tick's) are completed with each player's pose, flags and equipment where they changed and the
 * state of each edited block as the instance now holds it, then submitted as one tick. Steady state
 * allocates nothing here: the batch, the per-player states and the edited-block arrays are reused.
 */
final class InstanceRecording {
    /** Equipment slots recorded, in tickreel's slot order ({@code Batch.SLOT_*}). */
    private static final EquipmentSlot[] SLOTS = {
        EquipmentSlot.MAIN_HAND, EquipmentSlot.OFF_HAND, EquipmentSlot.BOOTS,
        EquipmentSlot.LEGGINGS, EquipmentSlot.CHESTPLATE, EquipmentSlot.HELMET,
    };

    /** One tracked player: the last values recorded, compared each tick. */
    static final class Track {
        final Player player;
        final int id;
        final OptionalInt optId;
        double x, y, z, yaw, pitch;
        int flags;
        int health;
        boolean teleported;
        int chunkX = Integer.MIN_VALUE, chunkZ = Integer.MIN_VALUE;
        final int[] item = new int[SLOTS.length];
        final int[] count = new int[SLOTS.length];

        Track(Player player) {
            this.player = player;
            this.id = player.getEntityId();
            this.optId = OptionalInt.of(id);
            Arrays.fill(item, -1);
        }
    }

    /**
     * An entity other than a player (a mob, an item, a projectile): its pose and flags compared
     * each tick, and for a living entity (a mob) its health and equipment too.
     */
    static final class Other {
        final net.minestom.server.entity.Entity entity;
        /** The entity as a living entity, or null. */
        final LivingEntity living;
        final int id;
        double x, y, z, yaw, pitch;
        int flags;
        int health;
        final int[] item = new int[SLOTS.length];
        final int[] count = new int[SLOTS.length];

        Other(net.minestom.server.entity.Entity entity) {
            this.entity = entity;
            this.living = entity instanceof LivingEntity l ? l : null;
            this.id = entity.getEntityId();
            Arrays.fill(item, -1);
        }
    }

    final Instance instance;
    final Recorder recorder;
    final ShadowBuffer shadow;
    final Path path;
    private final Batch batch = new Batch(16 << 10);
    private final IdentityHashMap<Player, Track> tracks = new IdentityHashMap<>();
    private final ArrayList<Track> trackList = new ArrayList<>();
    private final IdentityHashMap<net.minestom.server.entity.Entity, Other> others = new IdentityHashMap<>();
    private final ArrayList<Other> otherList = new ArrayList<>();
    private final BitSet namedStates = new BitSet();
    private final BitSet namedItems = new BitSet();
    private final BitSet namedCauses = new BitSet();
    private int[] editX = new int[64], editY = new int[64], editZ = new int[64];
    private Track[] editCause = new Track[64];
    private int edits;
    private int[] left = new int[16];
    private int leftCount;
    private int tick;
    private boolean ended;
    /** The writer's last error reported (null: none), the tick it was seen at, and whether it was flushed past since. */
    private String lastStatus;
    private int statusTick;
    private boolean writingAgain;
    /** The writer's status is looked at every this many ticks (once a second). */
    static final int STATUS_EVERY = 20;
    private final java.util.function.Consumer<Exception> onError;
    /** Measures the bytes {@link #endTick} allocates on its thread (null: not measured). */
    private final com.sun.management.ThreadMXBean threads;
    private final TickStats stats;
    /** Terrain: null when off; else the chunks offered (or queued) so far and those queued. */
    private final Terrain terrain;
    private final int terrainRadius;
    private final LongSet terrainOffered = new LongSet();
    private long[] terrainQueue = new long[64];
    private int terrainHead, terrainCount;
    /** Chunks offered per tick at most (each costs a read of its sections on the tick thread). */
    static final int TERRAIN_CHUNKS_PER_TICK = 2;

    InstanceRecording(Instance instance, ShadowBuffer.Started started, Path path,
            java.util.function.Consumer<Exception> onError, TickStats stats, int terrainRadius) {
        this.instance = instance;
        this.recorder = started.recorder();
        this.shadow = started.shadow();
        this.path = path;
        this.onError = onError;
        this.stats = stats;
        this.terrainRadius = terrainRadius;
        this.terrain = terrainRadius < 0 ? null : new Terrain();
        this.threads = stats == null ? null
                : (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    }

    /** The tick the next submission will carry (the number of ticks submitted so far). */
    synchronized int tick() {
        return tick;
    }

    synchronized boolean hasSubmitted() {
        return tick > 0;
    }

    synchronized Track track(Player player) {
        return tracks.get(player);
    }

    /** A player appeared in the instance: registered, added at its pose. */
    synchronized void join(Player player) {
        if (ended || tracks.containsKey(player)) {
            return;
        }
        Track t = new Track(player);
        recorder.registerPlayer(t.id, player.getUuid(), player.getUsername());
        Pos p = player.getPosition();
        batch.entityAdd(t.id, player.getEntityType().id(), p.x(), p.y(), p.z(), p.yaw(), p.pitch());
        t.x = p.x();
        t.y = p.y();
        t.z = p.z();
        t.yaw = p.yaw();
        t.pitch = p.pitch();
        t.flags = flags(player);
        batch.flags(t.id, t.flags);
        t.health = health(player);
        batch.health(t.id, t.health);
        tracks.put(player, t);
        trackList.add(t);
        equipment(t);
    }

    /**
     * An entity other than a player appeared: registered with its type's key as its name
     * ({@code minecraft:pig}), added at its pose with the type's id as its kind.
     */
    synchronized void spawned(net.minestom.server.entity.Entity entity) {
        if (ended || others.containsKey(entity)) {
            return;
        }
        Other o = new Other(entity);
        recorder.registerEntity(new io.tickreel.EntityInfo(o.id, entity.getEntityType().id(), entity.getUuid(),
                entity.getEntityType().key().asString()));
        Pos p = entity.getPosition();
        batch.entityAdd(o.id, entity.getEntityType().id(), p.x(), p.y(), p.z(), p.yaw(), p.pitch());
        o.x = p.x();
        o.y = p.y();
        o.z = p.z();
        o.yaw = p.yaw();
        o.pitch = p.pitch();
        o.flags = flags(entity);
        batch.flags(o.id, o.flags);
        if (o.living != null) {
            o.health = health(o.living);
            batch.health(o.id, o.health);
            equipment(o.id, o.living, o.item, o.count);
        }
        others.put(entity, o);
        otherList.add(o);
    }

    /** An entity other than a player left the instance: an EntityRemove event. */
    synchronized void despawned(net.minestom.server.entity.Entity entity) {
        Other o = others.remove(entity);
        if (o == null || ended) {
            return;
        }
        otherList.remove(o);
        batch.entityRemove(o.id);
    }

    /** A player left the instance (disconnect or another instance): a PlayerLeave event. */
    synchronized void leave(Player player) {
        Track t = tracks.remove(player);
        if (t == null || ended) {
            return;
        }
        trackList.remove(t);
        batch.playerLeave(t.id);
        if (leftCount == left.length) {
            left = Arrays.copyOf(left, leftCount * 2);
        }
        left[leftCount++] = t.id;
    }

    synchronized void teleported(Player player) {
        Track t = tracks.get(player);
        if (t != null) {
            t.teleported = true;
        }
    }

    synchronized void swing(Player player, int hand) {
        Track t = tracks.get(player);
        if (t != null && !ended) {
            batch.swing(t.id, hand);
        }
    }

    synchronized void attack(int attacker, int target) {
        if (!ended) {
            batch.attack(attacker, target);
        }
    }

    /**
     * A player took damage: {@code amount} health points of the damage type {@code typeId} (named
     * {@code typeName}; recorded as cause {@code typeId + 1}, 0 being "unknown"), dealt by {@code
     * source} (an entity id) or -1.
     */
    synchronized void damage(LivingEntity entity, float amount, int typeId, String typeName, int source) {
        int id;
        if (entity instanceof Player player) {
            Track t = tracks.get(player);
            if (t == null) {
                return;
            }
            id = t.id;
        } else {
            Other o = others.get(entity);
            if (o == null) {
                return;
            }
            id = o.id;
        }
        if (ended) {
            return;
        }
        int cause = typeId + 1;
        if (!namedCauses.get(cause)) {
            recorder.registerName(PaletteKind.DAMAGE_CAUSE, cause, typeName);
            namedCauses.set(cause);
        }
        batch.damage(id, Math.round(amount * 100), cause,
                source < 0 ? OptionalInt.empty() : OptionalInt.of(source));
    }

    /**
     * A player used the item in a hand: on nothing ({@code targetEntity} -1 and no block), on an
     * entity, or on the block at {@code block} ({x, y, z}).
     */
    synchronized void use(Player player, int hand, ItemStack stack, int targetEntity, int[] block) {
        Track t = tracks.get(player);
        if (t == null || ended) {
            return;
        }
        int item = item(stack);
        if (block != null) {
            batch.useOnBlock(t.id, hand, item, block[0], block[1], block[2]);
        } else if (targetEntity >= 0) {
            batch.useOnEntity(t.id, hand, item, targetEntity);
        } else {
            batch.use(t.id, hand, item);
        }
    }

    /** The item palette's id of a stack's material (0 for nothing), its name registered on first use. */
    private int item(ItemStack stack) {
        if (stack.isAir()) {
            return 0;
        }
        Material m = stack.material();
        int item = m.id();
        if (!namedItems.get(item)) {
            recorder.registerName(PaletteKind.ITEM, item, Names.item(m));
            namedItems.set(item);
        }
        return item;
    }

    synchronized void chat(Player player, String text) {
        Track t = tracks.get(player);
        if (t != null && !ended) {
            batch.chat(t.optId, Batch.CHANNEL_PUBLIC, text);
        }
    }

    /**
     * A block at (x, y, z) was edited by {@code player}, or changed by the server itself ({@code
     * player} null: Minestom's {@code InstanceBlockUpdateEvent}, fired for every {@code setBlock}):
     * its new state is read at the tick's end, once per position and tick (a player's edit and
     * the block update it causes are one change, caused by the player).
     */
    synchronized void edited(Player player, int x, int y, int z) {
        if (ended) {
            return;
        }
        for (int i = 0; i < edits; i++) {
            if (editX[i] == x && editY[i] == y && editZ[i] == z) {
                if (player != null) {
                    editCause[i] = tracks.get(player);
                }
                return;
            }
        }
        if (edits == editX.length) {
            int n = edits * 2;
            editX = Arrays.copyOf(editX, n);
            editY = Arrays.copyOf(editY, n);
            editZ = Arrays.copyOf(editZ, n);
            editCause = Arrays.copyOf(editCause, n);
        }
        editX[edits] = x;
        editY[edits] = y;
        editZ[edits] = z;
        editCause[edits] = player == null ? null : tracks.get(player);
        edits++;
    }

    /**
     * The instance ticked: completes the previous tick's batch (poses, flags, equipment, edited
     * blocks) and submits it. Called from the instance's tick.
     */
    synchronized void endTick() {
        if (ended) {
            return;
        }
        long before = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
        long started = threads == null ? 0 : System.nanoTime();
        boolean offered = false;
        try {
            complete();
            offered = offerTerrain();
            recorder.submit(tick, batch);
            tick++;
            for (int i = 0; i < leftCount; i++) {
                recorder.playerLeft(left[i]);
            }
            if (tick % STATUS_EVERY == 0) {
                checkStatus();
            }
        } catch (RuntimeException e) {
            onError.accept(e);
            tick++;
        } finally {
            batch.clear();
            leftCount = 0;
            if (threads != null) {
                stats.add(tick, threads.getCurrentThreadAllocatedBytes() - before, offered, System.nanoTime() - started);
            }
        }
    }

    /**
     * Looks at the writer's status: a new error (a failed flush: the folder unwritable, the disk
     * full) goes to the error handler once; the recording goes on in memory (the writer retries)
     * and the server is not disturbed. Once ticks after the error are durable again, says so.
     */
    private void checkStatus() {
        java.util.Optional<io.tickreel.TickreelException> status = recorder.status();
        if (status.isPresent()) {
            String message = status.get().getMessage();
            if (!message.equals(lastStatus)) {
                lastStatus = message;
                statusTick = tick;
                writingAgain = false;
                onError.accept(new IllegalStateException("recording " + path + " of instance "
                        + instance.getUuid() + ": " + message + " (recording goes on in memory, retried)", status.get()));
                return;
            }
        }
        if (lastStatus != null && !writingAgain) {
            java.util.OptionalInt flushed = recorder.stats().flushedTick();
            if (flushed.isPresent() && flushed.getAsInt() > statusTick) {
                writingAgain = true;
                net.minestom.server.MinecraftServer.LOGGER.info("tickreel: recording {} is written again (durable up to tick {})",
                        path, flushed.getAsInt());
            }
        }
    }

    private void complete() {
        for (int i = 0, n = trackList.size(); i < n; i++) {
            Track t = trackList.get(i);
            Player player = t.player;
            Pos p = player.getPosition();
            if (p.x() != t.x || p.y() != t.y || p.z() != t.z || p.yaw() != t.yaw || p.pitch() != t.pitch) {
                if (t.teleported) {
                    batch.teleport(t.id, p.x(), p.y(), p.z(), p.yaw(), p.pitch());
                } else {
                    batch.pose(t.id, p.x(), p.y(), p.z(), p.yaw(), p.pitch());
                }
                t.x = p.x();
                t.y = p.y();
                t.z = p.z();
                t.yaw = p.yaw();
                t.pitch = p.pitch();
            }
            t.teleported = false;
            if (terrain != null) {
                int cx = (int) Math.floor(p.x()) >> 4;
                int cz = (int) Math.floor(p.z()) >> 4;
                if (cx != t.chunkX || cz != t.chunkZ) {
                    t.chunkX = cx;
                    t.chunkZ = cz;
                    queueTerrainAround(cx, cz);
                }
            }
            int h = health(player);
            if (h != t.health) {
                batch.health(t.id, h);
                t.health = h;
            }
            int f = flags(player);
            if (f != t.flags) {
                batch.flags(t.id, f);
                t.flags = f;
            }
            equipment(t);
        }
        for (int i = 0, n = otherList.size(); i < n; i++) {
            Other o = otherList.get(i);
            Pos p = o.entity.getPosition();
            if (p.x() != o.x || p.y() != o.y || p.z() != o.z || p.yaw() != o.yaw || p.pitch() != o.pitch) {
                batch.pose(o.id, p.x(), p.y(), p.z(), p.yaw(), p.pitch());
                o.x = p.x();
                o.y = p.y();
                o.z = p.z();
                o.yaw = p.yaw();
                o.pitch = p.pitch();
            }
            int f = flags(o.entity);
            if (f != o.flags) {
                batch.flags(o.id, f);
                o.flags = f;
            }
            if (o.living != null) {
                int h = health(o.living);
                if (h != o.health) {
                    batch.health(o.id, h);
                    o.health = h;
                }
                equipment(o.id, o.living, o.item, o.count);
            }
        }
        for (int i = 0; i < edits; i++) {
            Block block = instance.getBlock(editX[i], editY[i], editZ[i]);
            int state = block.stateId();
            if (!namedStates.get(state)) {
                recorder.registerName(PaletteKind.BLOCK, state, Names.blockState(block));
                namedStates.set(state);
            }
            Track cause = editCause[i];
            batch.blockChange(editX[i], editY[i], editZ[i], state,
                    cause == null ? OptionalInt.empty() : cause.optId, null);
            editCause[i] = null;
        }
        edits = 0;
    }

    /** Queues the chunks within the terrain radius of chunk (cx, cz) not offered yet. */
    private void queueTerrainAround(int cx, int cz) {
        for (int dx = -terrainRadius; dx <= terrainRadius; dx++) {
            for (int dz = -terrainRadius; dz <= terrainRadius; dz++) {
                long key = ((long) (cx + dx) << 32) | ((cz + dz) & 0xFFFFFFFFL);
                if (terrainOffered.add(key)) {
                    if (terrainCount == terrainQueue.length) {
                        long[] grown = new long[terrainQueue.length * 2];
                        for (int i = 0; i < terrainCount; i++) {
                            grown[i] = terrainQueue[(terrainHead + i) % terrainQueue.length];
                        }
                        terrainQueue = grown;
                        terrainHead = 0;
                    }
                    terrainQueue[(terrainHead + terrainCount) % terrainQueue.length] = key;
                    terrainCount++;
                }
            }
        }
    }

    /**
     * Offers the terrain of up to {@link #TERRAIN_CHUNKS_PER_TICK} queued chunks (a chunk not
     * loaded is forgotten, to be queued again when a player comes near it). Returns whether it
     * offered any.
     */
    private boolean offerTerrain() {
        if (terrain == null || terrainCount == 0) {
            return false;
        }
        java.util.List<io.tickreel.TerrainSection> sections = new java.util.ArrayList<>();
        for (int n = 0; n < TERRAIN_CHUNKS_PER_TICK && terrainCount > 0; n++) {
            long key = terrainQueue[terrainHead];
            terrainHead = (terrainHead + 1) % terrainQueue.length;
            terrainCount--;
            int cx = (int) (key >> 32);
            int cz = (int) key;
            net.minestom.server.instance.Chunk chunk = instance.getChunk(cx, cz);
            if (chunk == null || !chunk.isLoaded()) {
                terrainOffered.remove(key);
                continue;
            }
            sections.addAll(terrain.sections(chunk, this::nameState));
        }
        if (sections.isEmpty()) {
            return false;
        }
        recorder.offerTerrain(sections);
        return true;
    }

    private void nameState(int state) {
        if (!namedStates.get(state)) {
            String name = Names.blockState(state);
            if (name != null) {
                recorder.registerName(PaletteKind.BLOCK, state, name);
            }
            namedStates.set(state);
        }
    }

    private void equipment(Track t) {
        equipment(t.id, t.player, t.item, t.count);
    }

    /** Equipment events for the slots of {@code e} whose item or count differ from {@code lastItem}, {@code lastCount}. */
    private void equipment(int id, LivingEntity e, int[] lastItem, int[] lastCount) {
        for (int s = 0; s < SLOTS.length; s++) {
            ItemStack stack = e.getEquipment(SLOTS[s]);
            int item;
            int count;
            item = item(stack);
            count = item == 0 ? 0 : stack.amount();
            if (item != lastItem[s] || count != lastCount[s]) {
                batch.equipment(id, s, item, count);
                lastItem[s] = item;
                lastCount[s] = count;
            }
        }
    }

    /** The entity's health in hundredths of a health point (a heart is 200). */
    static int health(LivingEntity entity) {
        return Math.max(0, Math.round(entity.getHealth() * 100));
    }

    static int flags(net.minestom.server.entity.Entity player) {
        int f = 0;
        if (player.isOnGround()) {
            f |= EntityFlags.ON_GROUND;
        }
        if (player.isSneaking()) {
            f |= EntityFlags.SNEAKING;
        }
        if (player.isSprinting()) {
            f |= EntityFlags.SPRINTING;
        }
        if (player instanceof LivingEntity l && l.isFlyingWithElytra()) {
            f |= EntityFlags.GLIDING;
        }
        return f;
    }

    /**
     * Ends the recording: submits what was gathered since the last tick (every player leaving),
     * then starts the compaction. Returns its result, or null if the recording could not be
     * finished (the error went to the error handler).
     */
    synchronized Pending<Path> finish() {
        if (ended) {
            return null;
        }
        try {
            for (int i = trackList.size() - 1; i >= 0; i--) {
                leave(trackList.get(i).player);
            }
            for (int i = otherList.size() - 1; i >= 0; i--) {
                despawned(otherList.get(i).entity);
            }
            complete();
            recorder.submit(tick, batch);
            tick++;
        } catch (RuntimeException e) {
            onError.accept(e);
        } finally {
            ended = true;
            batch.clear();
        }
        try {
            return recorder.finish();
        } catch (RuntimeException e) {
            onError.accept(e);
            return null;
        } finally {
            recorder.close();
        }
    }
}
