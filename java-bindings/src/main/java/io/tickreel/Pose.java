package io.tickreel;

/**
 * An entity's pose, quantised exactly as tickreel stores it: x, y, z in 1/4096 block, yaw and
 * pitch in 1/65536 turn. Yaw is unbounded (clients never normalise it) and round-trips exactly.
 * Build one from blocks and degrees with {@link #of(double, double, double, double, double)};
 * read blocks and degrees back with {@link #x()}, {@link #yaw()} and so on.
 *
 * @param rawX x in 1/4096 block
 * @param rawY y in 1/4096 block
 * @param rawZ z in 1/4096 block
 * @param rawYaw yaw in 1/65536 turn
 * @param rawPitch pitch in 1/65536 turn
 */
public record Pose(long rawX, long rawY, long rawZ, long rawYaw, long rawPitch) {
    /** Position units per block. */
    public static final double POSITION_SCALE = 4096.0;
    /** Angle units per full turn. */
    public static final double ANGLE_UNITS_PER_TURN = 65536.0;
    /** Velocity units per block per tick. */
    public static final double VELOCITY_SCALE = 8000.0;

    private static final double LIMIT = 0x1p62;

    /**
     * Quantises a pose given in blocks and degrees (round to nearest, halves away from zero;
     * non-finite values become 0), exactly as the native {@code Pose::from_f64}.
     */
    public static Pose of(double x, double y, double z, double yawDegrees, double pitchDegrees) {
        return new Pose(
                quantisePosition(x),
                quantisePosition(y),
                quantisePosition(z),
                quantiseAngle(yawDegrees),
                quantiseAngle(pitchDegrees));
    }

    /** X in blocks. */
    public double x() {
        return rawX / POSITION_SCALE;
    }

    /** Y in blocks. */
    public double y() {
        return rawY / POSITION_SCALE;
    }

    /** Z in blocks. */
    public double z() {
        return rawZ / POSITION_SCALE;
    }

    /** Yaw in degrees, unbounded. */
    public double yaw() {
        return rawYaw * 360.0 / ANGLE_UNITS_PER_TURN;
    }

    /** Pitch in degrees. */
    public double pitch() {
        return rawPitch * 360.0 / ANGLE_UNITS_PER_TURN;
    }

    /** Blocks to 1/4096-block units. */
    public static long quantisePosition(double blocks) {
        return quantise(blocks * POSITION_SCALE);
    }

    /** Degrees to 1/65536-turn units, unbounded. */
    public static long quantiseAngle(double degrees) {
        return quantise(degrees * ANGLE_UNITS_PER_TURN / 360.0);
    }

    /** Blocks per tick to 1/8000 block per tick. */
    public static long quantiseVelocity(double blocksPerTick) {
        return quantise(blocksPerTick * VELOCITY_SCALE);
    }

    /** Rounds half away from zero (Rust's {@code f64::round}; {@link Math#round} rounds half up). */
    static long quantise(double v) {
        if (!Double.isFinite(v)) {
            return 0;
        }
        double r;
        if (Math.abs(v) >= 0x1p52) {
            r = v; // already an integer
        } else {
            double t = (double) (long) v; // truncated toward zero, exact below 2^52
            double frac = v - t; // exact
            r = frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
        }
        return (long) Math.max(-LIMIT, Math.min(LIMIT, r));
    }
}
