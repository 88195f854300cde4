package io.tickreel;

/**
 * A recording {@link Catalog#prune(boolean)} deleted, or that a dry run would delete.
 * @param recordingId its id in the catalog
 * @param location its path or object URL
 * @param sizeBytes its size
 * @param runs the runs listed with it
 */
public record Pruned(long recordingId, String location, long sizeBytes, long runs) {}
