package io.tickreel;

import java.util.Objects;

/**
 * A recording's live form shipped to object storage while it is written, started by
 * {@link Recorder#shipLive}: every interval, on a background thread, the segment bytes flushed
 * since the last shipment as one object and then the manifest (at most two requests, so 12 a
 * minute at the default 10 s). The recorder is never touched: {@link Recorder#submit(int, Batch)} costs
 * the same. Anyone with the bucket follows it with {@link Playhead#followUrl}.
 * {@link #finish(Recorder, boolean, boolean)} ends the recording and leaves one compacted
 * {@code .reel} at the key, the live objects removed. Closing without finishing stops the
 * shipping and leaves what is in the bucket (a follower reports the recording ended;
 * {@code tickreel recover s3://...} finishes it).
 * <pre>{@code
 * try (LiveShipper ship = recorder.shipLive("s3://replays/eu-1/run-42.reel", options, Duration.ofSeconds(10))) {
 *     ... // submit ticks as usual
 *     Pending<Uploaded> up = ship.finish(recorder, false, true);
 * }
 * }</pre>
 */
public final class LiveShipper implements AutoCloseable {
    private final NativeHandle handle;

    LiveShipper(long h) {
        this.handle = new NativeHandle(this, h, "LiveShipper");
    }

    /**
     * What the shipper has done so far (after {@link #finish}: as it was when shipping stopped).
     * Never waits on the network.
     *
     * @throws IllegalStateException if this shipper is closed
     */
    public ShipStats stats() {
        return ShipStats.fromNative(NativeBridge.liveShipperStats(handle.get()));
    }

    /**
     * Ships now, on the calling thread (waits on up to two requests): what the next interval
     * would, e.g. after {@link Recorder#flush()} so that followers see every tick flushed. Not
     * for a server thread.
     *
     * @throws TickreelException if a request failed (the next shipment retries it)
     * @throws IllegalStateException if this shipper was finished or is closed
     */
    public void shipNow() {
        NativeBridge.liveShipperShipNow(handle.get());
    }

    /**
     * Ends {@code recorder}'s recording (as {@link Recorder#finish()}) and the shipping: once the
     * recording is compacted, uploads its {@code .reel} to the shipper's key on a background
     * thread (never over an existing object unless {@code overwrite}, the uploaded size checked,
     * the local file removed if {@code removeLocal}), then removes the live objects. A failed
     * compaction or upload leaves the live objects in the bucket. Returns at once; the
     * {@link Pending} result is the uploaded object.
     *
     * @throws IllegalArgumentException if {@code recorder} is not the recording this shipper ships
     * @throws IllegalStateException if this shipper was already finished or is closed, or as
     *     {@link Recorder#finish()} (the shipping then goes on)
     */
    public Pending<Uploaded> finish(Recorder recorder, boolean overwrite, boolean removeLocal) {
        Objects.requireNonNull(recorder, "recorder");
        return new Pending<>(NativeBridge.liveShipperFinish(handle.get(), recorder.nativeHandle(), overwrite, removeLocal),
                Pending.UPLOAD, "upload");
    }

    /** Releases the shipper; one not finished stops shipping (what is in the bucket stays). */
    @Override
    public void close() {
        handle.close();
    }
}
