package io.tickreel;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * What {@link Playhead#advance()} allocates on the Java heap: {@code playhead_advance_allocs} of
 * {@code java-bindings/bench.sh}, bytes per call, on a playing 200-player recording of
 * {@value #TICKS} ticks ({@link BenchPoses}), {@code entities()} never called. The bytes are the
 * benchmark thread's own ({@link Calls}: {@code allocatedBytes} over {@code moved + stalled}, in
 * the measured iterations); {@code -prof gc} gives JMH's view beside them.
 *
 * <p>{@link #advance}: one call. A stalled call (prefetch behind) is counted as a call and followed
 * by a millisecond's sleep, so that most calls move the playhead; the counters {@code moved} and
 * {@code stalled} say how many did. At the last tick the playhead seeks back to the start (a seek
 * refills the same update as {@code advance()}; the time per call, which is not the figure here,
 * includes a decode every {@value #TICKS} calls).
 *
 * <p>{@link #advanceAndEntities}: the same, then {@link Playhead#entities()} (a new list of 200
 * states): the check that the meter counts, as {@code bench.sh} fails unless it reports well
 * above zero bytes per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
public class PlayheadBench {
    /** Players in the recording played. */
    static final int PLAYERS = 200;
    /** Ticks in the recording played. */
    static final int TICKS = 3000;
    /** The sleep after a stalled call. */
    static final long STALL_NANOS = 1_000_000L;

    private Path dir;
    private Playhead ph;

    /** A new state (JMH makes one per fork). */
    public PlayheadBench() {}

    /**
     * The calls of an iteration (those that moved the playhead and those that found the prefetch
     * behind) and the Java heap bytes the benchmark thread allocated meanwhile, read with {@code
     * ThreadMXBean.getCurrentThreadAllocatedBytes} at the iteration's start and end: the exact
     * figure ({@code -prof gc} counts every thread of the JVM, JMH's own included, which is about
     * 0.4 bytes per call here).
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Calls {
        private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

        /** Calls that moved the playhead. */
        public long moved;
        /** Calls that found the next tick not decoded yet. */
        public long stalled;
        /** Java heap bytes allocated by the benchmark thread during the iteration. */
        public long allocatedBytes;
        private long before;
        private long overhead;

        /** Counters for one iteration (a new state, JMH makes one per fork). */
        public Calls() {}

        /** Checks that the JVM counts allocated bytes per thread and measures the meter's own. */
        @Setup(Level.Trial)
        public void check() {
            if (!MX.isThreadAllocatedMemorySupported() || !MX.isThreadAllocatedMemoryEnabled()) {
                throw new IllegalStateException("this JVM does not count allocated bytes per thread");
            }
            overhead = -(MX.getCurrentThreadAllocatedBytes() - MX.getCurrentThreadAllocatedBytes());
        }

        /** Starts the iteration's count (JMH zeroes the counters). */
        @Setup(Level.Iteration)
        public void begin() {
            before = MX.getCurrentThreadAllocatedBytes();
        }

        /** Ends the iteration's count. */
        @TearDown(Level.Iteration)
        public void end() {
            allocatedBytes = MX.getCurrentThreadAllocatedBytes() - before - overhead;
        }
    }

    /**
     * Records the recording played and starts playing it.
     *
     * @throws IOException if the temporary directory cannot be made
     */
    @Setup(Level.Trial)
    public void start() throws IOException {
        dir = Files.createTempDirectory("tickreel-playhead-bench");
        Path reel = dir.resolve("advance.reel");
        BenchPoses poses = new BenchPoses(PLAYERS, 1000);
        Batch w = new Batch();
        try (Engine engine = new Engine(EngineOptions.defaults());
                Recorder rec = engine.startRecording(reel, RecorderOptions.defaults())) {
            for (int t = 0; t < TICKS; t++) {
                poses.fill(t, w);
                rec.submit(t, w);
            }
            try (Pending<Path> f = rec.finish()) {
                f.await();
            }
        }
        ph = Playhead.open(reel);
        ph.play();
    }

    private Update step(Calls calls) {
        Update u = ph.advance();
        if (u.stalled()) {
            calls.stalled++;
            LockSupport.parkNanos(STALL_NANOS);
        } else {
            calls.moved++;
        }
        if (u.position() >= TICKS - 1) {
            ph.seek(0);
        }
        return u;
    }

    /**
     * One {@link Playhead#advance()}.
     *
     * @param calls the counters
     * @return the update (consumed by JMH)
     */
    @Benchmark
    public Update advance(Calls calls) {
        return step(calls);
    }

    /**
     * One {@link Playhead#advance()}, then {@link Playhead#entities()}.
     *
     * @param calls the counters
     * @return the entities (consumed by JMH)
     */
    @Benchmark
    public List<EntityState> advanceAndEntities(Calls calls) {
        step(calls);
        return ph.entities();
    }

    /**
     * Closes the playhead.
     *
     * @throws IOException if the temporary directory cannot be removed
     */
    @TearDown(Level.Trial)
    public void stop() throws IOException {
        ph.close();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
