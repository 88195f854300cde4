package io.tickreel;

import java.util.List;
import java.util.Optional;

/**
 * The state of a recording at one tick: every live entity with its kind, flags and pose.
 *
 * @param tick the tick (the requested one, clamped into the recording)
 * @param entities the live entities, by ascending id
 */
public record SeekState(int tick, List<EntityState> entities) {
    /** Copies the list. */
    public SeekState {
        entities = List.copyOf(entities);
    }

    /** The entity with this id, if it is alive at this tick. */
    public Optional<EntityState> entity(int id) {
        for (EntityState e : entities) {
            if (e.id() == id) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
