package io.tickreel;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.Function;

/**
 * A catalog of runs, their recordings and their ghosts, in SQLite ({@code sqlite:PATH}, a file
 * created if missing) or PostgreSQL ({@code postgres://user@host/db}). Every call that touches the
 * database runs on the catalog's own native worker thread, never on the caller's: it returns a
 * {@link Pending} at once, the library's one "result later" type, which the server thread polls
 * every tick ({@link Pending#poll()}, never blocking), a worker thread awaits, or a plugin chains on
 * ({@link Pending#future()}). Failures are the pending's: a {@link TickreelException} (or {@link
 * IllegalArgumentException}) thrown by its poll and waits, or completing its future exceptionally.
 * <pre>{@code
 * try (Catalog c = Catalog.open("sqlite:" + dir.resolve("runs.db"))) {
 *     c.register(finishedFile, "course-7", uuid, "Alice", entity, GhostRange.all()).future()
 *         .thenCompose(run -> c.top("course-7", 10).future())
 *         .thenAccept(top -> top.forEach(p -> System.out.println(p.rank() + " " + p.run().seconds())));
 * }
 * }</pre>
 * Closing runs the calls already queued (their pendings complete), then stops the worker.
 */
public final class Catalog implements AutoCloseable {
    private final NativeHandle handle;

    private Catalog(long h) {
        this.handle = new NativeHandle(this, h, "Catalog");
    }

    /**
     * Opens (and migrates) the catalog at {@code url}. Blocks while the database is opened: open
     * it at startup, not on the server thread.
     *
     * @throws IllegalArgumentException for a malformed URL
     * @throws TickreelException of kind {@code UNSUPPORTED} for a URL of another scheme,
     *     {@code DATABASE} if the database cannot be opened or reached (no password is shown)
     */
    public static Catalog open(String url) {
        Objects.requireNonNull(url, "url");
        Tickreel.require(2, "catalog");
        return new Catalog(NativeBridge.catalogOpen(url));
    }

    /**
     * Registers one run of the finished recording {@code file} (after its {@link Recorder#finish()}
     * completed): the player's {@code entity} over {@code range}, with splits from its
     * checkpoints. Its result is the registered run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Run> register(Path file, String course, UUID player, String playerName, int entity, GhostRange range) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(course, "course");
        Objects.requireNonNull(playerName, "playerName");
        Objects.requireNonNull(range, "range");
        return call(NativeBridge.catalogRegister(handle.get(), file.toString(), course, uuid(player), playerName, entity, range.toNative()),
            b -> runs(b).get(0).run());
    }

    /**
     * The best {@code n} players of {@code course} (each player's best valid run), fastest first.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Placed>> top(String course, int n) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogTop(handle.get(), course, n), b -> runs(b));
    }

    /**
     * {@code player}'s best run of {@code course} and its rank; empty if they have none.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Optional<Placed>> personalBest(String course, UUID player) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogPersonalBest(handle.get(), course, uuid(player)),
            b -> runs(b).stream().findFirst());
    }

    /**
     * The best {@code n} players of {@code course} on the game server {@code server} (each player's
     * best valid run recorded there), or of the whole network when {@code server} is null.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Placed>> topOn(String server, String course, int n) {
        return topOn(server, null, course, n);
    }

    /**
     * The best {@code n} players of {@code course} on a board: the game server {@code server} (the
     * whole network when null), counting only the runs recorded on the map version {@code
     * version} (any version when null).
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Placed>> topOn(String server, MapVersion version, String course, int n) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogTopOn(handle.get(), server, world(version), version(version), course, n),
            b -> runs(b));
    }

    /**
     * The place at {@code rank} (1: the best) of {@code course} on a board (see {@link
     * #topOn(String, MapVersion, String, int)}); empty when the board has fewer players.
     *
     * @throws IllegalArgumentException if {@code rank} is below 1
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Optional<Placed>> atRankOn(String server, MapVersion version, String course, int rank) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogAtRankOn(handle.get(), server, world(version), version(version), course, rank),
            b -> runs(b).stream().findFirst());
    }

    /**
     * {@code player}'s best run of {@code course} on the game server {@code server} and its rank
     * there (the network's board when {@code server} is null); empty if they have none.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Optional<Placed>> personalBestOn(String server, String course, UUID player) {
        return personalBestOn(server, null, course, player);
    }

    /**
     * {@code player}'s best run of {@code course} on a board (see {@link #topOn(String, MapVersion,
     * String, int)}) and its rank there; empty if they have none.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Optional<Placed>> personalBestOn(String server, MapVersion version, String course, UUID player) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogPersonalBestOn(handle.get(), server, world(version), version(version), course,
            uuid(player)), b -> runs(b).stream().findFirst());
    }

    /**
     * The reports of {@code player} (the reported player), newest first: filed on the game server
     * {@code server}, or on any server of the network when {@code server} is null.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Report>> reportsOf(UUID player, String server) {
        return call(NativeBridge.catalogReportsOf(handle.get(), uuid(player), server),
            b -> reports(b));
    }

    /**
     * Opens the recording of {@code run} from its location (a path on this machine, or an
     * {@code s3://} URL read with the {@code AWS_*} variables). Blocks while its header, metadata
     * and index are read: call it off the server thread.
     *
     * @throws TickreelException if the recording is gone or damaged
     */
    public Reader openRecording(Run run) {
        Objects.requireNonNull(run, "run");
        return Reader.opened(run.location(), NativeBridge.catalogOpenRecording(handle.get(), run.location()));
    }

    /**
     * Opens the recording of {@code report}, as {@link #openRecording(Run)}.
     *
     * @throws IllegalArgumentException for a report without a recording
     * @throws TickreelException if the recording is gone or damaged
     */
    public Reader openRecording(Report report) {
        Objects.requireNonNull(report, "report");
        String location = report.location().orElse("");
        return Reader.opened(location, NativeBridge.catalogOpenRecording(handle.get(), location));
    }

    /**
     * The places from {@code rank - k} to {@code rank + k} of {@code course}.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Placed>> around(String course, int rank, int k) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogAround(handle.get(), course, rank, k), b -> runs(b));
    }

    /**
     * {@code player}'s {@code n} most recent runs of {@code course} (null: of every course), newest first.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Run>> recent(UUID player, String course, int n) {
        return call(NativeBridge.catalogRecent(handle.get(), uuid(player), course, n),
            b -> runs(b).stream().map(Placed::run).toList());
    }

    /**
     * The sum of best segments of {@code course}: of {@code player}'s runs, or of the board when null.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Optional<SumOfBest>> sumOfBest(String course, UUID player) {
        Objects.requireNonNull(course, "course");
        return call(NativeBridge.catalogSumOfBest(handle.get(), course, player == null ? null : uuid(player)),
            b -> sumOfBest(b));
    }

    /**
     * Looks up the run at {@code rank} (1: the best) of {@code course} on the worker and starts
     * loading its ghost; the pending's result is the ghost (poll it from the server thread). Fails with
     * {@link IllegalArgumentException} when the board has no such rank.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Ghost> loadGhost(String course, int rank) {
        Objects.requireNonNull(course, "course");
        if (rank < 1) {
            throw new IllegalArgumentException("rank must be at least 1 (got " + rank + ")");
        }
        return new Pending<>(NativeBridge.catalogLoadGhost(handle.get(), course, rank, null), Pending.GHOST, "ghost load");
    }

    /**
     * Loads the ghosts of several places of {@code course} to race them together: the board's
     * first {@code top} places, then {@code player}'s best (null: none), then the run at {@code
     * rank} (0: none), each with its own cursor, in that order; a run picked twice (a player's best
     * among the top) is loaded once. Held runs are on no board, so never among them. Never blocks:
     * the board is read on the worker (after the calls queued before), the recordings load in the
     * background; the pending fails with {@link IllegalArgumentException} if the board has no such
     * player or rank, with a {@link TickreelException} if a recording cannot be loaded.
     *
     * @throws IllegalArgumentException if {@code top} or {@code rank} is negative
     * @throws IllegalStateException if this catalog is closed
     */
    public Pending<GhostSet> loadGhosts(String course, int top, UUID player, int rank) {
        Objects.requireNonNull(course, "course");
        return new Pending<>(NativeBridge.catalogLoadGhosts(handle.get(), course, top, player == null ? null : uuid(player), rank),
            Pending.GHOST_SET, "ghost set load");
    }

    /**
     * As {@link #loadGhost(String, int)}, for {@code player}'s best run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Ghost> loadGhost(String course, UUID player) {
        Objects.requireNonNull(course, "course");
        return new Pending<>(NativeBridge.catalogLoadGhost(handle.get(), course, 0, uuid(player)), Pending.GHOST, "ghost load");
    }

    /**
     * Looks up the run at {@code rank} (1: the best) of {@code course} on a board (see {@link
     * #topOn(String, MapVersion, String, int)}) and starts loading its ghost to play on the map
     * version {@code playingOn}: a run recorded on another version (or on none) fails the lookup
     * with an {@link IllegalArgumentException} naming both versions, unless {@code
     * allowOtherVersion}; with {@code playingOn} null nothing is checked. The result is the ghost
     * (poll it from the server thread); fails as {@link #loadGhost(String, int)} when the board
     * has no such rank.
     *
     * @throws IllegalArgumentException if {@code rank} is below 1
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's)
     */
    public Pending<Ghost> loadGhostOn(String server, MapVersion version, String course, int rank,
            MapVersion playingOn, boolean allowOtherVersion) {
        Objects.requireNonNull(course, "course");
        if (rank < 1) {
            throw new IllegalArgumentException("rank must be at least 1 (got " + rank + ")");
        }
        return new Pending<>(NativeBridge.catalogLoadGhostOn(handle.get(), server, world(version), version(version), course, rank,
                null, world(playingOn), version(playingOn), allowOtherVersion), Pending.GHOST, "ghost load");
    }

    /**
     * As {@link #loadGhostOn(String, MapVersion, String, int, MapVersion, boolean)}, for {@code
     * player}'s best run on the board.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's)
     */
    public Pending<Ghost> loadGhostOn(String server, MapVersion version, String course, UUID player,
            MapVersion playingOn, boolean allowOtherVersion) {
        Objects.requireNonNull(course, "course");
        return new Pending<>(NativeBridge.catalogLoadGhostOn(handle.get(), server, world(version), version(version), course, 0,
                uuid(player), world(playingOn), version(playingOn), allowOtherVersion), Pending.GHOST, "ghost load");
    }

    /**
     * Applies the retention policies: deletes the recordings no policy keeps (the file, then its
     * rows), or with {@code dryRun} only lists them. Its result is those recordings.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Pruned>> prune(boolean dryRun) {
        return call(NativeBridge.catalogPrune(handle.get(), dryRun), b -> pruned(b));
    }

    /**
     * Registers one run of a recording once its {@code finish} completes, as {@link
     * #register(Path, String, UUID, String, int, GhostRange)} with the file the finish wrote. A
     * failed finish fails the pending and registers nothing. The catalog's worker waits for the
     * finish: calls made after this one complete after it. The handle stays the caller's.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Run> registerFinished(Pending<Path> finish, String course, UUID player, String playerName,
            int entity, GhostRange range) {
        Objects.requireNonNull(finish, "finish");
        Objects.requireNonNull(course, "course");
        Objects.requireNonNull(playerName, "playerName");
        Objects.requireNonNull(range, "range");
        return call(NativeBridge.catalogRegisterFinished(handle.get(), finish.finishHandle(), course, uuid(player),
                playerName, entity, range.toNative()),
            b -> runs(b).get(0).run());
    }

    /**
     * Registers one run of the finished recording at {@code location}: a path on this machine or an
     * object URL ({@code s3://bucket/key}, read with the {@code AWS_*} variables), as {@link
     * #register(Path, String, UUID, String, int, GhostRange)} does for a file; the run's {@link
     * Run#location()} is then that location. The recording is read from there, so nothing is
     * registered for an object that is not in the bucket (the pending fails with a {@link
     * TickreelException}); a location that is neither a path nor an {@code s3://} URL with a key
     * fails it with {@link IllegalArgumentException}. Its result is the registered run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Run> registerAt(String location, String course, UUID player, String playerName, int entity,
            GhostRange range) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(course, "course");
        Objects.requireNonNull(playerName, "playerName");
        Objects.requireNonNull(range, "range");
        return call(NativeBridge.catalogRegisterAt(handle.get(), location, course, uuid(player), playerName, entity,
                range.toNative()),
            b -> runs(b).get(0).run());
    }

    /**
     * Registers one run of a recording once its {@code upload} ({@link Recorder#finishAndUpload})
     * succeeded, as {@link #registerAt} with the uploaded object's URL, read back with the upload's
     * {@link ObjectOptions}. A failed finish or upload fails the pending and registers nothing: the
     * catalog never points at an object that is not in the bucket. The catalog's worker waits for
     * the upload: calls made after this one complete after it. The handle stays the caller's.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Run> registerUploaded(Pending<Uploaded> upload, String course, UUID player,
            String playerName, int entity, GhostRange range) {
        Objects.requireNonNull(upload, "upload");
        Objects.requireNonNull(course, "course");
        Objects.requireNonNull(playerName, "playerName");
        Objects.requireNonNull(range, "range");
        return call(NativeBridge.catalogRegisterUpload(handle.get(), upload.uploadHandle(), course, uuid(player),
                playerName, entity, range.toNative()),
            b -> runs(b).get(0).run());
    }

    /**
     * Marks run {@code runId} valid or invalid (anticheat, an operator's decision): an invalid run
     * leaves the boards and its player's best is recomputed. Fails with {@link
     * IllegalArgumentException} when there is no such run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Void> setRunValid(long runId, boolean valid) {
        return call(NativeBridge.catalogSetRunValid(handle.get(), runId, valid), Catalog::done);
    }

    /**
     * Checks run {@code runId} again, as registration checked it: its recording's SHA-256 against the one taken
     * then, and its speed, teleports, dropped ticks and checkpoint order against its course's limits. A failing
     * run is held: it leaves every board and serves as no ghost until a moderator clears it. Its result is the
     * run's state after the check; fails with {@link IllegalArgumentException} when there is no such run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<RunCheck> checkRun(long runId) {
        return call(NativeBridge.catalogCheckRun(handle.get(), runId), b -> runCheck(b));
    }

    /**
     * Run {@code runId}'s check state as stored (held or not, why, who cleared it), without checking it again;
     * fails with {@link IllegalArgumentException} when there is no such run.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<RunCheck> runCheck(long runId) {
        return call(NativeBridge.catalogRunCheck(handle.get(), runId), b -> runCheck(b));
    }

    /**
     * Clears held run {@code runId} as moderator {@code by} (1 to 64 characters, recorded in the catalog's audit log
     * with the reasons it was held for): it goes on the boards and serves as a ghost. Fails with {@link
     * IllegalArgumentException} when there is no such run or {@code by} is not a name, with {@link
     * IllegalStateException} when the run is not held.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<RunCheck> clearRun(long runId, String by) {
        Objects.requireNonNull(by, "by");
        return call(NativeBridge.catalogClearRun(handle.get(), runId, by), b -> runCheck(b));
    }

    /**
     * Sets the limits runs of {@code course} are checked against when registered from now on: the preset {@code
     * movement} ({@code walking}, {@code sprinting}, the default of a course without limits, or {@code elytra}) with
     * each speed above 0 in its place (blocks a tick and blocks in one second, horizontally, up and down), and the
     * number of checkpoints a run reaches (0: only their order is checked).
     *
     * @throws IllegalArgumentException for another movement or a negative or non-finite speed
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Void> setCourseLimits(String course, String movement, double horizontalTick,
            double horizontalSecond, double upTick, double downTick, double upSecond, double downSecond,
            int checkpoints) {
        Objects.requireNonNull(course, "course");
        Objects.requireNonNull(movement, "movement");
        return call(NativeBridge.catalogSetCourseLimits(handle.get(), course, movement, horizontalTick,
            horizontalSecond, upTick, downTick, upSecond, downSecond, checkpoints), Catalog::done);
    }

    /**
     * Files an open shadow-play report on {@code reported} by {@code reporter}, with the finished
     * recording shadow play wrote for it ({@code recording}: a local path or an object URL read with
     * the {@code AWS_*} variables, once its upload succeeded; null for none), which is registered
     * (read from there: nothing is filed for an object that is not in the bucket). Its result is
     * the filed report.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Report> addReport(UUID reported, String reportedName, UUID reporter, String reason,
            String recording) {
        Objects.requireNonNull(reportedName, "reportedName");
        Objects.requireNonNull(reason, "reason");
        return call(NativeBridge.catalogAddReport(handle.get(), uuid(reported), reportedName, uuid(reporter), reason,
                recording), b -> reports(b).get(0));
    }

    /**
     * The open shadow-play reports, newest first.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Report>> openReports() {
        return call(NativeBridge.catalogReports(handle.get(), 1), b -> reports(b));
    }

    /**
     * Every shadow-play report, open or closed, newest first.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<Report>> reports() {
        return call(NativeBridge.catalogReports(handle.get(), 0), b -> reports(b));
    }

    /**
     * Opens or closes report {@code reportId}; fails with {@link IllegalArgumentException} when there is none.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Void> setReportOpen(long reportId, boolean open) {
        return call(NativeBridge.catalogSetReportOpen(handle.get(), reportId, open), Catalog::done);
    }

    /**
     * Sets (replaces) the retention policy of its scope, which {@link #prune(boolean)} applies.
     *
     * @throws IllegalArgumentException for a malformed scope
     */
    public Pending<Void> setRetention(RetentionPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        return call(NativeBridge.catalogSetRetention(handle.get(), policy.scope(), policy.keepTop().orElse(0),
                policy.keepPersonalBests(), policy.keepDays().orElse(0), policy.keepOpenReports()), Catalog::done);
    }

    /**
     * Removes the policy of {@code scope} (the defaults apply again).
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<Void> clearRetention(String scope) {
        Objects.requireNonNull(scope, "scope");
        return call(NativeBridge.catalogClearRetention(handle.get(), scope), Catalog::done);
    }

    /**
     * The retention policies set.
     *
     * @throws IllegalStateException if this catalog is closed (a failure of the query itself is the pending's: its poll and waits throw a {@link TickreelException})
     */
    public Pending<List<RetentionPolicy>> retention() {
        return call(NativeBridge.catalogRetention(handle.get()), b -> retention(b));
    }

    /** Runs the calls already queued (their pendings complete), then stops the worker. Idempotent. */
    @Override
    public void close() {
        handle.close(); // joins the native worker after the queued calls
    }

    /** A call's pending, whose result is its rows decoded by {@code decode}. */
    private static <T> Pending<T> call(long call, Function<byte[], T> decode) {
        return new Pending<>(call, Pending.rows(decode), "catalog call");
    }

    private static long[] uuid(UUID u) {
        Objects.requireNonNull(u, "player");
        return new long[] {u.getMostSignificantBits(), u.getLeastSignificantBits()};
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[Short.toUnsignedInt(b.getShort())];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /** An encoded UUID that is all zero for none. */
    private static Optional<UUID> optionalUuid(ByteBuffer b) {
        UUID u = new UUID(b.getLong(), b.getLong());
        return u.getMostSignificantBits() == 0 && u.getLeastSignificantBits() == 0 ? Optional.empty() : Optional.of(u);
    }

    /** A map version as the native calls take it: world, version ({@code null, null} for none). */
    private static long[] world(MapVersion v) {
        return v == null ? null : new long[] {v.world().getMostSignificantBits(), v.world().getLeastSignificantBits()};
    }

    private static long[] version(MapVersion v) {
        return v == null ? null : new long[] {v.version().getMostSignificantBits(), v.version().getLeastSignificantBits()};
    }

    /** An encoded string that is empty for none. */
    private static Optional<String> optional(String s) {
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }

    /** Decodes the run rows (native/bridge/api/catalog.rs, {@code rows::runs}). */
    static List<Placed> runs(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<Placed> out = new ArrayList<>();
        while (b.hasRemaining()) {
            long rank = b.getLong();
            long id = b.getLong();
            long recording = b.getLong();
            UUID player = new UUID(b.getLong(), b.getLong());
            int entity = b.getInt();
            int start = b.getInt();
            int end = b.getInt();
            int ticks = b.getInt();
            double rate = b.getDouble();
            long achieved = b.getLong();
            boolean valid = b.get() != 0;
            long flags = b.getLong();
            String course = string(b);
            String name = string(b);
            Optional<String> server = optional(string(b));
            String location = string(b);
            Optional<UUID> world = optionalUuid(b);
            Optional<UUID> worldVersion = optionalUuid(b);
            boolean held = b.get() != 0;
            out.add(new Placed(rank, new Run(id, recording, course, player, name, entity, start, end, ticks, rate, achieved,
                valid, flags, server, location, world, worldVersion, held)));
        }
        return Collections.unmodifiableList(out);
    }

    /** Decodes a run's check state (native/bridge/api/catalog.rs, {@code rows::run_check}). */
    static RunCheck runCheck(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long id = b.getLong();
        boolean held = b.get() != 0;
        b.get(); // cleared: the name below is empty when not
        long clearedMs = b.getLong();
        Optional<String> by = optional(string(b));
        int n = b.getInt();
        List<RunCheck.Hold> holds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            b.get(); // the reason's code (C's); Java reads its name
            boolean hasTick = b.get() != 0;
            int tick = b.getInt();
            String reason = string(b);
            holds.add(new RunCheck.Hold(reason, hasTick ? OptionalInt.of(tick) : OptionalInt.empty(), string(b)));
        }
        return new RunCheck(id, held, Collections.unmodifiableList(holds), by, clearedMs);
    }

    private static Optional<SumOfBest> sumOfBest(byte[] bytes) {
        if (bytes.length == 0) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long total = b.getLong();
        double rate = b.getDouble();
        int runs = b.getInt();
        int n = b.getInt();
        List<SumOfBest.BestSegment> segments = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int from = b.getInt();
            int to = b.getInt();
            segments.add(new SumOfBest.BestSegment(checkpoint(from), checkpoint(to), b.getInt(), b.getLong()));
        }
        return Optional.of(new SumOfBest(total, rate, runs, Collections.unmodifiableList(segments)));
    }

    private static OptionalInt checkpoint(int v) {
        return v == -1 ? OptionalInt.empty() : OptionalInt.of(v);
    }

    private static List<Pruned> pruned(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<Pruned> out = new ArrayList<>();
        while (b.hasRemaining()) {
            long id = b.getLong();
            long size = b.getLong();
            long runs = b.getLong();
            out.add(new Pruned(id, string(b), size, runs));
        }
        return Collections.unmodifiableList(out);
    }
    /** A call without rows: its result is null. */
    private static Void done(byte[] rows) {
        return null;
    }

    /** Decodes report rows (native/bridge/api/catalog_admin.rs, {@code rows::reports}). */
    private static List<Report> reports(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<Report> out = new ArrayList<>();
        while (b.hasRemaining()) {
            long id = b.getLong();
            UUID reported = new UUID(b.getLong(), b.getLong());
            UUID reporter = new UUID(b.getLong(), b.getLong());
            long created = b.getLong();
            boolean open = b.get() != 0;
            long recording = b.getLong();
            String name = string(b);
            String reason = string(b);
            Optional<String> server = optional(string(b));
            Optional<String> location = optional(string(b));
            out.add(new Report(id, reported, name, reporter, reason, created, open,
                recording == 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(recording), server, location));
        }
        return Collections.unmodifiableList(out);
    }

    /** Decodes policy rows (native/bridge/api/catalog_admin.rs, {@code rows::retention}). */
    private static List<RetentionPolicy> retention(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<RetentionPolicy> out = new ArrayList<>();
        while (b.hasRemaining()) {
            String scope = string(b);
            long top = b.getLong();
            boolean pbs = b.get() != 0;
            long days = b.getLong();
            boolean reports = b.get() != 0;
            out.add(new RetentionPolicy(scope, optional(top), pbs, optional(days), reports));
        }
        return Collections.unmodifiableList(out);
    }

    private static OptionalInt optional(long v) {
        return v == 0 ? OptionalInt.empty() : OptionalInt.of((int) Math.min(v, Integer.MAX_VALUE));
    }
}
