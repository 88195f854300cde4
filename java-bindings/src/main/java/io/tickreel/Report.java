package io.tickreel;

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
 */
public record Report(long id, UUID reported, String reportedName, UUID reporter, String reason, long createdMs,
        boolean open, OptionalLong recordingId) {}
