package io.tickreel;

import java.util.Objects;
import java.util.UUID;

/**
 * A version of a map: the world's id and its version, as a recording names them ({@link
 * RecorderOptions.Builder#worldId}, {@link RecorderOptions.Builder#worldVersion}, {@link
 * Header#worldId()}, {@link Header#worldVersion()}) and its
 * runs carry them ({@link Run#world()}, {@link Run#worldVersion()}). A board of one map version
 * counts only the runs recorded on it ({@link Catalog#topOn(String, MapVersion, String, int)}), and
 * a ghost recorded on another version than the one played is refused unless allowed ({@link
 * Catalog#loadGhostOn(String, MapVersion, String, int, MapVersion, boolean)}).
 *
 * @param world the world's id
 * @param version the world's version
 */
public record MapVersion(UUID world, UUID version) {
    /**
     * @throws NullPointerException if {@code world} or {@code version} is null
     */
    public MapVersion {
        Objects.requireNonNull(world, "world");
        Objects.requireNonNull(version, "version");
    }
}
