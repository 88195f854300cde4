package io.tickreel.minestom;

import io.tickreel.Batch;
import io.tickreel.Ghost;
import io.tickreel.GhostCursor;
import io.tickreel.GhostRange;
import io.tickreel.GhostSample;
import io.tickreel.LiveDelta;
import io.tickreel.Pending;
import io.tickreel.Recorder;
import io.tickreel.RecorderOptions;
import io.tickreel.Split;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;
import net.minestom.server.MinecraftServer;
import net.minestom.server.coordinate.Pos;
import net.minestom.server.entity.Entity;
import net.minestom.server.entity.EntityType;
import net.minestom.server.entity.Player;
import net.minestom.server.instance.Instance;

/**
 * Time trials on one course of one instance: each player's run is its own recording (the player
 * alone, checkpoint markers 0 at the start, 1..N at the checkpoints, N + 1 at the finish) under
 * {@code DATA/runs/}, registered in the catalog when finished; while running, the chosen run's
 * ({@link GhostChoice}: the board's best by default)
 * ghost is shown to the racer alone as a player-shaped entity (a mannequin) moved every tick by
 * the ghost cursor, the live time difference in the action bar and split messages at the
 * checkpoints. Driven from the instance's tick (after the instance's recording).
 */
final class TimeTrials {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    private final TickreelMinestom owner;
    private final Instance instance;
    private final Course course;
    private final Path dir;
    private final Map<Player, Racer> racers = new IdentityHashMap<>();
    private final List<Racer> order = new ArrayList<>();

    private static final class Racer {
        final Player player;
        boolean inStart;
        Run run;

        Racer(Player player) {
            this.player = player;
        }
    }

    private final class Run {
        final Racer racer;
        final Recorder recorder;
        final Batch batch = new Batch();
        final int id;
        int tick;
        int next = 1;
        double x, y, z, yaw, pitch;
        int flags;
        GhostChoice choice;
        Pending<Ghost> ghostPending;
        Ghost ghost;
        GhostCursor cursor;
        LiveDelta delta;
        final GhostSample sample = new GhostSample();
        Entity ghostEntity;
        List<Split> ghostSplits = List.of();

        Run(Racer racer, Recorder recorder) {
            this.racer = racer;
            this.recorder = recorder;
            this.id = racer.player.getEntityId();
        }
    }

    TimeTrials(TickreelMinestom owner, Instance instance, Course course, Path dir) {
        this.owner = owner;
        this.instance = instance;
        this.course = course;
        this.dir = dir;
    }

    Course course() {
        return course;
    }

    /** One instance tick: every player's run goes on, starts, passes a checkpoint or finishes. */
    void tick() {
        // The players, kept in a list walked by index: a tick without joins or leaves allocates
        // nothing (iterating the instance's player set would allocate an iterator every tick).
        for (int i = order.size() - 1; i >= 0; i--) {
            Racer r = order.get(i);
            if (r.player.getInstance() != instance || r.player.isRemoved()) {
                if (r.run != null) {
                    abort(r.run, null);
                }
                order.remove(i);
                racers.remove(r.player);
            }
        }
        if (order.size() != instance.getPlayers().size()) {
            for (Player p : instance.getPlayers()) {
                if (!racers.containsKey(p)) {
                    Racer r = new Racer(p);
                    racers.put(p, r);
                    order.add(r);
                }
            }
        }
        for (int i = 0; i < order.size(); i++) {
            Racer r = order.get(i);
            Pos pos = r.player.getPosition();
            boolean inStart = course.start().contains(pos);
            try {
                if (r.run != null) {
                    if (inStart) {
                        abort(r.run, "Run restarted.");
                    } else {
                        advance(r.run, pos);
                    }
                }
                if (r.run == null && r.inStart && !inStart) {
                    start(r, pos);
                }
            } catch (RuntimeException e) {
                owner.reportError(e);
                if (r.run != null) {
                    abort(r.run, null);
                }
            }
            r.inStart = inStart;
        }
    }

    private void start(Racer r, Pos pos) {
        Player p = r.player;
        Path file = dir.resolve(course.name() + "-" + STAMP.format(Instant.now()) + "-" + p.getUsername() + ".reel");
        Recorder rec = owner.engine().startRecording(file, RecorderOptions.builder()
                .worldId(instance.getUuid())
                .gameDataVersion(MinecraftServer.DATA_VERSION)
                .server(owner.options().serverName())
                .build());
        rec.registerPlayer(p.getEntityId(), p.getUuid(), p.getUsername());
        rec.setUserMetadata(Map.of("course", course.name(), "server", owner.options().serverName()));
        Run run = new Run(r, rec);
        run.x = pos.x();
        run.y = pos.y();
        run.z = pos.z();
        run.yaw = pos.yaw();
        run.pitch = pos.pitch();
        run.flags = InstanceRecording.flags(p);
        run.batch.clear().entityAdd(run.id, p.getEntityType().id(), pos.x(), pos.y(), pos.z(), pos.yaw(), pos.pitch())
                .flags(run.id, run.flags).checkpoint(run.id, 0);
        rec.submit(0, run.batch);
        r.run = run;
        run.choice = owner.ghostChoice(p);
        run.ghostPending = run.choice.isPersonalBest()
                ? owner.catalog().loadGhost(course.name(), p.getUuid())
                : owner.catalog().loadGhost(course.name(), run.choice.rankOrZero());
        p.sendMessage(Component.text("Run started on " + course.name() + ".", NamedTextColor.AQUA));
    }

    private void advance(Run run, Pos pos) {
        Player p = run.racer.player;
        run.tick++;
        Batch b = run.batch.clear();
        if (pos.x() != run.x || pos.y() != run.y || pos.z() != run.z || pos.yaw() != run.yaw || pos.pitch() != run.pitch) {
            b.pose(run.id, pos.x(), pos.y(), pos.z(), pos.yaw(), pos.pitch());
            run.x = pos.x();
            run.y = pos.y();
            run.z = pos.z();
            run.yaw = pos.yaw();
            run.pitch = pos.pitch();
        }
        int f = InstanceRecording.flags(p);
        if (f != run.flags) {
            b.flags(run.id, f);
            run.flags = f;
        }
        boolean finished = false;
        if (run.next <= course.checkpoints().size() && course.checkpoints().get(run.next - 1).contains(pos)) {
            b.checkpoint(run.id, run.next);
            split(run, run.next);
            run.next++;
        } else if (run.next == course.finishIndex() && course.finish().contains(pos)) {
            b.checkpoint(run.id, run.next);
            finished = true;
        }
        run.recorder.submit(run.tick, b);
        ghost(run, pos);
        if (finished) {
            finish(run);
        }
    }

    private void split(Run run, int checkpoint) {
        double seconds = run.tick / (double) net.minestom.server.ServerFlag.SERVER_TICKS_PER_SECOND;
        String vs = "";
        for (Split s : run.ghostSplits) {
            if (s.checkpoint() == checkpoint) {
                vs = String.format(" (%+.2f s)", seconds - s.seconds());
            }
        }
        run.racer.player.sendMessage(Component.text(String.format("Checkpoint %d: %.2f s%s", checkpoint, seconds, vs),
                NamedTextColor.YELLOW));
    }

    /** Loads the chosen run's ghost when it is there, then moves it to this tick of the run. */
    private void ghost(Run run, Pos pos) {
        if (run.ghost == null) {
            if (run.ghostPending == null) {
                return;
            }
            try {
                java.util.Optional<Ghost> g = run.ghostPending.poll();
                if (g.isEmpty()) {
                    return;
                }
                run.ghost = g.get();
            } catch (IllegalArgumentException e) {
                run.ghostPending.close();   // no such run on the board (yet): no ghost
                run.ghostPending = null;
                return;
            } catch (RuntimeException e) {
                owner.reportError(e);
                run.ghostPending.close();
                run.ghostPending = null;
                return;
            }
            run.cursor = run.ghost.cursor();
            run.delta = run.ghost.liveDelta();
            run.ghostSplits = run.ghost.splits();
            run.cursor.sample(run.tick, run.sample);
            Entity e = new Entity(EntityType.MANNEQUIN);
            e.setTag(TickreelMinestom.OWN, true);
            e.setNoGravity(true);
            e.setHasPhysics(false);
            Player racer = run.racer.player;
            e.updateViewableRule(viewer -> viewer == racer);
            e.setInstance(instance, samplePos(run.sample));
            run.ghostEntity = e;
            racer.sendMessage(Component.text(String.format("Racing %s: %.2f s.", run.choice.describe(), run.ghost.durationSeconds()),
                    NamedTextColor.GRAY));
            return;
        }
        run.cursor.sample(run.tick, run.sample);
        run.ghostEntity.teleport(samplePos(run.sample));
        run.delta.update(run.tick, pos.x(), pos.y(), pos.z());
        run.racer.player.sendActionBar(Component.text("Ghost " + run.delta.formatted(),
                run.delta.ahead() ? NamedTextColor.GREEN : NamedTextColor.RED));
    }

    private static Pos samplePos(GhostSample s) {
        return new Pos(s.x(), s.y(), s.z(), (float) s.yaw(), (float) s.pitch());
    }

    private void finish(Run run) {
        Player p = run.racer.player;
        run.racer.run = null;
        closeGhost(run);
        Pending<Path> done = run.recorder.finish();
        run.recorder.close();
        int ticks = run.tick;
        owner.catalog().registerFinished(done, course.name(), p.getUuid(), p.getUsername(), run.id,
                GhostRange.checkpoints(0, course.finishIndex())).future().whenComplete((registered, err) -> {
                    done.close();
                    if (err != null) {
                        owner.reportError(err instanceof Exception ex ? ex : new RuntimeException(err));
                        p.sendMessage(Component.text("Run not saved: " + err.getMessage(), NamedTextColor.RED));
                    } else {
                        p.sendMessage(Component.text(String.format("Finished %s in %.2f s (run #%d, %d ticks).",
                                course.name(), registered.seconds(), registered.id(), ticks), NamedTextColor.GREEN));
                    }
                });
    }

    private void abort(Run run, String message) {
        run.racer.run = null;
        closeGhost(run);
        try {
            run.recorder.abort();
        } finally {
            run.recorder.close();
        }
        if (message != null) {
            run.racer.player.sendMessage(Component.text(message, NamedTextColor.GRAY));
        }
    }

    private void closeGhost(Run run) {
        if (run.ghostEntity != null) {
            run.ghostEntity.remove();
            run.ghostEntity = null;
        }
        if (run.cursor != null) {
            run.cursor.close();
        }
        if (run.delta != null) {
            run.delta.close();
        }
        if (run.ghost != null) {
            run.ghost.close();
        }
        if (run.ghostPending != null) {
            run.ghostPending.close();
        }
    }

    /** Ends every run in progress (not registered). */
    void close() {
        for (Racer r : new ArrayList<>(order)) {
            if (r.run != null) {
                abort(r.run, null);
            }
        }
        racers.clear();
        order.clear();
    }
}
