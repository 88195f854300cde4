package io.tickreel;

import java.util.List;

/**
 * One recorded tick read back from a recording: pose updates first (one per moved entity), then
 * the other events in recorded order.
 *
 * @param tick the tick
 * @param events its events
 */
public record DecodedTick(int tick, List<Event> events) {
    /** Copies the list. */
    public DecodedTick {
        events = List.copyOf(events);
    }
}
