package io.tickreel.minestom;

import java.util.Map;
import java.util.TreeMap;
import net.minestom.server.instance.block.Block;
import net.minestom.server.item.Material;

/**
 * The names the recordings' palettes carry, from Minestom's registry: a block state as
 * {@code minecraft:oak_log[axis=y]} (its properties sorted by name, none: no brackets), an item as
 * {@code minecraft:stone}.
 */
public final class Names {
    private Names() {}

    /** The block state's name: its block's key, then its properties sorted by name in brackets. */
    public static String blockState(Block block) {
        Map<String, String> props = block.properties();
        String key = block.key().asString();
        if (props.isEmpty()) {
            return key;
        }
        StringBuilder sb = new StringBuilder(key).append('[');
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(props).entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.append(']').toString();
    }

    /** The block state of id {@code stateId}'s name, or null for an id the registry does not know. */
    public static String blockState(int stateId) {
        Block block = Block.fromStateId(stateId);
        return block == null ? null : blockState(block);
    }

    /** The item's name: its material's key. */
    public static String item(Material material) {
        return material.key().asString();
    }
}
