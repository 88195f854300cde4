package io.tickreel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * What an options builder was told, as the library's setters to call (one generated native setter
 * per option: native/bridge/api/*_options.rs), replayed in order on a new native options handle.
 * Every options class ({@link EngineOptions}, {@link RecorderOptions}, {@link ReelOptions}, {@link
 * ShadowOptions}, {@link ReportOptions}) builds through one: what is not set keeps the library's
 * default (the library holds the one set of defaults), and the library checks the values.
 */
final class OptionSetters {
    private final List<LongConsumer> setters;

    /** None yet (a builder's). */
    OptionSetters() {
        setters = new ArrayList<>();
    }

    private OptionSetters(List<LongConsumer> setters) {
        this.setters = setters;
    }

    /** Records one setter, called with the native handle. */
    void add(LongConsumer setter) {
        setters.add(setter);
    }

    /** An immutable copy, with {@code more} called after the recorded setters (what {@code build()} keeps). */
    OptionSetters copy(LongConsumer... more) {
        List<LongConsumer> all = new ArrayList<>(setters);
        all.addAll(List.of(more));
        return new OptionSetters(List.copyOf(all));
    }

    /**
     * Calls each setter on {@code handle} (a new native options handle) and returns it; the caller
     * closes it ({@link NativeBridge#close}). A value the library refuses throws here, naming the
     * builder method, and the handle is closed.
     */
    long applyTo(long handle) {
        try {
            for (LongConsumer set : setters) {
                set.accept(handle);
            }
            return handle;
        } catch (RuntimeException | Error e) {
            NativeBridge.close(handle);
            throw e;
        }
    }

    /**
     * A duration in milliseconds, the unit of every option, rounded down (so that a negative one
     * stays negative, and the library refuses it naming the option); saturated, so that the library
     * refuses what is out of its range with its own message.
     */
    static long millis(Duration d) {
        try {
            long ms = d.toMillis(); // toward zero
            return d.isNegative() && !Duration.ofMillis(ms).equals(d) ? ms - 1 : ms;
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * A tick rate as the setters take it, ticks per second times 1000; NaN and negative rates
     * reach the library as 0 or less, which it refuses.
     */
    static int millihz(double ticksPerSecond) {
        long milli = Math.round(ticksPerSecond * 1000.0);
        return (int) Math.max(Math.min(milli, Integer.MAX_VALUE), -1);
    }

    /** A UUID as the setters take it: most significant bits first. */
    static long[] uuid(java.util.UUID id) {
        return new long[] {id.getMostSignificantBits(), id.getLeastSignificantBits()};
    }
}
