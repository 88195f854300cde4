package io.tickreel;

/**
 * The workload both JNI submit benchmarks submit ({@link JniBench} back to back, {@link PacedBench}
 * at 20 ticks/s), {@link BatchBench} builds alone and {@link PlayheadBench} and {@link GhostBench}
 * record to play: every player's x, y, z, yaw, pitch for a number of ticks, computed before timing
 * (a server has its players' positions at hand), and one tick's events built from them with a
 * {@link Batch}. {@code native/bench/src/areas/jni.rs} submits the same workload from Rust: keep
 * {@link #BenchPoses}'s formula and {@link #fill} identical to its {@code table} and {@code fill}.
 */
final class BenchPoses {
    private final int players;
    private final int ticks;
    private final double[] table;

    /** The poses of {@code players} players for {@code ticks} ticks. */
    BenchPoses(int players, int ticks) {
        this.players = players;
        this.ticks = ticks;
        this.table = new double[ticks * players * 5];
        int i = 0;
        for (int t = 0; t < ticks; t++) {
            for (int p = 0; p < players; p++) {
                table[i++] = p * 2.0 + t * 0.28 + Math.sin(t * 0.05 + p) * 0.1;
                table[i++] = 64.0 + Math.max(Math.sin(t * 0.3 + p) * 0.6, 0.0);
                table[i++] = p * 0.5 + Math.cos(t * 0.02) * 3.0;
                table[i++] = t * 3.7 + p;
                table[i++] = Math.sin(t * 0.1) * 20.0;
            }
        }
    }

    /**
     * Tick {@code t}'s events into {@code w} (cleared first; the timed work with the submit): every
     * player added at tick 0 and posed after, its flags every 20 ticks. A tick past the table uses
     * its poses again from the start ({@code t} modulo the ticks).
     */
    void fill(int t, Batch w) {
        w.clear();
        int i = (t % ticks) * players * 5;
        for (int p = 0; p < players; p++, i += 5) {
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
}
