package io.tickreel.minestom;

import io.tickreel.Catalog;
import io.tickreel.Engine;
import io.tickreel.EngineOptions;
import io.tickreel.Pending;
import io.tickreel.RecorderOptions;
import io.tickreel.Report;
import io.tickreel.ReportOptions;
import io.tickreel.ShadowBuffer;
import io.tickreel.ShadowOptions;
import io.tickreel.Tickreel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import net.minestom.server.MinecraftServer;
import net.minestom.server.command.builder.Command;
import net.minestom.server.entity.Player;
import net.minestom.server.entity.PlayerHand;
import net.minestom.server.event.Event;
import net.minestom.server.event.EventNode;
import net.minestom.server.event.entity.EntityAttackEvent;
import net.minestom.server.event.entity.EntityTeleportEvent;
import net.minestom.server.event.instance.InstanceRegisterEvent;
import net.minestom.server.event.instance.InstanceTickEvent;
import net.minestom.server.event.instance.InstanceUnregisterEvent;
import net.minestom.server.event.instance.RemoveEntityFromInstanceEvent;
import net.minestom.server.event.player.PlayerBlockBreakEvent;
import net.minestom.server.event.player.PlayerBlockPlaceEvent;
import net.minestom.server.event.player.PlayerChatEvent;
import net.minestom.server.event.player.PlayerHandAnimationEvent;
import net.minestom.server.event.player.PlayerSpawnEvent;
import net.minestom.server.instance.Instance;
import net.kyori.adventure.text.Component;
import net.kyori.adventure.text.format.NamedTextColor;

/**
 * Records a Minestom server with tickreel. One call turns it on:
 *
 * <pre>{@code
 * TickreelMinestom tickreel = TickreelMinestom.install(TickreelMinestomOptions.builder(Path.of("replays")).build());
 * // ... on shutdown:
 * tickreel.close();   // finishes every recording
 * }</pre>
 *
 * <p>Every instance (or those {@link TickreelMinestomOptions.Builder#recordInstances} selects) is
 * recorded to its own {@code .reel} under {@code DATA/recordings/}, one recorded tick per instance
 * tick, with shadow play on: players' poses, on-ground, sneaking, sprinting and gliding flags,
 * equipment (hands and armour), joins and leaves (UUID and name), teleports, block breaks and
 * placements (the state the instance holds at the tick's end, named from Minestom's block
 * registry in the recording's palette), swings, attacks with their target, and public chat.
 * {@code /report <player> <reason>} writes the reported player's last minutes from shadow play
 * under {@code DATA/reports/}, files it in the catalog and tells the reporter its id.
 *
 * <p>Listeners run last (a node of the highest priority) and skip cancelled events. The tick path
 * copies into a reused {@link io.tickreel.Batch} and makes one native call per instance per tick.
 */
public final class TickreelMinestom implements AutoCloseable {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    private final TickreelMinestomOptions options;
    private final Engine engine;
    private final Catalog catalog;
    private final EventNode<Event> node;
    private final EventNode<Event> parent;
    private final Command reportCommand;
    private final Map<Instance, InstanceRecording> recordings = new ConcurrentHashMap<>();
    private final List<CompletableFuture<?>> reportsInFlight = new ArrayList<>();
    private final List<Path> finished = new ArrayList<>();
    private final List<Pending<Path>> recovering = new ArrayList<>();
    private final Map<Instance, List<TimeTrials>> trials = new ConcurrentHashMap<>();
    private final Map<Player, Replay> replays = new ConcurrentHashMap<>();
    private final Command replayCommand;
    private final Command raceCommand;
    private final Map<java.util.UUID, GhostChoice> ghostChoices = new ConcurrentHashMap<>();
    private volatile Consumer<Exception> errorHandler =
            e -> MinecraftServer.LOGGER.error("tickreel: {}", e.toString(), e);
    private boolean closed;
    private final TickStats tickStats;

    /** Marks the entities the adapter shows (ghosts, replays): never recorded. */
    static final net.minestom.server.tag.Tag<Boolean> OWN = net.minestom.server.tag.Tag.Boolean("tickreel:shown");

    private TickreelMinestom(EventNode<Event> parent, TickreelMinestomOptions options) {
        this.options = options;
        this.parent = parent;
        this.tickStats = options.measureAllocations ? new TickStats() : null;
        Tickreel.load();
        try {
            Files.createDirectories(options.dataDir.resolve("recordings"));
            Files.createDirectories(options.dataDir.resolve("reports"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.engine = new Engine(EngineOptions.builder().shadowBudgetBytes(options.shadowBudgetBytes).build());
        Catalog c = null;
        try {
            c = Catalog.open(options.catalogUrl);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        this.catalog = c;
        if (options.recoverLeftovers) {
            recoverLeftovers();
        }
        this.node = EventNode.all("tickreel").setPriority(Integer.MAX_VALUE);
        registerListeners();
        parent.addChild(node);
        if (options.reportCommand) {
            reportCommand = new ReportCommand(this);
            MinecraftServer.getCommandManager().register(reportCommand);
        } else {
            reportCommand = null;
        }
        if (options.replayCommand) {
            replayCommand = new ReplayCommand(this);
            MinecraftServer.getCommandManager().register(replayCommand);
        } else {
            replayCommand = null;
        }
        if (options.raceCommand) {
            raceCommand = new RaceCommand(this);
            MinecraftServer.getCommandManager().register(raceCommand);
        } else {
            raceCommand = null;
        }
        for (Instance instance : MinecraftServer.getInstanceManager().getInstances()) {
            start(instance);
        }
    }

    /** Installs on the server's global event handler. Call after {@code MinecraftServer.init()}. */
    public static TickreelMinestom install(TickreelMinestomOptions options) {
        return install(MinecraftServer.getGlobalEventHandler(), options);
    }

    /** Installs under {@code parent} (the global handler or a node of yours). */
    public static TickreelMinestom install(EventNode<Event> parent, TickreelMinestomOptions options) {
        Objects.requireNonNull(parent, "parent");
        Objects.requireNonNull(options, "options");
        return new TickreelMinestom(parent, options);
    }

    /** Where errors of the recorders go (default: Minestom's logger); they never reach the tick. */
    public void onError(Consumer<Exception> handler) {
        this.errorHandler = Objects.requireNonNull(handler, "handler");
    }

    /** The engine (for ghosts, playback, statistics). */
    public Engine engine() {
        return engine;
    }

    /** The catalog runs and reports are filed in. */
    public Catalog catalog() {
        return catalog;
    }

    /** The options installed with. */
    public TickreelMinestomOptions options() {
        return options;
    }

    /** The path of the recording of {@code instance} being written, if it is recorded. */
    public Optional<Path> recordingOf(Instance instance) {
        InstanceRecording r = recordings.get(instance);
        return r == null ? Optional.empty() : Optional.of(r.path);
    }

    /** The recorded tick the next submission of {@code instance} will carry, -1 if not recorded. */
    public int tickOf(Instance instance) {
        InstanceRecording r = recordings.get(instance);
        return r == null ? -1 : r.tick();
    }

    /** What the per-tick work allocated, if {@link TickreelMinestomOptions.Builder#measureAllocations} is on. */
    public Optional<TickStats> tickStats() {
        return Optional.ofNullable(tickStats);
    }

    /** The finished recordings' paths so far (the instances unregistered, or all after close). */
    public synchronized List<Path> finishedRecordings() {
        return List.copyOf(finished);
    }

    /**
     * Finishes the live recordings left in {@code DATA/recordings} (a crash, a kill): each is
     * resumed (recovered with every flushed tick on the engine's thread) and finished at once.
     */
    private void recoverLeftovers() {
        List<Path> live;
        try (var s = Files.list(options.dataDir.resolve("recordings"))) {
            live = s.filter(p -> p.getFileName().toString().endsWith(".reel.live") && Files.isDirectory(p)).sorted().toList();
        } catch (IOException e) {
            error(e);
            return;
        }
        for (Path dir : live) {
            String name = dir.getFileName().toString();
            Path file = dir.resolveSibling(name.substring(0, name.length() - ".live".length()));
            try {
                io.tickreel.Recorder r = engine.startRecording(file, RecorderOptions.builder()
                        .onExisting(RecorderOptions.OnExisting.RESUME).server(options.serverName).build());
                Pending<Path> done = r.finish();
                r.close();
                synchronized (this) {
                    recovering.add(done);
                }
                done.future().whenComplete((p, err) -> {
                    if (err != null) {
                        error(new IllegalStateException("recovering " + dir + ": " + err.getMessage(), err));
                    } else {
                        MinecraftServer.LOGGER.info("tickreel: recovered {}", p);
                        synchronized (this) {
                            finished.add(p);
                        }
                    }
                });
            } catch (RuntimeException e) {
                error(new IllegalStateException("recovering " + dir + ": " + e.getMessage(), e));
            }
        }
    }

    /**
     * Time trials on {@code course} in {@code instance}: runs recorded per player under {@code
     * DATA/runs/} and registered in the catalog (course {@code course.name()}) when finished, the
     * ghost of the board's best run (or the run the racer chose: {@link #setGhostChoice}, {@code
     * /race}) shown to the racer alone (a mannequin moved every tick by the ghost cursor),
     * the live difference in the action bar, split messages at checkpoints. Call before players
     * race (e.g. at startup).
     */
    public synchronized void addCourse(Instance instance, Course course) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(course, "course");
        if (closed) {
            throw new IllegalStateException("tickreel is closed");
        }
        Path dir = options.dataDir.resolve("runs");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<TimeTrials> list = new java.util.concurrent.CopyOnWriteArrayList<>(
                trials.getOrDefault(instance, List.of()));
        list.add(new TimeTrials(this, instance, course, dir));
        trials.put(instance, list);
    }

    /**
     * Which run {@code player}'s ghost replays from their next run on (any course): the board's
     * best (the default), their personal best or a chosen rank. What {@code /race} sets.
     */
    public void setGhostChoice(Player player, GhostChoice choice) {
        Objects.requireNonNull(choice, "choice");
        ghostChoices.put(player.getUuid(), choice);
    }

    /** {@code player}'s ghost choice (the board's best unless set). */
    public GhostChoice ghostChoice(Player player) {
        return ghostChoices.getOrDefault(player.getUuid(), GhostChoice.best());
    }

    /** {@code /replay}: a control of the viewer's replay, or a recording to play to them. */
    void replayCommand(Player viewer, String what, String value) {
        Replay r = replays.get(viewer);
        try {
            switch (what) {
                case "stop" -> {
                    if (r != null && replays.remove(viewer, r)) {
                        r.close(true);
                        viewer.sendMessage(Component.text("Replay stopped.", NamedTextColor.GRAY));
                    }
                    return;
                }
                case "pause", "play", "reverse", "forward", "speed", "seek" -> {
                    if (r == null) {
                        viewer.sendMessage(Component.text("No replay running: /replay <report id | file>", NamedTextColor.RED));
                        return;
                    }
                    switch (what) {
                        case "pause" -> r.pause();
                        case "play" -> r.play();
                        case "reverse" -> r.reverse();
                        case "forward" -> r.forward();
                        case "speed" -> r.speed(Double.parseDouble(Objects.requireNonNull(value, "speed X")));
                        default -> r.seek(Integer.parseInt(Objects.requireNonNull(value, "seek TICK")));
                    }
                    viewer.sendMessage(Component.text("Replay: " + what + (value == null ? "" : " " + value)
                            + " (tick " + r.position() + ")", NamedTextColor.GRAY));
                    return;
                }
                default -> { }
            }
        } catch (RuntimeException e) {
            viewer.sendMessage(Component.text("/replay " + what + ": " + e.getMessage(), NamedTextColor.RED));
            return;
        }
        CompletableFuture<Path> file;
        if (what.matches("\\d{1,18}")) {
            long id = Long.parseLong(what);
            file = catalog.reports().future().thenApply(list -> list.stream().filter(x -> x.id() == id).findFirst()
                    .flatMap(Report::location).map(Path::of)
                    .orElseThrow(() -> new IllegalArgumentException("no report #" + id + " with a recording")));
        } else {
            file = CompletableFuture.supplyAsync(() -> findFile(what));
        }
        file.thenApply(path -> new Replay(viewer, path)).whenComplete((replay, err) -> {
            if (err != null) {
                Throwable t = err.getCause() != null ? err.getCause() : err;
                viewer.sendMessage(Component.text("Cannot replay " + what + ": " + t.getMessage(), NamedTextColor.RED));
                return;
            }
            // Handed to the tick: started by the next tick of the viewer's instance.
            MinecraftServer.getSchedulerManager().scheduleNextTick(() -> {
                Replay old = replays.put(viewer, replay);
                if (old != null) {
                    old.close(false);
                }
                replay.begin();
            });
        });
    }

    /** A file of the data folder by name: under reports/, recordings/ or runs/ (".reel" may be left out). */
    private Path findFile(String name) {
        String file = name.endsWith(".reel") ? name : name + ".reel";
        if (file.contains("/") || file.contains("\\") || file.startsWith(".")) {
            throw new IllegalArgumentException("give a file name of the data folder, not a path");
        }
        for (String dir : List.of("reports", "recordings", "runs")) {
            Path p = options.dataDir.resolve(dir).resolve(file);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new IllegalArgumentException("no " + file + " under reports/, recordings/ or runs/");
    }

    void reportError(Exception e) {
        error(e);
    }

    private void error(Exception e) {
        errorHandler.accept(e);
    }

    /**
     * Registers a listener on the adapter's node; with {@link
     * TickreelMinestomOptions.Builder#measureAllocations} on, what each call allocates on its thread
     * is added to {@link TickStats#listenerBytes}.
     */
    private <E extends Event> void listen(Class<E> type, java.util.function.Consumer<E> handler) {
        if (tickStats == null) {
            node.addListener(type, handler);
            return;
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        node.addListener(type, e -> {
            long before = threads.getCurrentThreadAllocatedBytes();
            try {
                handler.accept(e);
            } finally {
                tickStats.addListener(threads.getCurrentThreadAllocatedBytes() - before);
            }
        });
    }

    private void registerListeners() {
        listen(InstanceRegisterEvent.class, e -> start(e.getInstance()));
        listen(InstanceUnregisterEvent.class, e -> stop(e.getInstance()));
        listen(InstanceTickEvent.class, e -> {
            InstanceRecording r = recordings.get(e.getInstance());
            if (r != null) {
                r.endTick();
            }
            List<TimeTrials> t = trials.get(e.getInstance());
            if (t != null) {
                for (int i = 0; i < t.size(); i++) {
                    t.get(i).tick();
                }
            }
            if (!replays.isEmpty()) {
                for (Replay replay : replays.values()) {
                    if (replay.instance() == e.getInstance()) {
                        try {
                            replay.tick();
                        } catch (RuntimeException ex) {
                            error(ex);
                            replays.remove(replay.viewer, replay);
                            replay.close(true);
                        }
                    }
                }
            }
        });
        listen(net.minestom.server.event.player.PlayerDisconnectEvent.class, e -> {
            Replay r = replays.remove(e.getPlayer());
            if (r != null) {
                r.close(false);
            }
        });
        listen(PlayerSpawnEvent.class, e -> {
            InstanceRecording r = recordings.get(e.getInstance());
            if (r != null) {
                r.join(e.getPlayer());
            }
        });
        listen(RemoveEntityFromInstanceEvent.class, e -> {
            InstanceRecording r = recordings.get(e.getInstance());
            if (r == null) {
                return;
            }
            if (e.getEntity() instanceof Player p) {
                r.leave(p);
            } else {
                r.despawned(e.getEntity());
            }
        });
        listen(net.minestom.server.event.entity.EntitySpawnEvent.class, e -> {
            if (e.getEntity() instanceof Player || e.getEntity().hasTag(OWN)) {
                return;
            }
            InstanceRecording r = recordings.get(e.getEntity().getInstance());
            if (r != null) {
                r.spawned(e.getEntity());
            }
        });
        listen(EntityTeleportEvent.class, e -> {
            if (e.getEntity() instanceof Player p && p.getInstance() != null) {
                InstanceRecording r = recordings.get(p.getInstance());
                if (r != null) {
                    r.teleported(p);
                }
            }
        });
        listen(PlayerHandAnimationEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            InstanceRecording r = recordingOf(e.getPlayer());
            if (r != null) {
                r.swing(e.getPlayer(), e.getHand() == PlayerHand.OFF ? io.tickreel.Batch.HAND_OFF : io.tickreel.Batch.HAND_MAIN);
            }
        });
        listen(EntityAttackEvent.class, e -> {
            Instance instance = e.getEntity().getInstance();
            InstanceRecording r = instance == null ? null : recordings.get(instance);
            if (r != null) {
                r.attack(e.getEntity().getEntityId(), e.getTarget().getEntityId());
            }
        });
        listen(net.minestom.server.event.entity.EntityDamageEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            net.minestom.server.entity.LivingEntity p = e.getEntity();
            InstanceRecording r = p.getInstance() == null ? null : recordings.get(p.getInstance());
            if (r != null) {
                net.minestom.server.entity.damage.Damage d = e.getDamage();
                net.minestom.server.entity.Entity by = d.getAttacker() != null ? d.getAttacker() : d.getSource();
                r.damage(p, d.getAmount(), d.getTypeId(), d.getType().key().asString(),
                        by == null ? -1 : by.getEntityId());
            }
        });
        listen(net.minestom.server.event.player.PlayerUseItemEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            InstanceRecording r = recordingOf(e.getPlayer());
            if (r != null) {
                r.use(e.getPlayer(), hand(e.getHand()), e.getItemStack(), -1, null);
            }
        });
        listen(net.minestom.server.event.player.PlayerUseItemOnBlockEvent.class, e -> {
            InstanceRecording r = recordingOf(e.getPlayer());
            if (r != null) {
                r.use(e.getPlayer(), hand(e.getHand()), e.getItemStack(), -1,
                        new int[] {e.getPosition().blockX(), e.getPosition().blockY(), e.getPosition().blockZ()});
            }
        });
        listen(net.minestom.server.event.player.PlayerEntityInteractEvent.class, e -> {
            InstanceRecording r = recordingOf(e.getPlayer());
            if (r != null) {
                r.use(e.getPlayer(), hand(e.getHand()), e.getPlayer().getItemInHand(e.getHand()),
                        e.getTarget().getEntityId(), null);
            }
        });
        listen(PlayerChatEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            InstanceRecording r = recordingOf(e.getPlayer());
            if (r != null) {
                r.chat(e.getPlayer(), e.getRawMessage());
            }
        });
        listen(PlayerBlockBreakEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            InstanceRecording r = recordings.get(e.getInstance());
            if (r != null) {
                r.edited(e.getPlayer(), e.getBlockPosition().blockX(), e.getBlockPosition().blockY(),
                        e.getBlockPosition().blockZ());
            }
        });
        // Every setBlock of an InstanceContainer (the server's own changes; players' edits too,
        // which the events above have already queued with their cause).
        listen(net.minestom.server.event.instance.InstanceBlockUpdateEvent.class, e -> {
            InstanceRecording r = recordings.get(e.getInstance());
            if (r != null) {
                r.edited(null, e.getBlockPosition().blockX(), e.getBlockPosition().blockY(),
                        e.getBlockPosition().blockZ());
            }
        });
        listen(PlayerBlockPlaceEvent.class, e -> {
            if (e.isCancelled()) {
                return;
            }
            InstanceRecording r = recordings.get(e.getInstance());
            if (r != null) {
                r.edited(e.getPlayer(), e.getBlockPosition().blockX(), e.getBlockPosition().blockY(),
                        e.getBlockPosition().blockZ());
            }
        });
    }

    private static int hand(PlayerHand hand) {
        return hand == PlayerHand.OFF ? io.tickreel.Batch.HAND_OFF : io.tickreel.Batch.HAND_MAIN;
    }

    private InstanceRecording recordingOf(Player player) {
        Instance instance = player.getInstance();
        return instance == null ? null : recordings.get(instance);
    }

    private synchronized void start(Instance instance) {
        if (closed || recordings.containsKey(instance) || !options.recordInstance.test(instance)) {
            return;
        }
        Path path = options.dataDir.resolve("recordings").resolve(
                "instance-" + instance.getUuid().toString().substring(0, 8) + "-" + STAMP.format(Instant.now()) + ".reel");
        RecorderOptions ro = RecorderOptions.builder()
                .worldId(instance.getUuid())
                .gameDataVersion(MinecraftServer.DATA_VERSION)
                .ticksPerSecond(net.minestom.server.ServerFlag.SERVER_TICKS_PER_SECOND)
                .flushInterval(options.flushInterval)
                .server(options.serverName)
                .build();
        ShadowBuffer.Started started = ShadowBuffer.start(engine, path, ro,
                ShadowOptions.builder().window(options.shadowWindow).build());
        try {
            started.recorder().setUserMetadata(Map.of(
                    "minestom.instance", instance.getUuid().toString(),
                    "minecraft.version", MinecraftServer.VERSION_NAME,
                    "minecraft.protocol", MinecraftServer.PROTOCOL_VERSION,
                    "server", options.serverName));
        } catch (RuntimeException e) {
            started.recorder().abort();
            started.close();
            throw e;
        }
        recordings.put(instance, new InstanceRecording(instance, started, path, this::error, tickStats, options.terrainRadius));
    }

    private void stop(Instance instance) {
        InstanceRecording r = recordings.remove(instance);
        if (r == null) {
            return;
        }
        Pending<Path> done = r.finish();
        r.shadow.close();
        if (done != null) {
            done.future().whenComplete((path, err) -> {
                if (err != null) {
                    error(err instanceof Exception ex ? ex : new RuntimeException(err));
                } else {
                    synchronized (this) {
                        finished.add(path);
                    }
                }
                done.close();
            });
        }
    }

    /**
     * Reports {@code reported} (online, in a recorded instance) for {@code reason} on behalf of
     * {@code reporter}: shadow play writes the reported player's window (plus
     * {@link TickreelMinestomOptions.Builder#reportAfter}) to {@code DATA/reports/}, then the
     * report is filed in the catalog with that recording. The future completes with the filed
     * report.
     *
     * @throws IllegalArgumentException if the reported player is in no recorded instance or shadow
     *     play holds nothing of them yet
     * @throws IllegalStateException after {@link #close()}
     */
    public CompletableFuture<Report> report(Player reporter, Player reported, String reason) {
        Objects.requireNonNull(reporter, "reporter");
        Objects.requireNonNull(reported, "reported");
        Objects.requireNonNull(reason, "reason");
        InstanceRecording r = recordingOf(reported);
        if (r == null) {
            throw new IllegalArgumentException(reported.getUsername() + " is not in a recorded instance");
        }
        if (!r.hasSubmitted() || r.track(reported) == null) {
            throw new IllegalArgumentException("nothing recorded of " + reported.getUsername() + " yet");
        }
        Path file = options.dataDir.resolve("reports").resolve(
                "report-" + STAMP.format(Instant.now()) + "-" + reported.getUsername() + ".reel");
        ReportOptions.Builder ro = ReportOptions.builder()
                .after(options.reportAfter)
                .radius(options.reportRadius)
                .metadata("reporter", reporter.getUsername())
                .metadata("reporter_uuid", reporter.getUuid().toString())
                .metadata("reported", reported.getUsername())
                .metadata("reason", reason);
        if (options.reportBefore != null) {
            ro.before(options.reportBefore);
        }
        String reportedName = reported.getUsername();
        java.util.UUID reportedUuid = reported.getUuid();
        java.util.UUID reporterUuid = reporter.getUuid();
        CompletableFuture<Report> filed;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("tickreel is closed");
            }
            Pending<Path> written = r.shadow.report(reportedUuid, file, ro.build());
            filed = written.future()
                    .whenComplete((p, e) -> written.close())
                    .thenCompose(p -> catalog.addReport(reportedUuid, reportedName, reporterUuid, reason, p.toString()).future());
            reportsInFlight.add(filed);
        }
        return filed;
    }

    /**
     * Finishes every recording (each player's leave recorded, the files compacted and verified),
     * waits for reports still being captured (written with what there was), closes the catalog and
     * the engine. Call it after the server stopped ticking. Idempotent.
     */
    @Override
    public void close() {
        List<Pending<Path>> finishing = new ArrayList<>();
        List<CompletableFuture<?>> reports;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            reports = new ArrayList<>(reportsInFlight);
        }
        parent.removeChild(node);
        if (reportCommand != null) {
            MinecraftServer.getCommandManager().unregister(reportCommand);
        }
        if (replayCommand != null) {
            MinecraftServer.getCommandManager().unregister(replayCommand);
        }
        if (raceCommand != null) {
            MinecraftServer.getCommandManager().unregister(raceCommand);
        }
        for (Replay r : replays.values()) {
            r.close(false);
        }
        replays.clear();
        for (List<TimeTrials> list : trials.values()) {
            for (TimeTrials t : list) {
                t.close();
            }
        }
        trials.clear();
        for (Instance instance : List.copyOf(recordings.keySet())) {
            InstanceRecording r = recordings.remove(instance);
            Pending<Path> p = r.finish();
            r.shadow.close();
            if (p != null) {
                finishing.add(p);
            }
        }
        List<Pending<Path>> recovered;
        synchronized (this) {
            recovered = new ArrayList<>(recovering);
        }
        for (Pending<Path> p : recovered) {
            try {
                p.await();
            } catch (RuntimeException e) {
                // reported by its future
            } finally {
                p.close();
            }
        }
        for (Pending<Path> p : finishing) {
            try {
                Path path = p.await();
                synchronized (this) {
                    finished.add(path);
                }
            } catch (RuntimeException e) {
                error(e);
            } finally {
                p.close();
            }
        }
        engine.close();   // writes reports still capturing with what there was
        for (CompletableFuture<?> f : reports) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                error(e);
            }
        }
        catalog.close();
    }

    /** How long a report keeps capturing after it is made. */
    Duration reportAfter() {
        return options.reportAfter;
    }
}
