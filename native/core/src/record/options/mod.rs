//! What a recording is started with: its options, and the observers its stream is shown to.

pub(crate) mod observer;
pub(super) mod recorder_options;
