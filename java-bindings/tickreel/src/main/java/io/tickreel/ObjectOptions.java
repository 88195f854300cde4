package io.tickreel;

import java.time.Duration;
import java.util.Objects;

/**
 * How to reach an S3-compatible object store (AWS S3, MinIO, R2, GCS's S3 API) for recordings
 * opened by URL ({@code s3://bucket/key}): endpoint, region, credentials, timeouts and retries.
 * Immutable; {@link #fromEnv()} reads the usual variables ({@code AWS_ACCESS_KEY_ID},
 * {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}, {@code AWS_REGION},
 * {@code AWS_ENDPOINT_URL}, {@code AWS_ALLOW_HTTP}) when it is used, and each {@code with...}
 * method returns a copy that overrides one setting. Credentials never appear in messages or in
 * {@link #toString()}.
 * <pre>{@code
 * ObjectOptions o = ObjectOptions.fromEnv().withEndpoint("http://127.0.0.1:9000");
 * try (Reader r = Reader.open("s3://runs/course-7/best.reel", o)) { ... }
 * }</pre>
 */
public final class ObjectOptions {
    private static final ObjectOptions ENV = new ObjectOptions(null, null, null, null, null, null, -1, null, null);

    private final String endpoint;
    private final String region;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final String sessionToken;
    private final Boolean allowHttp;
    private final int retries;
    private final Duration[] timeouts; // connect, request, deadline
    private final Duration[] backoff; // initial, max

    private ObjectOptions(String endpoint, String region, String accessKeyId, String secretAccessKey,
            String sessionToken, Boolean allowHttp, int retries, Duration[] timeouts, Duration[] backoff) {
        this.endpoint = endpoint;
        this.region = region;
        this.accessKeyId = accessKeyId;
        this.secretAccessKey = secretAccessKey;
        this.sessionToken = sessionToken;
        this.allowHttp = allowHttp;
        this.retries = retries;
        this.timeouts = timeouts;
        this.backoff = backoff;
    }

    /** The library's defaults with the {@code AWS_*} variables of the process, read when used. */
    public static ObjectOptions fromEnv() {
        return ENV;
    }

    /**
     * The store's endpoint ({@code http://127.0.0.1:9000}); an {@code http://} endpoint also
     * allows plain HTTP.
     *
     * @throws NullPointerException if {@code endpoint} is null
     */
    public ObjectOptions withEndpoint(String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allowHttp, retries, timeouts, backoff);
    }

    /**
     * The region ({@code us-east-1} when unset).
     *
     * @throws NullPointerException if {@code region} is null
     */
    public ObjectOptions withRegion(String region) {
        Objects.requireNonNull(region, "region");
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allowHttp, retries, timeouts, backoff);
    }

    /**
     * Static credentials, replacing those of the environment; {@code sessionToken} may be null.
     *
     * @throws NullPointerException if {@code accessKeyId} or {@code secretAccessKey} is null
     */
    public ObjectOptions withCredentials(String accessKeyId, String secretAccessKey, String sessionToken) {
        Objects.requireNonNull(accessKeyId, "accessKeyId");
        Objects.requireNonNull(secretAccessKey, "secretAccessKey");
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allowHttp, retries, timeouts, backoff);
    }

    /** Allows (or forbids) plain {@code http://} endpoints. */
    public ObjectOptions withAllowHttp(boolean allow) {
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allow, retries, timeouts, backoff);
    }

    /**
     * Timeouts: to connect, for one request, and the deadline of one call with its retries (past
     * it the call fails with a {@link TickreelException}). Each at least 1 ms.
     *
     * @throws IllegalArgumentException (when used) for a timeout under 1 ms
     */
    public ObjectOptions withTimeouts(Duration connect, Duration request, Duration deadline) {
        Duration[] t = {Objects.requireNonNull(connect, "connect"), Objects.requireNonNull(request, "request"),
            Objects.requireNonNull(deadline, "deadline")};
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allowHttp, retries, t, backoff);
    }

    /**
     * Retries of a failed request (connection errors, 5xx, timeouts) and their backoff: the first
     * wait, doubling up to {@code backoffMax}.
     *
     * @throws IllegalArgumentException for negative retries; (when used) if the first wait is
     *     longer than the longest
     */
    public ObjectOptions withRetries(int retries, Duration backoffInitial, Duration backoffMax) {
        if (retries < 0) {
            throw new IllegalArgumentException("retries must not be negative (got " + retries + ")");
        }
        Duration[] b = {Objects.requireNonNull(backoffInitial, "backoffInitial"), Objects.requireNonNull(backoffMax, "backoffMax")};
        return new ObjectOptions(endpoint, region, accessKeyId, secretAccessKey, sessionToken, allowHttp, retries, timeouts, b);
    }

    /** A native options handle with these settings; the caller frees it ({@link NativeBridge#close}). */
    long toNative() {
        Tickreel.require(1, "object");
        long h = NativeBridge.objectOptionsNew();
        try {
            if (endpoint != null) {
                NativeBridge.objectOptionsSetEndpoint(h, endpoint);
            }
            if (region != null) {
                NativeBridge.objectOptionsSetRegion(h, region);
            }
            if (accessKeyId != null) {
                NativeBridge.objectOptionsSetCredentials(h, accessKeyId, secretAccessKey, sessionToken);
            }
            if (allowHttp != null) {
                NativeBridge.objectOptionsSetAllowHttp(h, allowHttp);
            }
            if (timeouts != null) {
                NativeBridge.objectOptionsSetTimeouts(h, millis(timeouts[0]), millis(timeouts[1]), millis(timeouts[2]));
            }
            if (backoff != null) {
                NativeBridge.objectOptionsSetRetries(h, retries, millis(backoff[0]), millis(backoff[1]));
            }
            return h;
        } catch (RuntimeException e) {
            NativeBridge.close(h);
            throw e;
        }
    }

    private static int millis(Duration d) {
        long ms = d.isNegative() ? 0 : Math.min(d.toMillis(), Integer.MAX_VALUE);
        return (int) ms;
    }

    @Override
    public String toString() {
        return "ObjectOptions[endpoint=" + (endpoint == null ? "(env)" : endpoint)
            + ", region=" + (region == null ? "(env)" : region)
            + ", credentials=" + (accessKeyId == null ? "(env)" : "***") + "]";
    }
}
