package io.tickreel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * The Java side of {@code java-bindings/bench.sh}: nanoseconds per player-tick when a server
 * thread encodes each tick with {@link Batch} and submits it with one {@link Recorder#submit}
 * (one native call). The same workload runs through {@code Recorder::submit_tick} in Rust in
 * {@code native/cli/src/bench/jni.rs}; keep {@link #fill} and its {@code fill} identical, and the
 * rounds alike. Prints {@code jni_ns_per_player_tick=<median>}.
 *
 * <p>Each run: a warm-up round with the writer running, then a measured round with the writer
 * held by the package-private test hook {@link Engine#setWritersStalled} (which is why this class
 * lives in {@code io.tickreel}), so that the figure is the server thread's own cost and not time
 * shared with the writer on a small machine.
 */
public final class JniBench {
    /** Players per tick (as {@code PLAYERS} in jni.rs). */
    static final int PLAYERS = 100;

    private JniBench() {}

    /**
     * Every player's x, y, z, yaw, pitch for {@code ticks} ticks, computed before timing (a server
     * has its players' positions at hand); must stay identical to jni.rs {@code table}.
     */
    static double[] table(int ticks) {
        double[] v = new double[ticks * PLAYERS * 5];
        int i = 0;
        for (int t = 0; t < ticks; t++) {
            for (int p = 0; p < PLAYERS; p++) {
                v[i++] = p * 2.0 + t * 0.28 + Math.sin(t * 0.05 + p) * 0.1;
                v[i++] = 64.0 + Math.max(Math.sin(t * 0.3 + p) * 0.6, 0.0);
                v[i++] = p * 0.5 + Math.cos(t * 0.02) * 3.0;
                v[i++] = t * 3.7 + p;
                v[i++] = Math.sin(t * 0.1) * 20.0;
            }
        }
        return v;
    }

    /** One tick's events (the timed work with the submit); must stay identical to jni.rs {@code fill}. */
    static void fill(int t, Batch w, double[] table) {
        w.clear();
        int i = t * PLAYERS * 5;
        for (int p = 0; p < PLAYERS; p++, i += 5) {
            if (t == 0) {
                w.entityAdd(p, 0, table[i], table[i + 1], table[i + 2], table[i + 3], table[i + 4]);
            } else {
                w.pose(p, table[i], table[i + 1], table[i + 2], table[i + 3], table[i + 4]);
            }
            if (t % 20 == 0) {
                w.flags(p, (t / 20 + p) & 7);
            }
        }
    }

    private static void drain(Engine engine) throws InterruptedException {
        while (engine.stats().inflightBytes() > 0) {
            Thread.sleep(0, 200_000);
        }
    }

    static double runOnce(Engine engine, Path dir, int ticks, int run, double[] table) throws Exception {
        RecorderOptions options = RecorderOptions.builder()
                .backpressureBlock(Duration.ofSeconds(10))
                .flushBytes(4 << 20)
                .flushInterval(Duration.ofHours(1))
                .flushOnPlayerLeave(false)
                .build();
        Batch w = new Batch();
        long elapsed;
        try (Recorder rec = engine.startRecording(dir.resolve("jni-bench-" + run + ".reel"), options)) {
            int warm = ticks / 2;
            for (int t = 0; t < warm; t++) {
                fill(t, w, table);
                rec.submit(t, w);
            }
            drain(engine);
            engine.setWritersStalled(true);
            long start = System.nanoTime();
            for (int t = warm; t < warm + ticks; t++) {
                fill(t, w, table);
                rec.submit(t, w);
            }
            elapsed = System.nanoTime() - start;
            engine.setWritersStalled(false);
            rec.abort();
            drain(engine);
        }
        return (double) elapsed / ((double) ticks * PLAYERS);
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code --quick} for the smaller workload
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int ticks = quick ? 600 : 2000;
        int runs = quick ? 3 : 7;
        Path dir = Files.createTempDirectory("tickreel-jni-bench");
        EngineOptions big = EngineOptions.builder().queueCapacity(1 << 16).maxInflightBytes(1L << 30).build();
        double[] v = new double[runs];
        double[] table = table(ticks / 2 + ticks);
        try (Engine engine = new Engine(big)) {
            // Warm the JIT: the encoder and the call path reach C2 well before this ends.
            for (int i = 0; i < (quick ? 4 : 8); i++) {
                runOnce(engine, dir, ticks, -1 - i, table);
            }
            for (int r = 0; r < runs; r++) {
                v[r] = runOnce(engine, dir, ticks, r, table);
            }
        }
        Arrays.sort(v);
        Files.deleteIfExists(dir);
        System.out.println("jni_ns_per_player_tick=" + v[runs / 2]);
    }
}
