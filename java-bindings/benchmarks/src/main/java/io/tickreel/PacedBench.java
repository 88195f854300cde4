package io.tickreel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * What a server thread pays per tick at a real 20 ticks/s (sleeping between ticks, caches cold):
 * the paced half of {@code java-bindings/bench.sh}. JMH samples every measured tick
 * ({@link Mode#SampleTime}, nanoseconds per tick of {@value #PLAYERS} players); {@code bench.sh}
 * divides the median and the 99th percentile by {@value #PLAYERS}.
 *
 * <ul>
 *   <li>{@link #submit}: fill a {@link Batch} with {@value #PLAYERS} players' poses
 *       ({@link BenchPoses}) and {@link Recorder#submit(int, Batch)} it (one native call), the
 *       engine's writer running as in production (default options) &rarr;
 *       {@code jni_paced_ns_per_player_tick_median} / {@code _p99};
 *   <li>{@link #floor}: the same fill into a second batch, then the same bytes copied into its
 *       direct {@link java.nio.ByteBuffer} ({@link Batch#sealDirect()}, what {@code submit} does
 *       before its native call), no native call &rarr;
 *       {@code jni_paced_floor_ns_per_player_tick_median} / {@code _p99}.
 * </ul>
 *
 * <p>Both benchmarks run the same schedule, only the part measured differs: tick {@code t} is
 * submitted at its deadline and its floor copy made half a tick later, so that both start from a
 * sleep (as the hand-timed runner did, in one run). The sleeps, and the half of each tick that is
 * not measured, run in {@code @Setup(Level.Invocation)}, outside the measured part. Each fork first
 * records {@value #WARM_TICKS} ticks back to back, both halves, to warm the JIT; the schedule
 * restarts at each iteration (JMH's work between iterations is not a late tick). A trial that
 * dropped a tick (backpressure) fails.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 3, time = 10, timeUnit = TimeUnit.SECONDS)
public class PacedBench {
    /** Players per tick. */
    static final int PLAYERS = 200;
    /** One tick at 20 ticks/s. */
    static final long TICK_NANOS = 50_000_000L;
    /** Ticks recorded back to back, before the paced ones, to warm the JIT. */
    static final int WARM_TICKS = 4000;

    private final BenchPoses poses = new BenchPoses(PLAYERS, 1000);
    private final Batch w = new Batch();
    private final Batch floor = new Batch();
    private Path dir;
    private Engine engine;
    private Recorder rec;
    private boolean floorMeasured;
    /** The tick the next measured call works on. */
    private int tick;
    /** When {@link #tick} is due for submission. */
    private long deadline;

    /** A new state (JMH makes one per fork). */
    public PacedBench() {}

    private static void sleepUntil(long deadline) {
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    private void submitTick(int t) {
        poses.fill(t, w);
        rec.submit(t, w);
    }

    private int copyTick(int t) {
        poses.fill(t, floor);
        return floor.sealDirect().get(2);
    }

    /**
     * Starts the engine (default options) and the recording, and warms the JIT.
     *
     * @param params which benchmark this fork runs
     * @throws IOException if the temporary directory cannot be made
     */
    @Setup(Level.Trial)
    public void start(BenchmarkParams params) throws IOException {
        floorMeasured = params.getBenchmark().endsWith(".floor");
        dir = Files.createTempDirectory("tickreel-paced-bench");
        engine = new Engine(EngineOptions.defaults());
        rec = engine.startRecording(dir.resolve("paced.reel"), RecorderOptions.defaults());
        for (; tick < WARM_TICKS; tick++) {
            submitTick(tick);
            copyTick(tick);
        }
        // Before the first measured tick: the previous tick's floor (see pace()).
        tick--;
    }

    /** Restarts the schedule: the first tick of the iteration is due a tick from now. */
    @Setup(Level.Iteration)
    public void schedule() {
        deadline = System.nanoTime() + TICK_NANOS;
    }

    /**
     * The unmeasured half of a tick and the sleep to the measured half. Measuring {@link #submit}:
     * the last tick's floor copy half a tick before this tick's deadline, then the sleep to it.
     * Measuring {@link #floor}: this tick's submit at its deadline, then the sleep to half a tick
     * later.
     */
    @Setup(Level.Invocation)
    public void pace() {
        tick++;
        if (floorMeasured) {
            sleepUntil(deadline);
            submitTick(tick);
            sleepUntil(deadline + TICK_NANOS / 2);
        } else {
            sleepUntil(deadline - TICK_NANOS / 2);
            copyTick(tick - 1);
            sleepUntil(deadline);
        }
        deadline += TICK_NANOS;
    }

    /**
     * Fills the tick and submits it: one native call.
     *
     * @return whether the recorder took the tick
     */
    @Benchmark
    public boolean submit() {
        poses.fill(tick, w);
        return rec.submit(tick, w);
    }

    /**
     * Fills the tick into the second batch and copies its bytes into the batch's direct buffer,
     * no native call.
     *
     * @return a byte of the copy (consumed by JMH)
     */
    @Benchmark
    public int floor() {
        poses.fill(tick, floor);
        return floor.sealDirect().get(2);
    }

    /**
     * Fails if a tick was dropped, then stops the recording and the engine.
     *
     * @throws IOException if the temporary directory cannot be removed
     */
    @TearDown(Level.Trial)
    public void stop() throws IOException {
        try {
            if (rec.stats().droppedTicks() != 0) {
                throw new IllegalStateException("ticks dropped: " + rec.stats());
            }
            rec.abort();
        } finally {
            rec.close();
            engine.close();
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
