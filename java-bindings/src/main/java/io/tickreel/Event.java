package io.tickreel;

/**
 * One event of a recorded tick, as read back from a recording (see {@link Reader#ticks(int, int)}).
 * Movement is stored as poses: a reader sees one {@link Moved} per entity per tick it moved (the
 * library folds {@code position}/{@code rotation} updates into it); {@link EntityAdd} and
 * {@link Teleport} carry the pose themselves. Entity ids, kinds, flags and indices are unsigned
 * 32-bit values carried in {@code int}s.
 */
public sealed interface Event {
    /**
     * An entity appeared.
     *
     * @param entity the entity id
     * @param kind the game-defined kind
     * @param pose where it appeared
     */
    record EntityAdd(int entity, int kind, Pose pose) implements Event {}

    /**
     * An entity disappeared.
     *
     * @param entity the entity id
     */
    record EntityRemove(int entity) implements Event {}

    /**
     * An entity's new absolute pose.
     *
     * @param entity the entity id
     * @param pose its pose
     */
    record Moved(int entity, Pose pose) implements Event {}

    /**
     * A position-only update in 1/4096 block (as written; readers normally see {@link Moved}).
     *
     * @param entity the entity id
     * @param rawX x in 1/4096 block
     * @param rawY y in 1/4096 block
     * @param rawZ z in 1/4096 block
     */
    record Position(int entity, long rawX, long rawY, long rawZ) implements Event {}

    /**
     * A rotation-only update in 1/65536 turn (as written; readers normally see {@link Moved}).
     *
     * @param entity the entity id
     * @param rawYaw yaw in 1/65536 turn
     * @param rawPitch pitch in 1/65536 turn
     */
    record Rotation(int entity, long rawYaw, long rawPitch) implements Event {}

    /**
     * A discontinuity: the entity jumped to {@code pose}.
     *
     * @param entity the entity id
     * @param pose where it jumped to
     */
    record Teleport(int entity, Pose pose) implements Event {}

    /**
     * The entity's full flags value (see {@link EntityFlags}).
     *
     * @param entity the entity id
     * @param flags the value
     */
    record Flags(int entity, int flags) implements Event {}

    /**
     * The entity reached a checkpoint.
     *
     * @param entity the entity id
     * @param index the checkpoint index
     */
    record Checkpoint(int entity, int index) implements Event {}

    /**
     * The entity's velocity in 1/8000 block per tick.
     *
     * @param entity the entity id
     * @param rawX x velocity
     * @param rawY y velocity
     * @param rawZ z velocity
     */
    record Velocity(int entity, long rawX, long rawY, long rawZ) implements Event {
        /** X velocity in blocks per tick. */
        public double x() {
            return rawX / Pose.VELOCITY_SCALE;
        }

        /** Y velocity in blocks per tick. */
        public double y() {
            return rawY / Pose.VELOCITY_SCALE;
        }

        /** Z velocity in blocks per tick. */
        public double z() {
            return rawZ / Pose.VELOCITY_SCALE;
        }
    }

    /**
     * A player left.
     *
     * @param entity the entity id
     */
    record PlayerLeave(int entity) implements Event {}

    /**
     * A game-specific event of a registered type.
     *
     * @param typeId the registered type id
     * @param data the payload (do not modify)
     */
    record Custom(int typeId, byte[] data) implements Event {}

    /**
     * A reserved extension kind this build does not understand, carried as bytes.
     *
     * @param kind the kind byte (0x40..0x7F)
     * @param data the payload (do not modify)
     */
    record Extension(int kind, byte[] data) implements Event {}
}
