package io.tickreel;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * What {@link Catalog#prune(boolean)} keeps in one scope: {@code course:NAME}, {@code runs} (every
 * course without its own policy), {@code reports} (shadow-play reports) or {@code other}
 * (recordings with neither). Anything no rule keeps may be pruned.
 * @param scope the scope
 * @param keepTop keep the runs of the best N players of the board
 * @param keepPersonalBests keep every player's best run
 * @param keepDays keep everything younger than this many days
 * @param keepOpenReports keep the recordings of open reports
 */
public record RetentionPolicy(String scope, OptionalInt keepTop, boolean keepPersonalBests, OptionalInt keepDays,
        boolean keepOpenReports) {
    public RetentionPolicy {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(keepTop, "keepTop");
        Objects.requireNonNull(keepDays, "keepDays");
        if (keepTop.orElse(1) < 1 || keepDays.orElse(1) < 1) {
            throw new IllegalArgumentException("keepTop and keepDays are at least 1 when present");
        }
    }
}
