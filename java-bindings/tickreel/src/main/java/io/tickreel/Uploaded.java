package io.tickreel;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What a finished upload tells ({@link Recorder#finishAndUpload}, {@link
 * ShadowBuffer#reportAndUpload}).
 *
 * @param url the uploaded object's URL
 * @param bytes the uploaded object's size in bytes
 */
public record Uploaded(String url, long bytes) {
    /** Decodes a pending's upload: the size ({@code u64} big-endian), then the URL in UTF-8. */
    static Uploaded fromNative(byte[] b) {
        long bytes = ByteBuffer.wrap(b).getLong();
        return new Uploaded(new String(b, Long.BYTES, b.length - Long.BYTES, StandardCharsets.UTF_8), bytes);
    }
}
