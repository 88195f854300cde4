package io.tickreel;

import java.util.Optional;
import java.util.UUID;

/**
 * One registered run of a course in a {@link Catalog}: who, which entity of which recording, its
 * tick range and time. Times are exact ticks; {@link #seconds()} derives seconds from the
 * recording's tick rate.
 * @param id the run's id in the catalog
 * @param recordingId the id of the recording that holds it
 * @param course the course
 * @param player the player's UUID
 * @param playerName the player's name when the run was registered
 * @param entity the player's entity id in the recording
 * @param startTick the run's first tick in the recording
 * @param endTick the run's last tick in the recording
 * @param ticks the run's time in ticks
 * @param tickRate the recording's ticks per second
 * @param achievedMs when the run was achieved (Unix milliseconds)
 * @param valid false once marked invalid (anticheat, an operator)
 * @param flags game-defined flags
 * @param server the game server it was run on, if its recording named one
 * @param location where its recording lives (a path or an {@code s3://} URL): {@link Catalog#openRecording(Run)} opens it
 * @param world the world (map) it was run on, if its recording named one
 * @param worldVersion the world's version it was run on, if its recording named one
 * @param held a run check failed ({@link Catalog#checkRun(long)}): it is on no board and serves as no ghost until a
 *     moderator clears it ({@link Catalog#clearRun(long, String)})
 */
public record Run(long id, long recordingId, String course, UUID player, String playerName, int entity,
        int startTick, int endTick, int ticks, double tickRate, long achievedMs, boolean valid, long flags,
        Optional<String> server, String location, Optional<UUID> world, Optional<UUID> worldVersion, boolean held) {
    /** The map version it was run on; empty unless its recording named both the world and its version. */
    public Optional<MapVersion> mapVersion() {
        return world.flatMap(w -> worldVersion.map(v -> new MapVersion(w, v)));
    }

    /** The time in seconds: ticks divided by the tick rate. */
    public double seconds() {
        return ticks / tickRate;
    }
}
