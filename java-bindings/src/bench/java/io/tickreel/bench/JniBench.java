package io.tickreel.bench;

import io.tickreel.RecordingOptions;
import io.tickreel.ReplayWriter;
import io.tickreel.TickWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The Java side of {@code java-bindings/bench.sh}: nanoseconds per player-tick when a server
 * thread encodes each tick with {@link TickWriter} and submits it with one native call. The same
 * workload runs through the Rust API in {@code native/bin/bench/jni.rs}; keep {@link #fill} and
 * its {@code fill} identical. Prints {@code jni_ns_per_player_tick=<median>}.
 *
 * <p>Path measured: {@link ReplayWriter#writeTick(int, TickWriter)}, which encodes and compresses
 * synchronously; it will switch to the live recorder's submit once that is bound.
 */
public final class JniBench {
    /** Players per tick (as {@code PLAYERS} in jni.rs). */
    static final int PLAYERS = 100;

    private JniBench() {}

    /** One tick's events; must stay identical to jni.rs {@code fill}. */
    static void fill(int t, TickWriter w) {
        w.clear();
        for (int p = 0; p < PLAYERS; p++) {
            double x = p * 2.0 + t * 0.28 + Math.sin(t * 0.05 + p) * 0.1;
            double y = 64.0 + Math.max(Math.sin(t * 0.3 + p) * 0.6, 0.0);
            double z = p * 0.5 + Math.cos(t * 0.02) * 3.0;
            double yaw = t * 3.7 + p;
            double pitch = Math.sin(t * 0.1) * 20.0;
            if (t == 0) {
                w.entityAdd(p, 0, x, y, z, yaw, pitch);
            } else {
                w.pose(p, x, y, z, yaw, pitch);
            }
            if (t % 20 == 0) {
                w.flags(p, (t / 20 + p) & 7);
            }
        }
    }

    static double runOnce(Path dir, int ticks, int run) throws Exception {
        Path reel = dir.resolve("jni-bench-" + run + ".reel");
        TickWriter w = new TickWriter();
        long elapsed;
        try (ReplayWriter writer = ReplayWriter.create(reel, RecordingOptions.defaults())) {
            long start = System.nanoTime();
            for (int t = 0; t < ticks; t++) {
                fill(t, w);
                writer.writeTick(t, w);
            }
            elapsed = System.nanoTime() - start;
            writer.finish();
        }
        Files.deleteIfExists(reel);
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
        // Warm the JIT: the encoder and the call path reach C2 well before this ends.
        for (int i = 0; i < (quick ? 3 : 5); i++) {
            runOnce(dir, ticks, -1 - i);
        }
        double[] v = new double[runs];
        for (int r = 0; r < runs; r++) {
            v[r] = runOnce(dir, ticks, r);
        }
        Arrays.sort(v);
        Files.deleteIfExists(dir);
        System.out.println("jni_ns_per_player_tick=" + v[runs / 2]);
    }
}
