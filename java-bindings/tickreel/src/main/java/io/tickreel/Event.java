package io.tickreel;

import java.util.OptionalInt;

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
     * A block changed (see {@link Batch#blockChange}).
     *
     * @param x block x
     * @param y block y
     * @param z block z
     * @param state the new state, an id of the block palette ({@link Reader#paletteName})
     * @param cause the entity that changed it, if any
     * @param blockEntity the block entity's NBT, or {@code null} for none (do not modify)
     */
    record BlockChange(int x, int y, int z, int state, OptionalInt cause, byte[] blockEntity) implements Event {}

    /**
     * Many blocks changed at once: block {@code i} at ({@code xs[i]}, {@code ys[i]}, {@code zs[i]})
     * is now {@code states[i]} (do not modify the arrays).
     *
     * @param cause the entity that changed them, if any
     * @param xs block x of each
     * @param ys block y of each
     * @param zs block z of each
     * @param states the new state of each
     */
    record BlockChanges(OptionalInt cause, int[] xs, int[] ys, int[] zs, int[] states) implements Event {}

    /**
     * An entity swung a hand.
     *
     * @param entity the entity id
     * @param hand {@link Batch#HAND_MAIN} or {@link Batch#HAND_OFF}
     */
    record Swing(int entity, int hand) implements Event {}

    /**
     * An entity attacked another.
     *
     * @param attacker who attacked
     * @param target who was attacked
     */
    record Attack(int attacker, int target) implements Event {}

    /**
     * An entity used an item, on nothing, an entity or a block.
     *
     * @param entity the entity id
     * @param hand the hand
     * @param item an id of the item palette, 0 for an empty hand
     * @param targetEntity the entity it aimed at, if any
     * @param targetBlock the block it aimed at as {@code {x, y, z}}, or {@code null}
     */
    record Use(int entity, int hand, int item, OptionalInt targetEntity, int[] targetBlock) implements Event {}

    /**
     * An entity took damage.
     *
     * @param entity the entity id
     * @param amount hundredths of a health point
     * @param cause an id of the damage-cause palette, 0 for unknown
     * @param source the entity that dealt it, if any
     */
    record Damage(int entity, int amount, int cause, OptionalInt source) implements Event {}

    /**
     * An entity's health.
     *
     * @param entity the entity id
     * @param health hundredths of a health point
     */
    record Health(int entity, int health) implements Event {}

    /**
     * An entity's equipment in a slot.
     *
     * @param entity the entity id
     * @param slot the slot ({@code Batch.SLOT_*} or the game's own)
     * @param item an id of the item palette, 0 for nothing
     * @param count how many
     */
    record Equipment(int entity, int slot, int item, int count) implements Event {}

    /**
     * A chat line.
     *
     * @param sender the entity that sent it, if any
     * @param channel the channel ({@code Batch.CHANNEL_*} or the game's own)
     * @param text the text
     */
    record Chat(OptionalInt sender, int channel, String text) implements Event {}

    /**
     * A custom event placed at an entity and/or a position.
     *
     * @param typeId the registered type id
     * @param entity the entity it is placed at, if any
     * @param position where, in blocks ({@code {x, y, z}}), or {@code null}
     * @param data the payload (do not modify)
     */
    record CustomAt(int typeId, OptionalInt entity, double[] position, byte[] data) implements Event {}

    /**
     * A reserved extension kind this build does not understand, carried as bytes.
     *
     * @param kind the kind byte (0x40..0x7F)
     * @param data the payload (do not modify)
     */
    record Extension(int kind, byte[] data) implements Event {}
}
