package io.tickreel.minestom;

/**
 * Which run a racer's ghost replays: the board's best ({@link #best()}, the default), the racer's
 * own best run ({@link #personalBest()}) or the run at a chosen rank of the board ({@link
 * #rank(int)}; the board holds each player's best valid run, fastest first). Chosen per player
 * with {@code /race best|pb|rank N} or {@link TickreelMinestom#setGhostChoice}.
 */
public final class GhostChoice {
    private static final GhostChoice BEST = new GhostChoice(1, false);
    private static final GhostChoice PB = new GhostChoice(0, true);

    private final int rank;
    private final boolean personalBest;

    private GhostChoice(int rank, boolean personalBest) {
        this.rank = rank;
        this.personalBest = personalBest;
    }

    /** The board's best run (rank 1). */
    public static GhostChoice best() {
        return BEST;
    }

    /** The racer's own best run. */
    public static GhostChoice personalBest() {
        return PB;
    }

    /** The board's run at {@code rank} (1: the best). */
    public static GhostChoice rank(int rank) {
        if (rank < 1) {
            throw new IllegalArgumentException("rank must be at least 1 (got " + rank + ")");
        }
        return rank == 1 ? BEST : new GhostChoice(rank, false);
    }

    /** The rank chosen (1 for the best); 0 for the personal best. */
    public int rankOrZero() {
        return rank;
    }

    public boolean isPersonalBest() {
        return personalBest;
    }

    /** As the racer is told: {@code the best run}, {@code your best run}, {@code rank 2}. */
    String describe() {
        return personalBest ? "your best run" : rank == 1 ? "the best run" : "rank " + rank;
    }

    @Override
    public String toString() {
        return personalBest ? "pb" : rank == 1 ? "best" : "rank " + rank;
    }
}
