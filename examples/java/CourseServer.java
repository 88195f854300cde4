import io.tickreel.EntityFlags;
import io.tickreel.EntityInfo;
import io.tickreel.Event;
import io.tickreel.Pose;
import io.tickreel.RecordingOptions;
import io.tickreel.Replay;
import io.tickreel.ReplayInfo;
import io.tickreel.ReplayState;
import io.tickreel.ReplayTick;
import io.tickreel.ReplayWriter;
import io.tickreel.TickWriter;
import io.tickreel.Tickreel;
import io.tickreel.TickreelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * A parkour course on a game server, reduced to its tick loop, as a Paper or Minestom plugin would
 * drive tickreel: players run the course, each run is recorded, the best run so far becomes a
 * ghost that the next runs race, and at the end a staff member reviews one run.
 *
 * <p>Run: {@code java-bindings/build.sh && java -cp java-bindings/build/tickreel.jar
 * examples/java/CourseServer.java [output directory]}.
 *
 * <p>Today each run is written with {@link ReplayWriter} (encoding and compression on the calling
 * thread) and the ghost is read back tick by tick with {@link Replay#ticks}. With the live
 * recorder, the ghost cursor and the playhead bound in Java, the same places use
 * {@code Recorder.submit} (a copy and a queue push), {@code GhostCursor} (interpolated pose,
 * splits, live delta) and {@code Playhead} (stepping at any speed).
 */
public final class CourseServer {
    static final int TICKS_PER_SECOND = 20;
    /** Checkpoint lines along x; the last one is the finish. */
    static final double[] CHECKPOINTS = {40, 80, 120, 160};
    static final double GROUND = 64;

    /** A player on the server. */
    record Racer(int entityId, UUID uuid, String name, double pace) {}

    /** The best run so far: its poses per tick since its start, and its split ticks. */
    record Ghost(String owner, Path file, List<Pose> poses, List<Integer> splits) {
        int finishTicks() {
            return splits.get(splits.size() - 1);
        }

        /** The ghost's pose {@code ticks} after the start (it waits at the finish line). */
        Pose at(int ticks) {
            return poses.get(Math.min(ticks, poses.size() - 1));
        }

        /** Reads a recorded run back: the runner's pose at every tick, and the checkpoint ticks. */
        static Ghost load(String owner, Path file, int entity) {
            try (Replay replay = Replay.open(file)) {
                ReplayInfo info = replay.info();
                int first = info.firstTick().orElseThrow();
                List<Pose> poses = new ArrayList<>();
                List<Integer> splits = new ArrayList<>();
                Pose last = null;
                for (ReplayTick t : replay.ticks(first, info.lastTick().orElseThrow())) {
                    for (Event e : t.events()) {
                        if (e instanceof Event.EntityAdd a && a.entity() == entity) {
                            last = a.pose();
                        } else if (e instanceof Event.Moved m && m.entity() == entity) {
                            last = m.pose();
                        } else if (e instanceof Event.Teleport tp && tp.entity() == entity) {
                            last = tp.pose();
                        } else if (e instanceof Event.Checkpoint c && c.entity() == entity) {
                            splits.add(t.tick() - first);
                        }
                    }
                    while (poses.size() <= t.tick() - first) {
                        poses.add(last);
                    }
                }
                return new Ghost(owner, file, poses, splits);
            }
        }
    }

    /** One attempt at the course, recorded to its own file. */
    static final class Run implements AutoCloseable {
        final Racer racer;
        final Path file;
        final ReplayWriter writer;
        final Ghost ghost;
        final int startTick;
        final List<Integer> splits = new ArrayList<>();
        double x;
        double y = GROUND;
        double z;
        double vy;
        double yaw = -90;
        int checkpoint;
        int flags;

        Run(Racer racer, Path file, int startTick, Ghost ghost) {
            this.racer = racer;
            this.file = file;
            this.startTick = startTick;
            this.ghost = ghost;
            RecordingOptions options = RecordingOptions.builder()
                    .worldId(new UUID(0x5EED, 1))
                    .ticksPerSecond(TICKS_PER_SECOND)
                    .chunkTicks(100)
                    .build();
            this.writer = ReplayWriter.create(file, options);
            writer.registerEntity(EntityInfo.player(racer.entityId(), racer.uuid(), racer.name()));
            writer.putMetadata("course", "canyon");
            writer.putMetadata("runner", racer.uuid());
            if (ghost != null) {
                writer.putMetadata("raced_ghost_of", ghost.owner());
            }
        }

        @Override
        public void close() {
            writer.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("tickreel-course");
        Files.createDirectories(dir);
        Tickreel.load(); // fail early, at plugin enable, if the native library cannot load
        System.out.println("tickreel " + Tickreel.libraryVersion() + ", runs in " + dir);

        Random rng = new Random(7);
        List<Racer> racers = List.of(
                new Racer(101, UUID.nameUUIDFromBytes("alex".getBytes()), "Alex", 0.29),
                new Racer(102, UUID.nameUUIDFromBytes("sam".getBytes()), "Sam", 0.31),
                new Racer(103, UUID.nameUUIDFromBytes("kim".getBytes()), "Kim", 0.27));
        Run[] active = new Run[racers.size()];
        int[] restUntil = new int[racers.size()];
        Ghost best = null;
        List<Path> finished = new ArrayList<>();
        TickWriter events = new TickWriter(256); // one per server thread, reused every tick
        int runs = 0;

        // The server's tick loop (20 ticks/s; simulated here without sleeping).
        for (int tick = 0; tick < 5 * 60 * TICKS_PER_SECOND; tick++) {
            for (int i = 0; i < racers.size(); i++) {
                Racer racer = racers.get(i);
                Run run = active[i];
                if (run == null) {
                    if (tick >= restUntil[i]) {
                        Path file = dir.resolve(String.format("run-%03d-%s.reel", ++runs, racer.name().toLowerCase()));
                        active[i] = new Run(racer, file, tick, best);
                    }
                    continue;
                }
                events.clear();
                if (tick == run.startTick) {
                    events.entityAdd(racer.entityId(), 0, run.x, run.y, run.z, run.yaw, 0);
                } else if (move(run, rng, events)) {
                    events.pose(racer.entityId(), run.x, run.y, run.z, run.yaw, 10 * Math.sin(tick * 0.2));
                }
                int flags = (run.y <= GROUND ? EntityFlags.ON_GROUND : 0) | EntityFlags.SPRINTING;
                if (flags != run.flags) {
                    events.flags(racer.entityId(), flags);
                    run.flags = flags;
                }
                boolean done = false;
                if (run.x >= CHECKPOINTS[run.checkpoint]) {
                    events.checkpoint(racer.entityId(), run.checkpoint);
                    run.splits.add(tick - run.startTick);
                    done = ++run.checkpoint == CHECKPOINTS.length;
                }
                run.writer.writeTick(tick, events); // one native call per tick per recording
                int elapsed = tick - run.startTick;
                if (run.ghost != null && elapsed % 200 == 100 && !done) {
                    double delta = run.ghost.at(elapsed).x() - run.x;
                    System.out.printf("  t=%5d %-4s %5.1f blocks %s the ghost of %s%n", tick, racer.name(),
                            Math.abs(delta), delta > 0 ? "behind" : "ahead of", run.ghost.owner());
                }
                if (done) {
                    long size = run.writer.finish();
                    run.close();
                    active[i] = null;
                    restUntil[i] = tick + 2 * TICKS_PER_SECOND;
                    finished.add(run.file);
                    int time = tick - run.startTick;
                    String verdict = "";
                    if (best == null || time < best.finishTicks()) {
                        best = Ghost.load(racer.name(), run.file, racer.entityId());
                        verdict = "  new best: the ghost for the next runs";
                    }
                    System.out.printf("t=%5d %-4s finished in %5.2f s (splits %s, %d bytes)%s%n", tick,
                            racer.name(), time / (double) TICKS_PER_SECOND, run.splits, size, verdict);
                }
            }
        }
        for (Run run : active) {
            if (run != null) {
                run.close(); // unfinished runs at shutdown are discarded
            }
        }

        // A staff member reviews the last finished run: what it is, where everyone was, its splits.
        Path review = finished.get(finished.size() - 1);
        try (Replay replay = Replay.open(review)) {
            ReplayInfo info = replay.info();
            System.out.printf("%nstaff review of %s: %d ticks (%.1f s), %s by %s, ghost raced: %s%n",
                    review.getFileName(), info.tickCount(), info.durationSeconds(), replay.metadata().get("course"),
                    replay.entities().get(0).name(), replay.metadata().getOrDefault("raced_ghost_of", "none"));
            int first = info.firstTick().orElseThrow();
            int last = info.lastTick().orElseThrow();
            ReplayState middle = replay.seek((first + last) / 2);
            middle.entities().forEach(e -> System.out.printf("  at tick %d: entity %d at x=%.2f y=%.2f z=%.2f%s%n",
                    middle.tick(), e.id(), e.pose().x(), e.pose().y(), e.pose().z(),
                    e.has(EntityFlags.ON_GROUND) ? " on ground" : " in the air"));
            replay.forEachTick(first, last, t -> t.events().forEach(e -> {
                if (e instanceof Event.Checkpoint c) {
                    System.out.printf("  checkpoint %d at %.2f s%n", c.index(), (t.tick() - first) / (double) TICKS_PER_SECOND);
                } else if (e instanceof Event.Teleport tp) {
                    System.out.printf("  fell at %.2f s, back to x=%.1f%n", (t.tick() - first) / (double) TICKS_PER_SECOND, tp.pose().x());
                }
            }));
            System.out.println("  verified: " + replay.verify());
        } catch (TickreelException e) {
            System.out.println("review failed: " + e.kind() + ": " + e.getMessage());
        }
    }

    /** One tick of running: returns false if the racer stood still. May add a teleport (a fall). */
    static boolean move(Run run, Random rng, TickWriter events) {
        if (rng.nextDouble() < 0.002) {
            // Fell off: back to the last checkpoint line (a discontinuity, never interpolated).
            run.x = run.checkpoint == 0 ? 0 : CHECKPOINTS[run.checkpoint - 1];
            run.y = GROUND;
            run.vy = 0;
            events.teleport(run.racer.entityId(), run.x, run.y, run.z, run.yaw, 0);
            return false;
        }
        run.x += run.racer.pace() * (0.85 + 0.3 * rng.nextDouble());
        run.z += 0.05 * rng.nextGaussian();
        run.yaw += 2 * rng.nextGaussian();
        if (run.y <= GROUND && rng.nextDouble() < 0.08) {
            run.vy = 0.42;
        }
        run.y += run.vy;
        run.vy = (run.vy - 0.08) * 0.98;
        if (run.y <= GROUND) {
            run.y = GROUND;
            run.vy = 0;
        }
        return true;
    }
}
