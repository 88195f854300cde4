package io.tickreel;

/**
 * One live entity's state at a tick, as rebuilt by a seek.
 *
 * @param id the entity id (an unsigned 32-bit value)
 * @param kind the game-defined kind given when the entity was added
 * @param flags the last {@link EntityFlags flags} value recorded for it
 * @param pose its pose
 */
public record EntityState(int id, int kind, int flags, Pose pose) {
    /** Whether {@code flag} (one of {@link EntityFlags}) is set. */
    public boolean has(int flag) {
        return (flags & flag) == flag;
    }
}
