package io.tickreel;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The paced half of {@code java-bindings/bench.sh}: what a server thread pays per player-tick at a
 * real 20 ticks/s (sleeping between ticks, caches cold), and what {@link Playhead#advance()}
 * allocates. Prints {@code key=value} lines:
 *
 * <ul>
 *   <li>{@code jni_paced_ns_per_player_tick_median} / {@code _p99}: per tick, fill a
 *       {@link Batch} with 200 players' poses and {@link Recorder#submit(int, Batch)} it
 *       (one native call), the engine's writer running as in production (default options);
 *   <li>{@code jni_paced_floor_ns_per_player_tick_median} / {@code _p99}: the same fill into a
 *       second writer, then the same bytes copied into its direct {@link java.nio.ByteBuffer} (what
 *       {@code submit} does before its native call), no native call; in the same run, at the same
 *       pace, half a tick later (so both start from a sleep);
 *   <li>{@code playhead_advance_allocs}: Java heap bytes allocated per {@link Playhead#advance()}
 *       on a playing 200-entity recording, {@code entities()} never called
 *       ({@code ThreadMXBean.getCurrentThreadAllocatedBytes}); stalled calls (prefetch behind)
 *       are counted and retried, so that 2000 calls move the playhead.
 * </ul>
 */
public final class PacedBench {
    static final int PLAYERS = 200;
    static final long TICK_NANOS = 50_000_000L;

    private PacedBench() {}

    private static void sleepUntil(long deadline) {
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    private static double perPlayer(long[] nanos, double q) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        int i = Math.min(s.length - 1, (int) Math.ceil(q * s.length) - 1);
        return (double) s[Math.max(i, 0)] / PLAYERS;
    }

    /** Records {@code warm} ticks back to back (JIT), then {@code paced} ticks at 20 ticks/s. */
    static void paced(Engine engine, Path dir, int warm, int paced, BenchPoses poses) throws Exception {
        Batch w = new Batch();
        Batch floor = new Batch();
        long[] submit = new long[paced];
        long[] copy = new long[paced];
        long sink = 0;
        try (Recorder rec = engine.startRecording(dir.resolve("paced.reel"), RecorderOptions.defaults())) {
            for (int t = 0; t < warm; t++) {
                poses.fill(t, w);
                rec.submit(t, w);
                poses.fill(t, floor);
                sink += floor.sealDirect().get(2);
            }
            long base = System.nanoTime() + TICK_NANOS;
            for (int i = 0; i < paced; i++) {
                int t = warm + i;
                sleepUntil(base + i * TICK_NANOS);
                long a = System.nanoTime();
                poses.fill(t, w);
                rec.submit(t, w);
                submit[i] = System.nanoTime() - a;
                sleepUntil(base + i * TICK_NANOS + TICK_NANOS / 2);
                long b = System.nanoTime();
                poses.fill(t, floor);
                sink += floor.sealDirect().get(2);
                copy[i] = System.nanoTime() - b;
            }
            if (rec.stats().droppedTicks() != 0) {
                throw new IllegalStateException("ticks dropped: " + rec.stats());
            }
            rec.abort();
        }
        System.out.println("jni_paced_ns_per_player_tick_median=" + perPlayer(submit, 0.5));
        System.out.println("jni_paced_ns_per_player_tick_p99=" + perPlayer(submit, 0.99));
        System.out.println("jni_paced_floor_ns_per_player_tick_median=" + perPlayer(copy, 0.5));
        System.out.println("jni_paced_floor_ns_per_player_tick_p99=" + perPlayer(copy, 0.99));
        System.out.println("paced_ticks=" + paced + " (sink " + (sink & 1) + ")");
    }

    /** Bytes allocated per {@code advance()} over {@code calls} calls, after as many to warm up. */
    static void advanceAllocs(Engine engine, Path dir, int ticks, int calls, BenchPoses poses) throws Exception {
        Path reel = dir.resolve("advance.reel");
        Batch w = new Batch();
        try (Recorder rec = engine.startRecording(reel, RecorderOptions.defaults())) {
            for (int t = 0; t < ticks; t++) {
                poses.fill(t, w);
                rec.submit(t, w);
            }
            try (Pending<Path> f = rec.finish()) {
                f.await();
            }
        }
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!mx.isThreadAllocatedMemorySupported() || !mx.isThreadAllocatedMemoryEnabled()) {
            throw new IllegalStateException("this JVM does not count allocated bytes per thread");
        }
        long stalled = 0;
        long bytes;
        try (Playhead ph = Playhead.open(reel)) {
            ph.play();
            for (int i = 0; i < calls; i++) {
                Update u = ph.advance();
                if (u.position() >= ticks - 1) {
                    ph.seek(0);
                } else if (u.stalled()) {
                    LockSupport.parkNanos(1_000_000L);
                }
            }
            ph.seek(0);
            long overhead = -(mx.getCurrentThreadAllocatedBytes() - mx.getCurrentThreadAllocatedBytes());
            long before = mx.getCurrentThreadAllocatedBytes();
            // The recording is longer than the calls: no seek in here. A stalled call (prefetch
            // behind) is retried after a millisecond, so that every counted step moves.
            for (int i = 0; i < calls; i++) {
                while (ph.advance().stalled()) {
                    stalled++;
                    LockSupport.parkNanos(1_000_000L);
                }
            }
            bytes = mx.getCurrentThreadAllocatedBytes() - before - overhead;
            // The meter works: one entities() call (a new list of 200 states) is not free.
            long e0 = mx.getCurrentThreadAllocatedBytes();
            int n = ph.entities().size();
            System.out.println("playhead_entities_allocs=" + (mx.getCurrentThreadAllocatedBytes() - e0)
                    + " (" + n + " entities)");
        }
        System.out.println("playhead_advance_allocs=" + (double) bytes / (calls + stalled));
        System.out.println("playhead_advance_calls=" + (calls + stalled) + " moved=" + calls + " stalled=" + stalled);
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code --quick} for a 5 s paced run instead of 30 s
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int paced = quick ? 100 : 600;
        int warm = 4000;
        BenchPoses poses = new BenchPoses(PLAYERS, 1000);
        Path dir = Files.createTempDirectory("tickreel-paced-bench");
        try (Engine engine = new Engine(EngineOptions.defaults())) {
            paced(engine, dir, warm, paced, poses);
            advanceAllocs(engine, dir, 3000, 2000, poses);
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
