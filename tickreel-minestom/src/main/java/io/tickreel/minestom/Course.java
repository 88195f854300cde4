package io.tickreel.minestom;

import java.util.List;
import java.util.Objects;
import net.minestom.server.coordinate.Point;

/**
 * A time-trial course: a start region (a run starts on the tick a player leaves it), checkpoint
 * regions to pass in order, and a finish region. Recorded as checkpoints 0 (start), 1..N (the
 * checkpoints) and N + 1 (finish); a run's time is from the start to the finish.
 *
 * @param name the course's name in the catalog (1 to 64 characters)
 * @param start the start region
 * @param checkpoints the checkpoint regions, in order (may be empty)
 * @param finish the finish region
 */
public record Course(String name, Region start, List<Region> checkpoints, Region finish) {
    /** Validates and copies. */
    public Course {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(finish, "finish");
        checkpoints = List.copyOf(checkpoints);
        if (name.isEmpty() || name.length() > 64) {
            throw new IllegalArgumentException("a course name is 1 to 64 characters: '" + name + "'");
        }
    }

    /** The finish's checkpoint index: the number of checkpoints + 1. */
    public int finishIndex() {
        return checkpoints.size() + 1;
    }

    /**
     * An axis-aligned box of blocks: {@code min} inclusive, {@code max} exclusive, for a player's
     * feet position.
     */
    public record Region(double minX, double minY, double minZ, double maxX, double maxY, double maxZ) {
        /** Checks the corners are ordered. */
        public Region {
            if (!(minX < maxX && minY < maxY && minZ < maxZ)) {
                throw new IllegalArgumentException("a region's min must be below its max on every axis");
            }
        }

        /** The box of the blocks from (x1, y1, z1) to (x2, y2, z2), both included. */
        public static Region blocks(int x1, int y1, int z1, int x2, int y2, int z2) {
            return new Region(Math.min(x1, x2), Math.min(y1, y2), Math.min(z1, z2),
                    Math.max(x1, x2) + 1, Math.max(y1, y2) + 1, Math.max(z1, z2) + 1);
        }

        /** Whether a player standing at {@code p} is in it. */
        public boolean contains(Point p) {
            return p.x() >= minX && p.x() < maxX && p.y() >= minY && p.y() < maxY && p.z() >= minZ && p.z() < maxZ;
        }
    }
}
