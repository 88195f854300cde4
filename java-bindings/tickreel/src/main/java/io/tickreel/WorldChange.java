package io.tickreel;

import java.util.OptionalInt;

/**
 * One change of the world the library keeps ({@link WorldState}), as a {@link Playhead} update
 * reports it ({@link Update#worldChanges()}): what was before (so that reverse play restores it)
 * and what is now.
 */
public sealed interface WorldChange {
    /** What changed. */
    enum Kind {
        /** A block's state or its block entity: {@link Block}. */
        BLOCK,
        /** An entity's health: {@link Health}. */
        HEALTH,
        /** What an entity has in an equipment slot: {@link Equipment}. */
        EQUIPMENT
    }

    /**
     * A block's state (an id of the block palette) changed; empty: not edited (an empty {@code
     * after}: restore the world's own block there).
     */
    record Block(int x, int y, int z, OptionalInt before, OptionalInt after) implements WorldChange {}

    /** An entity's health (hundredths of a health point) changed; empty: none. */
    record Health(int entity, OptionalInt before, OptionalInt after) implements WorldChange {}

    /**
     * What an entity has in {@code slot} changed: an item of the item palette and its count; item
     * 0 (count 0): the slot is empty.
     */
    record Equipment(int entity, int slot, int beforeItem, int beforeCount, int afterItem, int afterCount)
            implements WorldChange {}
}
