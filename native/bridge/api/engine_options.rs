//! An engine's options as a builder (C: `TickreelEngineOptions`, Java: what `EngineOptions` builds
//! through), as [`crate::api::recorder_options`]: a handle holding the core's
//! [`record::EngineOptions`], starting from its defaults, with one setter per option; the core
//! checks the whole when the engine starts (`EngineOptions::validate`).

use tickreel_sync::sync::Mutex;

use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel::record;
use tickreel_bridge_macros::bridge_fn;

/// An engine's options being built (C: `TickreelEngineOptions`; Java: the handle `EngineOptions`
/// fills for each engine).
pub struct EngineOptions(Mutex<record::EngineOptions>);

impl HandleType for EngineOptions {
    const TAG: u8 = 23;
    const NAME: &'static str = "engine options";
}

impl EngineOptions {
    /// The options given, or the defaults for none.
    pub(crate) fn or_default(options: Option<&EngineOptions>) -> record::EngineOptions {
        options.map_or_else(record::EngineOptions::default, |o| *o.0.lock())
    }

    fn set(&self, f: impl FnOnce(&mut record::EngineOptions)) -> tickreel::Result<()> {
        f(&mut self.0.lock());
        Ok(())
    }
}

/// Creates an engine's options with the defaults (1 writer thread, 65536 queued ticks, 64 MiB in
/// flight, 4096 pooled buffers, 256 MiB of shadow buffers), into `*out_options`. Change them with
/// the `tickreel_engine_options_set_*` functions, pass them to `tickreel_engine_new` (which reads
/// them) and free them with `tickreel_engine_options_free`.
///
/// Thread safety: any thread; each setter is atomic, and a start on another thread reads them.
#[bridge_fn(
    c = "tickreel_engine_options_new",
    c_out = "out_options",
    java = "engineOptionsNew"
)]
pub fn engine_options_new() -> New<EngineOptions> {
    New(EngineOptions(Mutex::new(record::EngineOptions::default())))
}

/// Frees engine options (an engine started with them keeps its copy). NULL is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_engine_options_free")]
pub fn engine_options_free(_options: Released<EngineOptions>) {}

/// Writer threads; recordings are spread over them (default 1). 1 to 64.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_engine_options_set_writer_threads",
    java = "engineOptionsSetWriterThreads"
)]
pub fn set_writer_threads(options: &EngineOptions, writer_threads: u32) -> tickreel::Result<()> {
    options.set(|o| o.writer_threads = writer_threads as usize)
}

/// Tick messages that may wait in each writer's queue (default 65536). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_engine_options_set_queue_capacity",
    java = "engineOptionsSetQueueCapacity"
)]
pub fn set_queue_capacity(options: &EngineOptions, queue_capacity: usize) -> tickreel::Result<()> {
    options.set(|o| o.queue_capacity = queue_capacity)
}

/// Bytes of submitted ticks that may be in flight, engine-wide (default 64 MiB). A single tick is
/// always accepted when nothing else is in flight.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_engine_options_set_max_inflight_bytes",
    java = "engineOptionsSetMaxInflightBytes"
)]
pub fn set_max_inflight_bytes(
    options: &EngineOptions,
    max_inflight_bytes: usize,
) -> tickreel::Result<()> {
    options.set(|o| o.max_inflight_bytes = max_inflight_bytes)
}

/// Reusable tick buffers kept in the engine's pool (default 4096).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_engine_options_set_pool_buffers",
    java = "engineOptionsSetPoolBuffers"
)]
pub fn set_pool_buffers(options: &EngineOptions, pool_buffers: usize) -> tickreel::Result<()> {
    options.set(|o| o.pool_buffers = pool_buffers)
}

/// Bytes the engine's shadow buffers (`tickreel_shadow_buffer_start`) may hold in all (default
/// 256 MiB); past it, the oldest blocks of any buffer are given up first.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_engine_options_set_shadow_budget_bytes",
    java = "engineOptionsSetShadowBudgetBytes"
)]
pub fn set_shadow_budget_bytes(
    options: &EngineOptions,
    shadow_budget_bytes: usize,
) -> tickreel::Result<()> {
    options.set(|o| o.shadow_budget_bytes = shadow_budget_bytes)
}
