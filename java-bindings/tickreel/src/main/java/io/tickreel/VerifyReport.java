package io.tickreel;

/**
 * What {@link Reader#verify()} found after reading, checking and decoding every chunk.
 *
 * @param chunks chunks checked
 * @param ticks ticks covered
 * @param poseSamples pose samples decoded
 * @param events events other than pose updates
 */
public record VerifyReport(long chunks, long ticks, long poseSamples, long events) {}
