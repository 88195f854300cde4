package io.tickreel;

import java.util.OptionalInt;

/**
 * What a {@link LiveShipper} has done so far, a snapshot taken by {@link LiveShipper#stats()}.
 *
 * @param shipments manifests written (one per shipment)
 * @param batches batch objects written (segment bytes flushed since the shipment before)
 * @param requests requests sent (batches, manifests; failed ones too)
 * @param segmentBytes segment bytes shipped (what the local segments held at the last shipment)
 * @param shippedBytes bytes sent: batches plus manifests
 * @param errors shipments that failed (retried at the next interval)
 * @param lastTick the last tick in the bucket (empty: none yet)
 */
public record ShipStats(
        long shipments,
        long batches,
        long requests,
        long segmentBytes,
        long shippedBytes,
        long errors,
        OptionalInt lastTick) {
    // v: the fields of the C struct TickreelShipStats in order, an absent value -1 (generated from one
    // declaration, native/bridge/codegen/records.rs).
    static ShipStats fromNative(long[] v) {
        return new ShipStats(v[0], v[1], v[2], v[3], v[4], v[5],
                v[6] < 0 ? OptionalInt.empty() : OptionalInt.of((int) v[6]));
    }
}
