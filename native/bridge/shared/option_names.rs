//! The one table of option names: how each language names an option the core's messages mark
//! (`tickreel::error::option`, its Rust name), for C (the setter's suffix or the struct field,
//! where it differs: durations in milliseconds) and Java (the builder method that sets it).

/// `(core name, C name where it differs, Java name)`.
const NAMES: &[(&str, Option<&str>, Option<&str>)] = &[
    ("chunk_ticks", None, Some("chunkTicks")),
    ("chunk_bytes", None, Some("chunkBytes")),
    ("snapshot_interval", None, Some("snapshotInterval")),
    ("zstd_level", None, Some("compressionLevel")),
    ("compaction_zstd_level", None, Some("compactionLevel")),
    ("compaction_chunk_ticks", None, Some("compactionChunkTicks")),
    (
        "flush_interval",
        Some("flush_interval_ms"),
        Some("flushInterval"),
    ),
    ("flush_interval_ms", None, Some("flushInterval")),
    ("block_deadline_ms", None, Some("backpressureBlock")),
    ("dictionary_id", None, Some("dictionaryId")),
    ("game_data_version", None, Some("gameDataVersion")),
    ("flush_max_pending_bytes", None, Some("flushBytes")),
    ("max_batch_bytes", None, Some("maxBatchBytes")),
    ("tick_rate_millihz", None, Some("ticksPerSecond")),
    ("overwrite", None, Some("overwrite(true)")),
    ("on_existing", None, Some("onExisting")),
    ("writer_threads", None, Some("writerThreads")),
    ("queue_capacity", None, Some("queueCapacity")),
    ("max_inflight_bytes", None, Some("maxInflightBytes")),
    ("pool_buffers", None, Some("poolBuffers")),
    ("shadow_budget_bytes", None, Some("shadowBudgetBytes")),
    ("window", Some("window_ms"), Some("window")),
    ("window_ms", None, Some("window")),
    ("grace", Some("grace_ms"), Some("grace")),
    ("grace_ms", None, Some("grace")),
    ("max_bytes", None, Some("maxBytes")),
    ("block_ticks", None, Some("blockTicks")),
    ("before", Some("before_ms"), Some("before")),
    ("before_ms", None, Some("before")),
    ("after", Some("after_ms"), Some("after")),
    ("after_ms", None, Some("after")),
    ("radius", None, Some("radius")),
    ("speed", None, Some("speed")),
];

/// The C name of an option the core names, where it differs.
pub(crate) fn c_option(name: &str) -> Option<&'static str> {
    NAMES.iter().find(|r| r.0 == name).and_then(|r| r.1)
}

/// The Java name of an option the core names (or a setter's parameter): the builder method that
/// sets it.
pub(crate) fn java_option(name: &str) -> Option<&'static str> {
    NAMES.iter().find(|r| r.0 == name).and_then(|r| r.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_reads_its_column() {
        assert_eq!(c_option("flush_interval"), Some("flush_interval_ms"));
        assert_eq!(java_option("flush_interval"), Some("flushInterval"));
        assert_eq!(java_option("flush_interval_ms"), Some("flushInterval"));
        assert_eq!(c_option("chunk_ticks"), None, "C's name is the core's");
        assert_eq!(java_option("chunk_ticks"), Some("chunkTicks"));
        assert_eq!(java_option("nothing"), None);
        let mut names: Vec<&str> = NAMES.iter().map(|r| r.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMES.len(), "one row per name");
    }
}
