package io.tickreel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sampling a {@link Ghost} from Java: one {@link GhostCursor#sample(double, GhostSample)} into a
 * reused {@link GhostSample} at a fractional tick (one native call), nanoseconds per sample, and
 * its allocations ({@code -prof gc}). The Java twin of the Rust figures {@code ghost_sample_ns}
 * and {@code ghost_random_sample_ns} ({@code native/bench/src/areas/ghost.rs}), on a run of the
 * same length: one player for {@value #RUN_TICKS} ticks (5 minutes at 20 ticks/s, the first
 * player of {@link BenchPoses}), a checkpoint every 600 ticks.
 *
 * <ul>
 *   <li>{@link #forward}: forward at 60 Hz over the whole run and again (what a server does every
 *       frame) &rarr; {@code jni_ghost_sample_ns};
 *   <li>{@link #random}: at 4096 random times of the run, in turn &rarr;
 *       {@code jni_ghost_random_sample_ns}.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
public class GhostBench {
    /** The run's length: 5 minutes at 20 ticks/s. */
    static final int RUN_TICKS = 6000;
    /** The entity raced. */
    static final int ENTITY = 0;

    private final GhostSample sample = new GhostSample();
    private final double[] times = new double[4096];
    private Path dir;
    private Ghost ghost;
    private GhostCursor cursor;
    private double step;
    private int samplesPerPass;
    private int k;
    private int i;

    /** A new state (JMH makes one per fork). */
    public GhostBench() {}

    /**
     * Records the run, loads it as a ghost and opens a cursor on it.
     *
     * @throws IOException if the temporary directory cannot be made
     */
    @Setup(Level.Trial)
    public void start() throws IOException {
        dir = Files.createTempDirectory("tickreel-ghost-bench");
        Path reel = dir.resolve("run.reel");
        BenchPoses poses = new BenchPoses(1, RUN_TICKS);
        Batch w = new Batch();
        try (Engine engine = new Engine(EngineOptions.defaults());
                Recorder rec = engine.startRecording(reel, RecorderOptions.defaults())) {
            for (int t = 0; t < RUN_TICKS; t++) {
                poses.fill(t, w);
                if (t % 600 == 0) {
                    w.checkpoint(ENTITY, t / 600);
                }
                rec.submit(t, w);
            }
            try (Pending<Path> f = rec.finish()) {
                f.await();
            }
        }
        ghost = Ghost.load(reel, ENTITY);
        cursor = ghost.cursor();
        double duration = ghost.durationTicks();
        step = cursor.tickRate() / 60.0;
        samplesPerPass = (int) (duration / step) + 1;
        SplittableRandom rng = new SplittableRandom(9);
        for (int j = 0; j < times.length; j++) {
            times[j] = rng.nextDouble() * duration;
        }
    }

    /**
     * The next 60 Hz frame of the run (from the start again after the finish).
     *
     * @return the sample (consumed by JMH)
     */
    @Benchmark
    public GhostSample forward() {
        double t = k * step;
        if (++k == samplesPerPass) {
            k = 0;
        }
        return cursor.sample(t, sample);
    }

    /**
     * The next of the random times.
     *
     * @return the sample (consumed by JMH)
     */
    @Benchmark
    public GhostSample random() {
        return cursor.sample(times[i++ & (times.length - 1)], sample);
    }

    /**
     * Closes the cursor and the ghost.
     *
     * @throws IOException if the temporary directory cannot be removed
     */
    @TearDown(Level.Trial)
    public void stop() throws IOException {
        cursor.close();
        ghost.close();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
