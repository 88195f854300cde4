package io.tickreel;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A world rebuild a {@link Update.Motion#JUMP JUMP} asks for ({@link Update#rebuild()}):
 * restore {@code snapshot} (the bytes the recorder was given; empty: start from the world as it was
 * when recording started), then re-apply {@code events} in order.
 *
 * @param snapshot the snapshot bytes, if the recording has one at or before the position
 * @param snapshotTick the tick whose events come after the snapshot
 * @param events every custom event from the snapshot tick through the new position, by tick
 * @param complete false if a chunk between the snapshot and the position could not be read (the
 *     events are then incomplete; see {@link Update#faultCount()})
 */
public record Rebuild(Optional<byte[]> snapshot, OptionalInt snapshotTick, List<DecodedTick> events, boolean complete) {}
