package io.tickreel;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A run's check state in a {@link Catalog}: whether it is held (a run check failed when it was
 * registered or checked again: it is on no board and serves as no ghost), every reason found, and
 * the moderator who cleared it, if one did.
 * @param runId the run
 * @param held whether it is held now
 * @param holds why it was held (the first failure of each check), empty for a run that passed
 * @param clearedBy the moderator who cleared it, if one did
 * @param clearedMs when (Unix milliseconds; 0 if never)
 */
public record RunCheck(long runId, boolean held, List<Hold> holds, Optional<String> clearedBy, long clearedMs) {
    /**
     * One reason a run is held.
     * @param reason the check that failed: {@code horizontal_speed}, {@code vertical_speed}, {@code teleport},
     *     {@code gap} (ticks the recorder dropped), {@code checkpoint_order} or {@code hash} (the recording's file
     *     changed after registration)
     * @param tick the recording's tick where it was first seen (empty for the hash)
     * @param detail what was seen, e.g. {@code 3.00 blocks a tick horizontally (at most 1.00)}
     */
    public record Hold(String reason, OptionalInt tick, String detail) {}
}
