package io.tickreel;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Shadow play: the last minutes of one world (a stream of ticks) kept in memory, turned into an
 * ordinary {@code .reel} file around a player when they are reported. Started together with the
 * {@link Recorder} that feeds it; ticks are submitted to that recorder as to any.
 *
 * <pre>{@code
 * ShadowBuffer.Started s = ShadowBuffer.start(engine, null, RecorderOptions.defaults(), ShadowOptions.defaults());
 * Recorder rec = s.recorder();                      // every tick: rec.submit(tick, t)
 * // a player reports a cheater:
 * Pending<Path> h = s.shadow().report(suspect, reportPath,
 *         ReportOptions.builder().metadata("reporter", name).metadata("reason", reason).build());
 * h.poll();                                         // Optional<Path>, from the tick loop; or await()
 * }</pre>
 *
 * <p>With a path the stream is also the recording of that path ({@link Engine#startRecording});
 * without ({@code null}) it is written nowhere but this buffer, and its recorder refuses {@link
 * Recorder#finish()}: end it with {@link Recorder#close()} or {@link Recorder#abort()}. {@link
 * Recorder#playerLeft} starts a player's grace period.
 *
 * <p>The buffer and its recorder are closed separately, as any handles: {@link #close()} releases
 * the buffer's handle (reports already made go on) but does not end the stream, whose recorder
 * keeps feeding the blocks until it ends; after the stream ends (its recorder closed, aborted or
 * finished, or the engine closed) the buffer still reports from what it retained. The memory is
 * released once both are gone. Calls after {@link #close()} throw {@link IllegalStateException};
 * a report made after the engine was closed gets a handle that throws it. Reports may be made
 * from any thread. A {@link java.lang.ref.Cleaner} closes a forgotten buffer.
 */
public final class ShadowBuffer implements AutoCloseable {
    private final NativeHandle handle;
    /** Keeps the engine reachable (its cleaner would shut it down) while this buffer is. */
    private final Engine engine;

    /**
     * What {@link #start} started: the recorder to submit ticks to, and the buffer. Closing it
     * closes both.
     *
     * @param recorder the stream's recorder
     * @param shadow the buffer
     */
    public record Started(Recorder recorder, ShadowBuffer shadow) implements AutoCloseable {
        /** Closes the recorder (ending the stream), then the buffer. Idempotent. */
        @Override
        public void close() {
            recorder.close();
            shadow.close();
        }
    }

    private ShadowBuffer(Engine engine, long h) {
        this.engine = engine;
        this.handle = new NativeHandle(this, h, "ShadowBuffer");
    }

    /**
     * Starts a shadowed stream.
     *
     * @param path the recording's final {@code .reel} path (started or resumed as by {@link
     *     Engine#startRecording}), or {@code null} for a stream written nowhere but the buffer
     * @param recorder the stream's options; its {@link RecorderOptions#server() server} names the
     *     game server in the recording, in every report and on the reports' catalog rows
     * @throws IllegalArgumentException for options the library refuses (a window or grace period
     *     over a day, too many block ticks)
     * @throws IllegalStateException if the engine is closed, or as {@link Engine#startRecording}
     */
    public static Started start(Engine engine, Path path, RecorderOptions recorder, ShadowOptions options) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(recorder, "recorder");
        Objects.requireNonNull(options, "options");
        long o = recorder.toNative();
        long so = 0;
        try {
            so = options.toNative();
            long[] h = NativeBridge.shadowBufferStartOn(engine.nativeHandle(), recorder.server(),
                    path == null ? null : path.toString(), o, so);
            return new Started(new Recorder(engine, path, h[0]), new ShadowBuffer(engine, h[1]));
        } finally {
            NativeBridge.close(o);
            NativeBridge.close(so);
        }
    }

    /** The engine this buffer's stream runs in. */
    public Engine engine() {
        return engine;
    }

    /**
     * Reports {@code player} (an entity id): the buffer keeps capturing for {@link
     * ReportOptions.Builder#after}, then the engine's background worker writes the window around the
     * player to {@code path}, which appears only complete. Returns at once. The report's reference
     * is the newest tick the writer has taken in: {@link Recorder#flush()} first makes it the last
     * tick submitted.
     *
     * @return the report's result, whose {@code poll()}/{@code await()} give {@code path}; it throws
     *     {@link TickreelException} of kind {@code IO} if a file exists at {@code path} (without
     *     {@link ReportOptions.Builder#overwrite}; its cause is a {@link
     *     java.nio.file.FileAlreadyExistsException}), {@link IllegalStateException} if the engine
     *     was closed first
     * @throws IllegalArgumentException for a player the buffer holds nothing of (never seen, or
     *     gone longer than the grace period and the window), a metadata key of the library's, or
     *     options the library refuses (before or after over a day)
     * @throws IllegalStateException before the stream's first tick, once the engine is closed, or once this buffer is closed
     */
    public Pending<Path> report(int player, Path path, ReportOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        long o = options.toNative();
        try {
            return new Pending<>(NativeBridge.shadowBufferReport(handle.get(), player, path.toString(),
                    o, metadataPairs(options)), Pending.FINISH, "report");
        } finally {
            NativeBridge.close(o);
        }
    }

    /**
     * Reports the player with UUID {@code player} as {@link #report(int, Path, ReportOptions)}
     * reports an entity id: an entity id changes when a player relogs, the UUID does not (register
     * players with {@link Recorder#registerPlayer}). Reports the newest entity of that UUID the
     * buffer holds data of (the one after the last relog).
     *
     * @return the report's result, as {@link #report(int, Path, ReportOptions)}'s
     * @throws IllegalArgumentException when no entity registered with that UUID has data in the
     *     buffer, and as {@link #report(int, Path, ReportOptions)}
     * @throws IllegalStateException as {@link #report(int, Path, ReportOptions)}
     * @throws NullPointerException if an argument is null
     */
    public Pending<Path> report(UUID player, Path path, ReportOptions options) {
        Objects.requireNonNull(player, "player");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        long[] uuid = {player.getMostSignificantBits(), player.getLeastSignificantBits()};
        long o = options.toNative();
        try {
            return new Pending<>(NativeBridge.shadowBufferReportUuid(handle.get(), uuid, path.toString(),
                    o, metadataPairs(options)), Pending.FINISH, "report");
        } finally {
            NativeBridge.close(o);
        }
    }

    /**
     * Reports {@code player} as {@link #report(int, Path, ReportOptions)} does (the report written
     * to the local {@code path}) and, once the report's file is complete, uploads it to the object
     * URL {@code url} ({@code s3://bucket/key}) on a background thread, as {@link
     * Recorder#finishAndUpload} does: never over an existing object unless {@code
     * uploadOverwrite}, the uploaded size checked, then the local file removed if {@code
     * removeLocal}. A failed upload keeps the local file. Returns at once.
     *
     * @return the upload's result, whose {@code poll()}/{@code await()} give the uploaded object and
     *     throw the report's or the upload's failure
     * @throws IllegalArgumentException for a malformed URL (checked first: nothing is reported),
     *     and as {@link #report(int, Path, ReportOptions)}
     * @throws IllegalStateException as {@link #report(int, Path, ReportOptions)}
     */
    public Pending<Uploaded> reportAndUpload(int player, Path path, ReportOptions options, String url,
            ObjectOptions objectOptions, boolean uploadOverwrite, boolean removeLocal) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(objectOptions, "objectOptions");
        long o = objectOptions.toNative();
        long ro = 0;
        try {
            ro = options.toNative();
            return new Pending<>(NativeBridge.shadowBufferReportUpload(handle.get(), player,
                    path.toString(), ro, metadataPairs(options), url, o,
                    uploadOverwrite, removeLocal), Pending.UPLOAD, "upload");
        } finally {
            NativeBridge.close(o);
            NativeBridge.close(ro);
        }
    }

    private static String[] metadataPairs(ReportOptions options) {
        Map<String, String> meta = options.metadata();
        String[] pairs = new String[2 * meta.size()];
        int i = 0;
        for (Map.Entry<String, String> e : meta.entrySet()) {
            pairs[i++] = e.getKey();
            pairs[i++] = e.getValue();
        }
        return pairs;
    }

    /** {@link #report(int, Path, ReportOptions)} with {@link ReportOptions#defaults()}. */
    public Pending<Path> report(int player, Path path) {
        return report(player, path, ReportOptions.defaults());
    }

    /**
     * Counters of this buffer.
     *
     * @throws IllegalStateException if this shadow buffer is closed
     */
    public ShadowStats stats() {
        return ShadowStats.fromNative(NativeBridge.shadowBufferStats(handle.get()));
    }

    /**
     * Whether the stream still feeds this buffer ({@code false} once it ended).
     *
     * @throws IllegalStateException if this shadow buffer is closed
     */
    public boolean isAttached() {
        return NativeBridge.shadowBufferIsAttached(handle.get());
    }

    /** Releases the buffer's handle (reports already made go on; the stream does not end). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
