package io.tickreel.examples.minestom;

import io.tickreel.minestom.Course;
import io.tickreel.minestom.TickreelMinestom;
import io.tickreel.minestom.TickreelMinestomOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import net.kyori.adventure.text.Component;
import net.minestom.server.Auth;
import net.minestom.server.MinecraftServer;
import net.minestom.server.coordinate.Pos;
import net.minestom.server.entity.EntityCreature;
import net.minestom.server.entity.EntityType;
import net.minestom.server.entity.GameMode;
import net.minestom.server.entity.LivingEntity;
import net.minestom.server.entity.damage.Damage;
import net.minestom.server.entity.damage.DamageType;
import net.minestom.server.event.entity.EntityAttackEvent;
import net.minestom.server.entity.Player;
import net.minestom.server.event.GlobalEventHandler;
import net.minestom.server.event.player.AsyncPlayerConfigurationEvent;
import net.minestom.server.event.server.ServerTickMonitorEvent;
import net.minestom.server.event.player.PlayerSpawnEvent;
import net.minestom.server.instance.InstanceContainer;
import net.minestom.server.instance.block.Block;
import net.minestom.server.item.ItemStack;
import net.minestom.server.item.Material;
import net.minestom.server.timer.TaskSchedule;

/**
 * tickreel's example Minestom server: offline mode, a flat world (grass at y = 39, players stand at
 * y = 40), a time-trial course east of spawn ({@link #COURSE}: runs recorded and raced as ghosts),
 * a few parkour jumps beside it, a pig walking in a circle west of spawn, every player given
 * blocks to place, a hit by a
 * player costing 1 health point, recording and shadow play on ({@link TickreelMinestom}), {@code /report <player> <reason>}.
 *
 * <p>Arguments: {@code --port P} (default 25565), {@code --data DIR} (default {@code
 * minestom-data}: recordings, reports and {@code catalog.sqlite}), {@code --host H} (default
 * 127.0.0.1), {@code --report-after SECONDS} (default 10), {@code --no-record} (tickreel not
 * installed: the baseline of bench.sh), {@code --tick-times FILE} (a line per server tick,
 * written at shutdown: its duration in ms, then the adapter's allocation figures so far ({@code
 * TickStats}: bytes of the per-tick work, ticks that offered terrain, their bytes, bytes of all its
 * listeners, nanoseconds of the per-tick work without terrain), all 0 without recording). Prints {@code ready <port>} on standard
 * output once it accepts connections; on SIGTERM or SIGINT finishes every recording and exits 0.
 */
public final class ExampleServer {
    /** Where players appear. */
    public static final Pos SPAWN = new Pos(0.5, 40, 0.5);

    private ExampleServer() {}

    public static void main(String[] args) {
        int port = 25565;
        String host = "127.0.0.1";
        Path data = Path.of("minestom-data");
        long reportAfter = 10;
        boolean record = true;
        Path tickTimes = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--host" -> host = args[++i];
                case "--report-after" -> reportAfter = Long.parseLong(args[++i]);
                case "--no-record" -> record = false;
                case "--tick-times" -> tickTimes = Path.of(args[++i]);
                default -> {
                    System.err.println("unknown argument " + args[i] + "; usage: --port P --data DIR [--host H]"
                            + " [--report-after SECONDS] [--no-record] [--tick-times FILE]");
                    System.exit(2);
                }
            }
        }

        MinecraftServer server = MinecraftServer.init(new Auth.Offline());
        InstanceContainer world = MinecraftServer.getInstanceManager().createInstanceContainer();
        world.setGenerator(unit -> {
            unit.modifier().fillHeight(0, 36, Block.STONE);
            unit.modifier().fillHeight(36, 39, Block.DIRT);
            unit.modifier().fillHeight(39, 40, Block.GRASS_BLOCK);
        });
        buildCourse(world);

        TickreelMinestom tickreel = !record ? null : TickreelMinestom.install(TickreelMinestomOptions.builder(data)
                .serverName("example")
                .reportAfter(Duration.ofSeconds(reportAfter))
                .measureAllocations(true)
                .build());

        if (tickreel != null) {
            tickreel.addCourse(world, COURSE);
        }
        // A pig the server walks in a circle (centre -6, 6; radius 3; a turn in about 6 s): an
        // entity that is not a player, recorded with its kind's name.
        EntityCreature pig = new EntityCreature(EntityType.PIG);
        pig.setNoGravity(true);
        pig.setInstance(world, new Pos(-3, 40, 6)).join();
        // Every 2 s it takes 1 point of magic damage (back to full health
        // at 4), starts or stops sneaking and takes a carrot in its mouth (main hand) or drops it:
        // a mob's health, damage, flags and equipment, recorded as a player's are.
        double[] angle = {0};
        int[] pigTicks = {0};
        MinecraftServer.getSchedulerManager().buildTask(() -> {
            angle[0] += 0.05;
            double a = angle[0];
            pig.teleport(new Pos(-6 + 3 * Math.cos(a), 40, 6 + 3 * Math.sin(a), (float) Math.toDegrees(a), 0));
            if (++pigTicks[0] % 40 == 0) {
                if (pig.getHealth() <= 4) {
                    pig.setHealth(10f);   // a pig's maximum
                } else {
                    pig.damage(new Damage(DamageType.MAGIC, null, null, null, 1f));
                }
                pig.setSneaking(!pig.isSneaking());
                pig.setItemInMainHand(pig.getItemInMainHand().isAir() ? ItemStack.of(Material.CARROT) : ItemStack.AIR);
            }
        }).repeat(TaskSchedule.tick(1)).schedule();

        // A lamp the server switches on and off by itself every 2 s, hanging at (4, 45, -4): a block
        // change no player makes (recorded through Minestom's InstanceBlockUpdateEvent).
        int[] lampTicks = {0};
        MinecraftServer.getSchedulerManager().buildTask(() -> {
            if (++lampTicks[0] % 40 == 0) {
                world.setBlock(LAMP, Block.REDSTONE_LAMP.withProperty("lit", lampTicks[0] % 80 == 0 ? "true" : "false"));
            }
        }).repeat(TaskSchedule.tick(1)).schedule();

        GlobalEventHandler events = MinecraftServer.getGlobalEventHandler();
        // --tick-times: every server tick's duration (Minestom's tick monitor), written at shutdown
        // (examples/minestom-server/bench.sh).
        // Beside each duration, the adapter's running allocation figures (TickStats), so bench.sh
        // takes both over the same window of ticks (the steady state, after the bots joined).
        double[][] times = {new double[1 << 16]};
        long[][] allocated = {new long[1 << 16]};
        long[][] terrainTicks = {new long[1 << 16]};
        long[][] terrainBytes = {new long[1 << 16]};
        long[][] listenerBytes = {new long[1 << 16]};
        long[][] workNanos = {new long[1 << 16]};
        int[] timeCount = {0};
        java.util.Optional<io.tickreel.minestom.TickStats> stats =
                tickreel == null ? java.util.Optional.empty() : tickreel.tickStats();
        if (tickTimes != null) {
            events.addListener(ServerTickMonitorEvent.class, e -> {
                int n = timeCount[0];
                if (n == times[0].length) {
                    times[0] = java.util.Arrays.copyOf(times[0], n * 2);
                    allocated[0] = java.util.Arrays.copyOf(allocated[0], n * 2);
                    terrainTicks[0] = java.util.Arrays.copyOf(terrainTicks[0], n * 2);
                    terrainBytes[0] = java.util.Arrays.copyOf(terrainBytes[0], n * 2);
                    listenerBytes[0] = java.util.Arrays.copyOf(listenerBytes[0], n * 2);
                    workNanos[0] = java.util.Arrays.copyOf(workNanos[0], n * 2);
                }
                times[0][n] = e.getTickMonitor().getTickTime();
                if (stats.isPresent()) {
                    allocated[0][n] = stats.get().bytes();
                    terrainTicks[0][n] = stats.get().terrainTicks();
                    terrainBytes[0][n] = stats.get().terrainBytes();
                    listenerBytes[0][n] = stats.get().listenerBytes();
                    workNanos[0][n] = stats.get().nanos();
                }
                timeCount[0] = n + 1;
            });
        }
        Path timesFile = tickTimes;
        events.addListener(AsyncPlayerConfigurationEvent.class, e -> {
            e.setSpawningInstance(world);
            e.getPlayer().setRespawnPoint(SPAWN);
        });
        events.addListener(PlayerSpawnEvent.class, e -> {
            if (!e.isFirstSpawn()) {
                return;
            }
            Player p = e.getPlayer();
            p.setGameMode(GameMode.SURVIVAL);
            p.getInventory().setItemStack(0, ItemStack.of(Material.STONE, 64));
            p.getInventory().setItemStack(1, ItemStack.of(Material.OAK_PLANKS, 64));
            p.getInventory().setItemStack(2, ItemStack.of(Material.OAK_LOG, 64));
            p.getInventory().setItemStack(3, ItemStack.of(Material.GLASS, 64));
            p.sendMessage(Component.text("Recording is on. Time trial: from the gold pad (x 8..10, z -10) east through"
                    + " the gates to the emerald pad; your best run races you as a ghost. /report <player> <reason>"));
        });

        // Minestom applies no attack damage by itself: a hit by a player costs the target 1 health
        // point (no knockback, no regeneration).
        events.addListener(EntityAttackEvent.class, e -> {
            if (e.getEntity() instanceof Player attacker && e.getTarget() instanceof LivingEntity target) {
                target.damage(new Damage(DamageType.PLAYER_ATTACK, attacker, attacker, null, 1f));
            }
        });

        // SIGTERM / SIGINT: the JVM runs the shutdown hooks; this one stops the server, finishes
        // every recording and then halts with status 0 (the JVM's own status for a signal is 143).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("stopping: finishing every recording");
            int status = 0;
            try {
                MinecraftServer.stopCleanly();
                Thread.sleep(100);            // a tick already running ends (the recordings ignore it after close)
                if (tickreel != null) {
                    tickreel.close();
                    for (Path p : tickreel.finishedRecordings()) {
                        System.err.println("finished " + p);
                    }
                    tickreel.tickStats().ifPresent(s -> System.err.println(s));
                }
                if (timesFile != null) {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < timeCount[0]; i++) {
                        sb.append(times[0][i]).append(' ').append(allocated[0][i]).append(' ')
                                .append(terrainTicks[0][i]).append(' ').append(terrainBytes[0][i]).append(' ')
                                .append(listenerBytes[0][i]).append(' ').append(workNanos[0][i]).append('\n');
                    }
                    java.nio.file.Files.writeString(timesFile, sb);
                }
            } catch (Throwable t) {
                t.printStackTrace();
                status = 1;
            }
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }, "tickreel-shutdown"));

        server.start(host, port);
        if (record) {
            System.err.println("recordings and catalog in " + data.toAbsolutePath()
                    + " (open with: tickreel serve " + data.toAbsolutePath() + ")");
        } else {
            System.err.println("recording off (--no-record)");
        }
        System.out.println("ready " + port);
        System.out.flush();
    }

    /** The time-trial course east of spawn: start on the gold pad, through two gates, to the emerald pad. */
    public static final Course COURSE = new Course("sprint",
            Course.Region.blocks(8, 40, -11, 10, 41, -9),
            List.of(Course.Region.blocks(15, 40, -12, 15, 42, -8), Course.Region.blocks(22, 40, -12, 22, 42, -8)),
            Course.Region.blocks(28, 40, -11, 30, 41, -9));

    /**
     * Builds the course: a gold start pad (x 8..10, z -11..-9), stone-brick gates at x = 15 and
     * x = 22, an emerald finish pad (x 28..30), all on the ground along z = -10; and a few
     * parkour jumps beside it (z = -16) for people.
     */
    /** The lamp the server switches every 2 s. */
    static final net.minestom.server.coordinate.BlockVec LAMP = new net.minestom.server.coordinate.BlockVec(4, 45, -4);

    static void buildCourse(InstanceContainer world) {
        for (int cx = 0; cx <= 2; cx++) {
            for (int cz = -2; cz <= 0; cz++) {
                world.loadChunk(cx, cz).join();
            }
        }
        for (int dz = -1; dz <= 1; dz++) {
            for (int x = 8; x <= 10; x++) {
                world.setBlock(x, 39, -10 + dz, Block.GOLD_BLOCK);
            }
            for (int x = 28; x <= 30; x++) {
                world.setBlock(x, 39, -10 + dz, Block.EMERALD_BLOCK);
            }
        }
        for (int gateX : new int[] {15, 22}) {
            for (int y = 40; y <= 42; y++) {
                world.setBlock(gateX, y, -13, Block.STONE_BRICKS);
                world.setBlock(gateX, y, -7, Block.STONE_BRICKS);
            }
            for (int z = -13; z <= -7; z++) {
                world.setBlock(gateX, 43, z, Block.STONE_BRICKS);
            }
        }
        int[][] jumps = {{9, 40}, {12, 41}, {15, 42}, {18, 42}, {21, 43}};
        for (int[] j : jumps) {
            world.setBlock(j[0], j[1], -16, Block.STONE_BRICKS);
        }
    }
}
