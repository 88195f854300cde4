//! The option arrays Java passes (`long[]`), each declared once here: the field order, the Rust
//! struct the decoders destructure and the encoders (`defaults`) fill, and the Java factory
//! (`NativeBridge.engineOptions(...)` and the like, written into `NativeBridge.java`'s generated
//! part) that the Java option classes call with named arguments. A field added here changes the
//! struct, which every decoder and encoder names exhaustively (no `..`), and the factory's
//! parameters, which every Java `toNative()` passes: neither language builds until both are
//! updated, and nothing indexes an array by hand.

/// Declares one array layout: `Name, "javaFactory" { rust_field: "javaParameter", ... }`.
macro_rules! layout {
    ($(#[$doc:meta])* $name:ident, $factory:literal { $($field:ident : $java:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) struct $name {
            $(pub $field: i64,)+
        }

        impl $name {
            /// Number of `long`s.
            pub(crate) const LEN: usize = [$($java),+].len();

            /// Reads the first [`Self::LEN`] values of `a` (the caller checked its length).
            pub(crate) fn read(a: &[i64]) -> $name {
                let mut values = a.iter().copied();
                // Struct expressions evaluate their fields in the order written: the layout's.
                $name { $($field: values.next().expect("the array's length was checked"),)+ }
            }

            /// The array, in the layout's order.
            pub(crate) fn to_vec(self) -> Vec<i64> {
                vec![$(self.$field),+]
            }

            /// The Java factory's name and parameters, in order.
            #[cfg(test)]
            pub(crate) const JAVA: (&'static str, &'static [&'static str]) = ($factory, &[$($java),+]);
        }
    };
}

layout! {
    /// `ReelOptions.toNative()`: a recording's identity and its chunk policy.
    ReelArray, "reelOptions" {
        world_id_msb: "worldIdMsb",
        world_id_lsb: "worldIdLsb",
        world_version_msb: "worldVersionMsb",
        world_version_lsb: "worldVersionLsb",
        timestamp_ms: "startedAtMs",
        tick_rate_millihz: "ticksPerSecondMilli",
        game_data_version: "gameDataVersion",
        dictionary_id: "dictionaryId",
        chunk_ticks: "chunkTicks",
        chunk_bytes: "chunkBytes",
        snapshot_interval: "snapshotInterval",
        zstd_level: "compressionLevel",
    }
}

layout! {
    /// What `RecorderOptions.toNative()` appends to its recording's [`ReelArray`].
    RecorderArray, "recorderOptions" {
        flush_bytes: "flushBytes",
        flush_interval_ms: "flushIntervalMs",
        flush_on_player_leave: "flushOnPlayerLeave",
        backpressure_drop: "backpressureDrop",
        block_deadline_ns: "blockDeadlineNs",
        compaction_level: "compactionLevel",
        compaction_chunk_ticks: "compactionChunkTicks",
        verify_compaction: "verifyCompaction",
        max_batch_bytes: "maxBatchBytes",
        overwrite: "overwrite",
    }
}

layout! {
    /// `EngineOptions.toNative()`.
    EngineArray, "engineOptions" {
        writer_threads: "writerThreads",
        queue_capacity: "queueCapacity",
        max_inflight_bytes: "maxInflightBytes",
        pool_buffers: "poolBuffers",
        shadow_budget_bytes: "shadowBudgetBytes",
    }
}

layout! {
    /// `ShadowOptions.toNative()`: durations in nanoseconds, `maxBytes` -1 for none.
    ShadowArray, "shadowOptions" {
        window_ns: "windowNs",
        grace_ns: "graceNs",
        max_bytes: "maxBytes",
        block_ticks: "blockTicks",
    }
}

layout! {
    /// `ReportOptions.toNative()` (`beforeNs` -1: all that is retained); a report's array adds
    /// the radius's `double` bits after it.
    ReportArray, "reportOptions" {
        before_ns: "beforeNs",
        after_ns: "afterNs",
        radius_applies: "radiusApplies",
        overwrite: "overwrite",
        zstd_level: "compressionLevel",
    }
}

/// Every layout's Java factory, for `NativeBridge.java`'s generated part.
#[cfg(test)]
pub(crate) const JAVA: &[(&str, &[&str])] = &[
    ReelArray::JAVA,
    RecorderArray::JAVA,
    EngineArray::JAVA,
    ShadowArray::JAVA,
    ReportArray::JAVA,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_takes_the_fields_in_the_declared_order() {
        let a: Vec<i64> = (0..EngineArray::LEN as i64).collect();
        let e = EngineArray::read(&a);
        assert_eq!((e.writer_threads, e.shadow_budget_bytes), (0, 4));
        assert_eq!(e.to_vec(), a);
        assert_eq!(ReelArray::LEN, 12);
        assert_eq!(RecorderArray::LEN, 10);
    }
}
