import io.tickreel.Engine;
import io.tickreel.EntityFlags;
import io.tickreel.EntityState;
import io.tickreel.Event;
import io.tickreel.Pending;
import io.tickreel.Ghost;
import io.tickreel.GhostCursor;
import io.tickreel.GhostSample;
import io.tickreel.LiveDelta;
import io.tickreel.Update;
import io.tickreel.Playhead;
import io.tickreel.Recorder;
import io.tickreel.RecorderOptions;
import io.tickreel.Reader;
import io.tickreel.Header;
import io.tickreel.SeekState;
import io.tickreel.Batch;
import io.tickreel.Tickreel;
import io.tickreel.TickreelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * A parkour course on a game server, reduced to its tick loop, as a Paper or Minestom plugin would
 * drive tickreel: players run the course, each run is recorded live, the best run so far becomes a
 * ghost that the next runs race (sampled every tick, with a live time delta), and at the end a
 * staff member reviews one run.
 *
 * <p>Run: {@code mvn -f java-bindings/pom.xml install -DskipTests && java -cp java-bindings/tickreel/target/tickreel-0.1.0.jar
 * examples/java/CourseServer.java [output directory]}.
 *
 * <p>The server thread never waits on tickreel: {@link Recorder#submit} is a copy and a queue push,
 * {@link Recorder#finish()} returns a handle polled every tick while the engine compacts, and the
 * new best run's ghost is loaded in the background ({@link Ghost#loadAsync}) and polled too. The
 * staff review seeks with {@link Reader#seek} and watches the run with a {@link Playhead} (one
 * {@code advance()} per server tick, at 2x, then in reverse).
 */
public final class CourseServer {
    static final int TICKS_PER_SECOND = 20;
    /** Checkpoint lines along x; the last one is the finish. */
    static final double[] CHECKPOINTS = {40, 80, 120, 160};
    static final double GROUND = 64;

    /** A player on the server. */
    record Racer(int entityId, UUID uuid, String name, double pace) {}

    /** The best run so far, as a ghost. */
    record Best(String owner, int finishTicks, Ghost ghost) {}

    /** A finished run whose final file the engine is still compacting. */
    record Finishing(Racer racer, int ticks, List<Integer> splits, Pending<Path> handle) {}

    /** One attempt at the course, recorded to its own file, racing the best run's ghost. */
    static final class Run implements AutoCloseable {
        final Racer racer;
        final Path file;
        final Recorder recorder;
        final Best best;
        final GhostCursor cursor;
        final LiveDelta delta;
        final int startTick;
        final List<Integer> splits = new ArrayList<>();
        double x;
        double y = GROUND;
        double z;
        double vy;
        double yaw = -90;
        int checkpoint;
        int flags;

        Run(Engine engine, Racer racer, Path file, int startTick, Best best) {
            this.racer = racer;
            this.file = file;
            this.startTick = startTick;
            this.best = best;
            RecorderOptions options = RecorderOptions.builder()
                    .worldId(new UUID(0x5EED, 1))
                    .ticksPerSecond(TICKS_PER_SECOND)
                    .chunkTicks(100)
                    .overwrite(true)
                    .build();
            this.recorder = engine.startRecording(file, options);
            recorder.registerPlayer(racer.entityId(), racer.uuid(), racer.name());
            recorder.setUserMetadata("course", "canyon");
            recorder.setUserMetadata("runner", racer.uuid());
            if (best != null) {
                recorder.setUserMetadata("raced_ghost_of", best.owner());
                cursor = best.ghost().cursor();
                delta = best.ghost().liveDelta();
            } else {
                cursor = null;
                delta = null;
            }
        }

        @Override
        public void close() {
            recorder.close();
            if (cursor != null) {
                cursor.close();
                delta.close();
            }
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
        Best best = null;
        int bestTicks = Integer.MAX_VALUE;
        Pending<Ghost> nextGhost = null; // the new best run's ghost, loading in the background
        String nextOwner = null;
        int nextTicks = 0;
        List<Finishing> finishing = new ArrayList<>();
        List<Path> finished = new ArrayList<>();
        Batch events = new Batch(256); // one per server thread, reused every tick
        GhostSample ghost = new GhostSample(); // reused every tick
        int runs = 0;

        try (Engine engine = new Engine()) { // plugin enable .. disable
            // The server's tick loop (20 ticks/s; simulated here without sleeping).
            for (int tick = 0; tick < 5 * 60 * TICKS_PER_SECOND; tick++) {
                // Completed compactions and ghost loads, polled without waiting.
                for (Iterator<Finishing> it = finishing.iterator(); it.hasNext(); ) {
                    Finishing f = it.next();
                    Path file = f.handle().poll().orElse(null);
                    if (file == null) {
                        continue;
                    }
                    it.remove();
                    f.handle().close();
                    finished.add(file);
                    if (f.ticks() < bestTicks) {
                        bestTicks = f.ticks();
                        if (nextGhost != null) {
                            nextGhost.close(); // an even better run came in: cancel that load
                        }
                        nextGhost = Ghost.loadAsync(file, f.racer().entityId());
                        nextOwner = f.racer().name();
                        nextTicks = f.ticks();
                    }
                }
                if (nextGhost != null && nextGhost.isReady()) {
                    Ghost g = nextGhost.poll().orElseThrow();
                    nextGhost.close();
                    nextGhost = null;
                    // Runs in progress keep racing the ghost they started with (cursors hold the data).
                    if (best != null) {
                        best.ghost().close();
                    }
                    best = new Best(nextOwner, nextTicks, g);
                    System.out.printf("t=%5d ghost of %s loaded: %.2f s, splits %s%n", tick, nextOwner,
                            g.durationSeconds(), g.splits().stream().map(s -> s.tick()).toList());
                }

                for (int i = 0; i < racers.size(); i++) {
                    Racer racer = racers.get(i);
                    Run run = active[i];
                    if (run == null) {
                        if (tick < restUntil[i]) {
                            continue;
                        }
                        Path file = dir.resolve(String.format("run-%03d-%s.reel", ++runs, racer.name().toLowerCase()));
                        run = active[i] = new Run(engine, racer, file, tick, best);
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
                    if (!run.recorder.submit(tick, events)) { // one native call per tick per recording
                        System.out.println("  tick " + tick + " of " + racer.name() + " dropped (writer behind)");
                    }
                    int elapsed = tick - run.startTick;
                    if (run.cursor != null) {
                        // Where to draw the ghost this tick, and how far ahead or behind the player is.
                        run.cursor.sample(elapsed, ghost);
                        double delta = run.delta.update(elapsed, run.x, run.y, run.z);
                        if (elapsed % 100 == 50 && !done) {
                            System.out.printf("  t=%5d %-4s %s vs the ghost of %s (ghost at x=%.1f%s)%n", tick,
                                    racer.name(), run.delta.formatted(), run.best.owner(), ghost.x(),
                                    ghost.state() == GhostSample.State.FINISHED ? ", finished" : "");
                            assert Double.isFinite(delta);
                        }
                    }
                    if (done) {
                        int time = elapsed;
                        Finishing f = new Finishing(racer, time, List.copyOf(run.splits), run.recorder.finish());
                        finishing.add(f);
                        run.close();
                        active[i] = null;
                        restUntil[i] = tick + 2 * TICKS_PER_SECOND;
                        boolean newBest = time < bestTicks
                                && finishing.stream().noneMatch(o -> o != f && o.ticks() <= time);
                        String verdict = newBest ? "  new best: the ghost for the next runs" : "";
                        String vs = run.delta != null ? " (" + run.delta.formatted() + " at the line)" : "";
                        System.out.printf("t=%5d %-4s finished in %5.2f s (splits %s)%s%s%n", tick, racer.name(),
                                time / (double) TICKS_PER_SECOND, run.splits, vs, verdict);
                    }
                }
            }
            for (Run run : active) {
                if (run != null) {
                    run.recorder.abort(); // unfinished runs at shutdown are discarded
                    run.close();
                }
            }
            for (Finishing f : finishing) {
                finished.add(f.handle().await());
                f.handle().close();
            }
            if (nextGhost != null) {
                nextGhost.close();
            }
            if (best != null) {
                best.ghost().close();
            }
            System.out.printf("engine: %s%n", engine.stats());
        } // closing the engine joins its threads: nothing of tickreel runs after plugin disable

        // A staff member reviews the last finished run: what it is, where everyone was, its splits.
        Path review = finished.get(finished.size() - 1);
        try (Reader replay = Reader.open(review)) {
            Header info = replay.header();
            System.out.printf("%nstaff review of %s: %d ticks (%.1f s), %s by %s, ghost raced: %s%n",
                    review.getFileName(), info.tickCount(), info.durationSeconds(), replay.metadata().get("course"),
                    replay.entities().get(0).name(), replay.metadata().getOrDefault("raced_ghost_of", "none"));
            int first = info.firstTick().orElseThrow();
            int last = info.lastTick().orElseThrow();
            SeekState middle = replay.seek((first + last) / 2);
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
        // The staff member watches the run: one advance() per server tick, at 2x, then rewinds.
        try (Playhead playhead = Playhead.open(review)) {
            playhead.setSpeed(2.0);
            playhead.play();
            for (int serverTick = 0; serverTick < 5; serverTick++) {
                Update u = playhead.advance();
                EntityState runner = u.entities().isEmpty() ? null : u.entities().get(0);
                System.out.printf("  playback %s%s%n", u,
                        runner == null ? "" : String.format(" runner x=%.2f", runner.pose().x()));
            }
            playhead.setReverse(true);
            System.out.println("  rewind " + playhead.advance());
        } catch (TickreelException e) {
            System.out.println("review failed: " + e.kind() + ": " + e.getMessage());
        }
    }

    /** One tick of running: returns false if the racer stood still. May add a teleport (a fall). */
    static boolean move(Run run, Random rng, Batch events) {
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
