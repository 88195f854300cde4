package io.tickreel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * The Java side of {@code java-bindings/bench.sh}: nanoseconds per player-tick when a server
 * thread encodes each tick with {@link Batch} and submits it with one {@link Recorder#submit}
 * (one native call). The same workload runs through {@code Recorder::submit_tick} in Rust in
 * {@code native/cli/src/bench/jni.rs} ({@link BenchPoses}, the workload, says what must stay
 * identical); keep the rounds alike. Prints {@code jni_ns_per_player_tick=<median>}.
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

    private static void drain(Engine engine) throws InterruptedException {
        while (engine.stats().inflightBytes() > 0) {
            Thread.sleep(0, 200_000);
        }
    }

    static double runOnce(Engine engine, Path dir, int ticks, int run, BenchPoses poses) throws Exception {
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
                poses.fill(t, w);
                rec.submit(t, w);
            }
            drain(engine);
            engine.setWritersStalled(true);
            long start = System.nanoTime();
            for (int t = warm; t < warm + ticks; t++) {
                poses.fill(t, w);
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
        BenchPoses poses = new BenchPoses(PLAYERS, ticks / 2 + ticks);
        try (Engine engine = new Engine(big)) {
            // Warm the JIT: the encoder and the call path reach C2 well before this ends.
            for (int i = 0; i < (quick ? 4 : 8); i++) {
                runOnce(engine, dir, ticks, -1 - i, poses);
            }
            for (int r = 0; r < runs; r++) {
                v[r] = runOnce(engine, dir, ticks, r, poses);
            }
        }
        Arrays.sort(v);
        Files.deleteIfExists(dir);
        System.out.println("jni_ns_per_player_tick=" + v[runs / 2]);
    }
}
