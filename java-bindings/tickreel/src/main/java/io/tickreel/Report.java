package io.tickreel;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A shadow-play report filed in the {@link Catalog}.
 * @param id its id in the catalog
 * @param reported the reported player
 * @param reportedName their name
 * @param reporter who reported them
 * @param reason why
 * @param createdMs when it was filed (ms since the epoch)
 * @param open whether it is still open
 * @param recordingId the recording shadow play wrote for it, if one was given
 * @param server the game server the player was reported on, if known
 * @param location where its recording lives (a path or an {@code s3://} URL), if it has one:
 *     {@link Catalog#openRecording(Report)} opens it
 */
public record Report(long id, UUID reported, String reportedName, UUID reporter, String reason, long createdMs,
        boolean open, OptionalLong recordingId, Optional<String> server, Optional<String> location) {}
