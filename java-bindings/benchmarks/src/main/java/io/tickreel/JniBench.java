package io.tickreel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Nanoseconds per player-tick when a server thread encodes each tick with {@link Batch} and
 * submits it with one {@link Recorder#submit} (one native call), back to back:
 * {@code jni_ns_per_player_tick} of {@code java-bindings/bench.sh}, the median of the measured
 * iterations. The same workload runs through {@code Recorder::submit_tick} in Rust in
 * {@code native/bench/src/areas/jni.rs} ({@link BenchPoses}, the workload, says what must stay
 * identical); keep the rounds alike.
 *
 * <p>One JMH iteration is one round of the Rust twin: a fresh recording, a warm-up of half the
 * iteration's ticks with the writer running, then the measured ticks (JMH's batch size, one
 * {@link #submit} each, timed together: {@link Mode#SingleShotTime}) with the writer held by the
 * package-private test hook {@link Engine#setWritersStalled} (which is why this class lives in
 * {@code io.tickreel}), so that the figure is the server thread's own cost and not time shared
 * with the writer on a small machine. The warm-up iterations warm the JIT.
 *
 * <p>JMH divides a single shot by the operations per invocation only, not by the batch size: the
 * score is per player-tick for the batch size of the annotations ({@value #TICKS} ticks of
 * {@value #PLAYERS} players); for another ({@code bench.sh --quick}: {@code -bs 600}, as the Rust
 * twin's quick rounds), multiply it by {@value #TICKS} and divide by that batch size, as
 * {@code bench.sh} does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 8, batchSize = JniBench.TICKS)
@Measurement(iterations = 7, batchSize = JniBench.TICKS)
public class JniBench {
    /** Players per tick (as {@code PLAYERS} in jni.rs). */
    static final int PLAYERS = 100;
    /** Measured ticks per iteration (JMH's batch size; {@code bench.sh --quick}: 600, see above). */
    static final int TICKS = 2000;

    private final Batch w = new Batch();
    private BenchPoses poses;
    private Path dir;
    private Engine engine;
    private Recorder rec;
    private int iteration;
    /** The tick the next {@link #submit} submits. */
    private int tick;

    /** A new state (JMH makes one per fork). */
    public JniBench() {}

    private void drain() {
        while (engine.stats().inflightBytes() > 0) {
            LockSupport.parkNanos(200_000L);
        }
    }

    /**
     * Starts an engine sized so that a measured iteration never meets backpressure, and computes
     * the poses of an iteration's warm-up and measured ticks.
     *
     * @param params the measured iterations' batch size (the ticks per iteration)
     * @throws IOException if the temporary directory cannot be made
     */
    @Setup(Level.Trial)
    public void start(BenchmarkParams params) throws IOException {
        int ticks = Math.max(params.getMeasurement().getBatchSize(), params.getWarmup().getBatchSize());
        poses = new BenchPoses(PLAYERS, ticks / 2 + ticks);
        dir = Files.createTempDirectory("tickreel-jni-bench");
        engine = new Engine(EngineOptions.builder().queueCapacity(1 << 16).maxInflightBytes(1L << 30).build());
    }

    /**
     * A fresh recording, half the iteration's ticks submitted with the writer running, the writer
     * drained, then held.
     *
     * @param it the iteration's batch size (its measured ticks)
     */
    @Setup(Level.Iteration)
    public void round(IterationParams it) {
        RecorderOptions options = RecorderOptions.builder()
                .backpressureBlock(Duration.ofSeconds(10))
                .flushBytes(4 << 20)
                .flushInterval(Duration.ofHours(1))
                .flushOnPlayerLeave(false)
                .build();
        rec = engine.startRecording(dir.resolve("jni-bench-" + iteration++ + ".reel"), options);
        int warm = it.getBatchSize() / 2;
        for (tick = 0; tick < warm; tick++) {
            poses.fill(tick, w);
            rec.submit(tick, w);
        }
        drain();
        engine.setWritersStalled(true);
    }

    /**
     * One tick: fill the batch with {@value #PLAYERS} players and submit it.
     *
     * @return whether the recorder took the tick
     */
    @Benchmark
    @OperationsPerInvocation(PLAYERS * TICKS)
    public boolean submit() {
        poses.fill(tick, w);
        return rec.submit(tick++, w);
    }

    /** Releases the writer, drops the recording and waits until the writer has let it go. */
    @TearDown(Level.Iteration)
    public void endRound() {
        engine.setWritersStalled(false);
        rec.abort();
        drain();
        rec.close();
    }

    /**
     * Stops the engine.
     *
     * @throws IOException if the temporary directory cannot be removed
     */
    @TearDown(Level.Trial)
    public void stop() throws IOException {
        engine.close();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
