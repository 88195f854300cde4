package io.tickreel;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building a tick alone: {@link BenchPoses#fill} of {@value #PLAYERS} players into a reused
 * {@link Batch} (pure Java, no native call, nothing submitted), nanoseconds per player-tick
 * ({@code batch_fill_ns_per_player_tick} of {@code java-bindings/bench.sh}): the part of
 * {@link JniBench}'s figure that is not the submit. Ticks run through {@link BenchPoses}'s table
 * and again, poses every tick and flags every 20th, as in the submit benchmarks.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
public class BatchBench {
    /** Players per tick (as {@link JniBench}). */
    static final int PLAYERS = JniBench.PLAYERS;
    /** Ticks in the table of poses; the ticks filled wrap after a multiple of it. */
    static final int TICKS = 1000;

    private final BenchPoses poses = new BenchPoses(PLAYERS, TICKS);
    private final Batch w = new Batch();
    /** From 1: tick 0 would add the players, every later tick poses them. */
    private int tick = 1;

    /** A new state (JMH makes one per fork). */
    public BatchBench() {}

    /**
     * One tick's events into the batch.
     *
     * @return the batch (consumed by JMH)
     */
    @Benchmark
    @OperationsPerInvocation(PLAYERS)
    public Batch fill() {
        poses.fill(tick, w);
        tick = tick == 20 * TICKS ? 1 : tick + 1;
        return w;
    }
}
