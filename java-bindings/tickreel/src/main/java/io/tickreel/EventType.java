package io.tickreel;

import java.util.Objects;

/**
 * A registered custom event type: the id used by {@link Batch#custom(int, byte[])}, a name,
 * and the schema version of its payload (owned by the game). Register it with
 * {@link ReelWriter#registerEventType(EventType)}; read it back with {@link Reader#eventTypes()}.
 *
 * @param id the type id (an unsigned 32-bit value)
 * @param name a name such as {@code "block_change"}
 * @param version the payload's schema version
 */
public record EventType(int id, String name, int version) {
    /** Checks the name is not null. */
    public EventType {
        Objects.requireNonNull(name, "name");
    }
}
