package io.tickreel;

/**
 * Bits of the entity flags value that tickreel understands; the other bits are the game's own and
 * are stored as they are. Record the full value with {@link Batch#flags(int, int)}.
 */
public final class EntityFlags {
    /** Standing on the ground. */
    public static final int ON_GROUND = 1;
    /** Sneaking. */
    public static final int SNEAKING = 1 << 1;
    /** Sprinting. */
    public static final int SPRINTING = 1 << 2;
    /** Swimming. */
    public static final int SWIMMING = 1 << 3;
    /** Gliding (elytra). */
    public static final int GLIDING = 1 << 4;

    private EntityFlags() {}
}
