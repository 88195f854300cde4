package io.tickreel.minestom;

/** A set of longs without boxing (open addressing, linear probing), so lookups allocate nothing. */
final class LongSet {
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] keys = new long[256];
    private int size;
    private boolean hasEmpty;

    LongSet() {
        java.util.Arrays.fill(keys, EMPTY);
    }

    /** Adds {@code key}; whether it was absent. */
    boolean add(long key) {
        if (key == EMPTY) {
            boolean was = hasEmpty;
            hasEmpty = true;
            return !was;
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return false;
            }
            if (keys[i] == EMPTY) {
                keys[i] = key;
                size++;
                return true;
            }
        }
    }

    /** Removes {@code key}; whether it was present. */
    boolean remove(long key) {
        if (key == EMPTY) {
            boolean was = hasEmpty;
            hasEmpty = false;
            return was;
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != key) {
            if (keys[i] == EMPTY) {
                return false;
            }
            i = (i + 1) & mask;
        }
        keys[i] = EMPTY;
        size--;
        // Re-insert the run after the hole so that probing finds every key.
        for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            long k = keys[j];
            keys[j] = EMPTY;
            size--;
            add(k);
        }
        return true;
    }

    private void grow() {
        long[] old = keys;
        keys = new long[old.length * 2];
        java.util.Arrays.fill(keys, EMPTY);
        size = 0;
        for (long k : old) {
            if (k != EMPTY) {
                add(k);
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
