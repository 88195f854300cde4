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
     * Quantises a pose given in blocks and degrees (round to nearest, halves away from zero),
     * exactly as the native {@code Pose::try_from_f64}.
     *
     * @throws IllegalArgumentException if a value is not finite or lies beyond the format's range
     *     (the library's one policy and message, e.g. "x is 1e300 blocks; ...")
     */
    public static Pose of(double x, double y, double z, double yawDegrees, double pitchDegrees) {
        return new Pose(
                quantisePosition("x", x),
                quantisePosition("y", y),
                quantisePosition("z", z),
                quantiseAngle("yaw", yawDegrees),
                quantiseAngle("pitch", pitchDegrees));
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

    /**
     * Blocks to 1/4096-block units.
     *
     * @throws IllegalArgumentException for a non-finite value or one beyond the format's range
     */
    public static long quantisePosition(double blocks) {
        return quantisePosition("position", blocks);
    }

    /**
     * Degrees to 1/65536-turn units, unbounded.
     *
     * @throws IllegalArgumentException for a non-finite value or one beyond the format's range
     */
    public static long quantiseAngle(double degrees) {
        return quantiseAngle("angle", degrees);
    }

    /**
     * Blocks per tick to 1/8000 block per tick.
     *
     * @throws IllegalArgumentException for a non-finite value or one beyond the format's range
     */
    public static long quantiseVelocity(double blocksPerTick) {
        return quantiseVelocity("velocity", blocksPerTick);
    }

    static long quantisePosition(String what, double blocks) {
        return quantise(POSITION, what, blocks, blocks * POSITION_SCALE);
    }

    static long quantiseAngle(String what, double degrees) {
        return quantise(ANGLE, what, degrees, degrees * ANGLE_UNITS_PER_TURN / 360.0);
    }

    static long quantiseVelocity(String what, double blocksPerTick) {
        return quantise(VELOCITY, what, blocksPerTick, blocksPerTick * VELOCITY_SCALE);
    }

    /** The core's quantity codes ({@code format::pose::Quantity::code}). */
    static final int POSITION = 0;
    static final int ANGLE = 1;
    static final int VELOCITY = 2;

    /**
     * {@code scaled} ({@code value} in units) rounded half away from zero (Rust's
     * {@code f64::round}; {@link Math#round} rounds half up). A value outside the format's range
     * (|units| &gt; 2^62, NaN included) is handed to the core, whose check refuses it with its
     * message: the policy is the core's, this test only keeps the common case in Java.
     */
    private static long quantise(int quantity, String what, double value, double scaled) {
        if (!(Math.abs(scaled) <= LIMIT)) {
            NativeLoader.ensureLoaded();
            return NativeBridge.quantityCheck(quantity, what, value);
        }
        double r;
        if (Math.abs(scaled) >= 0x1p52) {
            r = scaled; // already an integer
        } else {
            double t = (double) (long) scaled; // truncated toward zero, exact below 2^52
            double frac = scaled - t; // exact
            r = frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
        }
        return (long) r;
    }
}
