//! The C ABI: `include/tickreel.h`, generated from this module by cbindgen (see `build.rs` and
//! `cbindgen.toml`, whose preamble documents the contract every function follows).
//!
//! Thin on purpose: argument checks, the panic boundary, result codes and handles. Each entry
//! point runs its body through [`result::guard`], which catches panics (`TICKREEL_RESULT_PANIC`)
//! and records the calling thread's last error. Handles are tokens in a generation-checked table
//! ([`handle`]), so a freed or foreign handle is an error, not undefined behaviour. Raw-pointer
//! arguments are checked and converted in [`args`], the one place that states the caller
//! contracts. Logic belongs in the core, where the Rust API and the JNI bindings get it too.

pub mod args;
pub mod batch;
#[cfg(feature = "catalog")]
pub mod catalog;
pub mod convert;
pub mod engine;
pub mod generated;
pub mod ghost;
pub mod handle;
#[cfg(feature = "object")]
pub mod object;
pub mod options;
pub mod pending;
pub mod playhead;
pub mod reader;
pub mod result;
pub mod terrain;
pub mod world;
pub mod world_state;
pub mod writer;

pub use batch::TickreelBatch;
#[cfg(feature = "catalog")]
pub use catalog::TickreelCatalog;
pub use engine::recorder::TickreelRecorder;
pub use engine::shadow::TickreelShadowBuffer;
pub use engine::{TickreelEngine, TickreelEngineOptions};
pub use generated::constants::*;
pub use generated::records::*;
pub use ghost::cursor::TickreelGhostCursor;
pub use ghost::delta::TickreelLiveDelta;
pub use ghost::gold::TickreelGoldSplits;
pub use ghost::set::TickreelGhostSet;
pub use ghost::{TickreelGhost, TickreelGhostRange};
#[cfg(feature = "object")]
pub use object::{TickreelLiveShipper, TickreelObjectOptions};
pub use options::{
    TickreelRecorderOptions, TickreelReelOptions, TickreelReportOptions, TickreelShadowOptions,
};
pub use pending::TickreelPending;
pub use playhead::TickreelPlayhead;
pub use reader::{TickreelEntityState, TickreelReader};
pub use result::TickreelResult;
pub use terrain::TickreelTerrainSection;
pub use world::{TickreelBlockState, TickreelEvents};
pub use world_state::{TickreelBlockAt, TickreelWorldState};
pub use writer::TickreelReelWriter;
