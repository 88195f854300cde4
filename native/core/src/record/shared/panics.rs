//! A panic in the write path's background work (a writer's message, a sync round, a compaction,
//! a recovery), caught and turned into its message: the recording it hit is retired or its job
//! fails with it, and the thread goes on.

/// The text of a caught panic.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error on the writer thread: {what}")
}

/// Runs `f`, turning a panic into its message.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))
}
