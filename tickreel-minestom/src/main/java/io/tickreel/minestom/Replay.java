package io.tickreel.minestom;

import io.tickreel.EntityInfo;
import io.tickreel.PaletteKind;
import io.tickreel.Playhead;
import io.tickreel.Reader;
import io.tickreel.Update;
import io.tickreel.WorldChange;
import io.tickreel.WorldState;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;
import net.minestom.server.coordinate.Pos;
import net.minestom.server.coordinate.Vec;
import net.minestom.server.entity.Entity;
import net.minestom.server.entity.EntityType;
import net.minestom.server.entity.Player;
import net.minestom.server.instance.Instance;
import net.minestom.server.instance.block.Block;
import net.minestom.server.network.packet.server.play.BlockChangePacket;

/**
 * A recording played in game to one player: every recorded player as a player-shaped entity
 * (a mannequin named after the recorded player), every other entity as its own kind, that only the
 * viewer sees, at its recorded pose;
 * every block the recording edits shown to the viewer alone as it was at the tick shown (the
 * recording's terrain before its edit); forward, backward, at 0.25x to 16x, and
 * seek, by command. When it ends the viewer's blocks are restored and the viewer is put back where
 * they stood. Opened off the tick thread; advanced once per tick of the viewer's instance.
 */
final class Replay {
    final Player viewer;
    final Path file;
    private final Playhead playhead;
    private final Reader reader;
    private final Instance instance;
    private final Pos returnTo;
    private final Map<Integer, Entity> shown = new HashMap<>();
    private final Map<Integer, String> names = new HashMap<>();
    private final Map<Integer, java.util.UUID> uuids = new HashMap<>();
    private final Set<Long> blocksSent = new HashSet<>();
    private final Map<Integer, Block> blockOf = new HashMap<>();
    private final Set<Integer> live = new HashSet<>();
    /** Every block position the recording edits, with the recording's own block there before (terrain), or -1. */
    private final Map<Long, Long> edited = new HashMap<>();
    private boolean closed;
    private int lastAnnounced = -1;

    /** Opens the recording (blocking: call off the tick thread). */
    Replay(Player viewer, Path file) {
        this.viewer = viewer;
        this.file = file;
        this.instance = viewer.getInstance();
        this.returnTo = viewer.getPosition();
        this.reader = Reader.open(file);
        try {
            this.playhead = Playhead.open(file);
        } catch (RuntimeException e) {
            reader.close();
            throw e;
        }
        for (EntityInfo e : reader.entities()) {
            if (e.name() != null) {
                names.put(e.id(), e.name());
            }
            if (e.uuid() != null) {
                uuids.put(e.id(), e.uuid());
            }
        }
        int first = reader.header().firstTick().orElse(0);
        int last = reader.header().lastTick().orElse(first);
        reader.forEachTick(first, last, t -> {
            for (io.tickreel.Event ev : t.events()) {
                if (ev instanceof io.tickreel.Event.BlockChange b) {
                    edited.put(key(b.x(), b.y(), b.z()), -1L);
                } else if (ev instanceof io.tickreel.Event.BlockChanges bs) {
                    for (int i = 0; i < bs.xs().length; i++) {
                        edited.put(key(bs.xs()[i], bs.ys()[i], bs.zs()[i]), -1L);
                    }
                }
            }
        });
        // The recording's own block at each edited position (its terrain, where it has some): what
        // a position shows where the recording has not edited it (yet).
        try (WorldState w = reader.worldAt(first)) {
            for (Map.Entry<Long, Long> e : edited.entrySet()) {
                long k = e.getKey();
                long terrain = w.block(x(k), y(k), z(k));
                e.setValue(terrain);
            }
        }
    }

    /**
     * The mannequin's profile for a recorded player: with that player's skin when they are online
     * (their textures, signed), else their UUID and name, from which the client resolves the skin
     * where it can (an online-mode account).
     */
    static net.minestom.server.network.player.ResolvableProfile profile(java.util.UUID uuid, String name) {
        String n = name != null && name.length() <= 16 ? name : null;
        Player online = net.minestom.server.MinecraftServer.getConnectionManager().getOnlinePlayerByUuid(uuid);
        net.minestom.server.entity.PlayerSkin skin = online == null ? null : online.getSkin();
        if (skin != null && n != null) {
            return new net.minestom.server.network.player.ResolvableProfile(new net.minestom.server.network.player.GameProfile(
                    uuid, n, java.util.List.of(new net.minestom.server.network.player.GameProfile.Property("textures", skin.textures(),
                            skin.signature()))));
        }
        return new net.minestom.server.network.player.ResolvableProfile(
                new net.minestom.server.network.player.ResolvableProfile.Partial(n, uuid, java.util.List.of()));
    }

    private static long key(int x, int y, int z) {
        return ((long) x & 0x3FFFFFF) << 38 | ((long) z & 0x3FFFFFF) << 12 | (y & 0xFFF);
    }

    private static int x(long key) {
        return (int) (key >> 38);
    }

    private static int y(long key) {
        return (int) (key << 52 >> 52);
    }

    private static int z(long key) {
        return (int) (key << 26 >> 38);
    }

    Instance instance() {
        return instance;
    }

    synchronized int position() {
        return playhead.position();
    }

    /** Starts: the world at the first tick shown, then plays forward at 1x. */
    synchronized void begin() {
        try (WorldState w = playhead.worldState()) {
            for (long k : edited.keySet()) {
                sendBlock(x(k), y(k), z(k), w.block(x(k), y(k), z(k)));
            }
        }
        playhead.play();
        tick();
        viewer.sendMessage(Component.text("Replaying " + file.getFileName() + " (" + names.size()
                + " players): /replay pause|play|reverse|speed X|seek TICK|stop", NamedTextColor.AQUA));
    }

    /** One tick of the viewer's instance: the playhead advances and what changed is shown. */
    synchronized void tick() {
        if (closed) {
            return;
        }
        show(playhead.advance());
    }

    synchronized void pause() {
        playhead.pause();
    }

    synchronized void play() {
        playhead.play();
    }

    synchronized void reverse() {
        playhead.setReverse(true);
        playhead.play();
    }

    synchronized void forward() {
        playhead.setReverse(false);
        playhead.play();
    }

    synchronized void speed(double x) {
        playhead.setSpeed(x);
    }

    synchronized void seek(int tick) {
        show(playhead.seek(tick));
    }

    private void show(Update u) {
        for (int i = 0, n = u.worldChangeCount(); i < n; i++) {
            if (u.worldChangeKind(i) == WorldChange.Kind.BLOCK) {
                sendBlock(u.worldChangeX(i), u.worldChangeY(i), u.worldChangeZ(i), u.worldChangeAfter(i));
            }
        }
        live.clear();
        // Update.entities(), not the entityId(i)... accessors: in io.tickreel 0.1.0 these read the
        // array before at(i) may grow it, so their first call after a growth throws
        // ArrayIndexOutOfBoundsException.
        for (io.tickreel.EntityState st : u.entities()) {
            int id = st.id();
            live.add(id);
            io.tickreel.Pose pose = st.pose();
            Pos pos = new Pos(pose.x(), pose.y(), pose.z(), (float) pose.yaw(), (float) pose.pitch());
            Entity e = shown.get(id);
            if (e == null) {
                // A player as a mannequin (a player entity needs a connection); anything else as its kind.
                EntityType type = EntityType.fromId(st.kind());
                e = new Entity(type == null || type == EntityType.PLAYER ? EntityType.MANNEQUIN : type);
                e.setTag(TickreelMinestom.OWN, true);
                e.setNoGravity(true);
                e.setHasPhysics(false);
                String name = names.get(id);
                if (name != null) {
                    e.set(net.minestom.server.component.DataComponents.CUSTOM_NAME, Component.text(name));
                    e.setCustomNameVisible(true);
                }
                java.util.UUID uuid = uuids.get(id);
                if (uuid != null && e.getEntityMeta() instanceof net.minestom.server.entity.metadata.avatar.MannequinMeta m) {
                    m.setProfile(profile(uuid, name));
                }
                Player v = viewer;
                e.updateViewableRule(p -> p == v);
                e.setInstance(instance, pos);
                shown.put(id, e);
            } else {
                e.teleport(pos);
            }
        }
        for (Iterator<Map.Entry<Integer, Entity>> it = shown.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Entity> e = it.next();
            if (!live.contains(e.getKey())) {
                e.getValue().remove();
                it.remove();
            }
        }
        if (u.atEdge() && lastAnnounced != u.position()) {
            lastAnnounced = u.position();
            viewer.sendMessage(Component.text("Replay at tick " + u.position() + " (an end).", NamedTextColor.GRAY));
        }
    }

    /** Sends the viewer the recorded state (an unsigned id; -1: the world's own block again). */
    private void sendBlock(int x, int y, int z, long state) {
        Block block;
        if (state < 0) {
            state = edited.getOrDefault(key(x, y, z), -1L);
        }
        if (state < 0) {
            block = instance.getBlock(x, y, z);
        } else {
            block = blockOf.computeIfAbsent((int) state, s -> {
                String name = reader.paletteName(PaletteKind.BLOCK, s);
                Block b = name == null ? null : Block.fromState(name);
                return b != null ? b : Block.fromStateId(s);
            });
            if (block == null) {
                return;
            }
        }
        blocksSent.add(key(x, y, z));
        viewer.sendPacket(new BlockChangePacket(new Vec(x, y, z), block));
    }

    /** Ends: the mannequins removed, the viewer's blocks restored, the viewer put back. */
    synchronized void close(boolean putBack) {
        if (closed) {
            return;
        }
        closed = true;
        for (Entity e : shown.values()) {
            e.remove();
        }
        shown.clear();
        for (long k : blocksSent) {
            viewer.sendPacket(new BlockChangePacket(new Vec(x(k), y(k), z(k)), instance.getBlock(x(k), y(k), z(k))));
        }
        playhead.close();
        reader.close();
        if (putBack && viewer.getInstance() == instance) {
            viewer.teleport(returnTo);
        }
    }
}
