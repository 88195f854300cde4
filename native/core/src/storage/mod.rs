//! Every byte that touches a disk. Nothing else in the core calls `std::fs`.
//!
//! - [`Source`]: range reads (a local file, bytes in memory);
//! - [`Storage`]: create, append, sync, rename, remove, list, lock; [`LocalStorage`] over the
//!   local file system, or a test backend that can lose power at any step;
//! - [`frames`]: reading chunk frames and the header/metadata/index prefix of a recording;
//! - [`live`]: live recording directories (lock, metadata file, segments, scanning);
//! - [`remote`]: live recordings kept elsewhere (object storage), as a follower polls them.

mod counted;
mod disk;
pub mod frames;
pub mod live;
mod local;
pub mod remote;
mod source;

pub(crate) use counted::SyncCounted;
pub use disk::{
    EntryKind, RefusedMember, Stat, Storage, StorageFile, StorageLock, TempFile, is_refused_member,
    not_a_regular_member, parent_dir, write_atomic, write_atomic_checked,
};
pub use local::{FileSource, LocalStorage};
pub use source::{MemSource, Source};
