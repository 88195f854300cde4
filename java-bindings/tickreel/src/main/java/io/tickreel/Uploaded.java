package io.tickreel;

/**
 * What a finished upload tells ({@link Recorder#finishAndUpload}, {@link
 * ShadowBuffer#reportAndUpload}).
 *
 * @param url the uploaded object's URL
 * @param bytes the uploaded object's size in bytes
 */
public record Uploaded(String url, long bytes) {}
