package io.tickreel.minestom;

/**
 * What the adapter's per-tick work (at each {@code InstanceTickEvent}: completing and submitting
 * each instance's tick) allocated on the tick thread, measured with {@code
 * ThreadMXBean.getCurrentThreadAllocatedBytes} when {@link
 * TickreelMinestomOptions.Builder#measureAllocations} is on. A tick allocates when something
 * happens for the first time in a recording (a block state's or item's name registered, the batch
 * grown, a player's leave flushed); a tick of players moving allocates nothing. Ticks that offer
 * terrain (sections copied for the library) are counted apart.
 *
 * <p>The adapter's event listeners (chat, swings, block edits, joins, and the instance tick's own
 * listener, whose recording part is the per-tick work above) are measured as a whole apart: {@link
 * #listenerBytes}. They run when something happens, not for players moving.
 */
public final class TickStats {
    private static final int KEPT = 32;

    private long ticks;
    private long terrainTicks;
    private long terrainBytes;
    private long bytes;
    private long allocatingTicks;
    private long max;
    private long nanos;
    private long terrainNanos;
    private long listenerCalls;
    private long listenerBytes;
    private final int[] firstTicks = new int[KEPT];
    private final long[] firstBytes = new long[KEPT];

    synchronized void add(int tick, long allocated, boolean terrain, long nanos) {
        ticks++;
        if (terrain) {
            terrainNanos += nanos;
            terrainTicks++;
            terrainBytes += allocated;
        } else {
            this.nanos += nanos;
        }
        if (!terrain && allocated > 0) {
            bytes += allocated;
            if (allocatingTicks < KEPT) {
                firstTicks[(int) allocatingTicks] = tick;
                firstBytes[(int) allocatingTicks] = allocated;
            }
            allocatingTicks++;
            max = Math.max(max, allocated);
        }
    }

    synchronized void addListener(long allocated) {
        listenerCalls++;
        listenerBytes += allocated;
    }

    /** Calls of the adapter's listeners measured. */
    public synchronized long listenerCalls() {
        return listenerCalls;
    }

    /**
     * Bytes the adapter's listeners allocated, the instance tick's listener included (so the
     * per-tick work counted by {@link #bytes} and {@link #terrainTicks} is counted here again).
     */
    public synchronized long listenerBytes() {
        return listenerBytes;
    }

    /** Nanoseconds the per-tick work took, over the instance ticks that offered no terrain. */
    public synchronized long nanos() {
        return nanos;
    }

    /** Instance ticks measured. */
    public synchronized long ticks() {
        return ticks;
    }

    /** Instance ticks that offered terrain (a player came near chunks not offered yet); not counted below. */
    public synchronized long terrainTicks() {
        return terrainTicks;
    }

    /** Bytes allocated by the ticks that offered terrain. */
    public synchronized long terrainBytes() {
        return terrainBytes;
    }

    /** Bytes allocated by the other ticks. */
    public synchronized long bytes() {
        return bytes;
    }

    /** How many of the ticks without terrain allocated anything. */
    public synchronized long allocatingTicks() {
        return allocatingTicks;
    }

    /** The most bytes one tick allocated. */
    public synchronized long maxBytes() {
        return max;
    }

    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder("tick path: ").append(ticks).append(" instance ticks, ")
                .append(allocatingTicks).append(" allocated (").append(bytes).append(" bytes, at most ")
                .append(max).append(" in one tick; ").append(terrainTicks).append(" more offered terrain, ")
                .append(terrainBytes).append(" bytes; listeners: ").append(listenerCalls).append(" calls, ")
                .append(listenerBytes).append(" bytes; per-tick work ")
                .append(ticks == terrainTicks ? 0 : nanos / (ticks - terrainTicks) / 1000.0).append(" us a tick on average, ")
                .append(terrainTicks == 0 ? 0 : terrainNanos / terrainTicks / 1000.0).append(" us a terrain tick)");
        for (int i = 0; i < Math.min(allocatingTicks, KEPT); i++) {
            sb.append(i == 0 ? ": " : ", ").append("tick ").append(firstTicks[i]).append(' ').append(firstBytes[i]).append(" B");
        }
        return sb.toString();
    }
}
