package io.tickreel;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Who an entity of a recording is: its id in the recording, a game-defined kind, and optionally a
 * UUID and a name (a player's). Register it with {@link ReelWriter#registerEntity(EntityInfo)};
 * read it back with {@link Reader#entities()}.
 *
 * @param id the entity id used in tick events (an unsigned 32-bit value)
 * @param kind the game-defined kind (e.g. a Minecraft entity type id)
 * @param uuid the entity's UUID, or {@code null}
 * @param name the entity's name, or {@code null}
 */
public record EntityInfo(int id, int kind, UUID uuid, String name) {
    /**
     * A player: kind 0 with a UUID and a name.
     *
     * @throws NullPointerException if {@code uuid} or {@code name} is null
     */
    public static EntityInfo player(int id, UUID uuid, String name) {
        return new EntityInfo(id, 0, Objects.requireNonNull(uuid, "uuid"), Objects.requireNonNull(name, "name"));
    }

    /** The UUID, if known. */
    public Optional<UUID> optionalUuid() {
        return Optional.ofNullable(uuid);
    }

    /** The name, if known. */
    public Optional<String> optionalName() {
        return Optional.ofNullable(name);
    }

    /** The UUID as {@code {msb, lsb}} for the native side, or {@code null}. */
    long[] uuidLongs() {
        return uuid == null ? null : new long[] {uuid.getMostSignificantBits(), uuid.getLeastSignificantBits()};
    }
}
